//! One `git status` scan, turned into the edits that make the staged tree
//! and the working tree's tree from HEAD's (for [`super::direct`]).
//!
//! Each path ends as `update-index --add --remove` on a copy of the index
//! would leave it: a conflicted path staged as its `ours` side, modes as
//! git derives them from `lstat` and `core.fileMode`, a nested repository
//! counted as untracked but left out. Where `hash-object` could hash a file
//! differently from `update-index`, or the scan cannot say what git would
//! record, it steps aside ([`Aside`]) and the index recipe runs instead:
//!
//! - an index blob with a carriage return among the files to hash (git's
//!   "safer autocrlf" reads the index, which `hash-object` does not);
//! - a sparse checkout, or a deleted or conflicted `.gitattributes`
//!   (attributes then come from the index);
//! - a submodule whose commit moved, a conflict on a gitlink;
//! - a path that is neither a regular file nor a symbolic link;
//! - `core.fileMode` unset in the repository with an executable file to add;
//! - `core.symlinks = false` during a conflict; a rename record.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;

use super::import::{Blob, Edit};
use super::snapshot::{self, Trees};
use super::status::{self, Record, NO_MODE};
use super::Ctx;
use crate::decide::Head;
use crate::error::{Error, Result};

/// Why the scan stepped aside.
pub type Aside = &'static str;

/// The working tree and the index as edits of HEAD's tree.
pub struct Scan {
    /// Everything but the tree ids.
    pub trees: Trees,
    /// The index against HEAD.
    pub staged: Vec<Edit>,
    /// The working tree against the index.
    pub worktree: Vec<Edit>,
    /// Files for `hash-object`, in [`Blob::Pending`] order.
    pub to_hash: Vec<Vec<u8>>,
    /// Whether a tracked file differs from the index, or the index from
    /// HEAD, as far as the scan knows before hashing: `Some(true)` when it
    /// does; `Some(false)` when only the files in `unverified` might.
    pub tracked: bool,
    /// Tracked files whose stat data alone said they may differ: their
    /// place in the `hash-object` list, the index's id and mode, and the
    /// mode on disk. Each differs only if its hash or mode does.
    pub unverified: Vec<(usize, String, &'static str, &'static str)>,
    /// May git's conversion apply to a file hashed ([`Walk::conversion`])?
    pub conversion: bool,
}

impl Scan {
    /// Does the scan hold a change of a tracked file or of the index, given
    /// the ids `hash-object` gave?
    pub fn tracked_changed(&self, hashed: &[String]) -> bool {
        self.tracked
            || self
                .unverified
                .iter()
                .any(|(i, id, mode, now)| hashed.get(*i) != Some(id) || mode != now)
    }

    /// Does it hold an untracked file (kept, or left out for its size)?
    pub fn has_untracked(&self) -> bool {
        self.trees.counts.untracked > 0 || !self.trees.skipped.is_empty()
    }
}

/// What a path is on disk.
enum Disk {
    /// A regular file; `true` if its owner may execute it.
    File(bool),
    Link(Vec<u8>),
    Missing,
    Other,
}

/// The scan's state: the edits so far and the working tree's entry count.
pub(super) struct Walk<'c> {
    ctx: &'c Ctx<'c>,
    /// `core.fileMode`, if the repository says.
    file_mode: Option<bool>,
    /// `core.symlinks`.
    pub(super) symlinks: bool,
    /// May git's conversion (attributes, `core.autocrlf`) apply to a file?
    /// Where it cannot, an index blob's carriage returns change nothing.
    pub(super) conversion: bool,
    s: Scan,
    files: i64,
}

