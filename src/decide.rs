//! The decision matrix (docs/rules.md): `decide(&Policy, &Action, &Facts)`.
//!
//! Pure: no git, no files, no environment. Everything it needs about the
//! world is in [`Facts`], filled in by `facts.rs`. This is the only module
//! that says no: the shim, the hooks and the tools ask it and carry out its
//! answer, and the denial codes are produced here and nowhere else.

use serde::Serialize;

use crate::action::{Action, CheckoutTarget, Effect, RefOp, RefTarget};
use crate::error::{Code, Error};
use crate::policy::{short_name, Actors, CapabilityFor, Policy, UnknownAs};
pub use pointers::Pointers;

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
    fn person_outside_hooks(&self) -> bool {
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

/// What to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run the command.
    Allow,
    /// Refuse it, with a code, a message and a hint.
    Deny(Error),
    /// Move to this branch (short name) first, carrying the work, then run it.
    Switch(String),
}

/// The answer, with the rule that gave it (for `explain` and the audit log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub verdict: Verdict,
    /// Take a pre-destructive checkpoint before running (after the switch,
    /// if there is one).
    pub checkpoint: bool,
    /// The command unstages ([`Action::unstages`]): checkpoint first when
    /// it would drop a staged version the working tree no longer holds.
    /// Not a decision of its own (the word stays `allow`): the audit line
    /// says `checkpoint` when one was taken.
    pub save_staged: bool,
    /// Run git with `pull.ff=only`: on a protected branch a `pull` may only
    /// sync it, and a merge it would make there is then refused by git
    /// before it touches the working tree (not by the hook after it has).
    pub fast_forward_only: bool,
    /// The rule, in words.
    pub rule: String,
    /// The policy key that decided, for `explain --origin` (`branches.protected`).
    pub key: Option<&'static str>,
}

impl Decision {
    fn allow(rule: impl Into<String>) -> Self {
        Decision {
            verdict: Verdict::Allow,
            checkpoint: false,
            save_staged: false,
            fast_forward_only: false,
            rule: rule.into(),
            key: None,
        }
    }

    fn deny(
        code: Code,
        message: impl Into<String>,
        hint: impl Into<String>,
        key: &'static str,
    ) -> Self {
        let message = message.into();
        Decision {
            rule: message.clone(),
            verdict: Verdict::Deny(Error::denied(code, message, hint)),
            checkpoint: false,
            save_staged: false,
            fast_forward_only: false,
            key: Some(key),
        }
    }

    /// The denial, if this is one.
    pub fn denial(&self) -> Option<&Error> {
        match &self.verdict {
            Verdict::Deny(e) => Some(e),
            _ => None,
        }
    }

    /// The audit log's word: allow, deny, autoswitch, checkpoint.
    pub fn word(&self) -> &'static str {
        match self.verdict {
            Verdict::Deny(_) => "deny",
            Verdict::Switch(_) => "autoswitch",
            Verdict::Allow if self.checkpoint => "checkpoint",
            Verdict::Allow => "allow",
        }
    }
}

/// Do the rules bind this actor?
pub fn binds(policy: &Policy, actor: Actor) -> bool {
    actor == Actor::Agent || policy.settings.enforce.actors == Actors::Everyone
}

/// The effect after policy `commands` overrides.
pub fn effective_effect(policy: &Policy, action: &Action) -> Effect {
    let cmds = &policy.settings.commands;
    let named = |list: &[String], alias_counts: bool| {
        list.iter()
            .any(|c| *c == action.command || (alias_counts && Some(c) == action.alias.as_ref()))
    };
    // An alias the policy calls read-only is the one the config files
    // define: one defined for this command alone (`-c alias.lg='reset
    // --hard' lg`) is judged by what it runs.
    if named(&cmds.read, !action.alias_given) {
        Effect::Read
    } else if named(&cmds.mutating, true) {
        Effect::Mutating
    } else if action.effect == Effect::Unknown && cmds.unknown == UnknownAs::Read {
        Effect::Read
    } else {
        action.effect
    }
}

/// The decision when the policy or the facts failed to load: fail closed,
/// EN-GIT-E-001 (EN-GIT-I-001 for an invalid contract id).
pub fn decide_without_policy(action: &Action, err: &Error) -> Decision {
    if action.effect == Effect::Read {
        return Decision::allow("read-only commands pass even when the policy cannot be read");
    }
    let hint = err
        .hint
        .clone()
        .unwrap_or_else(|| "fix the policy (`git ward policy check`), then retry".to_string());
    // An invalid contract id (`WARD_CONTRACT`, the contract file) is the
    // user's argument, and keeps its code; anything else fails closed.
    let code = match err.code {
        Code::I001 => Code::I001,
        _ => Code::E001,
    };
    Decision::deny(
        code,
        format!("{} refused: {}", action.word(), err.message),
        hint,
        "policy",
    )
}

