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

/// A merge of `other` into `agent/c1` stopped on a conflict in `a.txt`,
/// with `b.txt` merged cleanly.
fn conflicted_merge() -> TestRepo {
    let repo = agent_repo();
    repo.git(["switch", "-q", "-c", "other"]).ok();
    repo.write("a.txt", "theirs\n")
        .write("b.txt", "b\n")
        .commit("theirs");
    repo.git(["switch", "-q", "agent/c1"]).ok();
    repo.write("a.txt", "ours\n").commit("ours");
    repo.git(["merge", "-q", "other"]).code(1);
    repo
}

fn merge_state(repo: &TestRepo) -> String {
    let status = repo.git(["status", "--porcelain=v1"]).ok().stdout;
    let head = repo.rev("MERGE_HEAD").unwrap_or_default();
    let msg = std::fs::read_to_string(repo.dir.join(".git/MERGE_MSG")).unwrap_or_default();
    format!("{status}{head}\n{msg}{}", repo.state())
}

#[test]
fn merge_abort_and_reset_during_a_conflict_come_back_in_progress() {
    let repo = conflicted_merge();
    let before = merge_state(&repo);
    assert!(before.contains("UU a.txt"));
    assert!(repo.read("a.txt").unwrap().contains("<<<<<<<"));

    repo.shim_env(["merge", "--abort"], C1).ok();
    assert!(repo.rev("MERGE_HEAD").is_none());
    undo(&repo);
    assert_eq!(merge_state(&repo), before);

    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    assert!(repo.rev("MERGE_HEAD").is_none());
    undo(&repo);
    assert_eq!(merge_state(&repo), before);
}

#[test]
fn a_checkpoint_during_a_merge_shows_it() {
    let repo = conflicted_merge();
    let theirs = repo.rev("other").unwrap();
    let id = repo.checkpoint("mid-merge");
    repo.ward(["checkpoint", "show", &id])
        .ok()
        .stdout_has(&format!("Merging:     {theirs}"))
        .stdout_has("Conflicted:  a.txt");
}
