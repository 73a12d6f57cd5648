//! `git ward rollback`: restore the working tree from a checkpoint, after
//! showing the plan and asking.
//!
//! Order matters for safety: plan, confirm, take the pre-rollback safety
//! checkpoint (its ref exists before any file changes), then restore only
//! the paths that differ. Killed at any point, the repository is either
//! untouched or its pre-rollback state is one `git ward rollback` away.

use super::Outcome;
use std::path::PathBuf;

use serde_json::json;

use super::ask::{confirm, Confirmation, Out};
use crate::checkpoint::plan::{self};
use crate::checkpoint::rollback::{
    diff, index_differs, prepare, safety_line, set_index, summary, take_safety,
};
use crate::checkpoint::store::{self};
use crate::checkpoint::{tool_repo, Ctx};
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
    /// Restore even from a checkpoint whose commit is not the one git-ward
    /// made under its id (its ref rewritten), once you have read the plan.
    /// A person's flag: an agent's is refused.
    #[arg(long)]
    pub accept_changed: bool,
    /// List unchanged files too.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward rollback`.
pub fn run(args: RollbackArgs) -> Outcome {
    let json = args.json;
    Outcome::coded(json, rollback(args))
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
        .then(|| crate::checkpoint::busy::Restoring::take(&ctx.git_dir, "rollback"))
        .transpose()?;
    if !args.dry_run {
        super::leftovers::clear_locks_saying(&repo, &out);
    }
    if let Some(gone) = crate::checkpoint::worktree::gone(&ctx, &cp)? {
        let undo = crate::checkpoint::undo::undo_line(&ctx, &cp.id);
        return Err(crate::checkpoint::worktree::gone_error(
            &cp,
            &gone,
            undo.as_deref(),
        ));
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
    let index_changes = args.index
        && (index_differs(&cp, &prepared.present) || crate::checkpoint::merge::changes(&ctx, &cp));
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
    let changed = store::changed(&ctx, &cp);
    if let Some(why) = &changed {
        out.say(&format!("  CHANGED   {why}\n"));
        value["changed"] = why.clone().into();
    }

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
        if !prepared.plan.refused.is_empty() {
            let n = prepared.plan.refused.len();
            return Ok(out.failed(value, n, "rollback"));
        }
        return Ok((value, exit::OK));
    }
    if let Some(why) = &changed {
        let accepted = args.accept_changed;
        let step = crate::decide::ToolStep::RestoreChanged { why, accepted };
        crate::commands::tool_step(step, "ward.rollback")?;
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
    let failures = plan::apply(&ctx, &selected, &prepared.plan)?;
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
    let mut record = super::checkpoint::tool_record(&ctx, "ward.rollback", started, actions);
    if !failures.is_empty() {
        record.exit_code = Some(exit::INTERNAL.into());
    }
    crate::audit::append(&ctx.audit_dir(), &[record]);
    value["restored"] = (selected.len() + prepared.plan.refused.len())
        .saturating_sub(failures.len())
        .into();
    value["failures"] = serde_json::to_value(&failures).unwrap_or_default();
    if failures.is_empty() {
        Ok((value, exit::OK))
    } else {
        Ok(out.failed(value, failures.len(), "rollback"))
    }
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
