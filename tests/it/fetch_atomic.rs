//! An agent's fetch through the shim runs as one ref transaction: the
//! reference-transaction hook starts once per state, not once per ref, and
//! what the agent sees is what git would do with the fetch as written.

use crate::common::{sibling, TestRepo};

/// A remote with `n` tags, and a clone of it with no tags, hooks installed
/// over a foreign reference-transaction hook that logs its states.
fn cloned(n: usize) -> (TestRepo, std::path::PathBuf) {
    let src = TestRepo::new();
    for i in 0..n {
        src.commit(&format!("c{i}"));
        src.git(["tag", &format!("v{i}")]).ok();
    }
    let repo = TestRepo::empty();
    let remote = sibling(&repo, "remote.git");
    src.git(["clone", "-q", "--bare", ".", remote.to_str().unwrap()])
        .ok();
    repo.git(["remote", "add", "origin", remote.to_str().unwrap()])
        .ok();
    repo.git([
        "fetch",
        "-q",
        "--no-tags",
        "origin",
        "main:refs/remotes/origin/main",
    ])
    .ok();
    repo.git(["checkout", "-q", "-b", "agent/c1", "origin/main"])
        .ok();
    let hook = repo.dir.join(".git/hooks/reference-transaction");
    let log = repo.dir.join(".git/states.log");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\necho \"$1\" >> '{}'\ncat >/dev/null\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.ward(["install"]).ok().stdout_has("chained");
    (repo, log)
}

fn prepared(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == "prepared")
        .count()
}

#[test]
fn an_agents_fetch_of_many_tags_is_one_transaction() {
    let (repo, log) = cloned(12);
    repo.shim(["fetch", "-q", "origin", "refs/tags/*:refs/tags/*"])
        .ok();
    assert_eq!(repo.git(["tag"]).ok().stdout.lines().count(), 12);
    assert_eq!(prepared(&log), 1);
    // git's own fetch, without the shim: one transaction per ref.
    repo.git(["tag", "-d", "v1", "v2", "v3"]).ok();
    std::fs::remove_file(&log).unwrap();
    repo.git(["fetch", "-q", "origin", "refs/tags/*:refs/tags/*"])
        .ok();
    assert_eq!(prepared(&log), 3);
}

#[test]
fn a_fetch_git_rejects_in_part_updates_the_rest_as_written() {
    let (repo, _) = cloned(3);
    repo.shim(["fetch", "-q", "origin", "refs/tags/*:refs/tags/*"])
        .ok();
    // The remote moves v0 and adds v9: v0 is rejected, v9 still arrives.
    let remote = sibling(&repo, "remote.git");
    let mut moved = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut moved);
    moved.current_dir(&remote).args(["tag", "-f", "v0", "v2"]);
    assert!(moved.status().unwrap().success());
    let mut added = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut added);
    added.current_dir(&remote).args(["tag", "v9", "v2"]);
    assert!(added.status().unwrap().success());
    let out = repo
        .shim(["fetch", "origin", "refs/tags/*:refs/tags/*"])
        .code(1);
    assert_eq!(
        out.stderr.matches("[rejected]").count(),
        1,
        "{}",
        out.stderr
    );
    assert!(repo.rev("refs/tags/v9").is_some());
}

/// A fetch that prunes by config runs as written, as `--prune` does: git
/// prunes `origin/a` before it makes `origin/a/b` (one transaction could
/// not do both: a D/F conflict, and no ref would move).
#[test]
fn a_fetch_that_config_makes_prune_resolves_a_df_conflict_as_git_does() {
    for how in ["fetch.prune", "remote.origin.prune", "-c", "--prune"] {
        let (repo, _) = cloned(1);
        let remote = sibling(&repo, "remote.git");
        let in_remote = |args: &[&str]| {
            let mut cmd = std::process::Command::new(crate::common::real_git());
            repo.hermetic(&mut cmd);
            cmd.current_dir(&remote).args(args);
            assert!(cmd.status().unwrap().success(), "{args:?}");
        };
        in_remote(&["branch", "a", "main"]);
        repo.shim(["fetch", "-q", "origin"]).ok();
        assert!(repo.rev("refs/remotes/origin/a").is_some());
        in_remote(&["branch", "-D", "a"]);
        in_remote(&["branch", "a/b", "main"]);
        let run = match how {
            "-c" => repo.shim(["-c", "fetch.prune=true", "fetch", "-q", "origin"]),
            "--prune" => repo.shim(["fetch", "-q", "--prune", "origin"]),
            key => {
                repo.git(["config", key, "true"]).ok();
                repo.shim(["fetch", "-q", "origin"])
            }
        };
        run.ok();
        assert_eq!(repo.rev("refs/remotes/origin/a"), None, "{how}");
        assert!(repo.rev("refs/remotes/origin/a/b").is_some(), "{how}");
    }
}
