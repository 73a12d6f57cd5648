//! The contract footer on every commit path: once, as a git trailer.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_AGENT", "1"), ("WARD_CONTRACT", "c1")];

/// Hooks installed, on `agent/c1`.
fn on_agent_branch() -> TestRepo {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git(["checkout", "-q", "-b", "agent/c1"]).ok();
    repo
}

/// The `Contract` trailers of a commit, as git parses them.
fn contracts(repo: &TestRepo, rev: &str) -> Vec<String> {
    repo.git([
        "log",
        "-1",
        "--format=%(trailers:key=Contract,valueonly)",
        rev,
    ])
    .ok()
    .stdout
    .lines()
    .filter(|l| !l.is_empty())
    .map(String::from)
    .collect()
}

fn message(repo: &TestRepo, rev: &str) -> String {
    repo.git(["log", "-1", "--format=%B", rev]).ok().stdout
}

#[test]
fn commit_m_gets_one_trailer() {
    let repo = on_agent_branch();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "work"], C1)
        .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    let parsed = repo.git_env(["interpret-trailers", "--parse"], &[]).stdout;
    let _ = parsed;
    assert_eq!(message(&repo, "HEAD"), "work\n\nContract: c1\n\n");
}

#[test]
fn no_verify_still_gets_the_footer_and_amend_never_doubles_it() {
    let repo = on_agent_branch();
    repo.git_env(
        ["commit", "-q", "--no-verify", "--allow-empty", "-m", "work"],
        C1,
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    repo.git_env(
        ["commit", "-q", "--amend", "--allow-empty", "--no-edit"],
        C1,
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    repo.git_env(
        [
            "commit",
            "-q",
            "--amend",
            "--allow-empty",
            "-m",
            "work\n\nSigned-off-by: A <a@b>",
        ],
        C1,
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    assert!(message(&repo, "HEAD").contains("Signed-off-by: A <a@b>\nContract: c1\n"));
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-c", "HEAD"],
        &[
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "c1"),
            ("GIT_EDITOR", "true"),
        ],
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
}

#[test]
fn merges_cherry_picks_and_rewording_rebases() {
    let repo = on_agent_branch();
    repo.git(["checkout", "-q", "-b", "side", "main"]).ok();
    repo.write("side.txt", "side\n");
    repo.commit("side work");
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    repo.write("mine.txt", "mine\n");
    repo.commit("my work");
    repo.git_env(["merge", "-q", "--no-edit", "side"], C1).ok();
    assert_eq!(
        contracts(&repo, "HEAD"),
        ["c1"],
        "{}",
        message(&repo, "HEAD")
    );
    repo.git(["checkout", "-q", "-b", "pick", "main"]).ok();
    repo.git_env(["cherry-pick", "side"], C1).ok();
    assert_eq!(
        contracts(&repo, "HEAD"),
        ["c1"],
        "{}",
        message(&repo, "HEAD")
    );
    // Picking it again onto a branch with the footer already in the message.
    repo.git(["checkout", "-q", "-b", "pick2", "main"]).ok();
    repo.git_env(["cherry-pick", "pick"], C1).ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    // A rewording rebase keeps exactly one.
    repo.git_env(
        ["rebase", "-q", "-i", "main"],
        &[
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "c1"),
            ("GIT_SEQUENCE_EDITOR", "sed -i s/^pick/reword/"),
            ("GIT_EDITOR", "true"),
        ],
    )
    .ok();
    assert_eq!(
        contracts(&repo, "HEAD"),
        ["c1"],
        "{}",
        message(&repo, "HEAD")
    );
}

#[test]
fn the_bracket_form_is_one_setting_away() {
    let repo = on_agent_branch();
    repo.local_policy("[commit]\nfooter = \"[Contract: {contract}]\"\n");
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "work"], C1)
        .ok();
    repo.git_env(
        ["commit", "-q", "--amend", "--allow-empty", "--no-edit"],
        C1,
    )
    .ok();
    assert_eq!(message(&repo, "HEAD"), "work\n\n[Contract: c1]\n\n");
}

#[test]
fn humans_and_agents_without_a_contract_get_no_footer() {
    let repo = on_agent_branch();
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "a"],
        &[("WARD_AGENT", "1")],
    )
    .ok();
    assert!(contracts(&repo, "HEAD").is_empty());
    std::fs::create_dir_all(repo.dir.join(".git/ward")).unwrap();
    std::fs::write(repo.dir.join(".git/ward/contract"), "c7\n").unwrap();
    repo.git(["commit", "-q", "--allow-empty", "-m", "human"])
        .ok();
    assert!(contracts(&repo, "HEAD").is_empty());
    // The contract file counts for an agent.
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "b"],
        &[("CLAUDECODE", "1")],
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c7"]);
}

#[test]
fn a_message_written_in_the_editor_gets_it_from_commit_msg() {
    let repo = on_agent_branch();
    let editor = repo.path("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\n{ echo edited; echo; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.git_env(
        ["commit", "-q", "--allow-empty"],
        &[
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "c1"),
            ("GIT_EDITOR", editor.to_str().unwrap()),
        ],
    )
    .ok();
    assert_eq!(message(&repo, "HEAD"), "edited\n\nContract: c1\n\n");
}

#[test]
fn another_comment_char_is_respected() {
    let repo = on_agent_branch();
    repo.git(["config", "core.commentChar", ";"]).ok();
    repo.write("f.txt", "f\n");
    repo.git(["add", "f.txt"]).ok();
    // Verbose: the diff follows a scissors line made of the comment char;
    // a footer put after it would be cut away with the diff.
    repo.git_env(
        ["commit", "-q", "-v", "-e", "-m", "work"],
        &[
            ("WARD_AGENT", "1"),
            ("WARD_CONTRACT", "c1"),
            ("GIT_EDITOR", "true"),
        ],
    )
    .ok();
    assert_eq!(message(&repo, "HEAD"), "work\n\nContract: c1\n\n");
}
