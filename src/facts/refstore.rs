//! Reads ref values straight from the files backend: loose ref files, then
//! `packed-refs`. A few small reads, no repository to open, which is what a
//! hook that runs for every ref update can afford. Repositories using the
//! reftable backend are read through the real git instead.

use std::path::{Path, PathBuf};

use super::Dirs;

/// A ref's value as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An object id.
    Id(String),
    /// A symbolic ref: `ref: refs/heads/main`.
    Symbolic(String),
}

/// Reads refs of one repository.
pub struct RefStore<'a> {
    dirs: &'a Dirs,
    packed: Option<Option<String>>,
    /// `packed-refs` by name, made once lookups pass [`SCANS`]: a hook
    /// asked about every ref of a big fetch would scan the file per ref.
    packed_map: Option<std::collections::HashMap<String, String>>,
    lookups: usize,
    reftable: bool,
}

/// Lookups in `packed-refs` made by scanning the text before it is indexed.
const SCANS: usize = 8;

impl<'a> RefStore<'a> {
    pub fn new(dirs: &'a Dirs) -> Self {
        RefStore {
            dirs,
            packed: None,
            packed_map: None,
            lookups: 0,
            reftable: crate::facts::uses_reftable(&dirs.common_dir),
        }
    }

    /// Per-worktree refs live in the worktree's git dir, the rest in the common one.
    fn loose_path(&self, name: &str) -> PathBuf {
        let per_worktree = !name.starts_with("refs/")
            || name.starts_with("refs/bisect/")
            || name.starts_with("refs/worktree/")
            || name.starts_with("refs/rewritten/");
        let base = if per_worktree {
            &self.dirs.git_dir
        } else {
            &self.dirs.common_dir
        };
        base.join(name)
    }

    /// The loose ref file's value, if there is one.
    pub fn loose(&self, name: &str) -> Option<Value> {
        let text = std::fs::read_to_string(self.loose_path(name)).ok()?;
        let text = text.trim();
        Some(match text.strip_prefix("ref:") {
            Some(target) => Value::Symbolic(target.trim().to_string()),
            None => Value::Id(text.to_string()),
        })
    }

    /// The value `packed-refs` holds for `name`.
    pub fn packed(&mut self, name: &str) -> Option<String> {
        if let Some(map) = &self.packed_map {
            return map.get(name).cloned();
        }
        let text = self
            .packed
            .get_or_insert_with(|| {
                std::fs::read_to_string(self.dirs.common_dir.join("packed-refs")).ok()
            })
            .as_deref()?;
        let mut entries = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
            .filter_map(|l| l.split_once(' '));
        self.lookups += 1;
        if self.lookups <= SCANS {
            return entries.find_map(|(id, refname)| (refname == name).then(|| id.to_string()));
        }
        let map: std::collections::HashMap<String, String> = entries
            .map(|(id, refname)| (refname.to_string(), id.to_string()))
            .collect();
        let found = map.get(name).cloned();
        self.packed_map = Some(map);
        found
    }

    /// The ref's stored value: loose, else packed. `None` when absent.
    pub fn raw(&mut self, name: &str) -> Option<Value> {
        if self.reftable {
            return reftable_value(self.dirs, name);
        }
        self.loose(name)
            .or_else(|| self.packed(name).map(Value::Id))
    }

    /// The ref a symbolic ref names; `None` for one that holds an id, or
    /// none. With files only a loose ref can be symbolic: `packed-refs` is
    /// not read.
    pub fn symbolic(&mut self, name: &str) -> Option<String> {
        let value = if self.reftable {
            reftable_value(self.dirs, name)
        } else {
            self.loose(name)
        };
        match value {
            Some(Value::Symbolic(target)) => Some(target),
            _ => None,
        }
    }

    /// The object id the ref resolves to, following symbolic refs.
    pub fn resolve(&mut self, name: &str) -> Option<String> {
        let mut name = name.to_string();
        for _ in 0..5 {
            match self.raw(&name)? {
                Value::Id(id) => return Some(id),
                Value::Symbolic(target) => name = target,
            }
        }
        None
    }

    /// Is `packed-refs` locked (a transaction deleting refs holds it)?
    pub fn packed_locked(&self) -> bool {
        self.dirs.common_dir.join("packed-refs.lock").exists()
    }
}

