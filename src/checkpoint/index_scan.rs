//! The direct recipe's scan without `git status`, where the index's stat
//! cache can tell what changed: the index is HEAD's tree (its cached root
//! tree is HEAD's, so nothing is staged), the stat pass of
//! [`super::clean`] named every entry whose file may differ, and one
//! listing of each directory that holds tracked files (the directories
//! shared out between as many threads as there are cores) names what the
//! index does not hold there. git (`ls-files -o --exclude-standard`, limited to
//! those names) says which of them are untracked and not ignored, and what
//! is under them. The files that may differ are hashed as the status
//! scan's changed ones are; each counts as changed only where its hash or
//! its mode is not the index's.
//!
//! The same pass answers the pre-destructive check and gives the
//! checkpoint its files: the tree is looked at once, not by the check, by
//! `git status` and again by the command. Where the stat cache cannot
//! tell (a conflict, a submodule, a split or sparse index, staged changes,
//! `core.ignoreCase`), [`super::scan`] asks `git status`.

use std::ffi::OsStr;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::index::entry::{Flags, Mode};
use gix::index::File;
use rustix::fs::{AtFlags, FileType, OFlags, RawDir};

use super::scan::{Aside, Scan, Walk};
use super::Ctx;
use crate::error::{Error, Result};

/// The index and the entries whose files may differ from it, found by
/// one stat pass ([`super::clean::differing`]).
pub struct Seed {
    pub index: File,
    pub differing: Vec<usize>,
}

/// More names than this not in the index, and `ls-files` walks the whole
/// tree rather than taking them all as pathspecs.
const MAX_PATHSPECS: usize = 1000;

impl Seed {
    /// Reads the index and makes the stat pass; `None` where the pass
    /// cannot tell what changed.
    pub fn read(ctx: &Ctx) -> Option<Seed> {
        let index = super::clean::read_index(ctx)?;
        let head = ctx.repo.ref_target("HEAD");
        let head = head.and_then(|h| ctx.repo.commit_tree(&h));
        let (_, differing) = super::clean::differing(ctx, &index, head.as_deref(), false);
        Some(Seed {
            differing: differing?,
            index,
        })
    }
}

/// The working tree and the index as edits of HEAD's tree, from `seed`.
pub fn scan(ctx: &Ctx, seed: &Seed) -> Result<std::result::Result<Scan, Aside>> {
    let index = &seed.index;
    let ignore_case = ctx.repo.config().boolean("core.ignoreCase").ok().flatten();
    if ignore_case == Some(true) {
        return Ok(Err("core.ignoreCase"));
    }
    if index.entries().iter().any(|e| e.mode == Mode::COMMIT) {
        return Ok(Err("a submodule"));
    }
    let mut w = match Walk::start(ctx, index.entries().len() as u64) {
        Ok(w) if w.symlinks => w,
        Ok(_) => return Ok(Err("core.symlinks = false")),
        Err(why) => return Ok(Err(why)),
    };
    let names = match not_in_index(&ctx.workdir, index) {
        Ok(names) => names,
        Err(why) => return Ok(Err(why)),
    };
    let untracked = untracked(ctx, &names.paths)?;
    w.conversion = names.attributes || conversion_possible(ctx, index, &untracked);
    for &i in &seed.differing {
        let Some(entry) = index.entries().get(i) else {
            return Ok(Err("an index that changed"));
        };
        let marked = Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE | Flags::ASSUME_VALID;
        if entry.flags.intersects(marked) {
            return Ok(Err("a marked entry"));
        }
        let mode = match entry.mode {
            Mode::FILE => "100644",
            Mode::FILE_EXECUTABLE => "100755",
            Mode::SYMLINK => "120000",
            _ => return Ok(Err("an unusual mode")),
        };
        if let Err(why) = w.may_differ(entry.path(index), mode, entry.id.to_hex().to_string()) {
            return Ok(Err(why));
        }
    }
    w.finish(&untracked)
}

/// What the directories that hold tracked files hold besides.
#[derive(Debug, Default, PartialEq, Eq)]
struct Names {
    /// Paths (from the top) of names the index does not hold.
    paths: Vec<Vec<u8>>,
    /// Whether one of those directories holds a `.gitattributes`.
    attributes: bool,
}

