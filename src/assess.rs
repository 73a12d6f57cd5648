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
    let clock = std::time::Instant::now();
    let git = classify::parse_globals(args);
    let repo = Repo::for_globals(&git.globals);
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "repository opened");
    // git never lets an alias shadow a built-in command: only other names
    // need the config files that aliases live in.
    let first = git.rest.first().map(|c| c.to_string_lossy());
    let needs_aliases = first.as_deref().is_some_and(|c| !is_builtin(c));
    let mut aliases: HashMap<String, String> = match (&repo, needs_aliases) {
        (Some(repo), true) => repo.aliases(),
        _ => HashMap::new(),
    };
    let env_config = facts::env_config();
    for (key, value) in git.globals.config.iter().chain(env_config.iter()) {
        if let Some(name) = key.strip_prefix("alias.") {
            aliases.insert(name.to_ascii_lowercase(), value.clone());
        }
    }
    let action = classify::classify(&git, &aliases, &env_config);
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "classified");
    let policy = facts::load_policy(repo.as_ref(), via_shim);
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy loaded");
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

/// git's built-in commands, which no alias can shadow.
fn is_builtin(name: &str) -> bool {
    const BUILTINS: &[&str] = &[
        "add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bundle", "cat-file",
        "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index",
        "cherry", "cherry-pick", "clean", "clone", "column", "commit", "commit-graph", "commit-tree",
        "config", "count-objects", "describe", "diff", "diff-files", "diff-index", "diff-tree",
        "fetch", "fetch-pack", "for-each-ref", "for-each-repo", "format-patch", "fsck", "gc", "grep",
        "hash-object", "help", "index-pack", "init", "interpret-trailers", "log", "ls-files",
        "ls-remote", "ls-tree", "maintenance", "merge", "merge-base", "merge-file", "merge-tree",
        "mktag", "mktree", "mv", "name-rev", "notes", "pack-objects", "pack-refs", "prune", "pull",
        "push", "range-diff", "read-tree", "rebase", "reflog", "remote", "repack", "replace",
        "reset", "restore", "rev-list", "rev-parse", "revert", "rm", "shortlog", "show",
        "show-branch", "show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule",
        "switch", "symbolic-ref", "tag", "update-index", "update-ref", "verify-commit", "verify-pack",
        "verify-tag", "version", "whatchanged", "worktree", "write-tree",
    ];
    BUILTINS.contains(&name)
}
