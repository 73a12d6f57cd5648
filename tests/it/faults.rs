//! What a kill leaves behind, at the points `scripts/faults` found
//! (docs/faults.md): each is recoverable without a person's override.

use std::path::Path;

use crate::common::{real_git, TestRepo};

/// A `git` for an agent's git-ward (which takes the first `git` on PATH):
/// the real one, after which it kills its caller once the caller's git
/// call contains `pattern`.
fn killing_git(repo: &TestRepo, pattern: &str) -> String {
    let dir = repo.path("killing");
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "#!/bin/sh\n\"{real}\" \"$@\"\nrc=$?\ncase \"$*\" in *\"{pattern}\"*) kill -KILL $PPID ;; esac\nexit $rc\n",
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
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "agent/a",
        lane.to_str().unwrap(),
    ])
    .ok();
    let name = lane.file_name().unwrap();
    std::fs::write(
        repo.dir.join(".git/worktrees").join(name).join("locked"),
        "initializing",
    )
    .unwrap();
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
