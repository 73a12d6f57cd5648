//! Sessions and lanes: `git ward run`, leases,
//! EN-GIT-D-007, `git ward sessions`, the session id in the audit log.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{sibling, Run, TestRepo};

/// Where `run --worktree` makes contract `c`'s lane by default.
fn lane(repo: &TestRepo, c: &str) -> PathBuf {
    repo.tmp.path().join("repo.lanes").join(c)
}

/// The lease file of a worktree's git dir.
fn lease_of(repo: &TestRepo, dir: &Path) -> PathBuf {
    let git_dir = repo
        .git_in(dir, ["rev-parse", "--absolute-git-dir"])
        .ok()
        .stdout;
    PathBuf::from(git_dir.trim()).join("ward").join("lease")
}

/// Starts `git ward run <args> -- sleep 60` and waits for its lease.
fn session(repo: &TestRepo, args: &[&str], lease: &Path) -> Child {
    let mut all: Vec<&str> = vec!["run"];
    all.extend_from_slice(args);
    all.extend(["--", "sleep", "60"]);
    let child = repo
        .ward_command(all)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start git ward run");
    let start = Instant::now();
    while !lease.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no lease at {}",
            lease.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

fn stop(mut child: Child, signal: i32) -> std::process::ExitStatus {
    // SAFETY: a signal to a child this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    child.wait().expect("wait for git ward run")
}

/// `git ward run <options> -- sh -c <script>`.
fn run_sh(repo: &TestRepo, options: &[&str], script: &str) -> Run {
    let mut args = vec!["run"];
    args.extend_from_slice(options);
    args.extend(["--", "sh", "-c", script]);
    repo.ward(args)
}

/// The JSON summary `run --json` prints last on stderr.
fn summary(run: &Run) -> serde_json::Value {
    let last = run.stderr.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stderr))
}

#[test]
fn run_worktree_makes_the_lane_on_first_use_and_reuses_it_after() {
    let repo = TestRepo::new();
    let first = run_sh(
        &repo,
        &["--contract", "a", "--worktree"],
        "pwd; git rev-parse --abbrev-ref HEAD; echo $WARD_CONTRACT; command -v git",
    )
    .ok()
    .stderr_has("lane made")
    .stderr_has("hooks installed");
    let lines: Vec<&str> = first.stdout.lines().collect();
    let made = std::fs::canonicalize(lane(&repo, "a")).unwrap();
    assert_eq!(Path::new(lines[0]), made, "{}", first.stdout);
    assert_eq!(lines[1], "agent/a");
    assert_eq!(lines[2], "a");
    assert!(
        lines[3].ends_with("git-ward/shim/git"),
        "the shim first on PATH: {}",
        lines[3]
    );
    repo.write("main-only", "x\n");
    let again = repo
        .ward([
            "run",
            "--contract",
            "a",
            "--worktree",
            "--from",
            "main",
            "--",
            "pwd",
        ])
        .ok()
        .stderr_has("lane reused")
        .stderr_lacks("lane made");
    assert_eq!(Path::new(again.stdout.trim()), made);
    let listed = repo.git(["worktree", "list", "--porcelain"]).ok().stdout;
    assert_eq!(listed.matches("worktree ").count(), 2, "{listed}");
    // No lease once the session is over.
    assert!(!lease_of(&repo, &made).exists());
    // A lane deleted by hand is made again on its branch.
    std::fs::remove_dir_all(&made).unwrap();
    repo.ward(["run", "--contract", "a", "--worktree", "--", "true"])
        .ok()
        .stderr_has("lane made");
    assert_eq!(
        repo.git_in(&made, ["rev-parse", "--abbrev-ref", "HEAD"])
            .ok()
            .stdout
            .trim(),
        "agent/a"
    );
}

#[test]
fn exit_status_and_signals_pass_through() {
    let repo = TestRepo::new();
    run_sh(&repo, &["--contract", "a"], "exit 7").code(7);
    let killed = run_sh(&repo, &["--contract", "a"], "kill -TERM $$");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        killed.output.status.signal(),
        Some(libc::SIGTERM),
        "{}",
        killed.stderr
    );
    assert!(
        killed.stderr.contains("killed by signal 15"),
        "{}",
        killed.stderr
    );
    // No contract anywhere: EN-GIT-I-001.
    repo.ward(["run", "--", "true"])
        .code(2)
        .stderr_has("EN-GIT-I-001");
    // With --json, as one JSON object on stderr; stdout stays the command's.
    let run = repo.ward(["run", "--json", "--", "true"]).code(2);
    assert_eq!(run.stdout, "");
    let err: serde_json::Value = serde_json::from_str(run.stderr.trim()).unwrap();
    assert_eq!(err["code"], "EN-GIT-I-001", "{err}");
    // The command's stdout is its own; the summary follows on stderr.
    let run = run_sh(&repo, &["--json", "--contract", "a"], "echo out");
    assert_eq!(run.stdout, "out\n");
    assert_eq!(summary(&run)["exit_code"], 0);
}

