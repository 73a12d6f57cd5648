//! One tool call's road: arguments, assess and decide, act, bound, audit.
//!
//! A tool asks [`Ctx::govern`] with the git command line it is about to
//! run (or the action it stands for); that is the shim's road: classify,
//! gather facts, decide. A denial comes back as a [`ToolError`] carrying the
//! code and hint from `decide`. Whatever happens, [`Ctx::close`] writes one
//! audit line with source `mcp` and the action's tier.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Map, Value};

use crate::action::Action;
use crate::assess::{assess, Assessment};
use crate::audit::{self, Record};
use crate::decide::{self, Verdict};
use crate::error::Error;
use crate::git::Git;

/// The bound when the policy cannot say (`mcp.max_output_bytes`' default).
const DEFAULT_MAX_OUTPUT: usize = 65536;

/// A tool's failure, as the agent sees it: a short kind it can branch on
/// (`invalid_branch`, `denied`), and git-ward's code, message and hint.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolError {
    pub kind: &'static str,
    pub code: String,
    pub message: String,
    pub hint: Option<String>,
}

impl ToolError {
    /// From a git-ward error; `kind` says which tool-level failure it is.
    pub fn new(kind: &'static str, err: &Error) -> Self {
        ToolError {
            kind,
            code: err.code.as_str().to_string(),
            message: err.message.clone(),
            hint: err.hint.clone(),
        }
    }

    /// An invalid argument (EN-GIT-I-001).
    pub fn invalid(
        kind: &'static str,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        ToolError::new(kind, &Error::invalid(message, hint))
    }

    /// `D`, `I` or `E`, from the code.
    pub fn status(&self) -> &'static str {
        match self.code.get(7..8) {
            Some("D") => "D",
            Some("I") => "I",
            _ => "E",
        }
    }

    /// The text an agent reads.
    pub fn text(&self) -> String {
        let word = match self.status() {
            "D" => "denied",
            "I" => "invalid",
            _ => "error",
        };
        let mut out = if self.kind == word {
            format!("{word} [{}] {}", self.code, self.message)
        } else {
            format!("{}: {word} [{}] {}", self.kind, self.code, self.message)
        };
        if let Some(hint) = &self.hint {
            out.push_str(&format!("\nhint: {hint}"));
        }
        out
    }

    pub fn to_json(&self) -> Value {
        json!({
            "error": self.kind,
            "status": self.status(),
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
        })
    }
}

/// A tool's result: text for the agent, and the same as JSON when structured.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub text: String,
    pub structured: Option<Value>,
}

impl Output {
    /// Plain text (git's own output), bounded by the caller.
    pub fn text(text: String) -> Self {
        Output {
            text,
            structured: None,
        }
    }

    /// A JSON object; the text is its serialization.
    pub fn json(value: Value) -> Self {
        Output {
            text: value.to_string(),
            structured: Some(value),
        }
    }
}

pub type ToolResult = Result<Output, ToolError>;

/// The repository, the rules and the doorway for one tool call.
pub struct Governed {
    pub a: Assessment,
    pub git: Git,
    pub dir: PathBuf,
    pub trace_id: String,
    pub contract: Option<String>,
}

/// The audit line of a call that reached the rules, written at its end.
struct Pending {
    record: Record,
    audit_dir: PathBuf,
    git_dir: PathBuf,
    /// False for reads when policy `audit.reads` is off.
    log: bool,
}

/// One call in progress: its arguments, where it runs, and its audit line.
pub struct Ctx<'a> {
    pub tool: &'static str,
    pub args: &'a Map<String, Value>,
    /// The repository directory: `repo_path`, else the server's directory.
    pub dir: PathBuf,
    pub max_output: usize,
    record: Option<Pending>,
    started: SystemTime,
    clock: Instant,
}

impl<'a> Ctx<'a> {
    /// A call of `tool`, in `repo_path` (relative to `default_dir`) or `default_dir`.
    pub fn new(
        tool: &'static str,
        args: &'a Map<String, Value>,
        default_dir: &Path,
    ) -> Result<Self, ToolError> {
        let dir = match args.get("repo_path") {
            None | Some(Value::Null) => default_dir.to_path_buf(),
            Some(Value::String(p)) => default_dir.join(p),
            Some(_) => return Err(type_error("repo_path", "a string")),
        };
        if !dir.is_dir() {
            return Err(ToolError::invalid(
                "invalid_argument",
                format!("repo_path {} is not a directory", dir.display()),
                "pass the path of the repository's working tree, or leave repo_path out",
            ));
        }
        Ok(Ctx {
            tool,
            args,
            dir,
            max_output: DEFAULT_MAX_OUTPUT,
            record: None,
            started: SystemTime::now(),
            clock: Instant::now(),
        })
    }

