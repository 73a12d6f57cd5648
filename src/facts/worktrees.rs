//! The repository's worktrees as `git worktree list` names them: which
//! exist now, and which one a `git worktree remove` argument means.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::git::Git;

/// One entry of `git worktree list --porcelain`.
pub struct Listed {
    pub path: PathBuf,
    pub branch: Option<String>,
    pub bare: bool,
}

/// The worktrees of the repository, the main one first.
pub fn list(git: &Git) -> Vec<Listed> {
    let Ok(out) = git.output(["worktree", "list", "--porcelain", "-z"]) else {
        return Vec::new();
    };
    let mut all: Vec<Listed> = Vec::new();
    // Paths as bytes: a worktree's path need not be UTF-8.
    for line in out.stdout.split(|b| *b == 0) {
        if let Some(path) = line.strip_prefix(b"worktree ") {
            all.push(Listed {
                path: PathBuf::from(std::ffi::OsStr::from_bytes(path)),
                branch: None,
                bare: false,
            });
        } else if let (Some(b), Some(last)) = (line.strip_prefix(b"branch "), all.last_mut()) {
            let b = String::from_utf8_lossy(b);
            last.branch = Some(b.strip_prefix("refs/heads/").unwrap_or(&b).to_string());
        } else if let (true, Some(last)) = (line == b"bare", all.last_mut()) {
            last.bare = true;
        }
    }
    all
}

/// The worktrees that exist now, for telling where a command that removed
/// the worktree it ran in is undone.
pub struct Existing {
    /// The main worktree's top; `None` when the repository is bare.
    pub main: Option<PathBuf>,
    /// The tops of the worktrees on disk, the main one included.
    pub tops: Vec<PathBuf>,
}

impl Existing {
    /// Reads `git worktree list`.
    pub fn read(git: &Git) -> Existing {
        let all = list(git);
        let main = all.first().filter(|w| !w.bare).map(|w| w.path.clone());
        let tops = all
            .into_iter()
            .filter(|w| !w.bare && w.path.is_dir())
            .map(|w| w.path)
            .collect();
        Existing { main, tops }
    }
}

/// The worktree `git worktree remove <arg>` deletes, found as git finds it:
/// the one worktree whose path ends with `arg` at a directory boundary,
/// else the one at `arg` taken relative to `cwd` (where git runs, after
/// `-C`), both sides' symlinks resolved.
pub fn named(git: &Git, cwd: &Path, arg: &str) -> Option<PathBuf> {
    let all = list(git);
    if !arg.is_empty() {
        let by_suffix: Vec<&Listed> = all
            .iter()
            .filter(|w| {
                let p = w.path.to_string_lossy();
                p.strip_suffix(arg)
                    .is_some_and(|head| head.is_empty() || head.ends_with('/'))
            })
            .collect();
        if let [one] = by_suffix.as_slice() {
            return Some(one.path.clone());
        }
    }
    let wanted = std::fs::canonicalize(cwd.join(arg)).ok()?;
    all.into_iter()
        .map(|w| w.path)
        .find(|p| std::fs::canonicalize(p).is_ok_and(|p| p == wanted))
}
