//! One tool call's road: arguments, assess and decide, act, audit, bound.
//!
//! A tool asks [`Ctx::govern`] with the git command line it is about to
//! run (or the action it stands for); that is the shim's road: classify,
//! gather facts, decide. A denial comes back as a [`ToolError`] carrying the
//! code and hint from `decide`. Whatever happens, [`Ctx::close`] writes one
//! audit line with source `mcp` and the action's tier. The server then cuts
//! the result, of every tool alike, to `mcp.max_output_bytes`
//! ([`Output::bound`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Map, Value};

use super::args::type_error;
use super::bound::{bound_json, bound_text};

use crate::action::Action;
use crate::assess::{assess, Assessment};
use crate::audit::{self, Record};
use crate::decide::{self, Verdict};
use crate::error::Error;
use crate::git::Git;
use crate::policy::Policy;

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

/// An internal error where a tool fails (a result of the wrong shape).
impl From<Error> for ToolError {
    fn from(err: Error) -> Self {
        ToolError::new("failed", &err)
    }
}

/// A tool's result: text for the agent, and the same as JSON when structured.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub text: String,
    /// For a JSON result, the value; `text` is then its serialization.
    pub structured: Option<Value>,
    /// How to ask for less, for the note when the output is cut.
    pub narrow: &'static str,
    /// `text` is git's own output, and `structured` holds it as `output`.
    plain: bool,
}

impl Output {
    /// Plain text, with no structured form (what a cut JSON result becomes).
    pub fn text(text: String) -> Self {
        Output {
            text,
            structured: None,
            narrow: "",
            plain: false,
        }
    }

    /// git's own output: the text as git printed it, and `{"output": text}`
    /// as the structured result ([`super::results::Text`]).
    pub fn git(text: String) -> Self {
        Output {
            structured: Some(json!({ "output": text })),
            text,
            narrow: "",
            plain: true,
        }
    }

    /// A JSON object; the text is its serialization.
    pub fn json(value: Value) -> Self {
        Output {
            text: value.to_string(),
            structured: Some(value),
            narrow: "",
            plain: false,
        }
    }

    /// The same, with `narrow` saying how to ask for less when it is cut.
    pub fn narrow(self, narrow: &'static str) -> Self {
        Output { narrow, ..self }
    }

