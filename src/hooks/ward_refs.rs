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

use std::path::PathBuf;
use std::time::SystemTime;

use super::{conclude, is_zero, record};
use crate::checkpoint::made;
use crate::checkpoint::store::PREFIX;
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

/// Does the transaction only move a loose ref into `packed-refs` (a
/// `pack-refs`), which changes nothing?
fn pruning(store: &mut RefStore, old: &str, new: &str, name: &str) -> bool {
    !is_zero(old)
        && is_zero(new)
        && store.loose(name) == Some(Value::Id(old.to_string()))
        && store.packed(name).as_deref() == Some(old)
        && !store.packed_locked()
}

/// In `preparing`/`prepared`: the exit code of a refusal, or `None` when
/// the transaction writes no ref under `refs/ward/` that it may not. In
/// `prepared`, a checkpoint the transaction rewrites or deletes is noted
/// for `committed` ([`note_displaced`]).
pub fn gate(state: &str, stdin: &[u8]) -> Result<Option<u8>> {
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
    let mut own = None;
    let mut is_own = || *own.get_or_insert_with(crate::facts::starter::started_by_ward);
    let mut store = RefStore::new(&dirs);
    if state == "prepared" {
        note_displaced(&dirs, &mut store, &lines, stdin, &mut is_own);
    }
    if actor != Actor::Agent || is_own() {
        return Ok(None);
    }
    let Some(change) = lines
        .iter()
        .filter_map(|(old, new, name)| {
            let change = RefChange {
                refname: name.clone(),
                current: store.resolve(name),
                new: (!is_zero(new)).then(|| new.clone()),
                ..RefChange::default()
            };
            (!pruning(&mut store, old, new, name)).then_some(change)
        })
        .find(RefChange::changes)
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

/// Where `prepared` leaves the checkpoints a transaction displaces, for
/// `committed`: beside the journal's carry-over file, so that the hook
/// script starts git-ward for `committed` too.
pub fn displaced_file(dirs: &Dirs, stdin: &[u8]) -> Option<PathBuf> {
    let journal = super::reference_transaction::tx_file(dirs, stdin)?;
    let mut name = journal.file_name()?.to_os_string();
    name.push(".kept");
    Some(journal.with_file_name(name))
}

/// In `prepared`: each checkpoint this transaction rewrites or deletes,
/// when git-ward itself is not the writer (retention deleting its own),
/// with the commit to keep: the one git-ward made under that id (its
/// record, `ward/made/<id>`), else the one the ref holds now.
fn note_displaced(
    dirs: &Dirs,
    store: &mut RefStore,
    lines: &[(String, String, String)],
    stdin: &[u8],
    is_own: &mut dyn FnMut() -> bool,
) {
    let mut text = String::new();
    for (old, new, name) in lines {
        let Some(id) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let now = store.resolve(name);
        if pruning(store, old, new, name) || now.is_none() || now.as_ref() == Some(new) {
            continue;
        }
        let Some(keep) = made::read(&dirs.common_dir, id)
            .map(|m| m.commit)
            .or(now)
            .filter(|k| k != new)
        else {
            continue;
        };
        let how = if is_zero(new) { "deleted" } else { "rewritten" };
        text.push_str(&format!("{id}\t{keep}\t{how}\n"));
    }
    if text.is_empty() || is_own() {
        return;
    }
    let Some(path) = displaced_file(dirs, stdin) else {
        return;
    };
    super::reference_transaction::write_carry_over(
        &path,
        &text,
        "note the checkpoints this rewrites",
    );
}

/// In `committed`: the commit of each checkpoint `prepared` noted, kept
/// as `refs/ward/kept/<id>/made` where its ref no longer holds it, so
/// that a rewrite or deletion loses nothing git-ward made.
pub fn keep_displaced(dirs: &Dirs, stdin: &[u8]) {
    let Some(path) = displaced_file(dirs, stdin) else {
        return;
    };
    let Ok(text) = crate::state_file::read_text(&path) else {
        return;
    };
    let _ = std::fs::remove_file(&path);
    let Ok(git) = crate::git::Git::locate() else {
        return;
    };
    let mut store = RefStore::new(dirs);
    for line in text.lines() {
        let mut it = line.split('\t');
        let (Some(id), Some(commit), Some(how)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if store.resolve(&format!("{PREFIX}{id}")).as_deref() == Some(commit) {
            continue;
        }
        let kept = made::kept_ref(id);
        let message = format!("ward: checkpoint {id} {how}, its commit kept");
        if store.resolve(&kept).as_deref() == Some(commit) {
            continue;
        }
        let done = git
            .output(["update-ref", "-m", &message, &kept, commit])
            .is_ok_and(|o| o.status.success());
        if done {
            crate::output::errln!(
                "ward: checkpoint {id} was {how}: the commit git-ward made ({}) is kept as {kept}",
                commit.get(..12).unwrap_or(commit)
            );
        } else {
            crate::output::errln!(
                "ward: warning: checkpoint {id} was {how}, and its commit {commit} could not be kept as {kept}"
            );
        }
    }
}
