//! The audit log: the decision of every line,
//! journal lines, and `git ward audit` answering programs.

use crate::common::TestRepo;

/// A story that writes every kind of line: a denial, an automatic switch,
/// a checkpoint before a destructive command, ref changes journaled by
/// the hooks, and a tool command.
fn busy_log() -> TestRepo {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.shim(["commit", "--allow-empty", "-m", "x"]).code(1);
    let c1 = [("WARD_CONTRACT", "c1")];
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], &c1)
        .ok();
    repo.write("README", "changed\n");
    repo.shim_env(["reset", "-q", "--hard"], &c1).ok();
    repo.ward(["checkpoint", "-m", "by hand"]).ok();
    repo
}

#[test]
fn every_line_has_one_of_the_four_decisions_and_journal_lines_name_the_ref() {
    let repo = busy_log();
    let lines = repo.audit_records(&[]);
    for line in &lines {
        let decision = line["decision"].as_str().unwrap_or_default();
        assert!(
            ["allow", "deny", "autoswitch", "checkpoint"].contains(&decision),
            "{line}"
        );
    }
    for decision in ["deny", "autoswitch", "checkpoint", "allow"] {
        assert!(
            lines.iter().any(|l| l["decision"] == decision),
            "no {decision} line: {lines:#?}"
        );
    }
    // The commit on agent/c1, journaled by reference-transaction.
    let tip = repo.rev("agent/c1").unwrap();
    let journal = lines
        .iter()
        .find(|l| l["ref"] == "refs/heads/agent/c1" && l["new"] == tip.as_str())
        .unwrap_or_else(|| panic!("no journal line: {lines:#?}"));
    assert_eq!(journal["decision"], "allow", "{journal}");
    assert_eq!(
        journal["old"],
        repo.rev("main").unwrap().as_str(),
        "{journal}"
    );
    assert_eq!(journal["source"], "reference-transaction", "{journal}");
}

#[test]
fn audit_json_is_json_lines_and_a_failure_one_object_with_a_status() {
    let repo = busy_log();
    let all = repo.audit_records(&[]);
    assert!(all.len() >= 5, "{all:#?}");
    let denied = repo.audit_records(&["--decision", "deny"]);
    assert_eq!(denied.len(), 1, "{denied:#?}");
    assert_eq!(denied[0]["denial_code"], "EN-GIT-D-003");
    assert!(repo.audit_records(&["--contract", "nobody"]).is_empty());
    for bad in [
        &["--decision", "journal"][..],
        &["--since", "soon"],
        &["--contract", "../bad id"],
    ] {
        let mut args = vec!["audit", "--json"];
        args.extend_from_slice(bad);
        let (run, v) = repo.ward_json(args, &[]);
        assert_eq!(run.code, Some(2), "{bad:?}: {}", run.stderr);
        assert_eq!(v["status"], "I", "{bad:?}: {v}");
        assert_eq!(v["code"], "EN-GIT-I-001", "{bad:?}: {v}");
    }
    repo.ward(["audit", "--decision", "maybe"])
        .code(2)
        .stderr_has("ward: invalid [EN-GIT-I-001] 'maybe' is not a decision")
        .stderr_has("hint: use one of allow, deny, autoswitch, checkpoint");
    // A contract id no contract can have is a mistake, not an empty answer.
    repo.ward(["audit", "--contract", "../bad id"])
        .code(2)
        .stderr_has("ward: invalid [EN-GIT-I-001] invalid contract id '../bad id'")
        .stderr_has("hint: a contract id is 1 to 100 characters");
}

/// A line written with the decision `journal` (as earlier versions wrote
/// journal lines) reads back as a journal line with the decision `allow`.
#[test]
fn an_older_journal_line_reads_back_as_allow() {
    let repo = TestRepo::new();
    let dir = repo.dir.join(".git/ward/audit");
    std::fs::create_dir_all(&dir).unwrap();
    let line = serde_json::json!({"timestamp":"2026-01-01T00:00:01.000Z","started_at":"","duration_ms":0,"trace_id":"t-1","source":"reference-transaction","actor":"agent","contract_id":null,"operation":"git.ref-update","argv":[],"tier":1,"decision":"journal","branch_before":null,"branch_after":null,"actions_taken":[],"denial_code":null,"exit_code":0,"worktree":null,"ref":"refs/heads/x","old":"0".repeat(40),"new":"1".repeat(40)});
    std::fs::write(dir.join("audit.2026-01-01.jsonl"), format!("{line}\n")).unwrap();
    let lines = repo.audit_records(&["--decision", "allow"]);
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(lines[0]["ref"], "refs/heads/x");
}

/// While the policy cannot be read, a read-only command still passes and
/// its line is whole: when it ended, whose contract, which branch.
#[test]
fn a_read_while_the_policy_is_broken_is_logged_whole() {
    let repo = TestRepo::new();
    repo.local_policy("[branches]\nprotected = 3\n");
    repo.shim_env(["status", "--short"], &[("WARD_CONTRACT", "c1")])
        .ok();
    let lines = repo.audit_records(&["--since", "1h"]);
    let read = lines
        .iter()
        .find(|l| l["operation"] == "git.status")
        .unwrap_or_else(|| panic!("no status line in {lines:?}"));
    assert_ne!(read["timestamp"], "", "{read}");
    assert_eq!(read["contract_id"], "c1", "{read}");
    assert_eq!(read["branch_before"], "main", "{read}");
}

