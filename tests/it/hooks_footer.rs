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

/// An agent's environment with contract `c1` and this editor.
fn c1_editing(editor: &str) -> [(&str, &str); 3] {
    [
        ("WARD_AGENT", "1"),
        ("WARD_CONTRACT", "c1"),
        ("GIT_EDITOR", editor),
    ]
}

/// An editor that runs `script` (sh, the message file as `$1`).
fn editor(repo: &TestRepo, script: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let editor = repo.path("editor.sh");
    std::fs::write(&editor, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    editor.to_str().unwrap().to_string()
}

/// An editor that puts a line `edited` and a blank line before the message.
fn prepending_editor(repo: &TestRepo) -> String {
    editor(
        repo,
        "{ echo edited; echo; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"",
    )
}

/// Asserts `rev` carries exactly the footer of contract `c1`.
#[track_caller]
fn one_c1_footer(repo: &TestRepo, rev: &str) {
    assert_eq!(contracts(repo, rev), ["c1"], "{}", message(repo, rev));
}

#[test]
fn commit_m_gets_one_trailer() {
    let repo = on_agent_branch();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "work"], C1)
        .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
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
        &c1_editing("true"),
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
    one_c1_footer(&repo, "HEAD");
    repo.git(["checkout", "-q", "-b", "pick", "main"]).ok();
    repo.git_env(["cherry-pick", "side"], C1).ok();
    one_c1_footer(&repo, "HEAD");
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
    one_c1_footer(&repo, "HEAD");
}

/// `git am` runs neither footer hook; applypatch-msg puts the footer in
/// each mail's message, once, after the mail's own trailers, and keeps a
/// `#` line of the mail (am strips no comments). A person's `am` gets none.
#[test]
fn mails_applied_with_am_get_the_footer() {
    let repo = on_agent_branch();
    repo.git(["checkout", "-q", "-b", "mail", "main"]).ok();
    repo.write("one.txt", "one\n");
    repo.git(["add", "one.txt"]).ok();
    repo.git([
        "commit",
        "-q",
        "-m",
        "first mail\n\n#42 stays\n\nSigned-off-by: A <a@b>",
    ])
    .ok();
    repo.write("two.txt", "two\n");
    repo.commit("second mail");
    let patches = repo.path("patches");
    repo.git([
        "format-patch",
        "-q",
        "-o",
        patches.to_str().unwrap(),
        "main",
    ])
    .ok();
    let mut mails: Vec<String> = std::fs::read_dir(&patches)
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .collect();
    mails.sort();
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    let mut am = vec!["am", "-q"];
    am.extend(mails.iter().map(String::as_str));
    repo.git_env(am.clone(), C1).ok();
    one_c1_footer(&repo, "HEAD");
    one_c1_footer(&repo, "HEAD~1");
    let first = message(&repo, "HEAD~1");
    assert!(
        first.contains("#42 stays\n\nSigned-off-by: A <a@b>\nContract: c1\n"),
        "{first}"
    );
    // A person's mails carry no footer.
    repo.git(["checkout", "-q", "-b", "person", "main"]).ok();
    repo.git(am).ok();
    assert!(
        contracts(&repo, "HEAD").is_empty(),
        "{}",
        message(&repo, "HEAD")
    );
}

