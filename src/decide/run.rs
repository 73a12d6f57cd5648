//! How an allowed command runs: where (it stays, or moves to the agent's
//! branch), with `pull.ff=only` on a protected branch, and after which
//! checkpoint. A command that makes commits on a protected branch may
//! still be refused here (`commit.rs`).

use super::{commit, Decision, Facts, Head, Verdict};
use crate::action::Action;
use crate::policy::Policy;

/// Where the command runs and what it takes first; a refusal only for a
/// command that makes commits on a protected branch.
pub(super) fn how(policy: &Policy, action: &Action, facts: &Facts) -> Decision {
    let d = branch(policy, action, facts);
    if d.denial().is_some() {
        return d;
    }
    checkpoint_first(policy, action, facts, d)
}

/// The branch the command runs on: it stays, or a command that makes
/// commits on a protected branch moves (or is refused).
fn branch(policy: &Policy, action: &Action, facts: &Facts) -> Decision {
    let settings = &policy.settings;
    let on_protected = facts
        .head
        .as_ref()
        .and_then(Head::branch)
        .filter(|b| policy.is_protected(&format!("refs/heads/{b}")));
    // `git merge origin/main` on a `main` behind it: a fast-forward to its
    // upstream, which the reference-transaction hook checks value by value.
    let syncing =
        action.ff_target.is_some() && facts.fast_forward && settings.branches.sync_from_upstream;
    let mut d = match on_protected {
        Some(_) if action.creates_commits && syncing => Decision {
            key: Some("branches.sync_from_upstream"),
            ..Decision::allow("on a protected branch: a fast-forward to its upstream is syncing")
        },
        Some(branch) if action.creates_commits => {
            let d = commit::on_protected(policy, action, facts, branch);
            if d.denial().is_some() {
                return d;
            }
            // A switch, then the command: checkpointed like any other.
            d
        }
        _ => Decision::allow(match facts.head.as_ref().and_then(Head::branch) {
            Some(_) if on_protected.is_some() => {
                "on a protected branch: neither commits nor moves a protected ref"
            }
            Some(b) if b.starts_with(&settings.branches.agent_prefix) => {
                "on an agent branch: stay (sticky)"
            }
            Some(_) => "on an unprotected branch: stay",
            None => "detached HEAD: allowed; the ref-level check still guards protected refs",
        }),
    };
    if on_protected.is_some()
        && action.pull_integrates
        && settings.branches.sync_from_upstream
        && !matches!(d.verdict, Verdict::Switch(_))
    {
        d.fast_forward_only = true;
        d.rule = format!("{}; a pull there only fast-forwards (pull.ff=only)", d.rule);
    }
    d
}

/// The checkpoint an allowed command takes first, if any.
fn checkpoint_first(policy: &Policy, action: &Action, facts: &Facts, mut d: Decision) -> Decision {
    let settings = &policy.settings;
    let then = |d: &Decision, what: &str| match &d.verdict {
        Verdict::Switch(_) => format!("{}; {what}", d.rule),
        _ => what.to_string(),
    };
    // Only the shim checkpoints: a person's git never goes through it
    // (under `enforce.actors = "everyone"` the rules bind them all the same).
    if facts.person_outside_hooks() {
        if let Some(why) = &action.destructive {
            d.rule = then(
                &d,
                &format!("destructive ({why}): run as it is, no checkpoint (the shim takes one before an agent's command; `git ward checkpoint` keeps the work first)"),
            );
        }
        return d;
    }
    if action.destructive.is_some() && settings.checkpoint.before_destructive {
        d.checkpoint = true;
        d.rule = then(
            &d,
            &format!(
                "destructive ({}): checkpoint, then run",
                action.destructive.as_deref().unwrap_or("")
            ),
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    } else if settings.checkpoint.before_destructive && action.unstages {
        // What is lost is a staged version the working tree no longer
        // holds; the checkpoint is taken only when one is there.
        d.save_staged = true;
        d.rule = then(
            &d,
            "resets the index: staged versions the working tree no longer holds are checkpointed first, then run",
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    } else if settings.checkpoint.before_destructive
        && !settings.checkpoint.include_ignored.is_empty()
        && action.may_drop_ignored()
    {
        // The files the policy keeps are ignored ones, which git overwrites
        // (or deletes) here; the checkpoint is taken only when one is there.
        d.checkpoint = true;
        d.rule = then(&d, "may overwrite or delete ignored files that checkpoint.include_ignored keeps: checkpoint them if one is in the way, then run");
        d.key = d.key.or(Some("checkpoint.include_ignored"));
    } else if settings.checkpoint.before_destructive
        && !facts.ignored_in_the_way.is_empty()
        && action.may_drop_ignored()
    {
        // git replaces an ignored file in a checkout's way without a word.
        d.checkpoint = true;
        d.rule = then(
            &d,
            "overwrites ignored files in its way: checkpoint them, then run",
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    }
    d
}
