//! Linked worktrees that `git worktree remove --force` deletes: which one
//! the command names, and bringing it back.
//!
//! The pre-destructive checkpoint of `worktree remove` is taken of the
//! worktree being removed, not of the one the command runs in; its
//! `Ward-Workdir` trailer says where that worktree was. Undo re-creates it
//! with `git worktree add` at the same path, on the same branch when that
//! still exists and is checked out nowhere else (else detached at the
//! checkpoint's HEAD), then restores its files and index from the
//! checkpoint as a rollback would. A lock the worktree had is not put back.

use std::path::{Path, PathBuf};

use super::rollback::Prepared;
use super::store::Checkpoint;
use super::Ctx;
use crate::error::{Error, Result};
use crate::facts::worktrees::list;
use crate::facts::Repo;

/// Where a checkpoint's worktree was, when that is not `ctx`'s. It is
/// `ctx`'s when it was taken at the same top, or of the same git dir (a
/// linked worktree moved with `git worktree move` keeps its own), or, its
/// paths gone, of the same worktree of the repository (the main one, or
/// linked `<name>`): the repository's directory was moved or renamed.
fn elsewhere(ctx: &Ctx, cp: &Checkpoint) -> Option<PathBuf> {
    let dir = PathBuf::from(cp.workdir.as_deref()?);
    let same = dir == ctx.workdir || std::fs::canonicalize(&dir).is_ok_and(|d| d == ctx.workdir);
    let git_dir = cp.worktree.as_deref().map(PathBuf::from);
    let same_git_dir = git_dir.as_ref().is_some_and(|g| {
        g == &ctx.git_dir || std::fs::canonicalize(g).is_ok_and(|g| g == ctx.git_dir)
    });
    let moved = !dir.exists()
        && git_dir
            .as_ref()
            .is_some_and(|g| !g.exists() && identity(g) == identity_here(ctx));
    // A linked worktree removed and another added under its name has its
    // git dir's path: this worktree was there when the checkpoint was
    // taken only if its HEAD's reflog starts no later.
    let older = || identity_here(ctx).is_none() || began_before(ctx, cp);
    (!same && !((same_git_dir || moved) && !dir.exists() && older())).then_some(dir)
}

/// Did this worktree's HEAD reflog start at or before the checkpoint was
/// taken? No reflog, or no time to read: no.
fn began_before(ctx: &Ctx, cp: &Checkpoint) -> bool {
    let Some(taken) = crate::audit::parse_rfc3339(&cp.created) else {
        return false;
    };
    let Ok(log) = crate::state_file::read_text(&ctx.git_dir.join("logs").join("HEAD")) else {
        return false;
    };
    // `<old> <new> <name> <email> <seconds> <zone>\t<message>`
    let first = log.lines().next().unwrap_or_default();
    let seconds = first
        .split('\t')
        .next()
        .and_then(|head| head.rsplit(' ').nth(1))
        .and_then(|s| s.parse::<u64>().ok());
    seconds.is_some_and(|s| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s) <= taken)
}