/// The full ref a push destination names: `main` is `refs/heads/main`.
fn push_ref(dst: &str, src: &str) -> String {
    if dst.starts_with("refs/") {
        dst.to_string()
    } else if src.starts_with("refs/tags/") {
        format!("refs/tags/{dst}")
    } else {
        format!("refs/heads/{dst}")
    }
}

/// The full ref a `RefTarget` names, given where HEAD is.
fn target_ref(target: &RefTarget, facts: &Facts) -> Option<String> {
    match target {
        RefTarget::Named(name) => Some(name.clone()),
        RefTarget::Current => facts
            .head
            .as_ref()
            .and_then(Head::branch)
            .map(|b| format!("refs/heads/{b}")),
        RefTarget::All => Some("refs/*".to_string()),
    }
}

fn display(refname: &str) -> String {
    short_name(refname).map_or_else(|| refname.to_string(), |s| s.into_owned())
}

/// Where a person's `reset` moves the current branch when that is a
/// remote-tracking name of it (`reset --hard origin/main` on `main`). The
/// reference-transaction hook lets a fast-forward there through as
/// syncing, so `explain` says so too. An agent's is refused before git
/// runs all the same: its way to sync is `merge --ff-only` or `pull
/// --ff-only`, which the hint names.
pub fn person_reset_to_upstream(action: &Action, facts: &Facts) -> Option<String> {
    let branch = facts.head.as_ref()?.branch()?;
    if facts.actor == Actor::Agent || action.command != "reset" {
        return None;
    }
    let full = format!("refs/heads/{branch}");
    action
        .refs
        .iter()
        .filter(|w| w.op == RefOp::Update && w.target == RefTarget::Current)
        .find_map(|w| w.start.clone().filter(|s| is_upstream_of(s, &full)))
}

/// Is `start` a remote-tracking name of the same branch (`origin/main` for `main`)?
fn is_upstream_of(start: &str, refname: &str) -> bool {
    let Some(branch) = refname.strip_prefix("refs/heads/") else {
        return false;
    };
    let start = start
        .strip_prefix("refs/remotes/")
        .or_else(|| start.strip_prefix("remotes/"))
        .unwrap_or(start);
    start
        .split_once('/')
        .is_some_and(|(remote, name)| !remote.is_empty() && name == branch)
}

/// Does setting this key ([`Action::repoints`]) change what a protected
/// branch syncs to? Never when the policy protects nothing; a branch's
/// upstream only for a protected branch; a remote's URL or URL rewriting
/// always (a protected branch syncs to a remote-tracking ref of its name,
/// of any remote but those an agent added).
fn repoints_protected(policy: &Policy, key: &str) -> bool {
    if !policy.protects_anything() {
        return false;
    }
    match key.strip_prefix("branch.").and_then(|k| k.rsplit_once('.')) {
        Some((branch, _)) => policy.is_protected(&format!("refs/heads/{branch}")),
        None => true,
    }
}

/// Is `key` (`remote.<name>.url`) about a remote the agent added, or the
/// new name of one it renames? Those are never synced from.
fn agents_own(action: &Action, agent_remotes: &[String], key: &str) -> bool {
    let Some(name) = key
        .strip_prefix("remote.")
        .and_then(|k| k.rsplit_once('.'))
        .map(|(name, _)| name)
    else {
        return false;
    };
    let renamed_from = match &action.remote_change {
        Some(crate::action::RemoteChange::Rename(old, new)) if new == name => Some(old.as_str()),
        _ => None,
    };
    agent_remotes
        .iter()
        .any(|r| r == name || Some(r.as_str()) == renamed_from)
}

const HINT_REPOINT: &str = "remotes and the upstreams of protected branches are set up by a person; to bring in another repository's branch, fetch it into a branch of your own (`git fetch <url> <branch>:agent/<name>`)";
const HINT_PROTECTED_REF: &str =
    "protected refs move only through review: push a branch of your own and open a merge request";
const HINT_PROTECTED_TAG: &str =
    "protected tags are never moved or deleted; create a new tag instead";
/// What to do when another hook manager replaced git-ward's gate hooks.
const HINT_GATES_REPLACED: &str = "a person runs `git ward install` (or `git ward doctor --fix`), which chains the other manager's hook after git-ward's; `git ward doctor` says how to keep git-ward in that manager's own config";

/// What to do when guarded refs drifted and the policy refuses agents.
const HINT_DRIFT: &str = "a person looks: `git ward drift` lists the moves, `git ward drift --restore` (or `git ward undo --drift`) puts the refs back, `git ward drift --accept` keeps them";

const HINT_NO_VERIFY: &str =
    "run it again without switching hooks off; they enforce the policy (policy key enforce.allow_no_verify lets agents skip them)";
const HINT_CHECKOUT: &str =
    "check out a local branch by its plain name (`git switch feature/x`); to start from a remote ref, create one: `git switch -c <name> origin/main`";

