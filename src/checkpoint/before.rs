//! Checkpoint before destroy: what a destructive command
//! an agent runs can destroy, whether anything is there to lose, and the
//! `pre-destructive` checkpoint that saves it first.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use std::path::Path;

use super::clean::{Scope, Verdict};
use super::direct::Stake;
use super::index_scan::Seed;
use super::snapshot::head_tree;
use super::{lost, plan, snapshot, store, take, unheld, Ctx, Kind};
use crate::action::{Action, RefTarget};
use crate::error::Result;
use crate::facts::Repo;
use crate::git::Git;
use crate::policy::Settings;

/// A command an agent is about to run (through the shim, or the MCP server).
pub struct Pending<'a> {
    pub action: &'a Action,
    /// Ignored files the command would overwrite, which its checkpoint
    /// holds too ([`crate::decide::Facts::ignored_in_the_way`]).
    pub keep_ignored: &'a [Vec<u8>],
    /// The directory git will run it in.
    pub cwd: &'a std::path::Path,
    /// The pathspecs it is limited to ([`Action::paths`]), when git reads
    /// them as by default.
    pub paths: Option<&'a [String]>,
}

/// Takes the pre-destructive checkpoint for a command the shim is about to
/// run. `git` runs in the repository's working tree.
/// Returns the checkpoint id, or `None` when there was nothing to save. An
/// error means the command must not run: a silently missing checkpoint is
/// the worst outcome. The checkpoint of `worktree remove` is taken of the
/// worktree it removes (see [`worktree`]).
pub fn before_destructive(
    git: &Git,
    repo: &Repo,
    settings: Option<&Settings>,
    command: &Pending,
    contract: Option<&str>,
    trace_id: &str,
) -> Result<Option<String>> {
    let Pending {
        action,
        cwd,
        paths,
        keep_ignored,
    } = *command;
    if repo.workdir().is_none() {
        return Ok(None);
    }
    let ctx = ctx_for(git, repo, settings, contract, trace_id)?;
    let removed = action
        .removes_worktree
        .as_deref()
        .and_then(|arg| crate::facts::worktrees::named(&ctx.git, cwd, arg))
        .and_then(|dir| Repo::at(&dir));
    let removed_ctx = removed.as_ref().map(|r| ctx.sibling(r)).transpose()?;
    let ctx = removed_ctx.as_ref().unwrap_or(&ctx);
    if action.destructive.is_none() && action.unstages {
        // A mixed reset that moves the branch leaves the index at another
        // commit: undo needs the index as it was to put it back.
        let limit = paths.map(|paths| (cwd, paths));
        if action.refs.is_empty() && !staged_only(ctx, limit)? {
            return Ok(None);
        }
        return take(ctx, action).map(Some);
    }
    if action.destructive.is_none() {
        // Checkpointed for the ignored files in the way (decide): those the
        // policy keeps, and those a checkout would overwrite; git
        // overwrites (or, removing a worktree, deletes) nothing else here.
        if keep_ignored.is_empty() && !ignored_in_the_way(ctx, action)? {
            return Ok(None);
        }
        return take(&keeping(ctx, keep_ignored), action).map(Some);
    }
    if let Some(ignored_too) = action.removes_repositories {
        unheld::refuse_nested_repositories(ctx, ignored_too)?;
    }
    if let Some(untracked_too) = action.reaches_submodules {
        let limit = paths.map(|p| (cwd, p));
        unheld::refuse_dirty_submodules(ctx, action, untracked_too, limit)?;
        if untracked_too {
            unheld::refuse_kept_in_submodules(ctx, limit)?;
        }
    }
    if matches!(
        action.command.as_str(),
        "reflog" | "prune" | "gc" | "maintenance"
    ) {
        // What is at stake is history no ref reaches, not the files; and
        // for `reflog`, the stash entries, which live in a reflog only.
        let lost = lost::reflog_only(ctx)?;
        let stash = action.command == "reflog" && ctx.repo.ref_target("refs/stash").is_some();
        if lost.is_empty() && !stash {
            return Ok(None);
        }
        let id = take(ctx, action)?;
        if !lost.is_empty() {
            lost::keep(ctx, &id, &lost)?;
            crate::output::errln!(
                "ward: checkpoint {id} keeps {} commit{} only reflogs held ({}{id}/lost)",
                lost.len(),
                plan::plural(lost.len()),
                store::KEPT
            );
        }
        return Ok(Some(id));
    }
    if action.destructive.as_deref() == Some(crate::classify::WORKTREE_PRUNE) {
        let heads = lost::pruned_heads(ctx);
        if heads.is_empty() {
            return Ok(None);
        }
        let id = take(ctx, action)?;
        lost::keep(ctx, &id, &heads)?;
        crate::output::errln!(
            "ward: checkpoint {id} keeps {} commit{} that HEADs of pruned worktrees held ({}{id}/lost)",
            heads.len(),
            plan::plural(heads.len()),
            store::KEPT
        );
        return Ok(Some(id));
    }
    if !action.writes_files.is_empty() {
        // What is at stake is what is at those paths now, tracked or not: a
        // new file, or one outside the working tree, loses nothing here.
        let top = ctx.workdir.canonicalize().unwrap_or_default();
        let at_stake = action.writes_files.iter().any(|file| {
            let path = cwd.join(file);
            let here = path
                .parent()
                .and_then(|dir| dir.canonicalize().ok())
                .is_some_and(|dir| dir.starts_with(&top));
            here && std::fs::symlink_metadata(&path).is_ok()
        });
        return if at_stake {
            take(ctx, action).map(Some)
        } else {
            Ok(None)
        };
    }
    if action.destructive.as_deref() == Some(crate::classify::STASH_PUSH) {
        // The entry keeps the changes; what a push loses stands where a
        // tracked path was deleted or changed its type.
        return match type_changed(ctx, paths.map(|p| (cwd, p)))? {
            Some(changed) if changed.is_empty() => Ok(None),
            Some(changed) => {
                unheld::refuse_ignored_in_place(ctx, &changed)?;
                take(ctx, action).map(Some)
            }
            None => take(ctx, action).map(Some),
        };
    }
    let moves_refs = can_move_refs(action);
    // What the command can destroy: `clean` only untracked files; a
    // checkout of another commit tracked ones and untracked ones in its way.
    // Paths written from a tree-ish: untracked files in their way too.
    let (tracked, untracked) = match action.command.as_str() {
        "clean" => (false, true),
        // The destination of `mv -f` may be an untracked file.
        "mv" => (true, true),
        "checkout" | "switch" if action.checkout.is_some() => (true, true),
        // A shell alias: anything.
        _ if action.effect == crate::action::Effect::Unknown => (true, true),
        _ => (true, action.from_tree),
    };
    // Pathspecs are read from where the command runs; not for a removed
    // worktree, whose files are all at stake.
    let limit = paths
        .filter(|_| removed_ctx.is_none())
        .map(|paths| (cwd, paths));
    // Paths written from a tree-ish overwrite skip-worktree files too.
    let skipped_at_stake = action.from_tree || action.effect == crate::action::Effect::Unknown;
    // A removed worktree's detached HEAD goes with it: kept as the
    // checkpoint's parent, whatever the files.
    let drops_head = removed_ctx.is_some() && ctx.repo.head().is_some_and(|h| h.branch().is_none());
    // The commit whose files a checkout or a reset writes.
    let written = action.incoming().or_else(|| match action.command.as_str() {
        "reset" => action.refs.iter().find_map(|w| w.start.clone()),
        _ => None,
    });
    let written = written.filter(|_| limit.is_none());
    let found = match moves_refs || drops_head {
        true => Found::Something(None),
        false => look(ctx, tracked, untracked, skipped_at_stake, limit)?,
    };
    let seed = match found {
        Found::Nothing => return Ok(None),
        Found::Something(seed) => seed,
        // Refusing before knowing there is anything to lose would refuse
        // what a clean tree lets run: git's look decides first.
        Found::Perhaps(_) if written.is_some() => {
            match git_sees_changes(ctx, tracked, untracked, limit)? {
                true => None,
                false => return Ok(None),
            }
        }
        Found::Perhaps(seed) => {
            let stake = Some(Stake { untracked });
            let at_stake = || git_sees_changes(ctx, tracked, untracked, limit);
            return take_from(ctx, action, seed, stake, at_stake);
        }
    };
    if let Some(tree) = written {
        unheld::refuse_writes_into_nested(ctx, &tree)?;
    }
    match seed {
        Some(seed) => take_from(ctx, action, seed, None, || Ok(true)),
        None => take(ctx, action).map(Some),
    }
}