/// Which worktree of its repository a git dir is, by its shape:
/// `Some(name)` for `<common>/worktrees/<name>`, `None` for the main one.
fn identity(git_dir: &Path) -> Option<String> {
    let parent = git_dir.parent()?;
    (parent.file_name()? == "worktrees")
        .then(|| {
            git_dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .flatten()
}

/// [`identity`] of `ctx`'s worktree, as its repository says.
fn identity_here(ctx: &Ctx) -> Option<String> {
    (ctx.git_dir != ctx.common_dir)
        .then(|| {
            ctx.git_dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .flatten()
}

/// The worktree of this repository whose top is `dir`, if there is one.
fn open(ctx: &Ctx, dir: &Path) -> Option<Repo> {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let repo = Repo::at(dir)?;
    let top = repo.workdir().and_then(real);
    (top.is_some() && top == real(dir) && real(repo.common_dir()).as_ref() == Some(&ctx.common_dir))
        .then_some(repo)
}

/// The repository of another worktree that still exists, when the
/// checkpoint was taken there.
pub fn open_elsewhere(ctx: &Ctx, cp: &Checkpoint) -> Option<Repo> {
    open(ctx, &elsewhere(ctx, cp)?)
}

/// A removed worktree, and how to bring it back.
pub struct Gone {
    pub path: PathBuf,
    /// The branch to check out; `None`: detached at `start`.
    pub branch: Option<String>,
    /// The commit it starts at.
    pub start: String,
}

impl Gone {
    /// The plan's line.
    pub fn plan_line(&self) -> String {
        let on = match &self.branch {
            Some(b) => format!("on branch {b}"),
            None => format!("detached at {}", super::store::short(&self.start)),
        };
        format!(
            "  WORKTREE  {} comes back ({on}), with its files and index as the checkpoint holds them\n",
            self.path.display()
        )
    }

    /// The plan from a fresh checkout of it to the checkpoint, and the
    /// present of `ctx` (whose safety checkpoint undo takes).
    pub fn prepare(&self, ctx: &Ctx, cp: &Checkpoint) -> Result<Prepared> {
        let start = ctx
            .git
            .run(["rev-parse", &format!("{}^{{tree}}", self.start)])?;
        let files = (cp.counts.files > 0).then_some(cp.counts.files);
        let mut plan = super::plan::compute(ctx, &start, &cp.tree, &[], &[], files, false)?;
        plan.left_out = super::plan::left_out(&self.path, &cp.skipped, &[]);
        plan.keep_modes(&cp.modes);
        plan.keep_bytes(&super::bytes::kept(ctx, &cp.id));
        let present = super::snapshot::trees(ctx)?;
        Ok(Prepared { present, plan })
    }

    /// `git worktree add` at its path; returns its repository.
    pub fn recreate(&self, ctx: &Ctx) -> Result<Repo> {
        let path = self.path.to_string_lossy();
        let mut args = vec!["worktree", "add", "-q"];
        match &self.branch {
            Some(b) => args.extend([path.as_ref(), b.as_str()]),
            None => args.extend(["--detach", path.as_ref(), self.start.as_str()]),
        }
        ctx.git.run(&args)?;
        Repo::at(&self.path)
            .ok_or_else(|| Error::internal(format!("cannot open the worktree made at {path}")))
    }
}

/// The worktree a checkpoint was taken of, when it is not `ctx`'s and no
/// longer exists (a `worktree remove` deleted it). An error when there is
/// no commit to re-create it at.
pub fn gone(ctx: &Ctx, cp: &Checkpoint) -> Result<Option<Gone>> {
    let Some(path) = elsewhere(ctx, cp).filter(|dir| open(ctx, dir).is_none()) else {
        return Ok(None);
    };
    if let Some(why) = super::made::changed(ctx, cp) {
        // Its `Ward-Workdir` names the place: only as git-ward wrote it.
        return Err(Error::invalid(
            format!(
                "checkpoint {} would bring back a worktree at {}, and {why}: a worktree is made again only from a checkpoint as git-ward made it",
                cp.id,
                path.display()
            ),
            "make a worktree there yourself if it should be, then restore into it from inside: `git -C <it> ward rollback <id> --accept-changed`",
        ));
    }
    let empty = |d: &Path| std::fs::read_dir(d).is_ok_and(|mut d| d.next().is_none());
    if path.is_dir() && !empty(&path) && !path.join(".git").exists() {
        // No worktree of any repository: a directory given as the working
        // tree (`git --work-tree=<dir> reset --hard`).
        return Err(Error::invalid(
            format!(
                "checkpoint {} was taken of {}, given as the working tree (`--work-tree`, GIT_WORK_TREE)",
                cp.id,
                path.display()
            ),
            format!(
                "run it the same way: `git --work-tree={} ward rollback {}`",
                path.display(),
                cp.id
            ),
        ));
    }
    if path.exists() && !empty(&path) {
        return Err(Error::invalid(
            format!(
                "checkpoint {} holds the worktree at {}, where something else is now",
                cp.id,
                path.display()
            ),
            "move that out of the way and run it again",
        ));
    }
    let all = list(&ctx.git);
    let free = |b: &String| {
        ctx.repo.ref_target(&format!("refs/heads/{b}")).is_some()
            && !all.iter().any(|w| w.branch.as_ref() == Some(b))
    };
    let branch = cp.branch.clone().filter(free);
    let start = match &branch {
        Some(b) => ctx.repo.ref_target(&format!("refs/heads/{b}")),
        None => cp.head.clone(),
    };
    let Some(start) = start else {
        return Err(Error::invalid(
            format!(
                "checkpoint {} holds the worktree at {}, which no longer exists and had no commit",
                cp.id,
                path.display()
            ),
            format!(
                "make a worktree there, then restore into it: `git -C <it> ward rollback {} --yes`",
                cp.id
            ),
        ));
    };
    Ok(Some(Gone {
        path,
        branch,
        start,
    }))
}

/// The error for a rollback to a checkpoint of a removed worktree: what to
/// type to get it back. `undo` is the `git ward undo` command line that
/// would undo the removal now, if there is one.
pub fn gone_error(cp: &Checkpoint, g: &Gone, undo: Option<&str>) -> Error {
    let path = g.path.display();
    let hint = match undo {
        Some(undo) => format!("`{undo}` brings it back, with its files and index"),
        None => {
            let add = match &g.branch {
                Some(b) => format!("git worktree add {path} {b}"),
                None => format!("git worktree add --detach {path} {}", g.start),
            };
            format!(
                "`{add}`, then `git -C {path} ward rollback {} --index --yes`",
                cp.id
            )
        }
    };
    Error::invalid(
        format!(
            "checkpoint {} holds the worktree at {path}, which no longer exists",
            cp.id
        ),
        hint,
    )
}
