//! Commands that write the working tree: checkout, switch, restore,
//! clean, stash, worktree.

use super::names::{branch_ref, guess_remote, is_remote_form, is_special};
use super::options::{parse, Parsed};
use super::{tables, Context};
use crate::action::{Action, CheckoutTarget, Effect, RefOp, RefTarget, RefWrite};

const CHECKOUT_PATHS: &str = "checkout of paths overwrites their uncommitted changes";
const CHECKOUT_FORCE: &str = "checkout --force throws away local changes";
const CHECKOUT_MERGE: &str =
    "--merge merges local changes into the files checked out, keeping no other copy of them";

/// `-m`/`--merge` on a move to another commit: git merges the local changes
/// into the files it checks out, and on a conflict keeps no other copy of
/// them. Destructive unless a stronger reason is already recorded.
fn merges_local_changes(p: &Parsed, a: &mut Action) {
    if p.flag("merge") && a.destructive.is_none() {
        a.destructive = Some(CHECKOUT_MERGE.into());
    }
}

/// `checkout`, following git's `parse_branchname_arg`:
///
/// - `-b`/`-B`/`--orphan <new>` [start]: [`CheckoutTarget::New`] and a ref
///   write (`-B` an update, since it resets an existing branch);
/// - `-t <remote>/<x>` alone creates `x` from it;
/// - `--detach [<commit>]`: [`CheckoutTarget::Detach`];
/// - `-- <paths>`, `<tree> -- <paths>`, `<tree> <paths>`, `-p`,
///   `--pathspec-from-file`: paths, destructive, HEAD stays (but with
///   `<tree>`, also a switch to it: an empty file makes it one);
/// - one word: a local branch ([`CheckoutTarget::Local`]), a remote-tracking
///   name ([`CheckoutTarget::Remote`]), a revision expression or anything
///   else the repository resolves (a tag, a commit: git detaches,
///   [`CheckoutTarget::Special`]); else, as git guesses, a branch that
///   exists on a remote only is created from it (`Local` plus a create
///   starting at `<remote>/<x>`); else git reads the word as a path:
///   destructive, as `checkout -- <word>` would be.
///
/// `-f`/`--force` is destructive in every form; `-m`/`--merge` when it
/// moves to another commit ([`merges_local_changes`]).
pub(super) fn checkout(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::CHECKOUT, false);
    if p.flag("force") {
        a.destructive = Some(CHECKOUT_FORCE.into());
    }
    let words = &p.args;
    let (rev, paths): (Option<&String>, bool) = match p.dashdash {
        Some(0) => (None, true),
        Some(1) => (words.first(), words.len() > 1),
        // `checkout a b -- c`: git refuses; read as paths.
        Some(_) => (None, true),
        None => (words.first(), words.len() > 1),
    };
    if let Some(new) = new_branch(&p, &["b", "B", "orphan"], rev, ctx, a) {
        a.checkout = Some(CheckoutTarget::New(new));
        if paths {
            a.destructive = Some(CHECKOUT_PATHS.into());
        } else if rev.is_some() {
            merges_local_changes(&p, a);
        }
        return;
    }
    if paths || p.flag("patch") || p.given("pathspec-from-file") {
        a.destructive = Some(CHECKOUT_PATHS.into());
        if paths && !p.flag("patch") && !p.given("pathspec-from-file") {
            // After `<tree> --` the rest; otherwise every word, the first
            // too: without `--` git reads it as a path when it names no
            // revision, and a pathspec too many only widens the look.
            let skip = usize::from(p.dashdash == Some(1));
            a.paths = plain_paths(&words[skip..]);
        }
        // `<tree> -- <paths>`, or words without `--` whose first may be one.
        a.from_tree = rev.is_some() && p.dashdash != Some(0);
        // A pathspec file that turns out empty makes it a switch to `<tree>`
        // (git decides by the paths it read): read as both.
        if let Some(rev) = rev.filter(|_| !paths && p.given("pathspec-from-file")) {
            a.checkout = Some(
                branch_target(rev, ctx, p.enabled("guess", true), a)
                    .unwrap_or_else(|| CheckoutTarget::Local(rev.clone())),
            );
        }
        return;
    }
    let Some(rev) = rev else {
        if p.flag("detach") {
            a.checkout = Some(CheckoutTarget::Detach("HEAD".into()));
        } else {
            // `git checkout` alone re-checks HEAD and reports.
            a.effect = if a.destructive.is_some() {
                Effect::Mutating
            } else {
                Effect::Read
            };
        }
        return;
    };
    merges_local_changes(&p, a);
    if p.flag("detach") {
        a.checkout = Some(CheckoutTarget::Detach(rev.clone()));
        return;
    }
    if let Some(target) = track_new_branch(&p, rev, a) {
        a.checkout = Some(target);
        return;
    }
    match branch_target(rev, ctx, p.enabled("guess", true), a) {
        Some(target) => a.checkout = Some(target),
        None if p.dashdash == Some(1) => a.checkout = Some(CheckoutTarget::Local(rev.clone())),
        None => a.destructive = Some(CHECKOUT_PATHS.into()),
    }
}

