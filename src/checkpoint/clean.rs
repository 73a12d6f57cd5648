//! Do the tracked files match the index, and the index HEAD? Answered
//! in-process from the index's stat cache, before a destructive command
//! (`checkout -- .`, `restore .`, `checkout -f`) decides whether there is
//! anything to checkpoint.
//!
//! The question is the one `git status -uno` answers, minus its process
//! start and its second reading of the index: one `lstat` per entry, on
//! every core, each compared with what the index recorded. The answer is
//! trusted only where git itself would trust it without reading the file:
//!
//! - every field git compares (mtime and ctime to the nanosecond, size,
//!   inode, uid, gid, file type and executable bit) equals the index's;
//! - the entry is not racy (its mtime is not in the index file's second or
//!   later, git's rule without nanoseconds);
//! - the index's cached root tree is valid and is HEAD's tree.
//!
//! Anything else (a mismatch that may be only a touched file, a racy entry,
//! a gitlink, an intent-to-add entry, a split or sparse index, an index git
//! may not have written) is [`Verdict::Unsure`], and the caller asks git.
//!
//! One case git cannot be asked: an entry marked `assume-unchanged` (or
//! written under `core.ignoreStat`). `git status` believes the mark and
//! never looks at the file, but `checkout -- .`, `restore .`, `reset
//! --hard` and `checkout -f` look and overwrite it. Such an entry whose
//! file differs is [`Verdict::Hidden`] here, wherever it is in the tree
//! (pathspecs are not matched here), so the checkpoint is taken; the
//! checkpoint's own scan drops the marks on its copy of the index
//! ([`super::snapshot`]). A missing file or a conflict, which git sees
//! too, is [`Verdict::Dirty`].

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use gix::index::entry::{Flags, Mode, Stat};
use gix::index::{Entry, File};

use super::Ctx;

/// The answer of [`tracked`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every tracked file matches the index, and the index HEAD.
    Clean,
    /// Tracked files differ from HEAD where git sees it too (a missing
    /// file, a conflict); the reason.
    Dirty(&'static str),
    /// Git's own check cannot be trusted to see what would be lost: an
    /// assume-unchanged file changed (git's check would call the tree
    /// clean, the command overwrites it), or a thread of the check failed.
    /// The reason.
    Hidden(&'static str),
    /// The stat cache cannot tell; the reason. Ask git.
    Unsure(&'static str),
}

/// One thread per this many entries (git's threshold for its preload), so
/// a second one from twice as many: an `lstat` costs 1.5 to 2.5 µs on a
/// virtual machine, a thread's start about 100 µs.
const PER_THREAD: usize = 500;

/// How many threads share `items`: one per core (at most 8), each with
/// `per_thread` items at least.
pub fn threads_for(items: usize, per_thread: usize) -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min((items / per_thread).max(1))
}

/// Reads the worktree's index, if it can be read. The checksum is not
/// verified: a damaged index makes git fail on its own, and here it can
/// only lead to an unsure answer.
pub fn read_index(ctx: &Ctx) -> Option<File> {
    read_index_at(&ctx.git_dir, ctx.repo.object_hash())
}

/// [`read_index`] of the index in `git_dir`.
pub fn read_index_at(git_dir: &Path, hash: gix::hash::Kind) -> Option<File> {
    let options = gix::index::decode::Options {
        thread_limit: Some(1),
        ..Default::default()
    };
    File::at(git_dir.join("index"), hash, true, options).ok()
}

/// The entries whose files `git status` does not look at, though a
/// command may overwrite them.
#[derive(Debug, Default)]
pub struct Marks {
    /// Marked assume-unchanged (`checkout -- .` overwrites them).
    pub assumed: Vec<Vec<u8>>,
    /// Marked skip-worktree with a file on disk (a sparse checkout leaves
    /// out its files; one that is there is a local edit kept out of sight,
    /// which paths written from a tree-ish overwrite).
    pub skipped: Vec<Vec<u8>>,
    /// Added with `--intent-to-add`: in no staged tree, so a restored
    /// index marks them again.
    pub intent: Vec<Vec<u8>>,
}

impl Marks {
    /// No mark `git status` believes (intent-to-add ones it does not).
    pub fn is_empty(&self) -> bool {
        self.assumed.is_empty() && self.skipped.is_empty()
    }
}

/// The [`Marks`] of `index`, files looked for under `workdir`.
pub fn marks(index: &File, workdir: &Path) -> Marks {
    let mut marks = Marks::default();
    for e in index.entries() {
        let path = e.path(index);
        if e.flags.contains(Flags::SKIP_WORKTREE) {
            let file = matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK);
            let on_disk = || std::fs::symlink_metadata(super::in_tree(workdir, path)).is_ok();
            if file && on_disk() {
                marks.skipped.push(path.to_vec());
            }
        } else if e.flags.contains(Flags::ASSUME_VALID) {
            marks.assumed.push(path.to_vec());
        }
        if e.flags.contains(Flags::INTENT_TO_ADD) {
            marks.intent.push(path.to_vec());
        }
    }
    marks
}