/// The tracked paths of HEAD within `limit` that are deleted (staged or
/// not) or of another type in the working tree, where an untracked file
/// may stand in their place; `None` when git cannot say (no HEAD). git
/// decides (`diff-index`, optional locks off).
fn type_changed(ctx: &Ctx, limit: Option<(&Path, &[String])>) -> Result<Option<Vec<Vec<u8>>>> {
    let args = [
        "diff-index",
        "--name-only",
        "-z",
        "--diff-filter=DT",
        "HEAD",
    ];
    let out = read_within(ctx, args.map(OsStr::new).to_vec(), limit)?;
    if !out.status.success() {
        return Ok(None);
    }
    Ok(Some(
        out.stdout
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    ))
}

/// Takes a `pre-destructive` checkpoint before the shim moves an agent
/// from a protected branch onto its existing agent branch (carrying the
/// working tree and the index there). The files that differ between the
/// two branches change with the move, which no journal line records: with
/// this checkpoint of the branch left, `git ward undo` puts HEAD back on
/// it with the files and the index as the command found them. Returns
/// `None` in a repository without a working tree. An error means nothing
/// may run.
pub fn before_switch(
    git: &Git,
    repo: &Repo,
    settings: Option<&Settings>,
    action: &Action,
    branch: &str,
    contract: Option<&str>,
    trace_id: &str,
) -> Result<Option<String>> {
    if repo.workdir().is_none() {
        return Ok(None);
    }
    let ctx = ctx_for(git, repo, settings, contract, trace_id)?;
    let why = format!("{} (moving to '{branch}')", action.command);
    take_as(&ctx, action, why).map(Some)
}

