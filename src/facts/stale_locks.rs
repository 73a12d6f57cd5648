//! git's lock files that a killed git left behind.
//!
//! git takes `index.lock`, `HEAD.lock`, `refs/heads/x.lock`,
//! `packed-refs.lock`, `config.lock`, `objects/maintenance.lock` ... while
//! it writes, and removes them when it ends, unless it was killed (SIGKILL,
//! a harness stopping an agent's command with its children): then every
//! later git that needs the lock refuses ("File exists") until someone
//! deletes it.
//!
//! A lock file is taken for one left behind when no git runs in the
//! repository: no live process named `git` (or `git-*`) other than this
//! process's own ancestors (`git ward doctor` runs under git) has its
//! working directory in one of the repository's working trees or in its
//! git directory, where git moves before it takes a lock. Linux's
//! `/proc` answers; where there is none, no lock is called stale.

use std::path::{Path, PathBuf};

/// The lock files under `common_dir` (git-ward's own `ward/` and the
/// object store left out), if no git runs in the repository whose
/// working trees are `tops`; none where one does.
pub fn left_by_killed_git(common_dir: &Path, tops: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    collect(common_dir, common_dir, &mut found);
    if found.is_empty() {
        return found;
    }
    match no_git_runs(common_dir, tops) {
        Some(true) => found,
        _ => Vec::new(),
    }
}

/// Is the linked worktree whose git directory is `git_dir` one that
/// `git worktree add` has not finished making: git's `initializing` lock
/// still on it (git removes it last), its HEAD maybe not yet written?
pub fn initializing(git_dir: &Path) -> bool {
    crate::state_file::read_text(&git_dir.join("locked"))
        .is_ok_and(|lock| lock.trim() == "initializing")
}

/// The linked worktrees a killed `git worktree add` left half-made (see
/// [`initializing`]), if no git runs in the repository: `git fsck` fails
/// on one whose HEAD is not yet written.
pub fn half_made_worktrees(common_dir: &Path, tops: &[PathBuf]) -> Vec<super::lease::Linked> {
    let half: Vec<_> = super::lease::linked(common_dir)
        .into_iter()
        .filter(|w| initializing(&w.git_dir))
        .collect();
    if half.is_empty() || no_git_runs(common_dir, tops) != Some(true) {
        return Vec::new();
    }
    half
}

/// `Some(true)` when no git (but our own ancestors) works in the
/// repository; `None` where `/proc` cannot tell.
fn no_git_runs(common_dir: &Path, tops: &[PathBuf]) -> Option<bool> {
    let mut places: Vec<PathBuf> = tops
        .iter()
        .chain([&common_dir.to_path_buf()])
        .cloned()
        .collect();
    places.extend(
        places
            .clone()
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok()),
    );
    git_runs_in(&places).map(|runs| !runs)
}

/// Lock files under `dir`, skipping `ward/` at the top and the object
/// store below `objects/` (where `git maintenance` keeps its lock).
fn collect(top: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            let objects = top.join("objects");
            if (dir == top && entry.file_name() == "ward") || dir == objects {
                continue;
            }
            collect(top, &path, found);
        } else if kind.is_file() && entry.file_name().to_string_lossy().ends_with(".lock") {
            found.push(path);
        }
    }
}

/// Whether a git process (not one of ours) works in one of `places`;
/// `None` where `/proc` cannot tell.
fn git_runs_in(places: &[PathBuf]) -> Option<bool> {
    let ours = ancestors();
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut seen_any = false;
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        seen_any = true;
        if ours.contains(&pid) {
            continue;
        }
        // A zombie (state Z) holds nothing.
        let Ok(stat) = crate::state_file::read_proc(entry.path().join("stat")) else {
            continue;
        };
        let Some((comm, state)) = super::starter::stat_name_and_state(&stat) else {
            continue;
        };
        let zombie = matches!(state, 'Z' | 'X');
        if zombie || (comm != "git" && !comm.starts_with("git-")) {
            continue;
        }
        let cwd = match std::fs::read_link(entry.path().join("cwd")) {
            Ok(cwd) => cwd,
            // Another user's git, which may work here: say it does.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Some(true),
            // Gone, or dying (killed, its files already let go).
            Err(_) => continue,
        };
        if places.iter().any(|p| cwd.starts_with(p)) {
            return Some(true);
        }
    }
    seen_any.then_some(false)
}

/// This process and its ancestors.
fn ancestors() -> Vec<u32> {
    let mut out = vec![std::process::id()];
    while let Some(&pid) = out.last() {
        match super::starter::parent_of(pid) {
            Some(p) if p > 1 && !out.contains(&p) => out.push(p),
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_are_found_outside_ward_and_objects_only() {
        let tmp = tempfile::tempdir().unwrap();
        let git = tmp.path().join("git");
        for dir in ["refs/heads", "ward", "objects/pack", "worktrees/a"] {
            std::fs::create_dir_all(git.join(dir)).unwrap();
        }
        for file in [
            "index.lock",
            "refs/heads/x.lock",
            "worktrees/a/HEAD.lock",
            "ward/restore.lock",
            "objects/pack/x.lock",
            "objects/maintenance.lock",
            "index",
        ] {
            std::fs::write(git.join(file), "").unwrap();
        }
        let mut found = Vec::new();
        collect(&git, &git, &mut found);
        found.sort();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&git).unwrap())
            .collect();
        assert_eq!(
            names,
            [
                Path::new("index.lock"),
                Path::new("objects/maintenance.lock"),
                Path::new("refs/heads/x.lock"),
                Path::new("worktrees/a/HEAD.lock")
            ]
        );
    }

    #[test]
    fn this_process_and_its_parent_are_ancestors() {
        let ours = ancestors();
        assert_eq!(ours[0], std::process::id());
        assert_eq!(
            ours.get(1).copied(),
            Some(std::os::unix::process::parent_id())
        );
    }
}