/// Which entries [`tracked`] compares with their files.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    /// Every entry: the command works on the whole tree.
    Whole,
    /// The entries at or under these paths (from the top, `/`-separated,
    /// none empty), and the assume-unchanged ones anywhere.
    Paths(&'a [Vec<u8>]),
    /// Only the assume-unchanged entries: the command names paths that
    /// git must read (globs, magic), and asks git about them.
    Marked,
}

impl Scope<'_> {
    /// Is `path` outside what this scope compares?
    fn leaves_out(&self, path: &[u8]) -> bool {
        match self {
            Scope::Whole => false,
            Scope::Marked => true,
            Scope::Paths(paths) => !paths
                .iter()
                .any(|p| path.starts_with(p) && (path.len() == p.len() || path[p.len()] == b'/')),
        }
    }
}

/// Whether the tracked files in `scope` match the index, and the index
/// HEAD's tree (`head_tree`, hex), as far as the stat cache can tell. The
/// index is the worktree's own, as for git's check, even when the command
/// runs with `GIT_INDEX_FILE`: what that index could make the command
/// overwrite is either a change the worktree's index sees, or HEAD's
/// content.
///
/// With [`Scope::Marked`] only the assume-unchanged entries are looked at,
/// and the answer is at best [`Verdict::Unsure`]: git's own check of the
/// paths named costs less than a look at every file.
///
/// With `skipped_at_stake` (paths written from a tree-ish, which overwrite
/// skip-worktree files), a skip-worktree entry with a file on disk
/// anywhere is [`Verdict::Hidden`] too: git's own check never looks there.
pub fn tracked(
    ctx: &Ctx,
    index: &File,
    head_tree: Option<&str>,
    scope: Scope,
    skipped_at_stake: bool,
) -> Verdict {
    check(ctx, index, head_tree, scope, skipped_at_stake, false).0
}

/// [`tracked`] over the whole tree that goes on past the first difference,
/// and also returns every entry whose file may differ from it (its
/// position in the index): stat data that differs, a racy entry, a missing
/// file. `None` where the pass could not look at every entry, or the index
/// is not HEAD's tree plus those files (its cached tree is not HEAD's, a
/// split or sparse index, a conflict): then only git can say what changed.
pub fn differing(
    ctx: &Ctx,
    index: &File,
    head_tree: Option<&str>,
    skipped_at_stake: bool,
) -> (Verdict, Option<Vec<usize>>) {
    check(ctx, index, head_tree, Scope::Whole, skipped_at_stake, true)
}

