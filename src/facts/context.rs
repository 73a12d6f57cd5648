//! The context a command runs in, as far as the hooks
//! git will run for it: git itself is asked where it will run hooks from,
//! once with everything the command carries (its global options, config
//! in the environment, the files `HOME`, `XDG_CONFIG_HOME` and
//! `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM` name, includes, the repository
//! pointers `GIT_DIR` and `GIT_COMMON_DIR`), once as the person set the
//! repository up (none of those; the home recorded when the hooks were
//! installed). Where git-ward's hooks are in the second and not the first,
//! the command switches them off, by whatever route.
//!
//! Asked only on the mutating path, and only when the command's context
//! differs from a person's in something git reads for it: most commands
//! start no process here.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use crate::classify::Globals;
use crate::decide::Pointers;
use crate::env;
use crate::facts::Repo;
use crate::git::Git;

/// Variables that change which repository, or which config, git reads.
const MOVERS: &[&str] = &[
    "GIT_DIR",
    "GIT_COMMON_DIR",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

/// The file, in the common git directory, that records the home a person
/// installed the hooks from: `HOME`, a NUL, `XDG_CONFIG_HOME`.
fn record_path(common_dir: &Path) -> PathBuf {
    common_dir.join("ward").join("config-home")
}

/// Records the home whose config files are the person's own (`git ward
/// install` run by a person); an agent's install records nothing.
pub fn record_config_home(common_dir: &Path) {
    if env::agent_marked() {
        return;
    }
    let mut bytes = env::var_os(env::HOME).unwrap_or_default().into_vec();
    bytes.push(0);
    bytes.extend(
        env::var_os(env::XDG_CONFIG_HOME)
            .unwrap_or_default()
            .into_vec(),
    );
    let _ = crate::state_file::replace(&record_path(common_dir), &bytes);
}

/// [`record_config_home`] where nothing is recorded yet (`git ward doctor`
/// run by a person, in a repository whose hooks were installed before the
/// record was kept).
pub fn record_config_home_once(common_dir: &Path) {
    if std::fs::symlink_metadata(record_path(common_dir)).is_err() {
        record_config_home(common_dir);
    }
}

/// The recorded (`HOME`, `XDG_CONFIG_HOME`), each `None` where it was unset.
fn recorded_config_home(common_dir: &Path) -> Option<(Option<OsString>, Option<OsString>)> {
    let bytes =
        crate::state_file::read_bounded(&record_path(common_dir), crate::state_file::MAX_READ)
            .ok()?;
    let mut parts = bytes.splitn(2, |b| *b == 0);
    let home = parts.next().unwrap_or_default();
    let xdg = parts.next().unwrap_or_default();
    let some = |b: &[u8]| (!b.is_empty()).then(|| OsStr::from_bytes(b).to_owned());
    Some((some(home), some(xdg)))
}

/// The context one command runs in, resolved once, for a command that
/// changes something (the read-only path resolves nothing): what `decide`
/// needs of it.
pub struct Resolved {
    /// Why git would run no hook of git-ward's for it, as a clause.
    pub hooks_off: Option<String>,
    /// The environment's pointers away from the repository's object store
    /// and index (an agent's command only).
    pub pointers: Pointers,
}

/// Resolves the context of a command in `repo`, in this order, stopping
/// at the first route that switches hooks off: config from the
/// environment and the files it names, a hook manager's variables, a git
/// directory made by hand, and
/// for an agent git's own answer for the hooks directory (started only
/// where the context differs from a person's). `global_args` are the
/// command line's words before the subcommand, as written.
pub fn resolve(
    repo: Option<&Repo>,
    globals: &Globals,
    global_args: &[OsString],
    agent: bool,
) -> Resolved {
    let Some(repo) = repo else {
        return Resolved {
            hooks_off: super::env_hooks_off(),
            pointers: Pointers::default(),
        };
    };
    let hooks_off = super::env_hooks_off()
        .or_else(|| super::gates::manager_env_off(repo))
        .or_else(|| super::made_git_dir_hooks_off(repo))
        .or_else(|| {
            let real = Git::locate().ok().filter(|_| agent)?;
            hooks_off(&real, globals, global_args, repo.common_dir())
        });
    let pointers = match agent {
        true => {
            let cwd = crate::facts::effective_cwd(globals);
            let base = repo.workdir().unwrap_or(&cwd);
            super::pointers::read(repo.git_dir(), repo.common_dir(), base, repo.object_hash())
        }
        false => Pointers::default(),
    };
    Resolved {
        hooks_off,
        pointers,
    }
}

/// Why git would run no hook of git-ward's for this command where a
/// person's git would: as a clause for the denial. `global_args` are the
/// command line's words before the subcommand, as written; `common_dir`
/// the repository's as git-ward opened it.
fn hooks_off(
    real: &Git,
    globals: &Globals,
    global_args: &[OsString],
    common_dir: &Path,
) -> Option<String> {
    let moved = !globals.plain()
        || MOVERS.iter().any(|v| env::present(v))
        || recorded_config_home(common_dir).is_some_and(|r| home_moved(&r));
    if !moved {
        return None;
    }
    let guarded = person_hooks_dir(real, globals)?;
    if !holds_ward_hooks(&guarded) {
        return None;
    }
    let mut args = global_args.to_vec();
    args.extend(PROBE.iter().map(OsString::from));
    let runs = real
        .as_the_command(&args)
        .output()
        .ok()
        .and_then(|o| lines(o).pop());
    match runs {
        Some(dir) if super::install_record::same_file(&dir, &guarded) => None,
        Some(dir) => Some(format!(
            "for this command git would run hooks from {}, not from {}, where git-ward's hooks are",
            dir.display(),
            guarded.display()
        )),
        None => Some(format!(
            "git cannot say where it would run hooks from for this command; git-ward's are in {}",
            guarded.display()
        )),
    }
}

/// `git` with the home recorded at install, for git-ward's own calls in
/// this repository: the config files of an agent's own `HOME` or
/// `XDG_CONFIG_HOME` (an ignore-everything `core.excludesFile`, a filter)
/// reach only the command, never a checkpoint or a restore.
pub fn in_person_home(git: Git, common_dir: &Path) -> Git {
    match recorded_config_home(common_dir).filter(home_moved) {
        Some((home, xdg)) => git
            .env_or_unset(env::HOME, home.as_deref())
            .env_or_unset(env::XDG_CONFIG_HOME, xdg.as_deref()),
        None => git,
    }
}

/// Does git read other global or system config files for this command
/// than a person's: files `GIT_CONFIG_GLOBAL` or `GIT_CONFIG_SYSTEM` name,
/// or a home other than the one recorded at install?
pub fn config_files_moved(common_dir: &Path) -> bool {
    env::present("GIT_CONFIG_GLOBAL")
        || env::present("GIT_CONFIG_SYSTEM")
        || recorded_config_home(common_dir).is_some_and(|r| home_moved(&r))
}

/// Has the home moved from the recorded one?
fn home_moved((home, xdg): &(Option<OsString>, Option<OsString>)) -> bool {
    *home != env::var_os(env::HOME) || *xdg != env::var_os(env::XDG_CONFIG_HOME)
}

/// Where a person's git runs hooks from in the repository found from the
/// command's directory: no repository pointers, no config from the
/// environment, the recorded home.
fn person_hooks_dir(real: &Git, globals: &Globals) -> Option<PathBuf> {
    let person = real
        .clone()
        .detached_from_env()
        .in_dir(crate::facts::effective_cwd(globals));
    let mut args = vec!["rev-parse", "--path-format=absolute", "--git-common-dir"];
    args.extend(&PROBE[1..]);
    let [common, hooks] = <[PathBuf; 2]>::try_from(lines(person.output(&args).ok()?)).ok()?;
    match recorded_config_home(&common).filter(home_moved) {
        None => Some(hooks),
        Some((home, xdg)) => {
            let person = person
                .env_or_unset(env::HOME, home.as_deref())
                .env_or_unset(env::XDG_CONFIG_HOME, xdg.as_deref());
            lines(person.output(PROBE).ok()?).pop()
        }
    }
}

/// What git is asked: the hooks directory, as an absolute path.
const PROBE: &[&str] = &["rev-parse", "--path-format=absolute", "--git-path", "hooks"];

/// The paths git printed, one a line; none when it failed.
fn lines(out: std::process::Output) -> Vec<PathBuf> {
    if !out.status.success() {
        return Vec::new();
    }
    out.stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| PathBuf::from(OsString::from_vec(l.to_vec())))
        .collect()
}

/// Does `dir` hold a hook of git-ward's (its marker line in a gate hook)?
fn holds_ward_hooks(dir: &Path) -> bool {
    ["reference-transaction", "pre-commit", "pre-push"]
        .iter()
        .any(|name| super::install_record::is_ward_hook(&dir.join(name)))
}
