//! A git command line, as git itself would parse it, turned into an [`Action`].
//!
//! Pure: argv slices and a [`Context`] of facts about the repository in,
//! plain data out. Two steps, because the aliases a command line may use
//! live in the config of the repository that its global options (`-C`,
//! `--git-dir`) select:
//!
//! 1. [`parse_globals`] splits git's global options from the subcommand,
//!    as git's `handle_options` does;
//! 2. [`classify`] resolves aliases as git's `handle_alias` does, then reads
//!    the subcommand's own flags as git's parse-options does (`options.rs`)
//!    and says what the command does (one file per family of commands).
//!
//! Where git itself decides between readings by looking at the repository
//! (`git checkout x`: a branch, a commit, or a path?), the [`Context`] answers;
//! where nothing can answer, the reading that guards more wins, and the doc
//! comment of the command's function says so.

mod commands;
mod config;
mod history;
mod names;
mod options;
mod output;
mod refs;
mod refspec;
mod remote;
mod tables;
mod worktree;

pub use commands::overwrites_ignored;
pub use names::{is_command, is_read as always_reads};
pub use output::may_write_file;
pub use refspec::{fetch_line, push_repository, source_for, FetchLine};
pub use worktree::{STASH_PUSH, WORKTREE_PRUNE};

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;

use crate::action::{Action, Effect};

/// git's global options, as given before the subcommand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Globals {
    /// `-C <dir>`, in order (each is relative to the one before).
    pub chdir: Vec<PathBuf>,
    /// `--git-dir`.
    pub git_dir: Option<PathBuf>,
    /// `--work-tree`.
    pub work_tree: Option<PathBuf>,
    /// `-c key=value` (a bare `-c key` means `true`); keys lower-cased in section and name.
    pub config: Vec<(String, String)>,
    /// `--config-env=key=ENVVAR`.
    pub config_env: Vec<(String, String)>,
    /// `--bare`.
    pub bare: bool,
    /// `--version`, `--help`, `--exec-path` alone, `--html-path` ...: needs no repository.
    pub informational: bool,
    /// `--[no-]literal-pathspecs`, `--[no]glob-pathspecs`, `--icase-pathspecs`:
    /// pathspecs mean something else than by default.
    pub pathspec_magic: bool,
    /// `--namespace`: refs are read and written under `refs/namespaces/`,
    /// a local remote's too.
    pub namespace: bool,
    /// `--exec-path=<dir>`: git runs its helpers (`git-upload-pack` for a
    /// local remote) from there.
    pub exec_path: Option<OsString>,
}

impl Globals {
    /// Neither `--git-dir`, `--work-tree` nor configuration (`-c`,
    /// `--config-env`) on the command line: git finds the repository, and
    /// reads its settings, as it would for a plain `git <command>` here.
    pub fn plain(&self) -> bool {
        self.git_dir.is_none()
            && self.work_tree.is_none()
            && self.config.is_empty()
            && self.config_env.is_empty()
    }
}

/// A command line split into global options and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitArgs {
    pub globals: Globals,
    /// The subcommand and its arguments; empty for `git` alone.
    pub rest: Vec<OsString>,
}

/// Global options that take the next word, or `=value`.
const GLOBAL_VALUE: &[&str] = &[
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--attr-source",
    "--super-prefix",
];

