//! The pre-destructive check: on a tree whose index is older than its
//! files' last changes it is answered from the index's stat cache; where
//! that cannot tell, git answers; and an assume-unchanged mark, which git's
//! answer believes but `checkout -- .` does not, never hides a change.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1"), ("WARD_LOG", "debug")];
/// The check's log line when git is asked.
const GIT_DECIDES: &str = "pre-destructive check: git decides";

/// An agent's branch with files of each kind: nested, executable, a
/// symbolic link.
fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a\n")
        .write("sub/deeper/b.txt", "b\n")
        .write("run.sh", "#!/bin/sh\n");
    std::os::unix::fs::symlink("a.txt", repo.dir.join("link")).unwrap();
    let mut perms = std::fs::metadata(repo.dir.join("run.sh"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(repo.dir.join("run.sh"), perms).unwrap();
    repo.commit("files");
    repo
}

/// Every file an hour older than the index: git then trusts the stat
/// cache without reading any file (no entry is racy).
fn age(repo: &TestRepo) {
    let status = std::process::Command::new("find")
        .current_dir(&repo.dir)
        .args([".", "-path", "./.git", "-prune", "-o", "-exec"])
        .args(["touch", "-h", "-d", "2026-01-01 00:00:00", "{}", "+"])
        .status()
        .unwrap();
    assert!(status.success());
    repo.git(["update-index", "-q", "--refresh"]).ok();
}

/// Every file, and the index, written in the same second: each entry is
/// racy, whatever second the test itself ran in.
fn racy(repo: &TestRepo) {
    age(repo);
    let index = std::fs::File::options()
        .write(true)
        .open(repo.dir.join(".git/index"))
        .unwrap();
    let when = std::fs::symlink_metadata(repo.dir.join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    index.set_modified(when).unwrap();
}

#[test]
fn a_clean_tree_is_told_from_the_stat_cache() {
    let repo = agent_repo();
    age(&repo);
    for args in [
        &["checkout", "--", "."][..],
        &["restore", "."],
        &["checkout", "-f"],
        &["reset", "-q", "--hard"],
        &["reset", "-q", "--hard", "HEAD"],
    ] {
        repo.shim_env(args, C1).ok().stderr_lacks(GIT_DECIDES);
    }
    assert_eq!(repo.checkpoint_count(), 0);
    // A reset to another commit moves the branch: recorded even so.
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    age(&repo);
    // The same size, a new mtime: a change the stat cache cannot rule out.
    repo.write("sub/deeper/b.txt", "B\n");
    let before = repo.checkpoint_count();
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), before + 1);
    assert_eq!(repo.checkpoint_file("chk-c1-2", "sub/deeper/b.txt"), "B\n");
}

#[test]
fn git_decides_what_the_stat_cache_cannot() {
    let repo = agent_repo();
    // Files as old as the index: racy, so git reads them; clean.
    racy(&repo);
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    // Touched, not changed: git reads it and finds it clean.
    age(&repo);
    std::fs::File::options()
        .write(true)
        .open(repo.dir.join("a.txt"))
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 0);
    // A staged change: the index is not HEAD's tree.
    age(&repo);
    repo.write("a.txt", "staged\n");
    repo.git(["add", "a.txt"]).ok();
    age(&repo);
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 1);
}

#[test]
fn a_missing_file_counts_only_where_the_command_looks() {
    let repo = agent_repo();
    age(&repo);
    std::fs::remove_file(repo.dir.join("sub/deeper/b.txt")).unwrap();
    // Limited to a.txt: b.txt is not at stake.
    repo.shim_env(["checkout", "--", "a.txt"], C1)
        .ok()
        .stderr_lacks(GIT_DECIDES);
    // A glob: git reads it (cheaper than a look at every file).
    repo.shim_env(["checkout", "--", "a.*"], C1)
        .ok()
        .stderr_has("git decides (limited to paths)");
    assert_eq!(repo.checkpoint_count(), 0);
    // The whole tree: b.txt's absence is a difference, without asking git.
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_lacks(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 1);
    assert_eq!(repo.read("sub/deeper/b.txt").as_deref(), Some("b\n"));
}

