//! The tool list: names, descriptions that tell an agent when to use each
//! tool, input schemas, and the function that runs each.

use serde_json::{json, Map, Value};

use super::call::{Ctx, ToolResult};
use super::{checkout, git_tools, ward_tools};

/// One tool.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Changes nothing (MCP's `readOnlyHint`).
    pub read_only: bool,
    /// Can replace work in the working tree (MCP's `destructiveHint`).
    pub destructive: bool,
    pub required: &'static [&'static str],
    pub run: fn(&mut Ctx) -> ToolResult,
}

/// Every tool the server offers, in the order `tools/list` shows them.
pub static TOOLS: &[Tool] = &[
    Tool {
        name: "git_status",
        title: "Git status",
        description: "Show the current branch, its upstream and ahead/behind counts, and the staged, unstaged, untracked and conflicted files, as JSON. Use it first, and before save or git_checkout.",
        read_only: true,
        destructive: false,
        required: &[],
        run: git_tools::status,
    },
    Tool {
        name: "git_log",
        title: "Git log",
        description: "Show recent commits, newest first: max_count of them (default 10), one line each unless oneline is false. Use it to find a commit to show or diff against.",
        read_only: true,
        destructive: false,
        required: &[],
        run: git_tools::log,
    },
    Tool {
        name: "git_show",
        title: "Git show",
        description: "Show one commit (default HEAD): its message, and its changes, or only the changed files and line counts with stat_only. Use stat_only first for large commits.",
        read_only: true,
        destructive: false,
        required: &[],
        run: git_tools::show,
    },
    Tool {
        name: "git_diff",
        title: "Git diff",
        description: "Show changes as a patch. No ref: uncommitted changes (staged and unstaged) against HEAD. from_ref: that ref against the working tree. from_ref and to_ref: between the two. file_path narrows to one path; stat_only lists files only. Untracked files appear in git_status, not here.",
        read_only: true,
        destructive: false,
        required: &[],
        run: git_tools::diff,
    },
    Tool {
        name: "git_branches",
        title: "Git branches",
        description: "List the local branches: each one's commit, upstream and ahead/behind counts, which is checked out, which the policy protects (your commits there move to your agent branch), and the agent branch of your contract. Use it before git_checkout.",
        read_only: true,
        destructive: false,
        required: &[],
        run: super::branches::branches,
    },
    Tool {
        name: "git_checkout",
        title: "Check out a local branch",
        description: "Switch to an existing local branch by its plain name (feature/x). Remote refs (origin/main), revision expressions (HEAD~1, @{-1}, a..b) and names starting with - or / are refused with invalid_branch. Returns the branch and its commit hash. Save or checkpoint uncommitted work first.",
        read_only: false,
        destructive: false,
        required: &["branch_name"],
        run: checkout::checkout,
    },
    Tool {
        name: "save",
        title: "Save a unit of work",
        description: "Stage everything (or only paths) and commit it as one unit of work, even when nothing changed, with the message '[Phase P] TODO: message' and trailers (Completed, Phase, Todo, Notes, Contract). Use it when a todo item is done. On a protected branch it moves to your agent branch first (with an active contract) or is denied with a code and a hint.",
        read_only: false,
        destructive: false,
        required: &["message"],
        run: ward_tools::save,
    },
    Tool {
        name: "explain",
        title: "Explain a git command",
        description: "Say what a git command would do here under git-ward's rules, and why (allow, deny with code and hint, switch branch, checkpoint first), without running it. Use it before a command you are unsure about.",
        read_only: true,
        destructive: false,
        required: &["args"],
        run: ward_tools::explain,
    },
    Tool {
        name: "checkpoint_create",
        title: "Create a checkpoint",
        description: "Snapshot the working tree (tracked, untracked and the index) without changing anything, and return its id. Use it before a risky change; rollback restores it.",
        read_only: false,
        destructive: false,
        required: &[],
        run: ward_tools::checkpoint_create,
    },
    Tool {
        name: "checkpoint_list",
        title: "List checkpoints",
        description: "List the checkpoints of this worktree with id, time, type, description, branch, pin and test status (full: true adds each one's whole record). Use it to pick an id for rollback.",
        read_only: true,
        destructive: false,
        required: &[],
        run: ward_tools::checkpoint_list,
    },
    Tool {
        name: "rollback",
        title: "Roll back to a checkpoint",
        description: "Restore the working tree from a checkpoint. Without confirm it only returns the plan (each path: RESTORE, UNCHANGED, REMOVE, MISSING); read it, then call again with confirm: true to apply. Applying takes a safety checkpoint first and names it. files restricts it to some paths.",
        read_only: false,
        destructive: true,
        required: &["checkpoint_id"],
        run: ward_tools::rollback,
    },
    Tool {
        name: "undo",
        title: "Undo the last agent command",
        description: "Undo the last git command an agent ran: its working tree from the checkpoint taken before it, and the refs it moved. Without confirm it only returns the plan; call again with confirm: true to apply. Undo is itself undoable.",
        read_only: false,
        destructive: true,
        required: &[],
        run: ward_tools::undo,
    },
];

