//! `git ward rollback`: restore the working tree from a checkpoint, after
//! showing the plan and asking.
//!
//! Order matters for safety: plan, confirm, take the pre-rollback safety
//! checkpoint (its ref exists before any file changes), then restore only
//! the paths that differ. Killed at any point, the repository is either
//! untouched or its pre-rollback state is one `git ward rollback` away.

use std::ffi::OsStr;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use serde_json::json;

use super::plan::{self, Entry, Failure, Plan, Status};
use super::snapshot::{self, Options, Trees};
use super::store::{self, Checkpoint, Kind};
use super::{tool_repo, Ctx};
use crate::decide::Verdict;
use crate::error::{exit, Error, IoContext, Result};

/// Restore the working tree from a checkpoint. Shows the plan (RESTORE,
/// REMOVE, MISSING, UNCHANGED), asks `Continue with rollback? [y/N]`, takes
/// a safety checkpoint, then writes only what differs. Ignored files are
/// never touched; the checkpoint is kept.
#[derive(Debug, clap::Args)]
pub struct RollbackArgs {
    /// The checkpoint to restore (`chk-local-3`).
    pub id: String,
    /// Do not ask (needed when there is no terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Show the plan and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Restore only these paths (files or directories inside the working tree).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub files: Vec<PathBuf>,
    /// Show the differences before the plan.
    #[arg(long)]
    pub diff: bool,
    /// Ask for each file: y (yes), N (no, the default), a (all the rest).
    /// The questions need a terminal: without one nothing changes, even
    /// with --yes.
    #[arg(short = 'i', long)]
    pub interactive: bool,
    /// Skip the pre-rollback safety checkpoint.
    #[arg(long)]
    pub no_safety: bool,
    /// Restore the staged state (the index) too.
    #[arg(long)]
    pub index: bool,
    /// Commit the restored state as `Rollback to <id>`, under the same rules as any commit.
    #[arg(long)]
    pub commit: bool,
    /// List unchanged files too.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Where text goes: stdout for people, nowhere with `--json`.
pub struct Out {
    pub json: bool,
}

impl Out {
    /// The end of a restore that left `failed` files as they were (each
    /// named above with its reason): the error line and its hint, in the
    /// JSON too; exit 3.
    pub fn failed(
        &self,
        mut value: serde_json::Value,
        failed: usize,
        what: &str,
    ) -> (serde_json::Value, u8) {
        let err = crate::error::Error::internal(format!(
            "{what}: {failed} path{} could not be restored; everything else was",
            plan::plural(failed)
        ))
        .with_hint("the reason given for each says what stood in the way; what was restored stays restored, so the same command can run again once that is fixed");
        if !self.json {
            crate::invocation::report(&err);
        }
        if let (Some(map), serde_json::Value::Object(e)) = (value.as_object_mut(), err.to_json()) {
            map.extend(e);
        }
        (value, exit::INTERNAL)
    }

