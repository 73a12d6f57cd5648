//! `Facts`: what `decide` knows about the world (who runs the command,
//! where HEAD is, the contract, what the repository and environment say),
//! filled in by `facts.rs`, the one module that reads them.

use serde::Serialize;

use super::{Pointers, Reach};

/// Who runs the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Actor {
    Human,
    Agent,
}

impl Actor {
    /// `human` or `agent`, as the audit log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Actor::Human => "human",
            Actor::Agent => "agent",
        }
    }
}

/// Where HEAD is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "branch")]
pub enum Head {
    /// On a branch (short name, `main`).
    Branch(String),
    /// On a branch with no commit yet.
    Unborn(String),
    /// Detached.
    Detached,
}

impl Head {
    /// The branch's short name, for both born and unborn branches.
    pub fn branch(&self) -> Option<&str> {
        match self {
            Head::Branch(b) | Head::Unborn(b) => Some(b),
            Head::Detached => None,
        }
    }
}

/// What `decide` knows about the world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Facts {
    pub actor: Actor,
    /// The active contract id, validated.
    pub contract: Option<String>,
    /// The contract comes from `WARD_CONTRACT`, which `git ward contract
    /// start` does not override.
    pub contract_from_env: bool,
    /// `None` outside a repository.
    pub head: Option<Head>,
    /// The command's context switches hooks off (`GIT_CONFIG_*` carrying
    /// `core.hooksPath`, a config file or repository pointer the
    /// environment names: [`crate::facts::context::resolve`]).
    pub env_hooks_off: Option<String>,
    /// Ignored files an agent's checkout would overwrite, from the top
    /// ([`crate::facts::ignored`]): checkpointed first.
    #[serde(skip)]
    pub ignored_in_the_way: Vec<Vec<u8>>,
    /// Repository pointers of the environment that lead away from the
    /// repository's own object store or index (read for an agent's
    /// command that changes something).
    pub pointers: Pointers,
    /// A gate hook git-ward installed is no longer the one git runs (nor
    /// run by it): how, as a clause ([`crate::facts::gates::replaced`]).
    pub gates_replaced: Option<String>,
    /// Guarded refs that moved with no hook of git-ward's
    /// ([`crate::facts::drift`]), described (`refs/heads/main a1b2 -> c3d4`).
    pub drift: Vec<String>,
    /// The command writes where git-ward's hooks, config or policy live
    /// (see [`crate::facts::writes_into_guarded`]): how and where, as a
    /// clause (`writes into the git directory (/r/.git/x)`).
    pub writes_guarded: Option<String>,
    /// The remotes an agent added ([`crate::state_file::agent_remotes`]),
    /// read when the command re-points a remote: its own may be re-pointed.
    pub agent_remotes: Vec<String>,
    /// The command's [`Action::ff_target`] (or the upstream a person's
    /// `reset` moves the branch to, [`person_reset_to_upstream`]) is a
    /// fast-forward of HEAD (asked only on a protected branch, where it
    /// makes the command syncing).
    pub fast_forward: bool,
    /// Branches other worktrees have checked out, with where (read only
    /// for a command that makes commits on a protected branch: git will
    /// not check the agent branch out here too).
    pub checked_out_elsewhere: Vec<(String, String)>,
    /// A merge, cherry-pick or revert is in progress (`MERGE_HEAD`,
    /// `CHERRY_PICK_HEAD`, `REVERT_HEAD`): which one (read only for a
    /// command making commits on a protected branch, where a move to the
    /// agent branch would drop it).
    pub in_progress: Option<&'static str>,
    /// The configured remotes (a branch named `origin/main` is what git
    /// reads for `origin/main`, before `refs/remotes/origin/main`).
    pub remotes: Vec<String>,
    /// The agent branch (`<agent_prefix><contract>`) exists here (read
    /// only for a command making commits on a protected branch: `git
    /// switch -c` would not make it again).
    pub agent_branch_exists: bool,
    /// Decided in a git hook (pre-commit), where nothing can move HEAD
    /// before the command: where the shim would switch branches, the
    /// answer is a refusal that says where to go.
    pub in_hook: bool,
    /// Decided for `git ward save`, which switches branches itself where
    /// the rules say so, as the shim does, whoever runs it.
    pub saving: bool,
    /// The refs the command reaches beyond those its command line names,
    /// and the hooks that will see them.
    pub reach: Reach,
    /// The live lease of the worktree the command runs in (read only for
    /// a command that changes something; see `facts/lease.rs`).
    pub lease_here: Option<Held>,
    /// The live lease of a worktree the command removes, moves or prunes.
    pub lease_removed: Option<Held>,
}

/// A worktree's live session lease, as `decide` sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Held {
    /// The contract of the session that holds it.
    pub contract: String,
    pub pid: u32,
    /// The worktree's top.
    pub worktree: String,
}

impl Facts {
    /// A person's git outside the hooks (what `explain` answers for one):
    /// it meets only the hooks, never the shim, which alone switches
    /// branches, checkpoints, and judges files written and config set.
    pub(super) fn person_outside_hooks(&self) -> bool {
        self.actor == Actor::Human && !self.saving && !self.in_hook
    }

    /// An agent on `branch` with `contract` (a helper for tables and tools).
    pub fn agent_on(branch: &str, contract: Option<&str>) -> Self {
        Facts {
            actor: Actor::Agent,
            contract: contract.map(str::to_string),
            contract_from_env: false,
            head: Some(Head::Branch(branch.to_string())),
            env_hooks_off: None,
            pointers: Pointers::default(),
            ignored_in_the_way: Vec::new(),
            gates_replaced: None,
            drift: Vec::new(),
            writes_guarded: None,
            agent_remotes: Vec::new(),
            fast_forward: false,
            checked_out_elsewhere: Vec::new(),
            in_progress: None,
            remotes: vec!["origin".to_string()],
            agent_branch_exists: false,
            in_hook: false,
            saving: false,
            reach: Reach::default(),
            lease_here: None,
            lease_removed: None,
        }
    }
}
