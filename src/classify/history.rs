//! Commands that make or rewrite commits: commit, merge, rebase,
//! cherry-pick, revert, am, reset, filter-branch, and the index writers
//! (add, rm, mv, apply).

use super::commands::every_ref;
use super::names::{branch_ref, is_remote_form, is_special, looks_like_revision};
use super::options::{parse, Parsed};
use super::{tables, Context};
use crate::action::{Action, Effect, RefOp, RefTarget, RefWrite};

fn update(target: RefTarget) -> RefWrite {
    RefWrite {
        target,
        op: RefOp::Update,
        start: None,
    }
}

/// `commit`: makes a commit on the current branch (`--amend` rewrites it);
/// `-n`/`--no-verify` skip the pre-commit and commit-msg hooks;
/// `--dry-run` only reports.
pub(super) fn commit(args: &[String], a: &mut Action) {
    let p = parse(args, tables::COMMIT, false);
    if p.flag("dry-run") {
        a.effect = Effect::Read;
        return;
    }
    a.creates_commits = true;
    if p.flag("no-verify") {
        a.hooks_off = Some("commit --no-verify skips the pre-commit and commit-msg hooks".into());
    }
}

/// `merge`: makes a merge commit, or fast-forwards, on the current branch.
/// `-n` here is `--no-stat`, not `--no-verify`. `--abort` resets the working
/// tree like `reset --merge` (destructive). `merge --ff-only` of
/// remote-tracking refs only (`git merge --ff-only origin/main`) is syncing,
/// like `pull --ff-only`: the reference-transaction hook checks the branch
/// only moves to its upstream. So is a merge that may fast-forward, of the
/// branch's upstream or same-named remote-tracking branch, when it does
/// ([`Action::ff_target`]): `git merge origin/main` on a `main` behind it.
pub(super) fn merge(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::MERGE, false);
    if p.flag("abort") {
        a.destructive = Some("merge --abort resets the working tree to before the merge".into());
        return;
    }
    if p.flag("quit") {
        return;
    }
    if p.flag("no-verify") {
        a.hooks_off =
            Some("merge --no-verify skips the pre-merge-commit and commit-msg hooks".into());
    }
    let ff = fast_forward_mode(&p, ctx);
    let syncing = ff == Some(FastForward::Only)
        && !p.args.is_empty()
        && p.args.iter().all(|r| is_remote_form(r, ctx.remotes));
    if syncing {
        a.syncs = true;
        return;
    }
    a.creates_commits = true;
    // A strategy of its own (`-s ours`) makes a merge commit even where a
    // fast-forward could be made.
    if ff == Some(FastForward::Allow)
        && !p.flag("squash")
        && !p.flag("continue")
        && !p.given("strategy")
    {
        a.ff_target = sync_target(&p.args, ctx);
    }
}

/// How a merge may fast-forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FastForward {
    /// When it can (git's default).
    Allow,
    /// Never: always a merge commit (`--no-ff`, `merge.ff = false`).
    Never,
    /// Only (`--ff-only`, `merge.ff = only`).
    Only,
}

/// The last of `--ff`, `--no-ff` and `--ff-only`, else `merge.ff`; `None`
/// when the branch's `mergeOptions` may say otherwise (not read here).
fn fast_forward_mode(p: &Parsed, ctx: &Context) -> Option<FastForward> {
    match p.last_given(&["ff", "ff-only"]) {
        Some(("ff", true)) => return Some(FastForward::Never),
        Some(("ff", false)) => return Some(FastForward::Allow),
        Some(_) => return Some(FastForward::Only),
        None => {}
    }
    let options = ctx
        .current_branch
        .map(|b| (ctx.config)(&format!("branch.{b}.mergeoptions")));
    if options.is_some_and(|o| o.iter().any(|v| !v.trim().is_empty())) {
        return None;
    }
    Some(match (ctx.config)("merge.ff").last() {
        Some(v) if v.eq_ignore_ascii_case("only") => FastForward::Only,
        Some(v) if super::says_false(v) => FastForward::Never,
        _ => FastForward::Allow,
    })
}

/// `@{upstream}` of `branch` when that is a configured remote's branch
/// (never one in the repository itself, remote `.`).
fn upstream_target(branch: &str, ctx: &Context) -> Option<String> {
    let remote = (ctx.config)(&format!("branch.{branch}.remote")).pop()?;
    ctx.remotes
        .contains(&remote)
        .then(|| "@{upstream}".to_string())
}