    pub fn say(&self, text: &str) {
        if !self.json && !text.is_empty() {
            crate::output::out!("{text}");
            if !text.ends_with('\n') {
                crate::output::outln!();
            }
            let _ = std::io::stdout().flush();
        }
    }
}

/// Runs `git ward rollback`.
pub fn run(args: RollbackArgs) -> Result<u8> {
    let json = args.json;
    crate::cli::finish_coded(json, rollback(args))
}

fn rollback(args: RollbackArgs) -> Result<(serde_json::Value, u8)> {
    let out = Out { json: args.json };
    let repo = tool_repo()?;
    let ctx = Ctx::for_tool(&repo)?;
    if args.no_safety {
        // What an agent's command overwrites must stay undoable.
        crate::commands::tool_step(
            crate::decide::ToolStep::RollbackWithoutSafety,
            "ward.rollback",
        )?;
    }
    if !args.dry_run {
        super::leased::check(&repo, &ctx.git_dir, "rollback")?;
    }
    let cp = store::find(&ctx, &args.id)?;
    let _restoring = (!args.dry_run)
        .then(|| super::busy::Restoring::take(&ctx.git_dir, "rollback"))
        .transpose()?;
    if let Some(gone) = super::worktree::gone(&ctx, &cp)? {
        let undo = super::undo::undo_line(&ctx, &cp.id);
        return Err(super::worktree::gone_error(&cp, &gone, undo.as_deref()));
    }
    let cwd = std::env::current_dir().doing("read the current directory")?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let paths = plan::resolve_paths(&ctx.workdir, &cwd, &args.files)?;
    let started = std::time::SystemTime::now();

    let prepared = prepare(&ctx, &cp, &paths, args.verbose)?;
    out.say(&format!(
        "Rollback to {} ({}, {}: {})\n",
        cp.id,
        cp.created,
        cp.kind.as_str(),
        cp.description
    ));
    if args.diff {
        out.say(&diff(&ctx, &prepared.present.tree, &cp.tree, &paths)?);
    }
    out.say(&prepared.plan.render(args.verbose));
    let index_changes =
        args.index && (index_differs(&cp, &prepared.present) || super::merge::changes(&ctx, &cp));
    if index_changes {
        out.say("  INDEX     the staged state will be set to the checkpoint's\n");
    }
    out.say(&prepared.plan.warning());
    let mut value = json!({
        "checkpoint": cp.id,
        "plan": prepared.plan,
        "modify": prepared.plan.modifies(),
        "remove": prepared.plan.removes(),
    });

    // The commit's rules are asked before anything changes: a denied
    // commit must not leave the files restored and uncommitted.
    let switch = if args.commit {
        commit_rules(&cp.id)?
    } else {
        None
    };
    if args.dry_run {
        out.say("Dry run: nothing changed.");
        value["dry_run"] = true.into();
        return Ok((value, exit::OK));
    }
    if prepared.plan.entries.is_empty() && !index_changes && !args.commit {
        out.say(&match prepared.plan.lost() {
            Some(lost) => format!(
                "Nothing to restore: {lost}; the rest of the working tree matches the checkpoint."
            ),
            None => "Nothing to restore: the working tree matches the checkpoint.".into(),
        });
        return Ok((value, exit::OK));
    }
    let selected = match confirm(&prepared.plan, args.yes, args.interactive, "rollback")? {
        Confirmation::Go(s) => s,
        not => return Ok(not.refused(&out, value)),
    };

    let mut actions = Vec::new();
    if !args.no_safety {
        let safety = take_safety(
            &ctx,
            &prepared.present,
            &format!("before rollback to {}", cp.id),
            Some(&cp.id),
        )?;
        out.say(&safety_line(&safety));
        value["safety_checkpoint"] = safety.clone().into();
        actions.push(format!("safety checkpoint {safety}"));
    }
    let failures = plan::apply(&ctx, &selected, &prepared.plan.private_dirs)?;
    if args.index {
        set_index(&ctx, &cp)?;
    }
    let mut done = summary(&selected, &failures);
    if let Some(lost) = prepared.plan.lost() {
        done.push_str(&format!("{lost}\n"));
    }
    out.say(&done);
    actions.push(format!("rollback to {}", cp.id));
    if args.commit {
        let branch = commit_restored(&ctx, &cp.id, switch.as_deref())?;
        out.say(&format!(
            "Committed as `Rollback to {}` on {branch}\n",
            cp.id
        ));
        value["committed_on"] = branch.clone().into();
        actions.push(format!("committed on {branch}"));
    }
    if !failures.is_empty() {
        let n = failures.len();
        actions.push(format!("{n} path{} not restored", plan::plural(n)));
    }
    let mut record = super::cmd::tool_record(&ctx, "ward.rollback", started, actions);
    if !failures.is_empty() {
        record.exit_code = Some(exit::INTERNAL.into());
    }
    crate::audit::append(&ctx.audit_dir(), &[record]);
    value["restored"] = (selected.len() - failures.len()).into();
    value["failures"] = serde_json::to_value(&failures).unwrap_or_default();
    if failures.is_empty() {
        Ok((value, exit::OK))
    } else {
        Ok(out.failed(value, failures.len(), "rollback"))
    }
}

/// What the question got.
#[derive(Debug)]
pub enum Confirmation<'p> {
    /// Go ahead with these entries.
    Go(Vec<&'p Entry>),
    /// Asked at the terminal; the answer was not yes.
    Declined,
    /// No terminal to ask, and no `--yes`.
    NoTerminal,
    /// `--interactive` with no terminal to ask about each file; `--yes`
    /// cannot answer those questions (each one's default is no).
    NoTerminalPerFile,
}

impl Confirmation<'_> {
    /// The line that says nothing changed, and why, when not confirmed.
    pub fn message(&self) -> Option<&'static str> {
        match self {
            Confirmation::Go(_) => None,
            Confirmation::Declined => Some("Not confirmed: nothing changed."),
            Confirmation::NoTerminal => Some(
                "Not confirmed: nothing changed. There is no terminal to ask; run again with --yes to proceed (or --dry-run to see the plan only).",
            ),
            Confirmation::NoTerminalPerFile => Some(
                "Not confirmed: nothing changed. --interactive asks about each file and there is no terminal to ask; run it at a terminal, or run again without --interactive and with --yes to restore the whole plan (or --dry-run to see the plan only).",
            ),
        }
    }

    /// Says that nothing changed and returns the report of a run not
    /// confirmed: a person who said no at the terminal gets status D, exit 1;
    /// with no terminal to ask (an agent), the command to run instead and
    /// status I, exit 2, so that a program does not take it for a denial.
    pub fn refused(&self, out: &Out, mut value: serde_json::Value) -> (serde_json::Value, u8) {
        let mut message = self.message().unwrap_or_default().to_string();
        let code = match self {
            Confirmation::NoTerminal => {
                message = format!("{message} To proceed: {}", rerun_with_yes());
                exit::INVALID
            }
            Confirmation::NoTerminalPerFile => exit::INVALID,
            _ => exit::DENIED,
        };
        out.say(&message);
        value["status"] = exit::status(code).into();
        value["message"] = message.into();
        (value, code)
    }
}

