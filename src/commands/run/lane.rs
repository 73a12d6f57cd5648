//! A contract's lane: its own linked worktree on `<agent_prefix><contract>`,
//! made on first use and found again after (sticky: one lane per contract).
//!
//! The default place is next to the main worktree, outside every working
//! tree: `<main top>/../<name>.lanes/<contract>` (for a bare repository
//! `<dir>.lanes/<contract>` beside it). A lane records where it started in
//! `<its git dir>/ward/lane`, which `git ward sessions` counts commits
//! ahead of.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, IoContext, Result};
use crate::facts::lease;
use crate::facts::Repo;
use crate::git::Git;

/// A lane ready for a session.
pub struct Lane {
    pub top: PathBuf,
    pub git_dir: PathBuf,
    /// Made now (else found).
    pub created: bool,
}

/// Where a lane started: `<git dir>/ward/lane`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Start {
    pub contract: String,
    /// The branch (or revision) it was made from, as given.
    pub from: String,
    /// The commit that was.
    pub base: String,
}

/// Reads a worktree's lane record.
pub fn start_of(git_dir: &Path) -> Option<Start> {
    let bytes = crate::state_file::read_bounded(&git_dir.join("ward").join("lane"), 64 * 1024);
    serde_json::from_slice(&bytes.ok()?).ok()
}

/// The branch the HEAD file of `git_dir` names (`None`: detached or unreadable).
fn branch_of(git_dir: &Path) -> Option<String> {
    let text = crate::state_file::read_text(&git_dir.join("HEAD")).ok()?;
    text.trim()
        .strip_prefix("ref: refs/heads/")
        .map(str::to_string)
}

/// Removes the lane on `branch` or at `place` whose `git worktree add`
/// was cut short (killed): git's `initializing` lock is still on it, its
/// checkout may be partial, and no session has worked in it yet. Its top,
/// if there was one.
fn clear_half_made(
    git: &Git,
    common: &Path,
    branch: &str,
    place: &Path,
) -> Result<Option<PathBuf>> {
    let same =
        |d: &Path| d == place || std::fs::canonicalize(d).ok() == std::fs::canonicalize(place).ok();
    let Some(w) = lease::linked(common).into_iter().find(|w| {
        crate::facts::stale_locks::initializing(&w.git_dir)
            && (branch_of(&w.git_dir).as_deref() == Some(branch) || same(&w.top))
    }) else {
        return Ok(None);
    };
    // Twice forced: git refuses a locked worktree otherwise.
    git.run([
        "worktree",
        "remove",
        "--force",
        "--force",
        &w.top.to_string_lossy(),
    ])?;
    Ok(Some(w.top))
}

/// The default place of `contract`'s lane.
pub fn default_place(repo: &Repo, contract: &str) -> PathBuf {
    let common = repo.common_dir();
    let base = match common.file_name() {
        Some(name) if name == ".git" => common.parent().unwrap_or(common),
        _ => common,
    };
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(".lanes");
    base.parent().unwrap_or(base).join(name).join(contract)
}

/// The lane of `contract` on `branch`: the linked worktree that has it
/// checked out, else one made at `dir` (or the default place) from `from`
/// (default HEAD) or from the branch where it exists.
pub fn ensure(
    git: &Git,
    repo: &Repo,
    contract: &str,
    branch: &str,
    dir: Option<&Path>,
    from: Option<&str>,
) -> Result<(Lane, Vec<String>)> {
    let mut notes = Vec::new();
    let common = repo.common_dir();
    if branch_of(common).as_deref() == Some(branch) && repo.workdir().is_some() {
        return Err(Error::invalid(
            format!("{branch} is checked out in the main worktree, so it cannot be a lane of its own"),
            "switch the main worktree to another branch (`git switch main`), or run without --worktree there",
        ));
    }
    let wanted = dir
        .map(std::path::absolute)
        .transpose()
        .at("resolve", dir.unwrap_or(Path::new(".")))?;
    let place = wanted
        .clone()
        .unwrap_or_else(|| default_place(repo, contract));
    if let Some(top) = clear_half_made(git, common, branch, &place)? {
        notes.push(format!(
            "lane {} was left half-made: made again",
            top.display()
        ));
    }
    if let Some(w) = lease::linked(common)
        .into_iter()
        .find(|w| branch_of(&w.git_dir).as_deref() == Some(branch) && w.top.is_dir())
    {
        let same =
            |d: &PathBuf| std::fs::canonicalize(d).ok() == std::fs::canonicalize(&w.top).ok();
        if let Some(d) = wanted.as_ref().filter(|d| !same(d)) {
            return Err(Error::invalid(
                format!(
                    "contract {contract}'s lane is {}, not {}",
                    w.top.display(),
                    d.display()
                ),
                "run without DIR to use it, or move it first: `git worktree move <lane> <dir>`",
            ));
        }
        if from.is_some() {
            notes.push(format!("{branch} exists: --from is not used"));
        }
        let lane = Lane {
            top: w.top,
            git_dir: w.git_dir,
            created: false,
        };
        return Ok((lane, notes));
    }
    let top = place;
    if let Some(parent) = top.parent() {
        std::fs::create_dir_all(parent).at("create the directory", parent)?;
    }
    let path = top.to_string_lossy().into_owned();
    let exists = repo.ref_target(&format!("refs/heads/{branch}")).is_some();
    let start = from.unwrap_or("HEAD");
    let base = git
        .run([
            "rev-parse",
            "--verify",
            "-q",
            &format!("{start}^{{commit}}"),
        ])
        .map_err(|_| {
            Error::invalid(
                format!("'{start}' names no commit to start the lane from"),
                "pass a branch or commit: `--from main`",
            )
        })?;
    // git writes every file of the tree: as long as that takes (a day,
    // in practice), never cut short halfway (a half-made worktree).
    let adder = git
        .clone()
        .with_timeout(std::time::Duration::from_secs(24 * 3600));
    if exists {
        if from.is_some() {
            notes.push(format!("{branch} exists: --from is not used"));
        }
        // A lane whose directory was deleted by hand still has git's
        // record, which holds the branch: a new one replaces it.
        let missing = lease::linked(common)
            .iter()
            .any(|w| branch_of(&w.git_dir).as_deref() == Some(branch) && !w.top.exists());
        let force = if missing { "-f" } else { "-q" };
        adder.run(["worktree", "add", "-q", force, &path, branch])?;
    } else {
        adder.run(["worktree", "add", "-q", "-b", branch, &path, &base])?;
    }
    let made = Repo::at(&top)
        .ok_or_else(|| Error::internal(format!("cannot open the worktree made at {path}")))?;
    let git_dir = made.git_dir().to_path_buf();
    let record = Start {
        contract: contract.to_string(),
        from: start.to_string(),
        base,
    };
    let ward = git_dir.join("ward");
    let file = ward.join("lane");
    crate::state_file::replace(&file, &serde_json::to_vec(&record).unwrap_or_default())
        .at("write", &file)?;
    let contract_file = ward.join("contract");
    if !contract_file.exists() {
        crate::state_file::replace(&contract_file, format!("{contract}\n").as_bytes())
            .at("write", &contract_file)?;
    }
    notes.push(format!("lane made: {} on {branch}", top.display()));
    Ok((
        Lane {
            top,
            git_dir,
            created: true,
        },
        notes,
    ))
}