fn check(
    ctx: &Ctx,
    index: &File,
    head_tree: Option<&str>,
    scope: Scope,
    skipped_at_stake: bool,
    collect: bool,
) -> (Verdict, Option<Vec<usize>>) {
    let cached = index.tree().and_then(|t| t.num_entries.map(|_| t.id));
    let head_matches = match (cached, head_tree) {
        (Some(id), Some(head)) => gix::ObjectId::from_hex(head.as_bytes()).is_ok_and(|h| h == id),
        _ => false,
    };
    let whole = if matches!(scope, Scope::Marked) {
        Err("limited to paths")
    } else if index.link().is_some() {
        Err("a split index")
    } else if index.is_sparse() {
        Err("a sparse index")
    } else if !head_matches {
        Err("the index's cached tree is not HEAD's")
    } else {
        Ok(())
    };
    let racy_from = index.timestamp().unix_seconds();
    let Ok(root) = CString::new(ctx.workdir.as_os_str().as_bytes()) else {
        return (Verdict::Unsure("the working tree's path"), None);
    };
    let collect = collect && whole.is_ok();
    let entries = index.entries();
    let threads = threads_for(entries.len(), PER_THREAD);
    let stop = AtomicBool::new(false);
    let check = |(start, part): (usize, &[Entry])| {
        let mut walk = Walk::new(&root, racy_from);
        walk.skipped_at_stake = skipped_at_stake;
        walk.collect = collect.then_some(start);
        let verdict = walk.part(index, part, scope, whole.is_err(), &stop);
        (verdict, walk.found.take())
    };
    let failed = || (Verdict::Hidden("a thread of the stat check failed"), None);
    let outcomes: Vec<(Verdict, Option<Vec<usize>>)> = if threads == 1 {
        vec![check((0, entries))]
    } else {
        let size = entries.len().div_ceil(threads);
        std::thread::scope(|s| {
            // A part whose thread cannot be started is checked here.
            let handles: Vec<_> = entries
                .chunks(size)
                .enumerate()
                .map(|(i, part)| (i * size, part))
                .map(|part| {
                    std::thread::Builder::new()
                        .spawn_scoped(s, move || check(part))
                        .map_err(|_| part)
                })
                .collect();
            handles
                .into_iter()
                .map(|h| match h {
                    Ok(h) => h.join().unwrap_or_else(|_| failed()),
                    Err(part) => check(part),
                })
                .collect()
        })
    };
    let first = |pick: fn(&Verdict) -> bool| outcomes.iter().map(|o| o.0).find(pick);
    let verdict = first(|o| matches!(o, Verdict::Hidden(_)))
        .or_else(|| first(|o| matches!(o, Verdict::Dirty(_))))
        .or(whole.err().map(Verdict::Unsure))
        .or_else(|| first(|o| matches!(o, Verdict::Unsure(_))))
        .unwrap_or(Verdict::Clean);
    let found = outcomes
        .into_iter()
        .map(|o| o.1)
        .collect::<Option<Vec<Vec<usize>>>>()
        .filter(|_| collect)
        .map(|parts| parts.concat());
    (verdict, found)
}

/// One thread's walk: its entries in index order, with the directory of
/// the last one held open (so each `lstat` resolves one name), opened one
/// component at a time without following symbolic links, as git refuses
/// to look through one.
struct Walk<'a> {
    root: &'a CString,
    racy_from: i64,
    /// Open directories from the top: (path relative to the top, fd).
    dirs: Vec<(Vec<u8>, libc::c_int)>,
    /// Is a skip-worktree file on disk something the command overwrites?
    skipped_at_stake: bool,
    /// Collecting every entry that may differ: the index position of this
    /// walk's first entry.
    collect: Option<usize>,
    /// The entries found so (positions in the index); `None` once the walk
    /// stopped looking at some.
    found: Option<Vec<usize>>,
    name: Vec<u8>,
}

impl Drop for Walk<'_> {
    fn drop(&mut self) {
        for (_, fd) in self.dirs.drain(..) {
            // SAFETY: fds this walk opened and owns.
            unsafe { libc::close(fd) };
        }
    }
}

/// Why an entry's file does not match it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Miss {
    /// No file at its path: the command would write it back.
    Missing,
    /// Maybe only its stat data changed; the reason.
    Other(&'static str),
}

/// What an `lstat` of an entry's path gave.
enum Looked {
    Found(libc::stat),
    Missing,
    Unreadable,
}

