//! Drift: a guarded ref that moved while no hook of git-ward's ran.
//!
//! Writers that run no hooks (libgit2 and JGit tools, a harness's git with
//! `core.hooksPath=/dev/null`, a program writing a ref file) move refs past
//! the reference-transaction hook. git-ward remembers the last value of
//! every guarded ref (protected branches and tags, and the remote-tracking
//! refs of protected branches) as its hooks see them move, in
//! `<git-common-dir>/ward/guarded-refs`; a guarded ref whose value differs
//! from the remembered one moved with no hook: that is drift.
//!
//! A small file beside it (`guarded-refs.seen`) holds a stamp of what the
//! last scan of the refs read (the packed-refs file, the directories the
//! guarded refs live in, the loose files of guarded branches) and the
//! drift it found: while the stamp holds, nothing a scan would read has
//! changed, and a check is that one read and that many `stat` calls,
//! however many tags there are. The hooks append the values they see move
//! (a fetch of 10,000 tags appends 10,000 lines, never rewrites the file)
//! and remove the stamp; the next scan rewrites the file whole. A loose tag
//! rewritten in place, without git's rename, changes no stamp: it is
//! found at the next scan (any ref written by git in the same directory,
//! or `git ward doctor`, which always scans).
//!
//! The file is written under a lock (`guarded-refs.lock`) by the hooks and
//! git-ward's own commands. An agent that can write it can write the refs
//! themselves: it sits beside them in the git directory, where the shim
//! refuses an agent's writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A guarded ref that moved with no hook: its remembered and current values
/// (`None`: it did not exist).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Moved {
    #[serde(rename = "ref")]
    pub refname: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

impl Moved {
    /// `refs/heads/main a1b2c3d -> e4f5a6b` for messages.
    pub fn describe(&self) -> String {
        let short = |v: &Option<String>| {
            v.as_deref()
                .map_or("(none)".to_string(), |v| v.chars().take(12).collect())
        };
        format!(
            "{} {} -> {}",
            self.refname,
            short(&self.old),
            short(&self.new)
        )
    }
}

/// The remembered values (`guarded-refs`): one `ref <value> <name>` line
/// per guarded ref, `-` for one deleted; `drift <value> <name>` for drift
/// already reported (and logged) at that value; `known <name>` ends a
/// drift. Later lines win: the hooks append, a scan rewrites it whole.
#[derive(Debug, Default, PartialEq)]
struct State {
    refs: BTreeMap<String, String>,
    noted: BTreeMap<String, String>,
}

/// What the fast check reads (`guarded-refs.seen`, small whatever the
/// number of tags): the stamp of what the last scan read, the stamps of
/// `packed-refs`, of the directories and of the loose branch files that
/// make it up, and the drift it found (`drift <old> <new> <name>`).
/// Removed whenever a ref is remembered.
#[derive(Debug, Default, PartialEq)]
struct Seen {
    stamp: String,
    stamps: Stamps,
    moved: Vec<Moved>,
    /// The moves among them already reported (`noted <name>`).
    noted: Vec<String>,
}

/// Each path a scan reads, with a hash of its stamp
/// ([`super::refstore::stamp`]): `packed-refs`, the directories, the loose
/// files of guarded branches (paths below the common git dir).
#[derive(Debug, Default, PartialEq)]
struct Stamps {
    packed: String,
    dirs: Vec<(String, String)>,
    files: Vec<(String, String)>,
}

const FILE: &str = "guarded-refs";
const SEEN: &str = "guarded-refs.seen";
const ZERO: &str = "-";

fn path(common: &Path, file: &str) -> PathBuf {
    common.join("ward").join(file)
}

