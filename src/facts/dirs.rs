//! Where git runs: this worktree's git dir, the common one and the working
//! tree, found from the environment and the working directory without
//! opening the repository (the hooks, the shim's fast path and `facts`).

use std::path::{Path, PathBuf};

use crate::audit;

/// Where the hook runs: this worktree's git dir and the common one, found
/// without opening the repository (git runs hooks at the top of the
/// working tree, or in the git dir of a bare repository; `GIT_DIR` may be
/// exported, relative to that directory).
#[derive(Clone, Debug)]
pub struct Dirs {
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    pub work_tree: Option<PathBuf>,
}

impl Dirs {
    /// Finds the directories from the environment and the working directory.
    pub fn find() -> Option<Dirs> {
        let cwd = std::env::current_dir().ok()?;
        // `<cwd>/.git` as a real directory is canonical already (the working
        // directory is): the common case skips resolving it again.
        let mut canonical = false;
        let git_dir = match std::env::var_os("GIT_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => cwd.join(dir),
            None => {
                let dot_git = cwd.join(".git");
                if std::fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_dir()) {
                    canonical = true;
                    dot_git
                } else if dot_git.is_dir() {
                    dot_git
                } else if dot_git.is_file() {
                    cwd.join(path_in_file(&dot_git, b"gitdir:")?)
                } else if cwd.join("HEAD").is_file() && cwd.join("objects").is_dir() {
                    cwd.clone()
                } else {
                    return None;
                }
            }
        };
        let common_dir = match std::env::var_os("GIT_COMMON_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => {
                canonical = false;
                cwd.join(dir)
            }
            None => match path_in_file(&git_dir.join("commondir"), b"") {
                Some(common) => {
                    canonical = false;
                    git_dir.join(common)
                }
                None => git_dir.clone(),
            },
        };
        if canonical {
            let work_tree = Some(cwd);
            return Some(Dirs {
                git_dir,
                common_dir,
                work_tree,
            });
        }
        // Canonical, so that every worktree names the shared files alike.
        let git_dir = git_dir.canonicalize().unwrap_or(git_dir);
        let common_dir = common_dir.canonicalize().unwrap_or(common_dir);
        let work_tree = if git_dir == cwd { None } else { Some(cwd) };
        Some(Dirs {
            git_dir,
            common_dir,
            work_tree,
        })
    }

    /// The audit directory.
    pub fn audit_dir(&self) -> PathBuf {
        audit::dir(&self.common_dir)
    }
}

/// The path a small file of git's holds after `prefix` (`gitdir:` in a
/// `.git` file, nothing in `commondir`), as bytes: a worktree's path need
/// not be UTF-8. `None` when the file is missing, lacks the prefix or
/// names nothing.
pub(crate) fn path_in_file(file: &Path, prefix: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = crate::state_file::read_bounded(file, crate::state_file::MAX_READ).ok()?;
    let line = bytes.split(|b| *b == b'\n').next()?;
    let rest = line.strip_prefix(prefix)?.trim_ascii();
    (!rest.is_empty()).then(|| PathBuf::from(std::ffi::OsStr::from_bytes(rest)))
}
