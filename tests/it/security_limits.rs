//! The limits SECURITY.md states, each shown: what git-ward cannot stop.
//! These pass today because the limit is real; a test that starts failing
//! means the limit moved, and SECURITY.md with it.

use crate::common::{sibling, TestRepo};

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

/// A repository on `main` with git-ward's hooks installed.
fn installed() -> TestRepo {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo
}

/// What each limit is measured against: the hooks refuse the plain move.
fn hooks_refuse_the_plain_move(repo: &TestRepo) {
    let main = repo.rev("main");
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1);
    assert_eq!(repo.rev("main"), main);
}

#[test]
fn a_process_that_skips_the_shim_and_switches_hooks_off_moves_main() {
    let repo = installed();
    hooks_refuse_the_plain_move(&repo);
    let main = repo.rev("main");
    repo.git_env(
        [
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        AGENT,
    )
    .ok();
    assert_ne!(repo.rev("main"), main);
    // The same through the shim is refused.
    repo.shim_env(
        [
            "-c",
            "core.hooksPath=/dev/null",
            "commit",
            "--allow-empty",
            "-m",
            "y",
        ],
        &[("WARD_CONTRACT", "c1")],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004");
}

#[test]
fn a_common_dir_of_links_around_the_shim_runs_no_hook() {
    let repo = installed();
    let farm = repo.path("farm");
    std::fs::create_dir_all(farm.join("hooks")).unwrap();
    for name in ["refs", "objects", "config", "logs"] {
        std::os::unix::fs::symlink(repo.dir.join(".git").join(name), farm.join(name)).unwrap();
    }
    let main = repo.rev("main");
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[
            ("WARD_AGENT", "1"),
            ("GIT_COMMON_DIR", farm.to_str().unwrap()),
        ],
    )
    .ok();
    assert_ne!(repo.rev("main"), main);
}

#[test]
fn hooks_written_by_hand_are_gone_for_every_git_after() {
    let repo = installed();
    hooks_refuse_the_plain_move(&repo);
    for hook in [
        "pre-commit",
        "reference-transaction",
        "commit-msg",
        "prepare-commit-msg",
    ] {
        std::fs::remove_file(repo.dir.join(".git/hooks").join(hook)).unwrap();
    }
    let main = repo.rev("main");
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .ok();
    assert_ne!(repo.rev("main"), main);
    repo.ward(["doctor"]).stdout_has("FAIL");
}

#[test]
fn a_writer_that_runs_no_hooks_moves_main() {
    let repo = installed();
    repo.git(["commit", "-q", "--allow-empty", "-m", "second"])
        .ok();
    let first = repo.rev("main~1").unwrap();
    // What a library that writes refs itself does: the ref file, by hand.
    std::fs::write(repo.dir.join(".git/refs/heads/main"), format!("{first}\n")).unwrap();
    assert_eq!(repo.rev("main"), Some(first));
}

#[test]
fn a_remote_without_the_server_hook_takes_what_skips_the_local_hooks() {
    let repo = installed();
    let remote = repo.bare_at(sibling(&repo, "remote.git"));
    repo.git(["push", "-q", remote.to_str().unwrap(), "main"])
        .ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "by the agent"])
        .ok();
    let pushed = repo.rev("main").unwrap();
    repo.git_env(
        [
            "push",
            "-q",
            "--no-verify",
            remote.to_str().unwrap(),
            "main",
        ],
        AGENT,
    )
    .ok();
    let there = repo
        .git(["--git-dir", remote.to_str().unwrap(), "rev-parse", "main"])
        .ok()
        .stdout;
    assert_eq!(there.trim(), pushed);
}

#[test]
fn a_commit_made_around_the_shim_without_commit_msg_has_no_footer() {
    let repo = installed();
    repo.git(["checkout", "-qb", "agent/c1"]).ok();
    let made = repo
        .git_env(
            ["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "no hook"],
            &[("WARD_AGENT", "1"), ("WARD_CONTRACT", "c1")],
        )
        .ok()
        .stdout;
    let message = repo
        .git(["log", "-1", "--format=%B", made.trim()])
        .ok()
        .stdout;
    assert!(!message.contains("Contract:"), "{message}");
    // Through the shim it is refused, with `git commit` as the way.
    repo.shim_env(
        ["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "no hook"],
        &[("WARD_CONTRACT", "c1")],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004")
    .stderr_has("make them with `git commit`");
}

#[test]
fn a_user_policy_layer_in_an_agents_own_home_is_read() {
    let repo = installed();
    let home = repo.path("agent-home");
    let layer = home.join(".config/git-ward");
    std::fs::create_dir_all(&layer).unwrap();
    std::fs::write(layer.join("policy.toml"), "[branches]\nprotected = []\n").unwrap();
    let shown = repo
        .ward_env(
            ["policy", "show", "--origin"],
            &[
                ("WARD_AGENT", "1"),
                ("XDG_CONFIG_HOME", layer.parent().unwrap().to_str().unwrap()),
            ],
        )
        .ok()
        .stdout;
    assert!(shown.contains("protected = []"), "{shown}");
}