impl<'a> Walk<'a> {
    fn new(root: &'a CString, racy_from: i64) -> Walk<'a> {
        Walk {
            root,
            racy_from,
            dirs: Vec::new(),
            skipped_at_stake: false,
            collect: None,
            found: Some(Vec::new()),
            name: Vec::with_capacity(256),
        }
    }

    /// Checks `part`. Once the answer cannot be "clean" (`settled`), and
    /// outside `scope`, only the assume-unchanged entries are looked at:
    /// one that changed is the only finding that stops every thread. While
    /// collecting, an entry that may differ settles nothing: it is noted.
    fn part(
        &mut self,
        index: &File,
        part: &[Entry],
        scope: Scope,
        mut settled: bool,
        stop: &AtomicBool,
    ) -> Verdict {
        let mut outcome = Verdict::Clean;
        let note = |outcome: &mut Verdict, found: Verdict| {
            if !matches!(outcome, Verdict::Dirty(_)) {
                *outcome = found;
            }
        };
        for (i, entry) in part.iter().enumerate() {
            if i % 256 == 0 && stop.load(Ordering::Relaxed) {
                self.found = None;
                break;
            }
            let flags = entry.flags;
            if flags.stage_raw() != 0 {
                note(&mut outcome, Verdict::Dirty("a conflicted path"));
                settled = true;
                self.found = None;
                continue;
            }
            if flags.contains(Flags::SKIP_WORKTREE) {
                let there = self.skipped_at_stake
                    && matches!(self.lstat(entry.path(index)), Ok(Looked::Found(_)));
                if there {
                    stop.store(true, Ordering::Relaxed);
                    return Verdict::Hidden("a skip-worktree file on disk");
                }
                continue;
            }
            let assumed = flags.contains(Flags::ASSUME_VALID);
            let skip = settled || scope.leaves_out(entry.path(index));
            if skip && !assumed {
                continue;
            }
            let miss = match self.entry(index, entry) {
                Ok(()) => continue,
                Err(Miss::Other(_)) if assumed => {
                    stop.store(true, Ordering::Relaxed);
                    return Verdict::Hidden("an assume-unchanged file that changed");
                }
                Err(miss) => miss,
            };
            match miss {
                Miss::Missing => note(&mut outcome, Verdict::Dirty("a missing file")),
                Miss::Other(why) => note(&mut outcome, Verdict::Unsure(why)),
            }
            match (self.collect, self.found.as_mut()) {
                (Some(start), Some(found)) => found.push(start + i),
                _ => settled = true,
            }
        }
        if settled {
            self.found = None;
        }
        outcome
    }

    /// Does the file match its entry's stat data?
    fn entry(&mut self, index: &File, entry: &Entry) -> Result<(), Miss> {
        let other = |why| Err(Miss::Other(why));
        if entry.flags.contains(Flags::INTENT_TO_ADD) {
            return other("an intent-to-add entry");
        }
        if !matches!(
            entry.mode,
            Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
        ) {
            return other("a gitlink or an unusual mode");
        }
        let st = match self.lstat(entry.path(index)).map_err(Miss::Other)? {
            Looked::Found(st) => st,
            Looked::Missing => return Err(Miss::Missing),
            Looked::Unreadable => return other("a path that cannot be looked at"),
        };
        matches(entry.mode, &entry.stat, &st, self.racy_from).map_err(Miss::Other)
    }

    /// `lstat` of a path relative to the top of the working tree.
    fn lstat(&mut self, path: &[u8]) -> Result<Looked, &'static str> {
        let (dir, name) = match path.iter().rposition(|b| *b == b'/') {
            Some(i) => (&path[..i], &path[i + 1..]),
            None => (&path[..0], path),
        };
        if name.is_empty() || name == b"." || name == b".." {
            return Err("an unusual path");
        }
        let dirfd = match self.enter(dir)? {
            Some(fd) => fd,
            None => return Ok(Looked::Missing),
        };
        self.name.clear();
        self.name.extend_from_slice(name);
        self.name.push(0);
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // SAFETY: a NUL-terminated name, an open directory fd, a buffer of
        // the right type.
        let rc = unsafe {
            libc::fstatat(
                dirfd,
                self.name.as_ptr().cast(),
                st.as_mut_ptr(),
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if rc == 0 {
            // SAFETY: fstatat filled it.
            return Ok(Looked::Found(unsafe { st.assume_init() }));
        }
        Ok(match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ENOENT) => Looked::Missing,
            _ => Looked::Unreadable,
        })
    }