#[test]
fn plain_paths_are_told_from_the_stat_cache_where_they_point() {
    let repo = agent_repo();
    let (top, sub) = (repo.dir.clone(), repo.dir.join("sub"));
    // A change outside the paths named is not at stake.
    repo.write("run.sh", "#!/bin/sh\necho changed\n");
    age(&repo);
    for (dir, args) in [
        (&top, &["checkout", "--", "a.txt"][..]),
        (&top, &["restore", "sub"]),
        (&sub, &["checkout", "--", "deeper/b.txt"]),
        (&sub, &["restore", "../a.txt"]),
        (&sub, &["checkout", "--", "./deeper/../../link", "deeper/"]),
    ] {
        repo.shim_in(dir, args, C1).ok().stderr_lacks(GIT_DECIDES);
    }
    assert_eq!(repo.checkpoint_count(), 0);
    assert_eq!(
        repo.read("run.sh").as_deref(),
        Some("#!/bin/sh\necho changed\n")
    );
    // A change where a path points: the stat cache cannot tell, git
    // reads it, and it is checkpointed.
    repo.write("sub/deeper/b.txt", "B\n");
    repo.shim_in(&sub, ["restore", "deeper"], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 1);
    assert_eq!(repo.checkpoint_file("chk-c1-1", "sub/deeper/b.txt"), "B\n");
    assert_eq!(repo.read("sub/deeper/b.txt").as_deref(), Some("b\n"));
    // A missing file reached through `..`: a difference, without git.
    age(&repo);
    std::fs::remove_file(repo.dir.join("a.txt")).unwrap();
    repo.shim_in(&sub, ["checkout", "--", "deeper/../../a.txt"], C1)
        .ok()
        .stderr_lacks(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 2);
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    // A path above the top is git's to refuse.
    repo.shim_in(&sub, ["checkout", "--", "../../x"], C1)
        .code(128)
        .stderr_has("outside repository");
}

#[test]
fn an_assume_unchanged_file_is_checkpointed_and_undone() {
    for args in [
        &["checkout", "--", "."][..],
        &["restore", "."],
        &["checkout", "-f"],
        &["reset", "-q", "--hard"],
        // Limited to another path: the mark is looked at anyway.
        &["checkout", "--", "run.sh"],
    ] {
        for aged in [false, true] {
            let repo = agent_repo();
            repo.git(["update-index", "--assume-unchanged", "a.txt"])
                .ok();
            repo.write("a.txt", "precious\n");
            if aged {
                age(&repo);
            }
            // git itself sees nothing to lose.
            assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
            repo.shim_env(args, C1).ok();
            let case = format!("{args:?}, aged {aged}");
            if args.contains(&"run.sh") {
                assert_eq!(repo.read("a.txt").as_deref(), Some("precious\n"), "{case}");
            } else {
                assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"), "{case}");
            }
            assert_eq!(repo.checkpoint_count(), 1, "{case}");
            assert_eq!(
                repo.checkpoint_file("chk-c1-1", "a.txt"),
                "precious\n",
                "{case}"
            );
            repo.ward(["undo", "--yes"]).ok();
            assert_eq!(repo.read("a.txt").as_deref(), Some("precious\n"), "{case}");
        }
    }
}

#[test]
fn a_checkpoint_records_what_is_on_disk_under_an_assume_unchanged_mark() {
    let repo = agent_repo();
    repo.git(["update-index", "--assume-unchanged", "a.txt"])
        .ok();
    repo.write("a.txt", "precious\n").write("new.txt", "new\n");
    let index = std::fs::read(repo.dir.join(".git/index")).unwrap();
    let id = repo.checkpoint("by hand");
    let tree = format!("refs/ward/checkpoints/{id}");
    assert_eq!(
        repo.git(["show", &format!("{tree}:a.txt")]).ok().stdout,
        "precious\n"
    );
    assert_eq!(
        repo.git(["show", &format!("{tree}:new.txt")]).ok().stdout,
        "new\n"
    );
    // The real index keeps its mark, byte for byte.
    assert_eq!(std::fs::read(repo.dir.join(".git/index")).unwrap(), index);
    assert!(repo
        .git(["ls-files", "-v", "a.txt"])
        .ok()
        .stdout
        .starts_with("h "));
}

