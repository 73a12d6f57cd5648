//! `git config`, and which config keys switch hooks off.

use super::normalize_key;
use super::options::parse;
use super::tables;
use crate::action::{Action, Effect};

/// Does writing this config key switch hooks off? `core.hooksPath`, and
/// `include.path`/`includeIf.<cond>.path`, which pull in a file that can
/// set it.
pub(super) fn switches_hooks_off(key: &str) -> bool {
    let key = normalize_key(key);
    key == "core.hookspath"
        || key == "include.path"
        || (key.starts_with("includeif.") && key.ends_with(".path"))
}

/// The subcommands of `git config` (git 2.46 and later).
const CONFIG_SUBCOMMANDS: &[&str] = &[
    "list",
    "get",
    "set",
    "unset",
    "rename-section",
    "remove-section",
    "edit",
    "get-color",
    "get-colorbool",
];

/// `config`, in both its forms: `get`/`list`/`--get*`/`-l`/`--get-color*`
/// and a lone key read; `set`/`unset`/`--add`/`--replace-all`/`--unset*`,
/// `<key> <value>`, the section commands and `edit` write. Writing
/// `core.hooksPath` (or an include that can carry it) switches hooks off;
/// so does renaming or removing the `core` or an `include` section.
/// `--global`, `--system` and `--file` need no repository, except when the
/// write switches hooks off or names a file it writes (so the shim still
/// decides on it).
pub(super) fn config(args: &[String], a: &mut Action) {
    let (sub, rest) = match args.first() {
        Some(s) if CONFIG_SUBCOMMANDS.contains(&s.as_str()) => (Some(s.as_str()), &args[1..]),
        _ => (None, args),
    };
    let p = parse(rest, tables::CONFIG, false);
    let words = &p.args;
    let mode = p.last_of(&[
        "get",
        "get-all",
        "get-regexp",
        "get-urlmatch",
        "list",
        "get-color",
        "get-colorbool",
        "replace-all",
        "add",
        "unset",
        "unset-all",
        "rename-section",
        "remove-section",
        "edit",
    ]);
    let mode = sub.or(mode);
    let reads = match mode {
        Some(m) => m.starts_with("get") || m == "list",
        None => words.len() < 2,
    };
    if reads {
        a.effect = Effect::Read;
    } else {
        let sections = matches!(mode, Some("rename-section" | "remove-section"));
        let touches = if sections {
            words.iter().any(|s| {
                let s = s.to_ascii_lowercase();
                s == "core" || s == "include" || s.starts_with("includeif")
            })
        } else {
            mode != Some("edit") && words.first().is_some_and(|k| switches_hooks_off(k))
        };
        if touches {
            let what = words.first().map(String::as_str).unwrap_or_default();
            a.hooks_off = Some(format!("config writes {what}, which can switch hooks off"));
        }
    }
    // The file `--file` names is written like any other output file:
    // over work, checkpointed; into the git directory or onto a policy
    // file (git's config syntax can read as TOML), refused.
    if !reads {
        if let Some(file) = p.value("file") {
            super::output::mark(a, vec![file.to_string()]);
        }
    }
    let outside = p.flag("global") || p.flag("system") || p.given("file");
    // A file it writes in the working tree is checkpointed first: the
    // shim decides on it with the repository.
    a.needs_repo = !outside || a.hooks_off.is_some() || !a.writes_files.is_empty();
}
