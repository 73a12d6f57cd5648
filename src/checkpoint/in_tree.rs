//! Paths in the working tree as the kernel takes them, however deep.
//!
//! git works from the top of the working tree, so a file whose path from
//! there is shorter than `PATH_MAX` is an ordinary file to it, even when
//! its absolute path is longer. Such a file must not drop out of a
//! checkpoint or a restore because git-ward names it from `/`: past that
//! length it is named through a descriptor of the working tree held open
//! for the rest of the process (`/proc/self/fd/<n>/<path>` on Linux).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The longest path the kernel takes, its closing NUL not counted.
const LONGEST: usize = libc::PATH_MAX as usize - 1;

/// `rel` (from the top of the working tree `workdir`) as a path to hand to
/// the filesystem: `workdir` joined with it, or, when that is too long,
/// the same file reached through a descriptor of `workdir`.
pub fn in_tree(workdir: &Path, rel: &[u8]) -> PathBuf {
    let full = workdir.join(OsStr::from_bytes(rel));
    if full.as_os_str().len() <= LONGEST || rel.is_empty() {
        return full;
    }
    match held(workdir) {
        Some(fd) if cfg!(target_os = "linux") => {
            let mut through = PathBuf::from(format!("/proc/self/fd/{fd}"));
            through.push(OsStr::from_bytes(rel));
            through
        }
        _ => full,
    }
}

/// A descriptor of `dir`, opened once and kept open (close-on-exec).
fn held(dir: &Path) -> Option<RawFd> {
    static HELD: OnceLock<Mutex<HashMap<PathBuf, OwnedFd>>> = OnceLock::new();
    let mut held = HELD.get_or_init(Default::default).lock().ok()?;
    if let Some(fd) = held.get(dir) {
        return Some(fd.as_raw_fd());
    }
    let fd = OwnedFd::from(std::fs::File::open(dir).ok()?);
    let raw = fd.as_raw_fd();
    held.insert(dir.to_path_buf(), fd);
    Some(raw)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_file_deeper_than_path_max_is_reached_from_the_top() {
        let tmp = tempfile::tempdir().unwrap();
        let top = &tmp.path().join("t".repeat(200)).join("o".repeat(200));
        std::fs::create_dir_all(top).unwrap();
        let dir = vec!["d".repeat(200); 19].join("/");
        let rel = format!("{dir}/file");
        assert!(top.join(&rel).as_os_str().len() > LONGEST);
        std::fs::create_dir_all(in_tree(top, dir.as_bytes())).unwrap();
        std::fs::write(in_tree(top, rel.as_bytes()), "deep\n").unwrap();
        assert_eq!(
            std::fs::read(in_tree(top, rel.as_bytes())).unwrap(),
            b"deep\n"
        );
        assert!(std::fs::read(top.join(&rel)).is_err(), "too long from /");
        assert_eq!(in_tree(top, b"a/b"), top.join("a/b"));
    }
}
