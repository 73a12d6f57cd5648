//! `git ward mcp`: driven by the official Python SDK, and by hand for
//! malformed input and output bounds.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{real_git, sibling, ward_bin, TestRepo};
use crate::tools;

/// The environment that runs git-ward and the test's git.
fn command(repo: &TestRepo, program: &std::path::Path) -> Command {
    let mut cmd = Command::new(program);
    repo.hermetic(&mut cmd);
    let path = format!(
        "{}:{}",
        real_git().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path).env("WARD_REAL_GIT", real_git());
    cmd
}

/// A repository as the Python driver expects it (see tests/mcp_client.py).
fn prepared() -> TestRepo {
    let repo = TestRepo::new();
    let origin = sibling(&repo, "origin.git");
    repo.git([
        "init".as_ref(),
        "-q".as_ref(),
        "--bare".as_ref(),
        origin.as_os_str(),
    ])
    .ok();
    repo.git([
        "remote".as_ref(),
        "add".as_ref(),
        "origin".as_ref(),
        origin.as_os_str(),
    ])
    .ok();
    repo.git(["push", "-q", "-u", "origin", "main"]).ok();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    repo.write("feature.txt", "f\n").commit("feature work");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "changed\n");
    repo.write("new.txt", "new\n");
    repo
}

#[test]
fn the_python_sdk_client_drives_every_tool() {
    let repo = prepared();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client.py");
    let python = tools::python();
    let out = command(&repo, &python)
        .args([
            script.as_ref(),
            ward_bin().as_os_str(),
            repo.dir.as_os_str(),
            repo.shim_dir.join("git").as_os_str(),
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run the driver");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("ALL OK"),
        "driver failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    let lines: Vec<Value> = repo
        .audit_records(&[])
        .into_iter()
        .filter(|r| r["source"] == "mcp")
        .collect();
    let audit = format!("{lines:#?}");
    let has = |op: &str, tier: u64, decision: &str| {
        lines
            .iter()
            .any(|r| r["operation"] == op && r["tier"] == tier && r["decision"] == decision)
    };
    assert!(has("git.status", 0, "allow"), "{audit}");
    assert!(has("ward.save", 1, "deny"), "{audit}");
    assert!(has("ward.save", 1, "autoswitch"), "{audit}");
    assert!(has("git.checkout", 1, "deny"), "{audit}");
    assert!(has("ward.rollback", 1, "allow"), "{audit}");
}

/// A server on pipes, for hand-written lines.
pub struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl Raw {
    pub fn start(repo: &TestRepo) -> Raw {
        Raw::start_with(repo, &[])
    }

    pub fn start_with(repo: &TestRepo, args: &[&str]) -> Raw {
        let mut child = command(repo, &ward_bin())
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start git-ward mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(20))
            .expect("a reply within 20 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("reply is not JSON ({e}): {line}"))
    }

    fn ask(&mut self, line: &str) -> Value {
        self.send(line);
        self.recv()
    }

    pub fn call(&mut self, id: u64, tool: &str, args: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": tool, "arguments": args}});
        let reply = self.ask(&msg.to_string());
        assert_eq!(reply["id"], id, "{reply}");
        reply["result"].clone()
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn malformed_messages_get_json_rpc_errors_and_the_server_keeps_serving() {
    let repo = TestRepo::new();
    let mut s = Raw::start(&repo);
    let init = s.ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        init["result"]["capabilities"]["tools"]["listChanged"],
        false
    );
    // A notification gets no reply: the next reply is the ping's.
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let cases = [
        ("{not json", -32700, Value::Null),
        ("\"just a string\"", -32600, Value::Null),
        (r#"{"id":2,"method":"ping"}"#, -32600, json!(2)),
        (r#"{"jsonrpc":"2.0","id":3}"#, -32600, json!(3)),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"no/such"}"#,
            -32601,
            json!(4),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#,
            -32602,
            json!(5),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}"#,
            -32602,
            json!(6),
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"git_log","arguments":[1]}}"#,
            -32602,
            json!(7),
        ),
        ("[]", -32600, Value::Null),
    ];
    for (line, code, id) in cases {
        let reply = s.ask(line);
        assert_eq!(reply["error"]["code"], code, "{line} -> {reply}");
        assert_eq!(reply["id"], id, "{line} -> {reply}");
    }
    let pong = s.ask(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
    let batch = s.ask(r#"[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":9,"method":"tools/list"}]"#);
    let replies = batch.as_array().expect("a batch reply");
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[1]["result"]["tools"].as_array().unwrap().len(), 12);
    // Tool-level errors are results with isError, carrying kind, code and hint.
    let r = s.call(10, "git_show", json!({"commit_ref": "--output=/tmp/x"}));
    assert_eq!(r["isError"], true);
    assert_eq!(r["structuredContent"]["error"], "invalid_argument");
    assert_eq!(r["structuredContent"]["code"], "EN-GIT-I-001");
    // A path outside the repository is the caller's mistake, not git's.
    for path in ["../../etc/passwd", "/etc/passwd", "a/../../b"] {
        let r = s.call(13, "git_diff", json!({ "file_path": path }));
        assert_eq!(
            r["structuredContent"]["error"], "invalid_argument",
            "{path}: {r}"
        );
        assert_eq!(
            r["structuredContent"]["code"], "EN-GIT-I-001",
            "{path}: {r}"
        );
    }
    let r = s.call(14, "git_diff", json!({ "file_path": "a/../README" }));
    assert_eq!(r["isError"], false, "{r}");
    let r = s.call(11, "git_checkout", json!({}));
    assert_eq!(r["isError"], true);
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("branch_name"));
    let r = s.call(12, "git_status", json!({}));
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(r["structuredContent"]["branch"], "main");
    // A command line as one string is split into words.
    let r = s.call(13, "explain", json!({"args": "commit -m x"}));
    assert_eq!(r["structuredContent"]["code"], "EN-GIT-D-003", "{r}");
}

#[test]
fn an_endless_line_is_read_past_in_bounded_memory() {
    let repo = TestRepo::new();
    let mut s = Raw::start(&repo);
    let junk = "x".repeat(64 << 20);
    let reply = s.ask(&junk);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(reply["error"]["message"]
        .as_str()
        .unwrap()
        .contains("at most"));
    let pong = s.ask(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert_eq!(pong["id"], 1, "{pong}");
    // The peak resident size stays well below the line's.
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    assert!(peak_kib < 48 << 10, "peak {peak_kib} kB");
}

#[test]
fn large_outputs_are_bounded_with_a_note() {
    let repo = TestRepo::new();
    repo.local_policy("[mcp]\nmax_output_bytes = 2048\n");
    let big: String = (0..2000).map(|i| format!("line {i}\n")).collect();
    repo.write("big.txt", &big);
    repo.git(["add", "big.txt"]).ok();
    let mut s = Raw::start(&repo);
    let r = s.call(1, "git_diff", json!({}));
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.len() <= 2048, "{}", text.len());
    assert!(
        text.contains("[output truncated:") && text.contains("pass file_path"),
        "{text}"
    );
    let r = s.call(2, "git_diff", json!({"stat_only": true}));
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("big.txt"));
    for i in 0..300 {
        repo.write(&format!("f{i:03}.txt"), "x");
    }
    let r = s.call(3, "git_status", json!({}));
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.len() <= 2048, "{}", text.len());
    let v = &r["structuredContent"];
    assert_eq!(v["truncated"]["total_entries"]["untracked"], 300, "{v}");
    assert_eq!(v["staged"][0]["path"], "big.txt");
}

