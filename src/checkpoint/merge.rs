//! A merge in progress, kept with a checkpoint and put back by undo.
//!
//! While a merge is stopped (on conflicts, or by `--no-commit`), git keeps
//! its state beside the working tree: `MERGE_HEAD` (the commits being
//! merged), `MERGE_MSG`, `MERGE_MODE` in the git dir, and the conflicted
//! paths' stages (base, ours, theirs) in the index. A checkpoint's staged
//! tree can hold only one side, so a checkpoint taken then also records
//! the merge in a commit of its own, one more parent of the checkpoint:
//!
//! - its tree: `MERGE_HEAD`, `MERGE_MSG` and `MERGE_MODE` byte for byte
//!   (those present); `stages`, the index's conflict entries as
//!   `ls-files -u -z` lists them (mode, blob, stage, path); and each stage's
//!   blob under its own id, so that nothing `stages` names can be pruned;
//! - its parents: the commits being merged.
//!
//! The trailers `Ward-Merge-Head: <commit>` (one per merged commit) and
//! `Ward-Merge-State: <commit>` name them. Restoring the index from such a
//! checkpoint ([`set`]) writes the files back and puts the conflict stages
//! back in place of the `ours` side, so `git status` shows the same
//! unmerged paths and `git merge --continue`/`--abort` work as before.

use std::path::Path;

use super::store::Checkpoint;
use super::Ctx;
use crate::error::{IoContext, Result};

/// The files of a merge in progress, as git names them in the git dir.
const FILES: [&str; 3] = ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"];
/// The tree entry holding the conflict stages.
const STAGES: &str = "stages";
const ZERO: &str = "0000000000000000000000000000000000000000";

/// A merge in progress, as recorded.
pub struct Recorded {
    /// The commits being merged.
    pub heads: Vec<String>,
    /// The commit holding the merge state.
    pub state: String,
}

/// The commits `MERGE_HEAD` names in this git dir (none outside a merge).
pub fn heads(git_dir: &Path) -> Vec<String> {
    std::fs::read_to_string(git_dir.join("MERGE_HEAD"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Records the merge in progress, if any, with the index's conflict
/// stages (`ls-files -u -z` output). Returns what to name in the trailers.
pub fn record(ctx: &Ctx, stages: &[u8]) -> Result<Option<Recorded>> {
    let heads = heads(&ctx.git_dir);
    if heads.is_empty() {
        return Ok(None);
    }
    let present: Vec<&str> = FILES
        .into_iter()
        .filter(|f| ctx.git_dir.join(f).is_file())
        .collect();
    let paths: String = present
        .iter()
        .map(|f| format!("{}\n", ctx.git_dir.join(f).display()))
        .collect();
    let ids = ctx.git.run_with(
        ["hash-object", "-w", "--no-filters", "--stdin-paths"],
        &[],
        Some(paths.as_bytes()),
    )?;
    let stages_id = ctx.git.run_with(
        ["hash-object", "-w", "--no-filters", "--stdin"],
        &[],
        Some(stages),
    )?;
    let mut tree = Vec::new();
    let mut entry = |name: &str, id: &str| {
        tree.extend_from_slice(format!("100644 blob {id}\t{name}\0").as_bytes());
    };
    for (name, id) in present.iter().zip(ids.lines()) {
        entry(name, id);
    }
    entry(STAGES, &stages_id);
    let mut kept: Vec<&str> = Vec::new();
    for (mode, id, _, _) in records(stages) {
        if mode != "160000" && !kept.contains(&id) {
            kept.push(id);
        }
    }
    for id in kept {
        entry(id, id);
    }
    let tree = ctx.git.run_with(["mktree", "-z"], &[], Some(&tree))?;
    let parents: Vec<&str> = heads.iter().map(String::as_str).collect();
    let state = super::snapshot::commit_tree(ctx, &tree, &parents, "merge in progress\n")?;
    Ok(Some(Recorded { heads, state }))
}

/// The records of `ls-files -u -z` output: (mode, blob, stage, path);
/// `ls-tree -z` output reads as (mode, type, id, name).
fn records(stages: &[u8]) -> impl Iterator<Item = (&str, &str, &str, &[u8])> {
    stages.split(|b| *b == 0).filter_map(|rec| {
        let tab = rec.iter().position(|b| *b == b'\t')?;
        let meta = std::str::from_utf8(&rec[..tab]).ok()?;
        let mut f = meta.split(' ');
        Some((f.next()?, f.next()?, f.next()?, &rec[tab + 1..]))
    })
}

/// Does restoring `cp` change the merge state (a merge comes back, or one
/// in progress now was not then)?
pub fn changes(ctx: &Ctx, cp: &Checkpoint) -> bool {
    cp.index_tree.is_some() && heads(&ctx.git_dir) != cp.merge_heads
}

/// The plan's line for a change of merge state.
pub fn plan_line(ctx: &Ctx, cp: &Checkpoint) -> String {
    let named = |heads: &[String]| {
        let short: Vec<&str> = heads.iter().map(|h| super::store::short(h)).collect();
        short.join(" ")
    };
    if cp.merge_heads.is_empty() {
        let now = heads(&ctx.git_dir);
        format!(
            "  MERGE     the merge of {} in progress ends\n",
            named(&now)
        )
    } else {
        format!(
            "  MERGE     the merge of {} comes back, in progress\n",
            named(&cp.merge_heads)
        )
    }
}

/// Sets the merge state to the checkpoint's, after the index has been set
/// from its staged tree: the files in the git dir are written (or removed
/// when it recorded no merge) and the conflict stages replace the `ours`
/// side in the index.
pub fn set(ctx: &Ctx, cp: &Checkpoint) -> Result<()> {
    let Some(state) = &cp.merge_state else {
        for f in FILES {
            let _ = std::fs::remove_file(ctx.git_dir.join(f));
        }
        return Ok(());
    };
    let listing = ctx.git.output(["ls-tree", "-z", "--full-tree", state])?;
    let mut stages = Vec::new();
    // `ls-tree` records: mode, type, id, name.
    for (_, _, id, name) in records(&listing.stdout) {
        let file = FILES.iter().find(|f| f.as_bytes() == name);
        if name != STAGES.as_bytes() && file.is_none() {
            continue;
        }
        let content = ctx.git.output(["cat-file", "blob", id])?.stdout;
        match file {
            Some(f) => {
                let path = ctx.git_dir.join(f);
                std::fs::write(&path, content).at("write", &path)?
            }
            None => stages = content,
        }
    }
    let mut info = Vec::new();
    let mut last: &[u8] = b"";
    for (mode, id, stage, path) in records(&stages) {
        if path != last {
            // Mode 0 removes the path's stage-0 entry; the stages follow.
            info.extend_from_slice(format!("0 {ZERO}\t").as_bytes());
            info.extend_from_slice(path);
            info.push(0);
            last = path;
        }
        info.extend_from_slice(format!("{mode} {id} {stage}\t").as_bytes());
        info.extend_from_slice(path);
        info.push(0);
    }
    if !info.is_empty() {
        super::snapshot::wait_for_index_lock(&ctx.git_dir)?;
        ctx.git
            .run_with(["update-index", "-z", "--index-info"], &[], Some(&info))?;
    }
    Ok(())
}