impl<'c> Walk<'c> {
    /// A scan of `ctx`'s worktree, whose index holds `entries`; `Err` where
    /// no scan records what the index recipe would.
    pub(super) fn start(ctx: &'c Ctx<'c>, entries: u64) -> std::result::Result<Walk<'c>, Aside> {
        if ctx.git_dir.join("info/sparse-checkout").exists() {
            return Err("a sparse checkout");
        }
        let config = ctx.repo.config();
        Ok(Walk {
            ctx,
            file_mode: config.boolean("core.fileMode").ok().flatten(),
            symlinks: config
                .boolean("core.symlinks")
                .ok()
                .flatten()
                .unwrap_or(true),
            conversion: true,
            s: Scan {
                trees: Trees {
                    head: ctx.repo.ref_target("HEAD"),
                    branch: match ctx.repo.head() {
                        Some(Head::Branch(b)) | Some(Head::Unborn(b)) => Some(b),
                        _ => None,
                    },
                    ..Trees::default()
                },
                staged: Vec::new(),
                worktree: Vec::new(),
                to_hash: Vec::new(),
                tracked: false,
                unverified: Vec::new(),
                conversion: true,
            },
            files: entries as i64,
        })
    }

    /// The untracked files (and the allow-listed ignored ones), then the
    /// scan as it stands.
    pub(super) fn finish(
        mut self,
        untracked: &[Vec<u8>],
    ) -> Result<std::result::Result<Scan, Aside>> {
        let ignored = snapshot::allowed_ignored(self.ctx, &[])?;
        if let Err(why) = self.untracked(untracked, &ignored) {
            return Ok(Err(why));
        }
        let mut s = self.s;
        s.conversion = self.conversion;
        s.trees.counts.skipped = s.trees.skipped.len() as u64;
        s.trees.counts.files = self.files.max(0) as u64;
        Ok(Ok(s))
    }
}

