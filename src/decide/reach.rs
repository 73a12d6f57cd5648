//! The rules for commands whose command line does not name every ref they
//! write (`push --all`, `--tags`, `--mirror`, a matching push,
//! `update-ref --stdin`, `fast-import`, a fetch into a wildcard): what such a command can reach is computed as git would, or left to the
//! hooks that will see each ref; one that reaches nothing the policy
//! protects is never refused. Pure.

use serde::Serialize;

use super::{agent_branch, display, Decision, Facts};
use crate::action::Push;
use crate::error::Code;
use crate::policy::Policy;

/// What `facts` found out about the refs a command reaches beyond those
/// its command line names. Empty unless the command has such refs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reach {
    /// git-ward's hooks that git will run for this command, installed and
    /// healthy (`pre-push`, `reference-transaction`): they see every ref
    /// the command writes, with its old and new value.
    pub hooks: Vec<String>,
    /// The remote refs a push that names none of them would write, each
    /// with whether its value there changes: `Some(false)` when the
    /// remote-tracking ref already holds what is pushed, `None` when
    /// nothing here says what the remote has.
    pub pushed: Vec<(String, Option<bool>)>,
}

impl Reach {
    /// Will git run this hook of git-ward's for the command?
    pub fn judged_by(&self, hook: &str) -> bool {
        self.hooks.iter().any(|h| h == hook)
    }
}

/// A push that writes refs its command line does not name: `--mirror`
/// (every ref, forced, and deletions), `--all`, `--tags`, a matching or
/// wildcard refspec, or config that makes a push one of these.
pub(super) fn decide_unnamed_push(
    policy: &Policy,
    word: &str,
    push: &Push,
    facts: &Facts,
) -> Option<Decision> {
    let remote = push.remote.as_deref().unwrap_or("origin");
    let own = agent_branch(policy, facts.contract.as_deref());
    // pre-push gets one line per ref that changes on the remote, deletions
    // and forced updates included, and judges each.
    if facts.reach.judged_by("pre-push") {
        return None;
    }
    if push.mirror {
        if !policy.protects_anything() && policy.force_allowed_everywhere() {
            return None;
        }
        let what = match &push.configured_by {
            Some(key) => format!("push to a mirror remote ({key})"),
            None => "push --mirror".to_string(),
        };
        return Some(Decision::deny(
            Code::D005,
            format!("{what} force-updates and deletes every remote ref"),
            format!("push one branch of your own by name, to a remote that is not a mirror: `git push <remote> {own}`"),
            "push.force_allowed",
        ));
    }
    if !(push.all || push.tags) {
        return None;
    }
    let what = match &push.configured_by {
        Some(key) => format!("push with {key}"),
        // `send-pack`, `http-push`: refspecs in their own syntax, read as --all.
        None if push.all && word != "push" => word.to_string(),
        None if push.all => "push --all".to_string(),
        None => "push --tags".to_string(),
    };
    let (refname, known) = facts
        .reach
        .pushed
        .iter()
        .filter(|(r, _)| policy.is_protected(r))
        .find_map(|(r, changes)| match changes {
            Some(false) => None,
            Some(true) => Some((r, true)),
            None => Some((r, false)),
        })?;
    let message = if known {
        format!(
            "{what} would move protected ref '{}' on {remote}",
            display(refname)
        )
    } else {
        format!(
            "{what} can write protected ref '{}' on {remote}, whose value there is not known here (no git-ward pre-push hook to see it)",
            display(refname)
        )
    };
    let hint = if known {
        format!("push one branch of your own by name: `git push {remote} {own}`")
    } else {
        format!("push one branch of your own by name (`git push {remote} {own}`), or fetch first so that the remote-tracking refs say what {remote} has")
    };
    Some(Decision::deny(
        Code::D001,
        message,
        hint,
        "branches.protected",
    ))
}

/// The commands whose refs, named or not, git writes in reference
/// transactions that the reference-transaction hook judges ref by ref.
/// Not `reflog --updateref`, which writes past every hook, nor a fetch,
/// whose writes the hook reads as syncing from the fetch's command line
/// (a pattern that maps another branch onto a protected name is the
/// shim's to refuse).
const IN_TRANSACTIONS: [&str; 3] = ["update-ref", "fast-import", "filter-branch"];

/// May a command write refs its command line does not name (`update-ref
/// --stdin`, `fast-import`, a wildcard fetch into local branches)? Yes
/// when the policy protects no ref, or when the reference-transaction
/// hook will see each ref it writes.
pub(super) fn unnamed_refs_judged(policy: &Policy, command: &str, facts: &Facts) -> bool {
    !policy.protects_anything()
        || (IN_TRANSACTIONS.contains(&command) && facts.reach.judged_by("reference-transaction"))
}

#[cfg(test)]
#[path = "reach_tests.rs"]
mod tests;