/// Splits git's global options from the subcommand, as git's `handle_options` does.
///
/// `--help`, `-h`, `--version` and `-v` end the options and stay in `rest`:
/// git runs them as the commands `help` and `version`. An option git does
/// not know makes git refuse the line; it is skipped here so that the rest
/// is still read.
pub fn parse_globals(args: &[OsString]) -> GitArgs {
    let mut globals = Globals::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].to_string_lossy();
        if !arg.starts_with('-') {
            break;
        }
        if matches!(arg.as_ref(), "--help" | "-h" | "--version" | "-v") {
            globals.informational = true;
            break;
        }
        let next = args.get(i + 1);
        if matches!(arg.as_ref(), "-C" | "-c" | "--shallow-file") {
            if let Some(value) = next {
                match arg.as_ref() {
                    "-C" if !value.is_empty() => globals.chdir.push(PathBuf::from(value)),
                    "-c" => globals.config.push(split_config(&value.to_string_lossy())),
                    _ => {}
                }
            }
            i += 2;
            continue;
        }
        if let Some(rest) = arg.strip_prefix("--exec-path") {
            let Some(dir) = rest.strip_prefix('=') else {
                // Prints git's exec path and exits.
                globals.informational = true;
                i = args.len();
                break;
            };
            globals.exec_path = Some(OsString::from(dir));
            i += 1;
            continue;
        }
        if matches!(arg.as_ref(), "--html-path" | "--man-path" | "--info-path")
            || arg.starts_with("--list-cmds=")
        {
            globals.informational = true;
            i = args.len();
            break;
        }
        if let Some((name, value)) = global_value(&arg, next) {
            i += if arg.contains('=') { 1 } else { 2 };
            let Some(value) = value else { continue };
            match name {
                "--git-dir" => globals.git_dir = Some(PathBuf::from(value)),
                "--work-tree" => globals.work_tree = Some(PathBuf::from(value)),
                "--namespace" => globals.namespace = true,
                "--config-env" => {
                    if let Some((k, var)) = value.rsplit_once('=') {
                        globals.config_env.push((normalize_key(k), var.to_string()));
                    }
                }
                _ => {}
            }
            continue;
        }
        if arg == "--bare" {
            globals.bare = true;
        }
        if arg.ends_with("-pathspecs") {
            globals.pathspec_magic = true;
        }
        // -p, --paginate, -P, --no-pager, --no-lazy-fetch, --no-replace-objects,
        // --bare, --[no-]literal-pathspecs, --glob-pathspecs, --noglob-pathspecs,
        // --icase-pathspecs, --no-optional-locks, --no-advice take no value;
        // neither does an unknown option here (git refuses it).
        i += 1;
    }
    GitArgs {
        globals,
        rest: args[i.min(args.len())..].to_vec(),
    }
}

/// `--git-dir=x` or `--git-dir x`: the option's name and its value.
fn global_value(arg: &str, next: Option<&OsString>) -> Option<(&'static str, Option<String>)> {
    GLOBAL_VALUE.iter().find_map(|name| {
        if let Some(v) = arg.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            Some((*name, Some(v.to_string())))
        } else if arg == *name {
            Some((*name, next.map(|n| n.to_string_lossy().into_owned())))
        } else {
            None
        }
    })
}

/// `core.hooksPath=x` into (`core.hookspath`, `x`); a bare key means `true`.
pub fn split_config(kv: &str) -> (String, String) {
    match kv.split_once('=') {
        Some((k, v)) => (normalize_key(k), v.to_string()),
        None => (normalize_key(kv), "true".to_string()),
    }
}

/// Config keys are case-insensitive in section and name (not in a subsection).
pub fn normalize_key(key: &str) -> String {
    match (key.find('.'), key.rfind('.')) {
        (Some(first), Some(last)) if first != last => format!(
            "{}{}{}",
            key[..first].to_ascii_lowercase(),
            &key[first..last],
            key[last..].to_ascii_lowercase()
        ),
        _ => key.to_ascii_lowercase(),
    }
}

/// Does git read this boolean value as false (`false`, `no`, `off`, `0`,
/// in any case)? Anything else it accepts is true; an empty value is left
/// to the caller, which knows which way to err.
pub(crate) fn says_false(value: &str) -> bool {
    matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0"
    )
}

/// What the classifier needs to know about the repository, gathered by the
/// caller so that classifying stays pure.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// `alias.*` from the repository's config files, names lower-cased.
    /// `-c alias.x=...` and the environment's pairs are read from the
    /// command line and `env_config` and win over these.
    pub aliases: &'a HashMap<String, String>,
    /// Config pairs the environment carries to git (`GIT_CONFIG_COUNT` with
    /// `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`).
    pub env_config: &'a [(String, String)],
    /// Configured remote names (`origin`); `["origin"]` outside a repository.
    pub remotes: &'a [String],
    /// The current branch's short name; `None` when detached or unknown.
    pub current_branch: Option<&'a str>,
    /// Does a local branch of this short name exist?
    pub is_local_branch: &'a dyn Fn(&str) -> bool,
    /// Does git resolve this revision to an object (`v1.0`, `abc1234`,
    /// `refs/remotes/origin/x`)? Asked only where git itself decides between
    /// a revision and a path by resolving the name.
    pub is_revision: &'a dyn Fn(&str) -> bool,
    /// Every value of a config key (normalized as [`normalize_key`] does)
    /// in the config files git reads, system first, the repository's last;
    /// a key given without `= value` reads `true`. [`classify`] adds the
    /// environment's and the command line's. Asked for what a `push` with
    /// no refspec sends (`remote.<name>.mirror`, `remote.<name>.push`,
    /// `push.default`, `branch.<name>.merge` ...).
    pub config: &'a dyn Fn(&str) -> Vec<String>,
    /// Is `GIT_NAMESPACE` set in the environment?
    pub env_namespace: bool,
    /// `GIT_EXEC_PATH` from the environment, when set.
    pub env_exec_path: Option<&'a std::ffi::OsStr>,
    /// Is this directory the exec path the real git was built with? The
    /// caller asks git (`git --exec-path`); asked only for a command that
    /// syncs with an exec path given.
    pub is_own_exec_path: &'a dyn Fn(&std::ffi::OsStr) -> bool,
}

