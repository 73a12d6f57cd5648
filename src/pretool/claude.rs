//! Claude Code's `PreToolUse` hook.
//!
//! Input: `{session_id, transcript_path, cwd, permission_mode,
//! hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {command,
//! description, timeout}, tool_use_id}`. Output, exit 0:
//! `{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision:
//! "allow"|"deny"|"ask", permissionDecisionReason, updatedInput}}`;
//! `updatedInput` replaces the whole tool input (so the other fields are
//! kept), and goes with "allow" or "ask". `systemMessage` is shown to the
//! user. (Exit 2 with stderr also blocks; git-ward answers in JSON.)
//! Source: https://docs.anthropic.com/en/docs/claude-code/hooks
//! (fixtures in tests/fixtures/pretool/claude/).

use serde_json::{json, Value};

use super::{Answer, Request};

pub fn read(input: &Value) -> Result<Request, String> {
    super::read_tool_input(input, &["Bash"])
}

pub fn render(request: Option<&Request>, answer: &Answer) -> Value {
    let decide = |decision: &str, reason: Option<&str>, updated: Option<Value>| {
        let mut out = json!({"hookEventName": "PreToolUse", "permissionDecision": decision});
        if let Some(reason) = reason {
            out["permissionDecisionReason"] = reason.into();
        }
        if let Some(updated) = updated {
            out["updatedInput"] = updated;
        }
        json!({ "hookSpecificOutput": out })
    };
    match answer {
        Answer::NoOpinion => json!({}),
        Answer::Allow => decide("allow", None, None),
        Answer::Deny(reason) => decide("deny", Some(reason), None),
        Answer::Unsure(reason) => decide("ask", Some(reason), None),
        Answer::Rewrite {
            command,
            note,
            confirm,
        } => {
            let mut input = request
                .map(|r| r.tool_input.clone())
                .filter(Value::is_object)
                .unwrap_or_else(|| json!({}));
            input["command"] = command.as_str().into();
            let decision = if *confirm { "ask" } else { "allow" };
            decide(decision, Some(note), Some(input))
        }
        Answer::Note { text, allow: true } => decide("allow", Some(text), None),
        Answer::Note { text, allow: false } | Answer::Malformed(text) => {
            json!({ "systemMessage": text })
        }
    }
}
