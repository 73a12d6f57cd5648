//! Paths a restore takes from a checkpoint, validated as git validates an
//! index entry's path before it writes one.
//!
//! A checkpoint is a commit under `refs/ward/`, and its tree and trailers
//! are whatever that commit holds: `git mktree` takes entries named `..`
//! and `.git`. A restore writes only paths that git itself would check
//! out: relative, no empty, `.` or `..` component, and no component git
//! reads as its own directory (`.git` in any case, the NTFS forms `.git.`,
//! `.git  ` and `git~1`, and the HFS+ form with ignorable code points).

/// Why git would refuse `path` (bytes, `/`-separated, from the top of the
/// working tree) as an index path; `None` when it takes it.
pub fn refusal(path: &[u8]) -> Option<&'static str> {
    if path.is_empty() {
        return Some("an empty path");
    }
    if path.starts_with(b"/") {
        return Some("an absolute path");
    }
    if path.contains(&0) {
        return Some("a NUL byte in the path");
    }
    for component in path.split(|b| *b == b'/') {
        match component {
            b"" => return Some("an empty path component"),
            b"." => return Some("a `.` component"),
            b".." => return Some("a `..` component, which leads out of the working tree"),
            c if is_dot_git(c) => {
                return Some("a `.git` component, which git reads as its own directory")
            }
            _ => {}
        }
    }
    None
}

/// Is this component one git refuses as `.git`: in any case, with NTFS's
/// trailing dots and spaces or alternate stream (`.git::$INDEX_ALLOCATION`),
/// NTFS's short name `git~1`, or HFS+'s ignored code points inside?
pub fn is_dot_git(component: &[u8]) -> bool {
    let lower = component.to_ascii_lowercase();
    if lower == b".git" || lower == b"git~1" {
        return true;
    }
    if let Some(rest) = lower.strip_prefix(b".git") {
        if rest.iter().all(|b| *b == b' ' || *b == b'.') || rest.starts_with(b":") {
            return true;
        }
    }
    hfs_dot_git(component)
}

/// `.git` once the code points HFS+ ignores in names are dropped (as git's
/// `is_hfs_dotgit`).
fn hfs_dot_git(component: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(component) else {
        return false;
    };
    if text.is_ascii() {
        return false;
    }
    let kept: String = text
        .chars()
        .filter(|c| !is_hfs_ignorable(*c))
        .flat_map(char::to_lowercase)
        .collect();
    kept == ".git"
}

fn is_hfs_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_index_paths_only() {
        for ok in [
            &b"a.txt"[..],
            b"dir/a.txt",
            b".gitignore",
            b"sub/.gitattributes",
            b".github/workflows/ci.yml",
            b"..a",
            b"a..",
            b"git~2",
            b"r\xe9sum\xe9",
            b"a b/c",
        ] {
            assert_eq!(refusal(ok), None, "{}", String::from_utf8_lossy(ok));
        }
        for bad in [
            &b""[..],
            b"/etc/passwd",
            b"../x",
            b"a/../../x",
            b"..",
            b"./a",
            b"a//b",
            b"a/",
            b".git/hooks/post-commit",
            b".GIT/config",
            b"sub/.Git/hooks/x",
            b".git./hooks",
            b".git  /x",
            b"GIT~1/config",
            b".git::$INDEX_ALLOCATION/x",
            ".g\u{200c}it/hooks".as_bytes(),
            "\u{feff}.GIT/x".as_bytes(),
            b"a\0b",
        ] {
            assert!(refusal(bad).is_some(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