/// The text of a tool result, after checking that it and its structured
/// content each fit `max` bytes.
fn fitting(r: &Value, max: usize, what: &str) -> String {
    let text = r["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{what} at {max}: no text: {r}"));
    assert!(
        text.len() <= max,
        "{what} at {max}: {} bytes: {text}",
        text.len()
    );
    if let Some(s) = r.get("structuredContent") {
        let len = s.to_string().len();
        assert!(len <= max, "{what} at {max}: structured {len} bytes: {s}");
    }
    text.to_string()
}

#[test]
fn every_tool_honours_small_bounds_note_included() {
    let repo = TestRepo::new();
    let line = "añb€c😀 ".repeat(40) + "\n";
    repo.write("wide.txt", &line.repeat(30)).commit("wide");
    for i in 0..5 {
        repo.write("n.txt", &format!("{i}\n"))
            .commit(&format!("commit {i} with a subject long enough to matter"));
    }
    repo.write("wide.txt", &line.repeat(31).replace('a', "ä"));
    let id = repo.checkpoint("before the bounds");
    let calls = [
        ("git_status", json!({})),
        ("git_log", json!({"max_count": 50, "oneline": false})),
        ("git_show", json!({"commit_ref": "HEAD~5"})),
        ("git_diff", json!({})),
        ("git_checkout", json!({"branch_name": "main"})),
        (
            "save",
            json!({"message": "denied on main without a contract"}),
        ),
        ("explain", json!({"args": ["reset", "--hard", "HEAD~1"]})),
        ("checkpoint_create", json!({"message": "one more"})),
        ("checkpoint_list", json!({})),
        ("rollback", json!({"checkpoint_id": id})),
        ("undo", json!({})),
        ("git_log", json!({"no_such_argument": 1})),
    ];
    let mut s = Raw::start(&repo);
    let mut n = 0;
    for max in [0, 7, 40, 300, 1000] {
        repo.local_policy(&format!("[mcp]\nmax_output_bytes = {max}\n"));
        for (tool, args) in &calls {
            n += 1;
            fitting(&s.call(n, tool, args.clone()), max, tool);
        }
    }
}

