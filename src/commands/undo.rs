//! `git ward undo`: undo the last agent command that changed anything.
//!
//! The audit log says what that command was: the shim's line (with the
//! pre-destructive checkpoint it took) and the ref journal that the
//! reference-transaction hook wrote under the same trace id. Undo restores
//! the working tree and the index from the checkpoint and moves each ref
//! back, but only a ref that still holds the value the command left.
//!
//! An undo records itself the same way (its own safety checkpoint and the
//! ref moves it made, under its own trace id), so the next undo redoes.

use serde_json::{json, Value};

use super::ask::{confirm, Confirmation, Out};
use super::Outcome;
use crate::audit::{self, Record};
use crate::checkpoint::busy::Restoring;
use crate::checkpoint::plan::{plural, Failure, Plan};
use crate::checkpoint::rollback;
use crate::checkpoint::store::{self, Checkpoint};
use crate::checkpoint::undo::{cut_short, last_borrowed_tree, undoable, Scope, Undoable};
use crate::checkpoint::{tool_repo, Ctx};
use crate::error::{exit, Result};
use crate::facts::worktrees::Existing;

mod files;
mod refs;

use files::FilePlan;
use refs::{Moved, RefPlan};

/// Undo the last agent command: restore its working tree and index from
/// the checkpoint taken before it, and move back the refs it changed (only
/// those still where it left them). Shows the plan and asks first; run it
/// again to redo.
#[derive(Debug, clap::Args)]
pub struct UndoArgs {
    /// Do not ask (needed when there is no terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Show the plan and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// List the recent undoable commands, newest first.
    #[arg(long)]
    pub list: bool,
    /// Undo even from a checkpoint whose commit is not the one git-ward
    /// made under its id (its ref rewritten), once you have read the plan.
    /// A person's flag: an agent's is refused.
    #[arg(long)]
    pub accept_changed: bool,
    /// List the unchanged files of the plan too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Put back the guarded refs that moved with git-ward's hooks off
    /// (drift) instead: `git ward drift --restore`.
    #[arg(long)]
    pub drift: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward undo`.
pub fn run(args: UndoArgs) -> Outcome {
    if args.drift {
        return super::drift::run(super::drift::DriftArgs {
            restore: true,
            accept: false,
            json: args.json,
        });
    }
    let json = args.json;
    Outcome::coded(json, undo(args))
}

/// How many commands `git ward undo --list` shows.
const LISTED: usize = 20;

fn undo(args: UndoArgs) -> Result<(Value, u8)> {
    let out = Out { json: args.json };
    let repo = tool_repo()?;
    let ctx = Ctx::for_tool(&repo)?;
    let ctx = Ctx {
        git: ctx
            .git
            .clone()
            .env(crate::env::WARD_TRACE_ID, &ctx.trace_id),
        ..ctx
    };
    let changes = !args.list && !args.dry_run;
    if changes {
        super::leased::check(&repo, &ctx.git_dir, "undo")?;
    }
    // Held until the undo is recorded: a second one waits for no half.
    let _restoring = changes
        .then(|| Restoring::take(&ctx.git_dir, "undo"))
        .transpose()?;
    if changes {
        super::leftovers::clear_locks_saying(&repo, &out);
    }
    let existing = Existing::read(&ctx.git);
    let scope = Scope::new(&ctx.workdir, &existing);
    // The last command, or the last `LISTED` for `--list`.
    let wanted = if args.list { LISTED } else { 1 };
    let mut records = audit::read_newest(&ctx.audit_dir(), |rs| {
        undoable(rs.iter().copied(), &scope).len() >= wanted
    });
    cut_short::add(&ctx, &mut records);
    let all = undoable(&records, &scope);
    if args.list {
        return Ok(list(&out, &all));
    }
    let Some(last) = all.last() else {
        return Ok(nothing_on_record(&out, &records, &existing));
    };
    out.say(&format!("Undo `{}` ({})\n", last.title(), last.time));
    let cp = checkpoint_of(&ctx, &out, last);
    let refs = RefPlan::read(&ctx, &out, last, cp.as_ref())?;
    say_kept(&ctx, &out, cp.as_ref());
    // A checkpoint of another worktree: one the command removed comes
    // back; one that still exists is restored where it is.
    let (gone, there) = files::elsewhere(&ctx, cp.as_ref())?;
    let there_ctx = there.as_ref().map(|r| ctx.sibling(r)).transpose()?;
    let here = there_ctx.as_ref().unwrap_or(&ctx);
    let files = FilePlan::read(&ctx, here, cp.as_ref(), gone, args.verbose)?;
    files.say(&out, here, cp.as_ref(), args.verbose);
    let changed = cp.as_ref().and_then(|cp| store::changed(&ctx, cp));
    if let Some(why) = &changed {
        out.say(&format!("\n  CHANGED   {why}\n"));
    }
    let plan = files.plan();
    let mut value = json!({
        "undo": last,
        "refs": refs.steps,
        "refs_refused": refs.refused,
        "changed": changed,
        "head": refs.head,
        "plan": plan,
        "modify": plan.modifies(),
        "remove": plan.removes(),
    });
    if args.dry_run {
        out.say("Dry run: nothing changed.");
        value["dry_run"] = true.into();
        return Ok((value, exit::OK));
    }
    if refs.is_empty() && files.is_empty() {
        out.say(&nothing_to_undo(
            last,
            cp.as_ref(),
            plan,
            refs.moved_since(),
        ));
        return Ok((value, exit::OK));
    }
    if let Some(why) = &changed {
        let accepted = args.accept_changed;
        let step = crate::decide::ToolStep::RestoreChanged { why, accepted };
        crate::commands::tool_step(step, "ward.undo")?;
    }
    let selected = match confirm(plan, args.yes, false, "undo")? {
        Confirmation::Go(s) => s,
        not => return Ok(not.refused(&out, value)),
    };
    let started = std::time::SystemTime::now();
    let safety = rollback::take_safety(
        here,
        &files.present,
        &format!("before undo of {}", last.title()),
        cp.as_ref().map(|cp| cp.id.as_str()),
    )?;
    out.say(&rollback::safety_line(&safety));
    let mut moved = refs.apply(&ctx)?;
    let (failures, stash_failures) = files.apply(&ctx, here, cp.as_ref(), &selected)?;
    moved.failures.extend(stash_failures);
    out.say(&done(&refs, &moved, &selected, &failures, plan));
    record(&ctx, last, &refs, &moved, &safety, started, failures.len());
    value["safety_checkpoint"] = safety.into();
    value["moved_back"] = serde_json::to_value(&moved.journal).unwrap_or_default();
    if failures.is_empty() && moved.failures.is_empty() {
        Ok((value, exit::OK))
    } else {
        let failed = failures.len() + moved.failures.len();
        value["failures"] = json!({ "files": failures, "refs": moved.failures });
        Ok(out.failed(value, failed, "undo"))
    }
}

/// `undo --list`: the last commands that can be undone, newest first.
fn list(out: &Out, all: &[Undoable]) -> (Value, u8) {
    let mut text = String::new();
    if all.is_empty() {
        text.push_str("nothing to undo\n");
    }
    for u in all.iter().rev().take(LISTED) {
        text.push_str(&format!(
            "{}  {}  checkpoint {}  {} ref change{}\n",
            u.time,
            u.title(),
            u.checkpoint.as_deref().unwrap_or("-"),
            u.refs.len(),
            plural(u.refs.len())
        ));
    }
    out.say(&text);
    let list: Vec<&Undoable> = all.iter().rev().take(LISTED).collect();
    (json!({ "status": "S", "undoable": list }), exit::OK)
}

/// No agent command here changed anything; one that ran on another
/// working tree (`--work-tree`) is named with how to undo it.
fn nothing_on_record(out: &Out, records: &[Record], existing: &Existing) -> (Value, u8) {
    out.say("Nothing to undo: no agent command that changed anything is on record.");
    if let Some(dir) = last_borrowed_tree(records, existing) {
        out.say(&format!(
            "\nThe last agent command here ran on {} as its working tree (`--work-tree`, GIT_WORK_TREE): `git --work-tree={} ward undo` undoes it.",
            dir.display(),
            dir.display()
        ));
    }
    (json!({ "status": "S", "undone": null }), exit::OK)
}

/// The checkpoint taken before `last`, said to be gone when it is.
fn checkpoint_of(ctx: &Ctx, out: &Out, last: &Undoable) -> Option<Checkpoint> {
    let Some(id) = &last.checkpoint else {
        out.say("  FILES     left as they are: no checkpoint was taken before the command\n");
        return None;
    };
    match store::find(ctx, id) {
        Ok(cp) => Some(cp),
        Err(_) => {
            out.say(&format!(
                "  checkpoint {id} no longer exists: the working tree is left as it is\n"
            ));
            None
        }
    }
}

/// History a `reflog expire` or `prune` would have destroyed stays where
/// the checkpoint keeps it: nothing to put back, only to say where.
fn say_kept(ctx: &Ctx, out: &Out, cp: Option<&Checkpoint>) {
    let Some(cp) = cp else {
        return;
    };
    for name in store::kept_refs(ctx, &cp.id) {
        if name.ends_with("/lost") {
            out.say(&format!(
                "  KEPT      commits only reflogs held: `git log {name}` lists them\n"
            ));
        }
    }
}

/// Why nothing is undone, when nothing is to be written or moved.
fn nothing_to_undo(
    last: &Undoable,
    cp: Option<&Checkpoint>,
    plan: &Plan,
    moved_since: usize,
) -> String {
    match plan.lost() {
        Some(lost) => {
            format!("Nothing can be undone: {lost}; everything else is as it was before it.")
        }
        // Its checkpoint went (retention, or by hand): the files it held
        // cannot come back, which is not "as they were".
        None if cp.is_none() && last.checkpoint.is_some() => format!(
            "Nothing can be undone: checkpoint {}, which held the files from before the command, no longer exists (retention keeps the newest checkpoint.keep per worktree); its refs are as they were before it.",
            last.checkpoint.as_deref().unwrap_or_default()
        ),
        None if moved_since > 0 => format!(
            "Nothing undone: {moved_since} ref{} the command moved {} moved since (left alone above); the rest is as it was before it.",
            plural(moved_since),
            if moved_since == 1 { "has" } else { "have" }
        ),
        None => "Nothing to undo: files and refs are already as they were before it.".into(),
    }
}

/// What the undo did, for people.
fn done(
    refs: &RefPlan,
    moved: &Moved,
    selected: &[&crate::checkpoint::plan::Entry],
    failures: &[Failure],
    plan: &Plan,
) -> String {
    let mut text = rollback::summary(selected, failures);
    if let Some(h) = refs.head.as_ref().filter(|_| moved.head_moved) {
        text.push_str(&format!("HEAD is back on {}\n", h.to));
    }
    if !moved.journal.is_empty() {
        let n = moved.journal.len();
        text.push_str(&format!("Moved back {n} ref{}\n", plural(n)));
    }
    for f in &moved.failures {
        text.push_str(&format!("not undone: {f}\n"));
    }
    if let Some(lost) = plan.lost() {
        text.push_str(&format!("{lost}\n"));
    }
    text.push_str("Run `git ward undo` again to redo.\n");
    text
}

/// Records the undo like any command (its ref moves as journal lines, then
/// its own line), so that the next undo redoes it.
fn record(
    ctx: &Ctx,
    last: &Undoable,
    refs: &RefPlan,
    moved: &Moved,
    safety: &str,
    started: std::time::SystemTime,
    files_failed: usize,
) {
    let lines: Vec<Record> = moved
        .journal
        .iter()
        .map(|m| Record {
            timestamp: audit::rfc3339(std::time::SystemTime::now()),
            trace_id: ctx.trace_id.clone(),
            source: "tool".into(),
            actor: ctx.actor.as_str().into(),
            operation: "ward.undo".into(),
            worktree: Some(ctx.workdir.display().to_string()),
            ..Record::journal(m.name.clone(), m.old.clone(), m.new.clone())
        })
        .collect();
    audit::append(&ctx.audit_dir(), &lines);
    let mut record = super::checkpoint::tool_record(
        ctx,
        "ward.undo",
        started,
        vec![
            format!("undo checkpoint {safety}"),
            format!("undid {}", last.trace_id),
        ],
    );
    let not_done = files_failed + moved.failures.len();
    if not_done > 0 {
        record.exit_code = Some(exit::INTERNAL.into());
        record
            .actions_taken
            .push(format!("{not_done} not undone (paths and refs)"));
    }
    // The next undo (a redo) puts HEAD where this one found it.
    if let Some(h) = refs.head.as_ref().filter(|_| moved.head_moved) {
        record.branch_before = Some(h.from.clone());
        record.branch_after = Some(h.to.clone());
    }
    audit::append(&ctx.audit_dir(), &[record]);
}
