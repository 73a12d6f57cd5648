//! The config files git reads besides the repository's own, and the
//! includes git follows in them, as git finds them, without a git process.

use std::path::{Path, PathBuf};

use crate::env;

/// The system and user config files git reads, in order, as git finds them
/// (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_GLOBAL`, XDG, HOME),
/// without asking a git process where its installation keeps them.
pub(super) fn user_config_files() -> Vec<(PathBuf, gix::config::Source)> {
    use gix::config::Source;
    let mut out = Vec::new();
    if !env::truthy("GIT_CONFIG_NOSYSTEM") {
        let system = env::var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| "/etc/gitconfig".into());
        out.push((PathBuf::from(system), Source::System));
    }
    if let Some(global) = env::var("GIT_CONFIG_GLOBAL") {
        out.push((PathBuf::from(global), Source::User));
    } else {
        let xdg = env::var(env::XDG_CONFIG_HOME)
            .map(PathBuf::from)
            .or_else(|| env::var(env::HOME).map(|h| PathBuf::from(h).join(".config")));
        if let Some(xdg) = xdg {
            out.push((xdg.join("git/config"), Source::Git));
        }
        if let Some(home) = env::var(env::HOME) {
            out.push((PathBuf::from(home).join(".gitconfig"), Source::User));
        }
    }
    out
}

/// What git's `include.path` and `includeIf.<condition>.path` are
/// resolved against: the home directory (`~/`), the git dir (`gitdir:`,
/// `gitdir/i:`) and the branch HEAD names (`onbranch:`).
pub(super) struct Includes<'a> {
    home: Option<PathBuf>,
    git_dir: &'a Path,
    branch: Option<gix::refs::FullName>,
}

impl<'a> Includes<'a> {
    pub(super) fn of(git_dir: &'a Path, refs: &gix::RefStore) -> Includes<'a> {
        let branch = refs
            .try_find("HEAD")
            .ok()
            .flatten()
            .and_then(|head| match head.target {
                gix::refs::Target::Symbolic(name) => Some(name),
                gix::refs::Target::Object(_) => None,
            });
        Includes {
            home: env::var(env::HOME).map(PathBuf::from),
            git_dir,
            branch,
        }
    }

    /// Reads the files `file` includes into it, where git would. A file
    /// whose includes cannot all be followed keeps what was read.
    pub(super) fn follow(&self, file: &mut gix::config::File) {
        let interpolate = gix::config::path::interpolate::Context {
            home_dir: self.home.as_deref(),
            ..Default::default()
        };
        let conditional = gix::config::file::includes::conditional::Context {
            git_dir: Some(self.git_dir),
            branch_name: self.branch.as_ref().map(|b| b.as_ref()),
        };
        let options = gix::config::file::init::Options {
            includes: gix::config::file::includes::Options::follow(interpolate, conditional),
            lossy: false,
            ignore_io_errors: true,
        };
        if let Err(err) = file.resolve_includes(options) {
            tracing::debug!("config includes: {err}");
        }
    }
}

/// Follows the includes of the repository's own config, as git does (gix
/// opens it without them); a config with none costs nothing more.
pub(super) fn follow_includes(
    config: &mut gix::config::File,
    git_dir: &Path,
    refs: &gix::RefStore,
) {
    let any = ["include", "includeIf"]
        .iter()
        .any(|name| config.sections_by_name(name).is_some());
    if any {
        Includes::of(git_dir, refs).follow(config);
    }
}
