//! `git ward install --harness` / `uninstall --harness`: merged into what is
//! there, idempotent, put back byte for byte.

use std::process::Command;

use serde_json::Value;

use crate::common::{fed, TestRepo};

const CLAUDE_SETTINGS: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm test)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [{ "type": "command", "command": "echo edit-hook" }]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": "echo post-hook" }]
      }
    ]
  },
  "model": "opus"
}
"#;

const CODEX_CONFIG: &str = "# my codex settings\nmodel = \"gpt-5\"   # the best one\n\n[mcp_servers.docs]\ncommand = \"docs-server\"\n\n[features]\nhooks = true\n";

const CODEX_HOOKS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      { "matcher": "apply_patch", "hooks": [{ "type": "command", "command": "python3 .codex/check.py" }] }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "echo stop" }] }]
  }
}
"#;

fn json_at(repo: &TestRepo, rel: &str) -> Value {
    serde_json::from_str(&repo.read(rel).unwrap_or_else(|| panic!("{rel} missing"))).unwrap()
}

/// Runs a hook command as the harness would (`sh -c`), with `input` on stdin.
fn run_hook(repo: &TestRepo, command: &str, input: &str) -> Value {
    let mut cmd = Command::new("sh");
    repo.hermetic(&mut cmd);
    cmd.args(["-c", command]);
    let out = fed(cmd, input).ok();
    serde_json::from_str(&out.stdout).unwrap()
}

#[test]
fn claude_project_settings_keep_their_hooks_gain_ours_and_come_back_byte_for_byte() {
    let repo = TestRepo::new();
    repo.write(".claude/settings.json", CLAUDE_SETTINGS);
    repo.ward(["install", "--harness", "claude", "--project"])
        .ok();
    let settings = json_at(&repo, ".claude/settings.json");
    // The other hooks and keys are still there, in their order.
    let text = repo.read(".claude/settings.json").unwrap();
    assert!(text.find("\"permissions\"").unwrap() < text.find("\"model\"").unwrap());
    let pre = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{settings:#}");
    assert_eq!(pre[0]["hooks"][0]["command"], "echo edit-hook");
    assert_eq!(
        settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "echo post-hook"
    );
    assert_eq!(settings["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(pre[1]["matcher"], "Bash");
    let ours = pre[1]["hooks"][0]["command"].as_str().unwrap().to_string();
    assert!(ours.ends_with(" pretool claude"), "{ours}");
    // The MCP server, for this project.
    let mcp = json_at(&repo, ".mcp.json");
    assert_eq!(mcp["mcpServers"]["git-ward"]["args"][0], "mcp");

    // The hook it wrote works: a refused command is denied with its code.
    let input = serde_json::json!({
        "session_id": "s", "cwd": repo.dir, "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"},
    });
    let answer = run_hook(&repo, &ours, &input.to_string());
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );

    // Its SessionStart hook puts the shim first on the PATH of Claude
    // Code's shell commands, through the file it sources before each.
    let start = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let env_file = repo.tmp.path().join("claude-env");
    let mut cmd = Command::new("sh");
    repo.hermetic(&mut cmd);
    let run = cmd
        .args([
            "-c",
            &format!("{start}\n{start}\n. \"$CLAUDE_ENV_FILE\" && command -v git"),
        ])
        .env("CLAUDE_ENV_FILE", &env_file)
        .output()
        .unwrap();
    let first = String::from_utf8_lossy(&run.stdout);
    let shim = repo.home.join(".local/share/git-ward/shim/git");
    assert_eq!(first.trim(), shim.to_str().unwrap(), "{run:?}");
    assert!(std::fs::read_link(&shim).is_ok(), "the shim is made");
    // Without the variable (an older Claude Code), it does nothing.
    let mut cmd = Command::new("sh");
    repo.hermetic(&mut cmd);
    assert!(cmd.args(["-c", &start]).status().unwrap().success());

    // Twice is once.
    let before = repo.read(".claude/settings.json");
    let (_, v) = repo.ward_json(["install", "--harness", "claude", "--json"], &[]);
    assert_eq!(v["files"][0]["action"], "unchanged", "{v}");
    assert_eq!(repo.read(".claude/settings.json"), before);

    // Set up, says doctor.
    repo.ward(["doctor"]).stdout_has("claude (project)");

    repo.ward(["uninstall", "--harness", "claude"]).ok();
    assert_eq!(
        repo.read(".claude/settings.json").as_deref(),
        Some(CLAUDE_SETTINGS)
    );
    assert_eq!(repo.read(".mcp.json"), None);
}

#[test]
fn codex_config_keeps_its_comments_and_comes_back_byte_for_byte() {
    let repo = TestRepo::new();
    repo.write(".codex/config.toml", CODEX_CONFIG);
    repo.write(".codex/hooks.json", CODEX_HOOKS);
    repo.ward(["install", "--harness", "codex", "--project"])
        .ok();
    let config = repo.read(".codex/config.toml").unwrap();
    assert!(config.starts_with(CODEX_CONFIG), "{config}");
    let table: toml::Table = toml::from_str(&config).unwrap();
    assert_eq!(
        table["mcp_servers"]["docs"]["command"].as_str(),
        Some("docs-server")
    );
    assert_eq!(
        table["mcp_servers"]["git-ward"]["args"][0].as_str(),
        Some("mcp")
    );
    // The hooks that were there stay, in their order; ours comes last.
    let hooks = json_at(&repo, ".codex/hooks.json");
    let pre = hooks["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{hooks:#}");
    assert_eq!(pre[0]["hooks"][0]["command"], "python3 .codex/check.py");
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "echo stop"
    );
    let command = pre[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(command.ends_with(" pretool codex"), "{command}");
    // And it works: Codex's input in, a denial with the code out.
    let input = serde_json::json!({
        "session_id": "s", "cwd": repo.dir, "hook_event_name": "PreToolUse",
        "model": "gpt-5", "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main"},
    });
    let answer = run_hook(&repo, command, &input.to_string());
    let reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default();
    assert!(reason.contains("[EN-GIT-D-00"), "{answer}");
    repo.ward(["install", "--harness", "codex"]).ok();
    assert_eq!(repo.read(".codex/config.toml").unwrap(), config);

    repo.ward(["uninstall", "--harness", "codex", "--project"])
        .ok();
    assert_eq!(
        repo.read(".codex/config.toml").as_deref(),
        Some(CODEX_CONFIG)
    );
    assert_eq!(repo.read(".codex/hooks.json").as_deref(), Some(CODEX_HOOKS));
}

