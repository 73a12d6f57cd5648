//! pre-receive on a bare repository (`git ward install --server`), pushed
//! to over file://.

use std::path::PathBuf;

use crate::common::{sibling, TestRepo};

/// A working repo (human) with `origin` a bare repo that has the server hook.
fn server() -> (TestRepo, PathBuf) {
    let repo = TestRepo::new();
    repo.commit("second");
    let remote = sibling(&repo, "server.git");
    repo.git([
        "init",
        "-q",
        "--bare",
        "-b",
        "main",
        remote.to_str().unwrap(),
    ])
    .ok();
    repo.git([
        "remote",
        "add",
        "origin",
        &format!("file://{}", remote.display()),
    ])
    .ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    let mut cmd = std::process::Command::new(crate::common::ward_bin());
    repo.hermetic(&mut cmd);
    let out = cmd
        .current_dir(&remote)
        .env("WARD_REAL_GIT", crate::common::real_git())
        .args(["install", "--server"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(remote.join("hooks/pre-receive").exists());
    (repo, remote)
}

fn server_main(repo: &TestRepo, remote: &std::path::Path) -> String {
    repo.git(["--git-dir", remote.to_str().unwrap(), "rev-parse", "main"])
        .ok()
        .stdout
}

#[test]
fn no_deletion_and_no_rewrite_of_protected_refs_for_anyone() {
    let (repo, remote) = server();
    let before = server_main(&repo, &remote);
    repo.git(["push", "origin", ":main"]).code(1);
    repo.git(["push", "--no-verify", "origin", ":main"])
        .code(1)
        .stderr_has("EN-GIT-D-005");
    repo.git(["push", "--force", "origin", "HEAD~1:main"])
        .code(1)
        .stderr_has("EN-GIT-D-005");
    assert_eq!(server_main(&repo, &remote), before);
    repo.commit("third");
    repo.git(["push", "-q", "origin", "main"]).ok();
    repo.git(["push", "-q", "--force", "origin", "HEAD~1:refs/heads/feat"])
        .ok();
    repo.git(["push", "-q", "--force", "origin", "HEAD:feat"])
        .ok();
}

#[test]
fn agent_commits_reach_main_only_through_a_human_merge() {
    let (repo, remote) = server();
    repo.git(["checkout", "-q", "-b", "agent/c1"]).ok();
    repo.write("a.txt", "agent\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git(["commit", "-q", "-m", "agent work\n\nContract: c1"])
        .ok();
    repo.git(["push", "-q", "origin", "agent/c1"]).ok();
    let before = server_main(&repo, &remote);
    repo.git(["push", "origin", "agent/c1:main"])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-001] agent commit");
    assert_eq!(server_main(&repo, &remote), before);
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["merge", "-q", "--no-ff", "-m", "Merge agent/c1", "agent/c1"])
        .ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    assert_eq!(
        server_main(&repo, &remote),
        repo.rev("main").unwrap() + "\n"
    );

    // With "deny", even a merge does not let them in.
    repo.git(["checkout", "-q", "-b", "agent/c2"]).ok();
    repo.git([
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "more\n\nContract: c2",
    ])
    .ok();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["merge", "-q", "--no-ff", "-m", "Merge agent/c2", "agent/c2"])
        .ok();
    std::fs::create_dir_all(remote.join("ward")).unwrap();
    std::fs::write(
        remote.join("ward/policy.toml"),
        "[server]\nagent_commits_to_protected = \"deny\"\n",
    )
    .unwrap();
    repo.git(["push", "origin", "main"])
        .code(1)
        .stderr_has("EN-GIT-D-001");
    std::fs::write(
        remote.join("ward/policy.toml"),
        "[server]\nagent_commits_to_protected = \"allow\"\n",
    )
    .unwrap();
    repo.git(["push", "-q", "origin", "main"]).ok();
}
