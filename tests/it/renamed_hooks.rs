//! A git-ward hook that another hook manager renamed aside still guards:
//! it runs as the hook its name starts with, a name it cannot map refuses,
//! and hooks that chain each other stop after one round.

use std::path::Path;

use crate::common::TestRepo;

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

fn installed() -> TestRepo {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo
}

fn write_hook(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// What a hook manager that keeps the hook it found does (pre-commit's
/// `install`): ours moved to `<name><suffix>`, its own in place, which runs
/// ours from there with the same arguments and stdin.
fn taken_over(repo: &TestRepo, name: &str, suffix: &str) {
    let hooks = repo.dir.join(".git/hooks");
    std::fs::rename(hooks.join(name), hooks.join(format!("{name}{suffix}"))).unwrap();
    write_hook(
        &hooks.join(name),
        &format!("#!/bin/sh\nexec \"$(dirname \"$0\")/{name}{suffix}\" \"$@\"\n"),
    );
}

#[test]
fn a_renamed_pre_commit_still_refuses_an_agents_commit_on_main() {
    for suffix in [".legacy", ".old", "~"] {
        let repo = installed();
        taken_over(&repo, "pre-commit", suffix);
        let out = repo
            .git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
            .code(1);
        assert!(
            out.stderr.contains("EN-GIT-D-00"),
            "{suffix}: {}",
            out.stderr
        );
        // A person's commit passes through the same chain.
        repo.git(["commit", "-q", "--allow-empty", "-m", "ok"]).ok();
    }
}

#[test]
fn a_renamed_reference_transaction_still_guards_protected_refs() {
    let repo = installed();
    taken_over(&repo, "reference-transaction", ".old");
    let before = repo.rev("main");
    repo.git(["commit", "-q", "--allow-empty", "-m", "person"])
        .ok();
    let moved = repo.rev("main");
    assert_ne!(moved, before, "a person's commit goes through");
    let out = repo.git_env(
        ["update-ref", "refs/heads/main", before.as_deref().unwrap()],
        AGENT,
    );
    assert_ne!(out.code, Some(0));
    out.stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("main"), moved);
}

#[test]
fn a_git_ward_hook_under_a_name_it_cannot_map_refuses() {
    let repo = installed();
    let hooks = repo.dir.join(".git/hooks");
    std::fs::copy(hooks.join("pre-commit"), hooks.join("gate")).unwrap();
    let mut cmd = std::process::Command::new(hooks.join("gate"));
    repo.hermetic(&mut cmd);
    let out = crate::common::Run::from(cmd.output().unwrap());
    let out = out.code(1).stderr_has("names no hook git-ward knows");
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
}

/// git-ward installed, then a manager that keeps ours as `.legacy`, then
/// git-ward again (which keeps the manager's as `.ward-orig`): each runs
/// the other, and the round ends after git-ward's check ran once more.
#[test]
fn hooks_that_chain_each_other_run_one_round() {
    let repo = installed();
    taken_over(&repo, "pre-commit", ".legacy");
    repo.ward(["install"]).ok().stdout_has("chained");
    let hooks = repo.dir.join(".git/hooks");
    assert!(hooks.join("pre-commit.ward-orig").exists());
    repo.git(["checkout", "-q", "-b", "feature"]).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .ok();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1)
        .stderr_has("EN-GIT-D-00");
    // Ours kept as `.ward-orig` (installed twice over itself): never itself again.
    std::fs::copy(hooks.join("pre-commit"), hooks.join("pre-commit.ward-orig")).unwrap();
    repo.git(["checkout", "-q", "feature"]).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "y"], AGENT)
        .ok();
}
