//! Commits that only reflogs keep: what `reflog expire`, `prune` and
//! `gc --prune=now` destroy. Before one runs, they are kept reachable from
//! one ref, `refs/ward/kept/<checkpoint id>/lost` (a commit whose parents
//! are those commits), for as long as the checkpoint is kept.
//!
//! Commits that git-ward's own refs already reach (a checkpoint's HEAD, a
//! dropped stash it recorded) are not repeated. Objects that no commit
//! reaches (a blob staged and then reset away) are not kept.

use std::collections::HashSet;

use super::Ctx;
use crate::error::{Error, Result};

/// The most parents one keeping commit takes; more chain through it.
const PARENTS: usize = 64;

/// The commits some reflog entry names that no ref reaches.
pub fn reflog_only(ctx: &Ctx) -> Result<Vec<String>> {
    if ctx.repo.ref_target("HEAD").is_none() && !has_refs(ctx)? {
        return Ok(Vec::new());
    }
    let logged = ctx.git.run(["log", "-g", "--all", "--format=%H"])?;
    let mut seen = HashSet::new();
    let tips: Vec<&str> = logged
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && seen.insert(*l))
        .collect();
    if tips.is_empty() {
        return Ok(Vec::new());
    }
    let mut stdin = tips.join("\n");
    stdin.push('\n');
    let unreached = ctx.git.run_with(
        ["rev-list", "--stdin", "--not", "--all"],
        &[],
        Some(stdin.as_bytes()),
    )?;
    let unreached: HashSet<&str> = unreached.lines().collect();
    Ok(tips
        .into_iter()
        .filter(|t| unreached.contains(t))
        .map(str::to_string)
        .collect())
}

fn has_refs(ctx: &Ctx) -> Result<bool> {
    Ok(!ctx
        .git
        .run(["for-each-ref", "--count=1", "--format=x"])?
        .is_empty())
}

/// The detached HEADs of the worktrees `git worktree prune` would delete
/// the records of: not locked, their directory gone (what their `gitdir`
/// file names). Those on a branch lose nothing.
pub fn pruned_heads(ctx: &Ctx) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(ctx.common_dir.join("worktrees")) else {
        return Vec::new();
    };
    let mut heads = Vec::new();
    for entry in entries.flatten() {
        let admin = entry.path();
        let read = |name: &str| std::fs::read_to_string(admin.join(name)).ok();
        let gone = read("gitdir").is_some_and(|dir| !std::path::Path::new(dir.trim()).exists());
        if admin.join("locked").exists() || !gone {
            continue;
        }
        if let Some(head) = read("HEAD").map(|h| h.trim().to_string()) {
            if crate::git::is_object_id(&head) {
                heads.push(head);
            }
        }
    }
    heads
}

/// Keeps `commits` reachable from `refs/ward/kept/<id>/lost`.
pub fn keep(ctx: &Ctx, id: &str, commits: &[String]) -> Result<()> {
    keep_as(ctx, id, "lost", "commits only reflogs kept", commits)
}

/// Keeps `commits` reachable from one ref, `refs/ward/kept/<id>/<leaf>`:
/// a commit (or a chain of them) whose parents they are, however many.
pub fn keep_as(ctx: &Ctx, id: &str, leaf: &str, what: &str, commits: &[String]) -> Result<()> {
    let empty_tree = ctx.git.run_with(
        ["hash-object", "-t", "tree", "-w", "--stdin"],
        &[],
        Some(b""),
    )?;
    let mut keeper: Option<String> = None;
    for chunk in commits.chunks(PARENTS) {
        let mut parents: Vec<&str> = keeper.iter().map(String::as_str).collect();
        parents.extend(chunk.iter().map(String::as_str));
        let message = format!("ward: {what} ({} here)\n", chunk.len());
        keeper = Some(super::snapshot::commit_tree(
            ctx,
            &empty_tree,
            &parents,
            &message,
        )?);
    }
    let Some(keeper) = keeper else {
        return Ok(());
    };
    let name = format!("{}{id}/{leaf}", super::store::KEPT);
    let out = ctx
        .git
        .output(["update-ref", "-m", &format!("ward: {what}"), &name, &keeper])?;
    if !out.status.success() {
        return Err(Error::internal(format!(
            "cannot create {name}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}
