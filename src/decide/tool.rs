//! The steps of git-ward's own tool that can switch its guards off, and
//! who may take them (EN-GIT-D-004, EN-GIT-D-001, EN-GIT-D-007).

use super::{lanes, Actor, Decision, Held};
use crate::error::Code;
use crate::policy::Policy;

/// A step of git-ward's own tool that can switch its guards off.
#[derive(Clone, Copy, Debug)]
pub enum ToolStep<'a> {
    /// `git ward uninstall`: the hooks go.
    Uninstall,
    /// `git ward install --link`: hooks that git skips, silently, once the
    /// file they link to is gone (an agent's session directory).
    LinkHooks,
    /// `git ward rollback --no-safety`: files overwritten with no
    /// checkpoint of them.
    RollbackWithoutSafety,
    /// `git ward rollback` or `undo` from a checkpoint that is not the one
    /// git-ward made under its id (`why`); `accepted` with
    /// `--accept-changed`, which a person gives after reading the plan.
    RestoreChanged { why: &'a str, accepted: bool },
    /// `git ward init <dir>` with `<dir>` in a git directory: a working
    /// tree whose commands write hooks, config and the local policy layer.
    WorkspaceInGitDir(&'a std::path::Path),
    /// `git ward drift --accept`: refs that moved with the hooks off are
    /// taken as known, past the rules the hooks would have applied.
    AcceptDrift,
    /// `git ward run` in a worktree a live session holds.
    Leased(&'a Held),
    /// `git ward undo` or `rollback` (`what`) in a worktree a live session
    /// holds; `own`: the command is of the session's contract.
    RestoreLeased {
        held: &'a Held,
        own: bool,
        what: &'a str,
    },
}

/// The tool's steps that switch guards off (EN-GIT-D-004): an
/// agent's hooks steps are refused unless `enforce.allow_no_verify` lets
/// agents skip hooks, its rollback without a safety checkpoint always (a
/// person may do both); a workspace in a git directory for anyone.
pub fn decide_tool(policy: &Policy, actor: Actor, step: ToolStep) -> Decision {
    let agent = actor == Actor::Agent;
    let hooks_off = agent && !policy.settings.enforce.allow_no_verify;
    if let Some((why, hint, key)) = guards_off(step, agent, hooks_off) {
        return Decision::deny(Code::D004, why, hint, key);
    }
    match step {
        // A person's word after reading the plan; never an agent's.
        ToolStep::RestoreChanged { why, accepted } if agent || !accepted => Decision {
            key: None,
            ..Decision::deny(
                Code::D001,
                format!("{why}; nothing is restored from it"),
                if agent {
                    "a person reads the plan (`--dry-run`) and decides"
                } else {
                    "read the plan (`--dry-run`); if you trust what it restores, run again with --accept-changed"
                },
                "",
            )
        },
        // No policy key lets anyone do this.
        ToolStep::WorkspaceInGitDir(dir) => Decision {
            key: None,
            ..Decision::deny(
                Code::D004,
                format!(
                    "a workspace at {} would have its working tree in a git directory, whose hooks, config and policy its commands would write",
                    dir.display()
                ),
                "make the workspace outside any `.git` directory: `git ward init <dir>`",
                "",
            )
        },
        ToolStep::Leased(held) => lanes::busy(held),
        ToolStep::RestoreLeased { held, own, what } if agent && !own => {
            lanes::restore_refused(held, what)
        }
        _ => Decision::allow("a step of git-ward's own tool"),
    }
}

/// A step that switches guards off and who is refused it: why, what to do
/// instead, and the policy key that says so.
fn guards_off(
    step: ToolStep,
    agent: bool,
    hooks_off: bool,
) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match step {
        ToolStep::Uninstall if hooks_off => (
            "uninstall switches git-ward's hooks off",
            "a person runs `git ward uninstall`; an agent's work goes on a branch of its own",
            "enforce.allow_no_verify",
        ),
        ToolStep::LinkHooks if hooks_off => (
            "install --link makes hooks that git skips without a word once the binary they link to is gone",
            "run `git ward install` without --link: its hook files refuse while git-ward is missing",
            "enforce.allow_no_verify",
        ),
        ToolStep::RollbackWithoutSafety if agent => (
            "rollback --no-safety would overwrite the working tree with no checkpoint of it",
            "run the rollback without --no-safety (its safety checkpoint makes it undoable), or let a person skip it",
            "checkpoint.before_destructive",
        ),
        ToolStep::AcceptDrift if agent => (
            "drift --accept would keep refs that moved with git-ward's hooks off",
            "a person looks and accepts; `git ward drift --restore` puts them back",
            "enforce.drift",
        ),
        _ => return None,
    })
}
