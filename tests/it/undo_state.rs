//! `git ward undo` of what lives beside the working tree: a linked worktree
//! the command removed, the order of the stash, a merge in progress.

use std::path::Path;

use crate::common::{Run, TestRepo};

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

/// Git run in another directory (as a human).
fn git_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["-C", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    repo.git(all).ok().stdout
}

/// What a worktree holds: HEAD, status, index, and its files' contents.
fn worktree_state(repo: &TestRepo, dir: &Path) -> String {
    let mut s = git_in(repo, dir, &["rev-parse", "--abbrev-ref", "HEAD"]);
    s += &git_in(repo, dir, &["rev-parse", "HEAD"]);
    s += &git_in(repo, dir, &["status", "--porcelain=v1", "-uall"]);
    s += &git_in(repo, dir, &["ls-files", "-s"]);
    for f in ["a.txt", "staged.txt", "new/untracked.txt"] {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
        s += &format!("{f}: {text}");
    }
    s
}

/// Modified, staged and untracked work in a linked worktree.
fn dirty(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "wip\n").unwrap();
    std::fs::write(dir.join("staged.txt"), "staged\n").unwrap();
    std::fs::create_dir_all(dir.join("new")).unwrap();
    std::fs::write(dir.join("new/untracked.txt"), "untracked\n").unwrap();
}

#[test]
fn worktree_remove_force_of_a_branch_comes_back() {
    let repo = agent_repo();
    let wt = repo.path("wt");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "-b", "agent/c1-side", path])
        .ok();
    dirty(&wt);
    git_in(&repo, &wt, &["add", "staged.txt"]);
    let before = worktree_state(&repo, &wt);
    let main_before = repo.state();

    repo.shim_env(["worktree", "remove", "--force", "../wt"], C1)
        .ok();
    assert!(!wt.exists());
    repo.ward(["rollback", "chk-c1-1", "--yes"])
        .code(2)
        .stderr_has("no longer exists")
        .stderr_has("`git ward undo` brings it back");
    assert_eq!(repo.state(), main_before);
    undo(&repo);
    assert_eq!(worktree_state(&repo, &wt), before);
    assert_eq!(
        repo.state(),
        main_before,
        "the current worktree is left alone"
    );
}

/// A linked worktree `name` beside the repository, on a new `branch`.
fn add_worktree(repo: &TestRepo, name: &str, branch: &str) -> std::path::PathBuf {
    let dir = repo.path(name);
    repo.git(["worktree", "add", "-q", "-b", branch, dir.to_str().unwrap()])
        .ok();
    dir
}

/// `git-ward <args>` run from `dir`.
fn ward_in(repo: &TestRepo, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = repo.ward_command(args);
    cmd.current_dir(dir).stdin(std::process::Stdio::null());
    Run::from(cmd.output().unwrap())
}

/// Run inside the worktree it removes, the command leaves nowhere to undo
/// it from but the other worktrees: the main one takes it up.
#[test]
fn worktree_removed_from_inside_comes_back_from_the_main_worktree() {
    let repo = agent_repo();
    let wt = add_worktree(&repo, "wt", "agent/c1-side");
    let other = add_worktree(&repo, "other", "agent/c1-other");
    dirty(&wt);
    git_in(&repo, &wt, &["add", "staged.txt"]);
    let before = worktree_state(&repo, &wt);
    let main_before = repo.state();

    repo.shim_in(&wt, ["worktree", "remove", "--force", "."], C1)
        .ok();
    assert!(!wt.exists());
    ward_in(&repo, &other, &["undo", "--dry-run"])
        .ok()
        .stdout_has("Nothing to undo");
    let main = std::fs::canonicalize(&repo.dir).unwrap();
    ward_in(&repo, &other, &["rollback", "chk-c1-1", "--yes"])
        .code(2)
        .stderr_has(&format!(
            "`git -C {} ward undo` brings it back",
            main.display()
        ));
    repo.ward(["rollback", "chk-c1-1", "--yes"])
        .code(2)
        .stderr_has("`git ward undo` brings it back");
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("Undo `git worktree remove --force .`")
        .stdout_has("WORKTREE");
    undo(&repo);
    assert_eq!(worktree_state(&repo, &wt), before);
    assert_eq!(repo.state(), main_before);
}

