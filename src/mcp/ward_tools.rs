//! git-ward's own tools: save, explain, checkpoints, rollback, undo.
//!
//! `save` runs in this process (it is the same code as `git ward save`).
//! The others run this binary's own commands as children with `--json`
//! (`checkpoint`, `rollback <id> --dry-run`, `undo --yes` ...), so the server
//! depends on their command lines and JSON, not on their internals.

use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::action::Action;
use crate::commands::save::{self, Context, Request};
use crate::env;
use crate::error::Error;

use super::call::{Ctx, Output, ToolError, ToolResult};
use super::results;

/// `save`: stage everything and commit it as one unit of work.
pub fn save(ctx: &mut Ctx) -> ToolResult {
    let request = Request {
        message: ctx.required_str("message")?.to_string(),
        phase: ctx.str_arg("phase")?.map(str::to_string),
        todo: ctx.str_arg("todo")?.map(str::to_string),
        notes: ctx
            .list_arg("notes")?
            .into_iter()
            .map(str::to_string)
            .collect(),
        paths: ctx
            .list_arg("paths")?
            .into_iter()
            .map(str::to_string)
            .collect(),
    };
    let context = Context {
        dir: Some(&ctx.dir),
        source: "mcp",
        as_agent: true,
    };
    // `save` writes its own audit line, with the decision and what it did.
    match save::save(&request, &context) {
        Ok(saved) => Ok(Output::json(results::conform::<results::Saved>(
            saved.to_json(),
        )?)),
        Err(err) => Err(ToolError::new(kind_of(&err, "save_failed"), &err)),
    }
}

/// `explain`: what a git command would do here, and why, without running it.
pub fn explain(ctx: &mut Ctx) -> ToolResult {
    // A single string is taken as words separated by spaces (no quoting).
    let args: Vec<&str> = match ctx.str_arg("args") {
        Ok(Some(line)) => line.split_whitespace().collect(),
        _ => ctx.list_arg("args")?,
    };
    if args.is_empty() {
        return Err(ToolError::invalid(
            "invalid_argument",
            "argument 'args' is required",
            "pass git's arguments as a list, without `git`: [\"commit\", \"-m\", \"x\"]",
        ));
    }
    for arg in &args {
        passable("args", arg)?;
    }
    let full = ctx.bool_arg("full", false)?;
    let mut argv = vec!["explain", "--as-agent", "--json", "--"];
    argv.extend(args);
    let out = child(ctx, "ward.explain", Action::read("ward"), &argv, "")?;
    reshape(out, |v| results::compact::<results::Explained>(v, full))
}

/// `checkpoint_create`: snapshot the working tree without touching it.
pub fn checkpoint_create(ctx: &mut Ctx) -> ToolResult {
    let message = ctx.str_arg("message")?;
    let pin = ctx.bool_arg("pin", false)?;
    let flag = message
        .map(|m| passable("message", m).map(|()| format!("--message={m}")))
        .transpose()?;
    let mut argv = vec!["checkpoint", "--json"];
    // One word, so that a message starting with `-` stays a message.
    argv.extend(flag.as_deref());
    if pin {
        argv.push("--pin");
    }
    let full = ctx.bool_arg("full", false)?;
    let out = child(ctx, "ward.checkpoint", Action::mutating("ward"), &argv, "")?;
    reshape(out, |mut v| {
        let record = v["checkpoint"].take();
        Ok(json!({ "checkpoint": results::checkpoint(record, full)? }))
    })
}

/// `checkpoint_list`: the checkpoints of this worktree, newest first.
pub fn checkpoint_list(ctx: &mut Ctx) -> ToolResult {
    let full = ctx.bool_arg("full", false)?;
    let out = child(
        ctx,
        "ward.checkpoints",
        Action::read("ward"),
        &["checkpoints", "--json"],
        "the list is long: use the newest ids shown",
    )?;
    reshape(out, |mut v| {
        let list = match v["checkpoints"].take() {
            Value::Array(list) => list,
            _ => Vec::new(),
        };
        let list = list
            .into_iter()
            .map(|record| results::checkpoint(record, full))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(json!({ "checkpoints": list }))
    })
}