/// A commit written again under another contract (amend, cherry-pick, the
/// picks of a rebase) keeps the footers it had and gets the current one:
/// the footers name every contract that wrote it, and a person's commit an
/// agent replayed counts as agent-made.
#[test]
fn a_rewritten_commit_names_every_contract_that_wrote_it() {
    let repo = on_agent_branch();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "work"], C1)
        .ok();
    let c2 = [("WARD_AGENT", "1"), ("WARD_CONTRACT", "c2")];
    repo.git_env(
        ["commit", "-q", "--amend", "--allow-empty", "--no-edit"],
        &c2,
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1", "c2"]);
    repo.git(["checkout", "-q", "-b", "pick", "main"]).ok();
    repo.git_env(
        ["cherry-pick", "--allow-empty", "agent/c1"],
        &[("WARD_AGENT", "1"), ("WARD_CONTRACT", "c3")],
    )
    .ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1", "c2", "c3"]);

    // A person's commit on the agent branch, replayed by the agent's rebase.
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    repo.write("fix.txt", "fix\n");
    repo.commit("a reviewer's fix");
    assert!(contracts(&repo, "HEAD").is_empty());
    repo.git(["checkout", "-q", "main"]).ok();
    repo.write("main.txt", "main\n");
    repo.commit("main moved");
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    repo.git_env(["rebase", "-q", "main"], C1).ok();
    one_c1_footer(&repo, "HEAD");
    assert_eq!(contracts(&repo, "HEAD~"), ["c1", "c2"]);
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
    // `git ward save` puts it above its trailers, which stay last, where
    // git reads them.
    repo.ward_env(["save", "-m", "saved", "--phase", "2"], C1)
        .ok();
    let saved = message(&repo, "HEAD");
    assert!(saved.contains("[Contract: c1]\n\nCompleted: "), "{saved}");
    let phase = repo
        .git(["log", "-1", "--format=%(trailers:key=Phase,valueonly)"])
        .ok()
        .stdout;
    assert_eq!(phase.trim(), "2", "{saved}");
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
    let editor = prepending_editor(&repo);
    repo.git_env(["commit", "-q", "--allow-empty"], &c1_editing(&editor))
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
        &c1_editing("true"),
    )
    .ok();
    assert_eq!(message(&repo, "HEAD"), "work\n\nContract: c1\n\n");
}

/// How many lines of the message are the footer.
fn footer_lines(repo: &TestRepo, rev: &str) -> usize {
    message(repo, rev)
        .lines()
        .filter(|l| *l == "Contract: c1")
        .count()
}

