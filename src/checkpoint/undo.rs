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

use super::cmd::short;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::json;

use super::merge;
use super::rollback::{self, Confirmation, Out, Prepared};
use super::store::{self, Checkpoint};
use super::worktree;
use super::{tool_repo, Ctx};
use crate::audit::{self, Record};
use crate::error::{exit, Result};

mod head;

use head::{head_step, switch_head};

use crate::audit::ZERO_ID as ZERO;

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
    /// List the unchanged files of the plan too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// One ref change in the journal.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RefMove {
    #[serde(rename = "ref")]
    pub name: String,
    pub old: String,
    pub new: String,
}

/// A command that can be undone.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Undoable {
    pub trace_id: String,
    pub time: String,
    pub argv: Vec<String>,
    pub operation: String,
    pub checkpoint: Option<String>,
    pub refs: Vec<RefMove>,
    /// The branch HEAD named before and after the command (`HEAD` when
    /// detached), when the command changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<(String, String)>,
    #[serde(skip)]
    last_seen: usize,
}

impl Undoable {
    fn title(&self) -> String {
        if self.operation.starts_with("ward.") {
            format!("git ward {}", self.argv.join(" "))
        } else {
            format!("git {}", self.argv.join(" "))
        }
    }
}

/// Whose commands `git ward undo` takes up in a worktree: its own; and in
/// the main worktree (any, when the main one is bare) those that removed
/// the worktree they ran in, which is no longer there to undo them from.
pub struct Scope {
    /// The top of the worktree, canonical.
    worktree: PathBuf,
    /// The tops of the worktrees that exist, canonical, when it takes up
    /// those too.
    heir_of: Option<Vec<PathBuf>>,
}

impl Scope {
    /// The scope of `worktree`, one of `existing`'s. Paths are resolved
    /// once here, not per audit line.
    pub fn new(worktree: &Path, existing: &worktree::Existing) -> Scope {
        let worktree = canonical(worktree);
        let heir = existing
            .main
            .as_ref()
            .is_none_or(|main| canonical(main) == worktree);
        Scope {
            worktree,
            heir_of: heir.then(|| existing.tops.iter().map(|t| canonical(t)).collect()),
        }
    }

    fn takes(&self, r: &Record) -> bool {
        let Some(ran_in) = r.worktree.as_deref().map(Path::new) else {
            return true;
        };
        if ran_in == self.worktree {
            return true;
        }
        let ran_in = canonical(ran_in);
        ran_in == self.worktree
            || self
                .heir_of
                .as_ref()
                .is_some_and(|tops| removed_its_worktree(r) && !tops.contains(&ran_in))
    }
}

/// The directory the last agent command ran on when that was none of the
/// repository's worktrees but a plain directory it was given as its working
/// tree (`git --work-tree=<dir>`): undo takes it up only run the same way.
fn last_borrowed_tree(records: &[Record], existing: &worktree::Existing) -> Option<PathBuf> {
    let last = records
        .iter()
        .rev()
        .find(|r| !r.is_journal() && r.actor == "agent" && is_command_line(r))?;
    let dir = PathBuf::from(last.worktree.as_deref()?);
    let theirs = existing.tops.iter().any(|t| same_dir(t, &dir));
    (!theirs && dir.is_dir() && !dir.join(".git").exists()).then_some(dir)
}

/// Could the command have removed the worktree it ran in, with a
/// checkpoint of it (the one `git worktree remove` takes of the worktree
/// it removes)? Asked of commands whose worktree no longer exists.
fn removed_its_worktree(r: &Record) -> bool {
    r.operation == "git.worktree" && r.actions_taken.iter().any(|a| a.starts_with("checkpoint "))
}

/// A line of a command that undo takes up (if in scope): what the shim
/// let through that changes state, `git ward undo`/`rollback`/`save`, and
/// the MCP checkout that moved HEAD. Not an undo that did not finish (a
/// ref it could not move, say under a lock a killed git left): the next
/// undo takes up the command it was undoing again, as its hint says,
/// rather than redo the half it did.
fn is_command_line(r: &Record) -> bool {
    (r.source == "shim" && r.tier == 1 && r.decision != "deny")
        || (r.source == "tool" && r.operation == "ward.undo" && r.exit_code == Some(0))
        || (r.source == "tool" && r.operation == "ward.rollback")
        // `git ward save`, or the MCP tool: a commit, through the rules.
        || (matches!(r.source.as_str(), "tool" | "mcp")
            && r.operation == "ward.save"
            && r.decision != "deny")
        // The MCP checkout: HEAD moved, files with it, as the shim's.
        || (r.source == "mcp"
            && r.operation == "git.checkout"
            && r.tier == 1
            && r.decision != "deny"
            && r.exit_code == Some(0))
}