/// The names the index holds in a directory, each with whether it is one.
type Held<'a> = Vec<(&'a [u8], bool)>;

/// Lists each directory of the index's entries, on every core; `Err`
/// where one cannot be read.
fn not_in_index(workdir: &Path, index: &File) -> std::result::Result<Names, Aside> {
    let dirs = directories(index);
    let names: usize = dirs.iter().map(|(_, held)| held.len()).sum();
    let threads = super::clean::threads_for(names, NAMES_PER_THREAD);
    let parts = split(&dirs, threads);
    let list_part = |part: &[(&[u8], Held)]| {
        let mut out = Names::default();
        // One buffer for every directory's entries: no allocation per name.
        let mut buf = vec![MaybeUninit::<u8>::uninit(); LISTING_BUFFER];
        for (dir, held) in part {
            list(workdir, dir, held, &mut buf, &mut out)?;
        }
        Ok(out)
    };
    let listed: Vec<std::result::Result<Names, Aside>> = std::thread::scope(|s| {
        let (first, rest) = parts.split_first().expect("one part at least");
        let handles: Vec<_> = rest
            .iter()
            .map(|part| {
                (
                    part,
                    std::thread::Builder::new().spawn_scoped(s, || list_part(part)),
                )
            })
            .collect();
        let mut listed = vec![list_part(first)];
        for (part, handle) in handles {
            listed.push(match handle {
                Ok(h) => h.join().unwrap_or(Err("a thread of the listing failed")),
                // A part whose thread cannot be started is listed here.
                Err(_) => list_part(part),
            });
        }
        listed
    });
    let mut out = Names::default();
    for part in listed {
        let part = part?;
        out.paths.extend(part.paths);
        out.attributes |= part.attributes;
    }
    Ok(out)
}

/// `dirs` in `threads` parts or fewer, in order, each of about as many
/// names held; never none.
fn split<'d, 'a>(
    dirs: &'d [(&'a [u8], Held<'a>)],
    threads: usize,
) -> Vec<&'d [(&'a [u8], Held<'a>)]> {
    let names: usize = dirs.iter().map(|(_, held)| held.len()).sum();
    let mut parts = Vec::with_capacity(threads);
    let (mut from, mut sum) = (0, 0);
    for (i, (_, held)) in dirs.iter().enumerate() {
        sum += held.len();
        if sum * threads >= names * (parts.len() + 1) && parts.len() + 1 < threads {
            parts.push(&dirs[from..=i]);
            from = i + 1;
        }
    }
    parts.push(&dirs[from..]);
    parts
}

/// One thread lists the directories of at least this many index entries.
const NAMES_PER_THREAD: usize = 1000;

/// Every directory that holds an index entry, each with the names the index
/// holds in it, sorted (and whether each is a directory).
fn directories(index: &File) -> Vec<(&[u8], Held<'_>)> {
    let mut done = Vec::new();
    // The directories from the top to the current entry's.
    let mut open: Vec<(&[u8], Held)> = vec![(&[][..], Vec::new())];
    for entry in index.entries() {
        let path: &[u8] = entry.path(index);
        while open.len() > 1 && !is_under(path, open[open.len() - 1].0) {
            done.push(open.pop().expect("more than the top"));
        }
        loop {
            let depth = open.len() - 1;
            let dir = open[depth].0;
            let start = if dir.is_empty() { 0 } else { dir.len() + 1 };
            let rest = &path[start..];
            match rest.iter().position(|b| *b == b'/') {
                Some(slash) => {
                    open[depth].1.push((&rest[..slash], true));
                    open.push((&path[..start + slash], Vec::new()));
                }
                None => {
                    open[depth].1.push((rest, false));
                    break;
                }
            }
        }
    }
    done.extend(open.into_iter().rev());
    for (_, held) in &mut done {
        held.sort_unstable();
        held.dedup();
    }
    done
}

/// The bytes of directory entries one `getdents` call may return.
const LISTING_BUFFER: usize = 32 * 1024;

/// Is `path` below directory `dir`?
fn is_under(path: &[u8], dir: &[u8]) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/'
}