#[test]
fn a_file_edited_since_install_loses_only_our_entries() {
    let repo = TestRepo::new();
    repo.ward(["install", "--harness", "gemini"]).ok();
    let mut settings = json_at(&repo, ".gemini/settings.json");
    settings["theme"] = "dark".into();
    repo.write(".gemini/settings.json", &settings.to_string());
    repo.ward(["uninstall", "--harness", "gemini"]).ok();
    let settings = json_at(&repo, ".gemini/settings.json");
    assert_eq!(settings["theme"], "dark");
    assert!(
        !settings.to_string().contains("pretool gemini"),
        "{settings}"
    );
    assert!(
        settings["mcpServers"].get("git-ward").is_none(),
        "{settings}"
    );
}

#[test]
fn every_harness_installs_and_uninstalls_for_the_project_and_the_user() {
    let repo = TestRepo::new();
    for h in ["claude", "codex", "gemini", "cursor", "copilot"] {
        for scope in ["--project", "--user"] {
            let (_, v) = repo.ward_json(["install", "--harness", h, scope, "--json"], &[]);
            assert_eq!(v["status"], "S", "{h} {scope}: {v}");
            let files: Vec<String> = v["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["path"].as_str().unwrap().to_string())
                .collect();
            assert!(!files.is_empty());
            for f in &files {
                let text = std::fs::read_to_string(f).unwrap();
                assert!(text.contains("git-ward"), "{h} {scope} {f}: {text}");
            }
            repo.ward(["uninstall", "--harness", h, scope]).ok();
            for f in &files {
                assert!(!std::path::Path::new(f).exists(), "{h} {scope}: {f} left");
            }
        }
    }
    // Nothing left behind in the project but what was there.
    let status = repo.git(["status", "--porcelain", "--ignored"]).ok().stdout;
    assert_eq!(status, "", "{status}");
}

#[test]
fn an_unreadable_settings_file_is_refused_untouched() {
    let repo = TestRepo::new();
    repo.write(".cursor/hooks.json", "{ not json");
    repo.ward(["install", "--harness", "cursor"])
        .code(2)
        .stderr_has("is not valid JSON");
    assert_eq!(
        repo.read(".cursor/hooks.json").as_deref(),
        Some("{ not json")
    );
}

#[test]
fn each_command_docs_integrations_shows_works() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/integrations.md"))
            .unwrap();
    let commands: Vec<&str> = docs
        .lines()
        .filter(|l| l.starts_with("git ward install --harness "))
        .collect();
    assert_eq!(commands.len(), 5, "{commands:?}");
    let repo = TestRepo::new();
    for line in commands {
        let words: Vec<&str> = line.split_whitespace().skip(2).collect();
        let (_, v) = repo.ward_json(words.iter().copied().chain(["--json"]), &[]);
        assert_eq!(v["status"], "S", "{line}: {v}");
        for file in v["files"].as_array().unwrap() {
            let path = file["path"].as_str().unwrap();
            let text = std::fs::read_to_string(path).unwrap();
            // What the docs say it wrote is there.
            let name = path.strip_prefix(&*repo.dir.to_string_lossy()).unwrap();
            assert!(
                docs.contains(&format!("`{}`", &name[1..])),
                "{line}: {name} undocumented"
            );
            assert!(text.contains("git-ward"), "{path}");
        }
        let mut undo = words.clone();
        undo[0] = "uninstall";
        repo.ward(undo).ok();
    }
}