    /// Cut to `max` bytes of text (see [`super::bound`]). A JSON result
    /// stays JSON when some JSON of its shape fits; else it becomes text
    /// alone, its serialization cut like any text.
    pub fn bound(self, max: usize) -> Self {
        if self.text.len() <= max {
            return self;
        }
        let Output {
            text,
            structured,
            narrow,
            plain,
        } = self;
        if plain {
            let text = bound_text(text, max, narrow);
            let structured = bound_json(json!({ "output": text }), max, narrow);
            return Output {
                text,
                structured,
                narrow,
                plain,
            };
        }
        match structured.map(|v| bound_json(v, max, narrow)) {
            Some(Some(v)) => Output::json(v).narrow(narrow),
            _ => Output::text(bound_text(text, max, narrow)).narrow(narrow),
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

/// The repository `dir` is in, one name for all its worktrees: its common
/// git directory, resolved. `None` outside a repository.
pub fn repository_of(dir: &Path) -> Option<PathBuf> {
    let repo = crate::facts::Repo::at(dir)?;
    repo.common_dir().canonicalize().ok()
}

/// One call in progress: its arguments, where it runs, and its audit line.
pub struct Ctx<'a> {
    pub tool: &'static str,
    /// The tool changes nothing (the audit line's tier).
    read_only: bool,
    pub args: &'a Map<String, Value>,
    /// The repository directory: `repo_path`, else the server's directory.
    pub dir: PathBuf,
    /// `mcp.max_output_bytes`, once the call has read the policy.
    max_output: Option<usize>,
    record: Option<Pending>,
    started: SystemTime,
    clock: Instant,
}

impl<'a> Ctx<'a> {
    /// A call of `tool`, in `repo_path` (relative to `default_dir`) or
    /// `default_dir`, refused where that is in a repository not `served`.
    pub fn new(
        tool: &'static str,
        read_only: bool,
        args: &'a Map<String, Value>,
        default_dir: &Path,
        served: &[PathBuf],
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
        if repository_of(&dir).is_some_and(|r| !served.contains(&r)) {
            return Err(ToolError::invalid(
                "repository_not_served",
                format!("{} is in a repository this server does not serve", dir.display()),
                "leave repo_path out, or name a path in the repository the server was started in (`git ward mcp --repo DIR` serves others)",
            ));
        }
        Ok(Ctx {
            tool,
            read_only,
            args,
            dir,
            max_output: None,
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
        self.max_output = Some(max_output(a.policy.as_ref().ok()));
        let Some(repo) = a.repo.as_ref() else {
            return Err(ToolError::invalid(
                "not_a_repository",
                format!("{} is not in a git repository", self.dir.display()),
                "pass repo_path of a git working tree, or create one with `git ward init`",
            ));
        };
        let policy = a.policy.as_ref().ok();
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
            tier: a.tier(),
            decision: a.decision.word().into(),
            branch_before: a
                .facts
                .as_ref()
                .and_then(|f| f.head.as_ref())
                .map(|h| h.branch().unwrap_or("HEAD").to_string()),
            worktree: repo.workdir().map(|w| w.display().to_string()),
            ..Record::default()
        };
        let log = log_reads || a.tier() > 0;
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

    /// Adds what the call did to its audit line (`checkpoint <id>`).
    pub fn note(&mut self, action: String) {
        if let Some(pending) = self.record.as_mut() {
            pending.record.actions_taken.push(action);
        }
    }

    /// Writes the call's audit line, if it reached the rules.
    pub fn close(mut self, result: &ToolResult) {
        let pending = match self.record.take() {
            Some(pending) => Some(pending),
            // Refused before the rules were asked (its arguments): logged
            // too, in the repository the call names, if it is one. A
            // denial came from the rules, by a tool that logs its own
            // line (`save`): not twice.
            None if result.as_ref().is_err_and(|e| e.status() != "D") => self.unassessed(),
            None => None,
        };
        let Some(Pending {
            mut record,
            audit_dir,
            git_dir,
            log,
        }) = pending
        else {
            return;
        };
        if !log {
            return;
        }
        match result {
            Ok(_) => record.exit_code = Some(0),
            Err(e) => {
                // The call did not run: refused, by the rules or for its arguments.
                if matches!(e.status(), "D" | "I") {
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
        record.branch_after = crate::facts::head_branch_file(&git_dir);
        record.duration_ms = self.clock.elapsed().as_millis() as u64;
        record.timestamp = audit::rfc3339(SystemTime::now());
        audit::append(&audit_dir, &[record]);
    }

    /// The audit line of a call that ended before [`Ctx::admit`], in the
    /// repository at its directory (none outside one).
    fn unassessed(&self) -> Option<Pending> {
        let repo = crate::facts::Repo::at(&self.dir)?;
        let read_only = self.read_only;
        let record = Record {
            started_at: audit::rfc3339(self.started),
            trace_id: audit::new_trace_id(),
            source: "mcp".into(),
            actor: "agent".into(),
            operation: format!("mcp.{}", self.tool),
            argv: vec![
                self.tool.to_string(),
                Value::Object(self.args.clone()).to_string(),
            ],
            tier: u8::from(!read_only),
            decision: "deny".into(),
            contract_id: crate::facts::contract(Some(&repo))
                .ok()
                .flatten()
                .map(|c| c.0),
            worktree: repo.workdir().map(|w| w.display().to_string()),
            ..Record::default()
        };
        Some(Pending {
            record,
            audit_dir: audit::dir(repo.common_dir()),
            git_dir: repo.git_dir().to_path_buf(),
            log: true,
        })
    }

    /// The bound on this call's output: the policy's, as the rules read
    /// it, or, for a call that ended before reaching them, as the policy of
    /// the call's repository says.
    pub fn max_output(&self) -> usize {
        self.max_output.unwrap_or_else(|| max_output_at(&self.dir))
    }
}

/// `mcp.max_output_bytes` of the repository at or above `dir` (the layers
/// without one outside a repository).
pub fn max_output_at(dir: &Path) -> usize {
    let repo = crate::facts::Repo::at(dir);
    max_output(crate::facts::load_policy(repo.as_ref(), true).ok().as_ref())
}

/// `mcp.max_output_bytes`, or its default when the policy cannot say.
fn max_output(policy: Option<&Policy>) -> usize {
    policy.map_or(DEFAULT_MAX_OUTPUT, |p| {
        usize::try_from(p.settings.mcp.max_output_bytes).unwrap_or(usize::MAX)
    })
}

/// Decides again after the action was replaced (the facts stay the same).
/// Without facts the first decision stands: it already failed closed.
pub fn redecide(a: &mut Assessment) {
    if let (Ok(policy), Some(facts)) = (&a.policy, &a.facts) {
        a.decision = decide::decide(policy, &a.action, facts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
