//! Drift: a guarded ref moved by a writer that ran no hook of git-ward's is
//! reported on the next agent command, in the audit log and by doctor, can
//! be put back, and `enforce.drift` says what agents meet meanwhile. A
//! person's moves with the hooks on are never drift.

use crate::common::TestRepo;

/// `main` with two commits, a branch `feature`, hooks installed.
fn installed() -> (TestRepo, String, String) {
    let repo = TestRepo::new();
    let first = repo.rev("main").unwrap();
    repo.commit("second");
    let second = repo.rev("main").unwrap();
    repo.git(["branch", "feature"]).ok();
    repo.ward(["install"]).ok();
    repo.git(["checkout", "-q", "feature"]).ok();
    (repo, first, second)
}

fn drift_records(repo: &TestRepo) -> Vec<serde_json::Value> {
    repo.audit_records(&[])
        .into_iter()
        .filter(|r| {
            r["decision"] == "drift" && r["actions_taken"].as_array().is_none_or(Vec::is_empty)
        })
        .collect()
}

/// Each route moves `main` back to its first commit with no hook.
fn routes(repo: &TestRepo, first: &str) -> Vec<&'static str> {
    let _ = (repo, first);
    vec!["hooksPath", "file", "branch -f"]
}

fn take_route(repo: &TestRepo, route: &str, first: &str) {
    match route {
        "hooksPath" => {
            repo.git([
                "-c",
                "core.hooksPath=/dev/null",
                "update-ref",
                "refs/heads/main",
                first,
            ])
            .ok();
        }
        "file" => {
            std::fs::write(repo.dir.join(".git/refs/heads/main"), format!("{first}\n")).unwrap();
        }
        "branch -f" => {
            repo.git_env(
                [
                    "-c",
                    "core.hooksPath=/dev/null",
                    "branch",
                    "-f",
                    "main",
                    first,
                ],
                &[("WARD_AGENT", "1")],
            )
            .ok();
        }
        _ => unreachable!(),
    }
}

#[test]
fn each_route_is_reported_logged_and_failed_by_doctor() {
    let (probe, first, _) = installed();
    for route in routes(&probe, &first) {
        let (repo, first, second) = installed();
        take_route(&repo, route, &first);
        assert_eq!(repo.rev("main").as_deref(), Some(first.as_str()), "{route}");
        repo.shim(["status", "-s"])
            .ok()
            .stderr_has("refs/heads/main")
            .stderr_has("drift");
        let lines = drift_records(&repo);
        assert_eq!(lines.len(), 1, "{route}: {lines:?}");
        assert_eq!(lines[0]["ref"], "refs/heads/main");
        assert_eq!(lines[0]["old"], second.as_str());
        assert_eq!(lines[0]["new"], first.as_str());
        // Reported again, logged once.
        repo.shim(["log", "-1"]).ok().stderr_has("drift");
        assert_eq!(drift_records(&repo).len(), 1, "{route}");
        repo.ward(["doctor"])
            .code(3)
            .stdout_has("FAIL drift")
            .stdout_has("refs/heads/main")
            .stdout_has("git ward drift --restore");
        // Put back.
        repo.ward(["undo", "--drift"]).ok().stdout_has("restored");
        assert_eq!(
            repo.rev("main").as_deref(),
            Some(second.as_str()),
            "{route}"
        );
        repo.ward(["doctor"]).stdout_has("ok   drift");
        repo.shim(["status", "-s"]).ok().stderr_lacks("drift");
    }
}

#[test]
fn a_persons_moves_with_hooks_on_are_never_drift() {
    let (repo, first, _) = installed();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.commit("third");
    repo.git(["reset", "-q", "--hard", &first]).ok();
    repo.git(["branch", "-f", "release/1", "HEAD"]).ok();
    repo.git(["tag", "v2"]).ok();
    repo.git(["update-ref", "refs/remotes/origin/main", &first])
        .ok();
    repo.git(["checkout", "-q", "feature"]).ok();
    repo.shim(["status"]).ok().stderr_lacks("drift");
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .ok()
        .stderr_lacks("drift");
    assert!(drift_records(&repo).is_empty());
    repo.ward(["doctor"]).stdout_has("ok   drift");
}

