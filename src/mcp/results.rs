//! What each tool returns, as types. A tool's `outputSchema` in
//! `tools/list` is derived from its type (schemars), and every result is
//! passed through that type before it leaves ([`conform`]), so the schema
//! and what a client receives cannot drift apart.
//!
//! Results are compact: the fields an agent acts on. The commands behind
//! the checkpoint tools print about 30 fields per checkpoint; with
//! `full: true` the whole record comes back as `details`.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// git's own output (`git_log`, `git_show`, `git_diff`), as its text.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Text {
    /// What git printed.
    pub output: String,
}

/// A changed file in `git_status`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct FileChange {
    /// git's one-letter status: M, A, D, R, C, T.
    pub status: String,
    pub path: String,
    /// For a rename or copy: the path it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// `git_status`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Status {
    /// The branch checked out; null when HEAD is detached.
    pub branch: Option<String>,
    /// HEAD's commit; null before the first commit.
    pub commit: Option<String>,
    pub upstream: Option<String>,
    pub ahead: Option<u64>,
    pub behind: Option<u64>,
    pub staged: Vec<FileChange>,
    pub unstaged: Vec<FileChange>,
    pub untracked: Vec<String>,
    pub conflicts: Vec<String>,
    /// The active contract, if any.
    pub contract: Option<String>,
}

/// One local branch in `git_branches`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Branch {
    pub name: String,
    pub commit: String,
    /// Checked out here.
    pub current: bool,
    /// Protected by the policy: an agent's commits there move to its own branch.
    pub protected: bool,
    pub upstream: Option<String>,
    pub ahead: Option<u64>,
    pub behind: Option<u64>,
}

/// `git_branches`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Branches {
    /// The branch checked out; null when HEAD is detached.
    pub current: Option<String>,
    /// The agent branch of the active contract (`agent/<contract>`), if any.
    pub agent_branch: Option<String>,
    pub branches: Vec<Branch>,
}

/// `git_checkout`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Checkout {
    pub branch: String,
    pub commit_hash: String,
    /// The checkpoint taken first, when the checkout could replace work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
}

/// `save`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Saved {
    /// The branch the commit is on.
    pub branch: String,
    pub commit: String,
    /// Moved off a protected branch first.
    pub switched: bool,
    pub switched_from: Option<String>,
    pub contract: Option<String>,
    pub warnings: Vec<String>,
}

/// `explain`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Explained {
    /// allow, deny, autoswitch, checkpoint ...
    pub decision: String,
    /// The rule that decided, in words.
    pub rule: String,
    /// A denial's code (EN-GIT-D-...).
    pub code: Option<String>,
    pub message: Option<String>,
    /// What to do instead.
    pub hint: Option<String>,
    /// A checkpoint would be taken first.
    pub checkpoint: bool,
    /// The branch the command would move to first.
    #[serde(default)]
    pub switch_to: Option<String>,
    /// The policy key behind the rule, and its layer.
    pub policy_key: Option<String>,
    pub policy_layer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// How much a checkpoint holds.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    pub files: u64,
    pub untracked: u64,
}

/// One checkpoint, compact.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Checkpoint {
    /// Its id, for rollback (`chk-<contract>-<n>`).
    pub id: String,
    pub created: String,
    /// manual, pre-destructive, turn, safety ...
    #[serde(rename = "type")]
    pub kind: String,
    pub description: String,
    pub branch: Option<String>,
    pub contract: Option<String>,
    pub pinned: bool,
    /// A turn's test result: pass, fail, or null.
    pub tests: Option<String>,
    pub counts: Counts,
    /// The whole record, with `full: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// `checkpoint_create`.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Created {
    pub checkpoint: Checkpoint,
}

/// `checkpoint_list`, newest first.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Listed {
    pub checkpoints: Vec<Checkpoint>,
}

/// One path of a restoration plan.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct PlanEntry {
    pub path: String,
    /// RESTORE, REMOVE, MISSING ...
    pub status: String,
}

/// A restoration plan: what changes, and what is refused or left out.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    pub entries: Vec<PlanEntry>,
    /// How many paths already match.
    pub unchanged: u64,
    /// Entries refused (a path no restore may write), with the reason.
    #[serde(default)]
    pub refused: Vec<Value>,
    /// Paths the checkpoint could not hold, with the reason.
    #[serde(default)]
    pub left_out: Vec<Value>,
}