/// Scans the working tree and the index.
pub fn scan(ctx: &Ctx) -> Result<std::result::Result<Scan, Aside>> {
    let entries = snapshot::index_entries(&ctx.git_dir.join("index"));
    let mut w = match Walk::start(ctx, entries) {
        Ok(w) => w,
        Err(why) => return Ok(Err(why)),
    };
    let symlinks = w.symlinks;
    let out = ctx.git.output_with(
        [
            "status",
            "--porcelain=v2",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=none",
        ],
        &[("GIT_OPTIONAL_LOCKS", OsStr::new("0"))],
        None,
    )?;
    if !out.status.success() {
        return Err(Error::internal(format!(
            "git status failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let mut untracked: Vec<Vec<u8>> = Vec::new();
    let mut stages: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for record in status::parse(&out.stdout) {
        let step = match record {
            Record::Changed(e) => w.changed(&e),
            Record::Unmerged(u) if symlinks => w.unmerged(&u, &mut stages, &mut untracked),
            Record::Unmerged(_) => Err("core.symlinks = false during a conflict"),
            Record::Untracked(path) => {
                untracked.push(path.to_vec());
                Ok(())
            }
            Record::Other => Err("an unexpected status record"),
        };
        if let Err(why) = step {
            return Ok(Err(why));
        }
    }
    stages.sort();
    for (path, listed) in stages {
        w.s.trees.conflicted.push(super::cquote::quote_text(&path));
        w.s.trees.stages.extend_from_slice(&listed);
    }
    w.finish(&untracked)
}

impl Walk<'_> {
    /// A tracked file whose stat data differs from its entry's (mode and
    /// id hex as the index holds them), in an index that is HEAD's tree:
    /// its working-tree edit, to be confirmed by its hash.
    pub(super) fn may_differ(
        &mut self,
        path: &[u8],
        mode: &'static str,
        id: String,
    ) -> std::result::Result<(), Aside> {
        if mode == "160000" {
            return Err("a submodule");
        }
        match self.content(path, Some(&id))? {
            Some((exec, blob)) => {
                let now = new_mode(&blob, exec, Some(mode), self.file_mode)
                    .ok_or("core.fileMode unset with an executable file")?;
                match &blob {
                    Blob::Pending(i) => self.s.unverified.push((*i, id, mode, now)),
                    Blob::Link(target) => {
                        let kind = self.ctx.repo.object_hash();
                        self.s.tracked |= mode != now || !blob_is(kind, target, &id);
                    }
                    Blob::Id(_) => self.s.tracked = true,
                }
                self.s.worktree.push(Edit::put(path, now, blob));
            }
            None => {
                self.s.tracked = true;
                self.gone(path);
            }
        }
        Ok(())
    }

    /// An ordinary changed entry: its staged edit and its working-tree edit.
    fn changed(&mut self, e: &status::Entry) -> std::result::Result<(), Aside> {
        self.s.tracked = true;
        match e.xy[0] {
            b'.' => {}
            b'D' => self.s.staged.push(Edit::delete(e.path)),
            _ => self.s.staged.push(Edit::put(
                e.path,
                e.mode_index,
                Blob::Id(e.id_index.to_string()),
            )),
        }
        match e.xy[1] {
            b'.' => return Ok(()),
            b'D' if is_attributes(e.path) => return Err("a deleted .gitattributes"),
            b'D' => {
                self.gone(e.path);
                return Ok(());
            }
            _ => {}
        }
        if e.mode_index == "160000" || e.mode_worktree == "160000" {
            // A submodule keeps the index's commit unless its own moved.
            let moved = e.sub.as_bytes().get(1) == Some(&b'C');
            if moved || e.mode_index != e.mode_worktree {
                return Err("a submodule whose commit moved");
            }
            return Ok(());
        }
        let index_id = (e.mode_index != NO_MODE).then_some(e.id_index);
        match self.content(e.path, index_id)? {
            Some((_, blob)) => self
                .s
                .worktree
                .push(Edit::put(e.path, e.mode_worktree, blob)),
            None => self.gone(e.path),
        }
        Ok(())
    }

    /// A conflicted path: staged as `ours` (absent if ours deleted it), its
    /// stages listed as `ls-files -u -z` lists them; on disk as it is.
    fn unmerged(
        &mut self,
        u: &status::Unmerged,
        stages: &mut Vec<(Vec<u8>, Vec<u8>)>,
        untracked: &mut Vec<Vec<u8>>,
    ) -> std::result::Result<(), Aside> {
        self.s.tracked = true;
        if u.modes.contains(&"160000") || is_attributes(u.path) {
            return Err("a conflict on a gitlink or .gitattributes");
        }
        let mut listed = Vec::new();
        for (stage, (mode, id)) in u.modes.iter().zip(u.ids).enumerate() {
            if *mode != NO_MODE {
                self.files -= 1;
                listed.extend_from_slice(format!("{mode} {id} {}\t", stage + 1).as_bytes());
                listed.extend_from_slice(u.path);
                listed.push(0);
            }
        }
        stages.push((u.path.to_vec(), listed));
        let (mode, ours) = (u.modes[1], u.ids[1]);
        if mode == NO_MODE {
            // No staged entry: a file on disk is untracked.
            self.s.staged.push(Edit::delete(u.path));
            if !matches!(disk(self.ctx, u.path), Disk::Missing) {
                untracked.push(u.path.to_vec());
            }
            return Ok(());
        }
        self.s
            .staged
            .push(Edit::put(u.path, mode, Blob::Id(ours.to_string())));
        self.files += 1;
        match self.content(u.path, Some(ours))? {
            Some((exec, blob)) => {
                let mode = new_mode(&blob, exec, Some(mode), self.file_mode)
                    .ok_or("core.fileMode unset with an executable file")?;
                self.s.worktree.push(Edit::put(u.path, mode, blob));
            }
            None => self.gone(u.path),
        }
        Ok(())
    }

    /// Untracked files, then the allow-listed ignored ones: those not too
    /// large are added, the others named.
    fn untracked(
        &mut self,
        untracked: &[Vec<u8>],
        ignored: &[Vec<u8>],
    ) -> std::result::Result<(), Aside> {
        let max = crate::policy::parse_size(&self.ctx.settings.checkpoint.max_file_size)
            .unwrap_or(u64::MAX);
        let all = untracked
            .iter()
            .map(|p| (p, false))
            .chain(ignored.iter().map(|p| (p, true)));
        let mut private = snapshot::Private::default();
        for (path, is_ignored) in all {
            let full = super::in_tree(&self.ctx.workdir, path);
            let meta = std::fs::symlink_metadata(&full).ok();
            let size = meta.as_ref().map_or(0, |m| m.len());
            let shown = String::from_utf8_lossy(path).into_owned();
            if size > max {
                let quoted = super::cquote::quote_text(path);
                let size = snapshot::human_size(size);
                self.s.trees.skipped.push(format!("{quoted} ({size})"));
                continue;
            }
            if let Some(meta) = meta.filter(|m| m.is_file()) {
                private.note(&self.ctx.workdir, path, meta.permissions().mode());
            }
            let counts = &mut self.s.trees.counts;
            if is_ignored {
                counts.ignored += 1;
                self.s.trees.ignored.push(shown);
            } else {
                counts.untracked += 1;
            }
            if path.ends_with(b"/") {
                // A directory git does not enter (another repository).
                continue;
            }
            let Some((exec, blob)) = self.content(path, None)? else {
                continue;
            };
            let mode = new_mode(&blob, exec, None, self.file_mode)
                .ok_or("core.fileMode unset with an executable file")?;
            self.s.worktree.push(Edit::put(path, mode, blob));
            self.files += 1;
        }
        self.s.trees.modes = private.modes;
        Ok(())
    }

    /// A path the working tree's tree loses.
    fn gone(&mut self, path: &[u8]) {
        self.files -= 1;
        self.s.worktree.push(Edit::delete(path));
    }

    /// What to store for a path on disk (`None` if it is gone), and whether
    /// it is an executable file. `index_id` is the index's blob for the path.
    fn content(
        &mut self,
        path: &[u8],
        index_id: Option<&str>,
    ) -> std::result::Result<Option<(bool, Blob)>, Aside> {
        match disk(self.ctx, path) {
            Disk::Link(target) => Ok(Some((false, Blob::Link(target)))),
            Disk::File(exec) => {
                if let Some(id) = index_id.filter(|_| self.conversion) {
                    if has_cr(self.ctx, id)? {
                        return Err("a carriage return in an index blob");
                    }
                }
                self.s.to_hash.push(path.to_vec());
                Ok(Some((exec, Blob::Pending(self.s.to_hash.len() - 1))))
            }
            Disk::Missing => Ok(None),
            Disk::Other => Err("a path that is neither a file nor a symbolic link"),
        }
    }
}

/// The mode `update-index --add` gives a path, from what is on disk and
/// the entry it replaces (git's `ce_mode_from_stat`). `None` when that
/// depends on a `core.fileMode` the repository does not set.
fn new_mode(
    blob: &Blob,
    exec: bool,
    old: Option<&str>,
    file_mode: Option<bool>,
) -> Option<&'static str> {
    if matches!(blob, Blob::Link(_)) {
        return Some("120000");
    }
    let trusted = match file_mode {
        Some(v) => v,
        None if exec || old == Some("100755") => return None,
        None => true,
    };
    Some(match (trusted, exec, old) {
        (true, true, _) => "100755",
        (false, _, Some("100755")) => "100755",
        _ => "100644",
    })
}

fn disk(ctx: &Ctx, path: &[u8]) -> Disk {
    let full = super::in_tree(&ctx.workdir, path);
    match std::fs::symlink_metadata(&full) {
        Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&full) {
            Ok(target) => Disk::Link(target.as_os_str().as_bytes().to_vec()),
            Err(_) => Disk::Missing,
        },
        Ok(m) if m.is_file() => Disk::File(m.permissions().mode() & 0o100 != 0),
        Ok(_) => Disk::Other,
        // Out of reach here (no way around `PATH_MAX` on this system), not
        // gone: the index recipe has git read it from the top.
        Err(err) if err.raw_os_error() == Some(libc::ENAMETOOLONG) => Disk::Other,
        Err(_) => Disk::Missing,
    }
}

/// Is `id` (hex) the blob of `data`?
fn blob_is(kind: gix::hash::Kind, data: &[u8], id: &str) -> bool {
    gix::objs::compute_hash(kind, gix::objs::Kind::Blob, data)
        .is_ok_and(|computed| computed.to_hex().to_string().as_str() == id)
}

/// Does the blob hold a carriage return? (Unreadable counts as yes.)
fn has_cr(ctx: &Ctx, id: &str) -> std::result::Result<bool, Aside> {
    let unreadable = "an index blob not at hand";
    let oid = gix::ObjectId::from_hex(id.as_bytes()).map_err(|_| unreadable)?;
    let repo = ctx.repo.gix().map_err(|_| unreadable)?;
    let object = repo.find_object(oid).map_err(|_| unreadable)?;
    Ok(object.data.contains(&b'\r'))
}

fn is_attributes(path: &[u8]) -> bool {
    path == b".gitattributes" || path.ends_with(b"/.gitattributes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_git() {
        let file = Blob::Pending(0);
        let link = Blob::Link(b"t".to_vec());
        assert_eq!(new_mode(&link, false, None, Some(true)), Some("120000"));
        assert_eq!(new_mode(&file, true, None, Some(true)), Some("100755"));
        assert_eq!(
            new_mode(&file, false, Some("100755"), Some(true)),
            Some("100644")
        );
        assert_eq!(new_mode(&file, true, None, Some(false)), Some("100644"));
        assert_eq!(
            new_mode(&file, false, Some("100755"), Some(false)),
            Some("100755")
        );
        assert_eq!(
            new_mode(&file, false, Some("120000"), Some(false)),
            Some("100644")
        );
        assert_eq!(new_mode(&file, false, None, None), Some("100644"));
        assert_eq!(new_mode(&file, true, None, None), None);
    }
}
