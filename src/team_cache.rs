//! The team layer's text, remembered per commit.
//!
//! The team policy is `.ward/policy.toml` as committed on the first
//! protected branch that exists. Reading it from the object store (the
//! commit, its trees, the blob: each inflated, perhaps from a delta chain
//! in a large pack) is a fifth of a mutating command's work in the shim,
//! on every command. What it yields is fixed by the id the branch points
//! at, so `<git-common-dir>/ward/team-policy.cache` keeps the answer for
//! that id: the branch, the id, and the text or its absence. A branch that
//! moved, a missing or unreadable file: read from the objects again.
//! (Whoever can write that file can write the local layer, which overrides
//! the team layer anyway.)

use std::path::{Path, PathBuf};

fn path(common_dir: &Path) -> PathBuf {
    common_dir.join("ward").join("team-policy.cache")
}

/// The remembered answer for `branch` at `id`: `Some(None)` when it has no
/// team policy, `Some(Some(text))` when it has; `None` when not remembered.
pub fn read(common_dir: &Path, branch: &str, id: &str) -> Option<Option<String>> {
    let bytes =
        crate::state_file::read_bounded(&path(common_dir), crate::state_file::MAX_READ).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut parts = text.splitn(4, '\n');
    if parts.next()? != branch || parts.next()? != id {
        return None;
    }
    match (parts.next()?, parts.next()) {
        ("none", _) => Some(None),
        ("text", Some(policy)) => Some(Some(policy.to_string())),
        _ => None,
    }
}

/// Remembers the answer for `branch` at `id` (best effort: a failure to
/// write only means reading from the objects next time).
pub fn write(common_dir: &Path, branch: &str, id: &str, policy: Option<&str>) {
    if branch.contains('\n') {
        return;
    }
    let body = match policy {
        Some(text) => format!("{branch}\n{id}\ntext\n{text}"),
        None => format!("{branch}\n{id}\nnone\n"),
    };
    let _ = crate::state_file::replace(&path(common_dir), body.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_per_branch_and_id() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        assert_eq!(read(common, "main", "a1"), None);
        write(
            common,
            "main",
            "a1",
            Some("[branches]\nprotected = [\"x\"]\n"),
        );
        assert_eq!(
            read(common, "main", "a1"),
            Some(Some("[branches]\nprotected = [\"x\"]\n".to_string()))
        );
        assert_eq!(read(common, "main", "b2"), None, "the branch moved");
        assert_eq!(read(common, "master", "a1"), None, "another branch");
        write(common, "main", "b2", None);
        assert_eq!(read(common, "main", "b2"), Some(None));
        std::fs::write(path(common), "main\nb2\ngarbage").unwrap();
        assert_eq!(read(common, "main", "b2"), None);
    }
}