#[test]
fn another_contract_changes_nothing_in_a_leased_worktree() {
    let repo = TestRepo::new();
    let wt = lane(&repo, "a");
    let lease = {
        repo.ward(["run", "--contract", "a", "--worktree", "--", "true"])
            .ok();
        lease_of(&repo, &wt)
    };
    std::fs::write(wt.join("work.txt"), "in flight\n").unwrap();
    let owner = session(&repo, &["--contract", "a", "--worktree"], &lease);
    let before = repo.git_in(&wt, ["rev-parse", "HEAD"]).ok().stdout;
    let b = &[("WARD_CONTRACT", "b")];
    for args in [
        &["add", "work.txt"][..],
        &["commit", "--allow-empty", "-m", "intruder"],
        &["reset", "--hard"],
        &["clean", "-fd"],
        &["switch", "-c", "other"],
    ] {
        repo.shim_in(&wt, args, b)
            .code(1)
            .stderr_has("EN-GIT-D-007")
            .stderr_has("contract 'a'")
            .stderr_has("git ward run --worktree");
    }
    // Reads stay allowed; the session's own contract may work.
    repo.shim_in(&wt, ["status", "--short"], b).ok();
    repo.shim_in(&wt, ["add", "work.txt"], &[("WARD_CONTRACT", "a")])
        .ok();
    // An agent that skips the shim meets the pre-commit hook.
    repo.git_env(["-C", wt.to_str().unwrap(), "commit", "-m", "x"], b)
        .code(1)
        .stderr_has("EN-GIT-D-007");
    // Nor is the lane removed or moved under its session.
    let path = wt.to_str().unwrap();
    repo.shim_env(["worktree", "remove", "--force", path], b)
        .code(1)
        .stderr_has("EN-GIT-D-007");
    let moved = sibling(&repo, "moved");
    repo.shim_env(["worktree", "move", path, moved.to_str().unwrap()], b)
        .code(1)
        .stderr_has("EN-GIT-D-007");
    let undo = repo
        .ward_command(["undo", "--yes"])
        .current_dir(&wt)
        .env("WARD_CONTRACT", "b")
        .output()
        .expect("run undo");
    Run::from(undo).code(1).stderr_has("EN-GIT-D-007");
    // A second session there is refused too.
    repo.ward(["run", "--contract", "a", "--worktree", "--", "true"])
        .code(1)
        .stderr_has("EN-GIT-D-007");
    assert_eq!(repo.git_in(&wt, ["rev-parse", "HEAD"]).ok().stdout, before);
    assert_eq!(
        std::fs::read_to_string(wt.join("work.txt")).unwrap(),
        "in flight\n"
    );
    // A person is warned, never refused.
    repo.git_in(&wt, ["commit", "-q", "-m", "by a person"])
        .ok()
        .stderr_has("leased by a live session");
    // And where git moves HEAD or its branch, with no hook before it
    // (`reset`), after the fact.
    repo.git_in(&wt, ["reset", "-q", "--hard", "HEAD~1"])
        .ok()
        .stderr_has("ward: warning: worktree")
        .stderr_has("leased by a live session of contract 'a'");
    assert_eq!(repo.git_in(&wt, ["rev-parse", "HEAD"]).ok().stdout, before);
    repo.git_in(&wt, ["status"]).ok().stderr_lacks("leased");
    // Switching branches moves HEAD alone, which gits from 2.46 on tell the hook.
    let version = repo.git(["version"]).ok().stdout;
    let numbers: Vec<u32> = version
        .trim()
        .trim_start_matches("git version ")
        .split('.')
        .take(2)
        .filter_map(|n| n.parse().ok())
        .collect();
    let reports_head = numbers >= vec![2, 46];
    let switched = repo
        .git_in(&wt, ["checkout", "-q", "-b", "by-a-person"])
        .ok();
    assert_eq!(
        switched.stderr.contains("leased by a live session"),
        reports_head,
        "{version}: {}",
        switched.stderr
    );
    repo.git_in(&wt, ["checkout", "-q", "agent/a"]).ok();
    stop(owner, libc::SIGTERM);
    assert!(!lease.exists(), "the lease goes with its session");
    repo.shim_in(&wt, ["commit", "--allow-empty", "-m", "later"], b)
        .ok();
}

