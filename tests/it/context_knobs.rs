//! Test and debugging knobs are inert for agents:
//! a variable that moves a policy layer or the real git changes nothing
//! for an agent, through the shim or through the hooks of a git the agent
//! runs by path; for a person it still works.

use crate::common::TestRepo;

/// A repository on `main` with hooks installed.
fn installed() -> TestRepo {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo
}

/// A system policy that protects nothing and lets agents do anything.
fn open_policy(repo: &TestRepo) -> String {
    let path = repo.path("open.toml");
    std::fs::write(
        &path,
        "[branches]\nprotected = []\n[enforce]\nallow_no_verify = true\n[capabilities]\nensure_working_branch = false\n",
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_system_policy_an_agent_names_moves_nothing_through_the_shim() {
    let repo = installed();
    let open = open_policy(&repo);
    let main = repo.rev("main");
    repo.write("README", "changed\n");
    repo.shim_env(
        ["commit", "-qam", "x"],
        &[("WARD_SYSTEM_POLICY", open.as_str())],
    )
    .code(1)
    .stderr_has("ward: denied [EN-GIT-D-00");
    assert_eq!(repo.rev("main"), main);
}

#[test]
fn a_system_policy_an_agent_names_moves_nothing_through_the_hooks() {
    let repo = installed();
    let open = open_policy(&repo);
    let main = repo.rev("main");
    repo.write("README", "changed\n");
    // The real git by path: only the hooks see this agent.
    for marker in [("WARD_AGENT", "1"), ("CLAUDECODE", "1")] {
        let run = repo.git_env(
            ["commit", "-qam", "x"],
            &[("WARD_SYSTEM_POLICY", open.as_str()), marker],
        );
        assert_ne!(run.code, Some(0), "{marker:?}: {}", run.stderr);
        assert_eq!(repo.rev("main"), main, "{marker:?}");
    }
    // A policy-listed marker counts as well, read from the real layers.
    let user = repo.home.join(".config/git-ward");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("policy.toml"),
        "[enforce]\nagent_env = [\"MY_HARNESS\"]\n",
    )
    .unwrap();
    let run = repo.git_env(
        ["commit", "-qam", "x"],
        &[("WARD_SYSTEM_POLICY", open.as_str()), ("MY_HARNESS", "1")],
    );
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(repo.rev("main"), main);
}

#[test]
fn a_person_may_still_name_a_system_policy() {
    let repo = installed();
    let open = open_policy(&repo);
    repo.write("README", "changed\n");
    repo.git_env(
        ["commit", "-qam", "x"],
        &[("WARD_SYSTEM_POLICY", open.as_str())],
    )
    .ok();
    let shown = repo
        .ward_env(
            ["policy", "show", "--origin"],
            &[("WARD_SYSTEM_POLICY", open.as_str())],
        )
        .ok()
        .stdout;
    assert!(shown.contains("protected = []"), "{shown}");
    // The same request from an agent shows the built-in layer.
    let shown = repo
        .ward_env(
            ["policy", "show", "--origin"],
            &[("WARD_SYSTEM_POLICY", open.as_str()), ("WARD_AGENT", "1")],
        )
        .ok()
        .stdout;
    assert!(!shown.contains("protected = []"), "{shown}");
}

#[test]
fn a_real_git_an_agent_names_is_not_run() {
    use std::os::unix::fs::PermissionsExt;
    let repo = installed();
    repo.git(["checkout", "-qb", "agent/c1"]).ok();
    // A git that leaves a mark and switches the hooks off.
    let fake = repo.path("fake-git");
    let mark = repo.path("fake-ran");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\ntouch {}\nexec {} -c core.hooksPath=/dev/null \"$@\"\n",
            mark.display(),
            crate::common::real_git().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let fake = fake.to_str().unwrap();
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_REAL_GIT", fake)],
    )
    .ok();
    repo.ward_env(
        ["checkpoints"],
        &[("WARD_REAL_GIT", fake), ("WARD_AGENT", "1")],
    )
    .ok();
    assert!(!mark.exists(), "the agent's git was run");
    // A person's git-ward runs it.
    repo.ward_env(["checkpoints"], &[("WARD_REAL_GIT", fake)])
        .ok();
    assert!(mark.exists());
}
