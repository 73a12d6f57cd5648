//! `git ward pretool <harness>`: an agent harness's pre-tool hook.
//!
//! The harness's JSON arrives on stdin; every git invocation in its shell
//! command line is assessed as the shim would assess it (same policy
//! layers, same facts of the repository it would run in, its directory and
//! variables taken from the line), and the answer goes back in the
//! harness's own format. It never fails the harness: a malformed input or
//! an internal error is answered too (nothing decided, the reason shown),
//! and logged. The shim and the hooks stay the enforcement; this is the
//! earliest and clearest refusal.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::assess::{assess, Assessment};
use crate::audit::{self, Record};
use crate::decide::Verdict;
use crate::facts::Repo;
use crate::pretool::shell::{self, GitCall};
use crate::pretool::{quote, Answer, Harness, Request};

/// Answer an agent harness's pre-tool hook: the hook's JSON on stdin, the
/// answer as JSON on stdout, exit 0. Git commands are judged by the same
/// rules as the shim; other commands get no opinion.
#[derive(Debug, clap::Args)]
pub struct PretoolArgs {
    /// The harness whose hook input arrives on stdin.
    #[arg(value_enum)]
    pub harness: Harness,
}

/// What to print and the exit code (0: the answer is in the JSON).
pub struct Outcome {
    pub stdout: String,
    pub code: u8,
}

/// The most of stdin read: a hook input is a few kilobytes.
const MAX_INPUT: u64 = 16 << 20;

/// Runs `git ward pretool`.
pub fn run(args: PretoolArgs) -> Outcome {
    let harness = args.harness;
    let started = SystemTime::now();
    let mut input = Vec::new();
    let read = std::io::stdin()
        .take(MAX_INPUT)
        .read_to_end(&mut input)
        .map_err(|e| format!("stdin could not be read: {e}"));
    let request = read.and_then(|_| {
        let value = serde_json::from_slice(&input).map_err(|e| format!("not JSON: {e}"))?;
        harness.read(&value)
    });
    let (request, answer) = match request {
        Ok(request) => {
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                answer(harness, &request, started)
            }))
            .unwrap_or_else(|_| {
                let why = "git-ward failed inside (see WARD_LOG=debug)";
                log_unanswered(harness, request.cwd.as_deref(), "allow", why, started);
                Answer::Malformed(unanswered(harness, why))
            });
            (Some(request), answer)
        }
        Err(why) => {
            log_unanswered(harness, None, "allow", &why, started);
            (None, Answer::Malformed(unanswered(harness, &why)))
        }
    };
    Outcome {
        stdout: format!("{}\n", harness.render(request.as_ref(), &answer)),
        code: 0,
    }
}

fn unanswered(harness: Harness, why: &str) -> String {
    format!(
        "git-ward could not judge this {} tool call ({why}); git-ward's shim and hooks still apply",
        harness.as_str()
    )
}

/// The answer for one request.
fn answer(harness: Harness, request: &Request, started: SystemTime) -> Answer {
    let Some(command) = request.command.as_deref() else {
        return Answer::NoOpinion;
    };
    let line = shell::split(command);
    let base = base_dir(request.cwd.as_deref());
    if let Some(why) = &line.unreadable {
        log_unanswered(harness, Some(&base.to_string_lossy()), "deny", why, started);
        return Answer::Unsure(format!(
            "ward: git-ward cannot read this command line where a git command may run ({why})\nhint: run each git command as a plain command of its own, e.g. `cd DIR && git commit -m MSG`"
        ));
    }
    if line.git.is_empty() {
        return Answer::NoOpinion;
    }
    let mut denials = Vec::new();
    let mut needs_shim = false;
    let mut rewritable = true;
    for call in &line.git {
        let a = assess_call(call, &base);
        log(harness, &a, call, started);
        let wants_shim = match &a.decision.verdict {
            Verdict::Deny(e) => {
                denials.push(e.render_denial().trim_end().to_string());
                false
            }
            Verdict::Switch(_) => true,
            Verdict::Allow => a.decision.checkpoint || a.decision.save_staged,
        };
        if wants_shim {
            needs_shim = true;
            // PATH finds only a git named by its bare name.
            rewritable &= call.program == "git";
        }
    }
    if !denials.is_empty() {
        return Answer::Deny(denials.join("\n"));
    }
    let all_git = !line.others && line.git.iter().all(|c| !c.opaque);
    if needs_shim && !shim_first() {
        if let Some(dir) = shim_dir().filter(|_| harness.rewrites() && rewritable) {
            return Answer::Rewrite {
                command: format!("export PATH={}:\"$PATH\"; {command}", quote(&dir.to_string_lossy())),
                note: "git-ward runs this through its shim, which checkpoints first (`git ward undo` brings the work back)".into(),
                confirm: !all_git,
            };
        }
        return Answer::Note {
            text: "git-ward allows this, but its shim is not first on this PATH: no checkpoint is taken first (`git ward install --shim`, then put it first on PATH)".into(),
            allow: all_git,
        };
    }
    if all_git {
        Answer::Allow
    } else {
        Answer::NoOpinion
    }
}