/// How deep aliases may nest before git-ward stops following them.
const MAX_ALIAS_DEPTH: usize = 64;

/// Classifies a split command line.
///
/// Aliases resolve as in git: only names that are not git commands, the
/// value split like a shell word list (`split_cmdline`), global options at
/// its front honoured (`alias.nv = -c core.hooksPath=/dev/null commit`), the
/// user's words appended, again until a command is reached. A `!shell`
/// alias, a loop, a value git cannot split, and an empty alias are
/// [`Effect::Unknown`]. (git runs a `git-<name>` program on PATH before an
/// alias of the same name; PATH is not known here, so the alias wins.)
pub fn classify(git: &GitArgs, ctx: &Context) -> Action {
    let mut words: Vec<String> = git
        .rest
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    let mut aliases: HashMap<String, String> = ctx.aliases.clone();
    // Command-line config (`-c`, also at the front of an alias), after the
    // environment's, which it overrides.
    let mut config: Vec<(String, String)> = git.globals.config.clone();
    let mut config_env = git.globals.config_env.clone();
    let mut alias: Option<String> = None;
    let mut alias_given = false;
    let mut given: std::collections::HashSet<String> = Default::default();
    let mut seen: Vec<String> = Vec::new();

    loop {
        for (key, value) in ctx.env_config.iter().chain(&config) {
            if let Some(name) = key.strip_prefix("alias.") {
                aliases.insert(name.to_ascii_lowercase(), value.clone());
                given.insert(name.to_ascii_lowercase());
            }
        }
        let Some(first) = words.first() else { break };
        if names::is_command(first) {
            break;
        }
        let Some(value) = aliases.get(&first.to_ascii_lowercase()).cloned() else {
            break;
        };
        let name = first.clone();
        // Any alias along the way defined for this command alone counts.
        alias_given |= given.contains(&name.to_ascii_lowercase());
        alias.get_or_insert_with(|| name.clone());
        let looped = seen.contains(&name) || seen.len() >= MAX_ALIAS_DEPTH;
        seen.push(name.clone());
        let split = split_cmdline(&value).filter(|_| !value.starts_with('!') && !looped);
        let Some(split) = split else {
            let mut a = unknown(
                &name,
                alias,
                hooks_off_by_config(ctx.env_config, &config, &config_env),
            );
            if value.starts_with('!') {
                // Its commands run git as a child of git, past the shim.
                a.destructive = Some(format!(
                    "the shell alias '{name}' runs commands git-ward cannot see"
                ));
            }
            a.alias_given = alias_given;
            return a;
        };
        let inner = parse_globals(&split.into_iter().map(OsString::from).collect::<Vec<_>>());
        config.extend(inner.globals.config);
        config_env.extend(inner.globals.config_env);
        if inner.rest.is_empty() {
            let mut a = unknown(
                &name,
                alias,
                hooks_off_by_config(ctx.env_config, &config, &config_env),
            );
            a.alias_given = alias_given;
            return a;
        }
        let expansion = inner.rest.iter().map(|w| w.to_string_lossy().into_owned());
        words = expansion.chain(words.into_iter().skip(1)).collect();
    }

    // Settings a command reads for itself: the files', then the
    // environment's, then the command line's (`-c`, also an alias's, and
    // `--config-env`, whose variable is read as git would).
    let values = |key: &str| {
        let mut values = (ctx.config)(key);
        values.extend(
            ctx.env_config
                .iter()
                .chain(&config)
                .filter(|(k, _)| k == key)
                .map(|(_, v)| v.clone()),
        );
        values.extend(
            config_env
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, var)| std::env::var(var).unwrap_or_default()),
        );
        values
    };
    let ctx = &Context {
        config: &values,
        ..*ctx
    };
    let mut action = commands::classify_words(&words, ctx, git.globals.informational);
    action.alias = alias;
    action.alias_given = alias_given;
    if action.hooks_off.is_none() {
        action.hooks_off = hooks_off_by_config(ctx.env_config, &config, &config_env);
    }
    let excludes_given = ctx
        .env_config
        .iter()
        .chain(&config)
        .chain(&config_env)
        .any(|(k, _)| k.eq_ignore_ascii_case("core.excludesFile"));
    if excludes_given {
        commands::overwrites_ignored(&mut action);
    }
    // Config given for this one command that says where branches sync from.
    let given = ctx.env_config.iter().chain(&config).chain(&config_env);
    for (key, _) in given {
        if config::repoints_sync(key) && !action.repoints.contains(key) {
            action.repoints.push(key.clone());
        }
    }
    // A namespace reaches a local remote's upload-pack too, which then
    // serves `refs/namespaces/<ns>/refs/heads/main` as its `main`.
    if action.syncs && (git.globals.namespace || ctx.env_namespace) {
        action.repoints.push("GIT_NAMESPACE".to_string());
    }
    // So does another exec path, whose `git-upload-pack` may serve any
    // repository as a local remote (what `--upload-pack` does). git sets
    // its own for the commands it starts (aliases, hooks): that one is
    // git's, asked only when one is set.
    if action.syncs {
        let given = git
            .globals
            .exec_path
            .clone()
            .or_else(|| ctx.env_exec_path.map(std::ffi::OsStr::to_os_string))
            // Empty, git takes its own.
            .filter(|dir| !dir.is_empty());
        if given.is_some_and(|dir| !(ctx.is_own_exec_path)(&dir)) {
            action.repoints.push(EXEC_PATH.to_string());
        }
    }
    action
}

