//! Taking and giving back a worktree's lease (`<git-dir>/ward/lease`).
//!
//! Both happen under `flock` on `<git-dir>/ward/lease.lock`, so two
//! sessions starting at once never both think they hold the worktree: one
//! takes it, the other finds it live.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::error::{IoContext, Result};
use crate::facts::lease::{self, Lease, State};

/// What taking the lease came to.
pub enum Taken {
    /// This session holds it; a stale lease it replaced, if there was one.
    Held(Holding, Option<Lease>),
    /// A session this one runs inside holds it already (`git ward run`
    /// started from a session's own command).
    Nested,
    /// A live session holds it.
    Busy(Lease),
}

/// The lease this session holds, given back when dropped.
pub struct Holding {
    git_dir: PathBuf,
    session: String,
}

/// An exclusive `flock` on the worktree's lease lock, held as long as the
/// file returned is open.
fn lock(git_dir: &Path) -> Result<std::fs::File> {
    let dir = git_dir.join("ward");
    std::fs::create_dir_all(&dir).at("create the directory", &dir)?;
    let path = dir.join("lease.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .at("open", &path)?;
    // SAFETY: flock on a descriptor this function owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error()).at("lock", &path);
    }
    Ok(file)
}

/// Takes the lease of the worktree whose git dir is `git_dir` for `new`.
pub fn take(git_dir: &Path, new: Lease) -> Result<Taken> {
    let _locked = lock(git_dir)?;
    let old = lease::read(git_dir);
    let stale = match old {
        Some(old) if old.state() == State::Live => {
            let inside = crate::audit::session()
                .as_ref()
                .is_some_and(|s| *s == old.session);
            return Ok(if inside {
                Taken::Nested
            } else {
                Taken::Busy(old)
            });
        }
        other => other,
    };
    let path = lease::path(git_dir);
    let bytes = serde_json::to_vec(&new).unwrap_or_default();
    crate::state_file::replace(&path, &bytes).at("write", &path)?;
    Ok(Taken::Held(
        Holding {
            git_dir: git_dir.to_path_buf(),
            session: new.session,
        },
        stale,
    ))
}

impl Drop for Holding {
    fn drop(&mut self) {
        let Ok(_locked) = lock(&self.git_dir) else {
            return;
        };
        // Another session took it over (this one was taken for gone): theirs now.
        if lease::read(&self.git_dir).is_some_and(|l| l.session == self.session) {
            let _ = std::fs::remove_file(lease::path(&self.git_dir));
        }
    }
}
