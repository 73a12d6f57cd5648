//! Hints several rules give: the agent's branch, where a push goes instead,
//! how protected refs move.

use crate::policy::{short_name, Policy};

/// What to do instead of moving a protected ref.
pub(super) const HINT_PROTECTED_REF: &str =
    "protected refs move only through review: push a branch of your own and open a merge request";
/// What to do instead of moving or deleting a protected tag.
pub(super) const HINT_PROTECTED_TAG: &str =
    "protected tags are never moved or deleted; create a new tag instead";

/// A ref's short name where it has one (`refs/heads/main`: `main`).
pub(super) fn display(refname: &str) -> String {
    short_name(refname).map_or_else(|| refname.to_string(), |s| s.into_owned())
}

/// The agent's branch as hints name it: `<agent_prefix><contract>`, with
/// `<contract>` standing for the id where none is known.
pub(crate) fn agent_branch(policy: &Policy, contract: Option<&str>) -> String {
    let prefix = &policy.settings.branches.agent_prefix;
    format!("{prefix}{}", contract.unwrap_or("<contract>"))
}

/// The hint for a force push outside `push.force_allowed` to `remote`:
/// force-pushing the agent branch, where that setting lets it.
pub(crate) fn force_push_hint(policy: &Policy, remote: &str, contract: Option<&str>) -> String {
    let own = agent_branch(policy, contract);
    if policy.force_allowed(&format!("refs/heads/{own}")) {
        format!("push without force, or force-push only to your own agent branch (`git push --force {remote} {own}`)")
    } else {
        format!("push without force; push.force_allowed does not cover your agent branch '{own}' either")
    }
}

/// The hint for a push to protected `refname` on `remote`: a branch
/// goes to the agent's branch for review; a tag is a person's to push.
pub(crate) fn protected_push_hint(
    policy: &Policy,
    refname: &str,
    remote: &str,
    contract: Option<&str>,
) -> String {
    let own = agent_branch(policy, contract);
    if refname.starts_with("refs/tags/") {
        // A tag can go along unasked (`push.followTags`, `--follow-tags`).
        format!("tags are a person's to push; push your branch without them (`git push --no-follow-tags {remote} {own}`)")
    } else {
        format!("push to a branch of your own (`git push {remote} HEAD:{own}`) and open a merge request")
    }
}
