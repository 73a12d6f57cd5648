//! What a kill leaves behind, at the points `scripts/faults` found
//! (docs/faults.md): each is recoverable without a person's override.

use std::path::Path;

use crate::common::{real_git, TestRepo};

/// A `git` for an agent's git-ward (which takes the first `git` on PATH):
/// the real one, after which it kills its caller once the caller's git
/// call contains `pattern`.
fn killing_git(repo: &TestRepo, pattern: &str) -> String {
    wrapping_git(
        repo,
        &format!("\"$REAL\" \"$@\"\nrc=$?\ncase \"$*\" in *\"{pattern}\"*) kill -KILL $PPID ;; esac\nexit $rc\n"),
    )
}

/// A PATH whose first `git` runs `body` (`$REAL` is the real git).
fn wrapping_git(repo: &TestRepo, body: &str) -> String {
    let dir = repo.path("killing");
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "#!/bin/sh\nREAL=\"{real}\"\n{body}",
        real = real_git().display()
    );
    let path = dir.join("git");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap())
}

#[test]
fn a_checkpoint_killed_once_its_ref_is_written_is_still_git_wards() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.write("README", "draft\n");
    let path = killing_git(&repo, "fast-import");
    let killed = repo.ward_env(
        ["checkpoint", "-m", "cut short"],
        &[
            ("PATH", path.as_str()),
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "fault"),
        ],
    );
    assert_eq!(killed.output.status.code(), None, "{}", killed.stderr);
    assert!(repo.rev("refs/ward/checkpoints/chk-fault-1").is_some());
    repo.write("README", "later\n");
    let plan = repo.ward(["rollback", "--dry-run", "chk-fault-1"]).ok();
    assert!(
        !plan.stdout.contains("no record of making"),
        "{}",
        plan.stdout
    );
    repo.ward(["rollback", "--yes", "chk-fault-1"]).ok();
    assert_eq!(repo.read("README").as_deref(), Some("draft\n"));
}

#[test]
fn a_lane_whose_worktree_add_was_cut_short_is_made_again() {
    let repo = TestRepo::new();
    repo.write("dir/file", "kept\n")
        .write("dir/other", "also\n");
    repo.commit("files");
    let lane = repo.path("repo.lanes/a");
    // What a `git worktree add` killed in its checkout leaves: git's
    // "initializing" lock still on, a file not yet written.
    interrupted_worktree_add(&repo, &lane);
    std::fs::remove_dir_all(lane.join("dir")).unwrap();
    let run = repo
        .ward([
            "run",
            "--contract",
            "a",
            "--worktree",
            "--",
            "sh",
            "-c",
            "git add -A && git commit -q -m work --allow-empty",
        ])
        .ok()
        .stderr_has("was left half-made: made again");
    assert_eq!(
        std::fs::read_to_string(lane.join("dir/file"))
            .ok()
            .as_deref(),
        Some("kept\n"),
        "{}",
        run.stderr
    );
    // Its commit deletes nothing the checkout had not written yet.
    let changed = repo
        .git(["diff", "--name-only", "main", "agent/a"])
        .ok()
        .stdout;
    assert_eq!(changed, "", "the lane's commit changed files");
    assert!(!Path::new(&repo.dir.join(".git/worktrees/a/locked")).exists());
}

#[test]
fn an_audit_log_that_cannot_be_written_is_said_once_per_command() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    // A file where the audit directory belongs: no process can log.
    std::fs::create_dir_all(repo.dir.join(".git/ward")).unwrap();
    std::fs::write(repo.dir.join(".git/ward/audit"), "").unwrap();
    repo.write("README", "more\n");
    let run = repo
        .shim_env(
            ["commit", "-q", "-a", "-m", "work"],
            &[("WARD_AGENT", "1"), ("WARD_CONTRACT", "fault")],
        )
        .ok();
    assert_eq!(
        run.stderr.matches("cannot write the audit log").count(),
        1,
        "{}",
        run.stderr
    );
    assert_eq!(repo.branch(), "agent/fault");
}