/// Adds to `out` what directory `dir` holds that `names` (the index's,
/// sorted) does not: a name it lacks, or a file where it holds a directory. git
/// never looks at a `.git` in the tree.
fn list(
    workdir: &Path,
    dir: &[u8],
    names: &Held,
    buf: &mut [MaybeUninit<u8>],
    out: &mut Names,
) -> std::result::Result<(), Aside> {
    const UNREADABLE: Aside = "a directory that cannot be read";
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match rustix::fs::open(
        super::in_tree(workdir, dir),
        flags,
        rustix::fs::Mode::empty(),
    ) {
        Ok(fd) => fd,
        // Deleted, with every file in it: the stat pass found them.
        Err(rustix::io::Errno::NOENT) => return Ok(()),
        Err(_) => return Err(UNREADABLE),
    };
    let mut listing = RawDir::new(&fd, buf);
    while let Some(item) = listing.next() {
        let item = item.map_err(|_| UNREADABLE)?;
        let name = item.file_name().to_bytes();
        if name == b"." || name == b".." || name == b".git" {
            continue;
        }
        out.attributes |= name == b".gitattributes";
        let held = match names.binary_search_by(|(n, _)| (*n).cmp(name)) {
            Ok(at) => names[at].1,
            Err(_) => {
                out.paths.push(join(dir, name));
                continue;
            }
        };
        let is_dir = match item.file_type() {
            FileType::Directory => true,
            // A file system that does not say: ask it.
            FileType::Unknown => {
                let st = rustix::fs::statat(&fd, item.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_err(|_| UNREADABLE)?;
                FileType::from_raw_mode(st.st_mode) == FileType::Directory
            }
            _ => false,
        };
        if held && !is_dir {
            // Files under it reached through a link would look present.
            return Err("a file or a link where a directory was");
        }
    }
    Ok(())
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    [dir, b"/", name].concat()
}

/// The untracked files, not ignored, at or under `names`, as `git status
/// --untracked-files=all` names them (another repository as `dir/`).
fn untracked(ctx: &Ctx, names: &[Vec<u8>]) -> Result<Vec<Vec<u8>>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut args: Vec<&OsStr> = ["ls-files", "-z", "-o", "--exclude-standard"]
        .map(OsStr::new)
        .to_vec();
    if names.len() <= MAX_PATHSPECS {
        args.push(OsStr::new("--"));
        args.extend(names.iter().map(|n| OsStr::from_bytes(n)));
    }
    let envs = [("GIT_LITERAL_PATHSPECS", OsStr::new("1"))];
    let out = ctx.git.output_with(args, &envs, None)?;
    if !out.status.success() {
        return Err(Error::internal(format!(
            "git ls-files failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect())
}

/// May git's conversion apply to a file the checkpoint hashes? Without
/// attributes (git-ward's own gits read no global file) and with
/// `core.autocrlf` off, `git add` stores a file's bytes as they are. Yes
/// wherever a source of attributes may exist: a `.gitattributes` in the
/// index or above an untracked file, `info/attributes`, the system's file.
fn conversion_possible(ctx: &Ctx, index: &File, untracked: &[Vec<u8>]) -> bool {
    let crlf = ctx.repo.config_values("core.autocrlf");
    if crlf.iter().any(|v| v != "false")
        || !ctx.repo.config_values("attr.tree").is_empty()
        || crate::env::present("GIT_ATTR_SOURCE")
        || crate::facts::context::config_files_moved(&ctx.common_dir)
    {
        return true;
    }
    if ctx.git_dir.join("config.worktree").exists() || super::attributes::outside_the_tree(ctx) {
        return true;
    }
    let is_attributes = |p: &[u8]| p == b".gitattributes" || p.ends_with(b"/.gitattributes");
    if index.entries().iter().any(|e| is_attributes(e.path(index))) {
        return true;
    }
    // An untracked file's directories below the listed ones; an ignored
    // `.gitattributes` there applies too.
    let mut seen = std::collections::HashSet::new();
    untracked
        .iter()
        .any(|path| super::attributes::above(ctx, path, &mut seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_a_directory_means_under_its_slash() {
        assert!(is_under(b"a/b", b"a"));
        assert!(is_under(b"a/b/c", b"a/b"));
        assert!(!is_under(b"ab/c", b"a"));
        assert!(!is_under(b"a", b"a"));
        assert!(!is_under(b"a.txt", b"a"));
    }

    #[test]
    fn each_directory_comes_after_those_below_it_with_its_names_sorted() {
        let index = index_of(&["a.txt", "a/b.txt", "a/b/x", "a/c", "z"]);
        let dirs = directories(&index);
        let got: Vec<(&[u8], Held)> = dirs.iter().map(|(d, held)| (*d, held.clone())).collect();
        let want: Vec<(&[u8], Held)> = vec![
            (b"a/b", vec![(b"x", false)]),
            (b"a", vec![(b"b", true), (b"b.txt", false), (b"c", false)]),
            (b"", vec![(b"a", true), (b"a.txt", false), (b"z", false)]),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn parts_cover_every_directory_in_order_with_about_as_many_names() {
        let names: Vec<Vec<u8>> = (0..40).map(|i| format!("n{i}").into_bytes()).collect();
        let held = |k: usize| -> Held { names[..k].iter().map(|n| (&n[..], false)).collect() };
        let dirs: Vec<(&[u8], Held)> = vec![
            (b"d1", held(10)),
            (b"d2", held(10)),
            (b"d3", held(30)),
            (b"d4", held(10)),
        ];
        for threads in 1..=6 {
            let parts = split(&dirs, threads);
            assert!(
                !parts.is_empty() && parts.len() <= threads,
                "{threads}: {}",
                parts.len()
            );
            let order: Vec<&[u8]> = parts
                .iter()
                .flat_map(|p| p.iter().map(|(d, _)| *d))
                .collect();
            assert_eq!(order, [&b"d1"[..], b"d2", b"d3", b"d4"], "{threads}");
        }
        let sizes = |threads| -> Vec<usize> {
            let parts = split(&dirs, threads);
            parts
                .iter()
                .map(|p| p.iter().map(|(_, h)| h.len()).sum())
                .collect()
        };
        assert_eq!(sizes(2), [50, 10]);
        assert_eq!(sizes(3), [20, 30, 10]);
        assert_eq!(split(&[], 4).len(), 1);
    }

    #[test]
    fn a_listing_names_what_the_index_lacks_and_refuses_a_file_for_a_directory() {
        let tree = tempfile::tempdir().unwrap();
        for dir in ["a/b", "c"] {
            std::fs::create_dir_all(tree.path().join(dir)).unwrap();
        }
        for file in ["a/b/x", "a/new", "top", "c/y"] {
            std::fs::write(tree.path().join(file), "1").unwrap();
        }
        std::fs::create_dir(tree.path().join(".git")).unwrap();
        let index = index_of(&["a/b/x", "c/y", "top"]);
        let names = not_in_index(tree.path(), &index).unwrap();
        assert_eq!(names.paths, [b"a/new".to_vec()]);
        assert!(!names.attributes);
        std::fs::write(tree.path().join(".gitattributes"), "").unwrap();
        assert!(not_in_index(tree.path(), &index).unwrap().attributes);
        // A link where the index holds a directory: the files under it
        // would look present.
        std::fs::rename(tree.path().join("c"), tree.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink("elsewhere", tree.path().join("c")).unwrap();
        let refused = not_in_index(tree.path(), &index).unwrap_err();
        assert_eq!(refused, "a file or a link where a directory was");
        // A file there cannot be listed.
        std::fs::remove_file(tree.path().join("c")).unwrap();
        std::fs::write(tree.path().join("c"), "").unwrap();
        let refused = not_in_index(tree.path(), &index).unwrap_err();
        assert_eq!(refused, "a directory that cannot be read");
    }

    /// An index of empty files at `paths` (sorted as git sorts them).
    fn index_of(paths: &[&str]) -> File {
        let mut state = gix::index::State::new(gix::hash::Kind::Sha1);
        for path in paths {
            state.dangerously_push_entry(
                Default::default(),
                gix::hash::ObjectId::empty_blob(gix::hash::Kind::Sha1),
                Flags::empty(),
                Mode::FILE,
                path.as_bytes().into(),
            );
        }
        state.sort_entries();
        File::from_state(state, std::path::PathBuf::from("index"))
    }

    #[test]
    fn names_join_from_the_top() {
        assert_eq!(join(b"", b"x"), b"x".to_vec());
        assert_eq!(join(b"a/b", b"x"), b"a/b/x".to_vec());
    }
}