/// A refusal of a command that needs no repository (`git init` with
/// templates over this one, a clone into its git directory) is recorded in the repository it
/// was made in, like every other denial.
#[test]
fn a_refused_command_that_needs_no_repository_is_logged_in_this_one() {
    let repo = TestRepo::new();
    let c1 = [("WARD_CONTRACT", "c1")];
    // Templates of the command's choosing would be copied into it.
    let template = format!("--template={}", repo.tmp.path().join("tpl").display());
    repo.shim_env(["init", "-q", &template], &c1)
        .code(1)
        .stderr_has("EN-GIT-D-004");
    repo.shim_env(["clone", "-q", ".", ".git/sub"], &c1)
        .code(1)
        .stderr_has("EN-GIT-D-004");
    let denied = repo.audit_records(&["--decision", "deny"]);
    let ops: Vec<&str> = denied
        .iter()
        .map(|l| l["operation"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(ops, ["git.init", "git.clone"], "{denied:#?}");
    for line in &denied {
        assert_eq!(line["denial_code"], "EN-GIT-D-004", "{line}");
        assert_eq!(line["contract_id"], "c1", "{line}");
        assert_eq!(line["source"], "shim", "{line}");
        assert_eq!(line["exit_code"], 1, "{line}");
    }
}

/// A line of the log as `git ward` writes it (its fields in their order), at `time`.
fn logged(time: &str, trace: &str, contract: Option<&str>, argv: &[&str]) -> String {
    format!(
        r#"{{"timestamp":"{time}","started_at":"{time}","duration_ms":1,"trace_id":"{trace}","source":"shim","actor":"agent","contract_id":{},"operation":"git.status","argv":{},"tier":0,"decision":"allow","branch_before":"main","branch_after":"main","actions_taken":[],"denial_code":null,"exit_code":0,"worktree":null,"session_id":null}}"#,
        serde_json::json!(contract),
        serde_json::json!(argv),
    )
}

/// Three days of log read line by line: the files oldest first and each
/// file's lines in order; lines that are not records (empty, torn, not
/// text) and files of other names skipped; the table's columns as wide as
/// their widest cell in any file, the last day's included.
#[test]
fn audit_reads_day_files_in_order_and_the_table_fits_every_row() {
    let repo = TestRepo::new();
    let dir = repo.dir.join(".git/ward/audit");
    std::fs::create_dir_all(&dir).unwrap();
    let day = |d: &str, lines: &[String], tail: &[u8]| {
        let mut text = lines.join("\n").into_bytes();
        text.push(b'\n');
        text.extend_from_slice(tail);
        std::fs::write(dir.join(format!("audit.{d}.jsonl")), text).unwrap();
    };
    day(
        "2026-01-02",
        &[
            logged("2026-01-02T10:00:00.000Z", "b1", Some("c1"), &["status"]),
            "\n\u{7f} not a record {".into(),
            logged("2026-01-02T11:00:00.000Z", "b2", None, &["diff"]),
        ],
        b"\xff\xfe\n",
    );
    day(
        "2026-01-01",
        &[logged(
            "2026-01-01T09:00:00.000Z",
            "a1",
            Some("c1"),
            &["log"],
        )],
        b"",
    );
    // The newest file ends in a line a writer left torn.
    day(
        "2026-01-03",
        &[logged(
            "2026-01-03T08:00:00.000Z",
            "c1",
            Some("a-much-longer-contract"),
            &["commit", "-m", "x"],
        )],
        br#"{"timestamp":"2026-01-03T09"#,
    );
    std::fs::write(dir.join("notes.txt"), logged("x", "other", None, &[])).unwrap();

    let lines = repo.audit_records(&[]);
    let traces: Vec<&str> = lines
        .iter()
        .map(|l| l["trace_id"].as_str().unwrap())
        .collect();
    assert_eq!(traces, ["a1", "b1", "b2", "c1"], "{lines:#?}");
    let run = repo.ward(["audit", "--json", "--contract", "c1"]).ok();
    let want = [
        logged("2026-01-01T09:00:00.000Z", "a1", Some("c1"), &["log"]),
        logged("2026-01-02T10:00:00.000Z", "b1", Some("c1"), &["status"]),
    ];
    assert_eq!(run.stdout, format!("{}\n{}\n", want[0], want[1]));

    let table = repo.ward(["audit"]).ok().stdout;
    assert_eq!(
        table,
        "TIME                      SOURCE  DECISION  ACTOR  CONTRACT                CODE  COMMAND\n\
         2026-01-01T09:00:00.000Z  shim    allow     agent  c1                      -     log\n\
         2026-01-02T10:00:00.000Z  shim    allow     agent  c1                      -     status\n\
         2026-01-02T11:00:00.000Z  shim    allow     agent  -                       -     diff\n\
         2026-01-03T08:00:00.000Z  shim    allow     agent  a-much-longer-contract  -     commit -m x\n"
    );
    // No line matches: no table, not even its header.
    assert_eq!(repo.ward(["audit", "--contract", "c9"]).ok().stdout, "");
    assert_eq!(
        repo.ward(["audit", "--json", "--contract", "c9"])
            .ok()
            .stdout,
        ""
    );
}