#[test]
fn refuse_waits_for_a_person_and_accept_ends_it() {
    let (repo, first, _) = installed();
    repo.local_policy("[enforce]\ndrift = \"refuse\"\n");
    take_route(&repo, "hooksPath", &first);
    repo.shim(["status"]).ok().stderr_has("drift");
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("refs/heads/main")
        .stderr_has("git ward drift");
    repo.ward(["drift"]).code(1).stdout_has("refs/heads/main");
    repo.ward_env(["drift", "--accept"], &[("WARD_AGENT", "1")])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    repo.ward(["drift", "--accept"]).ok();
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .ok()
        .stderr_lacks("drift");
    assert_eq!(repo.rev("main").as_deref(), Some(first.as_str()));
}

#[test]
fn restore_puts_the_ref_back_before_the_agents_command() {
    let (repo, first, second) = installed();
    repo.local_policy("[enforce]\ndrift = \"restore\"\n");
    take_route(&repo, "file", &first);
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .ok()
        .stderr_has("restored refs/heads/main");
    assert_eq!(repo.rev("main").as_deref(), Some(second.as_str()));
    repo.shim(["status"]).ok().stderr_lacks("drift");
}

#[test]
fn a_tag_created_or_deleted_with_hooks_off_is_drift() {
    let (repo, first, _) = installed();
    repo.git(["-c", "core.hooksPath=/dev/null", "tag", "v9", &first])
        .ok();
    repo.shim(["status"]).ok().stderr_has("refs/tags/v9");
    repo.ward(["drift", "--restore"]).ok();
    assert_eq!(repo.rev("refs/tags/v9"), None);
}

#[test]
fn a_mutating_command_first_after_drift_logs_it_once() {
    let (repo, first, second) = installed();
    take_route(&repo, "branch -f", &first);
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .ok()
        .stderr_has("refs/heads/main");
    repo.shim(["commit", "-q", "--allow-empty", "-m", "y"])
        .ok()
        .stderr_has("drift");
    let lines = drift_records(&repo);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["old"], second.as_str());
}

/// Every route under `enforce.drift = "refuse"` and `"restore"`: refused
/// until a person accepts; put back before the agent's command runs.
#[test]
fn each_route_under_refuse_and_under_restore() {
    let (probe, first, _) = installed();
    for route in routes(&probe, &first) {
        let (repo, first, second) = installed();
        repo.local_policy("[enforce]\ndrift = \"refuse\"\n");
        take_route(&repo, route, &first);
        repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has("refs/heads/main");
        assert_eq!(drift_records(&repo).len(), 1, "{route}");
        repo.ward(["drift", "--accept"]).ok();
        repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
            .ok()
            .stderr_lacks("drift");
        assert_eq!(repo.rev("main").as_deref(), Some(first.as_str()), "{route}");

        let (repo, first, second_b) = installed();
        assert_eq!(second, second_b);
        repo.local_policy("[enforce]\ndrift = \"restore\"\n");
        take_route(&repo, route, &first);
        repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
            .ok()
            .stderr_has("restored refs/heads/main");
        assert_eq!(
            repo.rev("main").as_deref(),
            Some(second.as_str()),
            "{route}"
        );
        assert_eq!(drift_records(&repo).len(), 1, "{route}");
        repo.ward(["doctor"]).stdout_has("ok   drift");
    }
}