    /// The shim's road for `git <git_args>` in this call's repository. With
    /// `action`, the call stands for that action instead of what the
    /// classifier makes of `git_args` (a tool that is not a git command).
    pub fn govern(
        &mut self,
        operation: &str,
        git_args: &[&str],
        action: Option<Action>,
    ) -> Result<Governed, ToolError> {
        let mut argv: Vec<OsString> = vec!["-C".into(), self.dir.clone().into()];
        argv.extend(git_args.iter().map(OsString::from));
        let mut a = assess(&argv, true);
        if let Some(action) = action {
            a.action = action;
            redecide(&mut a);
        }
        self.admit(operation, a)
    }

    /// Logs the call and refuses it if `decide` said no; else a doorway to run git.
    pub fn admit(&mut self, operation: &str, a: Assessment) -> Result<Governed, ToolError> {
        let Some(repo) = a.repo.as_ref() else {
            return Err(ToolError::invalid(
                "not_a_repository",
                format!("{} is not in a git repository", self.dir.display()),
                "pass repo_path of a git working tree, or create one with `git ward init`",
            ));
        };
        let policy = a.policy.as_ref().ok();
        if let Some(p) = policy {
            self.max_output = usize::try_from(p.settings.mcp.max_output_bytes)
                .unwrap_or(usize::MAX)
                .max(1024);
        }
        let log_reads = policy.is_none_or(|p| p.settings.audit.reads);
        let trace_id = audit::new_trace_id();
        let contract = a.facts.as_ref().and_then(|f| f.contract.clone());
        let record = Record {
            started_at: audit::rfc3339(self.started),
            trace_id: trace_id.clone(),
            source: "mcp".into(),
            actor: "agent".into(),
            contract_id: contract.clone(),
            operation: operation.into(),
            argv: vec![
                self.tool.to_string(),
                Value::Object(self.args.clone()).to_string(),
            ],
            tier: a.action.tier(),
            decision: a.decision.word().into(),
            branch_before: a
                .facts
                .as_ref()
                .and_then(|f| f.head.as_ref())
                .map(|h| h.branch().unwrap_or("HEAD").to_string()),
            worktree: repo.workdir().map(|w| w.display().to_string()),
            ..Record::default()
        };
        let log = log_reads || a.action.tier() > 0;
        self.record = Some(Pending {
            record,
            audit_dir: audit::dir(repo.common_dir()),
            git_dir: repo.git_dir().to_path_buf(),
            log,
        });
        if let Verdict::Deny(err) = &a.decision.verdict {
            return Err(ToolError::new("denied", err));
        }
        let seconds = policy.map_or(10, |p| p.settings.timeouts.git_seconds);
        let git =
            crate::commands::save::agent_git(repo, &trace_id, "mcp", true, contract.as_deref())
                .map_err(|e| ToolError::new("invalid_argument", &e))?
                .with_timeout(Duration::from_secs(seconds));
        let dir = repo.workdir().unwrap_or(&self.dir).to_path_buf();
        Ok(Governed {
            a,
            git,
            dir,
            trace_id,
            contract,
        })
    }

    /// Writes the call's audit line, if it reached the rules.
    pub fn close(mut self, result: &ToolResult) {
        let Some(Pending {
            mut record,
            audit_dir,
            git_dir,
            log,
        }) = self.record.take()
        else {
            return;
        };
        if !log {
            return;
        }
        match result {
            Ok(_) => record.exit_code = Some(0),
            Err(e) => {
                if e.status() == "D" {
                    record.decision = "deny".into();
                    record.denial_code = Some(e.code.clone());
                }
                record.exit_code = Some(match e.status() {
                    "D" => 1,
                    "I" => 2,
                    _ => 3,
                });
            }
        }
        record.branch_after = head_branch(&git_dir);
        record.duration_ms = self.clock.elapsed().as_millis() as u64;
        record.timestamp = audit::rfc3339(SystemTime::now());
        audit::append(&audit_dir, &[record]);
    }

    // ---- arguments ----

