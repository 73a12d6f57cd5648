//! Codex's `PreToolUse` hook (hooks.json or `[hooks]` in config.toml).
//!
//! Input, Claude Code's shape: `{session_id, turn_id, transcript_path, cwd,
//! hook_event_name: "PreToolUse", model, permission_mode, tool_name: "Bash",
//! tool_input: {command}}`. Output, exit 0: `{hookSpecificOutput:
//! {hookEventName: "PreToolUse", permissionDecision: "deny",
//! permissionDecisionReason}}`; Codex acts on "deny" only (allow, ask and
//! `updatedInput` are not supported and make the hook count as failed), so
//! an allowed line is `{}` and nothing is rewritten. `systemMessage` is
//! shown to the user.
//! Source: https://developers.openai.com/codex/hooks
//! (fixtures in tests/fixtures/pretool/codex/).

use serde_json::{json, Value};

use super::{Answer, Request};

pub fn read(input: &Value) -> Result<Request, String> {
    super::read_tool_input(input, &["Bash", "shell", "exec_command"])
}

pub fn render(answer: &Answer) -> Value {
    match answer {
        Answer::NoOpinion | Answer::Allow => json!({}),
        Answer::Deny(reason) | Answer::Unsure(reason) => json!({
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }),
        Answer::Rewrite { note: text, .. }
        | Answer::Note { text, .. }
        | Answer::Malformed(text) => json!({ "systemMessage": text }),
    }
}
