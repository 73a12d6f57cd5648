//! The direct recipe: a checkpoint in a few git processes, no index
//! written (`hash-object` and `fast-import` start while the tree is
//! scanned, and wait for their input).
//!
//! 1. The scan: where the index's stat cache can tell, one stat pass over
//!    its entries in process and a listing of its directories
//!    ([`super::index_scan`]; the pre-destructive check hands over the pass
//!    it made); else `git status --porcelain=v2` on the real index
//!    (optional locks off, so it is read, never rewritten): one threaded
//!    scan that names, per changed path, the HEAD and index entries and
//!    what differs on disk, and the untracked files ([`super::scan`] turns
//!    either into edits). The staged tree is HEAD's tree plus the index's
//!    differences; the working tree's is that plus the differences on disk.
//! 2. `hash-object -w --stdin-paths` of the files that differ: each goes
//!    through its clean filter and end-of-line conversion by its path, as
//!    `git add` does. Symbolic links are stored as git stores them, their
//!    target's bytes. Where a conversion may apply, the same with
//!    `--no-filters` beside it: where the two differ, the bytes on disk
//!    are kept too ([`super::bytes`]).
//! 3. One `fast-import`: the staged tree's commit (when it is not HEAD's
//!    tree), its root tree id read back, then the checkpoint commit with
//!    its trailers, and the ref. The id is checked free just before; at
//!    its end fast-import creates the ref only if it is still absent (or
//!    if the ref's commit is an ancestor of the new one, which a checkpoint
//!    created meanwhile cannot be). Had another process taken the id, the
//!    checkpoint is committed again under the next free one, as
//!    [`super::snapshot::store`] does.
//!
//! A checkpoint asked for with a [`Stake`] is stored only if the hashes
//! show something a command could lose; else fast-import ends with
//! nothing written.
//!
//! Where the result could differ from what `update-index` and `write-tree`
//! record, [`super::scan`] steps aside and the caller takes the index
//! recipe of [`super::snapshot`].

use std::ffi::OsStr;

use super::clean::Marks;
use super::import::{self, Commit};
use super::index_scan::Seed;
use super::scan::{self, Scan};
use super::snapshot::{self, Options, IDENTITY};
use super::store::{self, Checkpoint};
use super::Ctx;
use crate::error::{Error, Result};
use crate::git::Dialog;

/// What the direct recipe did.
pub enum Taken {
    Made(Box<Checkpoint>),
    /// Nothing at stake ([`Stake`]): no checkpoint stored.
    Nothing,
    /// It cannot record exactly what the index recipe would.
    Aside,
}

/// A checkpoint that is stored only when a command can lose something:
/// a tracked file that differs from HEAD (or a staged change), or, with
/// `untracked`, an untracked file.
#[derive(Clone, Copy, Debug)]
pub struct Stake {
    pub untracked: bool,
}