#[test]
fn another_index_file_does_not_hide_a_change() {
    let repo = agent_repo();
    age(&repo);
    let other = repo.path("other-index");
    std::fs::copy(repo.dir.join(".git/index"), &other).unwrap();
    let env = [("GIT_INDEX_FILE", other.to_str().unwrap())];
    repo.git_env(["update-index", "--assume-unchanged", "a.txt"], &env)
        .ok();
    repo.write("a.txt", "precious\n");
    let mut with_index = C1.to_vec();
    with_index.extend(env);
    repo.shim_env(["checkout", "--", "."], &with_index).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    assert_eq!(repo.checkpoint_file("chk-c1-1", "a.txt"), "precious\n");
}

#[test]
fn a_directory_replaced_by_a_symbolic_link_is_not_looked_through() {
    let repo = agent_repo();
    age(&repo);
    // The same files, the same inodes, now behind a link: git sees the
    // tracked paths as gone (it does not follow a link inside the tree).
    let moved = repo.path("moved-sub");
    std::fs::rename(repo.dir.join("sub"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, repo.dir.join("sub")).unwrap();
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_has(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 1);
    assert_eq!(
        std::fs::read_to_string(moved.join("deeper/b.txt")).unwrap(),
        "b\n"
    );
}

#[test]
fn a_tree_checked_on_several_threads_misses_nothing() {
    // 1,200 entries: two parts of the index, one per thread.
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    for i in 0..1200 {
        repo.write(&format!("d{:02}/f{i:04}.txt", i / 100), &format!("{i}\n"));
    }
    repo.commit("many");
    age(&repo);
    repo.shim_env(["checkout", "--", "."], C1)
        .ok()
        .stderr_lacks(GIT_DECIDES);
    assert_eq!(repo.checkpoint_count(), 0);
    // Near each end of the index: found without git, saved, restored.
    for (n, path) in ["d00/f0003.txt", "d11/f1197.txt"].iter().enumerate() {
        std::fs::remove_file(repo.dir.join(path)).unwrap();
        repo.shim_env(["checkout", "--", "."], C1)
            .ok()
            .stderr_lacks(GIT_DECIDES);
        assert_eq!(repo.checkpoint_count(), n + 1, "{path}");
        assert!(repo.read(path).is_some(), "{path}");
    }
    // A marked file in the last part, which git's own check believes.
    repo.git(["update-index", "--assume-unchanged", "d11/f1198.txt"])
        .ok();
    repo.write("d11/f1198.txt", "precious\n");
    age(&repo);
    repo.shim_env(["checkout", "--", "."], C1).ok();
    assert_eq!(repo.checkpoint_count(), 3);
    assert_eq!(
        repo.checkpoint_file("chk-c1-3", "d11/f1198.txt"),
        "precious\n"
    );
}

#[test]
fn a_reset_over_changed_files_scans_the_tree_once() {
    // The check's stat pass is the checkpoint's: no `git status` looks at
    // every file again. The files that may differ are hashed; the names
    // the index does not hold are listed, and git says which are untracked.
    let repo = agent_repo();
    repo.write(".gitignore", "*.log\n").commit("ignore");
    age(&repo);
    repo.write("a.txt", "changed\n")
        .write("sub/new.txt", "new\n")
        .write("fresh/dir/n.txt", "n\n")
        .write("sub/deeper/x.log", "ignored\n");
    let trace = repo.path("trace");
    let mut env = C1.to_vec();
    env.push(("GIT_TRACE", trace.to_str().unwrap()));
    repo.shim_env(["reset", "-q", "--hard"], &env).ok();
    let traced = std::fs::read_to_string(&trace).unwrap();
    assert!(traced.contains("git hash-object"), "{traced}");
    assert!(!traced.contains("git status"), "{traced}");
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    assert_eq!(repo.checkpoint_file("chk-c1-1", "a.txt"), "changed\n");
    assert_eq!(repo.checkpoint_file("chk-c1-1", "sub/new.txt"), "new\n");
    assert_eq!(repo.checkpoint_file("chk-c1-1", "fresh/dir/n.txt"), "n\n");
    let ignored = "refs/ward/checkpoints/chk-c1-1:sub/deeper/x.log";
    assert_ne!(repo.git(["cat-file", "-e", ignored]).code, Some(0));
    // Touched, not changed, beside untracked files a reset leaves alone:
    // hashed, found equal, nothing kept.
    age(&repo);
    std::fs::File::options()
        .write(true)
        .open(repo.dir.join("run.sh"))
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
}