/// A bare repository has no main worktree: any worktree takes it up.
#[test]
fn in_a_bare_repository_another_worktree_undoes_a_removal_from_inside() {
    let repo = agent_repo();
    let bare = repo.bare_clone_at(repo.path("bare.git"));
    let (w1, w2) = (repo.path("w1"), repo.path("w2"));
    for (dir, branch) in [(&w1, "agent/c1-w1"), (&w2, "agent/c1-w2")] {
        git_in(
            &repo,
            &bare,
            &["worktree", "add", "-q", "-b", branch, dir.to_str().unwrap()],
        );
    }
    ward_in(&repo, &w2, &["install"]).ok();
    dirty(&w1);
    let before = worktree_state(&repo, &w1);
    repo.shim_in(&w1, ["worktree", "remove", "--force", "."], C1)
        .ok();
    assert!(!w1.exists());
    ward_in(&repo, &w2, &["undo", "--yes"]).ok();
    assert_eq!(worktree_state(&repo, &w1), before);
}

/// Once another command is the last to undo, rollback's hint for a removed
/// worktree is the commands that bring it back by hand.
#[test]
fn a_removed_worktree_undo_no_longer_reaches_is_added_back_by_hand() {
    let repo = agent_repo();
    dirty(&add_worktree(&repo, "wt", "agent/c1-side"));
    repo.shim_env(["worktree", "remove", "--force", "../wt"], C1)
        .ok();
    repo.write("a.txt", "dirty\n");
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    let real = std::fs::canonicalize(repo.tmp.path()).unwrap().join("wt");
    repo.ward(["rollback", "chk-c1-1", "--yes"])
        .code(2)
        .stderr_has(&format!(
            "`git worktree add {} agent/c1-side`, then `git -C {} ward rollback chk-c1-1 --index --yes`",
            real.display(),
            real.display()
        ))
        .stderr_lacks("ward undo");
}

#[test]
fn worktree_remove_twice_forced_of_a_detached_locked_worktree_comes_back() {
    let repo = agent_repo();
    repo.write("sub/keep", "x\n").commit("sub");
    let wt = repo.path("wt2");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "--detach", path, "HEAD~1"])
        .ok();
    repo.git(["worktree", "lock", path]).ok();
    dirty(&wt);
    let before = worktree_state(&repo, &wt);

    // Relative to the directory `-C` names, as git reads it.
    repo.shim_env(
        ["-C", "sub", "worktree", "remove", "-f", "-f", "../../wt2"],
        C1,
    )
    .ok();
    assert!(!wt.exists());
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("WORKTREE")
        .stdout_has(path);
    undo(&repo);
    assert_eq!(worktree_state(&repo, &wt), before);
}

#[test]
fn worktree_remove_of_a_clean_worktree_keeps_the_ignored_files_the_policy_keeps() {
    let repo = agent_repo();
    repo.write(".gitignore", "*.log\n.env\n")
        .commit("ignore .env");
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    let wt = repo.path("wt");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "-b", "agent/c1-side", path])
        .ok();
    // git removes a worktree whose only extra files are ignored, unasked.
    std::fs::write(wt.join(".env"), "SECRET=1\n").unwrap();
    std::fs::write(wt.join("debug.log"), "log\n").unwrap();
    repo.shim_env(["worktree", "remove", "../wt"], C1).ok();
    assert!(!wt.exists());
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(
        std::fs::read_to_string(wt.join(".env")).unwrap(),
        "SECRET=1\n"
    );
    assert!(!wt.join("debug.log").exists(), "not kept by the policy");
    assert_eq!(
        git_in(&repo, &wt, &["branch", "--show-current"]),
        "agent/c1-side\n"
    );
}

#[test]
fn worktree_remove_without_kept_ignored_files_takes_no_checkpoint() {
    let repo = agent_repo();
    let wt = repo.path("wt");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "-b", "agent/c1-side", path])
        .ok();
    std::fs::write(wt.join("debug.log"), "log\n").unwrap();
    repo.shim_env(["worktree", "remove", "../wt"], C1).ok();
    assert!(!wt.exists());
    assert_eq!(repo.checkpoint_count(), 0);
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
fn a_checkpoint_during_a_merge_shows_it_and_rollback_index_puts_it_back() {
    let repo = conflicted_merge();
    let before = merge_state(&repo);
    let theirs = repo.rev("other").unwrap();
    let id = repo.checkpoint("mid-merge");
    repo.ward(["checkpoint", "show", &id])
        .ok()
        .stdout_has(&format!("Merging:     {theirs}"))
        .stdout_has("Conflicted:  a.txt");
    repo.git(["merge", "--abort"]).ok();
    repo.ward(["rollback", &id, "--index", "--yes"]).ok();
    assert_eq!(merge_state(&repo), before);
}
