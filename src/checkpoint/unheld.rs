//! Finding work no checkpoint can hold: nested repositories (their history
//! and their own work), submodules' working trees (uncommitted work, kept
//! ignored files), and ignored files a stash would delete. Each finding is
//! an [`Unheld`] fact, which `decide` refuses (`decide/unheld.rs`): a
//! checkpoint holds the superproject's files, and where a command would
//! destroy more, it does not run.

use std::ffi::OsStr;
use std::path::Path;

use super::before::read_within;
use super::{snapshot, Ctx};
use crate::action::Action;
use crate::decide::unheld::{decide_unheld, Unheld};
use crate::error::Result;

/// The untracked nested repositories of the working tree (`dir/`), and
/// with `ignored_too` the ignored ones: `ls-files -o` names each as a
/// directory, where it lists the files of other untracked directories.
fn nested_repositories(ctx: &Ctx, ignored_too: bool) -> Result<Vec<String>> {
    let mut args = vec!["ls-files", "-z", "-o"];
    if !ignored_too {
        args.push("--exclude-standard");
    }
    let out = ctx.git.output_with(args, &[], None)?;
    Ok(out
        .stdout
        .split(|b| *b == 0)
        .filter(|entry| entry.ends_with(b"/"))
        .map(|entry| String::from_utf8_lossy(entry).into_owned())
        .collect())
}

/// Fails when a checkout would write files of `tree` into an untracked
/// nested repository: git takes such a directory for a plain one and
/// overwrites what is there, and a checkpoint, which holds the
/// superproject's files, holds none of the nested repository's.
pub(super) fn refuse_writes_into_nested(ctx: &Ctx, tree: &str) -> Result<()> {
    let nested = nested_repositories(ctx, false)?;
    if nested.is_empty() {
        return Ok(());
    }
    let mut args = vec![
        "--literal-pathspecs",
        "ls-tree",
        "-r",
        "--name-only",
        "-z",
        tree,
        "--",
    ];
    args.extend(nested.iter().map(String::as_str));
    let out = ctx.git.output_with(args, &[], None)?;
    let into: Vec<&String> = nested
        .iter()
        .filter(|dir| {
            out.stdout
                .split(|b| *b == 0)
                .any(|path| path.starts_with(dir.as_bytes()))
        })
        .collect();
    if into.is_empty() {
        return Ok(());
    }
    let dirs = into.iter().map(|d| d.to_string()).collect();
    refuse(Unheld::WritesIntoNested {
        tree: tree.to_string(),
        dirs,
    })
}