#[test]
fn doctor_fix_removes_the_locks_of_a_killed_git_and_keeps_a_running_ones() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let lock = repo.dir.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    std::fs::write(repo.dir.join(".git/refs/heads/main.lock"), "").unwrap();
    repo.git(["commit", "-q", "--allow-empty", "-m", "blocked"])
        .code(128)
        .stderr_has("index.lock");
    // A git at work in the repository: its locks are live.
    let mut running = repo.live_git();
    let kept = repo.ward(["doctor", "--fix"]).ok();
    assert!(!kept.stdout.contains("killed git"), "{}", kept.stdout);
    assert!(lock.exists());
    drop(running.stdin.take());
    running.wait().unwrap();
    repo.ward(["doctor"])
        .stdout_has("left by a killed git")
        .stdout_has("index.lock");
    assert!(lock.exists(), "doctor without --fix changes nothing");
    repo.ward(["doctor", "--fix"])
        .stdout_has("removed what a killed git left");
    assert!(!lock.exists());
    assert!(!repo.dir.join(".git/refs/heads/main.lock").exists());
    repo.git(["commit", "-q", "--allow-empty", "-m", "unblocked"])
        .ok();
}

#[test]
fn a_reset_killed_halfway_after_its_checkpoint_is_undone() {
    let repo = TestRepo::new();
    repo.write("a", "one\n").write("b", "two\n");
    repo.commit("files");
    repo.ward(["install"]).ok();
    repo.git(["checkout", "-q", "-b", "agent/fault"]).ok();
    repo.write("a", "work a\n").write("b", "work b\n");
    // git's reset writes `a` back, then the whole command is killed while
    // git holds the index's lock: the shim never writes its line to the
    // log, and the lock stays.
    let path = wrapping_git(
        &repo,
        "case \"$*\" in \"reset -q --hard\") \"$REAL\" checkout -- a; : > .git/index.lock; kill -KILL $PPID; exit 1;; esac\nexec \"$REAL\" \"$@\"\n",
    );
    let killed = repo.shim_env(
        ["reset", "-q", "--hard"],
        &[
            ("PATH", &format!("{}:{path}", repo.shim_dir.display())),
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "fault"),
        ],
    );
    assert_eq!(killed.code, None, "{}", killed.stderr);
    assert_eq!(repo.read("a").as_deref(), Some("one\n"));
    // The one command: it clears the lock, then undoes.
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("Removed the lock files a killed git left")
        .stdout_has("Undo `git reset`");
    assert!(!repo.dir.join(".git/index.lock").exists());
    assert_eq!(repo.read("a").as_deref(), Some("work a\n"));
    assert_eq!(repo.read("b").as_deref(), Some("work b\n"));
}

#[test]
fn doctor_fix_removes_a_worktree_a_killed_worktree_add_left() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let lane = repo.path("lane");
    // What `git worktree add` killed before its checkout leaves: its
    // "initializing" lock, HEAD not yet written.
    let admin = interrupted_worktree_add(&repo, &lane);
    std::fs::write(admin.join("HEAD"), format!("{}\n", "0".repeat(40))).unwrap();
    repo.git(["fsck", "--no-progress"]).code(8);
    repo.ward(["doctor"]).ok().stdout_has("(half made)");
    repo.ward(["doctor", "--fix"])
        .ok()
        .stdout_has("removed what a killed git left");
    repo.git(["fsck", "--strict", "--no-progress"]).ok();
    assert!(!lane.exists());
}

/// A worktree of branch `agent/a` at `lane` that git still marks as being
/// made (its "initializing" lock, which `git worktree add` removes last):
/// its administrative directory under `.git/worktrees/`.
fn interrupted_worktree_add(repo: &TestRepo, lane: &std::path::Path) -> std::path::PathBuf {
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "agent/a",
        lane.to_str().unwrap(),
    ])
    .ok();
    let admin = repo
        .dir
        .join(".git/worktrees")
        .join(lane.file_name().unwrap());
    std::fs::write(admin.join("locked"), "initializing").unwrap();
    admin
}
