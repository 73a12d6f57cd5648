//! GitHub Copilot CLI's `preToolUse` hook (`.github/hooks/*.json`).
//!
//! Input: `{timestamp, cwd, toolName: "bash", toolArgs}`, where `toolArgs`
//! is the tool's arguments as a JSON string (`"{\"command\":...}"`; an
//! object is read too). Output, exit 0: `{permissionDecision:
//! "allow"|"deny"|"ask", permissionDecisionReason}`; the CLI acts on "deny"
//! only, and documents no rewrite for hooks run as commands.
//! Source: https://docs.github.com/en/copilot/reference/hooks-configuration
//! (fixtures in tests/fixtures/pretool/copilot/).

use serde_json::{json, Value};

use super::{string_at, Answer, Request};

pub fn read(input: &Value) -> Result<Request, String> {
    let object = input
        .as_object()
        .ok_or("the hook input is not a JSON object")?;
    let tool = object
        .get("toolName")
        .and_then(Value::as_str)
        .ok_or("the hook input has no toolName")?;
    let args = match object.get("toolArgs") {
        Some(Value::String(text)) => {
            serde_json::from_str(text).map_err(|e| format!("toolArgs is not JSON: {e}"))?
        }
        Some(args) => args.clone(),
        None => Value::Null,
    };
    let command = if matches!(tool, "bash" | "shell") {
        Some(super::command_of(&args).ok_or("the shell tool's arguments have no command")?)
    } else {
        None
    };
    Ok(Request {
        command,
        cwd: string_at(input, &["cwd"]).map(str::to_string),
        tool_input: args,
    })
}

pub fn render(answer: &Answer) -> Value {
    match answer {
        Answer::NoOpinion | Answer::Malformed(_) => json!({}),
        Answer::Note { allow: false, .. } | Answer::Rewrite { .. } => json!({}),
        Answer::Allow => json!({"permissionDecision": "allow"}),
        Answer::Deny(reason) | Answer::Unsure(reason) => {
            json!({"permissionDecision": "deny", "permissionDecisionReason": reason})
        }
        Answer::Note { text, allow: true } => {
            json!({"permissionDecision": "allow", "permissionDecisionReason": text})
        }
    }
}