/// This command line again, with `--yes`: `git ward undo --yes`.
fn rerun_with_yes() -> String {
    let words = crate::process::tool_argv().into_iter().map(|w| {
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b));
        if plain {
            w
        } else {
            format!("'{}'", w.replace('\'', "'\\''"))
        }
    });
    let mut line = String::from("git ward");
    for word in words.chain(std::iter::once("--yes".to_string())) {
        line.push(' ');
        line.push_str(&word);
    }
    line
}

/// The present snapshot and the plan from it to a checkpoint.
pub struct Prepared {
    pub present: Trees,
    pub plan: Plan,
}

/// Does the staged state differ from the checkpoint's: the staged tree,
/// which paths are in conflict, or which are marked intent-to-add,
/// skip-worktree or assume-unchanged (none of which a staged tree shows)? (A conflicted path
/// is recorded as its `ours` side: after `stash pop` conflicts over a
/// staged edit, the same tree as before.)
pub fn index_differs(cp: &Checkpoint, present: &Trees) -> bool {
    fn set<T: Ord>(paths: &[T]) -> std::collections::BTreeSet<&T> {
        paths.iter().collect()
    }
    cp.index_tree.as_deref() != Some(present.index_tree.as_str())
        || set(&cp.conflicted) != set(&present.conflicted)
        || set(&cp.intent_to_add) != set(&present.intent_to_add)
        || set(&cp.skip_worktree) != set(&present.skip_worktree)
        || set(&cp.assume_unchanged) != set(&present.assume_unchanged)
}

/// Snapshots the present and plans the way to `cp`.
pub fn prepare(ctx: &Ctx, cp: &Checkpoint, paths: &[PathBuf], verbose: bool) -> Result<Prepared> {
    let present = snapshot::trees(ctx)?;
    let mut plan = plan::compute(
        ctx,
        &present.tree,
        &cp.tree,
        paths,
        &present.ignored,
        (cp.counts.files > 0).then_some(cp.counts.files),
        verbose,
    )?;
    plan.left_out = plan::left_out(&ctx.workdir, &cp.skipped, paths);
    plan.keep_modes(&cp.modes);
    Ok(Prepared { present, plan })
}