    /// An optional string argument.
    pub fn str_arg(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(type_error(name, "a string")),
        }
    }

    /// A required string argument.
    pub fn required_str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.str_arg(name)?.ok_or_else(|| {
            ToolError::invalid(
                "invalid_argument",
                format!("argument '{name}' is required"),
                format!("call {} again with '{name}'", self.tool),
            )
        })
    }

    /// An optional boolean argument with its default.
    pub fn bool_arg(&self, name: &str, default: bool) -> Result<bool, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(type_error(name, "true or false")),
        }
    }

    /// An optional integer argument in `range`, with its default.
    pub fn int_arg(&self, name: &str, default: u64, max: u64) -> Result<u64, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| type_error(name, &format!("an integer from 1 to {max}"))),
        }
    }

    /// An optional list of strings; a single string counts as a list of one.
    pub fn list_arg(&self, name: &str) -> Result<Vec<&'a str>, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.as_str()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| type_error(name, "a list of strings"))
                })
                .collect(),
            Some(_) => Err(type_error(name, "a list of strings")),
        }
    }

    /// Bounds git's text output, with a note on how to ask for less.
    pub fn bounded(&self, text: String, narrow: &str) -> Output {
        Output::text(bound_text(text, self.max_output, narrow))
    }

    /// Bounds a JSON result by shortening its longest lists.
    pub fn bounded_json(&self, value: Value, narrow: &str) -> Output {
        Output::json(bound_json(value, self.max_output, narrow))
    }
}

/// Decides again after the action was replaced (the facts stay the same).
/// Without facts the first decision stands: it already failed closed.
pub fn redecide(a: &mut Assessment) {
    if let (Ok(policy), Some(facts)) = (&a.policy, &a.facts) {
        a.decision = decide::decide(policy, &a.action, facts);
    }
}

/// HEAD's branch, read from the HEAD file (`HEAD` when detached).
fn head_branch(git_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    Some(match text.trim().strip_prefix("ref: ") {
        Some(r) => r.strip_prefix("refs/heads/").unwrap_or(r).to_string(),
        None => "HEAD".to_string(),
    })
}

fn type_error(name: &str, want: &str) -> ToolError {
    ToolError::invalid(
        "invalid_argument",
        format!("argument '{name}' must be {want}"),
        "see the tool's input schema in tools/list",
    )
}

/// Cuts `text` to at most `max` bytes, at a line end when one is near,
/// and appends a note saying how much was left out and how to narrow.
pub fn bound_text(text: String, max: usize, narrow: &str) -> String {
    if text.len() <= max {
        return text;
    }
    // Sized with the total in place of the shown count, which is never longer.
    let note = format!(
        "\n[output truncated: {} bytes of {} shown; {narrow}]",
        text.len(),
        text.len()
    );
    let mut cut = max.saturating_sub(note.len()).min(text.len());
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(nl) = text[..cut].rfind('\n') {
        if nl > cut / 2 {
            cut = nl;
        }
    }
    let mut out = text[..cut].to_string();
    out.push_str(&format!(
        "\n[output truncated: {cut} bytes of {} shown; {narrow}]",
        text.len()
    ));
    out
}

/// Halves the longest list in `value` (top level or one level down) until
/// its JSON fits `max`, recording what was cut under `truncated`.
pub fn bound_json(mut value: Value, max: usize, narrow: &str) -> Value {
    let mut cut: Map<String, Value> = Map::new();
    while value.to_string().len() > max {
        let Some(obj) = value.as_object_mut() else {
            break;
        };
        let longest = obj
            .iter()
            .filter_map(|(k, v)| v.as_array().map(|a| (k.clone(), a.len())))
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n);
        let Some((key, len)) = longest else { break };
        let total = cut.get(&key).and_then(Value::as_u64).unwrap_or(len as u64);
        cut.insert(key.clone(), total.into());
        if let Some(Value::Array(list)) = obj.get_mut(&key) {
            list.truncate(len / 2);
        }
    }
    if !cut.is_empty() {
        if let Some(obj) = value.as_object_mut() {
            obj.insert(
                "truncated".into(),
                json!({ "total_entries": cut, "note": narrow }),
            );
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_a_note() {
        let text = "line\n".repeat(1000);
        let out = bound_text(text.clone(), 1024, "pass file_path");
        assert!(out.len() <= 1024, "{}", out.len());
        assert!(out.ends_with("of 5000 shown; pass file_path]"));
        assert_eq!(bound_text("short".into(), 1024, "x"), "short");
        let wide = "é".repeat(1000);
        assert!(bound_text(wide, 1001, "n").len() <= 1001);
    }

    #[test]
    fn long_lists_are_halved_until_they_fit() {
        let v = json!({ "branch": "main", "untracked": (0..500).map(|i| format!("file{i}")).collect::<Vec<_>>(), "staged": ["a"] });
        let out = bound_json(v, 2048, "commit part of the work");
        assert!(out.to_string().len() <= 2048);
        assert_eq!(out["truncated"]["total_entries"]["untracked"], 500);
        assert_eq!(out["staged"], json!(["a"]));
    }

    #[test]
    fn tool_errors_render_kind_code_and_hint() {
        let e = ToolError::invalid("invalid_branch", "bad", "do this");
        assert_eq!(e.status(), "I");
        assert_eq!(
            e.text(),
            "invalid_branch: invalid [EN-GIT-I-001] bad\nhint: do this"
        );
    }
}
