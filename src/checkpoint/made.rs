//! The record of the checkpoints git-ward made: `<git-common-dir>/ward/made/<id>`
//! holds the commit git-ward wrote under `refs/ward/checkpoints/<id>`, and
//! `pinned` on a second line when a person pinned it.
//!
//! A file, which no git command writes, so that a checkpoint ref written
//! by anything else is known: rollback and undo compare ([`changed`]),
//! retention spares a checkpoint pinned when it was made whatever its
//! trailers say now ([`pinned`]), and the commit git-ward made stays
//! reachable, as `refs/ward/kept/<id>/made`, once its ref is rewritten or
//! deleted: by the reference-transaction hook when the write ran with the
//! hooks on, by retention ([`keep_rewritten`]) when it did not (a record
//! outlives its checkpoint ref until retention prunes that checkpoint).

use std::path::{Path, PathBuf};

use super::store::{short, Checkpoint, KEPT};
use super::Ctx;
use crate::error::{IoContext, Result};

/// The leaf under `refs/ward/kept/<id>/` that keeps the commit git-ward
/// made once its checkpoint ref was rewritten or deleted.
pub const LEAF: &str = "made";

/// What git-ward recorded when it made a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    pub commit: String,
    pub pinned: bool,
}

fn path(common_dir: &Path, id: &str) -> PathBuf {
    common_dir.join("ward").join("made").join(id)
}

/// The record written before the ref of checkpoint `id` is claimed with
/// `commit`: `<git-common-dir>/ward/claiming/<id>@<commit>`.
fn claiming_path(common_dir: &Path, id: &str, commit: &str) -> PathBuf {
    common_dir
        .join("ward")
        .join("claiming")
        .join(format!("{id}@{commit}"))
}

/// The record of checkpoint `id` in the repository whose common git
/// directory is `common_dir`, if git-ward made it.
pub fn read(common_dir: &Path, id: &str) -> Option<Made> {
    let text = crate::state_file::read_text(&path(common_dir, id)).ok()?;
    let mut lines = text.lines();
    let commit = lines.next()?.trim().to_string();
    crate::git::is_object_id(&commit).then(|| Made {
        commit,
        pinned: lines.any(|l| l.trim() == "pinned"),
    })
}

/// [`read`], else the record written before the ref was claimed, if it
/// names `commit`: a process killed between its claim and [`record_made`]
/// leaves a checkpoint git-ward still knows as its own.
pub fn read_for(common_dir: &Path, id: &str, commit: &str) -> Option<Made> {
    read(common_dir, id).or_else(|| {
        let text = crate::state_file::read_text(&claiming_path(common_dir, id, commit)).ok()?;
        let mut lines = text.lines();
        (lines.next()?.trim() == commit).then(|| Made {
            commit: commit.to_string(),
            pinned: lines.any(|l| l.trim() == "pinned"),
        })
    })
}

/// The ref that keeps checkpoint `id`'s commit once its ref was rewritten.
pub fn kept_ref(id: &str) -> String {
    format!("{KEPT}{id}/{LEAF}")
}

/// Records, before the ref of checkpoint `cp` is claimed, that git-ward
/// is making it with `commit` (kept apart per commit: another process may
/// be claiming the same id).
pub fn record_claiming(ctx: &Ctx, cp: &Checkpoint, commit: &str) -> Result<()> {
    let path = claiming_path(&ctx.common_dir, &cp.id, commit);
    let pinned = if cp.pinned { "pinned\n" } else { "" };
    crate::state_file::replace(&path, format!("{commit}\n{pinned}").as_bytes()).at("write", &path)
}

/// Drops the record of a claim of `id` with `commit`: lost to another
/// process, or made good by [`record_made`].
pub fn claim_over(ctx: &Ctx, id: &str, commit: &str) {
    let _ = std::fs::remove_file(claiming_path(&ctx.common_dir, id, commit));
}

/// Records that git-ward made checkpoint `cp` with its commit.
pub fn record_made(ctx: &Ctx, cp: &Checkpoint) -> Result<()> {
    let path = path(&ctx.common_dir, &cp.id);
    let pinned = if cp.pinned { "pinned\n" } else { "" };
    crate::state_file::replace(&path, format!("{}\n{pinned}", cp.commit).as_bytes())
        .at("write", &path)?;
    claim_over(ctx, &cp.id, &cp.commit);
    Ok(())
}