/// `switch`: like `checkout` without paths. `-c`/`-C`/`--orphan` make a
/// branch; `-f`, `--force` and `--discard-changes` are destructive, and
/// `-m`/`--merge` with a commit to move to; a name that resolves to
/// nothing (git refuses it) still reads as a local branch.
pub(super) fn switch(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::SWITCH, false);
    if p.flag("force") || p.flag("discard-changes") {
        a.destructive = Some("switch --discard-changes throws away local changes".into());
    }
    let rev = p.args.first();
    if rev.is_some() {
        merges_local_changes(&p, a);
    }
    if let Some(new) = new_branch(&p, &["create", "force-create", "orphan"], rev, ctx, a) {
        a.checkout = Some(CheckoutTarget::New(new));
        return;
    }
    if p.flag("detach") {
        let at = rev.cloned().unwrap_or_else(|| "HEAD".into());
        a.checkout = Some(CheckoutTarget::Detach(at));
        return;
    }
    let Some(rev) = rev else { return };
    if let Some(target) = track_new_branch(&p, rev, a) {
        a.checkout = Some(target);
        return;
    }
    let target = branch_target(rev, ctx, p.enabled("guess", true), a)
        .unwrap_or_else(|| CheckoutTarget::Local(rev.clone()));
    a.checkout = Some(target);
}

/// The new branch of `-b`/`-B`/`--orphan` (or `-c`/`-C`/`--orphan`), with its
/// ref write: `names[1]` is the forcing form, which may reset an existing branch.
fn new_branch(
    p: &Parsed,
    names: &[&str; 3],
    start: Option<&String>,
    ctx: &Context,
    a: &mut Action,
) -> Option<String> {
    let which = p.last_of(names)?;
    let name = p.value(which)?.to_string();
    if which == names[1] && (ctx.is_local_branch)(&name) {
        // Resets a branch that exists: its commits since are on no branch,
        // and HEAD moves to it (checkpointed, so undo brings back both).
        a.destructive = Some(format!(
            "{} resets an existing branch",
            forced_spelling(names)
        ));
    }
    a.refs.push(RefWrite {
        target: RefTarget::Named(branch_ref(&name)),
        op: if which == names[1] {
            RefOp::Update
        } else {
            RefOp::Create
        },
        start: start.cloned().filter(|_| which != "orphan"),
    });
    Some(name)
}

/// The command and option a forced creation is spelled with.
fn forced_spelling(names: &[&str; 3]) -> &'static str {
    if names[1] == "B" {
        "checkout -B"
    } else {
        "switch -C"
    }
}

/// `checkout -t origin/x` (`switch -t`): creates `x` from the remote-tracking
/// branch, the name being the ref without `refs/`, `remotes/` and the remote.
fn track_new_branch(p: &Parsed, rev: &str, a: &mut Action) -> Option<CheckoutTarget> {
    if !p.flag("track") {
        return None;
    }
    let short = rev.strip_prefix("refs/").unwrap_or(rev);
    let short = short.strip_prefix("remotes/").unwrap_or(short);
    let (_, name) = short.split_once('/')?;
    a.refs.push(RefWrite {
        target: RefTarget::Named(branch_ref(name)),
        op: RefOp::Create,
        start: Some(rev.to_string()),
    });
    Some(CheckoutTarget::New(name.to_string()))
}

/// What checking out `rev` as a branch means; `None` when nothing resolves it.
fn branch_target(rev: &str, ctx: &Context, guess: bool, a: &mut Action) -> Option<CheckoutTarget> {
    if rev == "-" {
        return Some(CheckoutTarget::Special("-".into()));
    }
    if !rev.starts_with("refs/") && !is_special(rev) && (ctx.is_local_branch)(rev) {
        return Some(CheckoutTarget::Local(rev.into()));
    }
    if is_remote_form(rev, ctx.remotes) {
        return Some(CheckoutTarget::Remote(rev.into()));
    }
    if is_special(rev) || (ctx.is_revision)(rev) {
        return Some(CheckoutTarget::Special(rev.into()));
    }
    let start = guess.then(|| guess_remote(rev, ctx)).flatten()?;
    a.refs.push(RefWrite {
        target: RefTarget::Named(branch_ref(rev)),
        op: RefOp::Create,
        start: Some(start),
    });
    Some(CheckoutTarget::Local(rev.into()))
}