/// The directory the command line starts in: the harness's, else ours.
fn base_dir(cwd: Option<&str>) -> PathBuf {
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    match cwd.filter(|c| !c.is_empty()) {
        Some(dir) => here.join(dir),
        None => here,
    }
}

/// Assesses one git invocation in its directory, with its variables set,
/// as the shim would (the actor is an agent).
fn assess_call(call: &GitCall, base: &Path) -> Assessment {
    let mut dir = base.to_path_buf();
    for step in &call.dirs {
        dir.push(step);
    }
    let _scope = Scope::enter(&dir, &call.env);
    let args: Vec<OsString> = call.args.iter().map(OsString::from).collect();
    assess(&args, true)
}

/// The working directory and variables of one invocation, put back on drop.
struct Scope {
    cwd: Option<PathBuf>,
    env: Vec<(String, Option<OsString>)>,
}

impl Scope {
    fn enter(dir: &Path, env: &[(String, String)]) -> Scope {
        let cwd = std::env::current_dir().ok();
        // A directory the line creates first (`mkdir d && cd d`): git would
        // find the repository from the nearest one that is there.
        let there = dir.ancestors().find(|d| d.is_dir());
        if let Some(there) = there {
            let _ = std::env::set_current_dir(there);
        }
        let mut saved = Vec::new();
        for (name, value) in env {
            saved.push((name.clone(), std::env::var_os(name)));
            std::env::set_var(name, value);
        }
        Scope { cwd, env: saved }
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        for (name, value) in self.env.drain(..).rev() {
            match value {
                Some(v) => std::env::set_var(&name, v),
                None => std::env::remove_var(&name),
            }
        }
        if let Some(cwd) = &self.cwd {
            let _ = std::env::set_current_dir(cwd);
        }
    }
}

/// Is the first `git` on this PATH git-ward itself (the shim)?
fn shim_first() -> bool {
    let (Ok(me), Ok(cwd)) = (std::env::current_exe(), std::env::current_dir()) else {
        return false;
    };
    which::which_in("git", super::doctor::agents_path(), cwd)
        .is_ok_and(|first| crate::hooks::install::same_file(&first, &me))
}

/// The shim directory, when `git ward install --shim` made it for this binary.
fn shim_dir() -> Option<PathBuf> {
    let dir = crate::facts::install_record::default_shim_dir()?;
    let me = std::env::current_exe().ok()?;
    crate::hooks::install::same_file(&dir.join("git"), &me).then_some(dir)
}

/// One audit line per git invocation judged, in the repository it would run in.
fn log(harness: Harness, a: &Assessment, call: &GitCall, started: SystemTime) {
    let Some(repo) = &a.repo else {
        return;
    };
    let mut argv = vec![call.program.clone()];
    argv.extend(call.args.iter().cloned());
    let record = Record {
        contract_id: a.facts.as_ref().and_then(|f| f.contract.clone()),
        operation: a.action.operation(),
        argv,
        tier: a.tier(),
        decision: a.decision.word().into(),
        denial_code: a.decision.denial().map(|e| e.code.as_str().to_string()),
        branch_before: repo
            .head()
            .map(|h| h.branch().unwrap_or("HEAD").to_string()),
        worktree: repo.workdir().map(|w| w.display().to_string()),
        ..record(harness, started)
    };
    audit::append(&audit::dir(repo.common_dir()), &[record]);
}

/// The fields every line of this hook shares: its time, the harness as
/// `source`, an agent as the actor.
fn record(harness: Harness, started: SystemTime) -> Record {
    Record {
        started_at: audit::rfc3339(started),
        timestamp: audit::rfc3339(SystemTime::now()),
        duration_ms: started.elapsed().map_or(0, |d| d.as_millis() as u64),
        trace_id: audit::new_trace_id(),
        source: harness.as_str().into(),
        actor: "agent".into(),
        ..Record::default()
    }
}

/// The audit line of a call judged as a whole, in the repository of the
/// directory it names, else of ours: `deny` for a line that cannot be read
/// (never allowed), `allow` for an input that could not be read (nothing
/// decided: the shim and hooks still apply). `argv` holds the reason.
fn log_unanswered(
    harness: Harness,
    cwd: Option<&str>,
    decision: &str,
    why: &str,
    started: SystemTime,
) {
    let dir = base_dir(cwd);
    let repo = {
        let _scope = Scope::enter(&dir, &[]);
        Repo::discover()
    };
    let Some(repo) = repo else {
        return;
    };
    let record = Record {
        operation: "pretool".into(),
        argv: vec![why.to_string()],
        tier: 1,
        decision: decision.into(),
        exit_code: Some(0),
        worktree: repo.workdir().map(|w| w.display().to_string()),
        ..record(harness, started)
    };
    audit::append(&audit::dir(repo.common_dir()), &[record]);
}
