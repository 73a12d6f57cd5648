//! The `git fast-import` stream of a checkpoint: commits built from a
//! starting tree plus `M` (put) and `D` (delete) lines, in git's own
//! quoting. Pure text, so it is tested without a repository.

use super::cquote::quote;

/// What a path holds after an edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blob {
    /// An object already in the repository (a blob, or a commit for a gitlink).
    Id(String),
    /// A file still to be hashed: its place in the `hash-object` list.
    Pending(usize),
    /// A symbolic link's target, stored as git stores one (the raw bytes).
    Link(Vec<u8>),
}

/// One change to a tree: put `(mode, blob)` at `path`, or delete it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub path: Vec<u8>,
    pub put: Option<(String, Blob)>,
}

impl Edit {
    pub fn put(path: &[u8], mode: &str, blob: Blob) -> Edit {
        Edit {
            path: path.to_vec(),
            put: Some((mode.to_string(), blob)),
        }
    }

    pub fn delete(path: &[u8]) -> Edit {
        Edit {
            path: path.to_vec(),
            put: None,
        }
    }
}

/// A commit of the stream.
pub struct Commit<'a> {
    /// Where fast-import keeps it (the ref it updates at the end).
    pub branch: &'a str,
    pub mark: u32,
    /// `<name> <<email>> <date>`, as fast-import's date format reads it.
    pub author: &'a str,
    pub committer: &'a str,
    pub message: &'a str,
    /// The first parent (its tree is where the edits start), then the others:
    /// commit ids, or marks as `:<n>`.
    pub parents: &'a [String],
    /// Applied in order; within each list deletions go first, so a file
    /// deleted where a directory is added (or the reverse) ends right.
    pub edits: &'a [&'a [Edit]],
    /// The ids `hash-object` gave, for [`Blob::Pending`].
    pub hashed: &'a [String],
}

/// Appends a `commit` command, ended by a blank line.
pub fn commit(out: &mut Vec<u8>, c: &Commit) {
    let msg = c.message.as_bytes();
    out.extend_from_slice(
        format!(
            "commit {}\nmark :{}\nauthor {}\ncommitter {}\ndata {}\n",
            c.branch,
            c.mark,
            c.author,
            c.committer,
            msg.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(msg);
    out.push(b'\n');
    let mut parents = c.parents.iter();
    if let Some(first) = parents.next() {
        out.extend_from_slice(format!("from {first}\n").as_bytes());
    }
    for p in parents {
        out.extend_from_slice(format!("merge {p}\n").as_bytes());
    }
    for edits in c.edits.iter().copied() {
        for e in edits.iter().filter(|e| e.put.is_none()) {
            out.extend_from_slice(b"D ");
            out.extend_from_slice(&quote(&e.path));
            out.push(b'\n');
        }
        for e in edits {
            let Some((mode, blob)) = &e.put else {
                continue;
            };
            match blob {
                Blob::Id(id) => out.extend_from_slice(format!("M {mode} {id} ").as_bytes()),
                // A missing id makes fast-import fail loudly, never drop the path.
                Blob::Pending(i) => {
                    let id = c.hashed.get(*i).map(String::as_str).unwrap_or("");
                    out.extend_from_slice(format!("M {mode} {id} ").as_bytes())
                }
                Blob::Link(_) => out.extend_from_slice(format!("M {mode} inline ").as_bytes()),
            }
            out.extend_from_slice(&quote(&e.path));
            out.push(b'\n');
            if let Blob::Link(target) = blob {
                out.extend_from_slice(format!("data {}\n", target.len()).as_bytes());
                out.extend_from_slice(target);
                out.push(b'\n');
            }
        }
    }
    out.push(b'\n');
}

/// Asks for the root tree of a marked commit and for its id (two answer lines).
pub fn ask_tree_and_id(out: &mut Vec<u8>, mark: u32) {
    out.extend_from_slice(format!("ls :{mark} \"\"\nget-mark :{mark}\n").as_bytes());
}

/// The tree id in an `ls` answer (`040000 tree <id>\t`).
pub fn tree_of_answer(line: &str) -> Option<String> {
    let mut w = line.split_whitespace();
    match (w.next(), w.next(), w.next()) {
        (Some("040000"), Some("tree"), Some(id)) => Some(id.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_deletes_before_it_puts() {
        let staged = [Edit::put(b"a/x", "100644", Blob::Pending(0))];
        let worktree = [
            Edit::put(b"l", "120000", Blob::Link(b"target".to_vec())),
            Edit::delete(b"a"),
        ];
        let parents = ["h".to_string(), ":1".to_string()];
        let mut out = Vec::new();
        commit(
            &mut out,
            &Commit {
                branch: "refs/ward/checkpoints/chk-local-1",
                mark: 2,
                author: "w <w@l> now",
                committer: "w <w@l> now",
                message: "cp\n",
                parents: &parents,
                edits: &[&staged, &worktree],
                hashed: &["b1".to_string()],
            },
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "commit refs/ward/checkpoints/chk-local-1\nmark :2\nauthor w <w@l> now\n\
             committer w <w@l> now\ndata 3\ncp\n\nfrom h\nmerge :1\n\
             M 100644 b1 a/x\nD a\nM 120000 inline l\ndata 6\ntarget\n\n"
        );
        assert_eq!(
            tree_of_answer("040000 tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\t"),
            Some("4b825dc642cb6eb9a060e54bf8d69288fbee4904".into())
        );
        assert_eq!(tree_of_answer("missing x"), None);
    }
}