#[test]
fn a_cut_keeps_whole_characters_and_the_note() {
    let repo = TestRepo::new();
    // One long line of four-, three- and two-byte characters: no line end
    // near the cut to fall back on.
    repo.write("wide.txt", &("😀€é".repeat(400) + "\n"));
    repo.git(["add", "wide.txt"]).ok();
    let mut s = Raw::start(&repo);
    let whole = fitting(&s.call(1, "git_diff", json!({})), 65536, "git_diff");
    assert!(whole.len() > 3000, "{whole}");
    for max in 500..508 {
        repo.local_policy(&format!("[mcp]\nmax_output_bytes = {max}\n"));
        let text = fitting(&s.call(max as u64, "git_diff", json!({})), max, "git_diff");
        let (shown, note) = text
            .split_once("\n[output truncated: ")
            .unwrap_or_else(|| panic!("no note at {max}: {text}"));
        assert!(whole.starts_with(shown), "{max}: {shown}");
        assert!(
            note.ends_with("or stat_only: true for the list of files]"),
            "{note}"
        );
        // Short of the bound by less than a character and a digit of the count.
        assert!(max - text.len() < 5, "{max}: only {} bytes", text.len());
    }
    // Bounds too small for the advice, for the counts, for any note.
    for (max, want) in [(60, "shown]"), (12, "[truncated]"), (5, "[trun"), (0, "")] {
        repo.local_policy(&format!("[mcp]\nmax_output_bytes = {max}\n"));
        let text = fitting(
            &s.call(600 + max as u64, "git_diff", json!({})),
            max,
            "git_diff",
        );
        assert!(text.ends_with(want), "{max}: {text}");
    }
}

#[test]
fn structured_content_follows_the_negotiated_version() {
    let repo = TestRepo::new();
    let mut s = Raw::start(&repo);
    let init = s.ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}"#);
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");
    let r = s.call(2, "git_status", json!({}));
    assert!(r.get("structuredContent").is_none(), "{r}");
    let v: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(v["branch"], "main");
}

/// The server serves the repository it was started in, or those `--repo`
/// names: another repository's path is refused.
#[test]
fn the_server_serves_only_its_repositories() {
    let repo = TestRepo::new();
    let other = TestRepo::new();
    other.git(["switch", "-q", "-c", "elsewhere"]).ok();
    let other_dir = other.dir.to_str().unwrap();
    let mut s = Raw::start(&repo);
    let r = s.call(1, "git_status", json!({ "repo_path": other_dir }));
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"]["error"], "repository_not_served",
        "{r}"
    );
    let r = s.call(2, "git_status", json!({"repo_path": "/nonexistent/x"}));
    assert_eq!(r["structuredContent"]["error"], "invalid_argument", "{r}");
    let r = s.call(
        3,
        "git_status",
        json!({ "repo_path": repo.dir.to_str().unwrap() }),
    );
    assert_eq!(r["structuredContent"]["branch"], "main", "{r}");

    let mut s = Raw::start_with(&repo, &["--repo", ".", "--repo", other_dir]);
    let r = s.call(1, "git_status", json!({ "repo_path": other_dir }));
    assert_eq!(r["structuredContent"]["branch"], "elsewhere", "{r}");
    let r = s.call(2, "git_status", json!({}));
    assert_eq!(r["structuredContent"]["branch"], "main", "{r}");
}

