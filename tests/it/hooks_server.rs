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

/// A person's fast-forward onto an agent's commits is refused with a hint
/// that works when followed: put main back to the server's value, merge
/// the agent branch the footer names with a merge commit, push.
#[test]
fn the_via_merge_hint_works_after_a_fast_forward() {
    let (repo, remote) = server();
    repo.git(["checkout", "-q", "-b", "agent/c1"]).ok();
    repo.git([
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "agent work\n\nContract: c1",
    ])
    .ok();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["merge", "-q", "agent/c1"]).ok();
    let old = server_main(&repo, &remote);
    let short = &old.trim()[..12];
    repo.git(["push", "origin", "main"])
        .code(1)
        .stderr_has(&format!(
            "hint: merge it with a merge commit of your own: put 'main' back to the server's value (`git reset --keep {short}`), then `git merge --no-ff agent/c1`, then push"
        ));
    repo.git(["reset", "-q", "--keep", short]).ok();
    repo.git(["merge", "-q", "--no-ff", "--no-edit", "agent/c1"])
        .ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    assert_eq!(
        server_main(&repo, &remote),
        repo.rev("main").unwrap() + "\n"
    );
}

/// A commit with `message`, made with git alone (no hooks add anything).
fn commit_with(repo: &TestRepo, message: &str) -> String {
    repo.git([
        "commit",
        "-q",
        "--allow-empty",
        "--no-verify",
        "-m",
        message,
    ])
    .ok();
    repo.rev("HEAD").unwrap()
}

/// Every spelling of the footer the commit hooks take as there already,
/// any byte in the message, and agent commits the server holds on an
/// agent branch: none reaches a protected ref without a merge.
#[test]
fn agent_commits_are_found_however_they_are_spelled_or_wherever_they_wait() {
    let (repo, remote) = server();
    let before = server_main(&repo, &remote);
    for message in [
        "w\n\ncontract:c1",
        "w\n\nCONTRACT :\tc1",
        "w\n\nSigned-off-by: A <a@b>\n  Contract: c1",
        "w \u{2} \u{1} hidden\n\nContract: c1",
    ] {
        repo.git(["checkout", "-q", "-B", "agent/c1", "main"]).ok();
        commit_with(&repo, message);
        repo.git(["push", "origin", "agent/c1:main"])
            .code(1)
            .stderr_has("EN-GIT-D-001");
    }
    // Signatures shown by `git log` on the server change nothing.
    repo.git([
        "--git-dir",
        remote.to_str().unwrap(),
        "config",
        "log.showSignature",
        "true",
    ])
    .ok();
    repo.git(["push", "origin", "agent/c1:main"])
        .code(1)
        .stderr_has("EN-GIT-D-001");
    // Pushed to its own branch first, then on to a new protected one.
    repo.git(["push", "-q", "-f", "origin", "agent/c1"]).ok();
    repo.git(["push", "origin", "agent/c1:release/1"])
        .code(1)
        .stderr_has("agent commit");
    assert_eq!(server_main(&repo, &remote), before);
    // A template that names the contract twice is found too.
    std::fs::create_dir_all(remote.join("ward")).unwrap();
    std::fs::write(
        remote.join("ward/policy.toml"),
        "[commit]\nfooter = \"Contract: {contract} (task {contract})\"\n",
    )
    .unwrap();
    repo.git(["checkout", "-q", "-B", "agent/c1", "main"]).ok();
    commit_with(&repo, "w\n\nContract: c1 (task c1)");
    repo.git(["push", "origin", "agent/c1:main"])
        .code(1)
        .stderr_has("EN-GIT-D-001");
}