/// `rollback`: the plan without `confirm`; with it, a safety checkpoint, then the restore.
pub fn rollback(ctx: &mut Ctx) -> ToolResult {
    let id = ctx.required_str("checkpoint_id")?;
    let confirm = ctx.bool_arg("confirm", false)?;
    let files = ctx.list_arg("files")?;
    let id_ok = !id.is_empty()
        && id.len() <= 200
        && id.as_bytes()[0].is_ascii_alphanumeric()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !id_ok {
        return Err(ToolError::invalid(
            "invalid_argument",
            format!("'{id}' is not a checkpoint id"),
            "take an id from checkpoint_list, like chk-task-42-3",
        ));
    }
    for file in &files {
        passable("files", file)?;
    }
    if let Some(bad) = files.iter().find(|f| f.is_empty() || f.starts_with('-')) {
        return Err(ToolError::invalid(
            "invalid_argument",
            format!("'{bad}' is not a path"),
            "pass paths relative to the repository's top (`./-name` for a name starting with `-`)",
        ));
    }
    let mut argv = vec![
        "rollback",
        id,
        if confirm { "--yes" } else { "--dry-run" },
        "--json",
    ];
    if !files.is_empty() {
        argv.push("--files");
        argv.extend(files);
    }
    let action = if confirm {
        Action::mutating("ward")
    } else {
        Action::read("ward")
    };
    let out = child(
        ctx,
        "ward.rollback",
        action,
        &argv,
        "pass files to restore (and see) only some paths",
    )?;
    let out = reshape(out, results::conform::<results::Restore>)?;
    Ok(if confirm {
        out
    } else {
        with_next(out, "this is the plan only: call rollback again with confirm: true to apply it (a safety checkpoint is taken first)")
    })
}

/// `undo`: the plan without `confirm`; with it, undo the last agent command.
pub fn undo(ctx: &mut Ctx) -> ToolResult {
    let confirm = ctx.bool_arg("confirm", false)?;
    let argv = [
        "undo",
        if confirm { "--yes" } else { "--dry-run" },
        "--json",
    ];
    let action = if confirm {
        Action::mutating("ward")
    } else {
        Action::read("ward")
    };
    let out = child(ctx, "ward.undo", action, &argv, "")?;
    let out = reshape(out, results::conform::<results::Restore>)?;
    Ok(if confirm {
        out
    } else {
        with_next(
            out,
            "this is the plan only: call undo again with confirm: true to apply it",
        )
    })
}

/// The longest argument handed to a child (the kernel takes 128 KiB).
const MAX_ARG: usize = 64 * 1024;

/// Can `value` go to a child process as one argument? Not with a NUL
/// (which ends it there), nor past [`MAX_ARG`].
fn passable(name: &str, value: &str) -> Result<(), ToolError> {
    if value.contains('\0') {
        return Err(ToolError::invalid(
            "invalid_argument",
            format!("argument '{name}' holds a NUL character"),
            "pass text without NUL characters",
        ));
    }
    if value.len() > MAX_ARG {
        return Err(ToolError::invalid(
            "invalid_argument",
            format!("argument '{name}' is longer than {} KiB", MAX_ARG / 1024),
            "pass a shorter value",
        ));
    }
    Ok(())
}

/// A child's JSON result made into the tool's result type by `shape`.
fn reshape(out: Output, shape: impl FnOnce(Value) -> Result<Value, Error>) -> ToolResult {
    match out.structured {
        Some(v) => Ok(Output::json(shape(v)?).narrow(out.narrow)),
        None => Ok(out),
    }
}

/// Adds `next` (what to call to go on) to a JSON result.
fn with_next(out: Output, next: &str) -> Output {
    match out.structured {
        Some(Value::Object(mut map)) => {
            map.insert("next".into(), json!(next));
            Output::json(Value::Object(map)).narrow(out.narrow)
        }
        _ => out,
    }
}