#[test]
fn the_integration_guide_entries_parse_and_start_this_server() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/integrations.md"))
            .unwrap();
    let blocks = |lang: &str| -> Vec<String> {
        let fence = format!("```{lang}\n");
        text.split(&fence)
            .skip(1)
            .map(|rest| rest.split("```").next().unwrap().to_string())
            .collect()
    };
    let json_blocks = blocks("json");
    assert_eq!(json_blocks.len(), 1);
    let v: Value = serde_json::from_str(&json_blocks[0]).unwrap();
    assert_eq!(v["mcpServers"]["git-ward"]["command"], "git-ward");
    assert_eq!(v["mcpServers"]["git-ward"]["args"], json!(["mcp"]));
    // Every TOML block reads; the one with a server table is Codex's entry.
    let toml_blocks: Vec<toml::Table> = blocks("toml")
        .iter()
        .map(|b| toml::from_str(b).unwrap())
        .collect();
    let servers: Vec<_> = toml_blocks
        .iter()
        .filter(|t| t.contains_key("mcp_servers"))
        .collect();
    assert_eq!(servers.len(), 1);
    let server = &servers[0]["mcp_servers"]["git-ward"];
    assert_eq!(server["command"].as_str(), Some("git-ward"));
    assert_eq!(server["args"][0].as_str(), Some("mcp"));
    // The server those entries start answers `initialize` as git-ward.
    let repo = TestRepo::new();
    let mut s = Raw::start(&repo);
    let init = s.ask(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"doc","version":"1"}}}"#);
    assert_eq!(init["result"]["serverInfo"]["name"], "git-ward");
}

#[test]
fn checkout_saves_an_ignored_file_the_policy_keeps_first() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "other"]).ok();
    repo.write(".env", "tracked\n").commit("env tracked here");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write(".gitignore", ".env\n").commit("ignore");
    repo.git(["switch", "-q", "-c", "agent"]).ok();
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write(".env", "SECRET=1\n");
    let mut s = Raw::start(&repo);
    let r = s.call(1, "git_checkout", json!({"branch_name": "other"}));
    let id = r["structuredContent"]["checkpoint"]
        .as_str()
        .unwrap_or_else(|| panic!("no checkpoint: {r}"))
        .to_string();
    assert_eq!(repo.read(".env").as_deref(), Some("tracked\n"));
    assert_eq!(repo.checkpoint_file(&id, ".env"), "SECRET=1\n");
    // Undone as the shim's checkout would be: the file, and HEAD.
    drop(s);
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    assert_eq!(repo.branch(), "agent");
}

#[test]
fn checkout_of_a_name_git_resolves_to_another_ref_is_d006() {
    let repo = TestRepo::new();
    // A remote-tracking ref of a remote not configured, and a tag.
    repo.git(["update-ref", "refs/remotes/origin/main", "HEAD"])
        .ok();
    repo.git(["tag", "v1"]).ok();
    let mut s = Raw::start(&repo);
    for (i, name) in ["origin/main", "v1"].into_iter().enumerate() {
        let r = s.call(i as u64 + 1, "git_checkout", json!({ "branch_name": name }));
        assert_eq!(
            r["structuredContent"]["code"], "EN-GIT-D-006",
            "{name}: {r}"
        );
    }
    // A name nothing resolves is the caller's mistake.
    let r = s.call(3, "git_checkout", json!({"branch_name": "nothing"}));
    assert_eq!(r["structuredContent"]["code"], "EN-GIT-I-001", "{r}");
    assert_eq!(repo.branch(), "main");
    // Refused calls are in the audit log, arguments refused before the
    // rules were asked too.
    let r = s.call(4, "git_diff", json!({"file_path": "../outside"}));
    assert_eq!(r["structuredContent"]["code"], "EN-GIT-I-001", "{r}");
    let lines = repo.audit_records(&["--decision", "deny"]);
    let refused = |op: &str, code: &str| {
        lines
            .iter()
            .any(|l| l["source"] == "mcp" && l["operation"] == op && l["denial_code"] == code)
    };
    assert!(refused("git.checkout", "EN-GIT-D-006"), "{lines:?}");
    assert!(refused("git.checkout", "EN-GIT-I-001"), "{lines:?}");
    assert!(refused("mcp.git_diff", "EN-GIT-I-001"), "{lines:?}");
}

