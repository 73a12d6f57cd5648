//! The refs a reference transaction writes, as the gate judges them.
//!
//! The old value on stdin is not trusted (it is zero whenever the caller
//! gave none, which is also how `branch -D` and `update-ref -d` delete):
//! each ref is read here, while git holds its lock. Besides its value: a
//! `pack-refs` prune, the branches a remote-tracking ref or a branch
//! named like one stands for, the new name of a `git branch -m`, and, for
//! the changes a rule may deny, whether the move is the upstream's and a
//! fast-forward.

use crate::decide::refs::{guarded, never_denied, shadows_tracking, RefChange};
use crate::facts::refstore::{RefStore, Value};
use crate::facts::settings_cache::Quick;
use crate::facts::{Dirs, Repo};
use crate::git::is_zero;
use crate::policy::tracking_readings;

/// One line of the hook's input: `<old> <new> <ref>`.
#[derive(Debug)]
pub struct Line {
    pub old: String,
    pub new: String,
    pub refname: String,
}

/// The changes among `lines` that a rule may deny ([`never_denied`]
/// drops the rest), with what is read of each before the policy is
/// loaded. `quick` answers which refs are protected.
pub fn gather<'l>(
    dirs: &Dirs,
    store: &mut RefStore,
    quick: &mut Quick,
    lines: impl Iterator<Item = &'l Line>,
) -> Vec<RefChange> {
    let mut changes = Vec::new();
    let mut remotes = None;
    let mut all_remotes = None;
    for line in lines {
        let mut change = RefChange {
            refname: line.refname.clone(),
            current: store.resolve(&line.refname),
            new: (!is_zero(&line.new)).then(|| line.new.clone()),
            pruning: !is_zero(&line.old)
                && is_zero(&line.new)
                && store.loose(&line.refname) == Some(Value::Id(line.old.clone()))
                && store.packed(&line.refname).as_deref() == Some(line.old.as_str())
                && !store.packed_locked(),
            matches_upstream: false,
            fast_forward: true,
            tracked: Vec::new(),
            fetched: false,
        };
        if change.refname.starts_with("refs/remotes/") {
            let remotes = remotes.get_or_insert_with(|| trusted_remotes(dirs));
            change.tracked = tracking_readings(&change.refname)
                .filter(|(remote, _)| remotes.iter().any(|r| r == remote))
                .map(|(_, branch)| branch.to_string())
                .collect();
        }
        if change.refname.starts_with("refs/heads/") {
            change.tracked = named_like_tracking(&change.refname, quick, &mut all_remotes, dirs);
        }
        // git renames a branch by deleting the old name in a transaction
        // and writing the new one outside any: the new name never shows
        // here. When the command that deletes is `git branch -m`, the
        // name it moves to is judged as a creation with the same value.
        let renamed_to = (is_zero(&line.new) && line.refname.starts_with("refs/heads/"))
            .then(|| rename_target(&crate::facts::starter::parent_argv()))
            .flatten();
        if let (Some(target), Some(value)) = (renamed_to, change.current.clone()) {
            let target = format!("refs/heads/{target}");
            let mut created = RefChange {
                current: store.resolve(&target),
                new: Some(value),
                refname: target,
                ..RefChange::default()
            };
            created.tracked = named_like_tracking(&created.refname, quick, &mut all_remotes, dirs);
            if !never_denied(&created, guarded(&created, |r| quick.is_protected(r))) {
                changes.push(created);
            }
        }
        let guarded = guarded(&change, |r| quick.is_protected(r));
        if !never_denied(&change, guarded) {
            changes.push(change);
        }
    }
    changes
}

/// The facts only a change the rules may deny needs, read once the
/// policy is known to be wanted: a remote-tracking ref's fetch, a branch's
/// upstream and ancestry. `argv` is the git command line that runs the hook.
pub fn add_sync_facts(
    dirs: &Dirs,
    store: &mut RefStore,
    changes: &mut [RefChange],
    argv: &[String],
) {
    for change in changes {
        if change.refname.starts_with("refs/remotes/") {
            change.fetched = crate::facts::tracking::fetched(dirs, &change.refname, argv);
        } else {
            add_upstream(dirs, store, change, argv);
        }
    }
}

/// For a branch named like a remote-tracking ref of a protected branch
/// (`refs/heads/origin/main`), that branch ([`shadows_tracking`]): of any
/// configured remote, an agent's own too (`remote remove origin` and `remote
/// add origin <same url>` make one). The remotes (`remotes`, read once)
/// are read only for a name whose last part is protected: not for `agent/c1`.
fn named_like_tracking(
    refname: &str,
    quick: &mut Quick,
    remotes: &mut Option<Vec<String>>,
    dirs: &Dirs,
) -> Vec<String> {
    let name = refname.strip_prefix("refs/heads/").unwrap_or("");
    let maybe = name
        .match_indices('/')
        .any(|(i, _)| quick.is_protected(&format!("refs/heads/{}", &name[i + 1..])));
    if !maybe {
        return Vec::new();
    }
    let remotes =
        remotes.get_or_insert_with(|| Repo::from_dirs(dirs).map_or_else(Vec::new, |r| r.remotes()));
    shadows_tracking(refname, remotes, |r| quick.is_protected(r))
        .into_iter()
        .collect()
}