#[test]
fn a_squash_keeps_one_footer() {
    let repo = on_agent_branch();
    repo.write("a.txt", "a\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git_env(["commit", "-q", "-m", "first"], C1).ok();
    repo.write("a.txt", "b\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git_env(["commit", "-q", "--squash", "HEAD", "-m", "extra"], C1)
        .ok();
    let rebase = |sequence_editor: &str| {
        repo.git_env(
            ["rebase", "-q", "-i", "--autosquash", "HEAD~2"],
            &[
                ("WARD_AGENT", "1"),
                ("WARD_CONTRACT", "c1"),
                ("GIT_SEQUENCE_EDITOR", sequence_editor),
                ("GIT_EDITOR", "true"),
            ],
        )
        .ok();
    };
    rebase("true");
    assert_eq!(footer_lines(&repo, "HEAD"), 1, "{}", message(&repo, "HEAD"));
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
    // A plain `squash` line; the second message is signed off.
    repo.git_env(["commit", "-q", "--allow-empty", "-s", "-m", "more"], C1)
        .ok();
    rebase("sed -i 2s/^pick/squash/");
    let squashed = message(&repo, "HEAD");
    assert_eq!(footer_lines(&repo, "HEAD"), 1, "{squashed}");
    assert_eq!(contracts(&repo, "HEAD"), ["c1"], "{squashed}");
    assert!(
        squashed.ends_with("Signed-off-by: Test <test@example.com>\nContract: c1\n\n"),
        "{squashed}"
    );
}

#[test]
fn a_contract_line_inside_the_message_still_gets_the_trailer() {
    let repo = on_agent_branch();
    let cases: [(&[&str], &str); 2] = [
        (
            &["Implement parser", "Contract: c1", "Follow-up work."],
            "Implement parser\n\nFollow-up work.\n\nContract: c1\n\n",
        ),
        // A line of prose stays as it is written.
        (
            &["s", "the task is\nContract: c1\nas agreed"],
            "s\n\nthe task is\nContract: c1\nas agreed\n\nContract: c1\n\n",
        ),
    ];
    for (paragraphs, want) in cases {
        let mut args = vec!["commit", "-q", "--allow-empty"];
        args.extend(paragraphs.iter().flat_map(|p| ["-m", p]));
        repo.git_env(args, C1).ok();
        assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
        assert_eq!(message(&repo, "HEAD"), want);
    }
}

/// `commit.template` set, on `agent/c1`.
fn with_template() -> TestRepo {
    let repo = on_agent_branch();
    let template = repo.path("template.txt");
    std::fs::write(&template, "Template subject\n\n# describe the change\n").unwrap();
    repo.git(["config", "commit.template", template.to_str().unwrap()])
        .ok();
    repo
}

/// A message that is the template's text, however it came: every commit
/// git makes carries the footer (an unedited template too, which the
/// footer makes an edited one).
#[test]
fn a_message_equal_to_the_template_carries_the_footer() {
    let repo = with_template();
    let file = repo.path("msg.txt");
    std::fs::write(&file, "Template subject\n").unwrap();
    let file = file.to_str().unwrap();
    let forms: [&[&str]; 4] = [
        &["-m", "Template subject"],
        &["-F", file],
        &["-e", "-F", file],
        &[],
    ];
    for extra in forms {
        let before = repo.rev("HEAD");
        let mut args = vec!["commit", "-q", "--allow-empty"];
        args.extend(extra);
        let run = repo.git_env(args, &c1_editing("true"));
        assert_ne!(repo.rev("HEAD"), before, "{extra:?}: {}", run.stderr);
        assert_eq!(contracts(&repo, "HEAD"), ["c1"], "{extra:?}");
    }
}

#[test]
fn a_commit_made_from_a_template_carries_the_footer() {
    let repo = with_template();
    let editor = prepending_editor(&repo);
    let editor = editor.as_str();
    for (editor, extra) in [
        (editor, None),
        (editor, Some("--no-verify")),
        // git keeps an unedited template then; so does the footer.
        ("true", Some("--allow-empty-message")),
    ] {
        let mut args = vec!["commit", "-q", "--allow-empty"];
        args.extend(extra);
        repo.git_env(args, &c1_editing(editor)).ok();
        assert_eq!(contracts(&repo, "HEAD"), ["c1"], "{extra:?}");
    }
    assert_eq!(
        message(&repo, "HEAD"),
        "Template subject\n\nContract: c1\n\n"
    );
}

/// A message that is not UTF-8 (a Latin-1 byte) gets the footer too
/// (git then stores it converted, with a warning of its own).
#[test]
fn a_message_that_is_not_utf8_gets_the_footer() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let repo = on_agent_branch();
    let message = OsStr::from_bytes(b"fix caf\xe9");
    let args = ["commit", "-q", "--allow-empty", "-m"].map(OsStr::new);
    repo.git_env(args.into_iter().chain([message]), C1).ok();
    assert_eq!(contracts(&repo, "HEAD"), ["c1"]);
}

/// A subject starting with `#` (an issue number) is text where git keeps
/// it (`-m`, `save`): the footer is added once, as a trailer.
#[test]
fn a_subject_starting_with_a_hash_gets_one_footer() {
    let repo = on_agent_branch();
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "#42 fix the bug"],
        C1,
    )
    .ok();
    assert_eq!(
        message(&repo, "HEAD"),
        "#42 fix the bug\n\nContract: c1\n\n"
    );
    repo.ward_env(["save", "-m", "#43 more"], C1).ok();
    one_c1_footer(&repo, "HEAD");
    assert!(message(&repo, "HEAD").starts_with("#43 more"));
}

/// `commit.cleanup = verbatim` keeps `#` lines from an editor, and
/// `merge -m` keeps them too: the footer goes after them, once.
#[test]
fn hash_lines_git_keeps_by_config_or_in_a_merge_get_one_footer() {
    let repo = on_agent_branch();
    repo.git(["config", "commit.cleanup", "verbatim"]).ok();
    let editor = editor(&repo, "echo '#12 fix the parser' > \"$1\"");
    repo.git_env(["commit", "-q", "--allow-empty"], &c1_editing(&editor))
        .ok();
    one_c1_footer(&repo, "HEAD");
    repo.git(["config", "--unset", "commit.cleanup"]).ok();
    repo.git(["checkout", "-q", "-b", "topic", "main"]).ok();
    repo.write("t.txt", "t\n").commit("topic");
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    repo.git_env(
        ["merge", "-q", "--no-ff", "-m", "#5 merge topic", "topic"],
        C1,
    )
    .ok();
    one_c1_footer(&repo, "HEAD");
}
