//! Every command of the tool, one file each. A command returns an
//! [`Outcome`]; only `cli` prints it.

pub mod ask;
pub mod audit;
pub mod checkpoint;
pub mod contract;
pub mod demo;
pub mod doctor;
pub mod drift;
pub mod explain;
pub mod help;
pub mod init;
pub mod install;
pub mod leased;
pub mod leftovers;
pub mod policy;
pub mod pretool;
pub mod rollback;
pub mod run;
pub mod save;
pub mod sessions;
pub mod turn;
pub mod undo;

use crate::error::{exit, Error, Result};
use crate::facts::{self, Repo};
use crate::policy::Policy;

/// What a tool command ends with; `cli` prints it (no command calls back
/// up into the dispatcher).
pub enum Outcome {
    /// A value for `--json` and a text for people; exit 0 when it worked.
    Report {
        json: bool,
        result: Result<(serde_json::Value, String)>,
    },
    /// A value for `--json` and an exit code; the text for people was said
    /// along the way (a plan, then the question before changing anything).
    Coded {
        json: bool,
        result: Result<(serde_json::Value, u8)>,
    },
    /// Everything printed already (a stream, a story): the exit code.
    Done(Result<u8>),
    /// A session's end (`git ward run`): its command had stdout, so the
    /// summary goes to stderr; then its exit code, or its signal again.
    Ended { json: bool, result: Result<Ended> },
}

/// What a session ended with.
pub struct Ended {
    /// The summary for `--json`.
    pub value: serde_json::Value,
    /// The summary for people.
    pub text: String,
    pub code: u8,
    /// The signal that ended the command, raised again by `cli`.
    pub signal: Option<i32>,
}

impl Outcome {
    /// A command's value and text, or its error.
    pub fn report(json: bool, result: Result<(serde_json::Value, String)>) -> Outcome {
        Outcome::Report { json, result }
    }

    /// A command's value and exit code, or its error.
    pub fn coded(json: bool, result: Result<(serde_json::Value, u8)>) -> Outcome {
        Outcome::Coded { json, result }
    }
}

/// Refuses a step of the tool that switches a guard off where `decide`
/// says so ([`crate::decide::decide_tool`]), with an audit line named
/// `operation`. A policy that cannot be read leaves the built-in one to
/// say who is an agent.
pub fn tool_step(step: crate::decide::ToolStep, operation: &str) -> Result<(), Error> {
    let repo = Repo::discover();
    let policy = facts::load_policy(repo.as_ref(), false).unwrap_or_else(|_| Policy::built_in());
    let actor = facts::actor(&policy, false);
    let decision = crate::decide::decide_tool(&policy, actor, step);
    let Some(err) = decision.denial() else {
        return Ok(());
    };
    if let Some(repo) = &repo {
        let contract = facts::contract(Some(repo)).ok().flatten().map(|c| c.0);
        log(repo, operation, contract.as_deref(), Some(err));
    }
    Err(err.clone())
}

/// Writes the audit line of a tool command that runs no git of its own:
/// allowed, or refused with `denied`.
pub fn log(repo: &Repo, operation: &str, contract: Option<&str>, denied: Option<&Error>) {
    let now = crate::audit::rfc3339(std::time::SystemTime::now());
    // The line is written even when the policy cannot be read: the
    // built-in one then says which variables mark an agent.
    let policy = facts::load_policy(Some(repo), false).unwrap_or_else(|_| Policy::built_in());
    crate::audit::append(
        &crate::audit::dir(repo.common_dir()),
        &[crate::audit::Record {
            timestamp: now.clone(),
            started_at: now,
            trace_id: crate::audit::new_trace_id(),
            source: "tool".into(),
            actor: facts::actor(&policy, false).as_str().into(),
            contract_id: contract.map(str::to_string),
            operation: operation.into(),
            argv: crate::process::tool_argv(),
            tier: 1,
            decision: if denied.is_some() { "deny" } else { "allow" }.into(),
            denial_code: denied.map(|e| e.code.as_str().to_string()),
            exit_code: Some(denied.map_or(exit::OK, Error::exit_code) as i32),
            worktree: repo.workdir().map(|w| w.display().to_string()),
            ..Default::default()
        }],
    );
}