/// The undoable commands of a worktree, oldest first.
///
/// A command is what the shim ran (or `git ward undo`/`rollback`), with
/// the journal lines its git wrote under its trace id; and an agent's git
/// command that skipped the shim, known only by the journal lines the
/// hooks wrote for it (one trace per git process): its ref moves are
/// undone, and there is no checkpoint of its files.
pub fn undoable<'a>(records: impl IntoIterator<Item = &'a Record>, scope: &Scope) -> Vec<Undoable> {
    let mut by_trace: BTreeMap<String, Undoable> = BTreeMap::new();
    let mut is_command: std::collections::HashSet<String> = Default::default();
    // Traces with a line of their own (a command, or a tool's record).
    let mut recorded: std::collections::HashSet<String> = Default::default();
    // Per trace with journal lines: are they all an agent's, in this scope?
    let mut agents_here: BTreeMap<String, bool> = BTreeMap::new();
    let records: Vec<&Record> = records.into_iter().collect();
    // Most lines are reads: those of a trace without journal lines, and
    // not a command here, change nothing below and are passed over.
    let journaled: std::collections::HashSet<&str> = records
        .iter()
        .filter(|r| r.is_journal())
        .map(|r| r.trace_id.as_str())
        .collect();
    for (i, r) in records.into_iter().enumerate() {
        if r.trace_id.is_empty() {
            continue;
        }
        let command = !r.is_journal() && is_command_line(r) && scope.takes(r);
        if !r.is_journal() && !command && !journaled.contains(r.trace_id.as_str()) {
            continue;
        }
        let u = by_trace
            .entry(r.trace_id.clone())
            .or_insert_with(|| Undoable {
                trace_id: r.trace_id.clone(),
                ..Undoable::default()
            });
        if r.is_journal() {
            let ours = r.actor == "agent" && scope.takes(r);
            *agents_here.entry(r.trace_id.clone()).or_insert(ours) &= ours;
            if u.operation.is_empty() {
                // The git command line the hook saw, less the program.
                u.time = r.timestamp.clone();
                u.argv = r.argv.iter().skip(1).cloned().collect();
                u.operation = r.operation.clone();
            }
            if let (Some(name), Some(old), Some(new)) = (&r.refname, &r.old, &r.new) {
                let m = RefMove {
                    name: name.clone(),
                    old: old.clone(),
                    new: new.clone(),
                };
                if !name.starts_with("refs/ward/") && name != "refs/stash" && !u.refs.contains(&m) {
                    u.refs.push(m);
                    u.last_seen = i;
                }
            }
            continue;
        }
        recorded.insert(r.trace_id.clone());
        if !command {
            continue;
        }
        is_command.insert(r.trace_id.clone());
        u.head = match (&r.branch_before, &r.branch_after) {
            (Some(before), Some(after)) if before != after => Some((before.clone(), after.clone())),
            _ => None,
        };
        u.time = r.timestamp.clone();
        u.argv = r.argv.clone();
        u.operation = r.operation.clone();
        u.last_seen = i;
        // The first one: taken before anything changed (a move onto an
        // existing agent branch is checkpointed before the command's own).
        let taken = r.actions_taken.iter().find_map(|a| {
            ["checkpoint ", "safety checkpoint ", "undo checkpoint "]
                .iter()
                .find_map(|prefix| a.strip_prefix(prefix))
        });
        if let Some(id) = taken {
            u.checkpoint = Some(id.to_string());
        }
    }
    is_command.extend(
        agents_here
            .into_iter()
            .filter(|(t, ours)| *ours && !recorded.contains(t))
            .map(|(t, _)| t),
    );
    let mut out: Vec<Undoable> = by_trace
        .into_values()
        .filter(|u| is_command.contains(&u.trace_id))
        // Something to put back: files, refs, or HEAD on another branch
        // (a plain checkout, which git older than 2.45 journals nothing for).
        .filter(|u| u.checkpoint.is_some() || !u.refs.is_empty() || u.head.is_some())
        .collect();
    out.sort_by_key(|u| u.last_seen);
    out
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.into())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || canonical(a) == canonical(b)
}

