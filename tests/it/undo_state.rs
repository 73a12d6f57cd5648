//! `git ward undo` of what lives beside the working tree: a linked worktree
//! the command removed, the order of the stash, a merge in progress.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

/// An agent's repository on `agent/c1`, hooks installed, a clean tree.
fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write(".gitignore", "*.log\n")
        .write("a.txt", "a1\n")
        .commit("a1");
    let _ = repo.ward(["install"]);
    repo
}

fn undo(repo: &TestRepo) {
    repo.ward(["undo", "--yes"]).ok();
}

#[test]
fn stash_drop_of_a_middle_entry_goes_back_in_place() {
    let repo = agent_repo();
    for n in 1..=3 {
        repo.write("a.txt", &format!("stash {n}\n"));
        repo.git(["stash", "push", "-q", "-m", &format!("entry {n}")])
            .ok();
    }
    let list = || {
        repo.git(["stash", "list", "--format=%H %gd %gs"])
            .ok()
            .stdout
    };
    let before = list();
    repo.shim_env(["stash", "drop", "-q", "stash@{1}"], C1).ok();
    assert_eq!(list().lines().count(), 2);
    undo(&repo);
    assert_eq!(list(), before);
}