/// The one revision a merge names, if a fast-forward of the current branch
/// to it is syncing: its upstream (a bare `git merge`, `@{upstream}`,
/// `@{u}`), or `<remote>/<branch>` of a configured remote
/// (`remotes/...`, `refs/remotes/...` too).
fn sync_target(args: &[String], ctx: &Context) -> Option<String> {
    let branch = ctx.current_branch?;
    let arg = match args {
        [] => return upstream_target(branch, ctx),
        [one] => one.as_str(),
        _ => return None,
    };
    let upstream = ["@{upstream}", "@{u}", "HEAD@{upstream}", "HEAD@{u}"];
    if upstream.iter().any(|u| arg.eq_ignore_ascii_case(u)) {
        return upstream_target(branch, ctx);
    }
    let short = arg
        .strip_prefix("refs/remotes/")
        .or_else(|| arg.strip_prefix("remotes/"))
        .unwrap_or(arg);
    let (remote, name) = short.split_once('/')?;
    (name == branch && ctx.remotes.iter().any(|r| r == remote))
        .then(|| format!("refs/remotes/{remote}/{name}"))
}

/// `rebase`: rewrites the current branch, or `<branch>` of
/// `rebase <upstream> <branch>` (`rebase --root <branch>`), which git checks
/// out first. Destructive. `--update-refs` (or `rebase.updateRefs`)
/// also moves the branches that point into the rebased range, which the
/// command line cannot name: the reference-transaction hook judges each
/// one as git writes it. `--abort` and `--skip` throw work away;
/// `--continue`, `--quit` and `--edit-todo` write no new ref of their own.
/// `--no-verify` skips only the pre-rebase hook, which git-ward does not
/// use, so it does not count as switching hooks off.
pub(super) fn rebase(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::REBASE, false);
    if p.flag("show-current-patch") {
        a.effect = Effect::Read;
        return;
    }
    if let Some(mode) = p.last_of(&["abort", "skip"]) {
        a.destructive = Some(format!(
            "rebase --{mode} throws away the rebase's work in progress"
        ));
        return;
    }
    if p.last_of(&["continue", "quit", "edit-todo"]).is_some() {
        return;
    }
    a.destructive = Some("rebase rewrites the branch's commits".into());
    let branch = if p.flag("root") {
        p.args.first()
    } else {
        p.args.get(1)
    };
    let target = match branch {
        Some(b) if !is_special(b) && !is_remote_form(b, ctx.remotes) => {
            RefTarget::Named(branch_ref(b))
        }
        Some(b) if b.starts_with("refs/heads/") => RefTarget::Named(b.clone()),
        // HEAD, or a revision that detaches: the current branch is the one to guard.
        _ => RefTarget::Current,
    };
    a.refs.push(update(target));
}

/// `cherry-pick`, `revert`: make commits on the current branch (also with
/// `-n`, which leaves them staged). `--abort` resets to before the sequence;
/// `--skip` resets the files of the commit in progress (a conflict's
/// resolution with them) and goes on with the rest.
pub(super) fn cherry_pick(args: &[String], a: &mut Action) {
    let table = if a.command == "revert" {
        tables::REVERT
    } else {
        tables::CHERRY_PICK
    };
    let p = parse(args, table, false);
    if p.flag("abort") {
        a.destructive = Some(format!(
            "{} --abort resets the working tree to before the sequence",
            a.command
        ));
        return;
    }
    if p.flag("quit") {
        return;
    }
    if p.flag("skip") {
        a.destructive = Some(format!(
            "{} --skip throws away the changes of the commit in progress",
            a.command
        ));
    }
    a.creates_commits = true;
}

/// `am`: applies mails as commits on the current branch. `--no-verify`
/// skips the applypatch hooks, applypatch-msg among them, which puts the
/// contract footer in. `--skip` resets the files of the patch in progress
/// and goes on.
pub(super) fn am(args: &[String], a: &mut Action) {
    let p = parse(args, tables::AM, false);
    if p.flag("no-verify") {
        a.hooks_off = Some("am --no-verify skips the applypatch-msg hook".into());
    }
    if p.given("show-current-patch") {
        a.effect = Effect::Read;
    } else if p.flag("abort") {
        a.destructive = Some("am --abort restores the original branch".into());
    } else if !p.flag("quit") {
        if p.flag("skip") {
            a.destructive =
                Some("am --skip throws away the changes of the patch in progress".into());
        }
        a.creates_commits = true;
    }
}

