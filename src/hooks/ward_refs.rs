//! reference-transaction's guard of `refs/ward/`: git-ward's own refs
//! (checkpoints, and the commits they keep under `refs/ward/kept/`).
//!
//! A restore believes what a checkpoint holds only as far as git-ward made
//! it, so an agent's git may not create, move or delete any ref there,
//! whatever command it runs (`update-ref`, `fetch . x:refs/ward/...`, a
//! push to the repository itself). git-ward's own git processes pass: the
//! hook checks that the git running it was started by git-ward for itself
//! ([`crate::facts::starter`]), which no command line or environment can
//! claim. A `pack-refs` moving a loose ref into `packed-refs` changes
//! nothing and passes.

use std::time::SystemTime;

use super::{conclude, is_zero, record};
use crate::decide::refs::{decide_ward_ref, RefChange};
use crate::decide::Actor;
use crate::error::{exit, Result};
use crate::facts::refstore::{RefStore, Value};
use crate::facts::settings_cache::{Loaded, Quick};
use crate::facts::Dirs;

/// git-ward's namespace.
pub const WARD_REFS: &str = "refs/ward/";

/// The `refs/ward/` lines of a transaction: (old, new, ref).
fn lines(stdin: &[u8]) -> Vec<(String, String, String)> {
    String::from_utf8_lossy(stdin)
        .lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ' ');
            let (old, new, name) = (it.next()?, it.next()?, it.next()?);
            // Not `old != new`: a deletion with no old value given
            // (`update-ref -d`) comes as zeros to zeros.
            name.starts_with(WARD_REFS)
                .then(|| (old.to_string(), new.to_string(), name.to_string()))
        })
        .collect()
}

/// In `preparing`/`prepared`: the exit code of a refusal, or `None` when
/// the transaction writes no ref under `refs/ward/` that it may not.
pub fn gate(stdin: &[u8]) -> Result<Option<u8>> {
    let started = SystemTime::now();
    let lines = lines(stdin);
    if lines.is_empty() {
        return Ok(None);
    }
    let Some(dirs) = Dirs::find() else {
        return Ok(None);
    };
    let loaded = Quick::load(&dirs)?;
    let actor = loaded.quick.actor();
    if actor != Actor::Agent || crate::facts::starter::started_by_ward() {
        return Ok(None);
    }
    let mut store = RefStore::new(&dirs);
    let Some(change) = lines
        .iter()
        .map(|(old, new, name)| {
            let pruning = !is_zero(old)
                && is_zero(new)
                && store.loose(name) == Some(Value::Id(old.clone()))
                && store.packed(name).as_deref() == Some(old.as_str())
                && !store.packed_locked();
            let change = RefChange {
                refname: name.clone(),
                current: store.resolve(name),
                new: (!is_zero(new)).then(|| new.clone()),
                pruning,
                ..RefChange::default()
            };
            (change, pruning)
        })
        .find(|(c, pruning)| c.changes() && !pruning)
        .map(|(c, _)| c)
    else {
        return Ok(None);
    };
    let policy = Loaded::full_policy(loaded.policy, &dirs)?;
    let argv = super::parent_argv();
    let operation = super::parent_operation(&argv);
    let decision = decide_ward_ref(&policy, actor, &operation, &change.refname, false);
    let contract = crate::facts::contract(None).ok().flatten().map(|c| c.0);
    let mut rec = record("reference-transaction", actor, contract, started);
    rec.operation = operation;
    rec.refname = Some(change.refname.clone());
    rec.old = change.current.clone();
    rec.new = change.new.clone();
    let code = conclude(Some(&dirs), rec, &decision, true);
    Ok((code != exit::OK).then_some(code))
}