#[test]
fn a_stale_lease_is_taken_over_by_the_next_session() {
    let repo = TestRepo::new();
    let lease = lease_of(&repo, &repo.dir);
    let killed = session(&repo, &["--contract", "a"], &lease);
    let status = stop(killed, libc::SIGKILL);
    assert!(!status.success());
    assert!(lease.exists(), "a killed session leaves its lease");
    let (run, value) = {
        let run = repo.ward(["sessions", "--json"]).ok();
        let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        (run, v)
    };
    assert_eq!(value["worktrees"][0]["lease"], "stale", "{}", run.stdout);
    repo.shim_env(
        ["commit", "--allow-empty", "-m", "free"],
        &[("WARD_CONTRACT", "b")],
    )
    .ok();
    repo.ward(["run", "--contract", "b", "--", "true"])
        .ok()
        .stderr_has("took over the stale lease of contract 'a'");
}

#[test]
fn sessions_json_reports_each_field_and_audit_lines_carry_the_session() {
    let repo = TestRepo::new();
    let run = run_sh(
        &repo,
        &["--json", "--contract", "a", "--worktree"],
        "echo 1 > one; git add one; git commit -q -m one; echo 2 > two",
    )
    .ok();
    let sum = summary(&run);
    assert_eq!(sum["branch"], "agent/a");
    assert_eq!(sum["commits"], 1);
    assert_eq!(sum["uncommitted"], 1);
    assert_eq!(sum["denials"], 0);
    assert_eq!(sum["exit_code"], 0);
    let id = sum["session"].as_str().unwrap().to_string();
    let records = repo.audit_records(&["--session", &id]);
    assert!(
        records.iter().any(|r| r["operation"] == "git.commit"),
        "{records:?}"
    );
    assert!(records.iter().all(|r| r["session_id"] == id.as_str()));
    let wt = lane(&repo, "a");
    let owner = session(
        &repo,
        &["--contract", "a", "--worktree"],
        &lease_of(&repo, &wt),
    );
    let out = repo.ward(["sessions", "--json"]).ok().stdout;
    repo.ward(["sessions"])
        .ok()
        .stdout_has("agent/a")
        .stdout_has("live lease");
    stop(owner, libc::SIGTERM);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let rows = v["worktrees"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{out}");
    let (main, a) = (&rows[0], &rows[1]);
    assert_eq!(main["branch"], "main");
    assert_eq!(main["lease"], "none");
    assert_eq!(a["contract"], "a");
    assert_eq!(a["branch"], "agent/a");
    assert_eq!(a["lease"], "live");
    assert!(
        a["pid"].as_u64().is_some() && a["age_seconds"].as_u64().is_some(),
        "{a}"
    );
    assert_eq!(a["uncommitted"], 1);
    assert_eq!(a["ahead"], 1);
    assert_eq!(a["last_command"]["operation"], "git.commit");
}

#[test]
fn removing_a_dirty_lane_from_another_is_undone_byte_for_byte() {
    let repo = TestRepo::new();
    run_sh(
        &repo,
        &["--contract", "a", "--worktree"],
        "printf 'x\\r\\n' > new.bin; echo changed >> README",
    )
    .ok();
    repo.ward(["run", "--contract", "b", "--worktree", "--", "true"])
        .ok();
    let (a, b) = (lane(&repo, "a"), lane(&repo, "b"));
    let before = repo.git_in(&a, ["status", "--porcelain"]).ok().stdout;
    let env = &[("WARD_CONTRACT", "b")];
    repo.shim_in(
        &b,
        ["worktree", "remove", "--force", a.to_str().unwrap()],
        env,
    )
    .ok();
    assert!(!a.exists());
    repo.ward_command(["undo", "--yes"])
        .current_dir(&b)
        .env("WARD_CONTRACT", "b")
        .output()
        .map(Run::from)
        .unwrap()
        .ok();
    assert_eq!(std::fs::read(a.join("new.bin")).unwrap(), b"x\r\n");
    assert!(std::fs::read_to_string(a.join("README"))
        .unwrap()
        .ends_with("changed\n"));
    assert_eq!(
        repo.git_in(&a, ["status", "--porcelain"]).ok().stdout,
        before
    );
}
