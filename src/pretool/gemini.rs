//! Gemini CLI's `BeforeTool` hook.
//!
//! Input: `{session_id, transcript_path, cwd, hook_event_name: "BeforeTool",
//! timestamp, tool_name: "run_shell_command", tool_input: {command,
//! description, dir_path}}`. Output, exit 0: `{decision: "allow"|"deny",
//! reason}`, the reason sent to the agent; `hookSpecificOutput.tool_input`
//! merges into the tool's arguments (a rewrite); `systemMessage` is shown
//! to the user. There is no "ask".
//! Source: https://geminicli.com/docs/hooks/reference
//! (fixtures in tests/fixtures/pretool/gemini/).

use serde_json::{json, Value};

use super::{string_at, Answer, Request};

pub fn read(input: &Value) -> Result<Request, String> {
    let mut request = super::read_tool_input(input, &["run_shell_command"])?;
    // The tool runs in `dir_path` (older releases: `directory`), relative
    // to the project when not absolute.
    let dir = string_at(&request.tool_input, &["dir_path"])
        .or_else(|| string_at(&request.tool_input, &["directory"]))
        .filter(|d| !d.is_empty());
    if let Some(dir) = dir {
        let base = std::path::Path::new(request.cwd.as_deref().unwrap_or("."));
        request.cwd = Some(base.join(dir).to_string_lossy().into_owned());
    }
    Ok(request)
}

pub fn render(answer: &Answer) -> Value {
    match answer {
        Answer::NoOpinion => json!({}),
        Answer::Allow => json!({"decision": "allow"}),
        Answer::Deny(reason) | Answer::Unsure(reason) => {
            json!({"decision": "deny", "reason": reason})
        }
        Answer::Rewrite {
            command,
            note,
            confirm,
        } => {
            let mut out = json!({
                "systemMessage": note,
                "hookSpecificOutput": {"tool_input": {"command": command}},
            });
            if !confirm {
                out["decision"] = "allow".into();
            }
            out
        }
        Answer::Note { text, allow } => {
            let mut out = json!({ "systemMessage": text });
            if *allow {
                out["decision"] = "allow".into();
            }
            out
        }
        Answer::Malformed(text) => json!({ "systemMessage": text }),
    }
}
