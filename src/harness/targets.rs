//! What `install --harness` writes for each harness, and where.
//!
//! Each harness gets its pre-tool hook (`git-ward pretool <harness>`) and
//! the MCP server (`git-ward mcp`) in the files its documentation names,
//! for one project (the repository's top) or for the user (the home
//! directory). No harness has a setting that puts a directory in front of
//! the PATH it inherits (each takes a literal value, which would freeze
//! today's PATH): the pre-tool hook's rewrite through the shim stands in
//! where the harness accepts rewrites (Claude Code, Gemini CLI).

use std::path::{Path, PathBuf};

use serde_json::json;

use super::ordered::Json;
use crate::pretool::{quote, Harness};

/// One change to one file.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Append `item` to the array at `path` (made where missing) unless an
    /// element already mentions `marker`.
    JsonPush {
        path: &'static [&'static str],
        item: Json,
        marker: String,
    },
    /// Set `key` in the object at `path` unless it is there.
    JsonKey {
        path: &'static [&'static str],
        key: &'static str,
        value: Json,
    },
    /// Append a TOML table unless a table of that name is there.
    TomlTable {
        dotted: &'static [&'static str],
        text: String,
    },
}

/// A file and the changes git-ward makes to it.
#[derive(Clone, Debug)]
pub struct Target {
    pub file: PathBuf,
    /// What a new file starts as (`{"version": 1}` for hooks files that need it).
    pub seed: Option<Json>,
    pub edits: Vec<Edit>,
}

/// The files for `harness`: in the project at `base`, or the user's when `user`.
pub fn targets(harness: Harness, base: &Path, user: bool, binary: &Path) -> Vec<Target> {
    let bin = binary.to_string_lossy().into_owned();
    let hook = format!("{} pretool {}", quote(&bin), harness.as_str());
    let marker = format!("pretool {}", harness.as_str());
    let server = Json::from_value(json!({"command": bin, "args": ["mcp"]}));
    let version = Some(Json::from_value(json!({"version": 1})));
    let at = |rel: &str| base.join(rel);
    match harness {
        Harness::Claude => {
            let mut out = vec![Target {
                file: at(".claude/settings.json"),
                seed: None,
                edits: vec![pre_tool_use(&hook, marker)],
            }];
            // Project servers live in `.mcp.json`; the user's in `~/.claude.json`.
            out.push(Target {
                file: at(if user { ".claude.json" } else { ".mcp.json" }),
                seed: None,
                edits: vec![mcp_server(server)],
            });
            out
        }
        Harness::Codex => vec![
            Target {
                file: at(".codex/hooks.json"),
                seed: None,
                edits: vec![pre_tool_use(&hook, marker)],
            },
            Target {
                file: at(".codex/config.toml"),
                seed: None,
                edits: vec![Edit::TomlTable {
                    dotted: &["mcp_servers", "git-ward"],
                    text: format!(
                        "\n# git-ward's MCP server (`git ward uninstall --harness codex` removes it)\n[mcp_servers.git-ward]\ncommand = {}\nargs = [\"mcp\"]\n",
                        toml_string(&bin)
                    ),
                }],
            },
        ],
        Harness::Gemini => vec![Target {
            file: at(".gemini/settings.json"),
            seed: None,
            edits: vec![
                Edit::JsonPush {
                    path: &["hooks", "BeforeTool"],
                    item: Json::from_value(json!({
                        "matcher": "run_shell_command",
                        "hooks": [{"name": "git-ward", "type": "command", "command": hook}],
                    })),
                    marker,
                },
                mcp_server(server),
            ],
        }],
        Harness::Cursor => vec![
            Target {
                file: at(".cursor/hooks.json"),
                seed: version,
                edits: vec![Edit::JsonPush {
                    path: &["hooks", "beforeShellExecution"],
                    item: Json::from_value(json!({ "command": hook })),
                    marker,
                }],
            },
            Target {
                file: at(".cursor/mcp.json"),
                seed: None,
                edits: vec![mcp_server(server)],
            },
        ],
        Harness::Copilot if user => vec![Target {
            file: at(".copilot/mcp-config.json"),
            seed: None,
            edits: vec![mcp_server(Json::from_value(json!({
                "type": "local", "command": bin, "args": ["mcp"], "tools": ["*"],
            })))],
        }],
        Harness::Copilot => vec![Target {
            file: at(".github/hooks/git-ward.json"),
            seed: version,
            edits: vec![Edit::JsonPush {
                path: &["hooks", "preToolUse"],
                item: Json::from_value(json!({
                    "type": "command", "bash": hook, "timeoutSec": 30,
                })),
                marker,
            }],
        }],
    }
}

/// Claude Code's hook entry, which Codex reads too: `Bash` calls only.
fn pre_tool_use(hook: &str, marker: String) -> Edit {
    Edit::JsonPush {
        path: &["hooks", "PreToolUse"],
        item: Json::from_value(json!({
            "matcher": "Bash",
            "hooks": [{"type": "command", "command": hook}],
        })),
        marker,
    }
}

fn mcp_server(value: Json) -> Edit {
    Edit::JsonKey {
        path: &["mcpServers"],
        key: "git-ward",
        value,
    }
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}
