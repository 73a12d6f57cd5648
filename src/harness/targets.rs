//! What `install --harness` writes for each harness, and where.
//!
//! Each harness gets its pre-tool hook (`git-ward pretool <harness>`) and
//! the MCP server (`git-ward mcp`) in the files its documentation names,
//! for one project (the repository's top) or for the user (the home
//! directory; Codex's `$CODEX_HOME` and Copilot's `$COPILOT_HOME` where
//! set). Claude Code also gets the shim first on the PATH of its shell
//! commands: a `SessionStart` hook writes the `export PATH=...` line into
//! the file `$CLAUDE_ENV_FILE` names, which Claude Code sources before each
//! command. The other harnesses have no setting that puts a directory in
//! front of the PATH they inherit (each takes a literal value, which would
//! freeze today's PATH): there the pre-tool hook's rewrite through the
//! shim stands in where the harness accepts rewrites (Gemini CLI), and
//! `git ward run` puts the shim first for any harness it starts.

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

/// The marker of Claude Code's `SessionStart` entry that puts the shim first.
const SHIM_FIRST: &str = "git-ward: the shim first on PATH";

/// A harness's own directory for the user: `$var`, else `~/<dir>`.
fn home_of(var: &str, base: &Path, dir: &str) -> PathBuf {
    crate::env::var(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| base.join(dir))
}

/// The files for `harness`: in the project at `base`, or the user's when
/// `user`; `shim` is the shim directory a harness puts first on PATH.
pub fn targets(
    harness: Harness,
    base: &Path,
    user: bool,
    binary: &Path,
    shim: Option<&Path>,
) -> Vec<Target> {
    let bin = binary.to_string_lossy().into_owned();
    let hook = format!("{} pretool {}", quote(&bin), harness.as_str());
    let marker = format!("pretool {}", harness.as_str());
    let server = Json::from_value(json!({"command": bin, "args": ["mcp"]}));
    let version = Some(Json::from_value(json!({"version": 1})));
    let at = |rel: &str| base.join(rel);
    let codex = match user {
        true => home_of(crate::env::CODEX_HOME, base, ".codex"),
        false => at(".codex"),
    };
    let copilot = home_of(crate::env::COPILOT_HOME, base, ".copilot");
    match harness {
        Harness::Claude => {
            let mut edits = vec![pre_tool_use(&hook, marker)];
            edits.extend(shim.map(shim_first));
            let mut out = vec![Target {
                file: at(".claude/settings.json"),
                seed: None,
                edits,
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
                file: codex.join("hooks.json"),
                seed: None,
                edits: vec![pre_tool_use(&hook, marker)],
            },
            Target {
                file: codex.join("config.toml"),
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
        Harness::Copilot => {
            // The user's hook files are `*.json` in `~/.copilot/hooks/`.
            let hooks = match user {
                true => copilot.join("hooks").join("git-ward.json"),
                false => at(".github/hooks/git-ward.json"),
            };
            let mut out = vec![Target {
                file: hooks,
                seed: version,
                edits: vec![Edit::JsonPush {
                    path: &["hooks", "preToolUse"],
                    item: Json::from_value(json!({
                        "type": "command", "bash": hook, "timeoutSec": 30,
                    })),
                    marker,
                }],
            }];
            if user {
                out.push(Target {
                    file: copilot.join("mcp-config.json"),
                    seed: None,
                    edits: vec![mcp_server(Json::from_value(json!({
                        "type": "local", "command": bin, "args": ["mcp"], "tools": ["*"],
                    })))],
                });
            }
            out
        }
    }
}

/// Claude Code's `SessionStart` entry that writes `export PATH=<shim>:$PATH`
/// into `$CLAUDE_ENV_FILE`, sourced before each of its shell commands.
fn shim_first(shim: &Path) -> Edit {
    let line = format!("export PATH={}:\"$PATH\"", quote(&shim.to_string_lossy()));
    let command = format!(
        "[ -z \"$CLAUDE_ENV_FILE\" ] || echo {} >> \"$CLAUDE_ENV_FILE\" # {SHIM_FIRST}",
        quote(&line)
    );
    Edit::JsonPush {
        path: &["hooks", "SessionStart"],
        item: Json::from_value(json!({
            "hooks": [{"type": "command", "command": command}],
        })),
        marker: SHIM_FIRST.to_string(),
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