/// The `git ward undo` command line that would now undo the command that
/// took checkpoint `id` (the last undoable command in the worktree that
/// takes it up), run from `ctx`'s worktree; `None` when there is none.
pub fn undo_line(ctx: &Ctx, id: &str) -> Option<String> {
    let taken = format!("checkpoint {id}");
    let took = |r: &audit::Record| !r.is_journal() && r.actions_taken.contains(&taken);
    let records = audit::read_newest(&ctx.audit_dir(), |rs| rs.iter().any(|r| took(r)));
    let command = records.iter().rev().find(|r| took(r))?;
    let ran_in = PathBuf::from(command.worktree.as_deref()?);
    let existing = worktree::Existing::read(&ctx.git);
    let home = if existing.tops.iter().any(|t| same_dir(t, &ran_in)) {
        ran_in
    } else if removed_its_worktree(command) {
        existing.main.clone().unwrap_or_else(|| ctx.workdir.clone())
    } else {
        return None;
    };
    let last = undoable(&records, &Scope::new(&home, &existing)).pop()?;
    if last.checkpoint.as_deref() != Some(id) {
        return None;
    }
    Some(if same_dir(&home, &ctx.workdir) {
        "git ward undo".to_string()
    } else {
        format!("git -C {} ward undo", home.display())
    })
}

/// What undo does to one ref.
#[derive(Clone, Debug, Serialize)]
pub struct RefStep {
    #[serde(rename = "ref")]
    pub name: String,
    /// The value to put back (zeros: delete it).
    pub to: String,
    /// The value the command left (zeros: it deleted the ref).
    pub from: String,
    /// `move-back`, `moved-since`, `checked-out` (a branch another
    /// worktree has checked out, which git itself never moves or deletes
    /// from here) or `unchanged`.
    pub action: &'static str,
    pub now: Option<String>,
    /// For `checked-out`: the worktree that has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
}

/// Collapses a command's journal into one step per ref.
fn ref_steps(ctx: &Ctx, moves: &[RefMove]) -> Vec<RefStep> {
    let head_symbolic = ctx
        .git
        .output(["symbolic-ref", "-q", "HEAD"])
        .is_ok_and(|o| o.status.success());
    let elsewhere = ctx.repo.branches_elsewhere();
    let mut order: Vec<String> = Vec::new();
    let mut span: BTreeMap<String, (String, String)> = BTreeMap::new();
    for m in moves {
        if m.name == "HEAD" && head_symbolic {
            // HEAD follows its branch, which has its own lines.
            continue;
        }
        match span.get_mut(&m.name) {
            Some(s) => s.1 = m.new.clone(),
            None => {
                order.push(m.name.clone());
                span.insert(m.name.clone(), (m.old.clone(), m.new.clone()));
            }
        }
    }
    order
        .into_iter()
        .map(|name| {
            let (old, new) = span[&name].clone();
            // A command that made the ref a symbolic one left `ref:<target>`.
            let now = match new.strip_prefix("ref:") {
                Some(_) => symbolic(ctx, &name)
                    .map(|t| format!("ref:{t}"))
                    .or_else(|| current(ctx, &name)),
                None => current(ctx, &name),
            };
            let now_z = now.clone().unwrap_or_else(|| ZERO.to_string());
            let checked_out = name
                .strip_prefix("refs/heads/")
                .and_then(|b| elsewhere.iter().find(|(branch, _)| branch == b))
                .map(|(_, path)| path.clone());
            let action = if now_z == old {
                "unchanged"
            } else if now_z != new {
                "moved-since"
            } else if checked_out.is_some() {
                "checked-out"
            } else {
                "move-back"
            };
            RefStep {
                name,
                to: old,
                from: new,
                action,
                now,
                worktree: checked_out.filter(|_| action == "checked-out"),
            }
        })
        .filter(|s| s.to != s.from)
        .collect()
}

