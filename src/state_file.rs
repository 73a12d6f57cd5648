//! git-ward's small state files under `<git-common-dir>/ward/` (the
//! settings cache, the team layer's text, checkpoint numbers).

use std::io::Read;
use std::path::Path;

/// The most git-ward reads of a policy or state file: anything larger is
/// not one of its files.
pub const MAX_READ: u64 = 16 << 20;

/// Reads a file git-ward keeps, or is pointed at, whole, if it is a
/// regular file (symbolic links followed) of at most `max` bytes: a FIFO,
/// a device (`/dev/zero`) or a larger file is an error, never a hang or an
/// endless read. A missing file is `NotFound`, as for `std::fs::read`.
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    // Room for the whole file and the read that finds its end: two reads,
    // where growing from nothing takes one per doubling.
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize + 1);
    std::fs::File::open(path)?
        .take(max + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(bytes)
}

/// A small file the kernel makes (`/proc/<pid>/stat`, `cmdline`), whose
/// size it reports as 0: read into a page-sized buffer, one `read` for the
/// text and one for its end (`std::fs::read` would start from 32 bytes and
/// double, a call each time).
pub fn read_proc(path: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(4096);
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The remotes an agent added (`git remote add` through the shim), one
/// name a line in `<git-common-dir>/ward/agent-remotes`: protected
/// branches never sync from them.
pub fn agent_remotes(common_dir: &Path) -> Vec<String> {
    read_text(&common_dir.join("ward").join("agent-remotes"))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Changes [`agent_remotes`] as `change` says (a name with a newline is
/// not kept).
pub fn change_agent_remotes(
    common_dir: &Path,
    change: impl FnOnce(&mut Vec<String>),
) -> std::io::Result<()> {
    let before = agent_remotes(common_dir);
    let mut names = before.clone();
    change(&mut names);
    names.retain(|n| !n.is_empty() && !n.contains('\n'));
    names.dedup();
    if names == before {
        return Ok(());
    }
    let path = common_dir.join("ward").join("agent-remotes");
    if names.is_empty() {
        return std::fs::remove_file(&path);
    }
    let mut text = names.join("\n");
    text.push('\n');
    replace(&path, text.as_bytes())
}

/// [`read_bounded`] as UTF-8 text, at most [`MAX_READ`] bytes.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, MAX_READ)?)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Replaces `path` with `bytes` whole: written aside (`<name>.<pid>`) and
/// renamed, so that a reader sees the old content or the new, never a
/// part. Creates the directory; leaves no aside file behind on failure.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("not a file path"));
    };
    std::fs::create_dir_all(dir)?;
    let mut aside = name.to_os_string();
    aside.push(format!(".{}", std::process::id()));
    let aside = dir.join(aside);
    let written = std::fs::write(&aside, bytes).and_then(|()| std::fs::rename(&aside, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&aside);
    }
    written
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_regular_files_only_and_only_so_much() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(super::read_bounded(&file, 5).unwrap(), b"12345");
        assert!(super::read_bounded(&file, 4).is_err());
        assert!(super::read_bounded(dir.path(), 5).is_err());
        assert!(super::read_bounded(std::path::Path::new("/dev/zero"), 5).is_err());
        let gone = super::read_bounded(&dir.path().join("gone"), 5).unwrap_err();
        assert_eq!(gone.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn replaces_whole_and_leaves_nothing_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ward").join("state");
        super::replace(&path, b"one").unwrap();
        super::replace(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state"]);
    }
}