/// Takes a checkpoint by the direct recipe, from `seed` where the stat
/// pass was made (else from one of its own, or from `git status`); with
/// `stake`, only if there is something at stake.
pub fn checkpoint(
    ctx: &Ctx,
    opts: &Options,
    seed: Option<Seed>,
    stake: Option<Stake>,
) -> Result<Taken> {
    snapshot::wait_for_index_lock(&ctx.git_dir)?;
    // Both start while the tree is scanned, so their start-up costs no wait.
    let (author, committer, format) = idents(ctx)?;
    let date_format = format!("--date-format={format}");
    let fi = ctx
        .git
        .dialog(&["fast-import", "--quiet", "--done", &date_format], &[])?;
    let hasher = ctx
        .git
        .dialog(&["hash-object", "-w", "--stdin-paths"], &[])?;
    let (scan, marks) = match seed.or_else(|| Seed::read(ctx)) {
        Some(seed) => {
            let marks = super::clean::marks(&seed.index, &ctx.workdir);
            match super::index_scan::scan(ctx, &seed) {
                Ok(Err(why)) if marks.is_empty() => {
                    tracing::debug!("checkpoint: git status, for {why}");
                    (scan::scan(ctx), Some(marks))
                }
                scan => (scan, Some(marks)),
            }
        }
        None => status_scan(ctx),
    };
    let scan = match scan {
        Ok(Ok(_)) if marks.as_ref().is_none_or(|m| !m.is_empty()) => {
            tracing::debug!("checkpoint: the index recipe, for marked entries");
            abandon(fi);
            return Ok(Taken::Aside);
        }
        Ok(Ok(mut scan)) => {
            scan.trees.intent_to_add = marks.map(|m| m.intent).unwrap_or_default();
            scan
        }
        Ok(Err(why)) => {
            tracing::debug!("checkpoint: the index recipe, for {why}");
            abandon(fi);
            return Ok(Taken::Aside);
        }
        Err(err) => {
            abandon(fi);
            return Err(err);
        }
    };
    // The same files' bytes as they are on disk, kept where git's
    // conversion changes them ([`super::bytes`]).
    let raw_hasher = match scan.conversion && !scan.to_hash.is_empty() {
        true => Some(
            ctx.git
                .dialog(&["hash-object", "-w", "--no-filters", "--stdin-paths"], &[])?,
        ),
        false => None,
    };
    let Some(hashed) = hash(hasher, &scan.to_hash)? else {
        tracing::debug!("checkpoint: the index recipe, a file changed while hashing");
        abandon(fi);
        return Ok(Taken::Aside);
    };
    if let Some(stake) = stake {
        let at_stake = scan.tracked_changed(&hashed) || (stake.untracked && scan.has_untracked());
        if !at_stake {
            abandon(fi);
            return Ok(Taken::Nothing);
        }
    }
    let raw = raw_hasher.map(|h| hash(h, &scan.to_hash)).transpose()?;
    let paths = scan.to_hash.clone();
    let idents = Idents { author, committer };
    let cp = write(ctx, fi, &idents, scan, &hashed, opts)?;
    if let Some(Some(raw)) = raw {
        super::bytes::keep(ctx, &cp.id, &paths, &hashed, &raw)?;
    }
    Ok(Taken::Made(Box::new(cp)))
}

/// `git status`'s scan, and the index's marks read meanwhile: `status`
/// believes its assume-unchanged and skip-worktree marks, which only the
/// index recipe sees through.
fn status_scan(
    ctx: &Ctx,
) -> (
    Result<std::result::Result<Scan, scan::Aside>>,
    Option<Marks>,
) {
    let (git_dir, kind) = (ctx.git_dir.clone(), ctx.repo.object_hash());
    let workdir = ctx.workdir.clone();
    let marks = move || {
        super::clean::read_index_at(&git_dir, kind)
            .map(|index| super::clean::marks(&index, &workdir))
    };
    std::thread::scope(
        |s| match std::thread::Builder::new().spawn_scoped(s, marks.clone()) {
            Ok(thread) => (scan::scan(ctx), thread.join().ok().flatten()),
            Err(_) => (scan::scan(ctx), marks()),
        },
    )
}

/// Ends a fast-import that is not needed, cleanly (it removes its empty pack).
fn abandon(fi: Dialog) {
    let _ = fi.finish_with(b"done\n".to_vec());
}