/// The checkpoint context of a command the shim runs, with the settings
/// the decision was made on (else read again).
fn ctx_for<'r>(
    git: &Git,
    repo: &'r Repo,
    settings: Option<&Settings>,
    contract: Option<&str>,
    trace_id: &str,
) -> Result<Ctx<'r>> {
    let settings = match settings {
        Some(settings) => settings.clone(),
        None => crate::facts::load_policy(Some(repo), true)?.settings,
    };
    Ctx::new(
        git.clone(),
        repo,
        settings,
        contract.map(str::to_string),
        trace_id.to_string(),
    )
}

/// `ctx`, its checkpoints holding the ignored files `files` too (as
/// `checkpoint.include_ignored` patterns naming each, from the top).
fn keeping<'r>(ctx: &Ctx<'r>, files: &[Vec<u8>]) -> Ctx<'r> {
    let mut settings = ctx.settings.clone();
    let literal = |path: &str| {
        let mut pattern = String::from("/");
        for c in path.chars() {
            if matches!(c, '*' | '?' | '[' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern
    };
    settings.checkpoint.include_ignored.extend(
        files
            .iter()
            .filter_map(|f| std::str::from_utf8(f).ok())
            .map(literal),
    );
    Ctx {
        git: ctx.git.clone(),
        repo: ctx.repo,
        workdir: ctx.workdir.clone(),
        git_dir: ctx.git_dir.clone(),
        common_dir: ctx.common_dir.clone(),
        settings,
        contract: ctx.contract.clone(),
        trace_id: ctx.trace_id.clone(),
        actor: ctx.actor,
    }
}

/// Takes the pre-destructive checkpoint; returns its id.
fn take(ctx: &Ctx, action: &Action) -> Result<String> {
    take_as(ctx, action, command_line(action))
}

/// [`take`], described as "before git `what`".
fn take_as(ctx: &Ctx, action: &Action, what: String) -> Result<String> {
    let made = take::checkpoint(ctx, options(ctx, action, what))?;
    said(&made);
    Ok(made.id)
}

/// [`take`] from the stat pass of `seed`; with `stake`, only if
/// something is at stake (`at_stake` says where the pass cannot).
fn take_from(
    ctx: &Ctx,
    action: &Action,
    seed: Seed,
    stake: Option<Stake>,
    at_stake: impl FnOnce() -> Result<bool>,
) -> Result<Option<String>> {
    let opts = options(ctx, action, command_line(action));
    let made = take::checkpoint_if(ctx, opts, seed, stake, at_stake)?;
    Ok(made.map(|made| {
        said(&made);
        made.id
    }))
}

/// What a checkpoint left out, said.
fn said(made: &store::Checkpoint) {
    for path in &made.skipped {
        crate::output::errln!(
            "ward: checkpoint {} left out {path} (larger than checkpoint.max_file_size)",
            made.id
        );
    }
}

/// The options of a pre-destructive checkpoint before git `what`.
fn options(ctx: &Ctx, action: &Action, what: String) -> snapshot::Options {
    let mut opts = snapshot::Options::new(Kind::PreDestructive);
    opts.description = format!("before git {what}");
    opts.command = Some(action.operation());
    // `update-ref -d refs/stash` drops every entry at once, as `stash clear`.
    let names_stash = action
        .refs
        .iter()
        .any(|w| matches!(&w.target, RefTarget::Named(n) if n == "refs/stash"));
    // `reflog delete refs/stash@{1}` and `reflog expire` drop stash
    // entries as `stash drop` does: recorded the same way.
    if matches!(action.command.as_str(), "stash" | "reflog") || names_stash {
        opts.keep_stashes = true;
    }
    opts.keep_refs = named_refs(ctx, action);
    opts
}

/// Is an ignored file that `checkpoint.include_ignored` keeps where the
/// command may write one of its files? For a checkout, where the commit it
/// moves to has a file; for a merge or a pick (whose incoming commits are
/// not known before it runs), anywhere; for a worktree removal, anywhere in
/// that worktree (`ctx` is the removed one's). Unsure answers say yes.
fn ignored_in_the_way(ctx: &Ctx, action: &Action) -> Result<bool> {
    let kept = snapshot::allowed_ignored(ctx, &[])?;
    if kept.is_empty() {
        return Ok(false);
    }
    // A stash's files come in too (`stash branch` checks out its base,
    // then applies it): not one tree to look in.
    let Some(tree) = action.incoming().filter(|_| action.command != "stash") else {
        return Ok(true);
    };
    let mut args: Vec<&OsStr> = ["ls-tree", "-r", "--name-only", "-z", &tree, "--"]
        .into_iter()
        .map(OsStr::new)
        .collect();
    args.extend(kept.iter().map(|p| OsStr::from_bytes(p)));
    let out = ctx.git.output(args)?;
    Ok(!out.status.success() || !out.stdout.is_empty())
}

/// Can the command move or delete a ref (so it needs a record even on a
/// clean tree)? A `reset` moves one only when it names a commit other than
/// `HEAD` (classification records it in [`Action::refs`]): `reset --hard`
/// alone on a clean tree changes nothing.
fn can_move_refs(action: &Action) -> bool {
    !action.refs.is_empty()
        || matches!(
            action.command.as_str(),
            "rebase" | "branch" | "stash" | "update-ref"
        )
}

/// The refs a command names, with their current values, to keep reachable.
fn named_refs(ctx: &Ctx, action: &Action) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for w in &action.refs {
        let name = match &w.target {
            RefTarget::Named(n) => n.clone(),
            RefTarget::All => continue,
            RefTarget::Current => match ctx.repo.head() {
                Some(crate::decide::Head::Branch(b)) => format!("refs/heads/{b}"),
                _ => continue,
            },
        };
        if let Some(id) = ctx.repo.ref_target(&name) {
            if !out.iter().any(|(n, _)| n == &name) {
                out.push((name, id));
            }
        }
    }
    out
}

