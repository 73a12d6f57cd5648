//! Cursor's `beforeShellExecution` hook (`.cursor/hooks.json`).
//!
//! Input: `{conversation_id, generation_id, hook_event_name:
//! "beforeShellExecution", workspace_roots, command, cwd}`. Output, exit 0:
//! `{permission: "allow"|"deny"|"ask", user_message, agent_message}` (the
//! docs first spelled the messages `userMessage`/`agentMessage`: both are
//! written). A permission hook answers every call, so "no opinion" is
//! "allow". Cursor documents no rewrite for shell commands.
//! Source: https://cursor.com/docs/agent/hooks
//! (fixtures in tests/fixtures/pretool/cursor/).

use serde_json::{json, Value};

use super::{string_at, Answer, Request};

pub fn read(input: &Value) -> Result<Request, String> {
    let object = input
        .as_object()
        .ok_or("the hook input is not a JSON object")?;
    let command = object
        .get("command")
        .and_then(Value::as_str)
        .ok_or("the hook input has no command")?;
    let cwd = string_at(input, &["cwd"])
        .filter(|c| !c.is_empty())
        .or_else(|| input.get("workspace_roots")?.get(0)?.as_str());
    Ok(Request {
        command: Some(command.to_string()),
        cwd: cwd.map(str::to_string),
        tool_input: input.clone(),
    })
}

pub fn render(answer: &Answer) -> Value {
    let say = |permission: &str, text: Option<&str>| {
        let mut out = json!({ "permission": permission });
        if let Some(text) = text {
            for key in [
                "user_message",
                "agent_message",
                "userMessage",
                "agentMessage",
            ] {
                out[key] = text.into();
            }
        }
        out
    };
    match answer {
        Answer::NoOpinion | Answer::Allow => say("allow", None),
        Answer::Deny(reason) => say("deny", Some(reason)),
        Answer::Unsure(reason) => say("ask", Some(reason)),
        Answer::Rewrite { note: text, .. }
        | Answer::Note { text, .. }
        | Answer::Malformed(text) => say("allow", Some(text)),
    }
}
