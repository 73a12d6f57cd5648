//! The shared front half of the road: classify, gather facts, decide.
//!
//! The shim, `explain`, `save` and the MCP server all ask here, so every
//! face reaches the same answer for the same command line.

use std::collections::HashMap;
use std::ffi::OsString;

use crate::action::{Action, Effect};
use crate::classify;
use crate::decide::{self, Decision, Facts};
use crate::error::Error;
use crate::facts::{self, Repo};
use crate::policy::Policy;

/// Everything known about one git command line before acting on it.
pub struct Assessment {
    pub action: Action,
    pub repo: Option<Repo>,
    /// The policy, or why it could not be loaded (then mutations are denied).
    pub policy: Result<Policy, Error>,
    /// `None` when the facts could not be gathered (the decision then fails closed).
    pub facts: Option<Facts>,
    pub decision: Decision,
}

impl Assessment {
    /// 0 for read-only, 1 for state-changing, after the policy's
    /// `commands` overrides (a broken policy leaves the classifier's word).
    pub fn tier(&self) -> u8 {
        match &self.policy {
            Ok(policy)
                if decide::effective_effect(policy, &self.action)
                    == crate::action::Effect::Read =>
            {
                0
            }
            Ok(_) => 1,
            Err(_) => self.action.tier(),
        }
    }
}

/// Classifies, gathers facts and decides for git's argv (without `git` itself).
pub fn assess(args: &[OsString], via_shim: bool) -> Assessment {
    let clock = std::time::Instant::now();
    let git = classify::parse_globals(args);
    let repo = Repo::for_globals(&git.globals);
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "repository opened");
    // git never lets an alias shadow one of its commands: only other names
    // need the config files that aliases live in. `-c alias.x=` and the
    // environment's aliases are read by classify itself.
    let first = git.rest.first().map(|c| c.to_string_lossy());
    let needs_aliases = first.as_deref().is_some_and(|c| !classify::is_command(c));
    let aliases: HashMap<String, String> = match (&repo, needs_aliases) {
        (Some(repo), true) => repo.aliases(),
        _ => HashMap::new(),
    };
    let env_config = facts::env_config();
    let remotes = match &repo {
        Some(repo) => repo.remotes(),
        None => vec!["origin".to_string()],
    };
    let head = repo.as_ref().and_then(Repo::head);
    let is_local_branch = |name: &str| repo.as_ref().is_some_and(|r| r.is_local_branch(name));
    // Refs by git's search order (gix resolves partial names); an object
    // name of seven or more hex digits is taken at its word.
    let is_revision = |name: &str| {
        let hex = name.len() >= 7 && name.chars().all(|c| c.is_ascii_hexdigit());
        hex || repo.as_ref().is_some_and(|r| r.ref_target(name).is_some())
    };
    let config = |key: &str| {
        repo.as_ref()
            .map_or_else(Vec::new, |r| r.config_values(key))
    };
    let exec_path = std::env::var_os("GIT_EXEC_PATH");
    let ctx = classify::Context {
        config: &config,
        aliases: &aliases,
        env_config: &env_config,
        remotes: &remotes,
        current_branch: head.as_ref().and_then(|h| h.branch()),
        is_local_branch: &is_local_branch,
        is_revision: &is_revision,
        env_namespace: std::env::var_os("GIT_NAMESPACE").is_some(),
        env_exec_path: exec_path.as_deref(),
        is_own_exec_path: &|dir| crate::git::is_own_exec_path(dir),
    };
    let mut action = classify::classify(&git, &ctx);
    // Ignore rules from config files the environment names for this
    // command (`-c` and `GIT_CONFIG_*` pairs are classify's own).
    let may_overwrite = action.destructive.is_none() && action.effect != Effect::Read;
    if let Some(repo) = repo.as_ref().filter(|_| may_overwrite) {
        if facts::context::config_files_moved(repo.common_dir()) {
            classify::overwrites_ignored(&mut action);
        }
    }
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "classified");
    let policy = facts::load_policy(repo.as_ref(), via_shim);
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy loaded");
    let unreadable = match &repo {
        Some(_) => None,
        None => Repo::why_unreadable(&git.globals),
    };
    let asked = facts::Asked {
        action: &action,
        globals: &git.globals,
        global_args: &args[..args.len() - git.rest.len()],
        remotes: &remotes,
    };
    let (facts, decision) = match &policy {
        Ok(policy) => match repo
            .as_ref()
            .filter(|_| !action.migrates_to_files)
            .map_or(Ok(()), Repo::refs_readable)
            .and_then(|()| match unreadable {
                Some(why) => Err(Error::internal(why).with_hint(facts::UNREADABLE_HINT)),
                None => Ok(()),
            })
            .and_then(|()| facts::gather(policy, repo.as_ref(), head.clone(), via_shim, &asked))
        {
            Ok(facts) => {
                let decision = decide::decide(policy, &action, &facts);
                (Some(facts), decision)
            }
            Err(err) => (None, decide::decide_without_policy(&action, &err)),
        },
        Err(err) => (None, decide::decide_without_policy(&action, err)),
    };
    Assessment {
        action,
        repo,
        policy,
        facts,
        decision,
    }
}