/// `rollback` and `undo`: the plan, or what the restore did.
#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Restore {
    /// rollback: the checkpoint restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// undo: the command undone (null when there is nothing to undo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<Value>,
    /// undo: each ref the command moved, and what happens to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs: Option<Vec<Value>>,
    /// undo: refs the checkpoint's record names that no undo may move
    /// (protected ones), left alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refs_refused: Option<Vec<Value>>,
    /// The checkpoint changed since git-ward made it: why it is not restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<Value>,
    /// undo: HEAD back on the branch the command left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<Value>,
    /// The plan was only shown.
    #[serde(default)]
    pub dry_run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    #[serde(default)]
    pub modify: u64,
    #[serde(default)]
    pub remove: u64,
    /// Files restored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restored: Option<u64>,
    /// The checkpoint of the tree as it was before the restore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_checkpoint: Option<String>,
    /// What could not be restored, with why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failures: Option<Value>,
    /// What to call to go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// The `outputSchema` of a tool.
pub fn schema(tool: &str) -> Value {
    let schema = match tool {
        "git_status" => schemars::schema_for!(Status),
        "git_log" | "git_show" | "git_diff" => schemars::schema_for!(Text),
        "git_branches" => schemars::schema_for!(Branches),
        "git_checkout" => schemars::schema_for!(Checkout),
        "save" => schemars::schema_for!(Saved),
        "explain" => schemars::schema_for!(Explained),
        "checkpoint_create" => schemars::schema_for!(Created),
        "checkpoint_list" => schemars::schema_for!(Listed),
        _ => schemars::schema_for!(Restore),
    };
    let mut value = schema.to_value();
    // MCP reads the schema as the tool's; the draft and title say nothing to it.
    if let Some(map) = value.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
    }
    value
}

/// `value` as the tool's result type `T`, and back: the fields `T` names,
/// checked against their types; the rest left out. A value that is not of
/// the type is an internal error, never sent as it is.
pub fn conform<T: Serialize + DeserializeOwned>(value: Value) -> Result<Value, Error> {
    let typed: T = serde_json::from_value(value).map_err(|e| {
        Error::internal(format!("a result is not of the tool's declared shape: {e}"))
    })?;
    serde_json::to_value(typed).map_err(|e| Error::internal(format!("a result: {e}")))
}

/// `value` as the compact `T`, with the whole of it as `details` when
/// `full` (every type this is used with has an optional `details`).
pub fn compact<T: Serialize + DeserializeOwned>(value: Value, full: bool) -> Result<Value, Error> {
    let details = full.then(|| value.clone());
    let mut compact = conform::<T>(value)?;
    if let (Some(d), Some(map)) = (details, compact.as_object_mut()) {
        map.insert("details".into(), d);
    }
    Ok(compact)
}

/// A checkpoint record as the compact [`Checkpoint`] ([`compact`]).
pub fn checkpoint(record: Value, full: bool) -> Result<Value, Error> {
    compact::<Checkpoint>(record, full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_an_object_schema() {
        for tool in [
            "git_status",
            "git_log",
            "git_branches",
            "save",
            "explain",
            "undo",
        ] {
            let s = schema(tool);
            assert_eq!(s["type"], "object", "{tool}");
            assert!(s["properties"].is_object(), "{tool}");
        }
    }

    #[test]
    fn a_checkpoint_keeps_what_an_agent_acts_on() {
        let record = serde_json::json!({
            "id": "chk-t-1", "created": "2026-11-28T10:00:00Z", "type": "manual",
            "description": "d", "branch": "main", "contract": null, "pinned": false,
            "tests": null, "counts": {"files": 2, "untracked": 1, "ignored": 0},
            "tree": "abc", "index_tree": "def", "modes": [], "trace_id": "x",
        });
        let compact = checkpoint(record.clone(), false).unwrap();
        assert_eq!(compact["id"], "chk-t-1");
        assert!(compact.get("tree").is_none() && compact.get("details").is_none());
        assert_eq!(
            compact["counts"],
            serde_json::json!({"files": 2, "untracked": 1})
        );
        let full = checkpoint(record.clone(), true).unwrap();
        assert_eq!(full["details"], record);
        // A record missing what the type requires is an error, not a guess.
        assert!(checkpoint(serde_json::json!({"id": "x"}), false).is_err());
    }
}
