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
        .filter(|n| n.starts_with("checkout-") || n.starts_with("fresh-"))
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
    repo.git(["config", "filter.up.clean", "cat"]).ok();
    repo.git(["config", "filter.up.smudge", "tr a-z A-Z"]).ok();
    // On disk as their blobs hold them (so no bytes are kept besides the
    // checkpoint): they come back through the checkout, converted.
    let files: [(&str, &[u8], &[u8]); 4] = [
        ("a.txt", b"one\ntwo\n", b"one\r\ntwo\r\n"),
        ("b.up", b"abc\n", b"ABC\n"),
        ("run.sh", b"echo 1\n", b"echo 1\n"),
        ("sub/new.txt", b"new\n", b"new\r\n"),
    ];
    repo.write(".gitattributes", "*.txt text eol=crlf\n*.up filter=up\n")
        .write("sub/.keep", "");
    for (path, disk, _) in files {
        std::fs::write(repo.dir.join(path), disk).unwrap();
    }
    std::fs::set_permissions(repo.dir.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    repo.commit("base");
    repo.write("notes.md", "kept\n");
    repo.ward(["checkpoint"]).ok();
    for (path, _, _) in files {
        std::fs::write(repo.dir.join(path), "overwritten\n").unwrap();
    }
    std::fs::remove_file(repo.dir.join("sub/new.txt")).unwrap();

    repo.ward(["rollback", "chk-local-1", "--yes"])
        .ok()
        .stdout_has("Restored 4 files, removed 0 files");
    for (path, _, checked_out) in files {
        let restored = std::fs::read(repo.dir.join(path)).unwrap();
        assert_eq!(restored, checked_out, "{path}");
    }
    assert_eq!(mode(&repo, "run.sh") & 0o111, 0o111, "still executable");
    assert_eq!(mode(&repo, "a.txt") & 0o111, 0, "not executable");
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
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
    let gone = crate::common::gone_pid();
    for left in [format!("checkout-{gone}/files"), format!("fresh-{gone}")] {
        let left = repo.dir.join(".git/ward/tmp").join(left);
        std::fs::create_dir_all(&left).unwrap();
        std::fs::write(left.join("a.txt"), "half").unwrap();
    }

    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
}

#[test]
fn an_attributes_file_deep_in_the_tree_still_converts_what_is_below_it() {
    let repo = TestRepo::new();
    // Its blob's bytes on disk: nothing is kept besides the checkpoint.
    repo.write("sub/deep/.gitattributes", "*.txt text eol=crlf\n")
        .write("sub/deep/a.txt", "one\n")
        .write("top.txt", "top\n")
        .commit("base");
    assert_eq!(
        repo.git(["show", "HEAD:sub/deep/a.txt"]).ok().stdout,
        "one\n"
    );
    repo.write("notes.md", "kept\n");
    repo.ward(["checkpoint"]).ok();
    repo.write("sub/deep/a.txt", "overwritten\n")
        .write("top.txt", "overwritten\n");

    repo.ward(["rollback", "chk-local-1", "--yes"])
        .ok()
        .stdout_has("Restored 2 files, removed 0 files");
    let read = |rel: &str| std::fs::read(repo.dir.join(rel)).unwrap();
    assert_eq!(
        read("sub/deep/a.txt"),
        b"one\r\n",
        "as a checkout writes it"
    );
    assert_eq!(read("top.txt"), b"top\n");
}

#[test]
fn files_without_conversion_come_back_with_their_modes_and_nothing_beside() {
    let repo = TestRepo::new();
    repo.write("run.sh", "echo 1\n").write("d/e/f.txt", "f\n");
    std::fs::set_permissions(repo.dir.join("run.sh"), PermissionsExt::from_mode(0o755)).unwrap();
    repo.commit("base");
    repo.write("run.sh", "echo 2\n").write("d/e/f.txt", "f2\n");
    repo.ward(["checkpoint"]).ok();
    repo.git(["reset", "-q", "--hard"]).ok();
    std::fs::remove_dir_all(repo.dir.join("d")).unwrap();

    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    assert_eq!(repo.read("run.sh").as_deref(), Some("echo 2\n"));
    assert_eq!(repo.read("d/e/f.txt").as_deref(), Some("f2\n"));
    assert_eq!(mode(&repo, "run.sh") & 0o111, 0o111, "still executable");
    assert_eq!(mode(&repo, "d/e/f.txt") & 0o111, 0);
    let listed = |rel: &str| std::fs::read_dir(repo.dir.join(rel)).unwrap().count();
    assert_eq!((listed("d"), listed("d/e")), (1, 1), "nothing beside them");
    assert_eq!(scratch_left(&repo), Vec::<String>::new());
}

#[test]
fn core_autocrlf_without_attributes_still_converts() {
    let repo = TestRepo::new();
    repo.write("a.txt", "one\n").commit("base");
    repo.git(["config", "core.autocrlf", "true"]).ok();
    repo.write("notes.md", "kept\n");
    repo.ward(["checkpoint"]).ok();
    repo.write("a.txt", "overwritten\n");

    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    let restored = std::fs::read(repo.dir.join("a.txt")).unwrap();
    assert_eq!(restored, b"one\r\n", "as a checkout writes it");
}
