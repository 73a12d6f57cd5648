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

use super::Outcome;
use serde_json::json;

use super::ask::{confirm, Confirmation, Out};
use crate::audit::{self, Record};
use crate::checkpoint::rollback::{self, Prepared};
use crate::checkpoint::store::{self, short, Checkpoint};
use crate::checkpoint::undo::*;
use crate::checkpoint::{merge, worktree};
use crate::checkpoint::{tool_repo, Ctx};
use crate::error::{exit, Result};

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

fn undo(args: UndoArgs) -> Result<(serde_json::Value, u8)> {
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
    if !args.list && !args.dry_run {
        super::leased::check(&repo, &ctx.git_dir, "undo")?;
    }
    // Held until the undo is recorded: a second one waits for no half.
    let _restoring = (!args.list && !args.dry_run)
        .then(|| crate::checkpoint::busy::Restoring::take(&ctx.git_dir, "undo"))
        .transpose()?;
    let existing = crate::facts::worktrees::Existing::read(&ctx.git);
    let scope = Scope::new(&ctx.workdir, &existing);
    // The last command, or the last `LISTED` for `--list`.
    let wanted = if args.list { LISTED } else { 1 };
    let records = audit::read_newest(&ctx.audit_dir(), |rs| {
        undoable(rs.iter().copied(), &scope).len() >= wanted
    });
    let all = undoable(&records, &scope);
    if args.list {
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
                crate::checkpoint::plan::plural(u.refs.len())
            ));
        }
        out.say(&text);
        let list: Vec<&Undoable> = all.iter().rev().take(LISTED).collect();
        return Ok((json!({ "status": "S", "undoable": list }), exit::OK));
    }
    let Some(last) = all.last() else {
        out.say("Nothing to undo: no agent command that changed anything is on record.");
        if let Some(dir) = last_borrowed_tree(&records, &existing) {
            out.say(&format!(
                "\nThe last agent command here ran on {} as its working tree (`--work-tree`, GIT_WORK_TREE): `git --work-tree={} ward undo` undoes it.",
                dir.display(),
                dir.display()
            ));
        }
        return Ok((json!({ "status": "S", "undone": null }), exit::OK));
    };
    out.say(&format!("Undo `{}` ({})\n", last.title(), last.time));
    let cp: Option<Checkpoint> = match &last.checkpoint {
        Some(id) => match store::find(&ctx, id) {
            Ok(cp) => Some(cp),
            Err(_) => {
                out.say(&format!(
                    "  checkpoint {id} no longer exists: the working tree is left as it is\n"
                ));
                None
            }
        },
        None => {
            out.say("  FILES     left as they are: no checkpoint was taken before the command\n");
            None
        }
    };
    let mut refused_refs = Vec::new();
    let moves_on_record = if last.refs.is_empty() {
        let recorded = cp
            .as_ref()
            .map(|cp| refs_from_checkpoint(&ctx, cp))
            .unwrap_or_default();
        let (moves, refused) = agents_refs(&ctx, recorded)?;
        if !moves.is_empty() || !refused.is_empty() {
            out.say("  (no ref journal for this command: its refs come from its checkpoint's record, and only those an agent may move itself)\n");
        }
        for (name, why) in &refused {
            out.say(&format!("  REF       {name} left alone: {why}\n"));
        }
        refused_refs = refused;
        moves
    } else {
        last.refs.clone()
    };
    let steps = ref_steps(&ctx, &moves_on_record);

    for s in &steps {
        let line = match s.action {
            "move-back" if s.to == ZERO => {
                format!("  REF       {} delete (created by the command)\n", s.name)
            }
            "move-back" if s.from == ZERO => {
                format!("  REF       {} recreate at {}\n", s.name, short(&s.to))
            }
            "move-back" => format!(
                "  REF       {} {} -> {}\n",
                s.name,
                short(&s.from),
                short(&s.to)
            ),
            "moved-since" => format!(
                "  REF       {} moved since (now {}, the command left {}): left alone\n",
                s.name,
                s.now.as_deref().map(short).unwrap_or("deleted"),
                short(&s.from)
            ),
            "checked-out" => format!(
                "  REF       {} is checked out in {}: left alone (`git worktree remove` it first to undo this too)\n",
                s.name,
                s.worktree.as_deref().unwrap_or("another worktree")
            ),
            _ => format!("  REF       {} already at {}\n", s.name, short(&s.to)),
        };
        out.say(&line);
    }

    // History a `reflog expire` or `prune` would have destroyed stays
    // where the checkpoint keeps it; nothing to put back.
    if let Some(cp) = &cp {
        for name in store::kept_refs(&ctx, &cp.id) {
            if name.ends_with("/lost") {
                out.say(&format!(
                    "  KEPT      commits only reflogs held: `git log {name}` lists them\n"
                ));
            }
        }
    }
    let head = head_step(&ctx, last, cp.as_ref(), &steps);
    match &head {
        Some(h) if h.action == "switch-back" && h.by_git => out.say(&format!(
            "  HEAD      back on {} (the command left it on {}): git switches back, its files with it, carrying uncommitted changes as a checkout does\n",
            h.to, h.from
        )),
        Some(h) if h.action == "switch-back" => out.say(&format!(
            "  HEAD      back on {} (the command left it on {})\n",
            h.to, h.from
        )),
        Some(h) if h.action == "gone" => out.say(&format!(
            "  HEAD      stays on {}: {} no longer exists\n",
            h.from, h.to
        )),
        Some(h) => out.say(&format!(
            "  HEAD      on {} since (the command left it on {}): left alone\n",
            h.now, h.from
        )),
        None => {}
    }
    let head = head.filter(|h| h.action == "switch-back");

    // A checkpoint of another worktree: one the command removed comes
    // back; one that still exists is restored where it is.
    let gone = match &cp {
        Some(cp) => worktree::gone(&ctx, cp)?,
        None => None,
    };
    let there = match (&cp, &gone) {
        (Some(cp), None) => worktree::open_elsewhere(&ctx, cp),
        _ => None,
    };
    let there_ctx = there.as_ref().map(|r| ctx.sibling(r)).transpose()?;
    let here = there_ctx.as_ref().unwrap_or(&ctx);
    let prepared: Option<Prepared> = match (&cp, &gone) {
        (Some(cp), Some(g)) => Some(g.prepare(&ctx, cp)?),
        (Some(cp), None) => Some(rollback::prepare(here, cp, &[], args.verbose)?),
        _ => None,
    };
    let present = match &prepared {
        Some(p) => p.present.clone(),
        None => crate::checkpoint::snapshot::trees(&ctx)?,
    };
    let merge_changes = match (&cp, &gone) {
        (Some(cp), Some(_)) => !cp.merge_heads.is_empty(),
        (Some(cp), None) => merge::changes(here, cp),
        _ => false,
    };
    let index_changes = merge_changes
        || gone.is_some()
        || cp
            .as_ref()
            .is_some_and(|cp| rollback::index_differs(cp, &present));
    let recorded_stashes = cp
        .as_ref()
        .map(|cp| cp.stashes.as_slice())
        .unwrap_or_default();
    let lost_stashes =
        crate::checkpoint::stash::missing(recorded_stashes, &crate::checkpoint::stash::list(&ctx));
    if let Some(g) = &gone {
        out.say(&g.plan_line());
    }
    if let Some(p) = &prepared {
        out.say(&p.plan.render(args.verbose));
    }
    if index_changes {
        out.say("  INDEX     the staged state will be set to the checkpoint's\n");
    }
    if let Some(cp) = cp.as_ref().filter(|_| merge_changes) {
        out.say(&merge::plan_line(here, cp));
    }
    for (n, (sha, msg)) in &lost_stashes {
        out.say(&format!(
            "  STASH     {} {msg} comes back as stash@{{{n}}}\n",
            short(sha)
        ));
    }
    let empty = crate::checkpoint::plan::Plan::default();
    let plan = prepared.as_ref().map(|p| &p.plan).unwrap_or(&empty);
    out.say(&plan.warning());
    let changed = cp.as_ref().and_then(|cp| store::changed(&ctx, cp));
    if let Some(why) = &changed {
        out.say(&format!("\n  CHANGED   {why}\n"));
    }
    let moves: Vec<&RefStep> = steps.iter().filter(|s| s.action == "move-back").collect();
    let mut value = json!({
        "undo": last,
        "refs": steps,
        "refs_refused": refused_refs,
        "changed": changed,
        "head": head,
        "plan": plan,
        "modify": plan.modifies(),
        "remove": plan.removes(),
    });
    if args.dry_run {
        out.say("Dry run: nothing changed.");
        value["dry_run"] = true.into();
        return Ok((value, exit::OK));
    }
    if plan.entries.is_empty()
        && moves.is_empty()
        && head.is_none()
        && !index_changes
        && lost_stashes.is_empty()
    {
        let moved_since = steps
            .iter()
            .filter(|s| matches!(s.action, "moved-since" | "checked-out"))
            .count();
        out.say(&match plan.lost() {
            Some(lost) => {
                format!("Nothing can be undone: {lost}; everything else is as it was before it.")
            }
            // Its checkpoint went (retention, or by hand): the files it
            // held cannot come back, which is not "as they were".
            None if cp.is_none() && last.checkpoint.is_some() => format!(
                "Nothing can be undone: checkpoint {}, which held the files from before the command, no longer exists (retention keeps the newest checkpoint.keep per worktree); its refs are as they were before it.",
                last.checkpoint.as_deref().unwrap_or_default()
            ),
            None if moved_since > 0 => format!(
                "Nothing undone: {moved_since} ref{} the command moved {} moved since (left alone above); the rest is as it was before it.",
                crate::checkpoint::plan::plural(moved_since),
                if moved_since == 1 { "has" } else { "have" }
            ),
            None => "Nothing to undo: files and refs are already as they were before it.".into(),
        });
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
        &present,
        &format!("before undo of {}", last.title()),
        cp.as_ref().map(|cp| cp.id.as_str()),
    )?;
    out.say(&rollback::safety_line(&safety));

    let mut journal = Vec::new();
    let mut ref_failures = Vec::new();
    // HEAD first: a branch the undo deletes may be the one it names.
    let head_moved = match &head {
        Some(h) => match switch_head(&ctx, h)? {
            Ok(()) => true,
            Err(failure) => {
                ref_failures.push(failure);
                false
            }
        },
        None => false,
    };
    for s in &moves {
        // A symbolic ref left by the command is checked by the value it
        // resolves to; one it replaced is made again.
        let resolved;
        let from = match s.from.strip_prefix("ref:") {
            Some(_) => {
                resolved = current(&ctx, &s.name).unwrap_or_default();
                resolved.as_str()
            }
            None => s.from.as_str(),
        };
        // The ref itself, never the one it names: a branch a command made
        // a symbolic ref (`symbolic-ref refs/heads/feat refs/heads/work`)
        // goes back to being a branch, and `work` is left alone.
        let args: Vec<&str> = match s.to.strip_prefix("ref:") {
            Some(target) => vec!["symbolic-ref", "-m", "ward: undo", &s.name, target],
            None => {
                let mut args = vec!["update-ref", "--no-deref", "-m", "ward: undo"];
                if s.to == ZERO {
                    args.extend(["-d", &s.name, from]);
                } else if s.from == ZERO {
                    args.extend([s.name.as_str(), &s.to, ""]);
                } else {
                    args.extend([s.name.as_str(), &s.to, from]);
                }
                args
            }
        };
        let o = ctx.git.output(&args)?;
        if o.status.success() {
            journal.push(RefMove {
                name: s.name.clone(),
                old: s.from.clone(),
                new: s.to.clone(),
            });
        } else {
            ref_failures.push(format!(
                "{}: {}",
                s.name,
                String::from_utf8_lossy(&o.stderr).trim()
            ));
        }
    }
    let (made, made_ctx);
    let target = match &gone {
        Some(g) => {
            made = g.recreate(&ctx)?;
            made_ctx = ctx.sibling(&made)?;
            &made_ctx
        }
        None => here,
    };
    let failures = crate::checkpoint::plan::apply(target, &selected, plan)?;
    if index_changes {
        if let Some(cp) = &cp {
            rollback::set_index(target, cp)?;
        }
    }
    if !lost_stashes.is_empty() {
        ref_failures.extend(crate::checkpoint::stash::restore(&ctx, recorded_stashes));
    }
    let mut text = rollback::summary(&selected, &failures);
    if let Some(h) = head.as_ref().filter(|_| head_moved) {
        text.push_str(&format!("HEAD is back on {}\n", h.to));
    }
    if !journal.is_empty() {
        text.push_str(&format!(
            "Moved back {} ref{}\n",
            journal.len(),
            crate::checkpoint::plan::plural(journal.len())
        ));
    }
    for f in &ref_failures {
        text.push_str(&format!("not undone: {f}\n"));
    }
    if let Some(lost) = plan.lost() {
        text.push_str(&format!("{lost}\n"));
    }
    text.push_str("Run `git ward undo` again to redo.\n");
    out.say(&text);

    // Recorded like any command, so the next undo redoes this one.
    let lines: Vec<Record> = journal
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
        &ctx,
        "ward.undo",
        started,
        vec![
            format!("undo checkpoint {safety}"),
            format!("undid {}", last.trace_id),
        ],
    );
    let not_done = failures.len() + ref_failures.len();
    if not_done > 0 {
        record.exit_code = Some(exit::INTERNAL.into());
        record
            .actions_taken
            .push(format!("{not_done} not undone (paths and refs)"));
    }
    // The next undo (a redo) puts HEAD where this one found it.
    if let Some(h) = head.as_ref().filter(|_| head_moved) {
        record.branch_before = Some(h.from.clone());
        record.branch_after = Some(h.to.clone());
    }
    audit::append(&ctx.audit_dir(), &[record]);
    value["safety_checkpoint"] = safety.into();
    value["moved_back"] = serde_json::to_value(&journal).unwrap_or_default();
    if failures.is_empty() && ref_failures.is_empty() {
        Ok((value, exit::OK))
    } else {
        let failed = failures.len() + ref_failures.len();
        value["failures"] = json!({ "files": failures, "refs": ref_failures });
        Ok(out.failed(value, failed, "undo"))
    }
}