/// Without a ref journal (hooks not installed), the refs the checkpoint
/// recorded: a deleted one comes back; a moved one goes back to the
/// recorded value only when its reflog shows it still where the command
/// (the newest move away from that value) left it.
fn refs_from_checkpoint(ctx: &Ctx, cp: &Checkpoint) -> Vec<RefMove> {
    let mut out = Vec::new();
    // `refs/stash` comes back with its entries, reflog and all, from the
    // stash list the checkpoint recorded ([`super::stash`]).
    let refs = cp.refs.iter().filter(|(name, _)| name != "refs/stash");
    for (name, recorded) in refs {
        match current(ctx, name) {
            None => out.push(RefMove {
                name: name.clone(),
                old: recorded.clone(),
                new: ZERO.to_string(),
            }),
            Some(now) if &now != recorded => {
                // The newest move away from the recorded value is the command's.
                let log = ctx
                    .git
                    .run(["log", "-g", "-n", "50", "--format=%H", name, "--"])
                    .unwrap_or_default();
                let entries: Vec<&str> = log.lines().collect();
                if let Some(i) =
                    (0..entries.len().saturating_sub(1)).find(|&i| entries[i + 1] == recorded)
                {
                    out.push(RefMove {
                        name: name.clone(),
                        old: recorded.clone(),
                        new: entries[i].to_string(),
                    });
                }
            }
            Some(_) => {}
        }
    }
    out
}