fn read_lines(file: &Path) -> Option<String> {
    let bytes = crate::state_file::read_bounded(file, 1 << 30).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

impl State {
    fn read(common: &Path) -> Option<State> {
        let text = read_lines(&path(common, FILE))?;
        let mut state = State::default();
        for line in text.lines() {
            let mut words = line.splitn(3, ' ');
            match (words.next(), words.next(), words.next()) {
                (Some("ref"), Some(ZERO), Some(name)) => {
                    state.refs.remove(name);
                }
                (Some("ref"), Some(value), Some(name)) => {
                    state.refs.insert(name.to_string(), value.to_string());
                }
                (Some("drift"), Some(value), Some(name)) => {
                    state.noted.insert(name.to_string(), value.to_string());
                }
                (Some("known"), Some(name), None) => {
                    state.noted.remove(name);
                }
                _ => {}
            }
        }
        Some(state)
    }

    fn write(&self, common: &Path) -> std::io::Result<()> {
        let mut text = String::from("# git-ward: guarded refs as its hooks last saw them\n");
        for (name, value) in &self.refs {
            text += &format!("ref {value} {name}\n");
        }
        for (name, value) in &self.noted {
            text += &format!("drift {value} {name}\n");
        }
        crate::state_file::replace(&path(common, FILE), text.as_bytes())
    }
}

impl Seen {
    fn read(common: &Path) -> Option<Seen> {
        let text = read_lines(&path(common, SEEN))?;
        let mut seen = Seen::default();
        let value = |v: &str| (v != ZERO).then(|| v.to_string());
        let pair = |h: &str, p: &str| (p.to_string(), h.to_string());
        for line in text.lines() {
            let mut words = line.splitn(4, ' ');
            match (words.next(), words.next(), words.next(), words.next()) {
                (Some("stamp"), Some(stamp), None, None) => seen.stamp = stamp.to_string(),
                (Some("packed"), Some(h), None, None) => seen.stamps.packed = h.to_string(),
                (Some("dir"), Some(h), Some(dir), None) => seen.stamps.dirs.push(pair(h, dir)),
                (Some("file"), Some(h), Some(file), None) => seen.stamps.files.push(pair(h, file)),
                (Some("noted"), Some(name), None, None) => seen.noted.push(name.to_string()),
                (Some("drift"), Some(old), Some(new), Some(name)) => seen.moved.push(Moved {
                    refname: name.to_string(),
                    old: value(old),
                    new: value(new),
                }),
                _ => {}
            }
        }
        Some(seen)
    }

    fn write(&self, common: &Path) -> std::io::Result<()> {
        use std::fmt::Write;
        let mut text = format!("stamp {}\npacked {}\n", self.stamp, self.stamps.packed);
        for (dir, h) in &self.stamps.dirs {
            let _ = writeln!(text, "dir {h} {dir}");
        }
        for (file, h) in &self.stamps.files {
            let _ = writeln!(text, "file {h} {file}");
        }
        for m in &self.moved {
            let v = |v: &Option<String>| v.clone().unwrap_or_else(|| ZERO.to_string());
            let _ = writeln!(text, "drift {} {} {}", v(&m.old), v(&m.new), m.refname);
        }
        for name in &self.noted {
            let _ = writeln!(text, "noted {name}");
        }
        crate::state_file::replace(&path(common, SEEN), text.as_bytes())
    }

    /// The answer while the stamps hold: the drift found last.
    fn found(self) -> Found {
        let new = self
            .moved
            .iter()
            .filter(|m| !self.noted.contains(&m.refname))
            .cloned()
            .collect();
        Found {
            moved: self.moved,
            new,
        }
    }
}

/// Holds `guarded-refs.lock` (an exclusive `flock`) while alive.
struct Lock(#[allow(dead_code)] std::fs::File);

impl Lock {
    fn take(common: &Path) -> Option<Lock> {
        use std::os::unix::io::AsRawFd;
        let dir = common.join("ward");
        let _ = std::fs::create_dir_all(&dir);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(format!("{FILE}.lock")))
            .ok()?;
        // SAFETY: flock on a descriptor this process owns.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0;
        taken.then_some(Lock(file))
    }
}

/// Is `refname` guarded: a protected branch or tag, or the remote-tracking
/// ref of a protected branch (any reading of `refs/remotes/<remote>/<branch>`)?
pub fn guarded(refname: &str, is_protected: &mut dyn FnMut(&str) -> bool) -> bool {
    if refname.starts_with("refs/heads/") || refname.starts_with("refs/tags/") {
        return is_protected(refname);
    }
    crate::policy::tracking_readings(refname)
        .any(|(_, branch)| is_protected(&format!("refs/heads/{branch}")))
}

/// The guarded refs and their values, from the loose files under `refs/heads`,
/// `refs/tags` and `refs/remotes` and from `packed-refs` (a loose file wins);
/// symbolic refs (`refs/remotes/origin/HEAD`) are not values. Also the
/// directories read, for the stamp.
fn scan(
    common: &Path,
    is_protected: &mut dyn FnMut(&str) -> bool,
) -> (BTreeMap<String, String>, Vec<String>) {
    let mut values = BTreeMap::new();
    if let Ok(text) = std::fs::read_to_string(common.join("packed-refs")) {
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with('^'))
        {
            if let Some((id, name)) = line.split_once(' ') {
                if guarded(name, is_protected) {
                    values.insert(name.to_string(), id.to_string());
                }
            }
        }
    }
    let mut dirs = Vec::new();
    for top in ["refs/heads", "refs/tags", "refs/remotes"] {
        walk(common, top, &mut dirs, &mut |name, file| {
            if !guarded(name, is_protected) {
                return;
            }
            match std::fs::read_to_string(file) {
                Ok(text) if !text.starts_with("ref:") => {
                    values.insert(name.to_string(), text.trim().to_string());
                }
                _ => {}
            }
        });
    }
    (values, dirs)
}

