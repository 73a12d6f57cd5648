//! `git ward save`: stage everything and commit it as one unit of work.
//!
//! The seed's "commit per completed todo", through the same rules as the
//! shim: the commit is assessed like `git commit`, so on a protected branch
//! it auto-switches to the agent branch or is denied with the same code.
//!
//! Nothing is half-done. Staging happens in a scratch copy of the index
//! (`GIT_INDEX_FILE`), which replaces the real index, under git's own
//! `index.lock`, only once the commit exists. A failed commit leaves the
//! index exactly as it was, and an auto-switch made for it is undone.

use super::Outcome;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::assess::{assess, Assessment};
use crate::audit::{self, Record};
use crate::decide::{self, Actor, Verdict};
use crate::env;
use crate::error::{exit, Error, IoContext, Result};
use crate::facts::Repo;
use crate::git::Git;

/// Stage everything (`git add -A`) and commit it, even when empty, with a
/// structured message: `[Phase P] ID: MSG` and the trailers `Completed:`,
/// `Phase:`, `Todo:`, `Notes:` and the contract footer. On a protected
/// branch it moves to the agent branch first, or is denied, like `git commit`.
#[derive(Debug, clap::Args)]
pub struct SaveArgs {
    /// What was done (the subject line; more lines become the body).
    #[arg(short, long)]
    pub message: String,
    /// The phase of the plan this work belongs to.
    #[arg(long)]
    pub phase: Option<String>,
    /// The id of the completed todo item.
    #[arg(long)]
    pub todo: Option<String>,
    /// A note for the `Notes:` trailer (repeat for more).
    #[arg(long)]
    pub notes: Vec<String>,
    /// Stage and commit only these paths (files or directories, relative
    /// to the top of the working tree); without any, everything.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// Print one JSON object: branch, commit, switched.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward save`.
pub fn run(args: SaveArgs) -> Outcome {
    let request = Request {
        message: args.message,
        phase: args.phase,
        todo: args.todo,
        notes: args.notes,
        paths: args.paths,
    };
    let ctx = Context {
        dir: None,
        source: "tool",
        as_agent: false,
    };
    Outcome::report(
        args.json,
        save(&request, &ctx).map(|s| (s.to_json(), s.text())),
    )
}

/// One unit of work to save.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub message: String,
    pub phase: Option<String>,
    pub todo: Option<String>,
    pub notes: Vec<String>,
    /// Only these paths are staged; empty: everything.
    pub paths: Vec<String>,
}

impl Request {
    /// The command line that asks for this save, for the audit line.
    fn argv(&self) -> Vec<String> {
        let mut argv = vec!["save".to_string(), "-m".into(), self.message.clone()];
        let options = [("--phase", &self.phase), ("--todo", &self.todo)];
        for (flag, value) in options {
            if let Some(value) = value {
                argv.extend([flag.to_string(), value.clone()]);
            }
        }
        for note in &self.notes {
            argv.extend(["--notes".to_string(), note.clone()]);
        }
        if !self.paths.is_empty() {
            argv.push("--".into());
            argv.extend(self.paths.iter().cloned());
        }
        argv
    }
}

/// Where a save runs and who asks.
pub struct Context<'a> {
    /// The repository's directory; the current directory when `None`.
    pub dir: Option<&'a Path>,
    /// The face that asks (`tool`, `mcp`), for the audit log and the hooks.
    pub source: &'static str,
    /// An agent asks, whatever the environment says (the MCP server).
    pub as_agent: bool,
}

/// A finished save.
#[derive(Clone, Debug)]
pub struct Saved {
    pub branch: String,
    pub commit: String,
    /// The protected branch it moved away from, when it auto-switched.
    pub switched_from: Option<String>,
    /// The checkpoint taken before it moved onto an existing branch.
    pub checkpoint: Option<String>,
    pub contract: Option<String>,
    /// Things that went wrong after the commit was made.
    pub warnings: Vec<String>,
}

