//! What a session did, for the summary `git ward run` prints at its end:
//! the branch, commits made, files left uncommitted, checkpoints taken,
//! denials.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::SystemTime;

use serde::Serialize;

use crate::git::Git;

/// The session's start, to count from.
pub struct Before {
    head: Option<String>,
    checkpoints: BTreeSet<String>,
}

/// The checkpoints of `contract` (`chk-<contract>-<n>`), by id.
fn checkpoints_of(git: &Git, contract: &str) -> BTreeSet<String> {
    let prefix = format!("chk-{contract}-");
    let Ok(out) = git.run([
        "for-each-ref",
        "--format=%(refname:lstrip=3)",
        crate::checkpoint::store::PREFIX,
    ]) else {
        return BTreeSet::new();
    };
    out.lines()
        .filter(|id| {
            id.strip_prefix(&prefix)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// The commit the HEAD of the worktree at `git`'s directory is on.
fn head(git: &Git) -> Option<String> {
    git.run(["rev-parse", "--verify", "-q", "HEAD^{commit}"])
        .ok()
}

/// Files `git status` shows in the worktree (changed, staged or untracked).
pub fn uncommitted(git: &Git) -> Option<usize> {
    let out = git
        .output([
            "status",
            "--porcelain",
            "-z",
            "--no-renames",
            "--untracked-files=all",
        ])
        .ok()?;
    out.status.success().then(|| {
        out.stdout
            .split(|b| *b == 0)
            .filter(|e| !e.is_empty())
            .count()
    })
}

impl Before {
    pub fn read(git_dir: &Path, contract: &str) -> Before {
        let git = Git::locate().map(|g| g.env("GIT_DIR", git_dir));
        match git {
            Ok(git) => Before {
                head: head(&git),
                checkpoints: checkpoints_of(&git, contract),
            },
            Err(_) => Before {
                head: None,
                checkpoints: BTreeSet::new(),
            },
        }
    }
}

/// The summary.
#[derive(Serialize)]
pub struct Summary {
    pub session: String,
    pub contract: String,
    pub worktree: String,
    pub branch: Option<String>,
    pub commits: usize,
    pub uncommitted: usize,
    pub checkpoints: usize,
    pub denials: usize,
}

impl Summary {
    /// Counts what the session did in the worktree `git` runs in.
    pub fn read(
        git: &Git,
        git_dir: &Path,
        before: &Before,
        session: &str,
        contract: &str,
        top: &Path,
        started: SystemTime,
    ) -> Summary {
        let range = match (&before.head, head(git)) {
            (Some(b), Some(_)) => Some(format!("{b}..HEAD")),
            (None, Some(_)) => Some("HEAD".to_string()),
            (_, None) => None,
        };
        let commits = range
            .and_then(|r| git.run(["rev-list", "--count", &r]).ok())
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let checkpoints = checkpoints_of(git, contract)
            .difference(&before.checkpoints)
            .count();
        let common = git
            .run_path(["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .unwrap_or_else(|_| git_dir.to_path_buf());
        let denials = crate::audit::read_since(&crate::audit::dir(&common), started)
            .iter()
            .filter(|r| r.session_id.as_deref() == Some(session) && r.decision == "deny")
            .count();
        Summary {
            session: session.to_string(),
            contract: contract.to_string(),
            worktree: top.display().to_string(),
            branch: crate::facts::head_branch_file(git_dir),
            commits,
            uncommitted: uncommitted(git).unwrap_or(0),
            checkpoints,
            denials,
        }
    }

    /// What `cli` prints on stderr: one line for people, one JSON object
    /// for `--json`; and how the session's command ended.
    pub fn ended(&self, code: i32, signal: Option<i32>) -> crate::commands::Ended {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("status".into(), "S".into());
            map.insert("exit_code".into(), code.into());
            map.insert("signal".into(), signal.into());
        }
        let ended = match signal {
            Some(sig) => format!("killed by signal {sig}"),
            None => format!("exit {code}"),
        };
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let text = format!(
            "ward: session {} ({}) ended, {ended}: branch {}, {}, {} uncommitted, {}, {}",
            self.session,
            self.contract,
            self.branch.as_deref().unwrap_or("(detached)"),
            plural(self.commits, "commit", "commits"),
            plural(self.uncommitted, "file", "files"),
            plural(self.checkpoints, "checkpoint", "checkpoints"),
            plural(self.denials, "denial", "denials"),
        );
        crate::commands::Ended {
            value,
            text,
            code: code.clamp(0, 255) as u8,
            signal,
        }
    }
}
