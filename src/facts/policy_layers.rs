//! The layered policy as this repository and this environment give it:
//! for the shim and a client hook, for a server hook, and the layers
//! below the team one.

use std::path::{Path, PathBuf};

use super::{actor, Repo};
use crate::decide::Actor;
use crate::env;
use crate::error::{Error, Result};
use crate::policy::{self, Layer, Policy};

/// A broken team layer stops every change in the repository, the commit
/// that would fix it on its branch included: the hint says how a person
/// gets that one commit through.
pub(super) fn team_layer_broken(err: Error, branch: &str) -> Error {
    let hint = format!(
        "{}; until then git-ward refuses every change here, so a person commits the fix on '{branch}' with the hooks off for that one commit: `git -c core.hooksPath=/dev/null commit`",
        err.hint.as_deref().unwrap_or("fix .ward/policy.toml")
    );
    err.with_hint(hint)
}

/// Loads the layered policy. `repo` gives the team and local
/// layers; `WARD_POLICY` applies only when the actor so far is a human.
pub fn load_policy(repo: Option<&Repo>, via_shim: bool) -> Result<Policy> {
    let clock = std::time::Instant::now();
    let mut policy = below_team()?;
    tracing::debug!(
        us = clock.elapsed().as_micros() as u64,
        "policy: below team"
    );
    if let Some(repo) = repo {
        if let Some((branch, bytes)) = repo.team_policy(policy.protected_patterns())? {
            policy
                .add_layer_bytes(&bytes, Layer::Team(branch.clone()))
                .map_err(|e| team_layer_broken(e, &branch))?;
        }
        tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy: team");
        let local = policy::local_path(repo.common_dir());
        policy.add_file(&local, Layer::Local(local.clone()))?;
    }
    if let Some(path) = env::var_os(env::WARD_POLICY).filter(|_| !env::receiving()) {
        if actor(&policy, via_shim) == Actor::Human {
            let path = PathBuf::from(path);
            if !path.exists() {
                return Err(Error::internal(format!(
                    "WARD_POLICY names {}, which does not exist",
                    path.display()
                ))
                .with_hint("unset WARD_POLICY or point it at a policy file"));
            }
            policy.add_file(&path, Layer::Env(path.clone()))?;
        }
    }
    Ok(policy)
}

/// The policy a server hook judges by (pre-receive, and any hook that
/// runs inside `receive-pack`): the layers that belong to the server
/// alone: built in, system (its fixed path), the team layer, the bare
/// repository's local layer. Nothing a pusher's environment names: over
/// a local path or `file://` remote, `receive-pack` and its hooks inherit
/// the pusher's environment, so no user layer (`XDG_CONFIG_HOME`, `HOME`),
/// no `WARD_POLICY`, no `WARD_SYSTEM_POLICY`.
pub fn load_server_policy(repo: Option<&Repo>) -> Result<Policy> {
    let mut policy = Policy::built_in();
    let system = PathBuf::from(policy::SYSTEM_PATH);
    policy.add_file(&system, Layer::System(system.clone()))?;
    if let Some(repo) = repo {
        if let Some((branch, bytes)) = repo.team_policy(policy.protected_patterns())? {
            policy
                .add_layer_bytes(&bytes, Layer::Team(branch.clone()))
                .map_err(|e| team_layer_broken(e, &branch))?;
        }
        let local = policy::local_path(repo.common_dir());
        policy.add_file(&local, Layer::Local(local.clone()))?;
    }
    Ok(policy)
}

/// The layers below the team layer (built in, system, user): the ones
/// that say which branches the team layer may come from.
pub fn below_team() -> Result<Policy> {
    let system = policy::system_path();
    let policy = built_in_system_user(&system)?;
    if system == Path::new(policy::SYSTEM_PATH) {
        return Ok(policy);
    }
    // `WARD_SYSTEM_POLICY` moved the system layer: not where the real
    // layers' `enforce.agent_env` finds an agent.
    let real = built_in_system_user(Path::new(policy::SYSTEM_PATH))?;
    Ok(match actor(&real, false) {
        Actor::Agent => real,
        Actor::Human => policy,
    })
}

fn built_in_system_user(system: &Path) -> Result<Policy> {
    let mut policy = Policy::built_in();
    policy.add_file(system, Layer::System(system.to_path_buf()))?;
    if let Some(user) = policy::user_path() {
        policy.add_file(&user, Layer::User(user.clone()))?;
    }
    Ok(policy)
}
