//! The decision matrix (docs/rules.md): `decide(&Policy, &Action, &Facts)`.
//!
//! Pure: no git, no files, no environment. Everything it needs about the
//! world is in [`Facts`], filled in by `facts.rs`. This is the only module
//! that says no: the shim, the hooks and the tools ask it and carry out its
//! answer, and the denial codes are produced here and nowhere else.
//!
//! `decide` asks its rules in order, one function each in the file of its
//! concern; the first that answers decides, and a command no rule answers
//! runs as `run.rs` says (where, and after which checkpoint).

use crate::action::{Action, Effect};
use crate::error::{Code, Error};
use crate::policy::{Actors, Policy, UnknownAs};

pub use commit::switch_refused;
pub use decision::{Decision, Verdict};
pub use facts::{Actor, Facts, Head, Held};
pub use pointers::Pointers;
pub use reach::Reach;
pub use ref_writes::person_reset_to_upstream;
pub use tool::{decide_tool, ToolStep};

use hints::display;
pub(crate) use hints::{agent_branch, force_push_hint, protected_push_hint};

/// A rule: a decision where it has one to give, `None` to ask the next.
type Rule = fn(&Policy, &Action, &Facts) -> Option<Decision>;

/// The rules in the order `decide` asks them.
const RULES: [Rule; 13] = [
    // Refused for anyone, whether the rules bind them or not.
    push::deletes_protected,
    unbound,
    // The guards themselves: hooks switched off, replaced, written over.
    guards::hooks_off,
    guards::pointed_away,
    guards::gates_replaced,
    guards::drifted,
    guards::writes_guarded,
    // A push is judged even as a dry run (read-only).
    push::pushed,
    lanes_held,
    read_only,
    // What the command changes.
    repoints::repoints,
    checkout::not_local,
    ref_writes::ref_writes,
];

/// The decision matrix: the first rule that answers, else how the command
/// runs (where, and after which checkpoint).
pub fn decide(policy: &Policy, action: &Action, facts: &Facts) -> Decision {
    RULES
        .iter()
        .find_map(|rule| rule(policy, action, facts))
        .unwrap_or_else(|| run::how(policy, action, facts))
}

/// The rules do not bind this actor (`enforce.actors = "agents"`, a person).
fn unbound(policy: &Policy, _action: &Action, facts: &Facts) -> Option<Decision> {
    (!binds(policy, facts.actor)).then(|| Decision::allow(refs::BINDS_AGENTS_ONLY))
}

/// One lane, one owner ([`lanes`]).
fn lanes_held(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    lanes::deny(action, facts, effective_effect(policy, action))
}

/// A command that only reads passes the rules below, which judge changes.
fn read_only(policy: &Policy, action: &Action, _facts: &Facts) -> Option<Decision> {
    (effective_effect(policy, action) == Effect::Read).then(|| Decision::allow("read-only"))
}

/// Do the rules bind this actor?
pub fn binds(policy: &Policy, actor: Actor) -> bool {
    actor == Actor::Agent || policy.settings.enforce.actors == Actors::Everyone
}

/// The effect after policy `commands` overrides.
pub fn effective_effect(policy: &Policy, action: &Action) -> Effect {
    let cmds = &policy.settings.commands;
    let named = |list: &[String], alias_counts: bool| {
        list.iter()
            .any(|c| *c == action.command || (alias_counts && Some(c) == action.alias.as_ref()))
    };
    // An alias the policy calls read-only is the one the config files
    // define: one defined for this command alone (`-c alias.lg='reset
    // --hard' lg`) is judged by what it runs.
    if named(&cmds.read, !action.alias_given) {
        Effect::Read
    } else if named(&cmds.mutating, true) {
        Effect::Mutating
    } else if action.effect == Effect::Unknown && cmds.unknown == UnknownAs::Read {
        Effect::Read
    } else {
        action.effect
    }
}

/// The decision when the policy or the facts failed to load: fail closed,
/// EN-GIT-E-001 (EN-GIT-I-001 for an invalid contract id).
pub fn decide_without_policy(action: &Action, err: &Error) -> Decision {
    if action.effect == Effect::Read {
        return Decision::allow("read-only commands pass even when the policy cannot be read");
    }
    let hint = err
        .hint
        .clone()
        .unwrap_or_else(|| "fix the policy (`git ward policy check`), then retry".to_string());
    // An invalid contract id (`WARD_CONTRACT`, the contract file) is the
    // user's argument, and keeps its code; anything else fails closed.
    let code = match err.code {
        Code::I001 => Code::I001,
        _ => Code::E001,
    };
    Decision::deny(
        code,
        format!("{} refused: {}", action.word(), err.message),
        hint,
        "policy",
    )
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;

pub mod attribution;
mod checkout;
mod commit;
mod decision;
mod facts;
mod guards;
mod hints;
pub mod lanes;
pub mod pointers;
mod push;
pub mod reach;
mod ref_writes;
pub mod refs;
mod repoints;
mod run;
mod tool;
pub mod unheld;