/// `reset`: with a commit and no paths, moves the current branch there
/// (`reset --soft HEAD~1`, `reset --hard origin/main`); without one it only
/// resets the index (and the working tree for `--hard`), writing no ref.
/// `HEAD` and `@` name where the branch already is: no ref moves. A single
/// word without `--` is a commit when a mode flag is given (git refuses a
/// hard reset with paths), when it looks like a revision, or when the
/// repository resolves it; otherwise a path, as git reads it.
/// `--hard`, `--merge`, `--keep` are destructive; without a mode,
/// or with `--mixed`, it unstages ([`Action::unstages`]).
pub(super) fn reset(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::RESET, false);
    let mode = p.last_of(&["soft", "mixed", "hard", "merge", "keep"]);
    a.unstages = mode.is_none_or(|m| m == "mixed");
    if p.flag("patch") || p.given("pathspec-from-file") {
        return;
    }
    let words = &p.args;
    let (rev, paths) = match p.dashdash {
        Some(0) => (None, words.get(..)),
        Some(_) => (words.first(), words.get(1..)),
        None => match words.len() {
            0 => (None, None),
            1 if mode.is_some_and(|m| m != "mixed") || looks_like_revision(&words[0], ctx) => {
                (words.first(), None)
            }
            1 => (None, words.get(..)),
            _ => (words.first(), words.get(1..)),
        },
    };
    if let Some(paths) = paths.filter(|p| !p.is_empty()) {
        // Resets index entries of those paths; no ref moves.
        a.paths = Some(paths.to_vec());
        return;
    }
    if let Some(mode @ ("hard" | "merge" | "keep")) = mode {
        a.destructive = Some(format!("reset --{mode} rewrites the working tree"));
        if mode == "hard" {
            a.destructive = Some("reset --hard discards uncommitted changes".into());
        }
    }
    if let Some(rev) = rev.filter(|r| *r != "HEAD" && *r != "@") {
        // Where it moves the branch (the tree a hard reset writes).
        a.refs.push(RefWrite {
            start: Some(rev.clone()),
            ..update(RefTarget::Current)
        });
    }
}

/// `filter-branch [<options>] [--] [<rev-list options>...]`: rewrites the
/// branches its revisions name, `HEAD` when none. Its options (a shell
/// script's) all take the next word, except `-f`/`--force`,
/// `--prune-empty` and `--remap-to-ancestor`. `--all`, `--branches`,
/// `--tags`, `--remotes` and `--glob=` rewrite refs the command line does
/// not name: [`RefTarget::All`].
pub(super) fn filter_branch(args: &[String], ctx: &Context, a: &mut Action) {
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-f" | "--force" | "--prune-empty" | "--remap-to-ancestor" => i += 1,
            w if w.starts_with('-') => i += 2,
            _ => break,
        }
    }
    let revs = args.get(i..).unwrap_or_default();
    let mut any = false;
    for rev in revs {
        if rev.starts_with("--all")
            || ["--branches", "--tags", "--remotes", "--glob"]
                .iter()
                .any(|f| rev.starts_with(f))
        {
            a.refs.push(every_ref());
            any = true;
            continue;
        }
        if rev.starts_with('-') || rev.starts_with('^') {
            continue;
        }
        // `a..b` rewrites b; `a..` means HEAD.
        let tip = rev
            .rsplit("..")
            .next()
            .unwrap_or(rev)
            .trim_start_matches('.');
        let target = if tip.is_empty() || tip == "HEAD" || tip == "@" {
            RefTarget::Current
        } else if tip.starts_with("refs/") {
            RefTarget::Named(tip.to_string())
        } else if !(ctx.is_local_branch)(tip) && (ctx.is_revision)(&format!("refs/tags/{tip}")) {
            RefTarget::Named(format!("refs/tags/{tip}"))
        } else {
            RefTarget::Named(branch_ref(tip))
        };
        a.refs.push(update(target));
        any = true;
    }
    if !any {
        a.refs.push(update(RefTarget::Current));
    }
}