/// A short description of the command for the checkpoint's subject.
fn command_line(action: &Action) -> String {
    let mut text = action.command.clone();
    if let Some(why) = &action.destructive {
        text.push_str(&format!(" ({why})"));
    }
    text
}

/// What a command that moves no ref can lose.
enum Found {
    /// Nothing.
    Nothing,
    /// Something; with the stat pass that found it, where it looked at
    /// every entry.
    Something(Option<Seed>),
    /// Files whose stat data changed: whether their content did too,
    /// their hashes say, so the checkpoint is made from the pass and kept
    /// only if something is at stake.
    Perhaps(Seed),
}

/// Is the working tree clean enough that a command that moves no ref can
/// destroy nothing? With `tracked`, tracked files and the index match HEAD;
/// with `untracked`, there are no untracked files; and no merge is in
/// progress. With `limit` (the directory the command runs in and its
/// pathspecs), only what those pathspecs name is looked at, read by git
/// from that directory exactly as the command reads them. Unsure answers
/// say "not clean".
///
/// Tracked files are first checked in-process against the index's stat
/// cache ([`super::clean`]); over the whole tree that pass is the
/// checkpoint's too ([`Found::Perhaps`]). git is asked only where it
/// cannot tell.
///
/// With `skipped_at_stake`, a skip-worktree file on disk is not clean.
fn look(
    ctx: &Ctx,
    tracked: bool,
    untracked: bool,
    skipped_at_stake: bool,
    limit: Option<(&Path, &[String])>,
) -> Result<Found> {
    if ctx.repo.ref_target("HEAD").is_none()
        || !ctx.settings.checkpoint.include_ignored.is_empty()
        || ctx.git_dir.join("MERGE_HEAD").exists()
    {
        return Ok(Found::Something(None));
    }
    let mut ask_tracked = tracked;
    if tracked {
        // An index gix cannot read may hide assume-unchanged entries,
        // which git's check below does not see: not clean.
        let Some(index) = super::clean::read_index(ctx) else {
            return Ok(Found::Something(None));
        };
        let head = head_tree(ctx);
        let paths = match limit {
            Some((cwd, paths)) if !whole_tree(ctx, limit) => Some(literal_paths(ctx, cwd, paths)),
            _ => None,
        };
        let scope = match &paths {
            None => Scope::Whole,
            Some(Some(paths)) => Scope::Paths(paths),
            Some(None) => Scope::Marked,
        };
        // Where the scope covers what the command reads, a finding is the answer.
        let covered = !matches!(scope, Scope::Marked);
        let (verdict, differing) = match scope {
            Scope::Whole => super::clean::differing(ctx, &index, head.as_deref(), skipped_at_stake),
            scope => (
                super::clean::tracked(ctx, &index, head.as_deref(), scope, skipped_at_stake),
                None,
            ),
        };
        let seed = differing.map(|differing| Seed { index, differing });
        match verdict {
            Verdict::Clean if !untracked => return Ok(Found::Nothing),
            Verdict::Clean => ask_tracked = false,
            Verdict::Hidden(why) => {
                tracing::debug!("pre-destructive check: {why}");
                return Ok(Found::Something(None));
            }
            // Pathspecs git must read: a difference elsewhere is no answer.
            Verdict::Dirty(why) if covered => {
                tracing::debug!("pre-destructive check: {why}");
                return Ok(Found::Something(seed));
            }
            Verdict::Dirty(why) | Verdict::Unsure(why) => match seed {
                Some(seed) => {
                    tracing::debug!(
                        "pre-destructive check: git decides, hashing for the checkpoint \
                         the files that may differ ({why})"
                    );
                    return Ok(Found::Perhaps(seed));
                }
                None => tracing::debug!("pre-destructive check: git decides ({why})"),
            },
        }
    }
    Ok(
        match git_sees_changes(ctx, ask_tracked, untracked, limit)? {
            true => Found::Something(None),
            false => Found::Nothing,
        },
    )
}

