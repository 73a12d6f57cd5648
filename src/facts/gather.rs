//! Fills [`Facts`] for one command line: who runs it and where, then each
//! fact `decide` reads, gathered only where a rule asks for it (a command
//! that changes something, an agent's, one on a protected branch).

use std::ffi::OsString;

use super::{actor, contract, ContractSource, Repo};
use crate::action::{Action, Effect};
use crate::classify::Globals;
use crate::decide::{self, Actor, Facts, Head};
use crate::error::Result;
use crate::policy::Policy;

/// The command line facts are gathered for.
pub struct Asked<'a> {
    pub action: &'a Action,
    pub globals: &'a Globals,
    /// git's options before the subcommand, as given (`-c`, `--git-dir` ...).
    pub global_args: &'a [OsString],
    /// The configured remotes (classify read them already).
    pub remotes: &'a [String],
}

/// Every fact `decide` reads for the command `asked`: [`gather_at`], then
/// the command's context, the guards' state, what it reaches, and on a
/// protected branch what a commit there or a sync needs.
pub fn gather(
    policy: &Policy,
    repo: Option<&Repo>,
    head: Option<Head>,
    via_shim: bool,
    asked: &Asked,
) -> Result<Facts> {
    let mut facts = gather_at(policy, repo, head, via_shim)?;
    facts.remotes = asked.remotes.to_vec();
    // Asked only where it matters: a command that changes something.
    let changes = decide::effective_effect(policy, asked.action) != Effect::Read;
    if changes {
        context(&mut facts, repo, asked);
    }
    if let Some(repo) = repo.filter(|_| changes) {
        guards(&mut facts, policy, repo, asked);
    }
    facts.writes_guarded = super::writes_into_guarded(repo, asked.globals, asked.action);
    if let Some(repo) = repo {
        facts.reach = super::reach(policy, repo, asked.action, &facts);
    }
    if let Some(repo) = repo.filter(|_| !asked.action.repoints.is_empty()) {
        facts.agent_remotes = crate::state_file::agent_remotes(repo.common_dir());
    }
    if let Some(repo) = repo {
        on_protected(&mut facts, policy, repo, asked.action);
    }
    Ok(facts)
}

/// For a hook judging a commit on HEAD's branch: [`gather_at`], marked as
/// in a hook (a hook cannot switch branches, so decide says where to go
/// instead), and whether the agent branch it would name exists.
pub fn gather_in_hook(policy: &Policy, repo: Option<&Repo>, head: Option<Head>) -> Result<Facts> {
    let mut facts = gather_at(policy, repo, head, false)?;
    facts.in_hook = true;
    if let Some(repo) = repo {
        facts.agent_branch_exists =
            super::agent_branch_exists(policy, repo, facts.contract.as_deref());
    }
    Ok(facts)
}

/// Who runs the command, with which contract, where HEAD is: the facts
/// every road needs; the others are left empty.
pub fn gather_at(
    policy: &Policy,
    repo: Option<&Repo>,
    head: Option<Head>,
    via_shim: bool,
) -> Result<Facts> {
    let contract = contract(repo)?;
    let contract_from_env = matches!(contract, Some((_, ContractSource::Env)));
    let contract = contract.map(|(id, _)| id);
    Ok(Facts {
        actor: actor(policy, via_shim),
        contract,
        contract_from_env,
        head,
        env_hooks_off: None,
        pointers: crate::decide::Pointers::default(),
        ignored_in_the_way: Vec::new(),
        gates_replaced: None,
        drift: Vec::new(),
        writes_guarded: None,
        agent_remotes: Vec::new(),
        remotes: Vec::new(),
        fast_forward: false,
        checked_out_elsewhere: Vec::new(),
        in_progress: None,
        agent_branch_exists: false,
        in_hook: false,
        saving: false,
        reach: crate::decide::Reach::default(),
        lease_here: None,
        lease_removed: None,
    })
}

/// The context the command runs in: hooks its environment switches off,
/// repository pointers that lead away from the repository's own.
fn context(facts: &mut Facts, repo: Option<&Repo>, asked: &Asked) {
    let agent = facts.actor == Actor::Agent;
    let context = super::context::resolve(repo, asked.globals, asked.global_args, agent);
    facts.env_hooks_off = context.hooks_off;
    facts.pointers = context.pointers;
}

/// For a command that changes something: ignored files an agent's
/// checkout would overwrite, gates another manager replaced, guarded refs
/// that drifted, the session leases it meets.
fn guards(facts: &mut Facts, policy: &Policy, repo: &Repo, asked: &Asked) {
    if facts.actor == Actor::Agent && asked.action.may_drop_ignored() {
        facts.ignored_in_the_way = super::ignored::overwritten(repo, asked.action);
    }
    facts.gates_replaced = super::gates::replaced(repo);
    facts.drift = super::drift::check(repo.common_dir(), &mut |r| policy.is_protected(r))
        .moved
        .iter()
        .map(super::drift::Moved::describe)
        .collect();
    let cwd = super::effective_cwd(asked.globals);
    (facts.lease_here, facts.lease_removed) = super::lease::gather(repo, asked.action, &cwd);
}

/// On a protected branch: whether the command's sync fast-forwards it
/// (or a person's `reset --hard origin/main` on `main`, which the hook
/// lets through as syncing), and for a command making commits, what a
/// move to the agent branch would meet.
fn on_protected(facts: &mut Facts, policy: &Policy, repo: &Repo, action: &Action) {
    let on_protected = facts
        .head
        .as_ref()
        .and_then(|h| h.branch())
        .is_some_and(|b| policy.is_protected(&format!("refs/heads/{b}")));
    if !on_protected {
        return;
    }
    if let Some(target) = &action.ff_target {
        facts.fast_forward = repo.fast_forwards(target);
    }
    if let Some(start) = decide::person_reset_to_upstream(action, facts) {
        facts.fast_forward = repo.fast_forwards(&start);
    }
    if action.creates_commits {
        facts.checked_out_elsewhere = repo.branches_elsewhere();
        facts.in_progress = repo.in_progress();
        facts.agent_branch_exists =
            super::agent_branch_exists(policy, repo, facts.contract.as_deref());
    }
}