impl Saved {
    /// The `--json` form.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "branch": self.branch,
            "commit": self.commit,
            "switched": self.switched_from.is_some(),
            "switched_from": self.switched_from,
            "contract": self.contract,
            "warnings": self.warnings,
        })
    }

    /// The text form.
    pub fn text(&self) -> String {
        let short = self.commit.get(..12).unwrap_or(&self.commit);
        let mut out = match &self.switched_from {
            Some(from) => format!(
                "ward: on protected '{from}'; switched to '{}'\nsaved {short} on '{}'\n",
                self.branch, self.branch
            ),
            None => format!("saved {short} on '{}'\n", self.branch),
        };
        for w in &self.warnings {
            out.push_str(&format!("ward: warning: {w}\n"));
        }
        out
    }
}

impl Request {
    /// Checks the fields before anything is touched.
    pub fn validate(&self) -> Result<()> {
        if self.message.trim().is_empty() {
            return Err(Error::invalid(
                "the save message is empty",
                "say what was done: `git ward save -m \"Add login form\"`",
            ));
        }
        for (name, value) in [("phase", &self.phase), ("todo", &self.todo)] {
            if let Some(v) = value {
                if v.trim().is_empty() || v.contains(['\n', '\r']) {
                    return Err(Error::invalid(
                        format!("--{name} must be one non-empty line"),
                        format!("pass a short {name} id, e.g. `--{name} 2`"),
                    ));
                }
            }
        }
        let all = [&self.message]
            .into_iter()
            .chain(self.phase.iter())
            .chain(self.todo.iter())
            .chain(self.notes.iter())
            .chain(self.paths.iter());
        if all.into_iter().any(|t| t.contains('\0')) {
            return Err(Error::invalid(
                "the save text contains a NUL byte",
                "remove it and retry",
            ));
        }
        Ok(())
    }

    /// The commit message: `[Phase P] ID: MSG`, the body, then the trailers.
    pub fn commit_message(&self, completed: &str, footer: Option<&str>) -> String {
        let text = self.message.trim();
        let (subject, body) = match text.split_once('\n') {
            Some((s, b)) => (s.trim(), b.trim()),
            None => (text, ""),
        };
        let mut head = String::new();
        if let Some(p) = &self.phase {
            head.push_str(&format!("[Phase {}] ", p.trim()));
        }
        if let Some(t) = &self.todo {
            head.push_str(&format!("{}: ", t.trim()));
        }
        let mut out = format!("{head}{subject}\n\n");
        if !body.is_empty() {
            out.push_str(body);
            out.push_str("\n\n");
        }
        // A footer that is not a `Key: value` trailer (the seed's
        // `[Contract: x]` form) goes above the trailers, keeping them last.
        let footer_is_trailer = footer.is_some_and(is_trailer);
        if let Some(f) = footer.filter(|_| !footer_is_trailer) {
            out.push_str(f);
            out.push_str("\n\n");
        }
        out.push_str(&format!("Completed: {completed}\n"));
        if let Some(p) = &self.phase {
            out.push_str(&format!("Phase: {}\n", p.trim()));
        }
        if let Some(t) = &self.todo {
            out.push_str(&format!("Todo: {}\n", t.trim()));
        }
        for note in &self.notes {
            // Continuation lines start with a space, as git folds trailers.
            let folded: Vec<&str> = note
                .trim()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            out.push_str(&format!("Notes: {}\n", folded.join("\n ")));
        }
        if let Some(f) = footer.filter(|_| footer_is_trailer) {
            out.push_str(f);
            out.push('\n');
        }
        out
    }
}