/// `restore`: the working tree is restored unless only `--staged` is given
/// (`--staged --worktree` restores both). Restoring it is destructive;
/// `--staged` alone unstages ([`Action::unstages`]).
pub(super) fn restore(args: &[String], a: &mut Action) {
    let p = parse(args, tables::RESTORE, false);
    if p.flag("worktree") || !p.flag("staged") {
        a.destructive = Some("restore overwrites uncommitted changes in the working tree".into());
        if !p.flag("patch") && !p.given("pathspec-from-file") {
            a.paths = plain_paths(&p.args);
        }
        a.from_tree = p.given("source");
    } else {
        a.unstages = true;
        if !p.flag("patch") && !p.given("pathspec-from-file") {
            a.paths = plain_paths(&p.args);
        }
    }
}

/// Pathspecs as written, if there are any: none means the whole tree.
fn plain_paths(words: &[String]) -> Option<Vec<String>> {
    (!words.is_empty()).then(|| words.to_vec())
}

/// `clean`: deletes untracked files. `-n`/`--dry-run` only reports. Without
/// `-f` git refuses unless `clean.requireForce` is off, which only the
/// repository's config knows: destructive either way (a checkpoint of a
/// refused command costs little; a missed one loses files).
pub(super) fn clean(args: &[String], a: &mut Action) {
    let p = parse(args, tables::CLEAN, false);
    if p.flag("dry-run") {
        a.effect = Effect::Read;
        return;
    }
    a.destructive = Some(if p.count("force") > 0 {
        "clean -f deletes untracked files".into()
    } else {
        "clean deletes untracked files (unless clean.requireForce stops it)".into()
    });
    a.paths = plain_paths(&p.args);
    if p.count("force") >= 2 {
        a.removes_repositories = Some(p.flag("x") || p.flag("X"));
    }
}

/// `stash`: `list` and `show` read; `drop`, `clear` and `pop` destroy a
/// stash entry; `apply` and `pop` bring work onto the current branch
/// (the rules count `stash apply` with the commit-making commands); `branch`
/// makes a branch. Any other first word (`-m`, `-p`, `--`, a path) is
/// `stash push`, as in git. A push keeps the changes of tracked files (and
/// with `-u` untracked ones) in the entry, then resets the working tree,
/// which deletes an untracked file where a tracked path was (a tracked
/// directory replaced by a file, or a file by a directory) and keeps it
/// nowhere: destructive, checkpointed only then (see `checkpoint::before`).
/// `worktree prune` deletes the records of worktrees whose directories are
/// gone, and with them their HEADs: a detached one may be all that
/// reaches commits made there (kept first, see `checkpoint::before`).
pub const WORKTREE_PRUNE: &str =
    "worktree prune deletes the records of worktrees whose directories are gone, their detached HEADs with them";

pub const STASH_PUSH: &str =
    "stash push resets the working tree: an untracked file where a tracked path was is deleted";

pub(super) fn stash(args: &[String], a: &mut Action) {
    match args.first().map(String::as_str) {
        Some("list" | "show") => a.effect = Effect::Read,
        Some("drop") => a.destructive = Some("stash drop deletes a stash entry".into()),
        Some("clear") => a.destructive = Some("stash clear deletes every stash entry".into()),
        Some("pop") => {
            a.destructive = Some("stash pop drops the stash entry it applies".into());
            a.creates_commits = true;
        }
        Some("apply") => a.creates_commits = true,
        None | Some("push" | "save") => a.destructive = Some(STASH_PUSH.into()),
        Some(option) if option.starts_with('-') => a.destructive = Some(STASH_PUSH.into()),
        Some("branch") => {
            let p = parse(&args[1..], &[], false);
            if let Some(name) = p.args.first() {
                a.refs.push(RefWrite {
                    target: RefTarget::Named(branch_ref(name)),
                    op: RefOp::Create,
                    start: None,
                });
                a.checkout = Some(CheckoutTarget::New(name.clone()));
            }
        }
        _ => {}
    }
}