/// Every loose ref under `rel` (a path below `common`), and the directories met.
fn walk(common: &Path, rel: &str, dirs: &mut Vec<String>, found: &mut dyn FnMut(&str, &Path)) {
    let Ok(entries) = std::fs::read_dir(common.join(rel)) else {
        return;
    };
    dirs.push(rel.to_string());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let child = format!("{rel}/{name}");
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(common, &child, dirs, found),
            Ok(t) if t.is_file() && !name.ends_with(".lock") => found(&child, &entry.path()),
            _ => {}
        }
    }
}

/// A hash of what [`super::refstore::stamp`] keeps of `path` (inode, size,
/// mtime and ctime; a symbolic link's target too), taken from the numbers
/// without writing them out: a look stamps every directory it reads.
fn stamp_hash(path: &Path) -> String {
    use super::settings_cache::{fnv, fnv_more};
    use std::os::unix::fs::MetadataExt;
    struct Fnv(u64);
    impl Fnv {
        fn add(&mut self, v: u64) {
            self.0 = fnv_more(self.0, &v.to_le_bytes());
        }
        fn meta(&mut self, m: &std::fs::Metadata) {
            for v in [m.ino(), m.size()] {
                self.add(v);
            }
            for v in [m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()] {
                self.add(v as u64);
            }
        }
    }
    let mut h = Fnv(fnv(&[]));
    let failed = |h: &Fnv, e: std::io::Error| format!("{:016x}-{:?}", h.0, e.kind());
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => h.add(0),
        Err(e) => return failed(&h, e),
        Ok(link) if link.file_type().is_symlink() => {
            h.add(2);
            h.meta(&link);
            match std::fs::metadata(path) {
                Ok(target) => h.meta(&target),
                Err(e) => return failed(&h, e),
            }
        }
        Ok(m) => {
            h.add(3);
            h.meta(&m);
        }
    }
    format!("{:016x}", h.0)
}

impl Stamps {
    /// The stamps of what a scan reads now: `packed-refs`, the
    /// directories, and the loose files of guarded branches.
    fn of<'a>(
        common: &Path,
        dirs: impl Iterator<Item = &'a str>,
        files: impl Iterator<Item = &'a str>,
    ) -> Stamps {
        let of = |rel: &str| stamp_hash(&common.join(rel));
        Stamps {
            packed: of("packed-refs"),
            dirs: dirs.map(|d| (d.to_string(), of(d))).collect(),
            files: files.map(|f| (f.to_string(), of(f))).collect(),
        }
    }

    /// The same paths stamped again.
    fn again(&self, common: &Path) -> Stamps {
        let dirs = self.dirs.iter().map(|(p, _)| p.as_str());
        let files = self.files.iter().map(|(p, _)| p.as_str());
        Stamps::of(common, dirs, files)
    }

    /// One stamp for them all.
    fn combined(&self) -> String {
        use super::settings_cache::{fnv, fnv_more};
        let mut h = fnv(self.packed.as_bytes());
        for (_, part) in self.dirs.iter().chain(&self.files) {
            h = fnv_more(fnv_more(h, b";"), part.as_bytes());
        }
        format!("{h:016x}")
    }
}

