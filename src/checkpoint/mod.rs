//! Checkpoints, rollback, undo and turns.
//!
//! A checkpoint is an ordinary commit under `refs/ward/checkpoints/<id>`:
//! its tree is the working tree (tracked files as they are on disk,
//! untracked files that are not ignored, allow-listed ignored ones), its
//! parents are HEAD, a commit of the staged tree and, during a merge, a
//! commit of the merge state, and its metadata sits in trailers. Taking one never touches HEAD, the index, the stash, the
//! working tree or file mtimes: all writes go to a temporary index in the
//! worktree's own git dir and to the object database.
//!
//! - `before`: checkpoint before destroy: what a destructive command can
//!   destroy, whether anything is there to lose, and the checkpoint;
//! - [`snapshot`]: the index recipe that turns the working tree into
//!   trees, and storing them as a checkpoint;
//! - [`clean`]: whether a destructive command would lose anything, from
//!   the index's stat cache, before git is asked;
//! - [`direct`]: the faster recipe for a checkpoint (a scan,
//!   `hash-object`, `fast-import`), with [`index_scan`] (one stat pass
//!   over the index, shared with the pre-destructive check), [`scan`] (one
//!   status scan as edits of HEAD's tree, where the stat cache cannot
//!   tell), [`status`] (its records) and [`import`] (the fast-import
//!   stream);
//! - [`take`]: a checkpoint by the direct recipe where it can, else by
//!   the index recipe;
//! - [`store`]: ids, trailers, listing, retention, with [`cquote`] (paths
//!   in git's C-style quoting, exact in a trailer) and [`made`] (the
//!   record of each checkpoint git-ward made, and its commit kept once
//!   its ref is rewritten);
//! - [`stash`]: the stash list, recorded and put back in order;
//! - [`merge`]: a merge in progress, recorded and put back;
//! - [`lost`]: commits only reflogs keep, kept before they are expired;
//! - [`plan`]: what a rollback would change, and the restore itself;
//! - `in_tree`: paths in the working tree the kernel takes, however deep;
//! - `rollback`, `undo`: the steps of a restore and of an undo, which the
//!   commands of the same names (in `commands/`) run; `suite`: a turn's
//!   test command, killed whole when it ends or is stopped.

mod attributes;
mod before;
pub(crate) mod busy;
mod bytes;
pub mod clean;
pub mod cquote;
pub mod direct;
pub mod ignored;
pub mod import;
mod in_tree;
pub mod index_scan;
pub mod lost;
pub mod made;
pub mod merge;
pub mod plan;
pub mod rollback;
pub mod scan;
pub mod snapshot;
pub mod stash;
pub mod status;
pub mod store;
pub(crate) mod suite;
pub mod take;
pub mod undo;
mod unheld;
mod verify_path;
pub mod worktree;

use std::path::PathBuf;
use std::time::Duration;

use crate::decide::Actor;
use crate::error::{Error, Result};
use crate::facts::Repo;
use crate::git::Git;
use crate::policy::Settings;

pub use before::{before_destructive, before_switch, Pending};
pub use in_tree::in_tree;
pub use store::Kind;

/// What every checkpoint operation needs: a doorway to git in the
/// worktree, the repository's directories, the policy, who is asking.
pub struct Ctx<'r> {
    /// git, run in the top of the working tree with `GIT_DIR`/`GIT_WORK_TREE` pinned.
    pub git: Git,
    pub repo: &'r Repo,
    pub workdir: PathBuf,
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub settings: Settings,
    pub contract: Option<String>,
    pub trace_id: String,
    /// Who is asking, for the audit log: an agent unless the tool face
    /// found a human's environment.
    pub actor: Actor,
}

impl<'r> Ctx<'r> {
    /// A context for `repo`, given a doorway whose directory and env may
    /// still need pinning. Fails on a bare repository.
    pub fn new(
        git: Git,
        repo: &'r Repo,
        settings: Settings,
        contract: Option<String>,
        trace_id: String,
    ) -> Result<Self> {
        repo.refs_readable()?;
        let Some(workdir) = repo.workdir() else {
            return Err(Error::invalid(
                "checkpoints need a working tree; this repository is bare",
                "run it in a worktree of the repository",
            ));
        };
        let workdir = workdir.to_path_buf();
        let git_dir = absolute(repo.git_dir());
        let common_dir = absolute(repo.common_dir());
        let seconds = settings.timeouts.git_seconds.max(1);
        let git = crate::facts::context::in_person_home(git, &common_dir)
            .detached_from_env()
            .env("GIT_DIR", &git_dir)
            .env("GIT_WORK_TREE", &workdir)
            .in_dir(&workdir)
            .with_timeout(Duration::from_secs(seconds));
        Ok(Ctx {
            git,
            repo,
            workdir: absolute(&workdir),
            git_dir,
            common_dir,
            settings,
            contract,
            trace_id,
            actor: Actor::Agent,
        })
    }

    /// The context of the tool face: the repository of the current
    /// directory, its policy and contract, a fresh trace id (or the one
    /// the environment carries), and the actor its environment says.
    pub fn for_tool(repo: &'r Repo) -> Result<Self> {
        let policy = crate::facts::load_policy(Some(repo), false)?;
        Ctx::with_policy(repo, policy)
    }

    /// The context of a command that only reads checkpoints (`checkpoints`,
    /// `checkpoint show`): as read-only git commands do, it runs while the
    /// policy cannot be read, with the built-in settings.
    pub fn for_reading(repo: &'r Repo) -> Result<Self> {
        let policy = crate::facts::load_policy(Some(repo), false)
            .unwrap_or_else(|_| crate::policy::Policy::built_in());
        Ctx::with_policy(repo, policy)
    }

    fn with_policy(repo: &'r Repo, policy: crate::policy::Policy) -> Result<Self> {
        let actor = crate::facts::actor(&policy, false);
        let contract = crate::facts::contract(Some(repo))?.map(|(id, _)| id);
        let trace =
            crate::env::var(crate::env::WARD_TRACE_ID).unwrap_or_else(crate::audit::new_trace_id);
        let ctx = Ctx::new(Git::locate()?, repo, policy.settings, contract, trace)?;
        Ok(Ctx { actor, ..ctx })
    }

    /// The same context for another worktree of the repository.
    pub fn sibling<'s>(&self, repo: &'s Repo) -> Result<Ctx<'s>> {
        let ctx = Ctx::new(
            self.git.clone(),
            repo,
            self.settings.clone(),
            self.contract.clone(),
            self.trace_id.clone(),
        )?;
        Ok(Ctx {
            actor: self.actor,
            ..ctx
        })
    }

    /// The audit directory.
    pub fn audit_dir(&self) -> PathBuf {
        crate::audit::dir(&self.common_dir)
    }
}

/// The repository of the current directory, for the tool's commands.
pub fn tool_repo() -> Result<Repo> {
    Repo::for_tool("run it inside the repository's working tree")
}

fn absolute(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
