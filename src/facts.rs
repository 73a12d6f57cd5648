//! Fills [`Facts`]: the only reads before deciding (the repository itself
//! in `facts/repo.rs`).
//!
//! Opening the repository follows git: `GIT_DIR`/`GIT_WORK_TREE` from the
//! environment, then `-C`, `--git-dir` and `--work-tree` from the command
//! line, then discovery upwards from the working directory.

use std::path::{Path, PathBuf};

use crate::classify::Globals;
use crate::policy::Policy;

mod config_includes;
pub mod context;
mod dirs;
pub mod discover;
pub mod drift;
pub mod gates;
mod gather;
pub mod ignored;
pub mod install_record;
pub mod lease;
pub mod pointers;
mod reach;
pub mod ref_changes;
pub mod refstore;
mod repo;
mod team_layer;
pub use crate::patterns::literal_branches;
pub use crate::policy::{valid_contract, MAX_CONTRACT_LEN};
pub mod settings_cache;
pub mod stale_locks;
pub mod starter;
pub mod tracking;
pub mod worktrees;
pub(crate) use dirs::path_in_file;
pub use dirs::Dirs;
pub use gather::{gather, gather_at, gather_in_hook, Asked};
pub use reach::reach;
pub use repo::{Repo, UNREADABLE_HINT};
pub use team_layer::{committed_file, team_policy_at, Committed};
mod env_config;
mod policy_layers;
mod who;
mod written;

pub use env_config::{
    env_config, env_file_hooks_path, env_hooks_off, made_git_dir_hooks_off, parse_config_parameters,
};
use policy_layers::team_layer_broken;
pub use policy_layers::{below_team, load_policy, load_server_policy};
pub use who::{
    actor, actor_for_env, contract, contract_at, invalid_contract, invalid_in_file, ContractSource,
};
pub use written::{in_a_git_dir, trace_files, writes_into_guarded};

/// The branch the HEAD file in `git_dir` names (`HEAD` when detached): one
/// small read, for audit lines written after git has run.
pub fn head_branch_file(git_dir: &Path) -> Option<String> {
    let text = crate::state_file::read_text(&git_dir.join("HEAD")).ok()?;
    Some(match text.trim().strip_prefix("ref: ") {
        Some(r) => r.strip_prefix("refs/heads/").unwrap_or(r).to_string(),
        None => "HEAD".to_string(),
    })
}

/// Does the repository whose common git dir is `common` use reftable?
pub fn uses_reftable(common: &Path) -> bool {
    common.join("reftable").is_dir()
}

/// The directory git would start in after `-C` options.
pub fn effective_cwd(globals: &Globals) -> PathBuf {
    let mut cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    for dir in &globals.chdir {
        if !dir.as_os_str().is_empty() {
            cwd = cwd.join(dir);
        }
    }
    cwd
}

/// [`effective_cwd`] as a physical path, as git's `getcwd()` after its
/// `chdir()`s gives it: where git's discovery walks up from.
pub fn physical_cwd(globals: &Globals) -> Option<PathBuf> {
    if globals.chdir.is_empty() {
        std::env::current_dir().ok() // getcwd: physical already
    } else {
        effective_cwd(globals).canonicalize().ok()
    }
}

/// Does the agent branch for `contract` (`<agent_prefix><contract>`) exist in `repo`?
pub fn agent_branch_exists(policy: &Policy, repo: &Repo, contract: Option<&str>) -> bool {
    contract.is_some_and(|c| {
        let prefix = &policy.settings.branches.agent_prefix;
        repo.ref_target(&format!("refs/heads/{prefix}{c}"))
            .is_some()
    })
}

#[cfg(test)]
mod tests;
