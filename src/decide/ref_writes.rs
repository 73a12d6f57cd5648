//! The refs a command writes by name (or all at once, `RefTarget::All`):
//! git-ward's own, the git directory's, replacements, the remote-tracking
//! refs protected branches sync to, names that stand for a protected
//! branch, and protected refs themselves.

use super::hints::{display, HINT_PROTECTED_REF, HINT_PROTECTED_TAG};
use super::{reach, refs, Actor, Decision, Facts, Head};
use crate::action::{Action, RefOp, RefTarget, RefWrite};
use crate::error::Code;
use crate::policy::Policy;

/// One ref the command writes, with what the rules ask about it.
struct Written<'a> {
    policy: &'a Policy,
    action: &'a Action,
    facts: &'a Facts,
    write: &'a RefWrite,
    /// The full ref name.
    full: &'a str,
}

/// The rules for one written ref, in order: the first that answers wins.
const RULES: [fn(&Written) -> Option<Decision>; 6] = [
    ward_ref,
    git_dir_ref,
    replacement,
    tracking,
    shadow,
    protected,
];

/// The first ref the command writes that a rule refuses.
pub(super) fn ref_writes(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    action.refs.iter().find_map(|write| {
        let full = target_ref(&write.target, facts)?;
        let written = Written {
            policy,
            action,
            facts,
            write,
            full: &full,
        };
        RULES.iter().find_map(|rule| rule(&written))
    })
}

/// The full ref a `RefTarget` names, given where HEAD is.
fn target_ref(target: &RefTarget, facts: &Facts) -> Option<String> {
    match target {
        RefTarget::Named(name) => Some(name.clone()),
        RefTarget::Current => facts
            .head
            .as_ref()
            .and_then(Head::branch)
            .map(|b| format!("refs/heads/{b}")),
        RefTarget::All => Some("refs/*".to_string()),
    }
}

/// An agent's write under `refs/ward/`: checkpoints are git-ward's alone.
fn ward_ref(w: &Written) -> Option<Decision> {
    (w.full.starts_with("refs/ward/") && w.facts.actor == Actor::Agent)
        .then(|| refs::deny_ward_ref(&w.action.operation(), w.full))
}

/// An agent's write of a ref at the git directory's root.
fn git_dir_ref(w: &Written) -> Option<Decision> {
    (refs::in_git_dir_root(w.full) && w.facts.actor == Actor::Agent)
        .then(|| refs::deny_git_dir_ref(&w.action.operation(), w.full))
}

/// A replacement ref: git reads the replacement wherever the object is
/// named, protected branches (and the team policy on them) included.
fn replacement(w: &Written) -> Option<Decision> {
    if !w.full.starts_with("refs/replace/")
        || w.write.op == RefOp::Delete
        || !w.policy.protects_anything()
    {
        return None;
    }
    Some(Decision::deny(
        Code::D001,
        format!(
            "{} writes a replacement ref, which makes git read another object in place of one, in protected branches too",
            w.action.word()
        ),
        "make the change as a commit on a branch of your own and open a merge request; replacement refs are a person's to set",
        "branches.protected",
    ))
}

/// A remote-tracking ref a protected branch syncs to, written other than
/// by a fetch: the hook's rule, judged before git runs.
fn tracking(w: &Written) -> Option<Decision> {
    let tracks_protected = || {
        crate::policy::tracking_readings(w.full).any(|(remote, branch)| {
            w.facts.remotes.iter().any(|r| r == remote)
                && w.policy.is_protected(&format!("refs/heads/{branch}"))
        })
    };
    (w.full.starts_with("refs/remotes/")
        && w.write.op != RefOp::Delete
        && w.policy.settings.branches.sync_from_upstream
        && !matches!(w.action.command.as_str(), "fetch" | "pull")
        && tracks_protected())
    .then(|| refs::deny_tracking(&w.action.operation(), w.full))
}

/// A name git may read as a protected branch (or its remote-tracking ref).
fn shadow(w: &Written) -> Option<Decision> {
    let is_protected = |r: &str| w.policy.is_protected(r);
    let branch = refs::stands_for(w.full, is_protected)
        .or_else(|| refs::shadows_tracking(w.full, &w.facts.remotes, is_protected))?;
    (w.write.op != RefOp::Delete).then(|| refs::deny_shadow(&w.action.operation(), w.full, &branch))
}

