//! Session leases: which session holds a worktree.
//!
//! `git ward run` writes `<git-dir>/ward/lease` for the worktree its
//! command runs in and removes it at the end. A lease is live while its
//! process runs with the start time it recorded (read from
//! `/proc/<pid>/stat`, so a reused pid is not taken for it), and stale
//! after. Reading one is one `read` of a file that is usually absent, and
//! of `/proc/<pid>/stat` when it is there.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::decide::Held;

/// One lease, as the file holds it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub contract: String,
    pub pid: u32,
    /// The process's start time, in clock ticks since boot (field 22 of
    /// `/proc/<pid>/stat`); 0 where there is no `/proc`.
    pub start_time: u64,
    pub command: Vec<String>,
    /// RFC 3339.
    pub started: String,
    /// The session id the audit lines of the session carry.
    pub session: String,
    /// The worktree's top.
    pub worktree: String,
}

/// Whether a lease's process still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Live,
    Stale,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Live => "live",
            State::Stale => "stale",
        }
    }
}

/// Where the lease of the worktree whose git dir is `git_dir` lives.
pub fn path(git_dir: &Path) -> PathBuf {
    git_dir.join("ward").join("lease")
}

/// The lease of a worktree, live or stale; `None` when there is none (or
/// it cannot be read as one).
pub fn read(git_dir: &Path) -> Option<Lease> {
    let bytes = crate::state_file::read_bounded(&path(git_dir), 64 * 1024).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The lease of a worktree, when its session still runs.
pub fn live(git_dir: &Path) -> Option<Lease> {
    read(git_dir).filter(|l| l.state() == State::Live)
}

impl Lease {
    /// Live while its process runs with the start time it recorded.
    pub fn state(&self) -> State {
        match (self.start_time, start_time(self.pid)) {
            (_, Probe::Gone) => State::Stale,
            (recorded, Probe::Started(now)) if recorded != 0 && recorded != now => State::Stale,
            _ => State::Live,
        }
    }

    /// What `decide` needs of it.
    pub fn held(&self) -> Held {
        Held {
            contract: self.contract.clone(),
            pid: self.pid,
            worktree: self.worktree.clone(),
        }
    }
}

/// What `/proc` says of a process.
enum Probe {
    Gone,
    Started(u64),
    /// Running, start time unknown (no `/proc`).
    Runs,
}

fn start_time(pid: u32) -> Probe {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return Probe::Gone;
    };
    match crate::state_file::read_proc(format!("/proc/{pid}/stat")) {
        Ok(stat) => super::starter::stat_number(&stat, 19).map_or(Probe::Runs, Probe::Started),
        Err(_) if Path::new("/proc/self/stat").exists() => Probe::Gone,
        Err(_) => {
            // SAFETY: signal 0 only asks whether the process exists.
            let r = unsafe { libc::kill(pid, 0) };
            let gone =
                r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
            if gone {
                Probe::Gone
            } else {
                Probe::Runs
            }
        }
    }
}

/// This process's start time, as a lease records it (0 when unknown).
pub fn own_start_time() -> u64 {
    match start_time(std::process::id()) {
        Probe::Started(t) => t,
        _ => 0,
    }
}

/// A linked worktree of the repository: its git dir and its top.
#[derive(Clone, Debug)]
pub struct Linked {
    pub git_dir: PathBuf,
    /// Where its `gitdir` file says the worktree is (the `.git` file's
    /// directory).
    pub top: PathBuf,
}

/// The linked worktrees `<common-dir>/worktrees/*/gitdir` names (git's
/// own record; no git run).
pub fn linked(common_dir: &Path) -> Vec<Linked> {
    let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return Vec::new();
    };
    let mut all: Vec<Linked> = entries
        .flatten()
        .filter_map(|e| {
            let git_dir = e.path();
            let text = crate::state_file::read_text(&git_dir.join("gitdir")).ok()?;
            let dot_git = PathBuf::from(text.trim_end_matches(['\n', '\r']));
            let top = dot_git.parent()?.to_path_buf();
            Some(Linked { git_dir, top })
        })
        .collect();
    all.sort_by(|a, b| a.git_dir.cmp(&b.git_dir));
    all
}

/// The linked worktree `git worktree remove|move <arg>` names, found as git
/// finds it: the one whose path ends with `arg` at a directory boundary,
/// else the one at `arg` taken relative to `cwd`.
pub fn named(common_dir: &Path, cwd: &Path, arg: &str) -> Option<Linked> {
    let all = linked(common_dir);
    let trimmed = arg.trim_end_matches('/');
    if !trimmed.is_empty() {
        let by_suffix: Vec<&Linked> = all
            .iter()
            .filter(|w| {
                let p = w.top.to_string_lossy();
                p.strip_suffix(trimmed)
                    .is_some_and(|head| head.is_empty() || head.ends_with('/'))
            })
            .collect();
        if let [one] = by_suffix.as_slice() {
            return Some((*one).clone());
        }
    }
    let wanted = std::fs::canonicalize(cwd.join(arg)).ok()?;
    all.into_iter()
        .find(|w| std::fs::canonicalize(&w.top).is_ok_and(|p| p == wanted))
}

/// The live lease of a worktree `worktree remove`, `move` (named by
/// `arg`) or `prune` would take away: for `prune`, an entry git prunes
/// (its `.git` file gone) whose directory is still there.
pub fn held_by_removed(
    common_dir: &Path,
    cwd: &Path,
    named_arg: Option<&str>,
    prunes: bool,
) -> Option<Held> {
    if let Some(arg) = named_arg {
        let w = named(common_dir, cwd, arg)?;
        return live(&w.git_dir).map(|l| l.held());
    }
    if !prunes {
        return None;
    }
    linked(common_dir)
        .into_iter()
        .filter(|w| !w.top.join(".git").exists() && w.top.is_dir())
        .find_map(|w| live(&w.git_dir).map(|l| l.held()))
}

/// The leases `decide` weighs for a command that changes something, run
/// in `repo` from `cwd`: the live lease of the worktree itself, and of
/// one the command removes, moves or prunes.
pub fn gather(
    repo: &crate::facts::Repo,
    action: &crate::action::Action,
    cwd: &Path,
) -> (Option<Held>, Option<Held>) {
    let here = live(repo.git_dir()).map(|l| l.held());
    let named = action
        .removes_worktree
        .as_deref()
        .or(action.moves_worktree.as_deref());
    let removed = (named.is_some() || action.prunes_worktrees)
        .then(|| held_by_removed(repo.common_dir(), cwd, named, action.prunes_worktrees))
        .flatten();
    (here, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_time_is_field_22_whatever_the_command_name() {
        let line = b"4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10\n";
        assert_eq!(super::super::starter::stat_number(line, 19), Some(987654));
        assert_eq!(super::super::starter::stat_number(b"garbage", 19), None);
    }

    #[test]
    fn this_process_is_live_and_a_recorded_other_start_time_is_stale() {
        let mut lease = Lease {
            contract: "a".into(),
            pid: std::process::id(),
            start_time: own_start_time(),
            command: vec!["sh".into()],
            started: "2026-01-01T00:00:00.000Z".into(),
            session: "s".into(),
            worktree: "/w".into(),
        };
        assert_eq!(lease.state(), State::Live);
        lease.start_time += 1;
        assert_eq!(lease.state(), State::Stale, "a reused pid");
        lease.pid = u32::MAX;
        assert_eq!(lease.state(), State::Stale, "no such process");
    }
}