/// Would a scan find what the last one found, though the stamps moved?
/// Yes when only directories changed (a ref that is not guarded written
/// beside guarded ones: a commit on `agent/x`) and none of them holds a
/// guarded ref the last scan did not stamp as a file (a tag, a new one)
/// nor a directory it did not read. Costs a listing of each changed
/// directory, not a read of every ref.
fn only_unguarded_moved(
    common: &Path,
    before: &Stamps,
    now: &Stamps,
    is_protected: &mut dyn FnMut(&str) -> bool,
) -> bool {
    if before.packed.is_empty() || before.packed != now.packed || before.files != now.files {
        return false;
    }
    if before.dirs.len() != now.dirs.len() {
        return false;
    }
    let files: std::collections::HashSet<&str> =
        now.files.iter().map(|(f, _)| f.as_str()).collect();
    let dirs: std::collections::HashSet<&str> = now.dirs.iter().map(|(d, _)| d.as_str()).collect();
    let changed = before
        .dirs
        .iter()
        .zip(&now.dirs)
        .filter(|(b, n)| b != n)
        .map(|(_, (dir, _))| dir);
    for dir in changed {
        let Ok(entries) = std::fs::read_dir(common.join(dir)) else {
            return false;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let child = format!("{dir}/{name}");
            let kept = match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.contains(child.as_str()),
                Ok(t) if t.is_file() && !name.ends_with(".lock") => {
                    files.contains(child.as_str()) || !guarded(&child, is_protected)
                }
                _ => true,
            };
            if !kept {
                return false;
            }
        }
    }
    true
}

/// Is drift looked for here: git-ward's reference-transaction hook is
/// installed (so that moves with hooks on are remembered), and the refs
/// are files (a reftable repository is left alone).
pub fn watched(common: &Path) -> bool {
    super::gates::recorded_hooks(common)
        .iter()
        .any(|h| h == "reference-transaction")
        && !super::uses_reftable(common)
}

/// What a check found: every guarded ref that differs from its remembered
/// value, and those among them not reported before (to log).
#[derive(Debug, Default)]
pub struct Found {
    pub moved: Vec<Moved>,
    pub new: Vec<Moved>,
}

/// Looks for drift. While the stamp holds, the drift found last is the
/// answer: one small read and a few stats. Else the refs are scanned (the
/// first time, they are remembered as they are).
pub fn check(common: &Path, is_protected: &mut dyn FnMut(&str) -> bool) -> Found {
    check_in(common, is_protected, false)
}

/// Where drift is looked for, once [`watched`] said so: a hook that
/// asked first does not read the install record again.
pub struct Watched<'a>(&'a Path);

/// [`Watched`] for the common git dir `common`, when [`watched`].
pub fn watch(common: &Path) -> Option<Watched<'_>> {
    watched(common).then_some(Watched(common))
}

impl Watched<'_> {
    /// [`check`].
    pub fn check(&self, is_protected: &mut dyn FnMut(&str) -> bool) -> Found {
        check_in(self.0, is_protected, true)
    }

    /// [`remember`].
    pub fn remember(&self, moves: &[(String, Option<String>)]) {
        remember_in(self.0, moves);
    }
}