/// The name [`Action::repoints`] gives an exec path other than git's own.
pub const EXEC_PATH: &str = "GIT_EXEC_PATH";

/// A `!shell` alias, an alias loop, or one git cannot expand.
fn unknown(name: &str, alias: Option<String>, hooks_off: Option<String>) -> Action {
    Action {
        effect: Effect::Unknown,
        alias,
        hooks_off,
        ..Action::mutating(name)
    }
}

/// Config given for this one command that switches hooks off:
/// `core.hooksPath`, or an `include.path` that can carry it, from `-c`,
/// `--config-env` or the environment.
fn hooks_off_by_config(
    env: &[(String, String)],
    config: &[(String, String)],
    config_env: &[(String, String)],
) -> Option<String> {
    let hit = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .rev()
            .find(|(k, _)| config::switches_hooks_off(k))
            .cloned()
    };
    if let Some((k, v)) = hit(config) {
        return Some(format!("sets {k}={v} for the command"));
    }
    if let Some((k, var)) = hit(config_env) {
        return Some(format!("sets {k} from ${var} for the command"));
    }
    hit(env).map(|(k, v)| format!("the environment sets {k}={v} (GIT_CONFIG_*)"))
}

/// git's `split_cmdline`: words split at whitespace outside quotes, `'...'`
/// literal, `"..."` and bare words with backslash escapes. `None` for an
/// unclosed quote or a trailing backslash (git refuses the alias).
pub(crate) fn split_cmdline(line: &str) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    let mut quoted: Option<char> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted.is_none() && c.is_ascii_whitespace() {
            while chars.peek().is_some_and(|n| n.is_ascii_whitespace()) {
                chars.next();
            }
            words.push(String::new());
        } else if quoted.is_none() && (c == '\'' || c == '"') {
            quoted = Some(c);
        } else if Some(c) == quoted {
            quoted = None;
        } else {
            let c = if c == '\\' && quoted != Some('\'') {
                chars.next()?
            } else {
                c
            };
            if let Some(last) = words.last_mut() {
                last.push(c);
            }
        }
    }
    if quoted.is_some() {
        return None;
    }
    Some(words)
}

#[cfg(test)]
mod tests;
