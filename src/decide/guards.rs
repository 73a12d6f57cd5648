//! The guards themselves: an agent's command that switches hooks off, that
//! runs while they are off (another manager's hooks, drift), or that writes
//! where hooks, config and policy live (EN-GIT-D-004).
//!
//! These rules are for agents alone, but for writes into guarded places:
//! a person bound by the rules (`enforce.actors = "everyone"`) meets only
//! the hooks, which judge the refs written, not these.

use super::{effective_effect, pointers, Actor, Decision, Facts};
use crate::action::{Action, Effect};
use crate::error::Code;
use crate::policy::{DriftAction, Policy};

const HINT_NO_VERIFY: &str =
    "run it again without switching hooks off; they enforce the policy (policy key enforce.allow_no_verify lets agents skip them)";
/// What to do when another hook manager replaced git-ward's gate hooks.
const HINT_GATES_REPLACED: &str = "a person runs `git ward install` (or `git ward doctor --fix`), which chains the other manager's hook after git-ward's; `git ward doctor` says how to keep git-ward in that manager's own config";
/// What to do when guarded refs drifted and the policy refuses agents.
const HINT_DRIFT: &str = "a person looks: `git ward drift` lists the moves, `git ward drift --restore` (or `git ward undo --drift`) puts the refs back, `git ward drift --accept` keeps them";

/// Does the command change something, after policy `commands` overrides?
fn changes(policy: &Policy, action: &Action) -> bool {
    effective_effect(policy, action) != Effect::Read
}

/// An agent's command that switches hooks off, on its command line or
/// through its environment (which matters to the commands that change
/// something).
pub(super) fn hooks_off(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    let env_off = facts
        .env_hooks_off
        .as_ref()
        .filter(|_| changes(policy, action));
    let how = action
        .hooks_off
        .as_ref()
        .or(env_off)
        .filter(|_| facts.actor == Actor::Agent)?;
    if policy.settings.enforce.allow_no_verify {
        return None;
    }
    Some(Decision::deny(
        Code::D004,
        format!("{} switches hooks off ({how})", action.word()),
        HINT_NO_VERIFY,
        "enforce.allow_no_verify",
    ))
}

/// An agent's command under another object store or index ([`pointers`]).
pub(super) fn pointed_away(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    pointers::deny(
        action,
        &facts.pointers,
        facts.actor,
        changes(policy, action),
    )
}

/// Another hook manager replaced a gate: the hooks check nothing.
pub(super) fn gates_replaced(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    let how = facts
        .gates_replaced
        .as_ref()
        .filter(|_| facts.actor == Actor::Agent)?;
    if !changes(policy, action) {
        return None;
    }
    Some(Decision::deny(
        Code::D004,
        format!(
            "{} while git-ward's hooks are switched off: {how}",
            action.word()
        ),
        HINT_GATES_REPLACED,
        "enforce.actors",
    ))
}

/// A guarded ref moved with no hook (`enforce.drift = "refuse"`): the
/// hooks were off for some writer, so agents wait for a person.
pub(super) fn drifted(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    if facts.drift.is_empty()
        || facts.actor != Actor::Agent
        || policy.settings.enforce.drift != DriftAction::Refuse
        || !changes(policy, action)
    {
        return None;
    }
    Some(Decision::deny(
        Code::D004,
        format!(
            "{} while guarded refs moved with git-ward's hooks off: {}",
            action.word(),
            facts.drift.join(", ")
        ),
        HINT_DRIFT,
        "enforce.drift",
    ))
}

/// The command writes where hooks and policy live. A person's git meets
/// only the hooks, which see neither the files a command writes nor the
/// config it sets; under a policy that protects no ref and lets agents
/// skip hooks, nothing there is guarded.
pub(super) fn writes_guarded(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    let guards = policy.protects_anything() || !policy.settings.enforce.allow_no_verify;
    let what = facts
        .writes_guarded
        .as_ref()
        .filter(|_| !facts.person_outside_hooks() && guards)?;
    let hint = if action.new_trees.is_empty() {
        "keep what git writes out of the git directory and off git-ward's policy files: an output file elsewhere (say /tmp/out.txt) or stdout, and a working tree outside the git directory"
    } else {
        "a repository that exists needs no `init`; make a new repository or working tree in a new directory outside any git directory (say ../work-2)"
    };
    Some(Decision::deny(
        Code::D004,
        format!("{} {what}, where hooks and policy live", action.word()),
        hint,
        "enforce.actors",
    ))
}