/// The agent's branch as hints name it: `<agent_prefix><contract>`, with
/// `<contract>` standing for the id where none is known.
pub(crate) fn agent_branch(policy: &Policy, contract: Option<&str>) -> String {
    let prefix = &policy.settings.branches.agent_prefix;
    format!("{prefix}{}", contract.unwrap_or("<contract>"))
}

/// The hint for a force push outside `push.force_allowed` to `remote`:
/// force-pushing the agent branch, where that setting lets it.
pub(crate) fn force_push_hint(policy: &Policy, remote: &str, contract: Option<&str>) -> String {
    let own = agent_branch(policy, contract);
    if policy.force_allowed(&format!("refs/heads/{own}")) {
        format!("push without force, or force-push only to your own agent branch (`git push --force {remote} {own}`)")
    } else {
        format!("push without force; push.force_allowed does not cover your agent branch '{own}' either")
    }
}

/// The hint for a push to protected `refname` on `remote`: a branch
/// goes to the agent's branch for review; a tag is a person's to push.
pub(crate) fn protected_push_hint(
    policy: &Policy,
    refname: &str,
    remote: &str,
    contract: Option<&str>,
) -> String {
    let own = agent_branch(policy, contract);
    if refname.starts_with("refs/tags/") {
        // A tag can go along unasked (`push.followTags`, `--follow-tags`).
        format!("tags are a person's to push; push your branch without them (`git push --no-follow-tags {remote} {own}`)")
    } else {
        format!("push to a branch of your own (`git push {remote} HEAD:{own}`) and open a merge request")
    }
}

