//! Who runs the command: a person or an agent (the environment says),
//! and the contract it works under, from `WARD_CONTRACT` or the worktree's
//! contract file.

use std::path::{Path, PathBuf};

use super::{valid_contract, Repo};
use crate::decide::Actor;
use crate::env;
use crate::error::{Error, Result};
use crate::policy::Policy;

/// Is this environment an agent's? `via_shim` is the first test.
pub fn actor(policy: &Policy, via_shim: bool) -> Actor {
    actor_for_env(&policy.settings.enforce.agent_env, via_shim)
}

/// [`actor`] given the policy's `enforce.agent_env` list alone (the hooks'
/// cached settings carry just that). A listed variable counts when it is
/// set, whatever its value (`CLAUDECODE=0` too), and so does `WARD_CONTRACT`
/// (set but empty: an agent with no contract); `WARD_AGENT` keeps its own
/// rule, `0` or empty is no, even where the list names it.
pub fn actor_for_env(agent_env: &[String], via_shim: bool) -> Actor {
    if via_shim
        || env::truthy(env::WARD_AGENT)
        || env::present(env::WARD_CONTRACT)
        || agent_env
            .iter()
            .any(|v| v != env::WARD_AGENT && env::present(v))
    {
        Actor::Agent
    } else {
        Actor::Human
    }
}

/// The error for an invalid contract id.
pub fn invalid_contract(id: &str) -> Error {
    // Shown escaped and cut short: the id may be anything, of any length.
    let mut shown: String = id.chars().take(60).flat_map(char::escape_default).collect();
    if id.chars().count() > 60 {
        shown.push_str("...");
    }
    Error::invalid(
        format!("invalid contract id '{shown}'"),
        "a contract id is 1 to 100 characters of [A-Za-z0-9._-], starting with a letter or digit, without `..` or a trailing `.`/`.lock`",
    )
}

/// The error for an invalid id in the contract file: the file is named,
/// and the hint says how to replace or clear it.
pub fn invalid_in_file(id: &str, path: &Path) -> Error {
    let err = invalid_contract(id);
    Error::invalid(
        format!("{} in {}", err.message, path.display()),
        "start a valid one with `git ward contract start --force <id>`, or clear it with `git ward contract end`",
    )
}

/// Where the contract came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractSource {
    Env,
    File(PathBuf),
}

/// The active contract: `WARD_CONTRACT`, else the worktree's contract file.
pub fn contract(repo: Option<&Repo>) -> Result<Option<(String, ContractSource)>> {
    contract_at(repo.map(Repo::git_dir))
}

/// [`contract`], for the worktree whose git directory is `git_dir` (the
/// hooks know it without opening the repository).
pub fn contract_at(git_dir: Option<&Path>) -> Result<Option<(String, ContractSource)>> {
    if let Some(raw) = env::var_os(env::WARD_CONTRACT) {
        // Not UTF-8 is not a valid id either: an error, never "no contract".
        let id = raw.to_string_lossy().into_owned();
        return if valid_contract(&id) {
            Ok(Some((id, ContractSource::Env)))
        } else {
            Err(invalid_contract(&id))
        };
    }
    let Some(git_dir) = git_dir else {
        return Ok(None);
    };
    let path = git_dir.join("ward").join("contract");
    let Ok(bytes) = crate::state_file::read_bounded(&path, crate::state_file::MAX_READ) else {
        return Ok(None);
    };
    // Not UTF-8 is not a valid id either.
    let text = String::from_utf8_lossy(&bytes);
    match text.trim() {
        "" => Ok(None),
        id if valid_contract(id) => Ok(Some((id.to_string(), ContractSource::File(path)))),
        id => Err(invalid_in_file(id, &path)),
    }
}
