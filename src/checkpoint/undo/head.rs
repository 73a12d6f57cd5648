//! Undo and HEAD: a command that moved HEAD to another branch is undone
//! back onto the branch HEAD named before it, where that puts back exactly
//! what was there.

use serde::Serialize;

use super::{current, RefStep, Undoable, ZERO};
use crate::checkpoint::store::Checkpoint;
use crate::checkpoint::Ctx;
use crate::error::Result;

/// What undo does to HEAD, when the command changed the branch it names.
#[derive(Clone, Debug, Serialize)]
pub struct HeadStep {
    /// The branch to put back (`HEAD`: detached at `commit`).
    pub to: String,
    /// The branch the command left.
    pub from: String,
    pub commit: Option<String>,
    /// `switch-back`, `moved-since`, or `gone` (the branch to go back to
    /// no longer exists).
    pub action: &'static str,
    pub now: String,
    /// Switched back by git itself, files and all (`git checkout
    /// <branch>`, which carries uncommitted changes or refuses): the
    /// command took no checkpoint, having nothing to destroy (a plain
    /// checkout of a branch).
    pub by_git: bool,
}

/// HEAD goes back to the branch it named before the command where that
/// puts back exactly what was there: the working tree and index come back
/// from a checkpoint taken on that branch, or the undo deletes the branch
/// the command created and left HEAD on (`switch -c`, the shim's move to
/// an agent branch) and leaves the files as they are. Only while HEAD
/// still names what the command left.
pub(crate) fn head_step(
    ctx: &Ctx,
    last: &Undoable,
    cp: Option<&Checkpoint>,
    steps: &[RefStep],
) -> Option<HeadStep> {
    let (before, after) = last.head.clone()?;
    let now = crate::facts::head_branch_file(&ctx.git_dir)?;
    let deletes_after = steps.iter().any(|s| {
        s.action == "move-back" && s.to == ZERO && s.name == format!("refs/heads/{after}")
    });
    let from_checkpoint = cp.is_some_and(|cp| cp.branch.as_deref().unwrap_or("HEAD") == before);
    // A plain move between branches (nothing there to lose, so no
    // checkpoint): git switches back as it switched.
    let by_git =
        !(from_checkpoint || deletes_after) && last.checkpoint.is_none() && before != "HEAD";
    if !(from_checkpoint || deletes_after || by_git) {
        return None;
    }
    let commit = if before == "HEAD" {
        Some(cp?.head.clone()?)
    } else {
        None
    };
    // A branch deleted since (and not recreated by this undo) is not put
    // back under HEAD: HEAD would name nothing.
    let target = format!("refs/heads/{before}");
    // A checkpoint taken on a branch with no commit yet goes back to it
    // unborn.
    let unborn_then = from_checkpoint && cp.is_some_and(|cp| cp.head.is_none());
    let branch_there = commit.is_some()
        || unborn_then
        || current(ctx, &target).is_some()
        || steps
            .iter()
            .any(|s| s.action == "move-back" && s.name == target && s.to != ZERO);
    let action = if now != after {
        "moved-since"
    } else if !branch_there {
        "gone"
    } else {
        "switch-back"
    };
    Some(HeadStep {
        to: before,
        from: after,
        commit,
        action,
        now,
        by_git,
    })
}

/// Points HEAD back as `step` says, without touching files (but for a
/// switch git makes, [`HeadStep::by_git`]).
pub(crate) fn switch_head(ctx: &Ctx, step: &HeadStep) -> Result<std::result::Result<(), String>> {
    let out = match &step.commit {
        None if step.by_git => ctx.git.output(["checkout", "-q", step.to.as_str(), "--"])?,
        Some(id) => ctx.git.output([
            "update-ref",
            "--no-deref",
            "-m",
            "ward: undo",
            "HEAD",
            id.as_str(),
        ])?,
        None => {
            let target = format!("refs/heads/{}", step.to);
            ctx.git
                .output(["symbolic-ref", "-m", "ward: undo", "HEAD", &target])?
        }
    };
    Ok(if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "HEAD: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })
}
