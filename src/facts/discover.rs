//! Finding the repository from any directory inside it, as git does, without
//! opening it.
//!
//! [`Dirs::find`] looks at one directory, which is all the hooks need (git
//! runs them at the top of the working tree). The shim's read-only fast path
//! also runs from subdirectories and after `-C`, so it walks up the way
//! git's `setup_git_directory` does: at each level a `.git` directory, a
//! `.git` file saying `gitdir: <path>`, or the directory itself being a
//! bare repository.
//!
//! The walk is conservative: whatever git might resolve differently gives
//! `None`, and the caller takes the full road, which opens the repository as
//! git would. That covers the environment choosing the repository or
//! bounding the search (`GIT_DIR`, `GIT_WORK_TREE`, `GIT_CEILING_DIRECTORIES`
//! ...), a filesystem boundary before the repository is found, a `.git`
//! that is not a repository git would accept, a repository whose config
//! sets `core.worktree` (or any other `worktree` key), and a start inside a
//! git dir.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::Dirs;

/// Variables that change where git looks for the repository or what it
/// accepts there: with any of them set, discovery is left to the full road.
const DISCOVERY_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_OBJECT_DIRECTORY",
];

/// What one directory of the walk says.
enum Level {
    /// No repository here: look at the parent.
    Nothing,
    /// The repository git would use.
    Found(Dirs),
    /// Something git might read otherwise: stop, take the full road.
    Unusual,
}

impl Dirs {
    /// The repository git would find from `start`, walking up; `None` when
    /// there is none or when in doubt. `start` is a physical path, as
    /// `getcwd` gives it (git walks up from there, not through symlinks).
    pub fn discover(start: &Path) -> Option<Dirs> {
        if DISCOVERY_ENV
            .iter()
            .any(|name| std::env::var_os(name).is_some())
        {
            return None;
        }
        let device = std::fs::metadata(start).ok()?.dev();
        let mut dir = start;
        loop {
            match level(dir) {
                Level::Found(dirs) => return Some(dirs),
                Level::Unusual => return None,
                Level::Nothing => {}
            }
            dir = dir.parent()?;
            if std::fs::metadata(dir).ok()?.dev() != device {
                return None; // git stops at a filesystem boundary
            }
        }
    }
}

/// Looks at one directory: its `.git` first, then the directory itself.
fn level(dir: &Path) -> Level {
    let dot_git = dir.join(".git");
    match std::fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => return found(dot_git, Some(dir)),
        Ok(meta) if meta.is_file() => {
            return match gitfile_target(&dot_git) {
                Some(git_dir) => found(git_dir, Some(dir)),
                None => Level::Unusual,
            };
        }
        Ok(_) => return Level::Unusual,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return Level::Unusual,
    }
    if !dir.join("HEAD").exists() {
        return Level::Nothing;
    }
    // A git dir reached from inside it: bare, or a worktree's own `.git`
    // (git then has no working tree), or a linked worktree's admin dir.
    let inside_dot_git = dir.file_name().is_some_and(|n| n == ".git");
    if inside_dot_git || dir.join("commondir").exists() {
        return Level::Unusual;
    }
    found(dir.to_path_buf(), None)
}

/// The path a `.git` file points to (`gitdir: <path>`, relative to the
/// file's directory).
fn gitfile_target(dot_git: &Path) -> Option<PathBuf> {
    let target = super::path_in_file(dot_git, b"gitdir:")?;
    Some(dot_git.parent().unwrap_or(dot_git).join(target))
}

/// The directories for a git dir git would accept as a repository (a valid
/// `HEAD`, `objects` and `refs` in the common dir) with a configuration that
/// agrees with how it was found: bare when there is no working tree, not
/// bare when there is one, and no `worktree` key.
fn found(git_dir: PathBuf, work_tree: Option<&Path>) -> Level {
    let common_dir = match super::path_in_file(&git_dir.join("commondir"), b"") {
        Some(common) => git_dir.join(common),
        None => git_dir.clone(),
    };
    let valid = std::fs::read_to_string(git_dir.join("HEAD")).is_ok_and(|t| valid_head(&t))
        && common_dir.join("objects").is_dir()
        && common_dir.join("refs").is_dir();
    let config = std::fs::read_to_string(common_dir.join("config")).unwrap_or_default();
    if !valid || !config_agrees(&config, work_tree.is_none()) {
        return Level::Unusual;
    }
    // Canonical, so that every worktree names the shared files alike.
    let (Ok(git_dir), Ok(common_dir)) = (git_dir.canonicalize(), common_dir.canonicalize()) else {
        return Level::Unusual;
    };
    Level::Found(Dirs {
        git_dir,
        common_dir,
        work_tree: work_tree.map(Path::to_path_buf),
    })
}

/// A `HEAD` git accepts: `ref: refs/...` or an object id (git's
/// `validate_headref`).
fn valid_head(text: &str) -> bool {
    if let Some(target) = text.strip_prefix("ref:") {
        return target.trim_start().starts_with("refs/");
    }
    text.bytes().take_while(u8::is_ascii_hexdigit).count() >= 40
}

/// Does the repository config agree with the repository found? Read line by
/// line, loosely, and strictly in what it accepts: a `bare` key must say
/// `true` for a bare repository and `false` (or be absent) otherwise, and
/// any `worktree` key (`core.worktree`, `extensions.worktreeConfig`) is
/// left to the full road.
fn config_agrees(config: &str, bare: bool) -> bool {
    let mut bare_values = Vec::new();
    for line in config.lines() {
        let line: String = line
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if line.contains("worktree") {
            return false;
        }
        if let Some(value) = line.strip_prefix("bare=") {
            bare_values.push(value.to_string());
        }
    }
    if bare {
        !bare_values.is_empty() && bare_values.iter().all(|v| v == "true")
    } else {
        bare_values.iter().all(|v| v == "false")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_git_accepts() {
        assert!(valid_head("ref: refs/heads/main\n"));
        assert!(valid_head("ref:refs/heads/main"));
        assert!(valid_head(&format!("{}\n", "a".repeat(40))));
        assert!(valid_head(&"0".repeat(64)));
        assert!(!valid_head("ref: HEAD\n"));
        assert!(!valid_head("abc\n"));
        assert!(!valid_head(""));
    }

    #[test]
    fn config_must_agree_with_how_the_repository_was_found() {
        let plain = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
        assert!(config_agrees(plain, false));
        assert!(!config_agrees(plain, true));
        assert!(config_agrees("", false));
        assert!(!config_agrees("", true));
        assert!(config_agrees("[core]\n\tbare = true\n", true));
        assert!(!config_agrees("[core]\n\tbare = yes\n", true));
        assert!(!config_agrees("[core]\n\tbare = true\n", false));
        assert!(!config_agrees("[core]\n\tworktree = /elsewhere\n", false));
        assert!(!config_agrees(
            "[extensions]\n\tworktreeConfig = true\n",
            false
        ));
    }
}
