//! The install record: `<git-common-dir>/ward/install.json`, written by
//! `git ward install`, and the hooks directory it means in this repository
//! (a moved or copied repository keeps the original's record).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What `install.json` records.
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    #[serde(with = "json_path")]
    pub hooks_dir: PathBuf,
    pub hooks: Vec<String>,
    #[serde(with = "json_path")]
    pub binary: PathBuf,
}

/// A path in `install.json`: a string where it is UTF-8, else its bytes
/// (a list of numbers), so that a repository at any path keeps its record.
mod json_path {
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(path: &Path, out: S) -> Result<S::Ok, S::Error> {
        match path.to_str() {
            Some(text) => out.serialize_str(text),
            None => out.collect_seq(path.as_os_str().as_bytes()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<PathBuf, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Bytes(Vec<u8>),
        }
        Ok(match Form::deserialize(input)? {
            Form::Text(text) => PathBuf::from(text),
            Form::Bytes(bytes) => PathBuf::from(OsString::from_vec(bytes)),
        })
    }
}

pub(crate) fn manifest_path(common: &Path) -> PathBuf {
    common.join("ward").join("install.json")
}

/// The install record as written, its hooks directory as recorded: see
/// [`manifest_of`] for the one this repository means.
pub(crate) fn read_manifest(common: &Path) -> Option<Manifest> {
    let text = crate::state_file::read_bounded(&manifest_path(common), crate::state_file::MAX_READ)
        .ok()?;
    serde_json::from_slice(&text).ok()
}

/// This repository's install record, naming the hooks directory it means
/// here ([`own_hooks_dir`], with git's config read in process: no git runs).
pub(crate) fn manifest_of(repo: &crate::facts::Repo) -> Option<Manifest> {
    let mut manifest = read_manifest(repo.common_dir())?;
    let now = runs_hooks_from(repo)?;
    let own: Vec<&Path> = [Some(repo.common_dir()), repo.workdir()]
        .into_iter()
        .flatten()
        .collect();
    manifest.hooks_dir = own_hooks_dir(&manifest.hooks_dir, &now, &own);
    Some(manifest)
}

/// The hooks directory an install record means in this repository: the
/// one it names when git runs hooks from there now (`now`), or when it
/// lies in this repository (`own`: its git directory and working trees;
/// `core.hooksPath` changed since the install); else `now`. A repository
/// moved or copied (`mv proj proj2`, `cp -a proj scratch`) keeps its
/// record, which names the hooks directory by its old absolute path: one
/// that is gone, or another repository's (the original, or one made since
/// at the old path). uninstall, doctor and the shim never act on that one.
pub(crate) fn own_hooks_dir(recorded: &Path, now: &Path, own: &[&Path]) -> PathBuf {
    let within = |place: &&Path| {
        recorded.starts_with(place) || resolved(recorded).starts_with(resolved(place))
    };
    match recorded == now || own.iter().any(within) {
        true => recorded.to_path_buf(),
        false => now.to_path_buf(),
    }
}

/// Where git runs this repository's hooks, from its config:
/// `core.hooksPath` (relative: from the top of the working tree, where
/// git runs hooks), else `<git-common-dir>/hooks`. `None` when the value
/// starts with `~/` and HOME is not set.
pub(crate) fn runs_hooks_from(repo: &crate::facts::Repo) -> Option<PathBuf> {
    let Some((value, _)) = repo.hooks_path() else {
        return Some(repo.common_dir().join("hooks"));
    };
    Some(match value.strip_prefix("~/") {
        Some(rest) => PathBuf::from(crate::env::var(crate::env::HOME)?).join(rest),
        None => repo.workdir().unwrap_or(repo.git_dir()).join(&value),
    })
}

/// The hooks git-ward's install record names in this repository: none
/// where `git ward install` never ran, or `git ward uninstall` did. Unlike
/// [`health`], this tells a repository without hooks from one whose hooks
/// are all well.
pub fn installed_hooks(repo: &crate::facts::Repo) -> Vec<String> {
    read_manifest(repo.common_dir()).map_or_else(Vec::new, |m| m.hooks)
}

/// When `core.hooksPath` sends git to another directory than the one
/// git-ward's hooks were installed in (set after the install, say in the
/// global config), git never runs them: that, as a problem.
pub fn hooks_run_elsewhere(repo: &crate::facts::Repo) -> Option<String> {
    run_elsewhere(repo, &manifest_of(repo)?)
}

pub(crate) fn run_elsewhere(repo: &crate::facts::Repo, manifest: &Manifest) -> Option<String> {
    let installed = manifest.hooks_dir.as_path();
    let (_, scope) = repo.hooks_path()?;
    let dir = runs_hooks_from(repo)?;
    (!(same_file(&dir, installed) || dir == installed)).then(|| {
        format!(
            "git runs hooks from {} (core.hooksPath in the {scope} config), not from {}, where git-ward's hooks are: they do not run (`git ward doctor` says what to do)",
            dir.display(),
            installed.display()
        )
    })
}

/// `path` with its links resolved as far as it exists.
pub(crate) fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => resolved(parent).join(name),
        _ => path.to_path_buf(),
    }
}

