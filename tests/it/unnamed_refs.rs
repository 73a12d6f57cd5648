//! Commands whose command line does not name every ref they write, under
//! the default policy on an agent branch: refused only when a protected
//! ref would really change, judged by the remote's and the repository's
//! refs afterwards.

use crate::common::{remote_rev, with_remote, TestRepo};

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

/// A repository with a bare remote `origin` that has `main` and tag `v1`,
/// on the agent branch `agent/c1` with a commit of its own.
fn on_agent_branch() -> TestRepo {
    let repo = with_remote();
    repo.git(["tag", "-a", "-m", "one", "v1"]).ok();
    repo.git(["push", "-q", "origin", "v1"]).ok();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("work.txt", "work\n");
    repo.git(["add", "work.txt"]).ok();
    repo.git(["commit", "-q", "-m", "work"]).ok();
    repo
}

/// `main` moves here (a person's commit), so a push of it would move the remote's.
fn main_ahead(repo: &TestRepo) {
    repo.git([
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "ahead",
        "--no-verify",
    ])
    .ok();
    let ahead = repo.rev("HEAD").unwrap();
    repo.git(["update-ref", "refs/heads/main", &ahead]).ok();
    repo.git(["reset", "-q", "--hard", "HEAD~"]).ok();
}

#[test]
fn push_all_goes_through_when_main_is_the_same_on_the_remote() {
    for hooks in [false, true] {
        let repo = on_agent_branch();
        if hooks {
            repo.ward(["install"]).ok();
        }
        let main = remote_rev(&repo, "main");
        repo.shim_env(["push", "-q", "--all", "origin"], C1).ok();
        assert_eq!(
            remote_rev(&repo, "agent/c1"),
            repo.rev("agent/c1"),
            "hooks: {hooks}"
        );
        assert_eq!(remote_rev(&repo, "main"), main, "hooks: {hooks}");
    }
}

#[test]
fn push_all_is_refused_when_it_would_move_main_on_the_remote() {
    // Without hooks the remote-tracking ref says what the remote has.
    let repo = on_agent_branch();
    main_ahead(&repo);
    let main = remote_rev(&repo, "main");
    repo.shim_env(["push", "--all", "origin"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001")
        .stderr_has("would move protected ref 'main' on origin");
    assert_eq!(remote_rev(&repo, "main"), main);
    assert_eq!(remote_rev(&repo, "agent/c1"), None);

    // With them, pre-push sees main's line and refuses the push.
    let repo = on_agent_branch();
    repo.ward(["install"]).ok();
    main_ahead(&repo);
    let main = remote_rev(&repo, "main");
    repo.shim_env(["push", "--all", "origin"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(remote_rev(&repo, "main"), main);
}

#[test]
fn push_tags_goes_through_when_the_remote_has_every_tag() {
    let repo = on_agent_branch();
    repo.ward(["install"]).ok();
    let v1 = remote_rev(&repo, "refs/tags/v1");
    repo.shim_env(["push", "--tags", "origin"], C1).ok();
    assert_eq!(remote_rev(&repo, "refs/tags/v1"), v1);
    assert_eq!(remote_rev(&repo, "agent/c1"), None);
}

#[test]
fn push_tags_is_refused_when_a_protected_tag_would_reach_the_remote() {
    // With the hooks: pre-push sees the new tag.
    let repo = on_agent_branch();
    repo.ward(["install"]).ok();
    repo.git(["tag", "v2"]).ok();
    repo.shim_env(["push", "--tags", "origin"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001")
        .stderr_has("tags/v2");
    assert_eq!(remote_rev(&repo, "refs/tags/v2"), None);

    // Without them nothing here says which tags the remote has.
    let repo = on_agent_branch();
    repo.git(["tag", "v2"]).ok();
    repo.shim_env(["push", "--tags", "origin"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001")
        .stderr_has("not known here");
    assert_eq!(remote_rev(&repo, "refs/tags/v2"), None);
}

#[test]
fn update_ref_stdin_is_left_to_the_reference_transaction_hook() {
    let repo = on_agent_branch();
    let main = repo.rev("main");
    let input = format!("create refs/heads/feature {}\n", main.as_deref().unwrap());
    // No hook to see the refs: refused before git runs.
    repo.shim_stdin(["update-ref", "--stdin"], C1, &input)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("refs/heads/feature"), None);

    repo.ward(["install"]).ok();
    repo.shim_stdin(["update-ref", "--stdin"], C1, &input).ok();
    assert_eq!(repo.rev("refs/heads/feature"), main);
    let agent = repo.rev("agent/c1").unwrap();
    // git dies (128) when the hook refuses the transaction.
    let refused = repo.shim_stdin(
        ["update-ref", "--stdin"],
        C1,
        &format!("update refs/heads/main {agent}\n"),
    );
    assert_ne!(refused.code, Some(0));
    assert!(
        refused.stderr.contains("EN-GIT-D-001"),
        "{}",
        refused.stderr
    );
    assert_eq!(repo.rev("main"), main);
}