/// A ref's value, unpeeled; `None` when it does not exist.
/// The ref a symbolic ref names, if `name` is one.
fn symbolic(ctx: &Ctx, name: &str) -> Option<String> {
    let out = ctx.git.output(["symbolic-ref", "-q", name]).ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn current(ctx: &Ctx, name: &str) -> Option<String> {
    let out = ctx.git.output(["rev-parse", "-q", "--verify", name]).ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `git ward undo`.
pub fn run(args: UndoArgs) -> Result<u8> {
    let json = args.json;
    crate::cli::finish_coded(json, undo(args))
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
        .then(|| super::busy::Restoring::take(&ctx.git_dir, "undo"))
        .transpose()?;
    let existing = worktree::Existing::read(&ctx.git);
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
                super::plan::plural(u.refs.len())
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
    let moves_on_record = if last.refs.is_empty() {
        cp.as_ref()
            .map(|cp| refs_from_checkpoint(&ctx, cp))
            .unwrap_or_default()
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
        None => super::snapshot::trees(&ctx)?,
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
    let lost_stashes = super::stash::missing(recorded_stashes, &super::stash::list(&ctx));
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
    let empty = super::plan::Plan::default();
    let plan = prepared.as_ref().map(|p| &p.plan).unwrap_or(&empty);
    out.say(&plan.warning());
    let moves: Vec<&RefStep> = steps.iter().filter(|s| s.action == "move-back").collect();
    let mut value = json!({
        "undo": last,
        "refs": steps,
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
                super::plan::plural(moved_since),
                if moved_since == 1 { "has" } else { "have" }
            ),
            None => "Nothing to undo: files and refs are already as they were before it.".into(),
        });
        return Ok((value, exit::OK));
    }
    let selected = match rollback::confirm(plan, args.yes, false, "undo")? {
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
    let failures = super::plan::apply(target, &selected, &plan.private_dirs)?;
    if index_changes {
        if let Some(cp) = &cp {
            rollback::set_index(target, cp)?;
        }
    }
    if !lost_stashes.is_empty() {
        ref_failures.extend(super::stash::restore(&ctx, recorded_stashes));
    }
    let mut text = rollback::summary(&selected, &failures);
    if let Some(h) = head.as_ref().filter(|_| head_moved) {
        text.push_str(&format!("HEAD is back on {}\n", h.to));
    }
    if !journal.is_empty() {
        text.push_str(&format!(
            "Moved back {} ref{}\n",
            journal.len(),
            super::plan::plural(journal.len())
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
    let mut record = super::cmd::tool_record(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(trace: &str, source: &str, decision: &str) -> Record {
        Record {
            trace_id: trace.into(),
            source: source.into(),
            decision: decision.into(),
            tier: 1,
            worktree: Some("/w".into()),
            ..Record::default()
        }
    }

    #[test]
    fn the_last_command_that_changed_anything_is_found() {
        let mut a = rec("t1", "shim", "checkpoint");
        a.actions_taken = vec!["checkpoint chk-local-1".into()];
        let j = Record {
            trace_id: "t2".into(),
            source: "reference-transaction".into(),
            ..Record::journal("refs/heads/x".into(), "1".into(), ZERO.into())
        };
        // A hook's check of a ref update carries the ref, but moved nothing.
        let mut checked = rec("t5", "reference-transaction", "allow");
        checked.refname = Some("refs/heads/main".into());
        checked.old = Some("1".into());
        checked.new = Some("2".into());
        let b = rec("t2", "shim", "allow");
        let denied = rec("t3", "shim", "deny");
        let mut elsewhere = rec("t4", "shim", "checkpoint");
        elsewhere.worktree = Some("/other".into());
        elsewhere.actions_taken = vec!["checkpoint chk-local-2".into()];
        let quiet = rec("t5", "shim", "allow");
        let ward_ref = Record {
            trace_id: "t5".into(),
            ..Record::journal(
                "refs/ward/checkpoints/chk-local-3".into(),
                ZERO.into(),
                "3".into(),
            )
        };
        let scope = Scope {
            worktree: PathBuf::from("/w"),
            heir_of: None,
        };
        let list = undoable(
            &[a, j, b, checked, denied, elsewhere, quiet, ward_ref],
            &scope,
        );
        let traces: Vec<&str> = list.iter().map(|u| u.trace_id.as_str()).collect();
        assert_eq!(traces, vec!["t1", "t2"]);
        assert_eq!(list[0].checkpoint.as_deref(), Some("chk-local-1"));
        assert_eq!(list[1].refs.len(), 1);
    }

    #[test]
    fn an_agents_git_that_skipped_the_shim_is_known_by_its_journal() {
        let journal = |trace: &str, actor: &str, worktree: &str| Record {
            trace_id: trace.into(),
            source: "reference-transaction".into(),
            actor: actor.into(),
            worktree: Some(worktree.into()),
            argv: vec![
                "/usr/bin/git".into(),
                "branch".into(),
                "-D".into(),
                "x".into(),
            ],
            ..Record::journal("refs/heads/x".into(), "1".into(), ZERO.into())
        };
        let mut saved = rec("tool", "tool", "allow");
        saved.operation = "ward.save".into();
        let records = [
            journal("agent", "agent", "/w"),
            journal("human", "human", "/w"),
            journal("elsewhere", "agent", "/other"),
            journal("tool", "agent", "/w"),
            saved,
        ];
        let scope = Scope {
            worktree: PathBuf::from("/w"),
            heir_of: None,
        };
        let list = undoable(&records, &scope);
        let traces: Vec<&str> = list.iter().map(|u| u.trace_id.as_str()).collect();
        // A save is a command of its own (its line names it), not a git
        // that skipped the shim.
        assert_eq!(traces, ["agent", "tool"]);
        assert_eq!(list[1].operation, "ward.save");
        assert_eq!(list[0].title(), "git branch -D x");
        assert_eq!(list[0].checkpoint, None);
        assert_eq!(list[0].refs.len(), 1);
    }

    #[test]
    fn the_main_worktree_takes_up_a_removal_from_the_removed_worktree() {
        let removal = |trace: &str, ran_in: &str| {
            let mut r = rec(trace, "shim", "checkpoint");
            r.operation = "git.worktree".into();
            r.worktree = Some(ran_in.into());
            r.actions_taken = vec![format!("checkpoint chk-{trace}")];
            r
        };
        let mut reset = removal("reset", "/gone");
        reset.operation = "git.reset".into();
        let records = [
            removal("own", "/w"),
            removal("gone", "/gone"),
            reset,
            removal("sibling", "/sibling"),
        ];
        let tops = vec![PathBuf::from("/w"), PathBuf::from("/sibling")];
        let traces = |heir_of: Option<Vec<PathBuf>>| {
            let scope = Scope {
                worktree: PathBuf::from("/w"),
                heir_of,
            };
            undoable(&records, &scope)
                .into_iter()
                .map(|u| u.trace_id)
                .collect::<Vec<_>>()
        };
        assert_eq!(traces(Some(tops)), ["own", "gone"]);
        assert_eq!(traces(None), ["own"]);
    }
}
