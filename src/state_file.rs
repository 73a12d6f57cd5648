//! git-ward's small state files under `<git-common-dir>/ward/` (the
//! settings cache, the team layer's text, checkpoint numbers).

use std::path::Path;

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
