//! Linked worktrees: what removing or pruning one takes with it.

use crate::common::{sibling, TestRepo};

const AGENT: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

/// Hooks installed, `agent/c1` checked out in a linked worktree `wt`.
fn with_agent_worktree() -> (TestRepo, std::path::PathBuf) {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let wt = sibling(&repo, "wt");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "-b", "agent/c1", path])
        .ok();
    (repo, wt)
}

/// Is `commit` reachable from some ref (refs/ward included)?
fn reachable(repo: &TestRepo, commit: &str) -> bool {
    let refs = repo
        .git(["for-each-ref", "--format=%(objectname)"])
        .ok()
        .stdout;
    refs.lines()
        .any(|tip| repo.git(["merge-base", "--is-ancestor", commit, tip]).code == Some(0))
}

/// Commits an agent made on a detached HEAD in a linked worktree are all
/// its HEAD reaches: a clean `worktree remove` (through the shim), and a
/// `worktree prune` of one whose directory is gone, keep them first.
#[test]
fn removing_or_pruning_a_worktree_keeps_its_detached_commits() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let detached = |name: &str| {
        let wt = sibling(&repo, name);
        repo.git(["worktree", "add", "-q", "--detach", wt.to_str().unwrap()])
            .ok();
        repo.shim_in(
            &wt,
            ["commit", "-q", "--allow-empty", "-m", "detached work"],
            AGENT,
        )
        .ok();
        let head = repo.git_in(&wt, ["rev-parse", "HEAD"]).ok().stdout;
        (wt, head.trim().to_string())
    };
    let (wt, work) = detached("wt1");
    repo.shim_env(["worktree", "remove", wt.to_str().unwrap()], AGENT)
        .ok();
    assert!(!wt.exists());
    assert!(reachable(&repo, &work), "{work} lost by worktree remove");

    let (wt, work) = detached("wt2");
    std::fs::remove_dir_all(&wt).unwrap();
    repo.shim_env(["worktree", "prune"], AGENT)
        .ok()
        .stderr_has("keeps 1 commit that HEADs of pruned worktrees held");
    assert!(reachable(&repo, &work), "{work} lost by worktree prune");
    // A dry run prunes nothing, and keeps nothing.
    repo.shim_env(["worktree", "prune", "-n"], AGENT).ok();
}

/// Undo of `worktree add -b <branch>` would delete a branch another
/// worktree has checked out (which git itself refuses): it leaves it, and
/// says which worktree has it.
#[test]
fn undo_leaves_a_branch_another_worktree_has_checked_out() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let wt = sibling(&repo, "wt");
    repo.shim_env(
        [
            "worktree",
            "add",
            "-q",
            "-b",
            "agent/new",
            wt.to_str().unwrap(),
        ],
        AGENT,
    )
    .ok();
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("refs/heads/agent/new is checked out in")
        .stdout_has("left alone");
    assert!(repo.rev("refs/heads/agent/new").is_some());
    repo.git_in(&wt, ["rev-parse", "--verify", "HEAD"]).ok();
}

/// A checkpoint stays its worktree's after `git worktree move`, and after
/// the whole repository's directory is renamed: rollback restores in place.
#[test]
fn rollback_follows_a_moved_worktree_and_a_renamed_repository() {
    let (repo, wt) = with_agent_worktree();
    std::fs::write(wt.join("README"), "precious\n").unwrap();
    repo.shim_in(&wt, ["reset", "-q", "--hard"], AGENT).ok();
    let moved = sibling(&repo, "wt-moved");
    repo.git([
        "worktree",
        "move",
        wt.to_str().unwrap(),
        moved.to_str().unwrap(),
    ])
    .ok();
    let mut cmd = repo.ward_command(["rollback", "chk-c1-1", "--yes"]);
    cmd.current_dir(&moved);
    crate::common::Run::from(cmd.output().unwrap()).ok();
    assert_eq!(
        std::fs::read_to_string(moved.join("README")).unwrap(),
        "precious\n"
    );

    // The main worktree, its repository renamed.
    repo.write("README", "mine\n");
    repo.shim_env(["reset", "-q", "--hard"], AGENT).ok();
    let (_, list) = repo.ward_json(["checkpoints", "--json"], &[]);
    let id = list["checkpoints"][0]["id"].as_str().unwrap().to_string();
    let renamed = sibling(&repo, "renamed");
    std::fs::rename(&repo.dir, &renamed).unwrap();
    let mut cmd = repo.ward_command(["rollback", &id, "--yes"]);
    cmd.current_dir(&renamed);
    let run = crate::common::Run::from(cmd.output().unwrap());
    std::fs::rename(&renamed, &repo.dir).unwrap();
    run.ok();
    assert_eq!(
        std::fs::read_to_string(repo.dir.join("README")).unwrap(),
        "mine\n"
    );
}

/// `explain` and the shim agree when the agent branch is checked out in
/// another worktree: refused, naming it, nothing changed.
#[test]
fn an_agent_branch_checked_out_in_another_worktree_is_refused_as_explained() {
    let (repo, wt) = with_agent_worktree();
    repo.write("README", "work\n");
    repo.ward_env(["explain", "--", "commit", "-am", "w"], AGENT)
        .stdout_has("decision:   deny");
    repo.shim_env(["commit", "-q", "-am", "w"], AGENT)
        .code(1)
        .stderr_has("'agent/c1' is checked out in another worktree")
        .stderr_has(wt.file_name().unwrap().to_str().unwrap());
    assert_eq!(repo.branch(), "main");
    assert_eq!(
        std::fs::read_to_string(repo.dir.join("README")).unwrap(),
        "work\n"
    );
}

/// A linked worktree removed and another added under its name (so with
/// its git directory's path) is not the one its checkpoints were taken
/// of: rollback there is refused, nothing written.
#[test]
fn rollback_never_writes_into_another_worktree_that_reuses_the_name() {
    let (repo, wt) = with_agent_worktree();
    std::fs::write(wt.join("README"), "old task\n").unwrap();
    let mut take = repo.ward_command(["checkpoint", "-m", "old task", "--json"]);
    take.current_dir(&wt);
    let out = crate::common::Run::from(take.output().unwrap()).ok().stdout;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = v["checkpoint"]["id"].as_str().unwrap().to_string();
    repo.git(["worktree", "remove", "--force", wt.to_str().unwrap()])
        .ok();
    let other = repo.tmp.path().join("elsewhere").join("wt");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    // Made later than the checkpoint, as any new worktree is.
    let path = other.to_str().unwrap();
    repo.git_env(
        ["worktree", "add", "-q", "-b", "other-task", path],
        &[("GIT_COMMITTER_DATE", "@4102444800 +0000")],
    )
    .ok();
    std::fs::write(other.join("new.txt"), "new task\n").unwrap();
    let mut cmd = repo.ward_command(["rollback", &id, "--yes"]);
    cmd.current_dir(&other);
    let run = crate::common::Run::from(cmd.output().unwrap());
    assert_ne!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(other.join("new.txt")).unwrap(),
        "new task\n"
    );
    assert_eq!(
        std::fs::read_to_string(other.join("README")).unwrap(),
        "hello\n"
    );
}
