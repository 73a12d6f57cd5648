//! Commands that write a file over whatever is there (`diff --output`,
//! `archive -o`): over an agent's work they are checkpointed first and
//! undone after; into the git directory, where hooks and policy live, they
//! are refused.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a\n").commit("a");
    repo.write("a.txt", "hours of work\n")
        .write("notes.txt", "untracked notes\n");
    repo
}

#[test]
fn a_file_written_over_work_is_checkpointed_and_undone() {
    for args in [
        &["diff", "--output=a.txt"][..],
        &["log", "-1", "--output", "notes.txt"],
        &["archive", "-o", "notes.txt", "HEAD"],
        &["blame", "--output=notes.txt", "a.txt"],
    ] {
        let repo = agent_repo();
        let before = repo.state();
        repo.shim_env(args, C1).ok();
        assert_ne!(repo.state(), before, "{args:?} wrote nothing");
        assert_eq!(repo.checkpoint_count(), 1, "{args:?}");
        repo.ward(["undo", "--yes"]).ok();
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

#[test]
fn a_new_file_or_one_outside_the_tree_takes_no_checkpoint() {
    let repo = agent_repo();
    let outside = repo.path("out.diff");
    repo.shim_env(["diff", "--output=new.diff"], C1).ok();
    repo.shim_env(["diff", &format!("--output={}", outside.display())], C1)
        .ok();
    assert!(repo.read("new.diff").is_some());
    assert!(outside.exists());
    assert_eq!(repo.checkpoint_count(), 0);
}

#[test]
fn a_file_written_into_the_git_directory_is_refused() {
    let repo = agent_repo();
    let policy = repo.dir.join(".git/ward/policy.toml");
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::os::unix::fs::symlink(&hook, repo.dir.join("innocent.txt")).unwrap();
    std::fs::create_dir_all(repo.dir.join("sub")).unwrap();
    let sub = repo.dir.join("sub");
    for (dir, args) in [
        (
            &repo.dir,
            vec![
                "log",
                "-1",
                "--format=[branches]%nprotected = []",
                "--output=.git/ward/policy.toml",
            ],
        ),
        // Through a symbolic link whose target does not exist yet.
        (&repo.dir, vec!["diff", "--output=innocent.txt"]),
        (&sub, vec!["show", "--output=../.git/config"]),
        (&sub, vec!["archive", "-o", "../.git/hooks/x", "HEAD"]),
    ] {
        repo.shim_in(dir, &args, C1)
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has("the git directory")
            .stderr_has("hint:");
    }
    assert!(!policy.exists());
    assert!(!hook.exists());
    assert!(!repo.dir.join(".git/hooks/x").exists());
    assert!(repo
        .git(["config", "--list", "--local"])
        .ok()
        .stdout
        .contains("core.bare"));
}