/// [`check`]; `known_watched` when [`watched`] was asked already.
fn check_in(
    common: &Path,
    is_protected: &mut dyn FnMut(&str) -> bool,
    known_watched: bool,
) -> Found {
    let first = match Seen::read(common) {
        Some(seen) => {
            let now = seen.stamps.again(common);
            if now.combined() == seen.stamp {
                return seen.found();
            }
            Some((seen, now))
        }
        None => None,
    };
    if !known_watched && !watched(common) {
        return Found::default();
    }
    let Some(_lock) = Lock::take(common) else {
        return Found::default();
    };
    // Read again under the lock: another hook may have noted or scanned.
    if let Some(mut seen) = Seen::read(common) {
        let now = match first {
            Some((before, now)) if before == seen => now,
            _ => seen.stamps.again(common),
        };
        let unchanged = now.combined() == seen.stamp;
        if unchanged || only_unguarded_moved(common, &seen.stamps, &now, is_protected) {
            if !unchanged {
                seen.stamp = now.combined();
                seen.stamps = now;
                let _ = seen.write(common);
            }
            return seen.found();
        }
    }
    let (values, dirs) = scan(common, is_protected);
    let files: Vec<String> = values
        .keys()
        .filter(|n| !n.starts_with("refs/tags/"))
        .cloned()
        .collect();
    let mut found = Found::default();
    let mut state = match State::read(common) {
        Some(state) => state,
        None => State {
            refs: values.clone(),
            noted: BTreeMap::new(),
        },
    };
    let mut noted = BTreeMap::new();
    let mut seen_noted = Vec::new();
    let names: std::collections::BTreeSet<&String> =
        state.refs.keys().chain(values.keys()).collect();
    for name in names {
        let (old, new) = (state.refs.get(name), values.get(name));
        if old == new {
            continue;
        }
        let moved = Moved {
            refname: name.clone(),
            old: old.cloned(),
            new: new.cloned(),
        };
        let now = new.map_or(ZERO, String::as_str).to_string();
        if state.noted.get(name) == Some(&now) {
            noted.insert(name.clone(), now);
            seen_noted.push(name.clone());
        } else {
            found.new.push(moved.clone());
        }
        found.moved.push(moved);
    }
    state.noted = noted;
    let _ = state.write(common);
    let stamps = Stamps::of(
        common,
        dirs.iter().map(String::as_str),
        files.iter().map(String::as_str),
    );
    let seen = Seen {
        stamp: stamps.combined(),
        stamps,
        moved: found.moved.clone(),
        noted: seen_noted,
    };
    let _ = seen.write(common);
    found
}

/// Remembers guarded refs' new values as a hook (or git-ward) saw them
/// move: `(ref, new value or None when deleted)`, appended (a fetch of
/// many tags appends a line per ref, never rewrites the file). A ref noted
/// as drifted that moves again with the hooks on is known again.
pub fn remember(common: &Path, moves: &[(String, Option<String>)]) {
    if !moves.is_empty() && watched(common) {
        remember_in(common, moves);
    }
}

fn remember_in(common: &Path, moves: &[(String, Option<String>)]) {
    use std::io::Write;
    if moves.is_empty() {
        return;
    }
    let Some(_lock) = Lock::take(common) else {
        return;
    };
    let file = path(common, FILE);
    if !file.exists() {
        // Nothing remembered yet: the next check reads all as they are.
        return;
    }
    let mut text = String::new();
    for (name, value) in moves {
        let value = value.as_deref().unwrap_or(ZERO);
        text += &format!("ref {value} {name}\nknown {name}\n");
    }
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    // The refs moved since the stamp (and, were the append lost, the next
    // scan must not trust the cache either).
    let _ = std::fs::remove_file(path(common, SEEN));
    let _ = appended;
}

/// Marks drift as reported (after its audit line is written), so that
/// it is logged once: a check only finds it, whoever looks first.
pub fn note(common: &Path, moved: &[Moved]) {
    use std::io::Write;
    if moved.is_empty() {
        return;
    }
    let Some(_lock) = Lock::take(common) else {
        return;
    };
    let mut text = String::new();
    for m in moved {
        text += &format!("drift {} {}\n", m.new.as_deref().unwrap_or(ZERO), m.refname);
    }
    let _ = std::fs::OpenOptions::new()
        .append(true)
        .open(path(common, FILE))
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Some(mut seen) = Seen::read(common) {
        seen.noted.extend(moved.iter().map(|m| m.refname.clone()));
        let _ = seen.write(common);
    }
}