/// A protected ref created, moved or deleted (or refs the command line
/// does not name, which may be protected), but for syncing it from its
/// upstream and creating a tag.
fn protected(w: &Written) -> Option<Decision> {
    let (policy, action, facts, write, full) = (w.policy, w.action, w.facts, w.write, w.full);
    let settings = &policy.settings;
    if write.target == RefTarget::All && reach::unnamed_refs_judged(policy, &action.command, facts)
    {
        return None;
    }
    if write.target != RefTarget::All && !policy.is_protected(full) {
        return None;
    }
    let is_tag = full.starts_with("refs/tags/");
    // Created from its upstream (`checkout main`), or fetched from it
    // (`fetch origin main:main`, which may also move it).
    let syncing = (write.op == RefOp::Create || action.syncs)
        && settings.branches.sync_from_upstream
        && write
            .start
            .as_deref()
            .is_some_and(|s| is_upstream_of(s, full));
    if write.op == RefOp::Create {
        if let Some(d) = refs::takes_team_layer(policy, facts.actor, &action.operation(), full) {
            return Some(d);
        }
    }
    let person_syncs = facts.fast_forward
        && settings.branches.sync_from_upstream
        && person_reset_to_upstream(action, facts).is_some();
    if syncing || person_syncs || (is_tag && write.op == RefOp::Create) {
        return None;
    }
    let verb = match write.op {
        RefOp::Create => "creates",
        RefOp::Update => "moves",
        RefOp::Delete => "deletes",
    };
    let message = if write.target == RefTarget::All {
        // A pattern, `--stdin`, `--force --tags`: refs it does not name.
        format!(
            "{} can write refs its command line does not name, protected ones among them",
            action.word()
        )
    } else {
        format!("{} {verb} protected ref '{}'", action.word(), display(full))
    };
    let hint = protected_hint(write, full, is_tag, facts);
    Some(Decision::deny(
        Code::D001,
        message,
        hint,
        "branches.protected",
    ))
}

/// What to do instead of writing protected `full`.
fn protected_hint(write: &RefWrite, full: &str, is_tag: bool, facts: &Facts) -> String {
    let current = facts.head.as_ref().and_then(Head::branch);
    match write.start.as_deref() {
        _ if write.target == RefTarget::All => HINT_PROTECTED_REF.to_string(),
        _ if is_tag => HINT_PROTECTED_TAG.to_string(),
        // `reset --hard origin/main` on `main`: syncing has its own way.
        Some(start) if write.op != RefOp::Delete && is_upstream_of(start, full) => {
            let branch = display(full);
            let switch = match current {
                Some(b) if b == branch => String::new(),
                _ => format!("`git switch {branch}`, then "),
            };
            format!("a protected branch moves to its upstream only by a fast-forward: {switch}`git merge --ff-only {start}` (or `git pull --ff-only`); other changes go on a branch of your own")
        }
        _ => HINT_PROTECTED_REF.to_string(),
    }
}

/// Where a person's `reset` moves the current branch when that is a
/// remote-tracking name of it (`reset --hard origin/main` on `main`). The
/// reference-transaction hook lets a fast-forward there through as
/// syncing, so `explain` says so too. An agent's is refused before git
/// runs all the same: its way to sync is `merge --ff-only` or `pull
/// --ff-only`, which the hint names.
pub fn person_reset_to_upstream(action: &Action, facts: &Facts) -> Option<String> {
    let branch = facts.head.as_ref()?.branch()?;
    if facts.actor == Actor::Agent || action.command != "reset" {
        return None;
    }
    let full = format!("refs/heads/{branch}");
    action
        .refs
        .iter()
        .filter(|w| w.op == RefOp::Update && w.target == RefTarget::Current)
        .find_map(|w| w.start.clone().filter(|s| is_upstream_of(s, &full)))
}

/// Is `start` a remote-tracking name of the same branch (`origin/main` for `main`)?
fn is_upstream_of(start: &str, refname: &str) -> bool {
    let Some(branch) = refname.strip_prefix("refs/heads/") else {
        return false;
    };
    let start = start
        .strip_prefix("refs/remotes/")
        .or_else(|| start.strip_prefix("remotes/"))
        .unwrap_or(start);
    start
        .split_once('/')
        .is_some_and(|(remote, name)| !remote.is_empty() && name == branch)
}
