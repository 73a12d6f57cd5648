//! The shared front half of the road: classify, gather facts, decide.
//!
//! The shim, `explain`, `save` and the MCP server all ask here, so every
//! face reaches the same answer for the same command line.

use std::collections::HashMap;
use std::ffi::OsString;

use crate::action::Action;
use crate::classify::{self, GitArgs};
use crate::decide::{self, Decision, Facts};
use crate::error::Error;
use crate::facts::{self, Repo};
use crate::policy::Policy;

/// Everything known about one git command line before acting on it.
pub struct Assessment {
    pub git: GitArgs,
    pub action: Action,
    pub repo: Option<Repo>,
    /// The policy, or why it could not be loaded (then mutations are denied).
    pub policy: Result<Policy, Error>,
    /// `None` when the facts could not be gathered (the decision then fails closed).
    pub facts: Option<Facts>,
    pub decision: Decision,
}

/// Classifies, gathers facts and decides for git's argv (without `git` itself).
pub fn assess(args: &[OsString], via_shim: bool) -> Assessment {
    let git = classify::parse_globals(args);
    let repo = Repo::for_globals(&git.globals);
    let mut aliases: HashMap<String, String> = repo.as_ref().map(Repo::aliases).unwrap_or_default();
    let env_config = facts::env_config();
    for (key, value) in git.globals.config.iter().chain(env_config.iter()) {
        if let Some(name) = key.strip_prefix("alias.") {
            aliases.insert(name.to_ascii_lowercase(), value.clone());
        }
    }
    let action = classify::classify(&git, &aliases, &env_config);
    let policy = facts::load_policy(repo.as_ref(), via_shim);
    let (facts, decision) = match &policy {
        Ok(policy) => match facts::gather(policy, repo.as_ref(), via_shim) {
            Ok(facts) => {
                let decision = decide::decide(policy, &action, &facts);
                (Some(facts), decision)
            }
            Err(err) => (None, decide::decide_without_policy(&action, &err)),
        },
        Err(err) => (None, decide::decide_without_policy(&action, err)),
    };
    Assessment {
        git,
        action,
        repo,
        policy,
        facts,
        decision,
    }
}