/// `Key: value` with a key git accepts as a trailer token.
fn is_trailer(line: &str) -> bool {
    line.split_once(": ").is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// Saves: assess as `git commit`, switch if told to, stage and commit, log.
pub fn save(request: &Request, ctx: &Context) -> Result<Saved> {
    request.validate()?;
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut args: Vec<OsString> = Vec::new();
    if let Some(dir) = ctx.dir {
        args.push("-C".into());
        args.push(dir.into());
    }
    args.extend(["commit", "--allow-empty", "-F", "-"].map(OsString::from));
    let mut a = assess(&args, ctx.as_agent);
    as_commit(&mut a);
    // Outside a repository; or in one git-ward cannot read, refused as such.
    let repo = a
        .repo
        .as_ref()
        .ok_or_else(|| a.decision.denial().cloned().unwrap_or_else(not_a_repo))?;
    let trace_id = env::var(env::WARD_TRACE_ID).unwrap_or_else(audit::new_trace_id);
    let contract = a.facts.as_ref().and_then(|f| f.contract.clone());
    let agent = ctx.as_agent || a.facts.as_ref().is_some_and(|f| f.actor == Actor::Agent);
    let mut record = Record {
        started_at: audit::rfc3339(started),
        trace_id: trace_id.clone(),
        source: ctx.source.into(),
        actor: if agent { "agent" } else { "human" }.into(),
        contract_id: contract.clone(),
        operation: "ward.save".into(),
        argv: request.argv(),
        tier: 1,
        decision: a.decision.word().into(),
        branch_before: head_name(&a),
        worktree: repo.workdir().map(|w| w.display().to_string()),
        ..Record::default()
    };
    let result = act(&a, repo, request, &trace_id, ctx.source, agent);
    match &result {
        Ok(saved) => {
            record.branch_after = Some(saved.branch.clone());
            if let Some(id) = &saved.checkpoint {
                record.actions_taken.push(format!("checkpoint {id}"));
            }
            if let Some(from) = &saved.switched_from {
                record
                    .actions_taken
                    .push(format!("switched from {from} to {}", saved.branch));
            }
            record
                .actions_taken
                .push(format!("commit {}", saved.commit));
            record.exit_code = Some(exit::OK as i32);
        }
        Err(err) => {
            if err.code.status() == "D" {
                record.decision = "deny".into();
                record.denial_code = Some(err.code.as_str().to_string());
            }
            record.exit_code = Some(err.exit_code() as i32);
        }
    }
    record.duration_ms = clock.elapsed().as_millis() as u64;
    record.timestamp = audit::rfc3339(SystemTime::now());
    audit::append(&audit::dir(repo.common_dir()), &[record]);
    result
}

/// Decides the assessed commit as `git ward save` makes it: it creates
/// commits, whatever the classifier knows about `commit`, and save moves
/// HEAD itself where the rules switch branches, for a person too
/// ([`decide::Facts::saving`]).
pub(crate) fn as_commit(a: &mut Assessment) {
    a.action.creates_commits = true;
    if let (Ok(policy), Some(facts)) = (&a.policy, a.facts.as_mut()) {
        facts.saving = true;
        a.decision = decide::decide(policy, &a.action, facts);
    }
}

fn act(
    a: &Assessment,
    repo: &Repo,
    request: &Request,
    trace_id: &str,
    source: &str,
    agent: bool,
) -> Result<Saved> {
    let policy = a.policy.as_ref().ok();
    let seconds = policy.map_or(10, |p| p.settings.timeouts.git_seconds);
    let contract = a.facts.as_ref().and_then(|f| f.contract.clone());
    let git = agent_git(repo, trace_id, source, agent, contract.as_deref())?
        .with_timeout(Duration::from_secs(seconds));
    let mut switched_from = None;
    let mut checkpoint = None;
    match &a.decision.verdict {
        Verdict::Deny(err) => return Err(err.clone()),
        Verdict::Switch(branch) => {
            checkpoint = crate::act::switch::checkpoint_before_switch(&git, a, branch, trace_id)?;
            crate::act::switch::switch_to(&git, a, branch)?;
            switched_from = head_name(a);
        }
        Verdict::Allow => {}
    }
    let footer = match (policy, &contract) {
        (Some(p), Some(c)) if !p.settings.commit.footer.is_empty() => {
            Some(p.settings.commit.footer.replace("{contract}", c))
        }
        _ => None,
    };
    let message = request.commit_message(&audit::rfc3339(SystemTime::now()), footer.as_deref());
    // The commit runs the repository's hooks, which may run tests: it gets
    // the test limit rather than the limit for git-ward's own quick calls.
    let commit_limit = policy
        .and_then(|p| crate::policy::parse_duration(&p.settings.turns.test_timeout))
        .unwrap_or(Duration::from_secs(1800))
        .max(Duration::from_secs(seconds));
    match commit_all(&git, commit_limit, repo, &message, &request.paths) {
        Ok((commit, warnings)) => Ok(Saved {
            branch: current_branch(&git),
            commit,
            switched_from,
            checkpoint,
            contract,
            warnings,
        }),
        Err(err) => {
            if let Some(from) = &switched_from {
                let made = current_branch(&git);
                // A branch with no commit yet (a new repository) is not
                // checked out but named again: the index is as it was.
                let unborn = git
                    .run(["rev-parse", "-q", "--verify", &format!("refs/heads/{from}")])
                    .is_err();
                let back = if unborn {
                    git.run(["symbolic-ref", "HEAD", &format!("refs/heads/{from}")])
                } else {
                    git.run(["checkout", "--quiet", from.as_str()])
                };
                if let Err(back) = back {
                    return Err(err.with_hint(format!(
                        "nothing was committed; you are on '{made}' now (moving back to '{from}' failed: {})",
                        back.message
                    )));
                }
                // A branch the switch made (no checkpoint: it did not
                // exist) goes too, if it is still where it was made.
                if checkpoint.is_none() {
                    if let Ok(at) = git.run(["rev-parse", "HEAD"]) {
                        let _ = git.run(["update-ref", "-d", &format!("refs/heads/{made}"), &at]);
                    }
                }
            }
            Err(err)
        }
    }
}

/// Stages everything into a scratch index, commits it, then installs that
/// index as the real one. Returns the new commit's id and any warnings.
fn commit_all(
    git: &Git,
    commit_limit: Duration,
    repo: &Repo,
    message: &str,
    paths: &[String],
) -> Result<(String, Vec<String>)> {
    let index =
        PathBuf::from(git.run(["rev-parse", "--path-format=absolute", "--git-path", "index"])?);
    let scratch = Scratch(
        repo.git_dir()
            .join("ward")
            .join(format!("save-index-{}", std::process::id())),
    );
    if let Some(parent) = scratch.0.parent() {
        std::fs::create_dir_all(parent).at("create the directory", parent)?;
    }
    match std::fs::copy(&index, &scratch.0) {
        Ok(_) => {}
        // No index yet (a fresh repository): git starts from an empty one.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::internal(format!("cannot copy the index: {e}"))),
    }
    let envs = [("GIT_INDEX_FILE", scratch.0.as_os_str())];
    if paths.is_empty() {
        git.run_with(["add", "-A"], &envs, None)?;
    } else {
        // The paths as named, never as pathspec magic (`:(top)`, globs).
        let envs = [
            envs[0],
            ("GIT_LITERAL_PATHSPECS", std::ffi::OsStr::new("1")),
        ];
        let mut argv = vec!["add", "-A", "--"];
        argv.extend(paths.iter().map(String::as_str));
        git.run_with(argv, &envs, None)?;
    }
    let out = git.clone().with_timeout(commit_limit).output_with(
        [
            "commit",
            "--allow-empty",
            "--cleanup=whitespace",
            "-q",
            "-F",
            "-",
        ],
        &envs,
        Some(message.as_bytes()),
    )?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let said = if stderr.trim().is_empty() {
            stdout
        } else {
            stderr
        };
        return Err(
            Error::internal(format!("git commit failed: {}", said.trim())).with_hint(
                "nothing was committed and the index is as it was; fix the cause, then save again",
            ),
        );
    }
    let mut warnings = Vec::new();
    if let Err(e) = install_index(&scratch.0, &index) {
        warnings.push(format!(
            "the commit is made, but the index could not be updated ({e}); run `git reset -q` to refresh it"
        ));
    }
    Ok((git.run(["rev-parse", "HEAD"])?, warnings))
}

