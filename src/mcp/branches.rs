//! `git_branches`: the local branches, which one is checked out, which the
//! policy protects, and the agent branch of the active contract, so that
//! an agent knows where its commits will land before it makes them.

use serde_json::{json, Value};

use super::call::{Ctx, Output, ToolResult};
use super::git_tools::run;
use super::results::{self, Branches};

/// The fields `for-each-ref` prints per branch, NUL-separated.
const FORMAT: &str =
    "--format=%(refname)%00%(objectname)%00%(HEAD)%00%(upstream:short)%00%(upstream:track,nobracket)";

/// `git_branches`: every local branch with its commit, upstream and state.
pub fn branches(ctx: &mut Ctx) -> ToolResult {
    let argv = ["for-each-ref", FORMAT, "refs/heads/"];
    let g = ctx.govern("git.branch", &argv, None)?;
    let raw = run(&g, &argv)?;
    let policy = g.a.policy.as_ref().ok();
    let list: Vec<Value> = raw
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\0').collect();
            let [refname, commit, head, upstream, track] = f[..] else {
                return None;
            };
            let name = refname.strip_prefix("refs/heads/")?;
            let (ahead, behind) = if upstream.is_empty() {
                (None, None)
            } else {
                track_counts(track)
            };
            Some(json!({
                "name": name,
                "commit": commit,
                "current": head == "*",
                "protected": policy.is_some_and(|p| p.is_protected(refname)),
                "upstream": (!upstream.is_empty()).then_some(upstream),
                "ahead": ahead,
                "behind": behind,
            }))
        })
        .collect();
    let current = list
        .iter()
        .find(|b| b["current"] == true)
        .map(|b| b["name"].clone());
    let agent_branch = match (policy, &g.contract) {
        (Some(p), Some(c)) => Some(format!("{}{c}", p.settings.branches.agent_prefix)),
        _ => None,
    };
    let value = json!({ "current": current, "agent_branch": agent_branch, "branches": list });
    Ok(Output::json(results::conform::<Branches>(value)?)
        .narrow("the list is long: use git_status for the branch checked out"))
}

/// `ahead 2, behind 1` (for-each-ref's `upstream:track,nobracket`) as counts;
/// `gone` or nothing as none.
fn track_counts(track: &str) -> (Option<u64>, Option<u64>) {
    let mut ahead = None;
    let mut behind = None;
    for part in track.split(", ") {
        match part.split_once(' ') {
            Some(("ahead", n)) => ahead = n.parse().ok(),
            Some(("behind", n)) => behind = n.parse().ok(),
            _ => {}
        }
    }
    if ahead.is_some() || behind.is_some() || track.is_empty() {
        (ahead.or(Some(0)), behind.or(Some(0)))
    } else {
        (None, None)
    }
}

#[cfg(test)]
mod tests {
    use super::track_counts;

    #[test]
    fn tracking_reads_as_counts() {
        assert_eq!(track_counts("ahead 2, behind 1"), (Some(2), Some(1)));
        assert_eq!(track_counts("behind 3"), (Some(0), Some(3)));
        assert_eq!(track_counts(""), (Some(0), Some(0)));
        assert_eq!(track_counts("gone"), (None, None));
    }
}
