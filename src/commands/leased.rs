//! `git ward undo` and `rollback` in a worktree a live session holds:
//! an agent of another contract is refused
//! (EN-GIT-D-007), a person warned.

use std::path::Path;

use crate::decide::{decide_tool, ToolStep};
use crate::error::Result;
use crate::facts::{self, Repo};
use crate::policy::Policy;

/// Refuses `what` where `decide` says so.
pub fn check(repo: &Repo, git_dir: &Path, what: &str) -> Result<()> {
    let Some(lease) = facts::lease::live(git_dir) else {
        return Ok(());
    };
    let policy = facts::load_policy(Some(repo), false).unwrap_or_else(|_| Policy::built_in());
    let actor = facts::actor(&policy, false);
    let own = crate::env::var(crate::env::WARD_CONTRACT).is_some_and(|c| c == lease.contract);
    let held = lease.held();
    let step = ToolStep::RestoreLeased {
        held: &held,
        own,
        what,
    };
    match decide_tool(&policy, actor, step).denial() {
        Some(err) => {
            let contract = facts::contract(Some(repo)).ok().flatten().map(|c| c.0);
            super::log(
                repo,
                &format!("ward.{what}"),
                contract.as_deref(),
                Some(err),
            );
            Err(err.clone())
        }
        None => {
            if actor == crate::decide::Actor::Human {
                crate::output::errln!(
                    "ward: warning: worktree {} is leased by a live session of contract '{}' (pid {})",
                    held.worktree,
                    held.contract,
                    held.pid
                );
            }
            Ok(())
        }
    }
}
