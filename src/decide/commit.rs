//! A command that makes commits on a protected branch: a switch to the
//! agent's branch where `capabilities.ensure_working_branch` grants one and
//! nothing is in the way, else a refusal that says where to go
//! (EN-GIT-D-001, EN-GIT-D-002, EN-GIT-D-003).

use super::hints::HINT_PROTECTED_REF;
use super::{Actor, Decision, Facts, Verdict};
use crate::action::Action;
use crate::error::{Code, Error};
use crate::policy::{CapabilityFor, Policy};

/// A command making commits on protected `branch`, and what the rules ask
/// about it.
struct Commit<'a> {
    policy: &'a Policy,
    action: &'a Action,
    facts: &'a Facts,
    branch: &'a str,
    /// The command's word (`commit`, `merge`).
    op: &'a str,
    capability: CapabilityFor,
    /// The agent branch (`<agent_prefix><contract>`), where a contract is active.
    target: Option<String>,
}

/// The decision for a command making commits on protected `branch`: a
/// person's git, then a command nothing can move, then the capability.
pub(super) fn on_protected(
    policy: &Policy,
    action: &Action,
    facts: &Facts,
    branch: &str,
) -> Decision {
    let c = Commit {
        policy,
        action,
        facts,
        branch,
        op: action.word(),
        capability: policy.capability(facts.contract.as_deref()),
        target: facts
            .contract
            .as_deref()
            .map(|c| format!("{}{c}", policy.settings.branches.agent_prefix)),
    };
    persons_git(&c)
        .or_else(|| nothing_moves(&c))
        .unwrap_or_else(|| by_capability(&c))
}

/// A person's git (`explain` for one) meets the pre-commit hook only in
/// a `commit` that runs it; a command that moves the branch otherwise
/// meets reference-transaction, and one that writes only the index and
/// files meets no hook at all.
fn persons_git(c: &Commit) -> Option<Decision> {
    let (op, branch, action) = (c.op, c.branch, c.action);
    if !c.facts.person_outside_hooks() {
        return None;
    }
    let index_only = matches!(
        action.command.as_str(),
        "add" | "rm" | "mv" | "stash" | "apply" | "update-index" | "read-tree"
    );
    if index_only {
        return Some(Decision::allow(
            "a person's command that writes only the index and files: no hook judges it",
        ));
    }
    if action.command != "commit" || action.hooks_off.is_some() {
        return Some(Decision::deny(
            Code::D001,
            format!("{op} moves protected ref '{branch}'"),
            format!("{HINT_PROTECTED_REF}; a protected branch may only be synced to its upstream (`git pull --ff-only`)"),
            "branches.protected",
        ));
    }
    None
}

/// Only the shim (and `git ward save`) moves anyone: a person's git never
/// goes through the shim, and a hook cannot move HEAD before the command.
/// The matrix's code stands (no contract is EN-GIT-D-003); the hint says
/// where to go, not to start a contract and retry, which would move no one
/// here.
fn nothing_moves(c: &Commit) -> Option<Decision> {
    let (op, branch, facts, capability) = (c.op, c.branch, c.facts, c.capability);
    if !(facts.person_outside_hooks() || facts.in_hook) {
        return None;
    }
    let mut hint = own_branch_hint(facts, branch, c.target.as_deref());
    if facts.actor == Actor::Agent && capability == CapabilityFor::On {
        hint.push_str(match c.target {
            Some(_) => "; the git-ward shim does this for you",
            None => "; or start a contract (`git ward contract start <id>`) and commit through the git-ward shim, which moves you",
        });
    }
    let key = match facts.actor {
        Actor::Human => "enforce.actors",
        Actor::Agent => "capabilities.ensure_working_branch",
    };
    let (code, message) = match (capability, &c.target) {
        (CapabilityFor::OtherContracts, _) => (
            Code::D002,
            format!("{op} on protected branch '{branch}': ensure_working_branch is granted to other contracts only"),
        ),
        (CapabilityFor::On, None) => (
            Code::D003,
            format!("{op} on protected branch '{branch}' needs an active contract"),
        ),
        _ => (Code::D001, format!("{op} on protected branch '{branch}'")),
    };
    Some(Decision::deny(code, message, hint, key))
}

/// What `capabilities.ensure_working_branch` grants: a switch to the
/// agent's branch, or a refusal.
fn by_capability(c: &Commit) -> Decision {
    let (op, branch, facts) = (c.op, c.branch, c.facts);
    match c.capability {
        CapabilityFor::Off => Decision::deny(
            Code::D001,
            format!("{op} on protected branch '{branch}'"),
            "work on a branch of your own (`git switch -c <name>`); capabilities.ensure_working_branch would move you automatically",
            "capabilities.ensure_working_branch",
        ),
        CapabilityFor::OtherContracts => Decision::deny(
            Code::D002,
            match facts.contract.as_deref() {
                Some(contract) => format!(
                    "{op} on protected branch '{branch}': contract '{contract}' does not hold ensure_working_branch"
                ),
                None => format!(
                    "{op} on protected branch '{branch}': ensure_working_branch is granted to other contracts only"
                ),
            },
            if facts.contract_from_env {
                // `git ward contract start` would not change the contract.
                "work on a branch of your own (`git switch -c <name>`), or set WARD_CONTRACT to a contract that capabilities.ensure_working_branch lists"
            } else {
                "work on a branch of your own (`git switch -c <name>`), or start a contract that capabilities.ensure_working_branch lists (`git ward contract start <id>`)"
            },
            "capabilities.ensure_working_branch",
        ),
        CapabilityFor::On => match &c.target {
            None => Decision::deny(
                Code::D003,
                format!("{op} on protected branch '{branch}' needs an active contract"),
                "run `git ward contract start <id>` or set WARD_CONTRACT, then retry",
                "capabilities.ensure_working_branch",
            ),
            Some(target) => switch(c, target),
        },
    }
}

