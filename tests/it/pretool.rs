//! `git ward pretool <harness>`: each harness's documented hook input in,
//! its documented answer out (fixtures in tests/fixtures/pretool/).

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{Run, TestRepo};

const HARNESSES: [&str; 5] = ["claude", "codex", "gemini", "cursor", "copilot"];

/// The harness's documented input, asking about `command` run in `cwd`.
fn input(harness: &str, command: &str, cwd: &Path) -> String {
    let path = format!(
        "{}/tests/fixtures/pretool/{harness}/input.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    let cwd = cwd.to_string_lossy();
    v["cwd"] = cwd.as_ref().into();
    match harness {
        "cursor" => {
            v["command"] = command.into();
            v["workspace_roots"] = json!([cwd]);
        }
        "copilot" => {
            v["toolArgs"] = json!({"command": command, "description": "x"})
                .to_string()
                .into()
        }
        _ => v["tool_input"]["command"] = command.into(),
    }
    v.to_string()
}

/// What the answer says, read as the harness reads it.
#[derive(Debug, PartialEq)]
enum Said {
    Nothing,
    Allow(Option<String>),
    Deny(String),
    Ask(String),
    Rewrite(String),
}

fn said(harness: &str, v: &Value) -> Said {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    match harness {
        "claude" | "codex" => {
            let out = &v["hookSpecificOutput"];
            match out["permissionDecision"].as_str() {
                None => Said::Nothing,
                Some("deny") => Said::Deny(text(&out["permissionDecisionReason"])),
                Some("ask") => Said::Ask(text(&out["permissionDecisionReason"])),
                Some(_) if out["updatedInput"].is_object() => {
                    Said::Rewrite(text(&out["updatedInput"]["command"]))
                }
                Some(_) => {
                    Said::Allow(out["permissionDecisionReason"].as_str().map(str::to_string))
                }
            }
        }
        "gemini" => match (
            &v["hookSpecificOutput"]["tool_input"]["command"],
            v["decision"].as_str(),
        ) {
            (Value::String(c), _) => Said::Rewrite(c.clone()),
            (_, Some("deny")) => Said::Deny(text(&v["reason"])),
            (_, Some("allow")) => Said::Allow(v["systemMessage"].as_str().map(str::to_string)),
            _ => Said::Nothing,
        },
        "cursor" => match v["permission"].as_str() {
            Some("deny") => Said::Deny(text(&v["agent_message"])),
            Some("ask") => Said::Ask(text(&v["agent_message"])),
            Some("allow") => Said::Allow(v["agent_message"].as_str().map(str::to_string)),
            _ => panic!("cursor needs a permission: {v}"),
        },
        "copilot" => match v["permissionDecision"].as_str() {
            Some("deny") => Said::Deny(text(&v["permissionDecisionReason"])),
            Some("allow") => {
                Said::Allow(v["permissionDecisionReason"].as_str().map(str::to_string))
            }
            None => Said::Nothing,
            Some(other) => panic!("copilot: {other}"),
        },
        _ => unreachable!(),
    }
}

/// Runs `git ward pretool <harness>` on `stdin`: exit 0 and one JSON object, always.
fn ask(repo: &TestRepo, harness: &str, stdin: &str) -> (Run, Value) {
    let run = repo.ward_stdin(["pretool", harness], stdin);
    assert_eq!(run.code, Some(0), "{harness}: {}", run.stderr);
    let v = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{harness}: not JSON ({e}): {:?}", run.stdout));
    (run, v)
}

fn answer(repo: &TestRepo, harness: &str, command: &str) -> Said {
    let (_, v) = ask(repo, harness, &input(harness, command, &repo.dir));
    said(harness, &v)
}

fn is_no_opinion(harness: &str, said: &Said) -> bool {
    match harness {
        "cursor" => *said == Said::Allow(None),
        _ => *said == Said::Nothing,
    }
}

#[test]
fn each_harness_gets_denials_with_the_code_in_the_reason() {
    let repo = TestRepo::new();
    repo.write("sub/file", "x\n");
    for h in HARNESSES {
        match answer(&repo, h, "git push --force origin main") {
            Said::Deny(reason) => {
                assert!(
                    reason.contains("ward: denied [EN-GIT-D-00"),
                    "{h}: {reason}"
                );
                assert!(reason.contains("\nhint: "), "{h}: {reason}");
            }
            other => panic!("{h}: {other:?}"),
        }
        match answer(&repo, h, "cd sub && git commit -m x") {
            Said::Deny(reason) => assert!(reason.contains("[EN-GIT-D-003]"), "{h}: {reason}"),
            other => panic!("{h}: {other:?}"),
        }
        match answer(
            &repo,
            h,
            "/usr/bin/git -c core.hooksPath=/dev/null commit -m x",
        ) {
            Said::Deny(reason) => assert!(reason.contains("[EN-GIT-D-004]"), "{h}: {reason}"),
            other => panic!("{h}: {other:?}"),
        }
    }
    // Each judged invocation is in the audit log, under the harness's name.
    let denied = repo.audit_records(&["--decision", "deny"]);
    for h in HARNESSES {
        let mine: Vec<_> = denied.iter().filter(|r| r["source"] == h).collect();
        assert_eq!(mine.len(), 3, "{h}: {denied:#?}");
        assert_eq!(mine[1]["denial_code"], "EN-GIT-D-003");
        assert_eq!(mine[1]["actor"], "agent");
    }
}

#[test]
fn reads_are_allowed_and_other_commands_get_no_opinion() {
    let repo = TestRepo::new();
    for h in HARNESSES {
        let said = answer(&repo, h, "git status && git log");
        match h {
            // Codex acts on "deny" only: an allowed line is `{}`.
            "codex" => assert_eq!(said, Said::Nothing, "{h}"),
            _ => assert_eq!(said, Said::Allow(None), "{h}"),
        }
        let said = answer(&repo, h, "ls -la");
        assert!(is_no_opinion(h, &said), "{h}: {said:?}");
        // Git-ward vouches for git only: a line that also runs something else is not allowed by it.
        let said = answer(&repo, h, "git status && rm -rf build");
        assert!(is_no_opinion(h, &said), "{h}: {said:?}");
    }
}

#[test]
fn a_destructive_command_is_rewritten_through_the_shim_or_allowed_with_a_note() {
    let repo = TestRepo::new();
    let line = "bash -c \"git reset --hard\"";
    // No shim directory yet: allowed, saying that no checkpoint is taken.
    for h in HARNESSES {
        let said = answer(&repo, h, line);
        let note = match (h, said) {
            ("codex", Said::Nothing) | ("copilot", Said::Allow(_)) => continue,
            (_, Said::Allow(Some(note))) => note,
            (h, other) => panic!("{h}: {other:?}"),
        };
        assert!(note.contains("no checkpoint"), "{h}: {note}");
    }
    repo.ward(["install", "--shim"]).ok();
    for h in HARNESSES {
        let said = answer(&repo, h, line);
        match h {
            "claude" | "gemini" => match said {
                Said::Rewrite(command) => {
                    assert!(command.starts_with("export PATH="), "{h}: {command}");
                    assert!(command.ends_with(&format!("; {line}")), "{h}: {command}");
                }
                other => panic!("{h}: {other:?}"),
            },
            _ => assert!(
                !matches!(said, Said::Deny(_) | Said::Rewrite(_)),
                "{h}: {said:?}"
            ),
        }
    }
    // Claude Code's rewrite keeps the tool input's other fields.
    let (_, v) = ask(&repo, "claude", &input("claude", line, &repo.dir));
    assert_eq!(
        v["hookSpecificOutput"]["updatedInput"]["description"],
        "Run the tests"
    );
}

#[test]
fn a_line_it_cannot_read_is_never_allowed() {
    let repo = TestRepo::new();
    for h in HARNESSES {
        match (h, answer(&repo, h, "cd \"$X\" && git push --force")) {
            ("claude" | "cursor", Said::Ask(why)) | (_, Said::Deny(why)) => {
                assert!(why.contains("cannot read"), "{h}: {why}")
            }
            (h, other) => panic!("{h}: {other:?}"),
        }
    }
}

#[test]
fn a_malformed_input_is_answered_and_logged() {
    let repo = TestRepo::new();
    for h in HARNESSES {
        for bad in ["{not json", "[]", "{\"cwd\": 1}"] {
            let (_, v) = ask(&repo, h, bad);
            assert!(!matches!(said(h, &v), Said::Deny(_)), "{h}: {v}");
        }
        let records: Vec<_> = repo
            .audit_records(&[])
            .into_iter()
            .filter(|r| r["source"] == h)
            .collect();
        assert_eq!(records.len(), 3, "{h}: {records:#?}");
        assert_eq!(records[0]["operation"], "pretool");
    }
    // Claude Code shows the reason to the user.
    let (_, v) = ask(&repo, "claude", "{not json");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("could not judge"),
        "{v}"
    );
}

#[test]
fn the_directory_and_variables_of_the_line_are_the_ones_judged() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    let other = TestRepo::new();
    // The harness's cwd is elsewhere; the line goes to a repository on `main`.
    let line = format!("cd {} && git commit -m x", other.dir.display());
    match answer(&repo, "claude", &line) {
        Said::Deny(reason) => assert!(reason.contains("[EN-GIT-D-003]"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // A contract set for the commit makes it an autoswitch, which is allowed.
    let line = format!(
        "cd {} && WARD_CONTRACT=t1 git commit -m x",
        other.dir.display()
    );
    assert!(!matches!(answer(&repo, "claude", &line), Said::Deny(_)));
    // On `feature`, the same commit is fine.
    assert_eq!(
        answer(&repo, "claude", "git commit -m x"),
        Said::Allow(None)
    );
}