#[test]
fn user_scope_follows_codex_home_and_copilot_home() {
    let repo = TestRepo::new();
    // Copilot CLI reads the user's hooks from `~/.copilot/hooks/*.json`.
    repo.ward(["install", "--harness", "copilot", "--user"])
        .ok();
    let hooks = repo.home.join(".copilot/hooks/git-ward.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&hooks).unwrap()).unwrap();
    let bash = v["hooks"]["preToolUse"][0]["bash"].as_str().unwrap();
    assert!(bash.ends_with(" pretool copilot"), "{bash}");
    repo.ward(["uninstall", "--harness", "copilot", "--user"])
        .ok();
    assert!(!hooks.exists());

    let elsewhere = repo.tmp.path().join("codex-home");
    let copilot = repo.tmp.path().join("copilot-home");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("config.toml"), CODEX_CONFIG).unwrap();
    let env = [
        ("CODEX_HOME", elsewhere.to_str().unwrap()),
        ("COPILOT_HOME", copilot.to_str().unwrap()),
    ];
    repo.ward_env(["install", "--harness", "codex", "--user"], &env)
        .ok();
    repo.ward_env(["install", "--harness", "copilot", "--user"], &env)
        .ok();
    let config = std::fs::read_to_string(elsewhere.join("config.toml")).unwrap();
    assert!(config.starts_with(CODEX_CONFIG), "{config}");
    assert!(config.contains("[mcp_servers.git-ward]"), "{config}");
    assert!(elsewhere.join("hooks.json").exists());
    assert!(copilot.join("hooks/git-ward.json").exists());
    assert!(copilot.join("mcp-config.json").exists());
    assert!(!repo.home.join(".codex").exists(), "not in ~/.codex");
    repo.ward_env(["uninstall", "--harness", "codex", "--user"], &env)
        .ok();
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("config.toml")).unwrap(),
        CODEX_CONFIG
    );
    assert!(!elsewhere.join("hooks.json").exists());
}

#[test]
fn a_harness_is_set_up_even_where_the_shim_cannot_be_made() {
    let repo = TestRepo::new();
    let shim = repo.home.join(".local/share/git-ward/shim");
    std::fs::create_dir_all(&shim).unwrap();
    std::fs::write(shim.join("git"), "someone else's\n").unwrap();
    repo.ward(["install", "--harness", "claude"])
        .ok()
        .stdout_has("note: no shim:");
    let settings = json_at(&repo, ".claude/settings.json");
    let ours = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    assert!(ours.ends_with(" pretool claude"), "{ours}");
    assert_eq!(
        std::fs::read_to_string(shim.join("git")).unwrap(),
        "someone else's\n"
    );
}