/// Through the real git, for reftable repositories.
fn reftable_value(dirs: &Dirs, name: &str) -> Option<Value> {
    let git = crate::git::Git::locate()
        .ok()?
        .env("GIT_DIR", &dirs.git_dir);
    let sym = git.output(["symbolic-ref", "-q", name]).ok()?;
    if sym.status.success() {
        let target = String::from_utf8_lossy(&sym.stdout).trim().to_string();
        return Some(Value::Symbolic(target));
    }
    let out = git
        .output(["rev-parse", "--verify", "-q", &format!("{name}^{{}}")])
        .ok()?;
    out.status
        .success()
        .then(|| Value::Id(String::from_utf8_lossy(&out.stdout).trim().to_string()))
}

/// What a fingerprint keeps of the file at `path`: its inode, size, mtime
/// and ctime (to the nanosecond), `-` when nothing is there.
///
/// The ctime is what catches a file replaced by one of the same size with
/// its timestamp kept (`cp -p`, `tar x`): every write or rename sets it,
/// and no one can set it back. One `lstat`; a symbolic link is stamped
/// with its target too (a second call, only for links), or `dangling`
/// when the target cannot be reached, which is never the same as absent.
pub fn stamp(path: &Path) -> String {
    let mut out = String::with_capacity(64);
    write_stamp(&mut out, path);
    out
}

/// [`stamp`], written at the end of `out` (no string of its own: the
/// settings cache's fingerprint holds several).
pub fn write_stamp(out: &mut String, path: &Path) {
    use std::fmt::Write;
    use std::os::unix::fs::MetadataExt;
    let of = |out: &mut String, m: &std::fs::Metadata| {
        let _ = write!(
            out,
            "{}:{}:{}.{}:{}.{}",
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec()
        );
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => out.push('-'),
        Err(e) => {
            let _ = write!(out, "error {:?}", e.kind());
        }
        Ok(link) if link.file_type().is_symlink() => {
            of(out, &link);
            out.push_str("->");
            match std::fs::metadata(path) {
                Ok(target) => of(out, &target),
                Err(e) => {
                    let _ = write!(out, "dangling {:?}", e.kind());
                }
            }
        }
        Ok(m) => of(out, &m),
    }
}

#[cfg(test)]
mod tests {
    use super::stamp;

    /// Lookups past the first few read an index of `packed-refs`: the same
    /// answers, present and absent, loose files first.
    #[test]
    fn many_lookups_in_packed_refs_answer_as_the_first_ones() {
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path().to_path_buf();
        let mut text = "# pack-refs with: peeled fully-peeled sorted \n".to_string();
        for i in 0..40 {
            text += &format!("{:040x} refs/tags/v{i}\n^{:040x}\n", i, i + 1000);
        }
        std::fs::write(common.join("packed-refs"), text).unwrap();
        std::fs::create_dir_all(common.join("refs/tags")).unwrap();
        std::fs::write(common.join("refs/tags/v3"), format!("{:040x}\n", 7777)).unwrap();
        let dirs = super::Dirs {
            git_dir: common.clone(),
            common_dir: common,
            work_tree: None,
        };
        let mut store = super::RefStore::new(&dirs);
        for round in 0..2 {
            for i in 0..40 {
                let want = if i == 3 { 7777 } else { i };
                let got = store.resolve(&format!("refs/tags/v{i}"));
                assert_eq!(got, Some(format!("{want:040x}")), "{round} {i}");
                assert_eq!(store.resolve(&format!("refs/tags/w{i}")), None);
            }
        }
        assert!(store.packed_map.is_some());
    }

    #[test]
    fn a_stamp_changes_with_every_replacement_and_tells_a_dangling_link_from_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("policy.toml");
        assert_eq!(stamp(&file), "-");
        let kept = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        let write = |text: &str| {
            std::fs::write(&file, text).unwrap();
            let f = std::fs::File::options().write(true).open(&file).unwrap();
            f.set_modified(kept).unwrap();
        };
        write("one");
        let first = stamp(&file);
        // The kernel's ctime is coarser than a nanosecond.
        std::thread::sleep(std::time::Duration::from_millis(50));
        write("two");
        assert_ne!(stamp(&file), first, "same inode, size and mtime");

        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let linked = stamp(&link);
        assert!(linked.ends_with(&stamp(&file)), "{linked}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        write("six");
        assert_ne!(stamp(&link), linked, "the target changed");
        std::fs::remove_file(&file).unwrap();
        assert!(stamp(&link).contains("dangling"), "{}", stamp(&link));
    }
}