/// `hash-object -w` of the files, by path (filters and conversion apply).
/// `None` if one cannot be read any more (it changed since the scan).
fn hash(hasher: Dialog, paths: &[Vec<u8>]) -> Result<Option<Vec<String>>> {
    let mut stdin = Vec::new();
    for p in paths {
        stdin.extend_from_slice(&super::cquote::quote(p));
        stdin.push(b'\n');
    }
    let end = hasher.finish_with(stdin)?;
    let ids: Vec<String> = String::from_utf8_lossy(&end.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    Ok((end.success && ids.len() == paths.len()).then_some(ids))
}

/// Who the commits are by, with their dates.
struct Idents {
    author: String,
    committer: String,
}

/// Writes the commits and the ref in one `fast-import`.
fn write(
    ctx: &Ctx,
    mut fi: Dialog,
    who: &Idents,
    s: Scan,
    hashed: &[String],
    opts: &Options,
) -> Result<Checkpoint> {
    let t = s.trees;
    let mut cp = snapshot::describe(ctx, &t, opts);
    let (prefix, first) = snapshot::first_number(ctx);
    let n = free_number(ctx, &prefix, first);
    cp.id = format!("{prefix}{n}");
    let branch = format!("{}{}", store::PREFIX, cp.id);
    let head: Vec<String> = t.head.iter().cloned().collect();
    let head_tree = snapshot::head_tree(ctx);

    // The staged tree: HEAD's, unless the index differs (or there is no HEAD).
    let mut index_commit = None;
    cp.index_tree = head_tree.clone();
    if head_tree.is_none() || !s.staged.is_empty() {
        let mut out = Vec::new();
        import::commit(
            &mut out,
            &Commit {
                branch: &branch,
                mark: 1,
                author: &who.author,
                committer: &who.committer,
                message: "index\n",
                parents: &head,
                edits: &[&s.staged],
                hashed,
            },
        );
        import::ask_tree_and_id(&mut out, 1);
        fi.send(&out)?;
        let answer = (fi.line(), fi.line());
        let (Ok(Some(tree)), Ok(id)) = (answer.0.map(|l| import::tree_of_answer(&l)), answer.1)
        else {
            return Err(failed(fi.finish()?.stderr));
        };
        // Staged changes that cancel out leave HEAD's tree, which HEAD keeps.
        if Some(&tree) != head_tree.as_ref() {
            index_commit = Some(id);
        }
        cp.index_tree = Some(tree);
    }

    if let Some(m) = super::merge::record(ctx, &t.stages)? {
        cp.merge_heads = m.heads;
        cp.merge_state = Some(m.state);
    }
    // Without a HEAD the staged commit comes first, its tree already staged.
    let mut parents = head.clone();
    parents.extend(index_commit.as_ref().map(|_| ":1".to_string()));
    parents.extend(cp.merge_state.clone());
    let edits: Vec<&[import::Edit]> = if head.is_empty() {
        vec![&s.worktree]
    } else {
        vec![&s.staged, &s.worktree]
    };
    let message = cp.message();
    let mut out = Vec::new();
    import::commit(
        &mut out,
        &Commit {
            branch: &branch,
            mark: 2,
            author: &who.author,
            committer: &who.committer,
            message: &message,
            parents: &parents,
            edits: &edits,
            hashed,
        },
    );
    import::ask_tree_and_id(&mut out, 2);
    fi.send(&out)?;
    // The commit's id is known before `done` has fast-import write the
    // ref: recorded first, a process killed between the two leaves a
    // checkpoint still known as git-ward's.
    let answer = fi.line().and_then(|tree| Ok((tree, fi.line()?)));
    let Ok((Some(tree), commit)) = answer.map(|(t, c)| (import::tree_of_answer(&t), c)) else {
        return Err(failed(fi.finish()?.stderr));
    };
    cp.tree = tree;
    cp.commit = commit;
    let commit = cp.commit.as_str();
    super::made::record_claiming(ctx, &cp, commit)?;
    let end = fi.finish_with(b"done\n".to_vec())?;
    let n = if end.success || ctx.repo.ref_target(&branch).as_deref() == Some(commit) {
        n
    } else {
        super::made::claim_over(ctx, &cp.id, commit);
        // The id was taken meanwhile: the next free one, as the index recipe claims it.
        let parents: Vec<String> = head
            .into_iter()
            .chain(index_commit)
            .chain(cp.merge_state.clone())
            .collect();
        let parents: Vec<&str> = parents.iter().map(String::as_str).collect();
        snapshot::claim(ctx, &mut cp, &parents, &prefix, n + 1)?
    };
    snapshot::finish(ctx, &cp, &prefix, n, opts.spare.as_deref())?;
    Ok(cp)
}

/// A number from `n` on whose id no ref holds yet: when `n`'s is taken
/// (the remembered number is stale), one past the highest taken.
fn free_number(ctx: &Ctx, prefix: &str, n: u64) -> u64 {
    let taken = |n: u64| {
        ctx.repo
            .ref_target(&format!("{}{prefix}{n}", store::PREFIX))
            .is_some()
    };
    if taken(n) {
        store::next_number(&store::ids(ctx), prefix).max(n + 1)
    } else {
        n
    }
}

/// Author, committer (git-ward) and fast-import's date format. Dates come
/// from git itself when the environment pins them, as `commit-tree` reads them.
fn idents(ctx: &Ctx) -> Result<(String, String, &'static str)> {
    let pinned = ["GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"]
        .iter()
        .any(|k| std::env::var_os(k).is_some());
    if !pinned {
        let who = "git-ward <git-ward@localhost> now".to_string();
        return Ok((who.clone(), who, "now"));
    }
    let envs: Vec<(&str, &OsStr)> = IDENTITY.iter().map(|(k, v)| (*k, OsStr::new(*v))).collect();
    let author = ctx.git.run_with(["var", "GIT_AUTHOR_IDENT"], &envs, None)?;
    let committer = ctx
        .git
        .run_with(["var", "GIT_COMMITTER_IDENT"], &envs, None)?;
    Ok((author, committer, "raw"))
}

fn failed(stderr: String) -> Error {
    Error::internal(format!("git fast-import failed: {stderr}"))
}
