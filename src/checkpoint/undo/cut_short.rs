//! Commands cut short: a pre-destructive checkpoint whose command left no
//! line in the audit log.
//!
//! The shim writes a command's line when the command ends. Killed after
//! its checkpoint and before that (in the middle of a `reset --hard`,
//! say), or with a log it could not write, only the checkpoint tells: its
//! trailers name the command, its trace, its worktree and when. Undo takes
//! such a command up as the shim's, its files back from the checkpoint.

use super::super::store::{self, Checkpoint, Kind};
use super::super::Ctx;
use crate::audit::Record;

/// Adds to `records` (the newest lines of the log, oldest first) a line
/// for each pre-destructive checkpoint git-ward made whose trace has no
/// line there, in its place by time; none older than the first line read,
/// whose command's line may be in an older file of the log.
pub fn add(ctx: &Ctx, records: &mut Vec<Record>) {
    let Ok(checkpoints) = store::list(ctx) else {
        return;
    };
    let lines: Vec<Record> = checkpoints
        .iter()
        .filter(|cp| cp.kind == Kind::PreDestructive && store::changed(ctx, cp).is_none())
        .filter_map(|cp| line_of(cp, records))
        .collect();
    for line in lines {
        let at = records.partition_point(|r| r.timestamp <= line.timestamp);
        records.insert(at, line);
    }
}

/// The line the shim would have written for `cp`'s command, if it wrote none.
fn line_of(cp: &Checkpoint, records: &[Record]) -> Option<Record> {
    let trace = cp.trace_id.clone()?;
    let logged = records
        .iter()
        .any(|r| r.trace_id == trace && !r.is_journal());
    let older = records.first().is_some_and(|r| cp.created < r.timestamp);
    if logged || older {
        return None;
    }
    let operation = cp.command.clone().unwrap_or_else(|| "git".into());
    let word = operation
        .strip_prefix("git.")
        .unwrap_or(&operation)
        .to_string();
    Some(Record {
        timestamp: cp.created.clone(),
        started_at: cp.created.clone(),
        trace_id: trace,
        source: "shim".into(),
        actor: "agent".into(),
        contract_id: cp.contract.clone(),
        operation,
        argv: vec![word],
        tier: 1,
        decision: "checkpoint".into(),
        branch_before: cp.branch.clone(),
        branch_after: cp.branch.clone(),
        actions_taken: vec![format!("checkpoint {}", cp.id)],
        worktree: cp.workdir.clone(),
        ..Record::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(trace: &str, created: &str) -> Checkpoint {
        let mut cp = Checkpoint::new("chk-x-2".into(), Kind::PreDestructive, String::new());
        cp.trace_id = Some(trace.into());
        cp.created = created.into();
        cp.command = Some("git.reset".into());
        cp.workdir = Some("/w".into());
        cp
    }

    fn line(trace: &str, at: &str) -> Record {
        Record {
            trace_id: trace.into(),
            timestamp: at.into(),
            ..Record::default()
        }
    }

    #[test]
    fn a_checkpoint_without_its_commands_line_stands_for_it() {
        let records = [line("t1", "2026-01-01T00:00:01.000Z")];
        let cut = line_of(&checkpoint("t2", "2026-01-01T00:00:02.000Z"), &records).unwrap();
        assert_eq!(cut.actions_taken, ["checkpoint chk-x-2"]);
        assert_eq!(cut.argv, ["reset"]);
        assert_eq!(cut.worktree.as_deref(), Some("/w"));
        // Its command wrote its line: nothing to add.
        let logged = [line("t2", "2026-01-01T00:00:03.000Z")];
        assert!(line_of(&checkpoint("t2", "2026-01-01T00:00:02.000Z"), &logged).is_none());
        // Older than the lines read: its line may be in an older file.
        assert!(line_of(&checkpoint("t3", "2025-12-31T00:00:00.000Z"), &records).is_none());
    }
}
