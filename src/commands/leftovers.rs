//! What a killed git left that stops the next one: its lock files, found
//! by `facts::stale_locks` while no git runs in the repository. `doctor
//! --fix` removes them, and so do undo and rollback before they restore:
//! the command that recovers from a kill is not stopped by what the kill
//! left (docs/faults.md).

use std::path::{Path, PathBuf};

use super::ask::Out;
use crate::facts::{self, Repo};

/// The repository's working trees: the main one and every linked one.
pub fn tops(repo: &Repo) -> Vec<PathBuf> {
    let mut tops: Vec<_> = repo.workdir().map(Path::to_path_buf).into_iter().collect();
    tops.extend(
        facts::lease::linked(repo.common_dir())
            .into_iter()
            .map(|w| w.top),
    );
    tops
}

/// Removes the lock files a killed git left; those removed, and those
/// that would not go.
pub fn clear_locks(repo: &Repo) -> (Vec<PathBuf>, Vec<PathBuf>) {
    facts::stale_locks::left_by_killed_git(repo.common_dir(), &tops(repo))
        .into_iter()
        .partition(|p| std::fs::remove_file(p).is_ok())
}

/// [`clear_locks`], said in one line when it removed any.
pub fn clear_locks_saying(repo: &Repo, out: &Out) {
    let (removed, _) = clear_locks(repo);
    if !removed.is_empty() {
        let names: Vec<String> = removed.iter().map(|p| p.display().to_string()).collect();
        out.say(&format!(
            "Removed the lock files a killed git left: {}",
            names.join(", ")
        ));
    }
}