/// Replaces the index with `scratch` under git's lock protocol: take
/// `index.lock` exclusively, move the new index onto it, rename it into place.
fn install_index(scratch: &Path, index: &Path) -> std::io::Result<()> {
    let lock = index.with_extension("lock");
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)?;
    if let Err(e) = std::fs::rename(scratch, &lock).and_then(|_| std::fs::rename(&lock, index)) {
        let _ = std::fs::remove_file(&lock);
        return Err(e);
    }
    Ok(())
}

/// A scratch file removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// A doorway for git-ward's own git calls in `repo`, carrying the trace id,
/// the face, the contract and (for agents) `WARD_AGENT`, so the hooks that
/// git runs know who asked.
pub(crate) fn agent_git(
    repo: &Repo,
    trace_id: &str,
    source: &str,
    agent: bool,
    contract: Option<&str>,
) -> Result<Git> {
    let workdir = repo.workdir().ok_or_else(|| {
        Error::invalid(
            format!("{} is a bare repository", repo.git_dir().display()),
            "run it in a repository with a working tree",
        )
    })?;
    let mut git = Git::locate()?
        .detached_from_env()
        .in_dir(workdir)
        .env("GIT_DIR", repo.git_dir())
        .env("GIT_WORK_TREE", workdir)
        .env(env::WARD_TRACE_ID, trace_id)
        .env(env::WARD_VIA, source);
    if agent {
        git = git.env(env::WARD_AGENT, "1");
    }
    if let Some(c) = contract {
        git = git.env(env::WARD_CONTRACT, c);
    }
    Ok(git)
}