/// A replacement ref would change what `main` holds for every reader, the
/// hook included; a symbolic ref on the server writes the ref it names.
#[test]
fn replacement_refs_and_symbolic_aliases_do_not_get_around_the_rules() {
    let (repo, remote) = server();
    let before = server_main(&repo, &remote);
    repo.git(["checkout", "-q", "--orphan", "other"]).ok();
    let other = commit_with(&repo, "unrelated");
    let main = repo.rev("main").unwrap();
    repo.git(["replace", &main, &other]).ok();
    repo.git(["push", "origin", &format!("refs/replace/{main}")])
        .code(1)
        .stderr_has("replacement ref");
    // Planted on the server by other means: the hook reads around it.
    repo.git(["push", "-q", "origin", "other"]).ok();
    let git_dir = remote.to_str().unwrap();
    repo.git(["--git-dir", git_dir, "replace", &main, &other])
        .ok();
    repo.git(["push", "--force", "origin", "other:main"])
        .code(1)
        .stderr_has("EN-GIT-D-005");
    repo.git(["--git-dir", git_dir, "replace", "-d", &main])
        .ok();
    assert_eq!(server_main(&repo, &remote), before);

    repo.git([
        "--git-dir",
        git_dir,
        "symbolic-ref",
        "refs/heads/trunk",
        "refs/heads/main",
    ])
    .ok();
    repo.git(["push", "--force", "origin", "other:trunk"])
        .code(1)
        .stderr_has("protected ref 'main'");
    assert_eq!(server_main(&repo, &remote), before);
}

/// The team layer comes from `main` (or the first protected branch that
/// exists): a push may not leave it invalid, and creating a branch ahead
/// of it may not swap in another policy.
#[test]
fn the_team_policy_is_neither_broken_nor_swapped_by_a_push() {
    let (repo, remote) = server();
    repo.write(".ward/policy.toml", "[branches]\nprotected = \"main\"\n");
    repo.commit("a broken policy");
    repo.git(["push", "origin", "main"])
        .code(1)
        .stderr_has("EN-GIT-E-001")
        .stderr_has("not valid");
    // Bytes that are not UTF-8 are no policy either, not one with U+FFFD.
    std::fs::write(
        repo.dir.join(".ward/policy.toml"),
        b"[branches]\nprotected = [\"main\", \"dev\xe9\"]\n",
    )
    .unwrap();
    repo.commit("a policy in Latin-1");
    repo.git(["push", "origin", "main"])
        .code(1)
        .stderr_has("EN-GIT-E-001")
        .stderr_has(":2:26: key `protected`: not UTF-8 text");
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"main\", \"master\", \"prod\"]\n",
    );
    repo.commit("the team policy");
    repo.git(["push", "-q", "origin", "main"]).ok();

    // On a server whose main line is `master`, a new `main` may not bring
    // its own policy; with the same file it may be created.
    let git_dir = remote.to_str().unwrap();
    repo.git(["push", "-q", "origin", "main:master"]).ok();
    repo.git([
        "--git-dir",
        git_dir,
        "symbolic-ref",
        "HEAD",
        "refs/heads/master",
    ])
    .ok();
    repo.git(["--git-dir", git_dir, "update-ref", "-d", "refs/heads/main"])
        .ok();
    repo.git(["checkout", "-q", "-b", "evil"]).ok();
    repo.write(".ward/policy.toml", "[branches]\nprotected = []\n");
    repo.commit("no protection");
    repo.git(["push", "origin", "evil:refs/heads/main"])
        .code(1)
        .stderr_has("in place of the one on 'master'");
    repo.git(["push", "-q", "origin", "evil~1:refs/heads/main"])
        .ok();
}

#[test]
fn a_protected_tag_is_never_moved_and_the_denial_says_so() {
    let (repo, _remote) = server();
    repo.git(["tag", "v1", "HEAD~1"]).ok();
    repo.git(["push", "-q", "origin", "v1"]).ok();
    repo.git(["tag", "-f", "v1", "HEAD"]).ok();
    repo.git(["push", "--force", "origin", "v1"])
        .code(1)
        .stderr_has("push moves protected tag 'tags/v1'")
        .stderr_has("push a new tag");
}