/// `worktree`: `list` reads; `remove --force` deletes a worktree with its
/// uncommitted changes, `remove` a clean one with its HEAD (a
/// detached one may be all that reaches commits made there): both
/// destructive, and name the worktree; `add` and `move` make a
/// working tree at a path ([`Action::new_trees`]); `add` makes a branch with `-b`/`-B`, or
/// guesses one like `checkout` (from a remote with `<commit-ish>` naming a
/// branch that exists there only; named after the path's last component
/// without a `<commit-ish>`, created at HEAD unless it exists).
pub(super) fn worktree(args: &[String], ctx: &Context, a: &mut Action) {
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("list") => a.effect = Effect::Read,
        Some("remove") => {
            let p = parse(rest, tables::WORKTREE_REMOVE, false);
            a.destructive = Some(if p.count("force") > 0 {
                "worktree remove --force deletes the worktree's uncommitted changes".into()
            } else {
                // git refuses a dirty one; a detached HEAD goes with it.
                "worktree remove deletes the worktree's HEAD, the only ref to commits made there detached".into()
            });
            a.removes_worktree = p.args.first().cloned();
        }
        Some("prune") if !parse(rest, tables::WORKTREE_PRUNE, false).flag("dry-run") => {
            a.destructive = Some(WORKTREE_PRUNE.into());
            a.prunes_worktrees = true;
        }
        Some("add") => worktree_add(rest, ctx, a),
        Some("move") => {
            // `move [-f] <worktree> <new-path>`: a working tree there.
            let words: Vec<&String> = rest.iter().filter(|w| !w.starts_with('-')).collect();
            a.moves_worktree = words.first().map(|w| w.to_string());
            a.new_trees.extend(words.get(1).map(|w| w.to_string()));
        }
        _ => {}
    }
}

/// `init [<dir>]` and `clone <repo> [<dir>]`: need no repository; the
/// directory they make one in (`init` alone: here; `clone` without one:
/// the repository's name, as git derives it) and a `--separate-git-dir`
/// are [`Action::new_trees`].
pub(super) fn new_repository(command: &str, args: &[String], a: &mut Action) {
    a.needs_repo = false;
    let clone = command == "clone";
    let p = parse(
        args,
        if clone { tables::CLONE } else { tables::INIT },
        false,
    );
    let dir = if clone {
        p.args
            .get(1)
            .cloned()
            .or_else(|| p.args.first().map(|r| cloned_name(r)))
    } else {
        Some(p.args.first().cloned().unwrap_or_else(|| ".".to_string()))
    };
    a.new_trees.extend(dir);
    a.new_trees
        .extend(p.value("separate-git-dir").map(str::to_string));
    if !clone {
        a.templates = p.value("template").map(str::to_string);
    }
}

/// The directory `git clone <repo>` makes: the repository's last path
/// component, without `/`, `.git` and `.bundle` at its end (`../x.git/`
/// is `x`), as git's `guess_dir_name` does for the common cases.
pub(super) fn cloned_name(repo: &str) -> String {
    let trimmed = repo.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix("/.git").unwrap_or(trimmed);
    let last = trimmed.rsplit(['/', ':']).next().unwrap_or(trimmed);
    let last = last
        .strip_suffix(".git")
        .or_else(|| last.strip_suffix(".bundle"))
        .unwrap_or(last);
    if last.is_empty() {
        repo.to_string()
    } else {
        last.to_string()
    }
}

fn worktree_add(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::WORKTREE_ADD, false);
    a.new_trees.extend(p.args.first().cloned());
    let commitish = p.args.get(1);
    if let Some(which) = p.last_of(&["b", "B"]) {
        if let Some(name) = p.value(which) {
            a.refs.push(RefWrite {
                target: RefTarget::Named(branch_ref(name)),
                op: if which == "B" {
                    RefOp::Update
                } else {
                    RefOp::Create
                },
                start: commitish.cloned(),
            });
        }
        return;
    }
    if p.flag("detach") {
        return;
    }
    let Some(path) = p.args.first() else { return };
    let (name, start) = match commitish {
        Some(c) => {
            if (ctx.is_local_branch)(c) || is_special(c) || (ctx.is_revision)(c) {
                return;
            }
            match guess_remote(c, ctx) {
                Some(start) => (c.clone(), Some(start)),
                None => return,
            }
        }
        None => {
            let base = path
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(path);
            if base.is_empty() || (ctx.is_local_branch)(base) {
                return;
            }
            (base.to_string(), None)
        }
    };
    a.refs.push(RefWrite {
        target: RefTarget::Named(branch_ref(&name)),
        op: RefOp::Create,
        start,
    });
}
