//! `git ward sessions`: every worktree of the repository with its
//! contract, branch, lease, uncommitted files, commits ahead of where it
//! started and its last audited command.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::run::{lane, summary};
use super::Outcome;
use crate::error::Result;
use crate::facts::lease::{self, Lease};
use crate::facts::Repo;
use crate::git::Git;

/// List every worktree of this repository with its contract, branch,
/// lease (live, stale or none; pid, age), uncommitted files, commits ahead
/// of the branch it started from and its last audited command.
#[derive(Debug, clap::Args)]
pub struct SessionsArgs {
    /// One JSON object: `{"worktrees": [...]}`.
    #[arg(long)]
    pub json: bool,
}

/// The last audited command run in a worktree.
#[derive(Serialize)]
struct Last {
    timestamp: String,
    operation: String,
    decision: String,
}

/// One worktree's line.
#[derive(Serialize)]
struct Row {
    path: String,
    branch: Option<String>,
    contract: Option<String>,
    /// `live`, `stale` or `none`.
    lease: &'static str,
    pid: Option<u32>,
    /// Seconds since the lease was taken.
    age_seconds: Option<u64>,
    session: Option<String>,
    uncommitted: Option<usize>,
    ahead: Option<usize>,
    /// What `ahead` counts from: the branch (or commit) the lane started from, or the upstream.
    ahead_of: Option<String>,
    last_command: Option<Last>,
}

/// The worktrees: (top, git dir), the main one first (none for a bare repository).
fn worktrees(repo: &Repo) -> Vec<(PathBuf, PathBuf)> {
    let common = repo.common_dir();
    let mut all = Vec::new();
    if common.file_name().is_some_and(|n| n == ".git") {
        if let Some(top) = common.parent() {
            all.push((top.to_path_buf(), common.to_path_buf()));
        }
    }
    all.extend(
        lease::linked(common)
            .into_iter()
            .map(|w| (w.top, w.git_dir)),
    );
    all
}

/// Commits of HEAD that `base` lacks: the lane's start branch (its value
/// now) or start commit, else the upstream.
fn ahead(git: &Git, git_dir: &Path) -> (Option<usize>, Option<String>) {
    let base = match lane::start_of(git_dir) {
        Some(start) => {
            let branch = git
                .run([
                    "rev-parse",
                    "--verify",
                    "-q",
                    &format!("refs/heads/{}", start.from),
                ])
                .ok();
            match branch {
                Some(_) if start.from != "HEAD" => start.from,
                _ => start.base,
            }
        }
        None => match git.run(["rev-parse", "--abbrev-ref", "-q", "@{upstream}"]) {
            Ok(up) if !up.is_empty() => up,
            _ => return (None, None),
        },
    };
    let count = git
        .run(["rev-list", "--count", &format!("{base}..HEAD")])
        .ok()
        .and_then(|n| n.trim().parse().ok());
    (count, Some(base))
}

/// The newest audit record of each of `tops` (a worktree is named by its
/// path as written or as it resolves): one pass over the log, newest
/// first, that resolves each distinct path once and stops when every
/// worktree has its record.
fn last_records<'a>(
    audit: impl DoubleEndedIterator<Item = &'a crate::audit::Record>,
    tops: &[&Path],
) -> Vec<Option<&'a crate::audit::Record>> {
    let real: Vec<Option<PathBuf>> = tops.iter().map(|t| std::fs::canonicalize(t).ok()).collect();
    let mut last: Vec<Option<&crate::audit::Record>> = vec![None; tops.len()];
    let mut resolved: std::collections::HashMap<&str, Option<PathBuf>> =
        std::collections::HashMap::new();
    let mut missing = tops.len();
    for r in audit.rev() {
        if missing == 0 {
            break;
        }
        let Some(w) = r.worktree.as_deref() else {
            continue;
        };
        let to = resolved
            .entry(w)
            .or_insert_with(|| std::fs::canonicalize(w).ok());
        for (i, top) in tops.iter().enumerate() {
            if last[i].is_none() && (Path::new(w) == *top || (to.is_some() && *to == real[i])) {
                last[i] = Some(r);
                missing -= 1;
            }
        }
    }
    last
}

/// The last audit line of each of `tops`, from the log in `dir`: its days
/// are read newest first, until every worktree has its line.
fn last_lines(dir: &Path, tops: &[&Path]) -> Vec<Option<crate::audit::Record>> {
    let audit = crate::audit::read_newest(dir, |so_far| {
        last_records(so_far.iter().copied(), tops)
            .iter()
            .all(Option::is_some)
    });
    last_records(audit.iter(), tops)
        .into_iter()
        .map(|r| r.cloned())
        .collect()
}

