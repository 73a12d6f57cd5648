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
//! The file also holds a stamp of what a scan of the refs read (the
//! packed-refs file, the directories the guarded refs live in, the loose
//! files of guarded branches): while it holds, nothing a scan would read
//! has changed, and a check is that many `stat` calls. A loose tag
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

/// The remembered state.
#[derive(Debug, Default, PartialEq)]
struct State {
    stamp: String,
    dirs: Vec<String>,
    refs: BTreeMap<String, String>,
    /// Drift already reported (and logged), with the value it was seen at.
    noted: BTreeMap<String, String>,
}

const FILE: &str = "guarded-refs";
const ZERO: &str = "-";

fn path(common: &Path) -> PathBuf {
    common.join("ward").join(FILE)
}

impl State {
    fn read(common: &Path) -> Option<State> {
        let bytes =
            crate::state_file::read_bounded(&path(common), crate::state_file::MAX_READ).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let mut state = State::default();
        for line in text.lines() {
            let mut words = line.splitn(3, ' ');
            match (words.next(), words.next(), words.next()) {
                (Some("stamp"), Some(stamp), None) => state.stamp = stamp.to_string(),
                (Some("dir"), Some(dir), None) => state.dirs.push(dir.to_string()),
                (Some("drift"), Some(value), Some(name)) => {
                    state.noted.insert(name.to_string(), value.to_string());
                }
                (Some("ref"), Some(value), Some(name)) => {
                    state.refs.insert(name.to_string(), value.to_string());
                }
                _ => {}
            }
        }
        Some(state)
    }

    fn write(&self, common: &Path) -> std::io::Result<()> {
        let mut text = String::from("# git-ward: guarded refs as its hooks last saw them\n");
        text += &format!("stamp {}\n", self.stamp);
        for dir in &self.dirs {
            text += &format!("dir {dir}\n");
        }
        for (name, value) in &self.refs {
            text += &format!("ref {value} {name}\n");
        }
        for (name, value) in &self.noted {
            text += &format!("drift {value} {name}\n");
        }
        crate::state_file::replace(&path(common), text.as_bytes())
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

/// The stamp of what a scan reads: `packed-refs`, the directories, and
/// the loose files of the guarded branches remembered.
fn stamp_of(common: &Path, dirs: &[String], refs: &BTreeMap<String, String>) -> String {
    use std::os::unix::fs::MetadataExt;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut add = |path: &Path| {
        let text = match std::fs::symlink_metadata(path) {
            Ok(m) => format!(
                "{} {} {}.{} {}.{};",
                m.ino(),
                m.size(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec()
            ),
            Err(_) => "-;".to_string(),
        };
        for b in text.bytes() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    add(&common.join("packed-refs"));
    for dir in dirs {
        add(&common.join(dir));
    }
    for name in refs.keys().filter(|n| !n.starts_with("refs/tags/")) {
        add(&common.join(name));
    }
    format!("{hash:016x}")
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

/// Looks for drift. The first look remembers the refs as they are. While
/// the stamp holds, the drift already noted is the answer (a few stats).
pub fn check(common: &Path, is_protected: &mut dyn FnMut(&str) -> bool) -> Found {
    if !watched(common) {
        return Found::default();
    }
    if let Some(state) = State::read(common) {
        if stamp_of(common, &state.dirs, &state.refs) == state.stamp {
            return Found {
                moved: noted(&state),
                new: Vec::new(),
            };
        }
    }
    let Some(_lock) = Lock::take(common) else {
        return Found::default();
    };
    let (values, dirs) = scan(common, is_protected);
    let Some(mut state) = State::read(common) else {
        let refs = values;
        let state = State {
            stamp: stamp_of(common, &dirs, &refs),
            dirs,
            refs,
            noted: BTreeMap::new(),
        };
        let _ = state.write(common);
        return Found::default();
    };
    let mut found = Found::default();
    let mut noted = BTreeMap::new();
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
        if state.noted.get(name) != Some(&now) {
            found.new.push(moved.clone());
        }
        noted.insert(name.clone(), now);
        found.moved.push(moved);
    }
    state.noted = noted;
    state.stamp = stamp_of(common, &dirs, &state.refs);
    state.dirs = dirs;
    let _ = state.write(common);
    found
}

fn noted(state: &State) -> Vec<Moved> {
    state
        .noted
        .iter()
        .map(|(name, new)| Moved {
            refname: name.clone(),
            old: state.refs.get(name).cloned(),
            new: (new != ZERO).then(|| new.clone()),
        })
        .collect()
}

/// Remembers guarded refs' new values as a hook (or git-ward) saw them
/// move: `(ref, new value or None when deleted)`. A ref noted as drifted
/// that moves again with the hooks on is known again.
pub fn remember(common: &Path, moves: &[(String, Option<String>)]) {
    if moves.is_empty() || !watched(common) {
        return;
    }
    let Some(_lock) = Lock::take(common) else {
        return;
    };
    let Some(mut state) = State::read(common) else {
        // Nothing remembered yet: the next check reads all as they are.
        return;
    };
    for (name, value) in moves {
        match value {
            Some(v) => state.refs.insert(name.clone(), v.clone()),
            None => state.refs.remove(name),
        };
        state.noted.remove(name);
    }
    // The refs moved since the stamp: the next check scans.
    state.stamp.clear();
    let _ = state.write(common);
}

/// Takes the guarded refs' current values as known (a person looked):
/// no drift until they move again with no hook.
pub fn accept(common: &Path, is_protected: &mut dyn FnMut(&str) -> bool) -> std::io::Result<()> {
    let _lock = Lock::take(common);
    let (refs, dirs) = scan(common, is_protected);
    State {
        stamp: stamp_of(common, &dirs, &refs),
        dirs,
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
        let mut state = State {
            stamp: "00ff".into(),
            dirs: vec!["refs/heads".into()],
            ..State::default()
        };
        state.refs.insert("refs/heads/main".into(), "a".repeat(40));
        state.noted.insert("refs/tags/v1".into(), ZERO.into());
        state.write(dir.path()).unwrap();
        assert_eq!(State::read(dir.path()), Some(state));
    }
}
