//! An agent's checkout: a local branch, never a detached HEAD or a remote
//! ref (EN-GIT-D-006, `checkout.local_only`).

use super::{Actor, Decision, Facts};
use crate::action::{Action, CheckoutTarget};
use crate::error::Code;
use crate::policy::Policy;

const HINT_CHECKOUT: &str =
    "check out a local branch by its plain name (`git switch feature/x`); to start from a remote ref, create one: `git switch -c <name> origin/main`";

/// An agent checks out local branches only.
pub(super) fn not_local(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    let target = action
        .checkout
        .as_ref()
        .filter(|_| facts.actor == Actor::Agent && policy.settings.checkout.local_only)?;
    match target {
        CheckoutTarget::Detach(at) => {
            let (message, hint) = if at == "HEAD" {
                (
                    "agents work on a local branch, not a detached HEAD".to_string(),
                    "stay on your branch, or make one of your own here (`git switch -c <name>`)"
                        .to_string(),
                )
            } else {
                (
                    format!("agents work on a local branch, not a detached HEAD (at '{at}')"),
                    format!("make a branch of your own there (`git switch -c <name> {at}`), or check out '{at}' if it is a local branch (`git switch {at}`)"),
                )
            };
            Some(Decision::deny(
                Code::D006,
                message,
                hint,
                "checkout.local_only",
            ))
        }
        CheckoutTarget::Remote(name) | CheckoutTarget::Special(name) => Some(Decision::deny(
            Code::D006,
            format!("agents check out local branches only, not '{name}'"),
            HINT_CHECKOUT,
            "checkout.local_only",
        )),
        _ => None,
    }
}
