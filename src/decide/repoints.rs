//! What protected branches sync to, set by a person: an agent's command
//! that repoints a remote, a protected branch's upstream, or git's helpers
//! (EN-GIT-D-001, `branches.sync_from_upstream`).

use super::{Decision, Facts};
use crate::action::Action;
use crate::error::Code;
use crate::policy::Policy;

const HINT_REPOINT: &str = "remotes and the upstreams of protected branches are set up by a person; to bring in another repository's branch, fetch it into a branch of your own (`git fetch <url> <branch>:agent/<name>`)";

/// A command that sets what a protected branch may be synced to; a
/// person's git meets only the hooks, which do not see config set.
pub(super) fn repoints(policy: &Policy, action: &Action, facts: &Facts) -> Option<Decision> {
    if !policy.settings.branches.sync_from_upstream || facts.person_outside_hooks() {
        return None;
    }
    let own = |key: &str| agents_own(action, &facts.agent_remotes, key);
    let key = action
        .repoints
        .iter()
        .find(|k| repoints_protected(policy, k) && !own(k))?;
    if key == crate::classify::EXEC_PATH {
        return Some(Decision::deny(
            Code::D001,
            format!(
                "{} runs git's helpers from another exec path (--exec-path or GIT_EXEC_PATH), whose upload-pack may serve another repository as the remote protected branches sync from",
                action.word()
            ),
            "run it without --exec-path, and with GIT_EXEC_PATH unset (or git's own: `git --exec-path`)",
            "branches.sync_from_upstream",
        ));
    }
    Some(Decision::deny(
        Code::D001,
        format!(
            "{} sets {key}, which says what a protected branch may be synced to",
            action.word()
        ),
        HINT_REPOINT,
        "branches.sync_from_upstream",
    ))
}

/// Does setting this key ([`Action::repoints`]) change what a protected
/// branch syncs to? Never when the policy protects nothing; a branch's
/// upstream only for a protected branch; a remote's URL or URL rewriting
/// always (a protected branch syncs to a remote-tracking ref of its name,
/// of any remote but those an agent added).
fn repoints_protected(policy: &Policy, key: &str) -> bool {
    if !policy.protects_anything() {
        return false;
    }
    match key.strip_prefix("branch.").and_then(|k| k.rsplit_once('.')) {
        Some((branch, _)) => policy.is_protected(&format!("refs/heads/{branch}")),
        None => true,
    }
}

/// Is `key` (`remote.<name>.url`) about a remote the agent added, or the
/// new name of one it renames? Those are never synced from.
fn agents_own(action: &Action, agent_remotes: &[String], key: &str) -> bool {
    let Some(name) = key
        .strip_prefix("remote.")
        .and_then(|k| k.rsplit_once('.'))
        .map(|(name, _)| name)
    else {
        return false;
    };
    let renamed_from = match &action.remote_change {
        Some(crate::action::RemoteChange::Rename(old, new)) if new == name => Some(old.as_str()),
        _ => None,
    };
    agent_remotes
        .iter()
        .any(|r| r == name || Some(r.as_str()) == renamed_from)
}