/// `add`, `stage`, `rm`, `mv`: stage work for a commit on the current branch
/// (the rules count them with the commit-making commands). `-n`/`--dry-run`
/// only reports. `rm -f` deletes files whatever their changes, and the
/// working trees of submodules it names with their uncommitted work
/// (destructive) unless `--cached` keeps the working tree (then it unstages:
/// [`Action::unstages`]); `mv -f` overwrites a
/// destination that exists, its uncommitted changes or an untracked file
/// (destructive; not in the rules' list, which it extends).
pub(super) fn stage(args: &[String], a: &mut Action) {
    let table = match a.command.as_str() {
        "rm" => tables::RM,
        "mv" => tables::MV,
        _ => tables::ADD,
    };
    let p = parse(args, table, false);
    if p.flag("dry-run") {
        a.effect = Effect::Read;
        return;
    }
    a.creates_commits = true;
    if a.command == "rm" && p.flag("force") && !p.flag("cached") {
        a.destructive = Some("rm -f deletes files whatever their uncommitted changes".into());
        // A submodule's working tree goes too, its own work with it.
        a.reaches_submodules = Some(true);
        if !p.given("pathspec-from-file") {
            a.paths = (!p.args.is_empty()).then(|| p.args.clone());
        }
    }
    if a.command == "rm" && p.flag("force") && p.flag("cached") {
        // Drops the index entry whatever is staged (without `-f`, git
        // refuses a version that neither HEAD nor the file holds).
        a.unstages = true;
        if !p.given("pathspec-from-file") {
            a.paths = (!p.args.is_empty()).then(|| p.args.clone());
        }
    }
    if a.command == "mv" && p.flag("force") {
        a.destructive = Some("mv -f overwrites the destination, tracked or not".into());
    }
}

/// `reflog expire|delete|drop`, `prune`, `gc --prune=<date>`: they drop
/// the reflog entries, or the objects, that are all that keeps a commit no
/// ref reaches (reset away, amended, a deleted branch's). Destructive
/// unless `-n`/`--dry-run`; not in the rules' list, which it extends. A plain
/// `gc` (git's own housekeeping, which git also runs by itself) and
/// `--prune=never` are not, unless config shortens how long it keeps
/// them (`gc.reflogExpire`, `gc.reflogExpireUnreachable`, `gc.pruneExpire`,
/// from the files, the environment or `-c`); nor is `maintenance run`
/// (whose gc task is such a `gc`), on the same terms.
pub(super) fn expiry(command: &str, args: &[String], ctx: &Context, a: &mut Action) {
    const EXPIRY: &[&str] = &[
        "gc.reflogexpire",
        "gc.reflogexpireunreachable",
        "gc.pruneexpire",
    ];
    let shortened = || {
        EXPIRY.iter().any(|key| {
            (ctx.config)(key)
                .last()
                .is_some_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "never" | "false"))
        })
    };
    // `--dry`: git takes a long option's unique prefix.
    let dry = args.iter().any(|w| {
        w == "-n"
            || w.strip_prefix("--d")
                .is_some_and(|rest| "ry-run".starts_with(rest))
    });
    let why = match command {
        "reflog"
            if matches!(
                args.first().map(String::as_str),
                Some("expire" | "delete" | "drop")
            ) =>
        {
            "reflog expire drops the entries that keep lost commits"
        }
        "prune" => "prune deletes unreachable objects, lost commits among them",
        "gc" if args
            .iter()
            .any(|w| w.starts_with("--prune=") && w != "--prune=never") =>
        {
            "gc --prune deletes unreachable objects, lost commits among them"
        }
        "gc" if shortened() => {
            "gc expires reflog entries and unreachable objects early (gc.*Expire), lost commits among them"
        }
        "maintenance" if args.first().is_some_and(|s| s == "run") && shortened() => {
            "maintenance run expires reflog entries and unreachable objects early (gc.*Expire), lost commits among them"
        }
        _ => return,
    };
    if !dry {
        a.destructive = Some(why.into());
    }
}

/// `apply`: patches the working tree, like an editor would (no commit
/// made); `--index` or `--cached` also stage the result, which counts like
/// `add`. `--check`, `--stat`, `--numstat`, `--summary` without `--apply`
/// only report.
pub(super) fn apply(args: &[String], a: &mut Action) {
    let p = parse(args, tables::APPLY, false);
    let reports = ["check", "stat", "numstat", "summary"]
        .iter()
        .any(|f| p.flag(f));
    if reports && !p.flag("apply") {
        a.effect = Effect::Read;
        return;
    }
    if p.flag("index") || p.flag("cached") {
        a.creates_commits = true;
    }
    if !p.flag("cached") {
        // `git diff | git apply -R` is `checkout -- .`: what the files held
        // is then in no commit, and the patch, from a pipe, in no file.
        a.destructive = Some("apply rewrites working tree files in place".into());
        if p.flag("unsafe-paths") {
            a.writes_anywhere = Some(
                "writes wherever the patch says (--unsafe-paths), the git directory too".into(),
            );
        }
    }
}