/// Does git see, within `limit`, a tracked file or the index differ from
/// HEAD (with `tracked`), or an untracked file (with `untracked`)?
fn git_sees_changes(
    ctx: &Ctx,
    tracked: bool,
    untracked: bool,
    limit: Option<(&Path, &[String])>,
) -> Result<bool> {
    let args: Vec<&OsStr> = if tracked {
        // One threaded scan.
        let mode = if untracked { "-unormal" } else { "-uno" };
        [
            "status",
            "--porcelain=v1",
            "-z",
            mode,
            "--ignore-submodules=none",
        ]
        .map(OsStr::new)
        .to_vec()
    } else {
        ["ls-files", "-z", "-o", "--exclude-standard", "--directory"]
            .map(OsStr::new)
            .to_vec()
    };
    let out = read_within(ctx, args, limit)?;
    Ok(!(out.status.success() && out.stdout.is_empty()))
}

/// Runs a git command that reads the working tree, limited to the
/// pathspecs of `limit` read from its directory, with optional locks off
/// so that the real index is not rewritten with refreshed stat data.
pub(super) fn read_within<'a>(
    ctx: &Ctx,
    mut args: Vec<&'a OsStr>,
    limit: Option<(&Path, &'a [String])>,
) -> Result<std::process::Output> {
    let git = match limit {
        Some((cwd, paths)) => {
            args.push(OsStr::new("--"));
            args.extend(paths.iter().map(OsStr::new));
            ctx.git.clone().in_dir(cwd)
        }
        None => ctx.git.clone(),
    };
    git.output_with(args, &[("GIT_OPTIONAL_LOCKS", OsStr::new("0"))], None)
}

