//! pre-commit: the early, friendly check for a commit on a protected branch.
//!
//! The same decision the shim makes for `git commit`, reached without the
//! shim (`/usr/bin/git`, a script, a library). Where the shim would have
//! moved the agent to its own branch, a hook cannot, so decide refuses and
//! says where to go. It never reads or writes the index (git passes a
//! relative `GIT_INDEX_FILE`; nothing here looks at it).

use std::time::SystemTime;

use super::{conclude, record};
use crate::action::{Action, Effect};
use crate::decide::{self, Actor, Head};
use crate::error::{exit, Result};
use crate::facts::refstore::{RefStore, Value};
use crate::facts::settings_cache::Quick;
use crate::facts::Dirs;
use crate::facts::{self, Repo};

pub fn run() -> Result<u8> {
    let started = SystemTime::now();
    let Some(dirs) = Dirs::find() else {
        return Ok(exit::OK);
    };
    // In a reftable repository the HEAD file only names `refs/heads/.invalid`.
    let head = if crate::facts::uses_reftable(&dirs.common_dir) {
        match RefStore::new(&dirs).raw("HEAD") {
            Some(Value::Symbolic(target)) => format!("ref: {target}"),
            _ => String::new(),
        }
    } else {
        match std::fs::read_to_string(dirs.git_dir.join("HEAD")) {
            Ok(text) => text,
            Err(_) => return Ok(exit::OK),
        }
    };
    let Some(branch) = head.trim().strip_prefix("ref: refs/heads/") else {
        // Detached: the commit moves no branch.
        return Ok(exit::OK);
    };
    let loaded = Quick::load(&dirs)?;
    let mut quick = loaded.quick;
    let actor = quick.actor();
    if let Some(code) = leased(&dirs, actor, branch, started)? {
        return Ok(code);
    }
    if !quick.binds(actor) {
        return Ok(exit::OK);
    }
    // A branch that is a symbolic ref (`foo -> main`): the commit writes
    // the branch it names.
    let mut store = RefStore::new(&dirs);
    let mut written = format!("refs/heads/{branch}");
    for _ in 0..5 {
        match store.symbolic(&written) {
            Some(next) => written = next,
            None => break,
        }
    }
    let branch = written.strip_prefix("refs/heads/").unwrap_or(branch);
    if !quick.is_protected(&format!("refs/heads/{branch}")) {
        return Ok(exit::OK);
    }
    let repo = Repo::from_dirs(&dirs);
    let policy = match loaded.policy {
        Some(p) => p,
        None => facts::load_policy(repo.as_ref(), false)?,
    };
    let head = Some(Head::Branch(branch.to_string()));
    // The hooks are running, so nothing switched them off: the command's
    // context is not resolved here.
    let facts = facts::gather_in_hook(&policy, repo.as_ref(), head)?;
    let action = Action {
        creates_commits: true,
        ..Action::mutating("commit")
    };
    let decision = decide::decide(&policy, &action, &facts);
    let mut rec = record("pre-commit", facts.actor, facts.contract.clone(), started);
    rec.operation = action.operation();
    rec.branch_before = Some(branch.to_string());
    Ok(conclude(Some(&dirs), rec, &decision, true))
}

/// A commit in a worktree a live session of another contract holds
/// (EN-GIT-D-007): refused for an agent whose git skipped the shim, a
/// warning for a person. `None`: no such lease, go on.
fn leased(dirs: &Dirs, actor: Actor, branch: &str, started: SystemTime) -> Result<Option<u8>> {
    let Some(lease) = facts::lease::live(&dirs.git_dir) else {
        return Ok(None);
    };
    let found = facts::contract_at(Some(&dirs.git_dir))?;
    let from_env = matches!(found, Some((_, facts::ContractSource::Env)));
    let contract = found.map(|c| c.0);
    let mut facts = decide::Facts::agent_on(branch, contract.as_deref());
    facts.actor = actor;
    facts.contract_from_env = from_env;
    facts.lease_here = Some(lease.held());
    let action = Action {
        creates_commits: true,
        ..Action::mutating("commit")
    };
    if let Some(w) = decide::lanes::warning(&action, &facts, Effect::Mutating) {
        crate::output::errln!("{w}");
    }
    let Some(decision) = decide::lanes::deny(&action, &facts, Effect::Mutating) else {
        return Ok(None);
    };
    let mut rec = record("pre-commit", actor, contract, started);
    rec.operation = action.operation();
    rec.branch_before = Some(branch.to_string());
    Ok(Some(conclude(Some(dirs), rec, &decision, true)))
}
