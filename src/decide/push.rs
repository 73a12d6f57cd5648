//! A push: a protected ref deleted (for anyone), refs pushed to that are
//! git-ward's, outside `push.force_allowed`, or protected.

use super::hints::{display, force_push_hint, protected_push_hint};
use super::{reach, refs, Actor, Decision, Facts};
use crate::action::{Action, Push};
use crate::error::Code;
use crate::policy::Policy;

/// Deleting a protected remote ref is refused for anyone.
pub(super) fn deletes_protected(
    policy: &Policy,
    action: &Action,
    _facts: &Facts,
) -> Option<Decision> {
    let push = action.push.as_ref()?;
    for dest in &push.dests {
        if let Some(dst) = &dest.dst {
            let full = push_ref(dst, &dest.src);
            if dest.delete && policy.is_protected(&full) {
                return Some(Decision::deny(
                    Code::D005,
                    format!("push deletes protected ref '{}'", display(&full)),
                    "protected refs are never deleted by a push; ask the repository's owner",
                    "branches.protected",
                ));
            }
        }
    }
    None
}

/// A push is judged even as a dry run (read-only): git runs the
/// pre-push hook for one too, which refuses it alike.
pub(super) fn pushed(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    decide_push(policy, action.word(), action.push.as_ref()?, facts)
}

/// The full ref a push destination names: `main` is `refs/heads/main`.
fn push_ref(dst: &str, src: &str) -> String {
    if dst.starts_with("refs/") {
        dst.to_string()
    } else if src.starts_with("refs/tags/") {
        format!("refs/tags/{dst}")
    } else {
        format!("refs/heads/{dst}")
    }
}

/// The refs a push writes: those its command line does not name
/// ([`reach`]), then each destination: git-ward's refs, a force outside
/// `push.force_allowed`, a protected ref.
fn decide_push(policy: &Policy, word: &str, push: &Push, facts: &Facts) -> Option<Decision> {
    // git pushes to `origin` where nothing else is configured.
    let remote = push.remote.as_deref().unwrap_or("origin");
    let contract = facts.contract.as_deref();
    let agent = facts.actor == Actor::Agent;
    if let Some(d) = reach::decide_unnamed_push(policy, word, push, facts) {
        return Some(d);
    }
    let dests = push.dests.iter().filter_map(|d| {
        let dst = d.dst.as_ref()?;
        Some((push_ref(dst, &d.src), d.force || push.force))
    });
    for (full, force) in dests {
        if agent && full.starts_with("refs/ward/") {
            // Into this repository (`push .`) or another with git-ward:
            // checkpoints there are git-ward's alone.
            return Some(refs::deny_ward_ref(word, &full));
        }
        if force && agent && !policy.force_allowed(&full) {
            return Some(Decision::deny(
                Code::D005,
                format!(
                    "force push to '{}' is outside push.force_allowed",
                    display(&full)
                ),
                force_push_hint(policy, remote, contract),
                "push.force_allowed",
            ));
        }
        if policy.is_protected(&full) {
            return Some(Decision::deny(
                Code::D001,
                format!("push to protected ref '{}'", display(&full)),
                protected_push_hint(policy, &full, remote, contract),
                "branches.protected",
            ));
        }
    }
    None
}