    /// The fd of directory `dir` (relative to the top), opening the
    /// components not yet open; `None` when one does not exist.
    fn enter(&mut self, dir: &[u8]) -> Result<Option<libc::c_int>, &'static str> {
        // Keep the open directories that are prefixes of `dir`.
        while let Some((open, fd)) = self.dirs.last() {
            // The top (an empty path) is every directory's prefix.
            let keep = open.is_empty()
                || dir == open.as_slice()
                || (dir.len() > open.len() && dir.starts_with(open) && dir[open.len()] == b'/');
            if keep {
                break;
            }
            // SAFETY: an fd this walk opened.
            unsafe { libc::close(*fd) };
            self.dirs.pop();
        }
        if self.dirs.is_empty() {
            let fd = open_dir(libc::AT_FDCWD, self.root.as_bytes_with_nul(), false)?;
            match fd {
                Some(fd) => self.dirs.push((Vec::new(), fd)),
                None => return Err("the working tree cannot be opened"),
            }
        }
        loop {
            let (open, fd) = self.dirs.last().expect("the top is open");
            if open.as_slice() == dir {
                return Ok(Some(*fd));
            }
            let start = if open.is_empty() { 0 } else { open.len() + 1 };
            let end = dir[start..]
                .iter()
                .position(|b| *b == b'/')
                .map_or(dir.len(), |i| start + i);
            let component = &dir[start..end];
            if component.is_empty() || component == b"." || component == b".." {
                return Err("an unusual path");
            }
            self.name.clear();
            self.name.extend_from_slice(component);
            self.name.push(0);
            let Some(next) = open_dir(*fd, &self.name, true)? else {
                return Ok(None);
            };
            self.dirs.push((dir[..end].to_vec(), next));
        }
    }
}

/// Does a file's `lstat` match what the index recorded of it, so that git
/// would take it as unchanged without reading it? Every field git compares
/// by default must be equal (git truncates them to 32 bits), and the entry
/// must not be racy: an mtime in the second the index was written, or
/// later, may hide a change made after the index recorded the file.
fn matches(
    mode: Mode,
    recorded: &Stat,
    st: &libc::stat,
    racy_from: i64,
) -> Result<(), &'static str> {
    let file_type = match mode {
        Mode::FILE | Mode::FILE_EXECUTABLE => libc::S_IFREG,
        Mode::SYMLINK => libc::S_IFLNK,
        _ => return Err("a gitlink or an unusual mode"),
    };
    if st.st_mode & libc::S_IFMT != file_type {
        return Err("a file of another type");
    }
    if file_type == libc::S_IFREG && (st.st_mode & 0o100 != 0) != (mode == Mode::FILE_EXECUTABLE) {
        return Err("an executable bit");
    }
    let s = recorded;
    let same = s.mtime.secs == st.st_mtime as u32
        && i64::from(s.mtime.nsecs) == st.st_mtime_nsec
        && s.ctime.secs == st.st_ctime as u32
        && i64::from(s.ctime.nsecs) == st.st_ctime_nsec
        && s.size == st.st_size as u32
        && s.ino == st.st_ino as u32
        && s.uid == st.st_uid
        && s.gid == st.st_gid;
    if !same {
        return Err("stat data that differs");
    }
    if st.st_mtime >= racy_from {
        return Err("a racy entry");
    }
    Ok(())
}