/// The configured remotes protected branches may sync from: not those an
/// agent added ([`crate::state_file::agent_remotes`]).
fn trusted_remotes(dirs: &Dirs) -> Vec<String> {
    Repo::from_dirs(dirs).map_or_else(Vec::new, |r| trusted_remotes_of(&r, dirs))
}

/// [`trusted_remotes`] of a repository already open.
fn trusted_remotes_of(repo: &Repo, dirs: &Dirs) -> Vec<String> {
    let agents = crate::state_file::agent_remotes(&dirs.common_dir);
    repo.remotes()
        .into_iter()
        .filter(|r| !agents.contains(r))
        .collect()
}

/// The new name of `git branch -m|-M|--move [<old>] <new>`, from git's argv.
fn rename_target(argv: &[String]) -> Option<String> {
    if crate::facts::starter::parent_operation(argv) != "git.branch" {
        return None;
    }
    let args: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .skip_while(|a| *a != "branch")
        .skip(1)
        .collect();
    let moves = args.iter().any(|a| {
        *a == "--move" || (a.starts_with('-') && !a.starts_with("--") && a.contains(['m', 'M']))
    });
    let names: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    match (moves, names.as_slice()) {
        (true, [.., new]) if names.len() <= 2 => Some(new.to_string()),
        _ => None,
    }
}

/// Is the new value the upstream's, and is the move a fast-forward?
fn add_upstream(dirs: &Dirs, store: &mut RefStore, change: &mut RefChange, argv: &[String]) {
    let (Some(branch), Some(new)) = (change.refname.strip_prefix("refs/heads/"), &change.new)
    else {
        return;
    };
    let mut candidates = Vec::new();
    if let Some(repo) = Repo::from_dirs(dirs) {
        // Configured remotes, never one an agent added; so not an upstream
        // in this repository either (remote `.`), a branch like any other.
        let trusted = trusted_remotes_of(&repo, dirs);
        let remote = repo.config_string(&format!("branch.{branch}.remote"));
        let merge = repo.config_string(&format!("branch.{branch}.merge"));
        if let (Some(remote), Some(merge)) = (remote, merge) {
            if let Some(m) = merge
                .strip_prefix("refs/heads/")
                .filter(|_| trusted.contains(&remote))
            {
                candidates.push(format!("refs/remotes/{remote}/{m}"));
            }
        }
        // The same name at each of them (what `git checkout main` would
        // create it from); not `refs/remotes/origin/agent/main`, which is
        // `origin`'s `agent/main`.
        for remote in &trusted {
            candidates.push(format!("refs/remotes/{remote}/{branch}"));
        }
    }
    // Or a fetch brings it that remote branch's value itself (`fetch origin
    // main:main`, whose remote-tracking ref may be written after it).
    // A candidate that is a symbolic ref stands for another ref (git
    // before 2.45 writes `symbolic-ref refs/remotes/origin/main <x>` past
    // the hook): its value is not the remote's.
    change.matches_upstream = candidates.iter().any(|c| {
        !matches!(store.raw(c), Some(Value::Symbolic(_)))
            && store.resolve(c).as_deref() == Some(new.as_str())
    }) || crate::facts::tracking::fetched(dirs, &change.refname, argv);
    change.fast_forward = match &change.current {
        None => true,
        Some(current) => is_ancestor(current, new),
    };
}

/// `git merge-base --is-ancestor a b`; an error (unknown object) counts as no.
pub fn is_ancestor(a: &str, b: &str) -> bool {
    if !crate::git::is_object_id(a) || !crate::git::is_object_id(b) {
        return false;
    }
    crate::git::Git::locate()
        .and_then(|g| g.output(["merge-base", "--is-ancestor", a, b]))
        .is_ok_and(|o| o.status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn renames_are_read_from_the_command_line() {
        assert_eq!(
            rename_target(&argv("git branch -m x main")).as_deref(),
            Some("main")
        );
        assert_eq!(
            rename_target(&argv("git -C d branch -M main")).as_deref(),
            Some("main")
        );
        assert_eq!(
            rename_target(&argv("git branch --move a release/2")).as_deref(),
            Some("release/2")
        );
        assert_eq!(rename_target(&argv("git branch -D x")), None);
        assert_eq!(rename_target(&argv("git branch -d main")), None);
        assert_eq!(rename_target(&argv("git update-ref -d refs/heads/x")), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any argv of the parent git: no panic.
        #[test]
        fn any_argv_reads_without_panic(
            words in proptest::collection::vec("[-a-zA-Z]{0,3}|branch|-m|-M", 0..6),
        ) {
            let mut argv = vec!["git".to_string()];
            argv.extend(words);
            let _ = rename_target(&argv);
        }
    }
}