/// `git diff` from the present to the checkpoint.
fn diff(ctx: &Ctx, present: &str, target: &str, paths: &[PathBuf]) -> Result<String> {
    let mut args: Vec<&OsStr> = [
        "--literal-pathspecs",
        "diff",
        "--no-ext-diff",
        "--no-color",
        present,
        target,
        "--",
    ]
    .map(OsStr::new)
    .to_vec();
    args.extend(paths.iter().map(|p| p.as_os_str()));
    ctx.git.run(&args)
}

/// Asks for confirmation, at the terminal on stdin. `--interactive` reads
/// y/N/a per file from that terminal; without one it asks nothing and
/// chooses nothing, `--yes` or not (a pipe's lines are not a person's
/// answers, and `--yes` cannot say which files).
pub fn confirm<'p>(
    plan: &'p Plan,
    yes: bool,
    interactive: bool,
    what: &str,
) -> Result<Confirmation<'p>> {
    let all: Vec<&Entry> = plan.entries.iter().collect();
    if interactive {
        if !std::io::stdin().is_terminal() {
            return Ok(Confirmation::NoTerminalPerFile);
        }
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        let mut chosen = Vec::new();
        let mut rest = false;
        for e in &all {
            if rest || yes {
                chosen.push(*e);
                continue;
            }
            crate::output::err!("{} {}? [y/N/a] ", e.status.word(), e.path);
            let answer = lines.next().and_then(|l| l.ok()).unwrap_or_default();
            match answer.trim() {
                "y" | "Y" | "yes" => chosen.push(*e),
                "a" | "A" | "all" => {
                    rest = true;
                    chosen.push(*e);
                }
                _ => {}
            }
        }
        return Ok(Confirmation::Go(chosen));
    }
    if yes {
        return Ok(Confirmation::Go(all));
    }
    if !std::io::stdin().is_terminal() {
        return Ok(Confirmation::NoTerminal);
    }
    crate::output::err!("Continue with {what}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .doing("read the answer")?;
    Ok(if is_yes(&answer) {
        Confirmation::Go(all)
    } else {
        Confirmation::Declined
    })
}

/// Is this line a yes? Anything else, an empty line too, is the default no.
fn is_yes(answer: &str) -> bool {
    matches!(answer.trim(), "y" | "Y" | "yes")
}

/// Stores the present snapshot as a pre-rollback checkpoint, before a
/// restore from checkpoint `from` (which retention then spares); returns
/// its id.
pub fn take_safety(
    ctx: &Ctx,
    present: &Trees,
    description: &str,
    from: Option<&str>,
) -> Result<String> {
    let mut opts = Options::new(Kind::PreRollback);
    opts.description = description.to_string();
    opts.keep_stashes = true;
    opts.spare = from.map(str::to_string);
    Ok(snapshot::store(ctx, present, opts)?.id)
}

/// The line naming the safety checkpoint.
pub fn safety_line(id: &str) -> String {
    format!("Safety checkpoint: {id} (undo this with `git ward rollback {id}`)\n")
}

/// Sets the real index to the checkpoint's staged tree, keeping the stat
/// cache of unchanged entries, its skip-worktree marks on the files it
/// took from disk, its assume-unchanged and intent-to-add marks, and the
/// merge state to its (a merge in progress comes
/// back with its conflict stages).
pub fn set_index(ctx: &Ctx, cp: &Checkpoint) -> Result<()> {
    let Some(tree) = &cp.index_tree else {
        return Ok(());
    };
    snapshot::wait_for_index_lock(&ctx.git_dir)?;
    ctx.git.run(["read-tree", "--reset", tree])?;
    let nul = snapshot::nul_terminated;
    // Marked again where the checkpoint found them marked.
    for (paths, flag) in [
        (&cp.skip_worktree, "--skip-worktree"),
        (&cp.assume_unchanged, "--assume-unchanged"),
    ] {
        if !paths.is_empty() {
            let args = ["update-index", "-z", flag, "--stdin"];
            ctx.git.output_with(args, &[], Some(&nul(paths)))?;
        }
    }
    // Added with --intent-to-add again (a file gone since stays out).
    let intended: Vec<Vec<u8>> = cp
        .intent_to_add
        .iter()
        .filter(|p| std::fs::symlink_metadata(super::in_tree(&ctx.workdir, p)).is_ok())
        .cloned()
        .collect();
    if !intended.is_empty() {
        let args = [
            "--literal-pathspecs",
            "add",
            "--intent-to-add",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ];
        ctx.git.output_with(args, &[], Some(&nul(&intended)))?;
    }
    let _ = ctx.git.output(["update-index", "-q", "--refresh"]);
    super::merge::set(ctx, cp)
}

