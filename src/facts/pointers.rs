//! The repository pointers a command's environment sets beyond where the
//! repository is: `GIT_OBJECT_DIRECTORY`,
//! `GIT_ALTERNATE_OBJECT_DIRECTORIES` and `GIT_INDEX_FILE`, each compared
//! with the repository's own. (`GIT_DIR`, `GIT_COMMON_DIR` and
//! `GIT_WORK_TREE` choose the repository and working tree `Repo` opens,
//! so they are judged as that repository: [`super::context`] for the
//! hooks git runs there, a checkpoint of the working tree git writes.)
//!
//! Only environment variables are read, and paths resolved only where
//! one is set: nothing is read for a command whose environment sets none.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::decide::Pointers;
use crate::env;

/// The object store git writes this command's objects to.
const OBJECTS: &str = "GIT_OBJECT_DIRECTORY";
/// Object stores git reads this command's objects from besides.
const ALTERNATES: &str = "GIT_ALTERNATE_OBJECT_DIRECTORIES";
/// The index this command reads and writes.
const INDEX: &str = "GIT_INDEX_FILE";

/// The pointers of this process's environment that lead away from the
/// repository whose git directory is `git_dir` and common one
/// `common_dir`; relative paths as git reads them, from `base`: the
/// working tree's top (git moves there before it opens the index or the
/// object store), else the directory the command starts in.
pub fn read(git_dir: &Path, common_dir: &Path, base: &Path, hash: gix::hash::Kind) -> Pointers {
    let own = git_dir.join("index");
    Pointers {
        objects: foreign_objects(common_dir, base),
        alternates: foreign_alternates(common_dir, base),
        index: env::var_os(INDEX)
            .map(|i| base.join(i))
            .filter(|i| !same_path(i, &own) && tracks_more(i, &own, base, hash)),
    }
}

/// Does the index at `other` track a file on disk (under `top`) that the
/// repository's index at `own` does not? Such a file is untracked, or
/// ignored, to a checkpoint of the repository's index, and the command
/// may delete it. An index that cannot be read may: yes; one that is not
/// there is empty: no.
fn tracks_more(other: &Path, own: &Path, top: &Path, hash: gix::hash::Kind) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if std::fs::symlink_metadata(other).is_err() {
        return false;
    }
    let open = |path: &Path| {
        let options = gix::index::decode::Options {
            thread_limit: Some(1),
            ..Default::default()
        };
        gix::index::File::at(path, hash, true, options).ok()
    };
    let Some(other) = open(other) else {
        return true;
    };
    let own = open(own);
    other.entries().iter().any(|e| {
        let path = e.path(&other);
        let known = own
            .as_ref()
            .is_some_and(|own| own.entry_by_path(path).is_some());
        !known && std::fs::symlink_metadata(top.join(std::ffi::OsStr::from_bytes(path))).is_ok()
    })
}

/// [`read`]'s two object stores alone, for the reference-transaction
/// hook (whose git runs in the working tree's top or the git directory):
/// refs an agent's git moves there would name objects the repository's
/// own store may lack.
pub fn store_elsewhere(common_dir: &Path) -> Option<String> {
    if !store_pointed() {
        return None;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let pointers = Pointers {
        objects: foreign_objects(common_dir, &cwd),
        alternates: foreign_alternates(common_dir, &cwd),
        index: None,
    };
    pointers.store_elsewhere()
}

/// Does the environment name an object store at all (no path read)?
pub fn store_pointed() -> bool {
    env::present(OBJECTS) || env::present(ALTERNATES)
}

/// `GIT_OBJECT_DIRECTORY`, unless it is the repository's own store.
fn foreign_objects(common_dir: &Path, cwd: &Path) -> Option<PathBuf> {
    env::var_os(OBJECTS)
        .map(|dir| cwd.join(dir))
        .filter(|dir| !same_path(dir, &common_dir.join("objects")))
}

/// `GIT_ALTERNATE_OBJECT_DIRECTORIES`, unless every store it lists (`:`
/// between them) is the repository's own.
fn foreign_alternates(common_dir: &Path, cwd: &Path) -> Option<OsString> {
    use std::os::unix::ffi::OsStrExt;
    let list = env::var_os(ALTERNATES)?;
    let own = common_dir.join("objects");
    let foreign = list
        .as_bytes()
        .split(|b| *b == b':')
        .filter(|d| !d.is_empty())
        .any(|d| !same_path(&cwd.join(std::ffi::OsStr::from_bytes(d)), &own));
    foreign.then_some(list)
}

/// The same file or directory: the same device and inode where both
/// exist, else the same path.
fn same_path(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_directory_by_another_path_is_the_same() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = tmp.path().join("objects");
        std::fs::create_dir(&objects).unwrap();
        assert!(same_path(&tmp.path().join("./objects"), &objects));
        assert!(!same_path(&tmp.path().join("other"), &objects));
    }
}
