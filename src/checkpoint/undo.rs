//! What undo reads and moves back: the undoable commands in the audit log,
//! the ref moves a checkpoint and the journal record, and the steps that
//! put each ref back (`git ward undo` is `commands/undo.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::store::Checkpoint;
use super::Ctx;
use crate::audit::{self, Record};

pub(crate) mod cut_short;
pub(crate) mod head;

pub(crate) use crate::audit::ZERO_ID as ZERO;

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
    pub(crate) fn title(&self) -> String {
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
    pub fn new(worktree: &Path, existing: &crate::facts::worktrees::Existing) -> Scope {
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
pub(crate) fn last_borrowed_tree(
    records: &[Record],
    existing: &crate::facts::worktrees::Existing,
) -> Option<PathBuf> {
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
pub(crate) fn removed_its_worktree(r: &Record) -> bool {
    r.operation == "git.worktree" && r.actions_taken.iter().any(|a| a.starts_with("checkpoint "))
}

/// A line of a command that undo takes up (if in scope): what the shim
/// let through that changes state, `git ward undo`/`rollback`/`save`, and
/// the MCP checkout that moved HEAD. Not an undo that did not finish (a
/// ref it could not move, say under a lock a killed git left): the next
/// undo takes up the command it was undoing again, as its hint says,
/// rather than redo the half it did.
pub(crate) fn is_command_line(r: &Record) -> bool {
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

pub(crate) fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.into())
}

pub(crate) fn same_dir(a: &Path, b: &Path) -> bool {
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
    let existing = crate::facts::worktrees::Existing::read(&ctx.git);
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
pub(crate) fn ref_steps(ctx: &Ctx, moves: &[RefMove]) -> Vec<RefStep> {
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
pub(crate) fn refs_from_checkpoint(ctx: &Ctx, cp: &Checkpoint) -> Vec<RefMove> {
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
/// A ref undo leaves alone, with the reason.
pub(crate) type LeftAlone = (String, String);

/// The moves of `recorded` (from a checkpoint's `Ward-Ref` trailers)
/// that the rules let an agent make itself
/// ([`crate::decide::refs::decide_recorded_ref`]); each other one, with
/// the reason it is left alone.
pub(crate) fn agents_refs(
    ctx: &Ctx,
    recorded: Vec<RefMove>,
) -> crate::error::Result<(Vec<RefMove>, Vec<LeftAlone>)> {
    if recorded.is_empty() {
        return Ok((recorded, Vec::new()));
    }
    let policy = crate::facts::load_policy(Some(ctx.repo), false)?;
    let mut refused = Vec::new();
    let mut kept = Vec::new();
    for m in recorded {
        let change = crate::decide::refs::RefChange {
            refname: m.name.clone(),
            current: current(ctx, &m.name),
            new: (m.old != ZERO).then(|| m.old.clone()),
            fast_forward: true,
            ..Default::default()
        };
        match crate::decide::refs::decide_recorded_ref(&policy, &change).denial() {
            Some(err) => refused.push((m.name, err.message.clone())),
            None => kept.push(m),
        }
    }
    Ok((kept, refused))
}

pub(crate) fn symbolic(ctx: &Ctx, name: &str) -> Option<String> {
    let out = ctx.git.output(["symbolic-ref", "-q", name]).ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

pub(crate) fn current(ctx: &Ctx, name: &str) -> Option<String> {
    let out = ctx.git.output(["rev-parse", "-q", "--verify", name]).ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
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
