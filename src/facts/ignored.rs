//! Ignored files in a checkout's way (a command whose effective rules
//! let it overwrite untracked or ignored work counts as
//! destructive). git refuses to overwrite an untracked file where the
//! commit it checks out has one, unless the file is ignored: then it is
//! replaced without a word. Which files are ignored is the working tree's
//! to say (a `.gitignore` just edited, `info/exclude`), so the files are
//! found as git will find them, and checkpointed first.
//!
//! Asked for an agent's checkout of a commit the command line names, on
//! the mutating path: one `diff-tree`, and one `ls-files` only where a
//! path the commit adds or changes is on disk.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use crate::action::Action;
use crate::facts::Repo;
use crate::git::Git;

/// The ignored untracked files, as paths from the top, that checking out
/// `action`'s commit would overwrite; none where that is not known.
pub fn overwritten(repo: &Repo, action: &Action) -> Vec<Vec<u8>> {
    let (Some(rev), Some(workdir)) = (action.incoming(), repo.workdir()) else {
        return Vec::new();
    };
    let Ok(git) = Git::locate() else {
        return Vec::new();
    };
    let git = git
        .detached_from_env()
        .env("GIT_DIR", repo.git_dir())
        .env("GIT_WORK_TREE", workdir)
        .in_dir(workdir);
    let Ok(out) = git.output([
        "diff-tree",
        "-r",
        "-z",
        "--name-only",
        "--no-renames",
        "HEAD",
        "--end-of-options",
        &rev,
    ]) else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    let on_disk: Vec<&[u8]> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .filter(|p| {
            std::fs::symlink_metadata(workdir.join(OsStr::from_bytes(p))).is_ok_and(|m| !m.is_dir())
        })
        .collect();
    if on_disk.is_empty() {
        return Vec::new();
    }
    match git.output(list_ignored(&on_disk)) {
        Ok(out) if out.status.success() => out
            .stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
        _ => Vec::new(),
    }
}

/// The arguments of `git ls-files` that lists the ignored untracked files
/// among `paths` (literal, from the top), NUL-terminated.
pub fn list_ignored<'a>(paths: &[&'a [u8]]) -> Vec<&'a OsStr> {
    let mut args: Vec<&OsStr> = [
        "--literal-pathspecs",
        "ls-files",
        "-z",
        "-o",
        "-i",
        "--exclude-standard",
        "--",
    ]
    .map(OsStr::new)
    .to_vec();
    args.extend(paths.iter().map(|p| OsStr::from_bytes(p)));
    args
}