/// The tool of this name.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The properties of a tool's input, `repo_path` included.
pub fn properties(name: &str) -> Map<String, Value> {
    let s = |d: &str| json!({ "type": "string", "description": d });
    let b =
        |d: &str, default: bool| json!({ "type": "boolean", "default": default, "description": d });
    let mut p = match name {
        "git_log" => json!({
            "max_count": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 10, "description": "How many commits to show." },
            "oneline": b("One line per commit (hash and subject); false adds author, date and full message.", true),
            "ref": s("Show the history of this branch, tag or commit instead of HEAD."),
        }),
        "git_show" => json!({
            "commit_ref": { "type": "string", "default": "HEAD", "description": "The commit to show: a hash, branch, tag or HEAD~n." },
            "stat_only": b("Only the changed files and line counts, not the patch.", false),
        }),
        "git_diff" => json!({
            "from_ref": s("Compare this ref with the working tree (or with to_ref)."),
            "to_ref": s("With from_ref: compare from_ref with this ref."),
            "file_path": s("Only this path (a file or directory, relative to the repository's top)."),
            "stat_only": b("Only the changed files and line counts.", false),
        }),
        "git_checkout" => json!({
            "branch_name": s("The plain name of an existing local branch."),
        }),
        "save" => json!({
            "message": s("What was done: the commit's subject line (more lines become the body)."),
            "phase": s("The plan's phase this work belongs to (adds '[Phase P]' and a Phase trailer)."),
            "todo": s("The id of the completed todo item (adds 'ID:' and a Todo trailer)."),
            "notes": { "type": "array", "items": { "type": "string" }, "description": "Notes for Notes trailers." },
            "paths": { "type": "array", "items": { "type": "string" }, "description": "Stage and commit only these paths (relative to the repository's top); default: everything." },
        }),
        "explain" => json!({
            "args": { "type": "array", "items": { "type": "string" }, "description": "git's arguments, without `git`: [\"reset\", \"--hard\", \"HEAD~1\"]." },
            "full": b("Add the whole assessment (the command as classified, the facts) as details.", false),
        }),
        "checkpoint_create" => json!({
            "message": s("What the checkpoint is for."),
            "pin": b("Keep it past retention.", false),
            "full": b("Add the checkpoint's whole record as details.", false),
        }),
        "checkpoint_list" => json!({
            "full": b("Add each checkpoint's whole record as details.", false),
        }),
        "rollback" => json!({
            "checkpoint_id": s("The checkpoint to restore, from checkpoint_list (chk-<contract>-<n>)."),
            "confirm": b("Apply the plan. Without it, only the plan is returned.", false),
            "files": { "type": "array", "items": { "type": "string" }, "description": "Restore only these paths." },
        }),
        "undo" => json!({
            "confirm": b("Apply the undo. Without it, only the plan is returned.", false),
        }),
        _ => json!({}),
    };
    let mut map = p.as_object_mut().map(std::mem::take).unwrap_or_default();
    map.insert(
        "repo_path".into(),
        s("The repository's working tree; default: the server's repository."),
    );
    map
}

/// The tool's entry in `tools/list`.
pub fn definition(tool: &Tool) -> Value {
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": {
            "type": "object",
            "properties": properties(tool.name),
            "required": tool.required,
            "additionalProperties": false,
        },
        "outputSchema": super::results::schema(tool.name),
        "annotations": {
            "title": tool.title,
            "readOnlyHint": tool.read_only,
            "destructiveHint": tool.destructive,
            "idempotentHint": tool.read_only,
            "openWorldHint": false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_required_argument_is_a_property() {
        for tool in TOOLS {
            let props = properties(tool.name);
            for r in tool.required {
                assert!(props.contains_key(*r), "{}: {r}", tool.name);
            }
            assert!(tool.description.len() > 40, "{}", tool.name);
        }
        assert_eq!(TOOLS.len(), 12);
    }

    #[test]
    fn every_tool_has_an_object_output_schema() {
        for tool in TOOLS {
            let s = definition(tool)["outputSchema"].clone();
            assert_eq!(s["type"], "object", "{}", tool.name);
            assert!(s["properties"].is_object(), "{}", tool.name);
        }
    }
}
