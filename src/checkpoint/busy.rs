//! One restore at a time per working tree: `git ward undo` and `rollback`
//! hold `<git-dir>/ward/restore.lock` while they change files, so a second
//! one started meanwhile says so plainly instead of failing half-way on
//! what the first one is writing (or redoing what it just undid).

use std::io::Write;
use std::path::PathBuf;

use crate::error::{Error, IoContext, Result};

/// The lock, removed when dropped.
pub struct Restoring(PathBuf);

impl Restoring {
    /// Takes the lock of the working tree whose git directory is
    /// `git_dir`. One left by a process that no longer runs is taken over.
    pub fn take(git_dir: &std::path::Path, what: &str) -> Result<Restoring> {
        let dir = git_dir.join("ward");
        std::fs::create_dir_all(&dir).at("create the directory", &dir)?;
        let path = dir.join("restore.lock");
        for _ in 0..2 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    let _ = writeln!(file, "{}", std::process::id());
                    return Ok(Restoring(path));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let holder = crate::state_file::read_text(&path)
                        .ok()
                        .and_then(|t| t.trim().parse::<libc::pid_t>().ok());
                    match holder {
                        Some(pid) if super::snapshot::pid_runs(pid) => {
                            return Err(Error::internal(format!(
                                "{what}: another `git ward undo` or `rollback` (process {pid}) is changing this working tree"
                            ))
                            .with_hint("wait for it to finish, then run this again"));
                        }
                        // Gone (or never written): taken over.
                        _ => {
                            let _ = std::fs::remove_file(&path);
                        }
                    }
                }
                Err(e) => return Err(e).at("create", &path),
            }
        }
        Err(
            Error::internal(format!("{what}: cannot take {}", path.display())).with_hint(
                "remove it if no `git ward undo` or `rollback` runs, then run this again",
            ),
        )
    }
}

impl Drop for Restoring {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
