//! The steps of a restore from a checkpoint that rollback, undo and turn
//! share: the present snapshot and the plan from it, the safety checkpoint,
//! the index set back, the summary line.

use std::ffi::OsStr;
use std::path::PathBuf;

use super::plan::{self, Entry, Failure, Plan, Status};
use super::snapshot::{self, Options, Trees};
use super::store::{Checkpoint, Kind};
use super::Ctx;
use crate::error::Result;

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
    plan.keep_bytes(&super::bytes::kept(ctx, &cp.id));
    Ok(Prepared { present, plan })
}

/// `git diff` from the present to the checkpoint.
pub(crate) fn diff(ctx: &Ctx, present: &str, target: &str, paths: &[PathBuf]) -> Result<String> {
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
    let cp = snapshot::store(ctx, present, opts)?;
    super::bytes::record(ctx, &cp)?;
    Ok(cp.id)
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