/// Do two paths name the same existing file (through any links)?
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// The line that marks a hook script as git-ward's (a link to a `git-ward*` file is ours too).
pub(crate) const MARKER: &str = "# git-ward hook:";

/// Is the file at `path` one of git-ward's hooks?
pub fn is_ward_hook(path: &Path) -> bool {
    ours(path).is_some()
}

/// A hook file of git-ward's, from one look at it: `Some(program)` for the
/// `#!` form (the program it starts), `Some(None)` for the other forms,
/// `None` when it is not git-ward's (or not there).
pub(crate) fn ours(path: &Path) -> Option<Option<PathBuf>> {
    if let Ok(target) = std::fs::read_link(path) {
        let named = target
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("git-ward"));
        return named.then_some(None);
    }
    let text = super::gates::head_text(path)?;
    let mut lines = text.lines();
    let first = lines.next()?;
    lines.next()?.starts_with(MARKER).then(|| {
        let program = first.strip_prefix("#!")?.strip_suffix(" hook")?;
        Some(PathBuf::from(program))
    })
}

/// The default shim directory: `$XDG_DATA_HOME/git-ward/shim`.
pub fn default_shim_dir() -> Option<PathBuf> {
    let base = crate::env::var(crate::env::XDG_DATA_HOME)
        .map(PathBuf::from)
        .or_else(|| {
            crate::env::var(crate::env::HOME).map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(base.join("git-ward").join("shim"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_install_record_keeps_any_path() {
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"/r/caf\xe9/.git/hooks"));
        let manifest = Manifest {
            hooks_dir: odd.to_path_buf(),
            hooks: vec!["pre-commit".into()],
            binary: PathBuf::from("/opt/bin/git-ward"),
        };
        let text = serde_json::to_string(&manifest).unwrap();
        assert!(text.contains("\"binary\":\"/opt/bin/git-ward\""), "{text}");
        assert_eq!(serde_json::from_str::<Manifest>(&text).unwrap(), manifest);
    }

    #[test]
    fn a_record_names_this_repositorys_hooks_or_where_git_runs_them() {
        let now = Path::new("/copy/.husky/_");
        let own = [Path::new("/copy/.git"), Path::new("/copy")];
        let here = |recorded: &str| own_hooks_dir(Path::new(recorded), now, &own);
        assert_eq!(here("/copy/.husky/_"), now);
        // core.hooksPath changed since the install: the record says where.
        assert_eq!(here("/copy/.git/hooks"), Path::new("/copy/.git/hooks"));
        // Copied or moved: the original's, or one gone.
        assert_eq!(here("/orig/.husky/_"), now);
        assert_eq!(here("/orig/.git/hooks"), now);
    }
}