/// A hook run notices drift too: a person's commit on another branch, with
/// no shim call at all, reports and logs it.
#[test]
fn a_hook_run_reports_and_logs_drift() {
    let (probe, first, _) = installed();
    for route in routes(&probe, &first) {
        let (repo, first, _) = installed();
        take_route(&repo, route, &first);
        repo.git(["commit", "-q", "--allow-empty", "-m", "person"])
            .ok()
            .stderr_has("drift")
            .stderr_has("refs/heads/main");
        assert_eq!(drift_records(&repo).len(), 1, "{route}");
    }
}

/// `main` on a remote, a clone with hooks installed on `feature`, and a
/// second clone beside it (`other`) that moves the remote's `main`.
fn with_upstream() -> (TestRepo, std::path::PathBuf) {
    let repo = crate::common::with_remote();
    repo.git(["branch", "feature"]).ok();
    repo.ward(["install"]).ok();
    repo.git(["checkout", "-q", "feature"]).ok();
    let remote = repo.path("remote.git");
    let other = crate::common::sibling(&repo, "other");
    repo.git([
        "clone",
        "-q",
        "-b",
        "main",
        remote.to_str().unwrap(),
        other.to_str().unwrap(),
    ])
    .ok();
    (repo, other)
}

fn upstream_commits(repo: &TestRepo, other: &std::path::Path) -> String {
    repo.git_in(other, ["commit", "-q", "--allow-empty", "-m", "upstream"])
        .ok();
    repo.git_in(other, ["push", "-q", "origin", "main"]).ok();
    repo.git_in(other, ["rev-parse", "HEAD"])
        .ok()
        .stdout
        .trim()
        .to_string()
}

/// A remote-tracking ref of a protected branch, fetched with the hooks off.
#[test]
fn a_fetch_with_hooks_off_is_drift_of_the_remote_tracking_ref() {
    let (repo, other) = with_upstream();
    let before = repo.rev("refs/remotes/origin/main").unwrap();
    let moved = upstream_commits(&repo, &other);
    repo.git(["-c", "core.hooksPath=/dev/null", "fetch", "-q", "origin"])
        .ok();
    repo.shim(["status", "-s"])
        .ok()
        .stderr_has("refs/remotes/origin/main");
    let lines = drift_records(&repo);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["old"], before.as_str());
    assert_eq!(lines[0]["new"], moved.as_str());
    repo.ward(["doctor"])
        .code(3)
        .stdout_has("refs/remotes/origin/main");
}

/// What a person does with `main` every day, with the hooks on: fetch,
/// pull, merge, push, amend, rebase, pack the refs, gc. None is drift.
#[test]
fn a_persons_everyday_moves_of_main_are_never_drift() {
    let (repo, other) = with_upstream();
    upstream_commits(&repo, &other);
    repo.git(["fetch", "-q", "origin"]).ok();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["branch", "-q", "-u", "origin/main"]).ok();
    repo.git(["merge", "-q", "--ff-only", "origin/main"]).ok();
    upstream_commits(&repo, &other);
    repo.git(["pull", "-q", "--ff-only"]).ok();
    repo.commit("local");
    repo.git([
        "commit",
        "-q",
        "--amend",
        "--allow-empty",
        "-m",
        "local, amended",
    ])
    .ok();
    upstream_commits(&repo, &other);
    repo.git(["pull", "-q", "--rebase"]).ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    repo.git(["tag", "-a", "-m", "one", "v1"]).ok();
    repo.git(["push", "-q", "origin", "v1"]).ok();
    repo.git(["pack-refs", "--all"]).ok();
    repo.git(["gc", "-q"]).ok();
    repo.git(["checkout", "-q", "feature"]).ok();
    repo.shim(["status"]).ok().stderr_lacks("drift");
    repo.shim(["commit", "-q", "--allow-empty", "-m", "agent"])
        .ok()
        .stderr_lacks("drift");
    assert!(
        drift_records(&repo).is_empty(),
        "{:?}",
        drift_records(&repo)
    );
    repo.ward(["doctor"]).stdout_has("ok   drift");
}
