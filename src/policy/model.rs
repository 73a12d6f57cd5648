//! The policy's settings as serde types, one per section of `policy.toml`,
//! and the layers a value can come from.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Whom the rules bind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Actors {
    #[default]
    Agents,
    Everyone,
}

/// `capabilities.ensure_working_branch`: on, off, or granted to contract globs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Capability {
    All(bool),
    Contracts(Vec<String>),
}

impl Default for Capability {
    fn default() -> Self {
        Capability::All(true)
    }
}

/// `commands.unknown`: how unknown subcommands count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownAs {
    #[default]
    Mutating,
    Read,
}

/// `server.agent_commits_to_protected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerAgentCommits {
    #[default]
    ViaMerge,
    Deny,
    Allow,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Enforce {
    pub actors: Actors,
    pub agent_env: Vec<String>,
    pub allow_no_verify: bool,
    pub drift: DriftAction,
}

/// `enforce.drift`: what an agent's command meets when a guarded ref moved
/// with no hook of git-ward's ([`crate::facts::drift`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftAction {
    /// A warning on stderr and an audit line; the command runs.
    #[default]
    Warn,
    /// The agent's mutating commands are refused (EN-GIT-D-004) until a
    /// person restores the refs or accepts them (`git ward drift`).
    Refuse,
    /// The refs are put back to the values git-ward last saw, before the
    /// agent's next command runs.
    Restore,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Branches {
    pub protected: Vec<String>,
    pub agent_prefix: String,
    pub sync_from_upstream: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    pub ensure_working_branch: Capability,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Commands {
    pub read: Vec<String>,
    pub mutating: Vec<String>,
    pub unknown: UnknownAs,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Checkout {
    pub local_only: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PushPolicy {
    pub force_allowed: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommitPolicy {
    pub footer: String,
    /// The `Assisted-by:` trailer of agent commits, empty for none.
    pub assisted_by: String,
    /// The `{model}` of `assisted_by` when the harness does not say.
    pub model: String,
    /// Trailer keys agent commits lose (`Co-Authored-By`, any case).
    pub strip_trailers: Vec<String>,
    /// `allow` or `refuse` an agent's commit that carries `Signed-off-by`.
    pub signed_off_by: String,
}

impl CommitPolicy {
    /// Whether the policy asks anything of a commit besides the footer.
    pub fn attributes(&self) -> bool {
        !self.assisted_by.is_empty()
            || !self.strip_trailers.is_empty()
            || self.signed_off_by == "refuse"
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointPolicy {
    pub before_destructive: bool,
    pub include_ignored: Vec<String>,
    pub max_file_size: String,
    pub keep: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Turns {
    pub pollution_threshold: u32,
    pub rollback_on_pollution: bool,
    pub test_timeout: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditPolicy {
    pub reads: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeouts {
    pub git_seconds: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Server {
    pub agent_commits_to_protected: ServerAgentCommits,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Init {
    pub ignore: Vec<String>,
    pub user_name: String,
    pub user_email: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mcp {
    pub max_output_bytes: u64,
}

/// The settings, one field per section of `policy.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub enforce: Enforce,
    pub branches: Branches,
    pub capabilities: Capabilities,
    pub commands: Commands,
    pub checkout: Checkout,
    pub push: PushPolicy,
    pub commit: CommitPolicy,
    pub checkpoint: CheckpointPolicy,
    pub turns: Turns,
    pub audit: AuditPolicy,
    pub timeouts: Timeouts,
    pub server: Server,
    pub init: Init,
    pub mcp: Mcp,
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    BuiltIn,
    System(PathBuf),
    User(PathBuf),
    /// `.ward/policy.toml` committed on this branch.
    Team(String),
    Local(PathBuf),
    Env(PathBuf),
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::BuiltIn => write!(f, "built-in"),
            Layer::System(p) => write!(f, "system ({})", p.display()),
            Layer::User(p) => write!(f, "user ({})", p.display()),
            Layer::Team(branch) => write!(f, "team (.ward/policy.toml on {branch})"),
            Layer::Local(p) => write!(f, "local ({})", p.display()),
            Layer::Env(p) => write!(f, "WARD_POLICY ({})", p.display()),
        }
    }
}