/// Takes the guarded refs' current values as known (a person looked):
/// no drift until they move again with no hook.
pub fn accept(common: &Path, is_protected: &mut dyn FnMut(&str) -> bool) -> std::io::Result<()> {
    let _lock = Lock::take(common);
    let (refs, _) = scan(common, is_protected);
    let _ = std::fs::remove_file(path(common, SEEN));
    State {
        refs,
        noted: BTreeMap::new(),
    }
    .write(common)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(name: &str) -> bool {
        let short = name
            .strip_prefix("refs/heads/")
            .or_else(|| name.strip_prefix("refs/"));
        matches!(short, Some("main") | Some("tags/v1")) || name.starts_with("refs/heads/release/")
    }

    #[test]
    fn guarded_refs_are_protected_ones_and_their_remote_tracking_refs() {
        let mut p = protected;
        for name in [
            "refs/heads/main",
            "refs/tags/v1",
            "refs/remotes/origin/main",
            "refs/remotes/up/release/2",
        ] {
            assert!(guarded(name, &mut p), "{name}");
        }
        for name in [
            "refs/heads/feature",
            "refs/remotes/origin/feature",
            "refs/ward/x",
            "HEAD",
        ] {
            assert!(!guarded(name, &mut p), "{name}");
        }
    }

    #[test]
    fn the_state_file_reads_back_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("ward")).unwrap();
        let mut state = State::default();
        state.refs.insert("refs/heads/main".into(), "a".repeat(40));
        state.noted.insert("refs/tags/v1".into(), ZERO.into());
        state.write(dir.path()).unwrap();
        assert_eq!(State::read(dir.path()).as_ref(), Some(&state));
        let seen = Seen {
            stamp: "00ff".into(),
            stamps: Stamps {
                packed: "01".into(),
                dirs: vec![("refs/heads".into(), "02".into())],
                files: vec![("refs/heads/main".into(), "03".into())],
            },
            moved: vec![Moved {
                refname: "refs/tags/v1".into(),
                old: Some("b".repeat(40)),
                new: None,
            }],
            noted: vec!["refs/tags/v1".into()],
        };
        seen.write(dir.path()).unwrap();
        assert_eq!(Seen::read(dir.path()), Some(seen));
    }

    #[test]
    fn a_move_beside_guarded_refs_keeps_the_scan_a_move_of_them_does_not() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let common = dir.path();
        let write = |rel: &str, value: &str| {
            let file = common.join(rel);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            let aside = file.with_extension("lock");
            std::fs::write(&aside, format!("{value}\n")).unwrap();
            std::fs::rename(aside, file).unwrap();
        };
        std::fs::create_dir_all(common.join("ward")).unwrap();
        std::fs::write(
            common.join("ward/install.json"),
            r#"{"hooks": ["reference-transaction"]}"#,
        )
        .unwrap();
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        write("refs/heads/main", &a);
        write("refs/heads/agent/c1", &a);
        write("refs/tags/v1", &a);
        let mut p = protected;
        assert!(check(common, &mut p).moved.is_empty());
        let inode = || std::fs::metadata(path(common, FILE)).unwrap().ino();
        let scanned = inode();
        // A commit on agent/c1: its directory moves, no guarded ref does.
        write("refs/heads/agent/c1", &b);
        assert!(check(common, &mut p).moved.is_empty());
        assert_eq!(inode(), scanned, "the refs were scanned again");
        // The stamp is taken again: the next look is the fast one.
        let seen = Seen::read(common).unwrap();
        assert_eq!(seen.stamps.again(common).combined(), seen.stamp);
        // A new protected branch beside it, a tag moved in place of its
        // file: both found, by a scan.
        write("refs/heads/release/2", &a);
        write("refs/heads/agent/c1", &a);
        let found = check(common, &mut p);
        assert_ne!(inode(), scanned);
        let names: Vec<&str> = found.moved.iter().map(|m| m.refname.as_str()).collect();
        assert_eq!(names, ["refs/heads/release/2"]);
        write("refs/tags/v1", &b);
        let found = check(common, &mut p);
        let names: Vec<&str> = found.moved.iter().map(|m| m.refname.as_str()).collect();
        assert_eq!(names, ["refs/heads/release/2", "refs/tags/v1"]);
    }
}