fn row(top: &Path, git_dir: &Path, last: Option<&crate::audit::Record>) -> Result<Row> {
    let held: Option<Lease> = lease::read(git_dir);
    let state = held.as_ref().map(|l| l.state().as_str()).unwrap_or("none");
    let age = held.as_ref().and_then(|l| {
        let since = crate::audit::parse_rfc3339(&l.started)?;
        Some(
            SystemTime::now()
                .duration_since(since)
                .unwrap_or(Duration::ZERO)
                .as_secs(),
        )
    });
    let file = crate::state_file::read_text(&git_dir.join("ward").join("contract")).ok();
    let contract = held
        .as_ref()
        .map(|l| l.contract.clone())
        .or_else(|| file.map(|t| t.trim().to_string()).filter(|t| !t.is_empty()));
    let git = Git::locate()?.in_dir(top).detached_from_env();
    let exists = top.is_dir();
    let (ahead, ahead_of) = if exists {
        ahead(&git, git_dir)
    } else {
        (None, None)
    };
    Ok(Row {
        path: top.display().to_string(),
        branch: crate::facts::head_branch_file(git_dir).filter(|b| b != "HEAD"),
        contract,
        lease: state,
        pid: held.as_ref().map(|l| l.pid),
        age_seconds: age,
        session: held.as_ref().map(|l| l.session.clone()),
        uncommitted: exists.then(|| summary::uncommitted(&git)).flatten(),
        ahead,
        ahead_of,
        last_command: last.map(|r| Last {
            timestamp: r.timestamp.clone(),
            operation: r.operation.clone(),
            decision: r.decision.clone(),
        }),
    })
}

fn text(rows: &[Row]) -> String {
    let width = rows.iter().map(|r| r.path.len()).max().unwrap_or(0);
    let mut out = String::new();
    for r in rows {
        let lease = match (r.lease, r.pid, r.age_seconds) {
            ("none", _, _) => "no lease".to_string(),
            (state, Some(pid), Some(age)) => format!("{state} lease, pid {pid}, {age}s"),
            (state, _, _) => format!("{state} lease"),
        };
        let n = |v: Option<usize>| v.map_or("-".to_string(), |n| n.to_string());
        let last = r.last_command.as_ref().map_or("-".to_string(), |l| {
            format!("{} {}", l.timestamp, l.operation)
        });
        out.push_str(&format!(
            "{:<width$}  {:<20} {:<14} {:<28} {:>3} uncommitted {:>3} ahead  last: {last}\n",
            r.path,
            r.branch.as_deref().unwrap_or("(detached)"),
            r.contract.as_deref().unwrap_or("-"),
            lease,
            n(r.uncommitted),
            n(r.ahead),
        ));
    }
    out
}

/// Runs `git ward sessions`.
pub fn run(args: SessionsArgs) -> Outcome {
    let result =
        Repo::for_tool("run it inside the repository whose worktrees you want").and_then(|repo| {
            let trees = worktrees(&repo);
            let tops: Vec<&Path> = trees.iter().map(|(top, _)| top.as_path()).collect();
            let last = last_lines(&crate::audit::dir(repo.common_dir()), &tops);
            let rows = trees
                .iter()
                .zip(last)
                .map(|((top, git_dir), last)| row(top, git_dir, last.as_ref()))
                .collect::<Result<Vec<Row>>>()?;
            let out = text(&rows);
            Ok((serde_json::json!({ "worktrees": rows }), out))
        });
    Outcome::report(args.json, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Record;

    fn at(worktree: Option<&Path>, trace: &str) -> Record {
        Record {
            worktree: worktree.map(|w| w.display().to_string()),
            trace_id: trace.into(),
            ..Record::default()
        }
    }

    /// Each worktree gets its newest line, whether the line names it as
    /// written or through a link; a worktree no line names gets none, and
    /// a line naming a path that no longer resolves matches no other such path.
    #[test]
    fn each_worktree_gets_its_newest_line() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, gone) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("gone"),
        );
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let link = dir.path().join("link-to-b");
        std::os::unix::fs::symlink(&b, &link).unwrap();
        let audit = [
            at(Some(&a), "a1"),
            at(Some(&b), "b1"),
            at(None, "none"),
            at(Some(&a), "a2"),
            at(Some(&link), "b2"),
            at(Some(&dir.path().join("elsewhere")), "x"),
        ];
        let never = dir.path().join("never");
        let tops = [a.as_path(), b.as_path(), gone.as_path(), never.as_path()];
        let last: Vec<Option<&str>> = last_records(audit.iter(), &tops)
            .into_iter()
            .map(|r| r.map(|r| r.trace_id.as_str()))
            .collect();
        assert_eq!(last, [Some("a2"), Some("b2"), None, None]);
    }

    /// A worktree whose last line is days old is found in that day's file;
    /// the newer lines of another worktree stay its own.
    #[test]
    fn a_worktree_quiet_for_days_has_its_last_line_from_then() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let log = dir.path().join("audit");
        std::fs::create_dir(&log).unwrap();
        for (day, lines) in [
            (
                "2026-01-01",
                vec![at(Some(&b), "b-old"), at(Some(&a), "a-old")],
            ),
            ("2026-01-02", vec![at(Some(&b), "b-mid")]),
            ("2026-01-03", vec![at(Some(&a), "a-new"), at(None, "none")]),
        ] {
            let text: String = lines
                .iter()
                .map(|r| serde_json::to_string(r).unwrap() + "\n")
                .collect();
            std::fs::write(log.join(format!("audit.{day}.jsonl")), text).unwrap();
        }
        let tops = [a.as_path(), b.as_path(), dir.path()];
        let last: Vec<Option<String>> = last_lines(&log, &tops)
            .into_iter()
            .map(|r| r.map(|r| r.trace_id))
            .collect();
        assert_eq!(last, [Some("a-new".into()), Some("b-mid".into()), None]);
    }
}