#[test]
fn checkout_reports_git_failures_and_timeouts_by_kind() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "other"]).ok();
    repo.write("README", "other\n").commit("other");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "uncommitted\n");
    let mut s = Raw::start(&repo);
    let r = s.call(1, "git_checkout", json!({"branch_name": "other"}));
    assert_eq!(r["structuredContent"]["error"], "checkout_failed", "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("would be overwritten") && text.contains("hint:"),
        "{text}"
    );
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.read("README").as_deref(), Some("uncommitted\n"));

    repo.write("README", "hello\n");
    repo.local_policy("[timeouts]\ngit_seconds = 1\n");
    let hook = repo.dir.join(".git/hooks/post-checkout");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nsleep 3\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let r = s.call(2, "git_checkout", json!({"branch_name": "other"}));
    assert_eq!(r["structuredContent"]["error"], "checkout_timeout", "{r}");
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("timeouts.git_seconds"));
}

/// Arguments reach git and git-ward as written: a message starting with
/// `-` stays a message, one a child cannot take (a NUL) is an invalid
/// argument with a hint, and a revision that is also a path stays one.
#[test]
fn arguments_reach_git_and_git_ward_as_written() {
    let repo = TestRepo::new();
    repo.write("docs/a", "x\n").commit("docs");
    repo.git(["branch", "docs"]).ok();
    let mut s = Raw::start(&repo);
    let r = s.call(1, "checkpoint_create", json!({"message": "--pin me"}));
    assert_eq!(r["isError"], false, "{r}");
    let (_, list) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert_eq!(list["checkpoints"][0]["description"], "--pin me");
    assert_eq!(list["checkpoints"][0]["pinned"], false);
    let r = s.call(2, "checkpoint_create", json!({"message": "a\u{0}b"}));
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("NUL") && text.contains("hint"), "{r}");
    let calls = [
        ("git_log", json!({"ref": "docs"})),
        ("git_show", json!({"commit_ref": "docs", "stat_only": true})),
        ("git_diff", json!({"from_ref": "docs"})),
    ];
    for (id, (tool, args)) in calls.into_iter().enumerate() {
        let r = s.call(10 + id as u64, tool, args);
        assert_eq!(r["isError"], false, "{tool}: {r}");
    }
}

/// A rollback that restores only part of its plan names, in the tool's
/// result, the safety checkpoint and each path it could not restore.
#[test]
fn a_partial_rollback_names_what_was_not_restored() {
    let repo = TestRepo::new();
    let id = repo.submodule_moved_since_checkpoint();
    repo.write("README", "changed\n");
    let mut s = Raw::start(&repo);
    let r = s.call(1, "rollback", json!({"checkpoint_id": id, "confirm": true}));
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("not restored: sub: "), "{text}");
    assert!(text.contains("safety checkpoint chk-"), "{text}");
}

/// A save the rules refuse is one audit line (the save's own), and a call
/// refused for its arguments names the active contract.
#[test]
fn a_refused_call_is_logged_once_with_its_contract() {
    let repo = TestRepo::new();
    let mut s = Raw::start(&repo);
    let r = s.call(1, "save", json!({"message": "work"}));
    assert_eq!(r["isError"], true, "{r}");
    let denied = repo.audit_records(&["--decision", "deny"]);
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0]["denial_code"], "EN-GIT-D-003");
    repo.ward(["contract", "start", "t1"]).ok();
    let r = s.call(2, "git_log", json!({"max_count": "many"}));
    assert_eq!(r["isError"], true, "{r}");
    let denied = repo.audit_records(&["--decision", "deny"]);
    assert_eq!(denied.len(), 2, "{denied:?}");
    assert_eq!(denied[1]["contract_id"], "t1", "{denied:?}");
}
