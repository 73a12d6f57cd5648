//! The team layer's text, remembered per commit.
//!
//! The team policy is `.ward/policy.toml` as committed on the first
//! protected branch that exists. Reading it from the object store (the
//! commit, its trees, the blob: each inflated, perhaps from a delta chain
//! in a large pack) is a fifth of a mutating command's work in the shim,
//! on every command. What it yields is fixed by the id the branch points
//! at, so `<git-common-dir>/ward/team-policy.cache` keeps the answer for
//! that id: the branch, the id, and the file's bytes or their absence. A branch that
//! moved, a missing or unreadable file: read from the objects again.
//! (Whoever can write that file can write the local layer, which overrides
//! the team layer anyway.)

use std::path::{Path, PathBuf};

fn path(common_dir: &Path) -> PathBuf {
    common_dir.join("ward").join("team-policy.cache")
}

/// The remembered answer for `branch` at `id`: `Some(None)` when it has no
/// team policy, `Some(Some(bytes))` when it has; `None` when not remembered.
pub fn read(common_dir: &Path, branch: &str, id: &str) -> Option<Option<Vec<u8>>> {
    let bytes =
        crate::state_file::read_bounded(&path(common_dir), crate::state_file::MAX_READ).ok()?;
    let mut parts = bytes.splitn(4, |&b| b == b'\n');
    if parts.next()? != branch.as_bytes() || parts.next()? != id.as_bytes() {
        return None;
    }
    match (parts.next()?, parts.next()) {
        (b"none", _) => Some(None),
        (b"text", Some(policy)) => Some(Some(policy.to_vec())),
        _ => None,
    }
}

/// Remembers the answer for `branch` at `id`, the file's bytes as they are
/// (best effort: a failure to write only means reading from the objects
/// next time).
pub fn write(common_dir: &Path, branch: &str, id: &str, policy: Option<&[u8]>) {
    if branch.contains('\n') {
        return;
    }
    let mut body = match policy {
        Some(_) => format!("{branch}\n{id}\ntext\n"),
        None => format!("{branch}\n{id}\nnone\n"),
    }
    .into_bytes();
    body.extend_from_slice(policy.unwrap_or_default());
    let _ = crate::state_file::replace(&path(common_dir), &body);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_branch_and_id() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        let text = b"[branches]\nprotected = [\"x\"]\n";
        assert_eq!(read(common, "main", "a1"), None);
        write(common, "main", "a1", Some(text));
        assert_eq!(read(common, "main", "a1"), Some(Some(text.to_vec())));
        assert_eq!(read(common, "main", "b2"), None, "the branch moved");
        assert_eq!(read(common, "master", "a1"), None, "another branch");
        write(common, "main", "b2", None);
        assert_eq!(read(common, "main", "b2"), Some(None));
        std::fs::write(path(common), "main\nb2\ngarbage").unwrap();
        assert_eq!(read(common, "main", "b2"), None);
        // Bytes that are not UTF-8 come back as they were, to be refused.
        write(common, "main", "c3", Some(b"x = \"\xe9\"\n"));
        assert_eq!(
            read(common, "main", "c3"),
            Some(Some(b"x = \"\xe9\"\n".to_vec()))
        );
    }
}