/// Forgets checkpoint `id`, which retention deleted (and any claim of it
/// a killed process left).
pub fn forget(ctx: &Ctx, id: &str) {
    let _ = std::fs::remove_file(path(&ctx.common_dir, id));
    let claims = std::fs::read_dir(ctx.common_dir.join("ward").join("claiming"));
    let prefix = format!("{id}@");
    for entry in claims.into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Was checkpoint `cp` pinned, by its trailer or by git-ward's record of
/// making it (a rewrite that drops the trailer does not unpin it)?
pub fn pinned(ctx: &Ctx, cp: &Checkpoint) -> bool {
    cp.pinned || read_for(&ctx.common_dir, &cp.id, &cp.commit).is_some_and(|m| m.pinned)
}

/// Why `cp` is not the checkpoint git-ward made under its id, if it is
/// not: its commit changed since, or git-ward has no record of making it.
pub fn changed(ctx: &Ctx, cp: &Checkpoint) -> Option<String> {
    match read_for(&ctx.common_dir, &cp.id, &cp.commit) {
        Some(made) if made.commit == cp.commit => None,
        Some(made) => {
            let name = kept_ref(&cp.id);
            let kept = ctx
                .git
                .output(["rev-parse", "-q", "--verify", &name])
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == made.commit);
            Some(format!(
                "checkpoint {} is commit {}, and git-ward made it as {}{}: its ref was rewritten since",
                cp.id,
                short(&cp.commit),
                short(&made.commit),
                if kept { format!(" (kept as {name})") } else { String::new() }
            ))
        }
        None => Some(format!(
            "git-ward has no record of making checkpoint {} (commit {}): it was written by something else, or by a git-ward that kept no record",
            cp.id,
            cp.commit.get(..12).unwrap_or(&cp.commit)
        )),
    }
}

/// For retention: the commit git-ward made of each checkpoint whose ref
/// no longer holds it, and that no hook kept (rewritten or deleted with
/// the hooks off), is kept as `refs/ward/kept/<id>/made` while git still
/// has it. `checkpoints` are those retention keeps; a record whose
/// checkpoint ref is gone altogether (not deleted by retention, which
/// forgets its records) is found in `ward/made/`. A record whose commit
/// git no longer has is forgotten.
pub fn keep_rewritten<'a>(ctx: &Ctx, checkpoints: impl IntoIterator<Item = &'a Checkpoint>) {
    let kept: std::collections::HashSet<String> = ctx
        .repo
        .ref_names(KEPT)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let mut lost: Vec<(String, String)> = checkpoints
        .into_iter()
        .filter_map(|cp| {
            let made = read(&ctx.common_dir, &cp.id)?;
            (made.commit != cp.commit).then(|| (cp.id.clone(), made.commit))
        })
        .collect();
    let present = super::store::ids(ctx);
    let records = std::fs::read_dir(ctx.common_dir.join("ward").join("made"));
    for entry in records.into_iter().flatten().flatten() {
        let id = entry.file_name().to_string_lossy().into_owned();
        if !present.contains(&id) {
            if let Some(made) = read(&ctx.common_dir, &id) {
                lost.push((id, made.commit));
            }
        }
    }
    let mut stdin = String::new();
    for (id, commit) in lost {
        let name = kept_ref(&id);
        if kept.contains(&name) {
            continue;
        }
        let exists = ctx
            .git
            .run(["cat-file", "-e", &format!("{commit}^{{commit}}")])
            .is_ok();
        if exists {
            stdin.push_str(&format!("update {name} {commit}\n"));
        } else if !present.contains(&id) {
            forget(ctx, &id);
        }
    }
    if !stdin.is_empty() {
        let _ = ctx
            .git
            .run_with(["update-ref", "--stdin"], &[], Some(stdin.as_bytes()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_with_their_pin_and_older_ones_too() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ward/made");
        std::fs::create_dir_all(&dir).unwrap();
        let id = "a".repeat(40);
        std::fs::write(dir.join("old"), format!("{id}\n")).unwrap();
        std::fs::write(dir.join("pin"), format!("{id}\npinned\n")).unwrap();
        std::fs::write(dir.join("odd"), "not a commit\npinned\n").unwrap();
        let read = |n| read(tmp.path(), n);
        assert_eq!(
            read("old"),
            Some(Made {
                commit: id.clone(),
                pinned: false
            })
        );
        assert_eq!(read("pin").map(|m| m.pinned), Some(true));
        assert_eq!(read("odd"), None);
        assert_eq!(read("none"), None);
    }

    #[test]
    fn a_claim_is_read_for_its_own_commit_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ward/claiming");
        std::fs::create_dir_all(&dir).unwrap();
        let (ours, other) = ("a".repeat(40), "b".repeat(40));
        std::fs::write(
            dir.join(format!("chk-x-1@{ours}")),
            format!("{ours}\npinned\n"),
        )
        .unwrap();
        assert_eq!(
            read_for(tmp.path(), "chk-x-1", &ours),
            Some(Made {
                commit: ours.clone(),
                pinned: true
            })
        );
        assert_eq!(read_for(tmp.path(), "chk-x-1", &other), None);
        assert_eq!(read(tmp.path(), "chk-x-1"), None);
    }
}