/// `Restored 3 files, removed 1 file` and the failures.
pub fn summary(selected: &[&Entry], failures: &[Failure]) -> String {
    let failed: std::collections::HashSet<&str> =
        failures.iter().map(|f| f.path.as_str()).collect();
    let ok = |s: Status| {
        selected
            .iter()
            .filter(|e| e.status == s && !failed.contains(e.path.as_str()))
            .count()
    };
    let written = ok(Status::Restore) + ok(Status::Missing);
    let removed = ok(Status::Remove);
    let mut t = format!(
        "Restored {written} file{}, removed {removed} file{}\n",
        plan::plural(written),
        plan::plural(removed)
    );
    for f in failures {
        t.push_str(&format!("not restored: {}: {}\n", f.path, f.reason));
    }
    t
}

/// Asks the rules about committing the restored state as `Rollback to
/// <id>`, as for any commit: an error when denied (nothing has changed
/// yet), else the agent branch to switch to first, if any.
fn commit_rules(id: &str) -> Result<Option<String>> {
    let message = format!("Rollback to {id}");
    let argv: Vec<std::ffi::OsString> = ["commit", "-q", "-m", &message]
        .iter()
        .map(|s| s.into())
        .collect();
    let a = crate::assess::assess(&argv, false);
    match a.decision.verdict {
        Verdict::Deny(err) => {
            let hint = err.hint.clone().unwrap_or_default();
            Err(err.with_hint(format!("{hint} (nothing was restored)")))
        }
        Verdict::Switch(branch) => Ok(Some(branch)),
        Verdict::Allow => Ok(None),
    }
}

/// Commits the restored state as `Rollback to <id>`, on the agent branch
/// the rules chose (`switch`, [`commit_rules`]) or where HEAD is.
fn commit_restored(ctx: &Ctx, id: &str, switch: Option<&str>) -> Result<String> {
    let message = format!("Rollback to {id}");
    if let Some(branch) = switch {
        let exists = ctx
            .repo
            .ref_target(&format!("refs/heads/{branch}"))
            .is_some();
        let args: Vec<&str> = if exists {
            vec!["checkout", "-q", branch]
        } else {
            vec!["checkout", "-q", "-b", branch]
        };
        let out = ctx.git.output(&args)?;
        if !out.status.success() {
            return Err(Error::internal(format!(
                "cannot switch to '{branch}' to commit the rollback: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
            .with_hint("the files are restored; commit them by hand"));
        }
    }
    ctx.git.run(["add", "-A"])?;
    ctx.git
        .run(["commit", "-q", "--allow-empty", "-m", &message])?;
    let branch = ctx
        .git
        .run(["rev-parse", "--abbrev-ref", "HEAD"])
        .unwrap_or_else(|_| "HEAD".into());
    Ok(branch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_yes_confirms() {
        for yes in ["y\n", "Y\n", "yes\n", " y \r\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n\n", "N\n", "no\n", "yes please\n", "ok\n"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }

    #[test]
    fn only_a_missing_terminal_is_blamed_on_the_terminal() {
        let declined = Confirmation::Declined.message().unwrap();
        assert!(declined.starts_with("Not confirmed: nothing changed"));
        assert!(!declined.contains("terminal"), "{declined}");
        let alone = Confirmation::NoTerminal.message().unwrap();
        assert!(alone.contains("no terminal to ask"), "{alone}");
        assert!(alone.contains("--yes"), "{alone}");
        let per_file = Confirmation::NoTerminalPerFile.message().unwrap();
        assert!(per_file.starts_with("Not confirmed: nothing changed"));
        assert!(per_file.contains("no terminal to ask"), "{per_file}");
        assert!(per_file.contains("without --interactive and with --yes"));
        assert_eq!(Confirmation::Go(Vec::new()).message(), None);
    }
}