/// A step of git-ward's own tool that can switch its guards off.
#[derive(Clone, Copy, Debug)]
pub enum ToolStep<'a> {
    /// `git ward uninstall`: the hooks go.
    Uninstall,
    /// `git ward install --link`: hooks that git skips, silently, once the
    /// file they link to is gone (an agent's session directory).
    LinkHooks,
    /// `git ward rollback --no-safety`: files overwritten with no
    /// checkpoint of them.
    RollbackWithoutSafety,
    /// `git ward rollback` or `undo` from a checkpoint that is not the one
    /// git-ward made under its id (`why`); `accepted` with
    /// `--accept-changed`, which a person gives after reading the plan.
    RestoreChanged { why: &'a str, accepted: bool },
    /// `git ward init <dir>` with `<dir>` in a git directory: a working
    /// tree whose commands write hooks, config and the local policy layer.
    WorkspaceInGitDir(&'a std::path::Path),
    /// `git ward drift --accept`: refs that moved with the hooks off are
    /// taken as known, past the rules the hooks would have applied.
    AcceptDrift,
    /// `git ward run` in a worktree a live session holds.
    Leased(&'a Held),
    /// `git ward undo` or `rollback` (`what`) in a worktree a live session
    /// holds; `own`: the command is of the session's contract.
    RestoreLeased {
        held: &'a Held,
        own: bool,
        what: &'a str,
    },
}

/// The tool's steps that switch guards off (EN-GIT-D-004): an
/// agent's hooks steps are refused unless `enforce.allow_no_verify` lets
/// agents skip hooks, its rollback without a safety checkpoint always (a
/// person may do both); a workspace in a git directory for anyone.
pub fn decide_tool(policy: &Policy, actor: Actor, step: ToolStep) -> Decision {
    let agent = actor == Actor::Agent;
    let hooks_off = agent && !policy.settings.enforce.allow_no_verify;
    match step {
        ToolStep::Uninstall if hooks_off => Decision::deny(
            Code::D004,
            "uninstall switches git-ward's hooks off",
            "a person runs `git ward uninstall`; an agent's work goes on a branch of its own",
            "enforce.allow_no_verify",
        ),
        ToolStep::LinkHooks if hooks_off => Decision::deny(
            Code::D004,
            "install --link makes hooks that git skips without a word once the binary they link to is gone",
            "run `git ward install` without --link: its hook files refuse while git-ward is missing",
            "enforce.allow_no_verify",
        ),
        ToolStep::RollbackWithoutSafety if agent => Decision::deny(
            Code::D004,
            "rollback --no-safety would overwrite the working tree with no checkpoint of it",
            "run the rollback without --no-safety (its safety checkpoint makes it undoable), or let a person skip it",
            "checkpoint.before_destructive",
        ),
        ToolStep::AcceptDrift if agent => Decision::deny(
            Code::D004,
            "drift --accept would keep refs that moved with git-ward's hooks off",
            "a person looks and accepts; `git ward drift --restore` puts them back",
            "enforce.drift",
        ),
        // A person's word after reading the plan; never an agent's.
        ToolStep::RestoreChanged { why, accepted } if agent || !accepted => Decision {
            key: None,
            ..Decision::deny(
                Code::D001,
                format!("{why}; nothing is restored from it"),
                if agent {
                    "a person reads the plan (`--dry-run`) and decides"
                } else {
                    "read the plan (`--dry-run`); if you trust what it restores, run again with --accept-changed"
                },
                "",
            )
        },
        // No policy key lets anyone do this.
        ToolStep::WorkspaceInGitDir(dir) => Decision {
            key: None,
            ..Decision::deny(
                Code::D004,
                format!(
                    "a workspace at {} would have its working tree in a git directory, whose hooks, config and policy its commands would write",
                    dir.display()
                ),
                "make the workspace outside any `.git` directory: `git ward init <dir>`",
                "",
            )
        },
        ToolStep::Leased(held) => lanes::busy(held),
        ToolStep::RestoreLeased { held, own, what } if agent && !own => {
            lanes::restore_refused(held, what)
        }
        _ => Decision::allow("a step of git-ward's own tool"),
    }
}

/// The decision matrix.
pub fn decide(policy: &Policy, action: &Action, facts: &Facts) -> Decision {
    let settings = &policy.settings;

    // Deleting a protected remote ref is refused for anyone.
    if let Some(push) = &action.push {
        for dest in &push.dests {
            if let Some(dst) = &dest.dst {
                let full = push_ref(dst, &dest.src);
                if dest.delete && policy.is_protected(&full) {
                    return Decision::deny(
                        Code::D005,
                        format!("push deletes protected ref '{}'", display(&full)),
                        "protected refs are never deleted by a push; ask the repository's owner",
                        "branches.protected",
                    );
                }
            }
        }
    }

    if !binds(policy, facts.actor) {
        return Decision::allow(refs::BINDS_AGENTS_ONLY);
    }

    // The rules for agents alone (an agent switching hooks off, an
    // agent's force push, an agent's checkout): a person bound by the rules
    // (`enforce.actors = "everyone"`) meets only the hooks, which judge
    // the refs written, not these.
    let agent = facts.actor == Actor::Agent;
    // Hooks the environment switches off for every command matter to the
    // ones that change something; a command line that does is refused.
    let env_off = facts
        .env_hooks_off
        .as_ref()
        .filter(|_| effective_effect(policy, action) != Effect::Read);
    if let Some(how) = action.hooks_off.as_ref().or(env_off).filter(|_| agent) {
        if !settings.enforce.allow_no_verify {
            return Decision::deny(
                Code::D004,
                format!("{} switches hooks off ({how})", action.word()),
                HINT_NO_VERIFY,
                "enforce.allow_no_verify",
            );
        }
    }

    let changes = effective_effect(policy, action) != Effect::Read;
    if let Some(d) = pointers::deny(action, &facts.pointers, facts.actor, changes) {
        return d;
    }

    // Another hook manager replaced a gate: the hooks check nothing.
    if let Some(how) = facts.gates_replaced.as_ref().filter(|_| agent) {
        if effective_effect(policy, action) != Effect::Read {
            return Decision::deny(
                Code::D004,
                format!(
                    "{} while git-ward's hooks are switched off: {how}",
                    action.word()
                ),
                HINT_GATES_REPLACED,
                "enforce.actors",
            );
        }
    }

    // A guarded ref moved with no hook (`enforce.drift = "refuse"`): the
    // hooks were off for some writer, so agents wait for a person.
    if !facts.drift.is_empty()
        && agent
        && settings.enforce.drift == crate::policy::DriftAction::Refuse
        && effective_effect(policy, action) != Effect::Read
    {
        return Decision::deny(
            Code::D004,
            format!(
                "{} while guarded refs moved with git-ward's hooks off: {}",
                action.word(),
                facts.drift.join(", ")
            ),
            HINT_DRIFT,
            "enforce.drift",
        );
    }

    // A person's git meets only the hooks, which see neither the files a
    // command writes nor the config it sets.
    let person = facts.person_outside_hooks();
    // Under a policy that protects no ref and lets agents skip hooks,
    // nothing there is guarded.
    let guards = policy.protects_anything() || !settings.enforce.allow_no_verify;
    if let Some(what) = facts.writes_guarded.as_ref().filter(|_| !person && guards) {
        let hint = if action.new_trees.is_empty() {
            "keep what git writes out of the git directory and off git-ward's policy files: an output file elsewhere (say /tmp/out.txt) or stdout, and a working tree outside the git directory"
        } else {
            "a repository that exists needs no `init`; make a new repository or working tree in a new directory outside any git directory (say ../work-2)"
        };
        return Decision::deny(
            Code::D004,
            format!("{} {what}, where hooks and policy live", action.word()),
            hint,
            "enforce.actors",
        );
    }

    // A push is judged even as a dry run (read-only): git runs the
    // pre-push hook for one too, which refuses it alike.
    if let Some(push) = &action.push {
        if let Some(d) = decide_push(policy, action.word(), push, facts) {
            return d;
        }
    }

    if let Some(d) = lanes::deny(action, facts, effective_effect(policy, action)) {
        return d;
    }

    if effective_effect(policy, action) == Effect::Read {
        return Decision::allow("read-only");
    }

    if settings.branches.sync_from_upstream && !person {
        let own = |key: &str| agents_own(action, &facts.agent_remotes, key);
        if let Some(key) = action
            .repoints
            .iter()
            .find(|k| repoints_protected(policy, k) && !own(k))
        {
            if key == crate::classify::EXEC_PATH {
                return Decision::deny(
                    Code::D001,
                    format!(
                        "{} runs git's helpers from another exec path (--exec-path or GIT_EXEC_PATH), whose upload-pack may serve another repository as the remote protected branches sync from",
                        action.word()
                    ),
                    "run it without --exec-path, and with GIT_EXEC_PATH unset (or git's own: `git --exec-path`)",
                    "branches.sync_from_upstream",
                );
            }
            return Decision::deny(
                Code::D001,
                format!(
                    "{} sets {key}, which says what a protected branch may be synced to",
                    action.word()
                ),
                HINT_REPOINT,
                "branches.sync_from_upstream",
            );
        }
    }

    if let Some(target) = action.checkout.as_ref().filter(|_| agent) {
        if settings.checkout.local_only {
            if let CheckoutTarget::Detach(at) = target {
                let (message, hint) = if at == "HEAD" {
                    (
                        "agents work on a local branch, not a detached HEAD".to_string(),
                        "stay on your branch, or make one of your own here (`git switch -c <name>`)".to_string(),
                    )
                } else {
                    (
                        format!("agents work on a local branch, not a detached HEAD (at '{at}')"),
                        format!("make a branch of your own there (`git switch -c <name> {at}`), or check out '{at}' if it is a local branch (`git switch {at}`)"),
                    )
                };
                return Decision::deny(Code::D006, message, hint, "checkout.local_only");
            }
            if let CheckoutTarget::Remote(name) | CheckoutTarget::Special(name) = target {
                return Decision::deny(
                    Code::D006,
                    format!("agents check out local branches only, not '{name}'"),
                    HINT_CHECKOUT,
                    "checkout.local_only",
                );
            }
        }
    }

    for write in &action.refs {
        let Some(full) = target_ref(&write.target, facts) else {
            continue;
        };
        if full.starts_with("refs/ward/") && agent {
            return refs::deny_ward_ref(&action.operation(), &full);
        }
        if refs::in_git_dir_root(&full) && agent {
            return refs::deny_git_dir_ref(&action.operation(), &full);
        }
        if full.starts_with("refs/replace/")
            && write.op != RefOp::Delete
            && policy.protects_anything()
        {
            // git reads the replacement wherever the object is named,
            // protected branches (and the team policy on them) included.
            return Decision::deny(
                Code::D001,
                format!(
                    "{} writes a replacement ref, which makes git read another object in place of one, in protected branches too",
                    action.word()
                ),
                "make the change as a commit on a branch of your own and open a merge request; replacement refs are a person's to set",
                "branches.protected",
            );
        }
        // A remote-tracking ref a protected branch syncs to, written other
        // than by a fetch: the hook's rule, judged before git runs.
        let tracks_protected = || {
            crate::policy::tracking_readings(&full).any(|(remote, branch)| {
                facts.remotes.iter().any(|r| r == remote)
                    && policy.is_protected(&format!("refs/heads/{branch}"))
            })
        };
        if full.starts_with("refs/remotes/")
            && write.op != RefOp::Delete
            && settings.branches.sync_from_upstream
            && !matches!(action.command.as_str(), "fetch" | "pull")
            && tracks_protected()
        {
            return refs::deny_tracking(&action.operation(), &full);
        }
        if let Some(branch) = refs::stands_for(&full, |r| policy.is_protected(r))
            .or_else(|| refs::shadows_tracking(&full, &facts.remotes, |r| policy.is_protected(r)))
        {
            if write.op != RefOp::Delete {
                return refs::deny_shadow(&action.operation(), &full, &branch);
            }
        }
        if write.target == RefTarget::All
            && reach::unnamed_refs_judged(policy, &action.command, facts)
        {
            continue;
        }
        if write.target != RefTarget::All && !policy.is_protected(&full) {
            continue;
        }
        let is_tag = full.starts_with("refs/tags/");
        // Created from its upstream (`checkout main`), or fetched from it
        // (`fetch origin main:main`, which may also move it).
        let syncing = (write.op == RefOp::Create || action.syncs)
            && settings.branches.sync_from_upstream
            && write
                .start
                .as_deref()
                .is_some_and(|s| is_upstream_of(s, &full));
        if write.op == RefOp::Create {
            if let Some(d) = refs::takes_team_layer(policy, facts.actor, &action.operation(), &full)
            {
                return d;
            }
        }
        let person_syncs = facts.fast_forward
            && settings.branches.sync_from_upstream
            && person_reset_to_upstream(action, facts).is_some();
        if syncing || person_syncs || (is_tag && write.op == RefOp::Create) {
            continue;
        }
        let verb = match write.op {
            RefOp::Create => "creates",
            RefOp::Update => "moves",
            RefOp::Delete => "deletes",
        };
        let message = if write.target == RefTarget::All {
            // A pattern, `--stdin`, `--force --tags`: refs it does not name.
            format!(
                "{} can write refs its command line does not name, protected ones among them",
                action.word()
            )
        } else {
            format!(
                "{} {verb} protected ref '{}'",
                action.word(),
                display(&full)
            )
        };
        let current = facts.head.as_ref().and_then(Head::branch);
        let hint = match write.start.as_deref() {
            _ if write.target == RefTarget::All => HINT_PROTECTED_REF.to_string(),
            _ if is_tag => HINT_PROTECTED_TAG.to_string(),
            // `reset --hard origin/main` on `main`: syncing has its own way.
            Some(start) if write.op != RefOp::Delete && is_upstream_of(start, &full) => {
                let branch = display(&full);
                let switch = match current {
                    Some(b) if b == branch => String::new(),
                    _ => format!("`git switch {branch}`, then "),
                };
                format!("a protected branch moves to its upstream only by a fast-forward: {switch}`git merge --ff-only {start}` (or `git pull --ff-only`); other changes go on a branch of your own")
            }
            _ => HINT_PROTECTED_REF.to_string(),
        };
        return Decision::deny(Code::D001, message, hint, "branches.protected");
    }

    let on_protected = facts
        .head
        .as_ref()
        .and_then(Head::branch)
        .filter(|b| policy.is_protected(&format!("refs/heads/{b}")));
    // `git merge origin/main` on a `main` behind it: a fast-forward to its
    // upstream, which the reference-transaction hook checks value by value.
    let syncing =
        action.ff_target.is_some() && facts.fast_forward && settings.branches.sync_from_upstream;
    let mut d = match on_protected {
        Some(_) if action.creates_commits && syncing => Decision {
            key: Some("branches.sync_from_upstream"),
            ..Decision::allow("on a protected branch: a fast-forward to its upstream is syncing")
        },
        Some(branch) if action.creates_commits => {
            let d = decide_commit_on_protected(policy, action, facts, branch);
            if d.denial().is_some() {
                return d;
            }
            // A switch, then the command: checkpointed like any other.
            d
        }
        _ => Decision::allow(match facts.head.as_ref().and_then(Head::branch) {
            Some(_) if on_protected.is_some() => {
                "on a protected branch: neither commits nor moves a protected ref"
            }
            Some(b) if b.starts_with(&settings.branches.agent_prefix) => {
                "on an agent branch: stay (sticky)"
            }
            Some(_) => "on an unprotected branch: stay",
            None => "detached HEAD: allowed; the ref-level check still guards protected refs",
        }),
    };
    if on_protected.is_some()
        && action.pull_integrates
        && settings.branches.sync_from_upstream
        && !matches!(d.verdict, Verdict::Switch(_))
    {
        d.fast_forward_only = true;
        d.rule = format!("{}; a pull there only fast-forwards (pull.ff=only)", d.rule);
    }
    let then = |d: &Decision, what: &str| match &d.verdict {
        Verdict::Switch(_) => format!("{}; {what}", d.rule),
        _ => what.to_string(),
    };
    // Only the shim checkpoints: a person's git never goes through it
    // (under `enforce.actors = "everyone"` the rules bind them all the same).
    if facts.person_outside_hooks() {
        if let Some(why) = &action.destructive {
            d.rule = then(
                &d,
                &format!("destructive ({why}): run as it is, no checkpoint (the shim takes one before an agent's command; `git ward checkpoint` keeps the work first)"),
            );
        }
        return d;
    }
    if action.destructive.is_some() && settings.checkpoint.before_destructive {
        d.checkpoint = true;
        d.rule = then(
            &d,
            &format!(
                "destructive ({}): checkpoint, then run",
                action.destructive.as_deref().unwrap_or("")
            ),
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    } else if settings.checkpoint.before_destructive && action.unstages {
        // What is lost is a staged version the working tree no longer
        // holds; the checkpoint is taken only when one is there.
        d.save_staged = true;
        d.rule = then(
            &d,
            "resets the index: staged versions the working tree no longer holds are checkpointed first, then run",
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    } else if settings.checkpoint.before_destructive
        && !settings.checkpoint.include_ignored.is_empty()
        && action.may_drop_ignored()
    {
        // The files the policy keeps are ignored ones, which git overwrites
        // (or deletes) here; the checkpoint is taken only when one is there.
        d.checkpoint = true;
        d.rule = then(&d, "may overwrite or delete ignored files that checkpoint.include_ignored keeps: checkpoint them if one is in the way, then run");
        d.key = d.key.or(Some("checkpoint.include_ignored"));
    } else if settings.checkpoint.before_destructive
        && !facts.ignored_in_the_way.is_empty()
        && action.may_drop_ignored()
    {
        // git replaces an ignored file in a checkout's way without a word.
        d.checkpoint = true;
        d.rule = then(
            &d,
            "overwrites ignored files in its way: checkpoint them, then run",
        );
        d.key = d.key.or(Some("checkpoint.before_destructive"));
    }
    d
}

fn decide_commit_on_protected(
    policy: &Policy,
    action: &Action,
    facts: &Facts,
    branch: &str,
) -> Decision {
    let op = action.word();
    let capability = policy.capability(facts.contract.as_deref());
    let target = facts
        .contract
        .as_deref()
        .map(|c| format!("{}{c}", policy.settings.branches.agent_prefix));
    // A person's git (`explain` for one) meets the pre-commit hook only in
    // a `commit` that runs it; a command that moves the branch otherwise
    // meets reference-transaction, and one that writes only the index and
    // files meets no hook at all.
    if facts.person_outside_hooks() {
        let index_only = matches!(
            action.command.as_str(),
            "add" | "rm" | "mv" | "stash" | "apply" | "update-index" | "read-tree"
        );
        if index_only {
            return Decision::allow(
                "a person's command that writes only the index and files: no hook judges it",
            );
        }
        if action.command != "commit" || action.hooks_off.is_some() {
            return Decision::deny(
                Code::D001,
                format!("{op} moves protected ref '{branch}'"),
                format!("{HINT_PROTECTED_REF}; a protected branch may only be synced to its upstream (`git pull --ff-only`)"),
                "branches.protected",
            );
        }
    }
    // Only the shim (and `git ward save`) moves anyone: a person's git
    // never goes through the shim, and a hook cannot move HEAD before the
    // command. The matrix's code
    // stands (no contract is EN-GIT-D-003); the hint says where to go, not
    // to start a contract and retry, which would move no one here.
    if facts.person_outside_hooks() || facts.in_hook {
        let mut hint = own_branch_hint(facts, branch, target.as_deref());
        if facts.actor == Actor::Agent && capability == CapabilityFor::On {
            hint.push_str(match target {
                Some(_) => "; the git-ward shim does this for you",
                None => "; or start a contract (`git ward contract start <id>`) and commit through the git-ward shim, which moves you",
            });
        }
        let key = match facts.actor {
            Actor::Human => "enforce.actors",
            Actor::Agent => "capabilities.ensure_working_branch",
        };
        let (code, message) = match (capability, &target) {
            (CapabilityFor::OtherContracts, _) => (
                Code::D002,
                format!("{op} on protected branch '{branch}': ensure_working_branch is granted to other contracts only"),
            ),
            (CapabilityFor::On, None) => (
                Code::D003,
                format!("{op} on protected branch '{branch}' needs an active contract"),
            ),
            _ => (Code::D001, format!("{op} on protected branch '{branch}'")),
        };
        return Decision::deny(code, message, hint, key);
    }
    match capability {
        CapabilityFor::Off => Decision::deny(
            Code::D001,
            format!("{op} on protected branch '{branch}'"),
            "work on a branch of your own (`git switch -c <name>`); capabilities.ensure_working_branch would move you automatically",
            "capabilities.ensure_working_branch",
        ),
        CapabilityFor::OtherContracts => Decision::deny(
            Code::D002,
            match facts.contract.as_deref() {
                Some(c) => format!(
                    "{op} on protected branch '{branch}': contract '{c}' does not hold ensure_working_branch"
                ),
                None => format!(
                    "{op} on protected branch '{branch}': ensure_working_branch is granted to other contracts only"
                ),
            },
            if facts.contract_from_env {
                // `git ward contract start` would not change the contract.
                "work on a branch of your own (`git switch -c <name>`), or set WARD_CONTRACT to a contract that capabilities.ensure_working_branch lists"
            } else {
                "work on a branch of your own (`git switch -c <name>`), or start a contract that capabilities.ensure_working_branch lists (`git ward contract start <id>`)"
            },
            "capabilities.ensure_working_branch",
        ),
        CapabilityFor::On => match target {
            None => Decision::deny(
                Code::D003,
                format!("{op} on protected branch '{branch}' needs an active contract"),
                "run `git ward contract start <id>` or set WARD_CONTRACT, then retry",
                "capabilities.ensure_working_branch",
            ),
            Some(target) => {
                if let Some(what) = facts.in_progress {
                    // A move to the agent branch would end it, its commit
                    // made there with one parent: refused, nothing changed.
                    return Decision::deny(
                        Code::D001,
                        format!("{op} on protected branch '{branch}' while a {what} is in progress there"),
                        format!(
                            "let a person finish the {what} on '{branch}', or abort it (`git {what} --abort`) and redo it on your own branch ({})",
                            switch_to(facts, Some(&target))
                        ),
                        "capabilities.ensure_working_branch",
                    );
                }
                if policy.is_protected(&format!("refs/heads/{target}")) {
                    // The move would land on a protected branch too.
                    return Decision::deny(
                        Code::D001,
                        format!("{op} on protected branch '{branch}': the agent branch '{target}' is protected too (branches.protected), so there is nowhere to move"),
                        "work on a branch no protected pattern matches (`git switch -c <name>`), and ask the repository's owner to leave agent branches unprotected (branches.protected, branches.agent_prefix)",
                        "branches.protected",
                    );
                }
                if let Some(path) = elsewhere(facts, &target) {
                    return Decision::deny(
                        Code::D001,
                        format!("{op} on protected branch '{branch}': '{target}' is checked out in another worktree ({path})"),
                        format!("work on it there (`cd {path}`), or commit on a new branch here (`git switch -c {target}-2`)"),
                        "capabilities.ensure_working_branch",
                    );
                }
                Decision {
                    rule: format!("on protected '{branch}' with contract '{contract}': switch to '{target}'", contract = facts.contract.as_deref().unwrap_or_default()),
                    verdict: Verdict::Switch(target),
                    checkpoint: false,
                    save_staged: false,
                    fast_forward_only: false,
                    key: Some("capabilities.ensure_working_branch"),
                }
            }
        },
    }
}

/// The command that puts HEAD on a branch of one's own: the agent branch
/// `target` (made, or checked out where it exists), else a new one.
fn switch_to(facts: &Facts, target: Option<&str>) -> String {
    match target {
        Some(t) if facts.agent_branch_exists => format!("`git switch {t}`"),
        Some(t) => format!("`git switch -c {t}`"),
        None => "`git switch -c <name>`".to_string(),
    }
}

/// Where another worktree has `branch` checked out, if one does.
fn elsewhere<'a>(facts: &'a Facts, branch: &str) -> Option<&'a str> {
    facts
        .checked_out_elsewhere
        .iter()
        .find(|(b, _)| b == branch)
        .map(|(_, path)| path.as_str())
}

/// The hint for a commit on protected `branch` that nothing will move off
/// it (a person's, or one a hook judges): go to a branch of one's own.
fn own_branch_hint(facts: &Facts, branch: &str, target: Option<&str>) -> String {
    if let Some((t, path)) = target.and_then(|t| Some((t, elsewhere(facts, t)?))) {
        return format!(
            "work on '{t}' where it is checked out (`cd {path}`), or on a new branch here (`git switch -c {t}-2`)"
        );
    }
    let go = switch_to(facts, target);
    match facts.in_progress {
        Some(what) => format!(
            "abort the {what} on '{branch}' (`git {what} --abort`) and redo it on a branch of your own ({go})"
        ),
        None => format!("work on a branch of your own ({go}), then retry"),
    }
}

fn decide_push(
    policy: &Policy,
    word: &str,
    push: &crate::action::Push,
    facts: &Facts,
) -> Option<Decision> {
    // git pushes to `origin` where nothing else is configured.
    let remote = push.remote.as_deref().unwrap_or("origin");
    let contract = facts.contract.as_deref();
    let agent = facts.actor == Actor::Agent;
    if let Some(d) = reach::decide_unnamed_push(policy, word, push, facts) {
        return Some(d);
    }
    let dests = push.dests.iter().filter_map(|d| {
        let dst = d.dst.as_ref()?;
        Some((push_ref(dst, &d.src), d.force || push.force))
    });
    for (full, force) in dests {
        if agent && full.starts_with("refs/ward/") {
            // Into this repository (`push .`) or another with git-ward:
            // checkpoints there are git-ward's alone.
            return Some(refs::deny_ward_ref(word, &full));
        }
        if force && agent && !policy.force_allowed(&full) {
            return Some(Decision::deny(
                Code::D005,
                format!(
                    "force push to '{}' is outside push.force_allowed",
                    display(&full)
                ),
                force_push_hint(policy, remote, contract),
                "push.force_allowed",
            ));
        }
        if policy.is_protected(&full) {
            return Some(Decision::deny(
                Code::D001,
                format!("push to protected ref '{}'", display(&full)),
                protected_push_hint(policy, &full, remote, contract),
                "branches.protected",
            ));
        }
    }
    None
}

/// The refusal when an auto-switch cannot carry the work to the agent branch
/// (it has diverged so that git would have to merge): nothing was changed.
pub fn switch_refused(branch: &str, git_says: &str) -> Error {
    Error::denied(
        Code::D001,
        format!("cannot move to '{branch}' carrying your changes: {}", git_says.trim().replace('\n', " ")),
        format!("nothing was changed; commit on a new branch (`git switch -c {branch}-2`), or merge '{branch}' by hand"),
    )
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod tests;

pub mod attribution;
pub mod lanes;
pub mod pointers;
pub mod reach;
pub mod refs;
pub mod unheld;

pub use reach::Reach;