/// The switch to the agent branch `target`, unless a merge in progress,
/// `target`'s protection or another worktree holding it is in the way.
fn switch(c: &Commit, target: &str) -> Decision {
    in_progress(c, target)
        .or_else(|| target_protected(c, target))
        .or_else(|| checked_out_elsewhere(c, target))
        .unwrap_or_else(|| Decision {
            rule: format!(
                "on protected '{branch}' with contract '{contract}': switch to '{target}'",
                branch = c.branch,
                contract = c.facts.contract.as_deref().unwrap_or_default()
            ),
            verdict: Verdict::Switch(target.to_string()),
            checkpoint: false,
            save_staged: false,
            fast_forward_only: false,
            key: Some("capabilities.ensure_working_branch"),
        })
}

/// A move to the agent branch would end a merge (cherry-pick, revert) in
/// progress, its commit made there with one parent: refused, nothing changed.
fn in_progress(c: &Commit, target: &str) -> Option<Decision> {
    let (op, branch, facts) = (c.op, c.branch, c.facts);
    let what = facts.in_progress?;
    Some(Decision::deny(
        Code::D001,
        format!("{op} on protected branch '{branch}' while a {what} is in progress there"),
        format!(
            "let a person finish the {what} on '{branch}', or abort it (`git {what} --abort`) and redo it on your own branch ({})",
            switch_to(facts, Some(target))
        ),
        "capabilities.ensure_working_branch",
    ))
}

/// The move would land on a protected branch too.
fn target_protected(c: &Commit, target: &str) -> Option<Decision> {
    let (op, branch) = (c.op, c.branch);
    c.policy.is_protected(&format!("refs/heads/{target}")).then(|| Decision::deny(
        Code::D001,
        format!("{op} on protected branch '{branch}': the agent branch '{target}' is protected too (branches.protected), so there is nowhere to move"),
        "work on a branch no protected pattern matches (`git switch -c <name>`), and ask the repository's owner to leave agent branches unprotected (branches.protected, branches.agent_prefix)",
        "branches.protected",
    ))
}

/// Another worktree has the agent branch checked out: git will not check
/// it out here too.
fn checked_out_elsewhere(c: &Commit, target: &str) -> Option<Decision> {
    let (op, branch) = (c.op, c.branch);
    let path = elsewhere(c.facts, target)?;
    Some(Decision::deny(
        Code::D001,
        format!("{op} on protected branch '{branch}': '{target}' is checked out in another worktree ({path})"),
        format!("work on it there (`cd {path}`), or commit on a new branch here (`git switch -c {target}-2`)"),
        "capabilities.ensure_working_branch",
    ))
}

/// The command that puts HEAD on a branch of one's own: the agent branch
/// `target` (made, or checked out where it exists), else a new one.
fn switch_to(facts: &Facts, target: Option<&str>) -> String {
    match target {
        Some(t) if facts.agent_branch_exists => format!("`git switch {t}`"),
        Some(t) => format!("`git switch -c {t}`"),
        None => "`git switch -c <name>`".to_string(),
    }
}

/// Where another worktree has `branch` checked out, if one does.
fn elsewhere<'a>(facts: &'a Facts, branch: &str) -> Option<&'a str> {
    facts
        .checked_out_elsewhere
        .iter()
        .find(|(b, _)| b == branch)
        .map(|(_, path)| path.as_str())
}

/// The hint for a commit on protected `branch` that nothing will move off
/// it (a person's, or one a hook judges): go to a branch of one's own.
fn own_branch_hint(facts: &Facts, branch: &str, target: Option<&str>) -> String {
    if let Some((t, path)) = target.and_then(|t| Some((t, elsewhere(facts, t)?))) {
        return format!(
            "work on '{t}' where it is checked out (`cd {path}`), or on a new branch here (`git switch -c {t}-2`)"
        );
    }
    let go = switch_to(facts, target);
    match facts.in_progress {
        Some(what) => format!(
            "abort the {what} on '{branch}' (`git {what} --abort`) and redo it on a branch of your own ({go})"
        ),
        None => format!("work on a branch of your own ({go}), then retry"),
    }
}

/// The refusal when an auto-switch cannot carry the work to the agent branch
/// (it has diverged so that git would have to merge): nothing was changed.
pub fn switch_refused(branch: &str, git_says: &str) -> Error {
    Error::denied(
        Code::D001,
        format!("cannot move to '{branch}' carrying your changes: {}", git_says.trim().replace('\n', " ")),
        format!("nothing was changed; commit on a new branch (`git switch -c {branch}-2`), or merge '{branch}' by hand"),
    )
}