/// Opens a directory (not through a symbolic link when `no_follow`).
/// `None` when it does not exist; an error when something else is there.
fn open_dir(
    at: libc::c_int,
    name: &[u8],
    no_follow: bool,
) -> Result<Option<libc::c_int>, &'static str> {
    let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    if no_follow {
        flags |= libc::O_NOFOLLOW;
    }
    // SAFETY: `name` is NUL-terminated.
    let fd = unsafe { libc::openat(at, name.as_ptr().cast(), flags) };
    if fd >= 0 {
        return Ok(Some(fd));
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ENOENT) => Ok(None),
        _ => Err("a directory that cannot be opened (a symbolic link?)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::index::entry::stat::Time;

    const NOW: i64 = 1_800_000_000;

    /// A regular file's lstat, written a minute before the index.
    fn disk() -> libc::stat {
        // SAFETY: libc::stat is plain data; all zeroes is a valid value.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        st.st_mode = libc::S_IFREG | 0o644;
        st.st_mtime = NOW - 60;
        st.st_mtime_nsec = 123;
        st.st_ctime = NOW - 60;
        st.st_ctime_nsec = 456;
        st.st_size = 10;
        st.st_ino = 77;
        st.st_uid = 1000;
        st.st_gid = 1000;
        st
    }

    /// What git records of `disk()`.
    fn recorded() -> Stat {
        Stat {
            mtime: Time {
                secs: (NOW - 60) as u32,
                nsecs: 123,
            },
            ctime: Time {
                secs: (NOW - 60) as u32,
                nsecs: 456,
            },
            dev: 0,
            ino: 77,
            uid: 1000,
            gid: 1000,
            size: 10,
        }
    }

    #[test]
    fn a_scope_of_paths_holds_them_and_what_is_under_them() {
        let paths = [b"a".to_vec(), b"sub/dir".to_vec()];
        let scope = Scope::Paths(&paths);
        for inside in [&b"a"[..], b"a/b", b"sub/dir", b"sub/dir/x/y"] {
            assert!(!scope.leaves_out(inside), "{inside:?}");
        }
        for outside in [
            &b"a.txt"[..],
            b"a-b",
            b"ab",
            b"sub",
            b"sub/dirx",
            b"sub/di",
            b"b/a",
        ] {
            assert!(scope.leaves_out(outside), "{outside:?}");
        }
        assert!(!Scope::Whole.leaves_out(b"x"));
        assert!(Scope::Marked.leaves_out(b"x"));
    }

    #[test]
    fn equal_stat_data_is_unchanged() {
        assert_eq!(matches(Mode::FILE, &recorded(), &disk(), NOW), Ok(()));
    }

    #[test]
    fn every_field_git_compares_counts() {
        type Change = fn(&mut libc::stat);
        let changes: [(&str, Change); 9] = [
            ("mtime", |st| st.st_mtime += 1),
            ("mtime ns", |st| st.st_mtime_nsec += 1),
            ("ctime", |st| st.st_ctime += 1),
            ("ctime ns", |st| st.st_ctime_nsec += 1),
            ("size", |st| st.st_size += 1),
            ("inode", |st| st.st_ino += 1),
            ("uid", |st| st.st_uid += 1),
            ("gid", |st| st.st_gid += 1),
            ("exec bit", |st| st.st_mode |= 0o100),
        ];
        for (field, change) in changes {
            let mut st = disk();
            change(&mut st);
            assert!(
                matches(Mode::FILE, &recorded(), &st, NOW).is_err(),
                "{field} changed"
            );
        }
    }

    #[test]
    fn file_types_and_modes() {
        let mut link = disk();
        link.st_mode = libc::S_IFLNK | 0o777;
        assert_eq!(matches(Mode::SYMLINK, &recorded(), &link, NOW), Ok(()));
        assert!(matches(Mode::FILE, &recorded(), &link, NOW).is_err());
        assert!(matches(Mode::SYMLINK, &recorded(), &disk(), NOW).is_err());
        let mut exec = disk();
        exec.st_mode |= 0o755;
        assert_eq!(
            matches(Mode::FILE_EXECUTABLE, &recorded(), &exec, NOW),
            Ok(())
        );
        assert!(matches(Mode::FILE_EXECUTABLE, &recorded(), &disk(), NOW).is_err());
        let mut dir = disk();
        dir.st_mode = libc::S_IFDIR | 0o755;
        assert!(matches(Mode::FILE, &recorded(), &dir, NOW).is_err());
        assert!(matches(Mode::COMMIT, &recorded(), &dir, NOW).is_err());
    }

    #[test]
    fn an_mtime_in_the_index_files_second_or_later_is_racy() {
        let (st, rec) = (disk(), recorded());
        assert_eq!(matches(Mode::FILE, &rec, &st, NOW - 59), Ok(()));
        assert_eq!(
            matches(Mode::FILE, &rec, &st, NOW - 60),
            Err("a racy entry")
        );
        assert_eq!(
            matches(Mode::FILE, &rec, &st, NOW - 61),
            Err("a racy entry")
        );
    }

    #[test]
    fn fields_are_compared_as_git_truncates_them() {
        let mut st = disk();
        st.st_size += 1 << 32;
        st.st_ino += 1 << 32;
        assert_eq!(matches(Mode::FILE, &recorded(), &st, NOW), Ok(()));
    }
}
