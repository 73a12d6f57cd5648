//! What a checkpoint stores of each kind of file, and that rollback gives
//! the same bytes back: end-of-line conversion, clean filters, modes,
//! symbolic links, staged renames.

use std::os::unix::fs::PermissionsExt;

use crate::common::TestRepo;

const CHECKPOINT: &str = "refs/ward/checkpoints/chk-local-1";

/// The tree `git add -A` would write from a copy of the index: what the
/// checkpoint's tree must be.
fn added_tree(repo: &TestRepo) -> String {
    let copy = repo.path("added-index");
    std::fs::copy(repo.dir.join(".git/index"), &copy).unwrap();
    let env = [("GIT_INDEX_FILE", copy.to_str().unwrap())];
    repo.git_env(["add", "-A"], &env).ok();
    let tree = repo.git_env(["write-tree"], &env).ok().stdout;
    std::fs::remove_file(copy).unwrap();
    tree.trim().to_string()
}

fn entry(repo: &TestRepo, rev: &str, path: &str) -> String {
    repo.git(["ls-tree", rev, "--", path]).ok().stdout
}

/// A repository with `core.autocrlf = true` and a clean filter (`rev`,
/// its own inverse as smudge), files changed in every way they convert.
fn converting() -> (TestRepo, [(&'static str, &'static [u8]); 6]) {
    let repo = TestRepo::new();
    repo.write(".gitattributes", "*.rev filter=rev\n")
        .write("lf.txt", "one\ntwo\n")
        .write("crlf.txt", "a\r\nb\r\n")
        .write("a.rev", "abc\n")
        .commit("base");
    for (key, value) in [
        ("core.autocrlf", "true"),
        ("filter.rev.clean", "rev"),
        ("filter.rev.smudge", "rev"),
    ] {
        repo.git(["config", key, value]).ok();
    }
    let files: [(&str, &[u8]); 6] = [
        ("lf.txt", b"one\r\ntwo\r\nthree\r\n"),
        // Committed with CRs: git keeps them as they are.
        ("crlf.txt", b"a\r\nb\r\nc\n"),
        ("new.txt", b"x\r\ny\r\n"),
        ("mixed.txt", b"x\r\ny\nz\r\n"),
        ("a.rev", b"abc\ndef\n"),
        ("b.rev", b"new\n"),
    ];
    for (path, content) in files {
        std::fs::write(repo.dir.join(path), content).unwrap();
    }
    (repo, files)
}

#[test]
fn crlf_and_clean_filters_are_stored_as_git_add_stores_them() {
    let (repo, _) = converting();
    let expected = added_tree(&repo);
    repo.ward(["checkpoint"]).ok();
    assert_eq!(
        repo.rev(&format!("{CHECKPOINT}^{{tree}}")).unwrap(),
        expected
    );
    assert_eq!(
        repo.git(["show", &format!("{CHECKPOINT}:a.rev")])
            .ok()
            .stdout,
        "cba\nfed\n",
        "the clean filter ran"
    );
    assert_eq!(
        repo.git(["show", &format!("{CHECKPOINT}:crlf.txt")])
            .ok()
            .stdout,
        "a\r\nb\r\nc\n",
        "CRs in the index blob: no conversion"
    );
}

#[test]
fn crlf_and_clean_filters_come_back_byte_for_byte() {
    let (repo, files) = converting();
    repo.ward(["checkpoint"]).ok();
    for (path, _) in files {
        std::fs::write(repo.dir.join(path), "overwritten\n").unwrap();
    }
    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    // The bytes that were on disk, where git's conversions are lossy too
    // (mixed line endings, which `git add` normalizes; the `rev` filter,
    // which does not commute with CRLF conversion).
    for (path, content) in files {
        let restored = std::fs::read(repo.dir.join(path)).unwrap();
        assert_eq!(restored, content, "{path}");
    }
}

#[test]
fn modes_symlinks_and_staged_renames_are_kept() {
    let repo = TestRepo::new();
    repo.write("run.sh", "echo\n")
        .write("old.txt", "moved\n")
        .write("was-file", "file\n")
        .commit("base");
    let exec = |rel: &str| {
        let path = repo.dir.join(rel);
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        perms.set_mode(0o755);
        std::fs::set_permissions(path, perms).unwrap();
    };
    exec("run.sh");
    repo.write("tool", "#!/bin/sh\n");
    exec("tool");
    std::os::unix::fs::symlink("README", repo.dir.join("link")).unwrap();
    std::fs::remove_file(repo.dir.join("was-file")).unwrap();
    std::os::unix::fs::symlink("../outside", repo.dir.join("was-file")).unwrap();
    repo.git(["mv", "old.txt", "new.txt"]).ok();
    let before = repo.state();
    let expected = added_tree(&repo);

    repo.ward(["checkpoint"]).ok();
    assert_eq!(
        repo.rev(&format!("{CHECKPOINT}^{{tree}}")).unwrap(),
        expected
    );
    assert!(entry(&repo, CHECKPOINT, "run.sh").starts_with("100755 "));
    assert!(entry(&repo, CHECKPOINT, "tool").starts_with("100755 "));
    assert!(entry(&repo, CHECKPOINT, "link").starts_with("120000 "));
    assert!(entry(&repo, CHECKPOINT, "was-file").starts_with("120000 "));
    assert_eq!(
        repo.git(["show", &format!("{CHECKPOINT}:was-file")])
            .ok()
            .stdout,
        "../outside"
    );
    // The staged tree: the rename, and nothing of the unstaged changes.
    let staged = format!("{CHECKPOINT}^2");
    assert!(entry(&repo, &staged, "new.txt").starts_with("100644 "));
    assert_eq!(entry(&repo, &staged, "old.txt"), "");
    assert!(entry(&repo, &staged, "run.sh").starts_with("100644 "));
    assert_eq!(entry(&repo, &staged, "tool"), "");
    assert_eq!(
        repo.state(),
        before,
        "the checkpoint changed the repository"
    );

    repo.git(["reset", "-q", "--hard"]).ok();
    repo.ward(["rollback", "chk-local-1", "--yes", "--index"])
        .ok();
    assert_eq!(repo.state(), before);
}

#[test]
fn include_ignored_patterns_anchored_with_a_slash_name_files_at_the_top() {
    let repo = TestRepo::new();
    repo.write(".gitignore", ".env\n*.log\n").commit("ignore");
    repo.local_policy("[checkpoint]\ninclude_ignored = [\"/.env\", \"/*.log\", \"//\"]\n");
    repo.write(".env", "SECRET=1\n").write("run.log", "log\n");
    let id = repo.checkpoint("kept");
    assert_eq!(repo.checkpoint_file(&id, ".env"), "SECRET=1\n");
    assert_eq!(repo.checkpoint_file(&id, "run.log"), "log\n");
}