/// Is a version staged that the working tree no longer holds (`MM`, `AM`,
/// `AD`, a conflict), within `limit`? Unstaging it loses it. git decides
/// (`status`, optional locks off so the index is not rewritten).
fn staged_only(ctx: &Ctx, limit: Option<(&Path, &[String])>) -> Result<bool> {
    let args = [
        "status",
        "--porcelain=v1",
        "-z",
        "-uno",
        "--ignore-submodules=all",
    ];
    let out = read_within(ctx, args.map(OsStr::new).to_vec(), limit)?;
    if !out.status.success() {
        // git cannot say (a path outside the tree, a bad pathspec): the
        // command will fail the same way, or run; a checkpoint errs safe.
        return Ok(true);
    }
    Ok(staged_and_changed_since(&out.stdout))
}

/// Whether `status --porcelain=v1 -z` output holds an entry changed both in
/// the index and on disk since. A rename or copy record carries its source
/// as one more field.
fn staged_and_changed_since(records: &[u8]) -> bool {
    let mut fields = records.split(|&b| b == 0).filter(|f| !f.is_empty());
    while let Some(record) = fields.next() {
        let [x, y, ..] = *record else {
            continue;
        };
        if x != b' ' && x != b'?' && y != b' ' {
            return true;
        }
        if x == b'R' || x == b'C' {
            fields.next();
        }
    }
    false
}

/// Variables that give every pathspec a meaning other than a plain path.
const PATHSPEC_ENV: &[&str] = &[
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
];

