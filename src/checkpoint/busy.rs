//! One restore at a time per working tree: `git ward undo` and `rollback`
//! hold an exclusive `flock` on `<git-dir>/ward/restore.lock` from before
//! they read what to restore until their record is written, so a second
//! one started meanwhile says so plainly instead of failing half-way on
//! what the first one is writing, or undoing the same command again.
//!
//! The kernel holds the lock, not the file: it goes with the process,
//! however that ends (killed too), and two processes can never both think
//! they took it. The file stays; it holds the holder's process id, for
//! the message only.

use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;

use crate::error::{Error, IoContext, Result};

/// The lock, released when dropped (or when the process ends).
pub struct Restoring(#[allow(dead_code)] std::fs::File);

impl Restoring {
    /// Takes the lock of the working tree whose git directory is
    /// `git_dir`, or says which process holds it.
    pub fn take(git_dir: &std::path::Path, what: &str) -> Result<Restoring> {
        let dir = git_dir.join("ward");
        std::fs::create_dir_all(&dir).at("create the directory", &dir)?;
        let path = dir.join("restore.lock");
        // Never through a link planted in its place.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&path)
            .at("open", &path)?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(err).at("lock", &path);
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!(" (process {pid})"),
                Err(_) => String::new(),
            };
            return Err(Error::internal(format!(
                "{what}: another `git ward undo` or `rollback`{holder} is changing this working tree"
            ))
            .with_hint("wait for it to finish, then run this again"));
        }
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = writeln!(file, "{}", std::process::id());
        Ok(Restoring(file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_free_once_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let first = Restoring::take(tmp.path(), "undo").unwrap();
        let second = Restoring::take(tmp.path(), "undo").err().unwrap();
        let pid = std::process::id().to_string();
        assert!(second.message.contains(&pid), "{}", second.message);
        drop(first);
        Restoring::take(tmp.path(), "undo").unwrap();
    }

    #[test]
    fn a_link_in_its_place_is_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::write(&elsewhere, "keep\n").unwrap();
        std::fs::create_dir_all(tmp.path().join("ward")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, tmp.path().join("ward/restore.lock")).unwrap();
        assert!(Restoring::take(tmp.path(), "undo").is_err());
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "keep\n");
    }
}
