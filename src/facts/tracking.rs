//! Where a remote-tracking ref comes from: the fact behind
//! [`RefChange::fetched`](crate::decide::refs::RefChange::fetched).
//!
//! A protected branch syncs to `refs/remotes/<remote>/<name>`, so the hook
//! asks of every write of one by an agent whether it is `git fetch` bringing
//! that remote's branch `<name>`: the git that runs the hook is a fetch
//! (also the one `pull` and `remote update` start), from a configured remote
//! of that name, and every refspec that maps onto the ref (the command
//! line's, `--refmap`, `remote.<name>.fetch`, also from `-c`) maps
//! `refs/heads/<name>` there. A push records what the remote accepted
//! through the same `remote.<name>.fetch`, held to the same rule; a clone
//! starts a repository of its own. Not with `GIT_NAMESPACE` (a local
//! remote then serves other refs as its branches) nor another upload-pack
//! given for the command. The same question tells a fetch into a
//! protected branch (`fetch origin main:main`) from one that writes another
//! branch's value there.

use std::ffi::OsString;

use super::Dirs;
use crate::classify::{fetch_line, parse_globals, push_repository, source_for, split_cmdline};
use crate::facts::Repo;
use crate::policy::tracking_readings;

/// Aliases followed before giving up on a command word.
const MAX_ALIASES: usize = 10;

/// Does the git that runs this hook (`argv`) write `refname` from its own
/// remote's branch of the same name? A fetch (a remote-tracking ref, or a
/// local branch from a configured remote's branch of its name), a push (a
/// remote-tracking ref, mapped from what it pushed by the remote's fetch
/// refspecs), or a clone.
pub fn fetched(dirs: &Dirs, refname: &str, argv: &[String]) -> bool {
    let Some(repo) = Repo::from_dirs(dirs) else {
        return false;
    };
    let env = crate::facts::env_config();
    let values = |key: &str| {
        let mut v = repo.config_values(key);
        v.extend(env.iter().filter(|(k, _)| k == key).map(|(_, v)| v.clone()));
        v
    };
    let Some(words) = command_words(argv, &values) else {
        return false;
    };
    // A namespace reaches a local remote's upload-pack, which then serves
    // `refs/namespaces/<ns>/refs/heads/main` as its `main`.
    if std::env::var_os("GIT_NAMESPACE").is_some() {
        return false;
    }
    let local = refname.strip_prefix("refs/heads/");
    let branch_now = crate::facts::head_branch_file(&dirs.git_dir);
    let branch_value = |key: &str| {
        branch_now
            .as_ref()
            .and_then(|b| values(&format!("branch.{b}.{key}")).pop())
    };
    // A configured remote, not one an agent added.
    let agents = crate::state_file::agent_remotes(&dirs.common_dir);
    let is_remote = |name: &str| {
        !values(&format!("remote.{name}.url")).is_empty() && !agents.iter().any(|a| a == name)
    };
    // The remotes the command talks to, and the refspecs it maps with
    // besides each remote's `remote.<name>.fetch`.
    let (remotes, extra): (Vec<String>, Vec<String>) = match words.first().map(String::as_str) {
        // Every ref a clone writes is new, in a repository of its own.
        Some("clone") if local.is_none() => return true,
        // A push records what the remote accepted (an agent's push to a
        // protected branch is refused before: pre-push, EN-GIT-D-001),
        // through the remote's fetch refspecs.
        Some("push") if local.is_none() => {
            let named = push_repository(&words[1..])
                .or_else(|| branch_value("pushremote"))
                .or_else(|| values("remote.pushdefault").pop())
                .or_else(|| branch_value("remote"))
                .unwrap_or_else(|| "origin".to_string());
            (vec![named], Vec::new())
        }
        Some("fetch") => {
            let line = fetch_line(&words[1..]);
            if line.stdin || line.upload_pack {
                return false;
            }
            let remotes = if line.all {
                repo.remotes()
            } else if line.multiple {
                line.refspecs.clone()
            } else {
                let named = line
                    .repository
                    .clone()
                    .or_else(|| branch_value("remote"))
                    .unwrap_or_else(|| "origin".to_string());
                match values(&format!("remotes.{named}")).pop() {
                    // A group of remotes (`remotes.<group>`), not a remote.
                    Some(group) if !is_remote(&named) => {
                        group.split_whitespace().map(str::to_string).collect()
                    }
                    _ => vec![named],
                }
            };
            let mut extra = line.refmap.clone();
            if !line.multiple {
                extra.extend(line.refspecs.iter().cloned());
            }
            (remotes, extra)
        }
        _ => return false,
    };
    // Which remote's branch the ref would hold: a remote-tracking ref
    // names both; a local branch (`fetch origin main:main`) its name.
    let readings: Vec<(&str, &str)> = match local {
        Some(branch) => remotes.iter().map(|r| (r.as_str(), branch)).collect(),
        None => tracking_readings(refname).collect(),
    };
    readings.into_iter().any(|(remote, branch)| {
        if !remotes.iter().any(|r| r == remote) || !is_remote(remote) {
            return false;
        }
        // Another program reading the remote, given for this command.
        let upload_pack = format!("remote.{remote}.uploadpack");
        if env.iter().any(|(k, _)| *k == upload_pack) {
            return false;
        }
        let mut specs = values(&format!("remote.{remote}.fetch"));
        specs.extend(extra.iter().cloned());
        let want = format!("refs/heads/{branch}");
        let mut sources = specs
            .iter()
            .filter_map(|s| source_for(s, refname))
            .peekable();
        sources.peek().is_some() && sources.all(|s| s == want)
    })
}

/// The subcommand and its words, past git's global options, with aliases
/// expanded (`git f` for `alias.f = fetch`); `None` for a `!shell` alias.
fn command_words(argv: &[String], values: &dyn Fn(&str) -> Vec<String>) -> Option<Vec<String>> {
    let args: Vec<OsString> = argv.iter().skip(1).map(OsString::from).collect();
    let mut words: Vec<String> = parse_globals(&args)
        .rest
        .iter()
        .map(|w| w.to_string_lossy().into_owned())
        .collect();
    for _ in 0..MAX_ALIASES {
        let first = words.first()?;
        if crate::classify::is_command(first) {
            return Some(words);
        }
        let value = values(&format!("alias.{}", first.to_ascii_lowercase())).pop()?;
        if value.starts_with('!') {
            return None;
        }
        let inner: Vec<OsString> = split_cmdline(&value)?
            .into_iter()
            .map(OsString::from)
            .collect();
        let expanded = parse_globals(&inner).rest;
        words = expanded
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .chain(words.into_iter().skip(1))
            .collect();
    }
    None
}
