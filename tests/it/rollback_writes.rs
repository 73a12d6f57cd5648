//! How a restore writes files: as `git checkout` writes them (filters,
//! end-of-line conversion, modes, symlinks), one failure reported while the
//! others are written, nothing left in the scratch directory or the
//! working tree.

use std::os::unix::fs::PermissionsExt;

use crate::common::TestRepo;

/// The entries a restore left in git-ward's scratch directory.
fn scratch_left(repo: &TestRepo) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(repo.dir.join(".git/ward/tmp")) else {
        return Vec::new();
    };
    dir.flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("checkout-"))
        .collect()
}

fn mode(repo: &TestRepo, rel: &str) -> u32 {
    std::fs::symlink_metadata(repo.dir.join(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

#[test]
fn converted_files_come_back_as_a_checkout_writes_them() {
    let repo = TestRepo::new();
    repo.git(["config", "filter.rev.clean", "rev"]).ok();
    repo.git(["config", "filter.rev.smudge", "rev"]).ok();
    // Each converts back to these very bytes on checkout.
    let files: [(&str, &[u8]); 4] = [
        ("a.txt", b"one\r\ntwo\r\n"),
        ("b.rev", b"abc\n"),
        ("run.sh", b"echo 1\n"),
        ("sub/new.txt", b"new\r\n"),
    ];
    repo.write(".gitattributes", "*.txt text eol=crlf\n*.rev filter=rev\n")
        .write("sub/.keep", "");
    for (path, content) in files {
        std::fs::write(repo.dir.join(path), content).unwrap();
    }
    std::fs::set_permissions(repo.dir.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    repo.commit("base");
    assert_eq!(
        repo.git(["show", "HEAD:b.rev"]).ok().stdout,
        "cba\n",
        "the clean filter ran"
    );
    repo.write("notes.md", "kept\n");
    repo.ward(["checkpoint"]).ok();
    // Then written over: they come back from their blobs, through the
    // checkout, not from bytes kept besides the checkpoint.
    for (path, _) in files {
        std::fs::write(repo.dir.join(path), "overwritten\n").unwrap();
    }
    std::fs::remove_file(repo.dir.join("sub/new.txt")).unwrap();
    let kept = repo.git([
        "ls-tree",
        "-r",
        "--name-only",
        "refs/ward/kept/chk-local-1/bytes",
    ]);
    assert_eq!(kept.stdout, "", "kept besides");

    repo.ward(["rollback", "chk-local-1", "--yes"])
        .ok()
        .stdout_has("Restored 4 files, removed 0 files");
    for (path, content) in files {
        assert_eq!(
            std::fs::read(repo.dir.join(path)).unwrap(),
            content,
            "{path}"
        );
    }
    assert_eq!(mode(&repo, "run.sh") & 0o111, 0o111, "still executable");
    assert_eq!(mode(&repo, "a.txt") & 0o111, 0, "not executable");
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "?? notes.md\n"
    );
}

#[test]
fn a_file_that_cannot_be_written_leaves_nothing_and_the_others_are_written() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n")
        .write("d/b.txt", "b\n")
        .commit("base");
    repo.write("a.txt", "a2\n").write("d/b.txt", "b2\n");
    repo.ward(["checkpoint"]).ok();
    repo.git(["reset", "-q", "--hard"]).ok();
    std::fs::remove_file(repo.dir.join("d/b.txt")).unwrap();
    std::fs::create_dir_all(repo.dir.join("d/b.txt/inside")).unwrap();

    repo.ward(["rollback", "chk-local-1", "--yes"])
        .code(3)
        .stdout_has("Restored 1 file, removed 0 files")
        .stdout_has("not restored: d/b.txt: ");
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    assert!(repo.dir.join("d/b.txt/inside").is_dir());
    assert_eq!(
        std::fs::read_dir(repo.dir.join("d")).unwrap().count(),
        1,
        "nothing beside the directory in the way"
    );
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
}

#[test]
fn a_scratch_directory_a_killed_restore_left_is_swept() {
    let repo = TestRepo::new();
    repo.write("a.txt", "a\n").commit("base");
    repo.write("a.txt", "a2\n");
    repo.ward(["checkpoint"]).ok();
    repo.git(["reset", "-q", "--hard"]).ok();
    let dead = format!("checkout-{}", crate::common::gone_pid());
    let left = repo.dir.join(".git/ward/tmp").join(&dead).join("files");
    std::fs::create_dir_all(&left).unwrap();
    std::fs::write(left.join("a.txt"), "half").unwrap();

    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
}