/// Asks the rules about `action`, then runs `git-ward <argv>` in the repository.
fn child(
    ctx: &mut Ctx,
    operation: &str,
    action: Action,
    argv: &[&str],
    narrow: &'static str,
) -> ToolResult {
    let g = ctx.govern(operation, &["ward", argv[0]], Some(action))?;
    let exe = std::env::current_exe().map_err(|e| {
        ToolError::new(
            "failed",
            &Error::internal(format!("cannot find git-ward itself: {e}")),
        )
    })?;
    let mut cmd = Command::new(exe);
    cmd.args(argv)
        .current_dir(&g.dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env(env::WARD_AGENT, "1")
        .env(env::WARD_TRACE_ID, &g.trace_id)
        .env(env::WARD_VIA, "mcp")
        .stdin(Stdio::null());
    if let Some(c) = &g.contract {
        cmd.env(env::WARD_CONTRACT, c);
    }
    let out = cmd.output().map_err(|e| {
        ToolError::new(
            "failed",
            &Error::internal(format!("cannot run git-ward {}: {e}", argv[0])),
        )
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let value = serde_json::from_str::<Value>(stdout.trim())
        .ok()
        .or_else(|| {
            stdout
                .lines()
                .rev()
                .find_map(|l| serde_json::from_str::<Value>(l).ok())
        });
    match value {
        Some(v) if out.status.success() && v.is_object() => Ok(Output::json(v).narrow(narrow)),
        Some(v) if v.get("code").is_some_and(Value::is_string) => {
            let code = v["code"].as_str().unwrap_or_default().to_string();
            let status = v["status"].as_str().unwrap_or("E");
            let mut message = v["message"].as_str().unwrap_or("failed").to_string();
            message.push_str(&partial_details(&v));
            Err(ToolError {
                kind: match status {
                    "D" => "denied",
                    "I" => "invalid_argument",
                    _ => "failed",
                },
                code,
                message,
                hint: v["hint"].as_str().map(str::to_string),
            })
        }
        _ => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let said = stderr
                .lines()
                .chain(stdout.lines())
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no output")
                .trim_start_matches("ward: ");
            Err(ToolError::new(
                "failed",
                &Error::internal(format!(
                    "git ward {} failed ({}): {said}",
                    argv[0], out.status
                )),
            ))
        }
    }
}

/// What a rollback or undo that restored only part of its plan says
/// beyond its error: the safety checkpoint, and each path or ref not
/// restored with why (`; safety checkpoint chk-..; not restored: a.txt:
/// ...`). Empty for other errors.
fn partial_details(v: &Value) -> String {
    let mut out = String::new();
    if let Some(safety) = v["safety_checkpoint"].as_str() {
        out.push_str(&format!(
            "; safety checkpoint {safety} holds the tree as it was before"
        ));
    }
    let mut each = Vec::new();
    let mut collect = |f: &Value| match f {
        Value::String(s) => each.push(s.clone()),
        Value::Object(o) => each.push(format!(
            "{}: {}",
            o.get("path").and_then(Value::as_str).unwrap_or("?"),
            o.get("reason").and_then(Value::as_str).unwrap_or("?")
        )),
        _ => {}
    };
    match &v["failures"] {
        Value::Array(list) => list.iter().for_each(&mut collect),
        Value::Object(groups) => groups
            .values()
            .filter_map(Value::as_array)
            .flatten()
            .for_each(&mut collect),
        _ => {}
    }
    if !each.is_empty() {
        out.push_str(&format!("; not restored: {}", each.join("; ")));
    }
    out
}

/// The tool-level kind of a git-ward error.
fn kind_of(err: &Error, failed: &'static str) -> &'static str {
    match err.code.status() {
        "D" => "denied",
        "I" => "invalid_argument",
        _ => failed,
    }
}