/// Over a file remote, `receive-pack` and its hooks inherit the pusher's
/// environment: pre-receive judges by the server's layers alone, whatever
/// user layer (`XDG_CONFIG_HOME`, `HOME`) or `WARD_POLICY` that names.
#[test]
fn pre_receive_reads_no_policy_the_pusher_names() {
    let (repo, remote) = server();
    let before = server_main(&repo, &remote);
    let config = sibling(&repo, "pusher-config");
    std::fs::create_dir_all(config.join("git-ward")).unwrap();
    let lax = "[branches]\nprotected = []\n[server]\nagent_commits_to_protected = \"allow\"\n";
    std::fs::write(config.join("git-ward/policy.toml"), lax).unwrap();
    let home = sibling(&repo, "pusher-home");
    std::fs::create_dir_all(home.join(".config/git-ward")).unwrap();
    std::fs::write(home.join(".config/git-ward/policy.toml"), lax).unwrap();
    let env_policy = sibling(&repo, "pusher-policy.toml");
    std::fs::write(&env_policy, lax).unwrap();
    repo.write("a.txt", "agent\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git(["commit", "-q", "-m", "agent work\n\nContract: c1"])
        .ok();
    let env: &[(&str, &str)] = &[
        ("XDG_CONFIG_HOME", config.to_str().unwrap()),
        ("WARD_POLICY", env_policy.to_str().unwrap()),
        ("WARD_SYSTEM_POLICY", env_policy.to_str().unwrap()),
    ];
    repo.git_env(["push", "origin", "main"], env)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    let home_env: &[(&str, &str)] = &[("HOME", home.to_str().unwrap()), ("XDG_CONFIG_HOME", "")];
    repo.git_env(["push", "origin", "main"], home_env).code(1);
    repo.git_env(["push", "origin", ":main"], env).code(1);
    assert_eq!(server_main(&repo, &remote), before);
}

/// A pusher's `WARD_REAL_GIT` names no git for pre-receive: a program
/// that answers nothing would otherwise hide every footer.
#[test]
fn pre_receive_runs_no_git_the_pusher_names() {
    let (repo, remote) = server();
    let before = server_main(&repo, &remote);
    let fake = sibling(&repo, "fake-git");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    repo.write("a.txt", "agent\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git(["commit", "-q", "-m", "agent work\n\nContract: c1"])
        .ok();
    repo.git_env(
        ["push", "origin", "main"],
        &[("WARD_REAL_GIT", fake.to_str().unwrap())],
    )
    .code(1)
    .stderr_has("EN-GIT-D-001");
    assert_eq!(server_main(&repo, &remote), before);
}

/// A repository with git-ward's hooks that receives a push over a local
/// path: its reference-transaction runs inside `receive-pack` with the
/// pusher's environment, and judges by the repository's own layers: not
/// an agent's user layer (`XDG_CONFIG_HOME`, `HOME`), not a person's
/// `WARD_POLICY` or `WARD_SYSTEM_POLICY`.
#[test]
fn a_hook_inside_receive_pack_reads_no_policy_the_pusher_names() {
    let target = TestRepo::new();
    target.ward(["install"]).ok();
    target.git(["switch", "-q", "-c", "other"]).ok();
    let before = target.rev("main").unwrap();
    let clone = sibling(&target, "pusher");
    let at = clone.to_str().unwrap();
    target.git(["clone", "-q", ".", at]).ok();
    target
        .git(["-C", at, "commit", "-q", "--allow-empty", "-m", "x"])
        .ok();
    let lax = "[branches]\nprotected = []\n";
    let config = sibling(&target, "pusher-config");
    std::fs::create_dir_all(config.join("git-ward")).unwrap();
    std::fs::write(config.join("git-ward/policy.toml"), lax).unwrap();
    let home = sibling(&target, "pusher-home");
    std::fs::create_dir_all(home.join(".config/git-ward")).unwrap();
    std::fs::write(home.join(".config/git-ward/policy.toml"), lax).unwrap();
    let file = sibling(&target, "pusher-policy.toml");
    std::fs::write(&file, lax).unwrap();
    let push = ["-C", at, "push", "-q", "origin", "HEAD:main"];
    let agent: &[(&str, &str)] = &[
        ("WARD_AGENT", "1"),
        ("XDG_CONFIG_HOME", config.to_str().unwrap()),
    ];
    refused(target.git_env(push, agent));
    let agent_home: &[(&str, &str)] = &[
        ("WARD_AGENT", "1"),
        ("HOME", home.to_str().unwrap()),
        ("XDG_CONFIG_HOME", ""),
    ];
    refused(target.git_env(push, agent_home));
    // For people too, where the repository's rules bind them.
    target.local_policy("[enforce]\nactors = \"everyone\"\n");
    let person: &[(&str, &str)] = &[
        ("WARD_POLICY", file.to_str().unwrap()),
        ("WARD_SYSTEM_POLICY", file.to_str().unwrap()),
    ];
    refused(target.git_env(push, person));
    assert_eq!(target.rev("main"), Some(before));
}

/// The push failed, refused by the receiving repository's hook.
#[track_caller]
fn refused(run: crate::common::Run) {
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("EN-GIT-D-001"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("receive-pack moves protected ref 'main'"),
        "{}",
        run.stderr
    );
}
