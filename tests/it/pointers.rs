//! Repository pointers in an agent's environment: an
//! object store or index other than the repository's own, through the
//! shim and around it (an agent's git by path, which meets only the
//! hooks), judged by the repository's refs, objects and files after.

use std::path::PathBuf;

use crate::common::TestRepo;

const C1: (&str, &str) = ("WARD_CONTRACT", "c1");
const AGENT: (&str, &str) = ("WARD_AGENT", "1");

/// `main` (A) with the agent's branch `agent/c1` (A, C) checked out;
/// hooks installed.
fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["checkout", "-qb", "agent/c1"]).ok();
    repo.write("c.txt", "c\n").commit("C");
    repo.ward(["install"]).ok();
    repo
}

/// An object store of its own that reads the repository's through
/// `info/alternates`: git writes new objects there and finds the old ones.
fn store_beside(repo: &TestRepo) -> PathBuf {
    let store = repo.path("objs");
    std::fs::create_dir_all(store.join("info")).unwrap();
    let own = repo.dir.join(".git/objects");
    std::fs::write(
        store.join("info/alternates"),
        format!("{}\n", own.display()),
    )
    .unwrap();
    store
}

/// The agent's branch did not move, and names an object the repository has.
fn branch_intact(repo: &TestRepo, before: &Option<String>, env: &[(&str, &str)]) {
    assert_eq!(&repo.rev("agent/c1"), before, "{env:?}");
    repo.git(["cat-file", "-e", "agent/c1^{commit}"]).ok();
    repo.git(["fsck", "--connectivity-only", "--no-dangling"])
        .ok();
}

#[test]
fn an_agents_commit_into_another_object_store_is_refused() {
    let repo = agent_repo();
    let store = store_beside(&repo);
    let env = [("GIT_OBJECT_DIRECTORY", store.to_str().unwrap())];
    let before = repo.rev("agent/c1");
    let commit = ["commit", "-q", "--allow-empty", "-m", "x"];
    repo.shim_env(commit, &[env[0], C1])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("GIT_OBJECT_DIRECTORY");
    branch_intact(&repo, &before, &env);
    // Around the shim, the reference-transaction hook refuses the move.
    repo.git_env(commit, &[env[0], AGENT])
        .code(128)
        .stderr_has("EN-GIT-D-004");
    branch_intact(&repo, &before, &env);
    // The repository's own store, named: nothing to refuse.
    let own = repo.dir.join(".git/objects");
    repo.shim_env(
        commit,
        &[("GIT_OBJECT_DIRECTORY", own.to_str().unwrap()), C1],
    )
    .ok();
    assert_ne!(repo.rev("agent/c1"), before);
    repo.git(["cat-file", "-e", "agent/c1^{commit}"]).ok();
}

#[test]
fn a_reset_to_another_repositorys_commit_through_alternates_is_refused() {
    let repo = agent_repo();
    let alien = repo.path("alien");
    repo.git(["init", "-q", alien.to_str().unwrap()]).ok();
    std::fs::write(alien.join("x"), "alien\n").unwrap();
    repo.git_in(&alien, ["add", "x"]).ok();
    repo.git_in(&alien, ["commit", "-q", "-m", "alien"]).ok();
    let id = repo.git_in(&alien, ["rev-parse", "HEAD"]).ok().stdout;
    let objects = alien.join(".git/objects");
    let env = [(
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        objects.to_str().unwrap(),
    )];
    let before = repo.rev("agent/c1");
    let reset = ["reset", "-q", "--soft", id.trim()];
    repo.shim_env(reset, &[env[0], C1])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    branch_intact(&repo, &before, &env);
    repo.git_env(reset, &[env[0], AGENT])
        .code(128)
        .stderr_has("EN-GIT-D-004");
    branch_intact(&repo, &before, &env);
    // A person's git is theirs to point anywhere.
    repo.git_env(reset, &[env[0]]).ok();
    assert_eq!(repo.rev("agent/c1").as_deref(), Some(id.trim()));
}

/// An index of the agent's own that tracks `notes.txt`, an untracked file
/// the repository's index does not know.
fn index_tracking_notes(repo: &TestRepo) -> PathBuf {
    repo.write("notes.txt", "an hour of work\n");
    let index = repo.path("other-index");
    std::fs::copy(repo.dir.join(".git/index"), &index).unwrap();
    repo.git_env(
        ["add", "notes.txt"],
        &[("GIT_INDEX_FILE", index.to_str().unwrap())],
    )
    .ok();
    index
}

#[test]
fn a_hard_reset_with_another_index_is_refused() {
    let repo = agent_repo();
    let index = index_tracking_notes(&repo);
    let env = ("GIT_INDEX_FILE", index.to_str().unwrap());
    // With that index, `notes.txt` is a tracked file HEAD lacks: git
    // deletes it, and the checkpoint (of the repository's index) sees
    // nothing to save.
    for args in [
        &["reset", "-q", "--hard"][..],
        &["checkout", "-q", "-f", "HEAD"][..],
        &["stash", "-q"][..],
    ] {
        repo.shim_env(args, &[env, C1])
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has("GIT_INDEX_FILE");
        assert_eq!(
            repo.read("notes.txt").as_deref(),
            Some("an hour of work\n"),
            "{args:?}"
        );
    }
    // Commands that write only the index and refs run with it.
    let before = repo.rev("agent/c1");
    repo.shim_env(["commit", "-q", "-m", "notes"], &[env, C1])
        .ok();
    assert_ne!(repo.rev("agent/c1"), before);
    repo.git(["cat-file", "-e", "agent/c1:notes.txt"]).ok();
}
