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

/// Does this config key say where a branch syncs from? A remote's URL
/// (`remote.<name>.url`, also of a new remote) and what its refs map to
/// (`remote.<name>.fetch`: `git push` writes remote-tracking refs through
/// it too), what it runs to read the remote (`remote.<name>.uploadpack`,
/// `.vcs`), URL rewriting
/// (`url.<base>.insteadOf`), a branch's upstream (`branch.<name>.merge`,
/// `.remote`). Protected branches sync to remote-tracking refs, so these
/// decide what a protected branch may be moved to.
pub(super) fn repoints_sync(key: &str) -> bool {
    let key = normalize_key(key);
    let (Some(first), Some(last)) = (key.find('.'), key.rfind('.')) else {
        return false;
    };
    if first == last {
        return false;
    }
    matches!(
        (&key[..first], &key[last + 1..]),
        ("remote", "url" | "fetch" | "uploadpack" | "vcs")
            | ("url", "insteadof")
            | ("branch", "merge" | "remote")
    )
}

/// The key a renamed section's new name sets that [`repoints_sync`]
/// cares about (`remote.evil` renamed to `remote.origin`: `remote.origin.url`).
fn repointed_section(section: &str) -> Option<String> {
    let (name, sub) = section.split_once('.')?;
    let key = match name.to_ascii_lowercase().as_str() {
        "remote" => "url",
        "url" => "insteadof",
        "branch" => "merge",
        _ => return None,
    };
    Some(format!("{}.{sub}.{key}", name.to_ascii_lowercase()))
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
        } else if mode == Some("edit") {
            // The editor writes whatever it likes, `core.hooksPath` too.
            a.hooks_off =
                Some("config --edit lets an editor write any key, core.hooksPath too".into());
        }
        if mode == Some("rename-section") {
            a.repoints
                .extend(words.get(1).and_then(|s| repointed_section(s)));
        } else if !sections && !matches!(mode, Some("edit" | "unset" | "unset-all")) {
            a.repoints.extend(
                words
                    .first()
                    .filter(|k| repoints_sync(k))
                    .map(|k| normalize_key(k)),
            );
        }
    }
    // The file `--file` names is written like any other output file:
    // over work, checkpointed; into the git directory or onto a policy
    // file (git's config syntax can read as TOML), refused.
    // So is the one the environment names: `GIT_CONFIG` stands for
    // `--file` where no other place is given, `GIT_CONFIG_GLOBAL` and
    // `GIT_CONFIG_SYSTEM` for what `--global` and `--system` write.
    if !reads {
        let from_env = |var: &str| std::env::var(var).ok().filter(|f| !f.is_empty());
        let file = if let Some(file) = p.value("file") {
            Some(file.to_string())
        } else if p.flag("global") {
            from_env("GIT_CONFIG_GLOBAL")
        } else if p.flag("system") {
            from_env("GIT_CONFIG_SYSTEM")
        } else if !(p.flag("local") || p.flag("worktree") || p.given("blob")) {
            from_env("GIT_CONFIG")
        } else {
            None
        };
        if let Some(file) = file {
            super::output::mark(a, vec![file]);
        }
    }
    let outside = p.flag("global") || p.flag("system") || p.given("file");
    // A file it writes in the working tree is checkpointed first: the
    // shim decides on it with the repository.
    a.needs_repo =
        !outside || a.hooks_off.is_some() || !a.writes_files.is_empty() || !a.repoints.is_empty();
}