/// The pathspecs as paths from the top of the working tree, `/`-separated,
/// when each is a plain path inside it (no glob character, no `:` magic,
/// not absolute, not the top itself); `None` otherwise, and git reads them.
/// `cwd` is where the command runs.
fn literal_paths(ctx: &Ctx, cwd: &Path, paths: &[String]) -> Option<Vec<Vec<u8>>> {
    if PATHSPEC_ENV.iter().any(|v| crate::env::var_os(v).is_some()) {
        return None;
    }
    let cwd = std::fs::canonicalize(cwd).ok()?;
    let prefix = cwd.strip_prefix(&ctx.workdir).ok()?;
    let prefix: Vec<&[u8]> = prefix
        .components()
        .map(|c| c.as_os_str().as_bytes())
        .collect();
    paths
        .iter()
        .map(|spec| {
            let plain = !spec.is_empty()
                && !spec.starts_with([':', '/'])
                && !spec.contains(['*', '?', '[', '\\']);
            if !plain {
                return None;
            }
            let mut parts = prefix.clone();
            for part in spec.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        parts.pop()?;
                    }
                    name => parts.push(name.as_bytes()),
                }
            }
            (!parts.is_empty()).then(|| parts.join(&b'/'))
        })
        .collect()
}

/// Does `limit` name the whole tree (none, or `.` from its top)?
fn whole_tree(ctx: &Ctx, limit: Option<(&Path, &[String])>) -> bool {
    match limit {
        None => true,
        Some((cwd, paths)) => {
            paths == ["."] && std::fs::canonicalize(cwd).is_ok_and(|cwd| cwd == ctx.workdir)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::{CheckoutTarget, RefOp, RefWrite};

    #[test]
    fn staged_versions_the_working_tree_no_longer_holds() {
        let rows: &[(&[u8], bool)] = &[
            (b"", false),
            (b"M  a\0", false),
            (b" M a\0", false),
            (b"D  a\0 D b\0", false),
            (b"MM a\0", true),
            (b"AM a\0", true),
            (b"AD a\0", true),
            (b"MD a\0", true),
            (b"UU a\0", true),
            (b"DD a\0", true),
            // A rename's source is one more field, never read as a record.
            (b"R  new\0MM old\0", false),
            (b"RM new\0old\0", true),
            (b"M  a\0 M b\0AM c\0", true),
        ];
        for (records, want) in rows {
            assert_eq!(
                staged_and_changed_since(records),
                *want,
                "{}",
                String::from_utf8_lossy(records)
            );
        }
    }

    fn checkout(target: CheckoutTarget, start: Option<&str>) -> Action {
        Action {
            checkout: Some(target),
            refs: start
                .map(|s| RefWrite {
                    target: RefTarget::Named("refs/heads/new".into()),
                    op: RefOp::Create,
                    start: Some(s.into()),
                })
                .into_iter()
                .collect(),
            ..Action::mutating("checkout")
        }
    }

    #[test]
    fn the_commit_a_checkout_brings_in() {
        let rows: [(Action, Option<&str>); 8] = [
            (
                checkout(CheckoutTarget::Local("x".into()), None),
                Some("refs/heads/x"),
            ),
            (
                checkout(CheckoutTarget::Remote("origin/x".into()), None),
                Some("origin/x"),
            ),
            (
                checkout(CheckoutTarget::Special("HEAD~2".into()), None),
                Some("HEAD~2"),
            ),
            (
                checkout(CheckoutTarget::Special("-".into()), None),
                Some("@{-1}"),
            ),
            (
                checkout(CheckoutTarget::Detach("v1".into()), None),
                Some("v1"),
            ),
            (
                checkout(CheckoutTarget::New("new".into()), Some("origin/main")),
                Some("origin/main"),
            ),
            (
                checkout(CheckoutTarget::New("new".into()), None),
                Some("HEAD"),
            ),
            (Action::mutating("merge"), None),
        ];
        for (action, want) in rows {
            assert_eq!(action.incoming().as_deref(), want, "{action:?}");
        }
    }
}
