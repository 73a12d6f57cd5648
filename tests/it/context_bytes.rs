//! A checkpoint holds the bytes on disk, and undo writes them back byte
//! for byte, whatever the repository's attributes and config convert on
//! the way in and out: `text=auto` over CRLF files,
//! `eol`, a lossy clean filter, `ident`, `working-tree-encoding`,
//! `core.autocrlf` in the repository's config or the command's
//! environment. Each through the shim's `reset --hard`, then `git ward
//! undo`.

use crate::common::TestRepo;

const C1: (&str, &str) = ("WARD_CONTRACT", "c1");

/// An agent's repository with `f.txt` committed under `attributes`.
fn committed_under(attributes: &str, committed: &[u8]) -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.ward(["install"]).ok();
    if !attributes.is_empty() {
        repo.write(".gitattributes", attributes);
    }
    std::fs::write(repo.dir.join("f.txt"), committed).unwrap();
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "f"]).ok();
    repo
}

/// `f.txt` holds `edited` (never committed); the shim's `reset --hard`
/// with `env` drops it; undo brings back exactly those bytes.
fn reset_then_undo(repo: &TestRepo, edited: &[u8], env: &[(&str, &str)]) {
    std::fs::write(repo.dir.join("f.txt"), edited).unwrap();
    let mut env = env.to_vec();
    env.push(C1);
    repo.shim_env(["reset", "-q", "--hard"], &env).ok();
    assert_ne!(std::fs::read(repo.dir.join("f.txt")).unwrap(), edited);
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(
        std::fs::read(repo.dir.join("f.txt")).unwrap(),
        edited,
        "{}",
        String::from_utf8_lossy(edited)
    );
}

#[test]
fn crlf_files_under_text_auto_come_back_with_their_crlf() {
    let repo = committed_under("* text=auto\n", b"a\nb\n");
    reset_then_undo(&repo, b"one\r\ntwo\r\n", &[]);
}

#[test]
fn mixed_endings_under_eol_crlf_come_back_as_they_were() {
    let repo = committed_under("* text eol=crlf\n", b"a\n");
    reset_then_undo(&repo, b"one\ntwo\r\nthree", &[]);
}

#[test]
fn a_lossy_clean_filter_of_the_repository_leaves_the_bytes_alone() {
    let repo = committed_under("f.txt filter=upper\n", b"a\n");
    repo.git(["config", "filter.upper.clean", "tr a-z A-Z"])
        .ok();
    repo.git(["config", "filter.upper.smudge", "cat"]).ok();
    reset_then_undo(&repo, b"changed by hand\n", &[]);
}

#[test]
fn an_expanded_ident_comes_back_as_written() {
    let repo = committed_under("f.txt ident\n", b"$Id$\n");
    reset_then_undo(&repo, b"$Id: written by hand $ and more\n", &[]);
}

#[test]
fn a_working_tree_encoding_is_not_applied_twice() {
    let utf16 =
        |text: &str| -> Vec<u8> { text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect() };
    let repo = committed_under("f.txt text working-tree-encoding=UTF-16LE\n", &utf16("a\n"));
    reset_then_undo(&repo, &utf16("b\r\nc\n"), &[]);
}

#[test]
fn autocrlf_from_the_config_or_the_environment_leaves_the_bytes_alone() {
    let repo = committed_under("", b"a\n");
    repo.git(["config", "core.autocrlf", "true"]).ok();
    reset_then_undo(&repo, b"one\r\ntwo\n", &[]);
    let repo = committed_under("", b"a\n");
    reset_then_undo(
        &repo,
        b"one\r\ntwo\n",
        &[(
            "GIT_CONFIG_PARAMETERS",
            "'core.autocrlf'='true' 'core.safecrlf'='false'",
        )],
    );
}