/// The branch HEAD was on when assessed (`HEAD` when detached).
fn head_name(a: &Assessment) -> Option<String> {
    a.facts
        .as_ref()
        .and_then(|f| f.head.as_ref())
        .map(|h| h.branch().unwrap_or("HEAD").to_string())
}

fn current_branch(git: &Git) -> String {
    git.run(["symbolic-ref", "--short", "-q", "HEAD"])
        .unwrap_or_else(|_| "HEAD".to_string())
}

/// The error for a directory outside any repository.
pub(crate) fn not_a_repo() -> Error {
    Error::invalid(
        "not in a git repository",
        "run it inside the repository the agent works in (or create one with `git ward init`)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(phase: Option<&str>, todo: Option<&str>, notes: &[&str]) -> Request {
        Request {
            message: "Add login form".into(),
            phase: phase.map(Into::into),
            todo: todo.map(Into::into),
            notes: notes.iter().map(|n| n.to_string()).collect(),
            paths: Vec::new(),
        }
    }

    #[test]
    fn message_prefix_has_only_the_parts_given() {
        let t = "2026-01-01T00:00:00.000Z";
        let subject = |r: &Request| {
            r.commit_message(t, None)
                .lines()
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(
            subject(&req(Some("2"), Some("T-7"), &[])),
            "[Phase 2] T-7: Add login form"
        );
        assert_eq!(
            subject(&req(Some("2"), None, &[])),
            "[Phase 2] Add login form"
        );
        assert_eq!(subject(&req(None, Some("T-7"), &[])), "T-7: Add login form");
        assert_eq!(subject(&req(None, None, &[])), "Add login form");
    }

    #[test]
    fn trailers_come_last_with_the_footer() {
        let m = req(Some("2"), Some("T-7"), &["first", "two\nlines"])
            .commit_message("2026-01-01T00:00:00.000Z", Some("Contract: c1"));
        assert_eq!(
            m,
            "[Phase 2] T-7: Add login form\n\n\
             Completed: 2026-01-01T00:00:00.000Z\nPhase: 2\nTodo: T-7\n\
             Notes: first\nNotes: two\n lines\nContract: c1\n"
        );
        let seed = req(None, None, &[]).commit_message("t", Some("[Contract: c1]"));
        assert_eq!(seed, "Add login form\n\n[Contract: c1]\n\nCompleted: t\n");
    }

    #[test]
    fn bad_requests_are_invalid() {
        let mut r = req(None, None, &[]);
        r.message = "  ".into();
        assert_eq!(r.validate().unwrap_err().code.as_str(), "EN-GIT-I-001");
        let r = req(Some("a\nb"), None, &[]);
        assert!(r.validate().is_err());
        assert!(req(Some("2"), Some("x"), &["n"]).validate().is_ok());
    }
}