/// Fails when `stash` would delete ignored files where tracked `paths`
/// were (a directory of them standing where a tracked file was, or one
/// standing where a tracked directory was): the entry and a checkpoint
/// hold no ignored file.
pub(super) fn refuse_ignored_in_place(ctx: &Ctx, paths: &[Vec<u8>]) -> Result<()> {
    let mut places: Vec<&[u8]> = Vec::new();
    for path in paths {
        places.push(path);
        let mut end = path.len();
        while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
            places.push(&path[..slash]);
            end = slash;
        }
    }
    let args = crate::facts::ignored::list_ignored(&places);
    let out = ctx.git.output_with(args, &[], None)?;
    if !out.status.success() {
        return Err(crate::error::Error::internal(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let lost: Vec<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|f| {
            // At a tracked path or below it, or at a parent of one; not
            // elsewhere in a parent directory.
            !f.is_empty()
                && (places.contains(f)
                    || paths
                        .iter()
                        .any(|p| f.starts_with(p) && f.get(p.len()) == Some(&b'/')))
        })
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    if lost.is_empty() {
        return Ok(());
    }
    refuse(Unheld::IgnoredInPlace(lost))
}

/// Fails when `clean -ff` would delete a nested repository: its commits
/// and its own uncommitted work go with it, and a checkpoint, which holds
/// the superproject's files, cannot hold them. Looked for in the whole
/// working tree (ignored directories too when `ignored_too`), which errs
/// toward refusing.
pub(super) fn refuse_nested_repositories(ctx: &Ctx, ignored_too: bool) -> Result<()> {
    let nested = nested_repositories(ctx, ignored_too)?;
    if nested.is_empty() {
        return Ok(());
    }
    refuse(Unheld::NestedRepositories(nested))
}

/// Fails when a command that reaches into submodules ([`Action::reaches_submodules`])
/// would discard work in one: a checkpoint holds the superproject's files
/// and each submodule's commit, not what is uncommitted inside it. One
/// `git status` of the superproject (porcelain v2 says, per submodule,
/// whether its tracked files changed and whether it has untracked ones),
/// limited to the pathspecs the command names as git reads them (`limit`),
/// else every submodule, which errs toward refusing.
pub(super) fn refuse_dirty_submodules(
    ctx: &Ctx,
    action: &Action,
    untracked_too: bool,
    limit: Option<(&Path, &[String])>,
) -> Result<()> {
    let args = [
        "status",
        "--porcelain=v2",
        "-z",
        "--ignore-submodules=none",
        "--untracked-files=no",
    ];
    let out = read_within(ctx, args.map(OsStr::new).to_vec(), limit)?;
    let dirty = dirty_submodules(&out.stdout, untracked_too);
    if dirty.is_empty() {
        return Ok(());
    }
    let what = action.destructive.as_deref().unwrap_or("this command");
    refuse(Unheld::DirtySubmodules {
        what: what.to_string(),
        dirs: dirty,
    })
}

/// Fails when a command that removes submodules' working trees (`rm -f`,
/// `submodule deinit --force`) would delete ignored files in one that
/// `checkpoint.include_ignored` keeps: no checkpoint holds a submodule's
/// files. Looked for only when the key names any, in the submodules
/// within `limit`.
pub(super) fn refuse_kept_in_submodules(
    ctx: &Ctx,
    limit: Option<(&Path, &[String])>,
) -> Result<()> {
    let patterns: Vec<String> = ctx
        .settings
        .checkpoint
        .include_ignored
        .iter()
        .flat_map(|p| snapshot::pathspecs_of(p))
        .collect();
    if patterns.is_empty() {
        return Ok(());
    }
    let listing = read_within(
        ctx,
        ["ls-files", "-s", "-z"].map(OsStr::new).to_vec(),
        limit,
    )?;
    let mut kept = Vec::new();
    for entry in listing.stdout.split(|b| *b == 0) {
        // "<mode> <id> <stage>\t<path>", a gitlink's mode 160000.
        let Some(path) = entry.strip_prefix(b"160000 ").and_then(|rest| {
            rest.iter()
                .position(|b| *b == b'\t')
                .map(|tab| &rest[tab + 1..])
        }) else {
            continue;
        };
        let sub = super::in_tree(&ctx.workdir, path);
        let mut args: Vec<&str> = vec!["ls-files", "-z", "-o", "-i", "--exclude-standard", "--"];
        args.extend(patterns.iter().map(String::as_str));
        let Ok(out) = ctx.git.clone().in_dir(&sub).output_with(
            args,
            &[
                ("GIT_DIR", OsStr::new(".git")),
                ("GIT_WORK_TREE", OsStr::new(".")),
            ],
            None,
        ) else {
            continue;
        };
        for file in out.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
            kept.push(format!(
                "{}/{}",
                String::from_utf8_lossy(path),
                String::from_utf8_lossy(file)
            ));
        }
    }
    if kept.is_empty() {
        return Ok(());
    }
    refuse(Unheld::KeptInSubmodules(kept))
}

/// What no checkpoint can hold, as `decide` refuses it.
fn refuse(unheld: Unheld) -> Result<()> {
    Err(decide_unheld(&unheld))
}

/// The submodules that `git status --porcelain=v2 -z` reports with
/// changed tracked files (and, with `untracked_too`, untracked files).
fn dirty_submodules(status: &[u8], untracked_too: bool) -> Vec<String> {
    super::status::parse(status)
        .into_iter()
        .filter_map(|record| match record {
            super::status::Record::Changed(e) => Some(e),
            _ => None,
        })
        .filter(|e| {
            let sub = e.sub.as_bytes();
            sub.first() == Some(&b'S')
                && (sub.get(2) == Some(&b'M') || (untracked_too && sub.get(3) == Some(&b'U')))
        })
        .map(|e| String::from_utf8_lossy(e.path).into_owned())
        .collect()
}
