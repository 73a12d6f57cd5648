//! The ref-level rules: what the hooks ask when git itself moves refs.
//!
//! The shim decides from a command line; the hooks see the refs git is
//! about to write, whatever command wrote them. These rules are pure like
//! the rest of `decide`: every fact about the repository (a ref's current
//! value, whether a move is a fast-forward, whether the value is the
//! upstream's) is read by the hook and handed in.

use crate::action::command_word;
use crate::decide::{binds, force_push_hint, protected_push_hint, Actor, Decision};
use crate::error::Code;
use crate::policy::{short_name, Policy, ServerAgentCommits};

/// One ref a reference transaction writes, with the facts the hook read about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefChange {
    /// The full ref name (`refs/heads/main`).
    pub refname: String,
    /// The ref's value now, read while git holds its lock; `None` when absent.
    pub current: Option<String>,
    /// The value the transaction writes; `None` for a deletion.
    pub new: Option<String>,
    /// A `pack-refs` prune: the loose ref goes while `packed-refs` keeps the same value.
    pub pruning: bool,
    /// `new` is exactly the value of the branch's upstream or of a
    /// remote-tracking ref of the same name.
    pub matches_upstream: bool,
    /// `current` is an ancestor of `new` (true when either is absent).
    pub fast_forward: bool,
    /// For a remote-tracking ref of a configured remote, the branch names
    /// it tracks (`refs/remotes/origin/main`: `main`; more than one when
    /// remotes' names nest, as `origin` and `origin/x` do). For a branch
    /// named like one of a protected branch (`refs/heads/origin/main`),
    /// that protected branch ([`shadows_tracking`]).
    pub tracked: Vec<String>,
    /// For a remote-tracking ref (`refs/remotes/origin/main`): written by
    /// `git fetch` from that remote, from its branch of the same name (a
    /// configured remote, a refspec that maps `refs/heads/main` there and
    /// none that maps anything else there).
    pub fetched: bool,
}

impl RefChange {
    /// Does the transaction change this ref at all?
    pub fn changes(&self) -> bool {
        self.current != self.new
    }
}

/// Can no policy deny this change, whoever makes it? Lets the hook skip
/// loading the policy: no rule cares about the ref (`is_protected`, which
/// is [`guarded`]'s answer), or nothing changes; deleting a remote-tracking
/// ref syncs nothing, and deleting a replacement ref replaces nothing.
/// Never true where [`decide_ref_change`] could deny.
pub fn never_denied(change: &RefChange, is_protected: bool) -> bool {
    !is_protected
        || !change.changes()
        || (change.refname.starts_with("refs/remotes/") && change.new.is_none())
        || (change.refname.starts_with("refs/replace/") && change.new.is_none())
}

/// A ref outside `refs/` that is neither `HEAD` nor a pseudo-ref (those
/// are upper case: `ORIG_HEAD`, `FETCH_HEAD`): git keeps it as the file
/// `$GIT_DIR/<name>`, so `update-ref ward/policy.toml <id>` writes git-ward's
/// local policy layer. (One named like a protected branch, `main`, is read
/// as that branch: git finds `$GIT_DIR/main` before `refs/heads/main`.)
pub fn in_git_dir_root(refname: &str) -> bool {
    !refname.starts_with("refs/")
        && refname != "HEAD"
        && !refname
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The branch name a ref would stand for in git's reading of that name:
/// git looks for `<name>` as `refs/<name>` and `refs/tags/<name>` before
/// `refs/heads/<name>`, so a tag `main` (or `refs/main`) is what `git
/// merge main` and `git show main:<file>` read, for everyone. Not git's
/// own namespaces whose names git picks: `refs/prefetch/remotes/origin/main`
/// (`git maintenance`'s prefetch) and `refs/rewritten/<label>` (`rebase
/// -r`) are read only under those longer names.
pub fn shadowed_branch(refname: &str) -> Option<&str> {
    if let Some(tag) = refname.strip_prefix("refs/tags/") {
        return Some(tag);
    }
    let rest = refname.strip_prefix("refs/")?;
    let namespaced = ["heads/", "tags/", "remotes/", "prefetch/", "rewritten/"]
        .iter()
        .any(|p| rest.starts_with(p));
    (!namespaced && !rest.is_empty()).then_some(rest)
}

/// The protected branch a ref would stand for, with `is_protected` telling
/// whether a full ref name is protected: the name git reads it for
/// ([`shadowed_branch`]) when that is a protected branch (a tag `main`),
/// or a remote-tracking name of one (a tag `origin/main`, which `git merge
/// --ff-only origin/main` reads before `refs/remotes/origin/main`; every
/// `<remote>/<branch>` reading counts, whichever remotes there are).
pub fn stands_for(refname: &str, mut is_protected: impl FnMut(&str) -> bool) -> Option<String> {
    let name = shadowed_branch(refname)?;
    std::iter::once(name)
        .chain(name.match_indices('/').map(|(i, _)| &name[i + 1..]))
        .find(|b| !b.is_empty() && is_protected(&format!("refs/heads/{b}")))
        .map(|b| b.to_string())
}

/// The protected branch a branch stands for when it is named like a
/// remote-tracking ref of one (`refs/heads/origin/main`, with `origin` a
/// configured remote): git reads `origin/main` as `refs/heads/origin/main`
/// before `refs/remotes/origin/main`, so a person's `git merge --ff-only
/// origin/main` would take the agent's commits in.
pub fn shadows_tracking(
    refname: &str,
    remotes: &[String],
    mut is_protected: impl FnMut(&str) -> bool,
) -> Option<String> {
    let name = refname.strip_prefix("refs/heads/")?;
    crate::policy::tracking_readings(&format!("refs/remotes/{name}"))
        .find(|(remote, branch)| {
            remotes.iter().any(|r| r == remote) && is_protected(&format!("refs/heads/{branch}"))
        })
        .map(|(_, branch)| branch.to_string())
}

/// The name git reads a ref for when it stands for another: `main` for a
/// tag `main`, `origin/main` for a branch `origin/main`.
fn read_as(refname: &str) -> &str {
    shadowed_branch(refname)
        .or_else(|| refname.strip_prefix("refs/heads/"))
        .unwrap_or(refname)
}

/// EN-GIT-D-001 for a ref that would shadow a protected branch.
pub fn deny_shadow(operation: &str, refname: &str, branch: &str) -> Decision {
    let name = read_as(refname);
    Decision::deny(
        Code::D001,
        format!(
            "{} writes '{refname}', which git reads for '{name}' in place of protected branch '{branch}' or its remote-tracking ref (`git merge {name}`, `git show {name}:<file>`)",
            command_word(operation)
        ),
        format!("name it so it shadows no protected branch (say 'agent/{branch}-x' or a tag 'v-{branch}-x')"),
        "branches.protected",
    )
}

/// An agent's write or deletion of a file in the git directory by way of
/// a ref name ([`in_git_dir_root`]): EN-GIT-D-004.
fn decide_git_dir_file(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    change: &RefChange,
) -> Decision {
    if !change.changes() {
        return Decision::allow("the ref keeps its value");
    }
    if !binds(policy, actor) {
        return Decision::allow(BINDS_AGENTS_ONLY);
    }
    deny_git_dir_ref(operation, &change.refname)
}

/// EN-GIT-D-004 for an agent's write of `refname`, a ref git keeps as a
/// file in the git directory ([`in_git_dir_root`]): git-ward's state
/// (`ward/made/<id>`, `ward/lease`, `ward/policy.toml`) among them.
pub fn deny_git_dir_ref(operation: &str, refname: &str) -> Decision {
    Decision::deny(
        Code::D004,
        format!(
            "{} writes the ref '{refname}', which is the file $GIT_DIR/{refname} in the git directory, where hooks and policy live",
            command_word(operation),
        ),
        "name refs under refs/ (refs/heads/agent/<name>, or refs/<namespace>/<name> of your own)",
        "enforce.actors",
    )
}

/// EN-GIT-D-001 for an agent's creation of the protected branch `refname`
/// where the team layer would then be read from it in place of the
/// branch it is read from now (it comes first among the branches the
/// protected patterns name): that is a person's to do, or the team's
/// rules would be whatever that branch holds.
pub fn takes_team_layer(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    refname: &str,
) -> Option<Decision> {
    let branch = refname.strip_prefix("refs/heads/")?;
    let team = policy.team_branch()?;
    if actor != Actor::Agent || !binds(policy, actor) {
        return None;
    }
    let order = crate::patterns::literal_branches(policy.protected_patterns());
    let (new, now) = (
        order.iter().position(|b| b == branch)?,
        order.iter().position(|b| b == team)?,
    );
    (new < now).then(|| {
        Decision::deny(
            Code::D001,
            format!(
                "{} creates protected branch '{branch}', which would then be where the team policy is read from, in place of '{team}'",
                command_word(operation)
            ),
            format!("work on '{team}' or a branch of your own; creating '{branch}' here is a person's to do"),
            "branches.protected",
        )
    })
}

/// A new value that is a symbolic ref (`ref:refs/heads/x`, as git 2.45
/// and later give one to reference-transaction).
fn is_symbolic(value: &str) -> bool {
    value.starts_with("ref:")
}

/// Can any rule care about this ref, with `is_protected` telling whether
/// a full ref name is protected? A protected ref, a remote-tracking ref of
/// a protected branch name, any replacement ref, any ref kept as a file at
/// the top of the git directory, a ref named so that git reads it for a
/// protected branch ([`shadowed_branch`]); not a tag being created
/// (fetching tags is additive). The hook's quick path asks it before
/// loading the full policy.
pub fn guarded(change: &RefChange, mut is_protected: impl FnMut(&str) -> bool) -> bool {
    if change.refname.starts_with("refs/replace/") || in_git_dir_root(&change.refname) {
        return true;
    }
    if change.refname.starts_with("refs/remotes/") {
        return change
            .tracked
            .iter()
            .any(|b| is_protected(&format!("refs/heads/{b}")));
    }
    if stands_for(&change.refname, &mut is_protected).is_some() {
        return true;
    }
    if change.refname.starts_with("refs/heads/")
        && change
            .tracked
            .iter()
            .any(|b| is_protected(&format!("refs/heads/{b}")))
    {
        return true;
    }
    if change.refname.starts_with("refs/tags/")
        && change.current.is_none()
        && !change.new.as_deref().is_some_and(is_symbolic)
    {
        // Created: fetching tags is additive. Not a symbolic one, which
        // moves with the ref it points to.
        return false;
    }
    is_protected(&change.refname)
}

pub(crate) const BINDS_AGENTS_ONLY: &str =
    "the rules bind agents only (enforce.actors = \"agents\")";
const HINT_PROTECTED: &str =
    "protected refs move only through review: push a branch of your own and open a merge request";

/// The rule for one ref a reference transaction writes.
pub fn decide_ref_change(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    change: &RefChange,
) -> Decision {
    let name = display(&change.refname);
    if change.refname.starts_with("refs/remotes/") {
        return decide_tracking_change(policy, actor, operation, change);
    }
    if change.refname.starts_with("refs/replace/") {
        return decide_replacement(policy, actor, operation, change);
    }
    if in_git_dir_root(&change.refname) && !policy.is_protected(&change.refname) {
        return decide_git_dir_file(policy, actor, operation, change);
    }
    let named_like_tracking = || {
        change
            .tracked
            .iter()
            .find(|b| policy.is_protected(&format!("refs/heads/{b}")))
            .filter(|_| change.refname.starts_with("refs/heads/"))
            .cloned()
    };
    if let Some(branch) =
        stands_for(&change.refname, |r| policy.is_protected(r)).or_else(named_like_tracking)
    {
        if change.new.is_some() && change.changes() && binds(policy, actor) {
            return deny_shadow(operation, &change.refname, &branch);
        }
    }
    if !policy.is_protected(&change.refname) {
        return Decision::allow("not a protected ref");
    }
    if !change.changes() {
        return Decision::allow("the ref keeps its value");
    }
    if !binds(policy, actor) {
        return Decision::allow(BINDS_AGENTS_ONLY);
    }
    if change.pruning {
        return Decision::allow("pack-refs moves the ref into packed-refs: not a deletion");
    }
    let is_tag = change.refname.starts_with("refs/tags/");
    if change.current.is_none() && change.new.is_some() {
        if let Some(d) = takes_team_layer(policy, actor, operation, &change.refname) {
            return d;
        }
    }
    match (&change.current, &change.new) {
        (None, Some(new)) if is_tag && is_symbolic(new) => Decision::deny(
            Code::D001,
            format!(
                "{} creates protected tag '{name}' as a symbolic ref to '{}', which would move with it",
                command_word(operation),
                new.trim_start_matches("ref:")
            ),
            "create the tag at a commit instead (`git tag <name> <commit>`)",
            "branches.protected",
        ),
        (None, Some(_)) if is_tag => Decision::allow("protected tags may be created"),
        (_, Some(_))
            if !is_tag
                && policy.settings.branches.sync_from_upstream
                && change.matches_upstream
                && change.fast_forward =>
        {
            Decision::allow(format!(
                "syncing '{name}' to its upstream's value (branches.sync_from_upstream)"
            ))
        }
        (current, new) => {
            let verb = match (current, new) {
                (None, _) => "creates",
                (_, None) => "deletes",
                _ => "moves",
            };
            Decision::deny(
                Code::D001,
                format!("{} {verb} protected ref '{name}'", command_word(operation)),
                if is_tag {
                    "protected tags are never moved or deleted; create a new tag instead"
                        .to_string()
                } else {
                    format!("{HINT_PROTECTED}; a protected branch may only be synced to its upstream (`git pull --ff-only`)")
                },
                "branches.protected",
            )
        }
    }
}

/// A remote-tracking ref of a protected branch name: protected branches
/// sync to these, so an agent's write of one that is not a fetch
/// of that branch from that remote (`update-ref`, `fetch . x:refs/remotes/origin/main`,
/// `fetch <url> ...`, a refspec mapping another branch there, `remote
/// rename`) would let it fast-forward a protected branch onto its own
/// commits: EN-GIT-D-001. Deleting one syncs nothing.
fn decide_tracking_change(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    change: &RefChange,
) -> Decision {
    let protected = change
        .tracked
        .iter()
        .any(|b| policy.is_protected(&format!("refs/heads/{b}")));
    if !protected || !change.changes() || change.new.is_none() {
        return Decision::allow("not a remote-tracking ref a protected branch syncs to");
    }
    if !binds(policy, actor) {
        return Decision::allow(BINDS_AGENTS_ONLY);
    }
    if !policy.settings.branches.sync_from_upstream {
        return Decision::allow(
            "protected branches do not sync (branches.sync_from_upstream = false)",
        );
    }
    if change.fetched {
        return Decision::allow("fetched from its remote's branch of the same name");
    }
    deny_tracking(operation, &change.refname)
}

/// EN-GIT-D-001 for a write of remote-tracking ref `refname` of a
/// protected branch other than by fetching that branch from its remote.
pub fn deny_tracking(operation: &str, refname: &str) -> Decision {
    let name = refname.trim_start_matches("refs/remotes/");
    Decision::deny(
        Code::D001,
        format!(
            "{} writes '{name}', which a protected branch syncs to, other than by fetching that branch from its remote",
            command_word(operation)
        ),
        "remote-tracking refs of protected branches are written only by `git fetch <remote>`; to bring in another branch or repository, fetch it into a branch of your own (`git fetch <remote-or-url> <branch>:agent/<name>`)",
        "branches.sync_from_upstream",
    )
}

/// A replacement ref (`git replace <object> <other>`): every git in the
/// repository then reads `<other>` wherever `<object>` is named, protected
/// branches' commits and the files in them included, and a person's next
/// commit on such a branch is made on top of what the agent put there. An
/// agent's is refused (EN-GIT-D-001); removing one restores what is there.
fn decide_replacement(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    change: &RefChange,
) -> Decision {
    if !change.changes() || change.new.is_none() {
        return Decision::allow("no replacement is made");
    }
    if !policy.protects_anything() {
        return Decision::allow("the policy protects no ref a replacement could stand in for");
    }
    if !binds(policy, actor) {
        return Decision::allow(BINDS_AGENTS_ONLY);
    }
    Decision::deny(
        Code::D001,
        format!(
            "{} writes '{}', which makes git read another object in place of one, in protected branches too",
            command_word(operation),
            change.refname
        ),
        "make the change as a commit on a branch of your own and open a merge request; replacement refs are a person's to set",
        "branches.protected",
    )
}

/// A write of `refname` under `refs/ward/`, git-ward's own (checkpoints
/// and the commits they keep), by a git git-ward did not start for itself
/// (`own`: [`crate::facts::starter`]): an agent's is refused, since a
/// restore believes a checkpoint only as far as git-ward made it.
pub fn decide_ward_ref(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    refname: &str,
    own: bool,
) -> Decision {
    if own || actor != Actor::Agent || !binds(policy, actor) {
        return Decision::allow("git-ward's own write, or not an agent's");
    }
    deny_ward_ref(operation, refname)
}

/// EN-GIT-D-001 for an agent's write of `refname` under `refs/ward/`.
pub fn deny_ward_ref(operation: &str, refname: &str) -> Decision {
    Decision::deny(
        Code::D001,
        format!(
            "{} writes '{refname}', which is git-ward's own: checkpoints are made, kept and removed by git-ward alone",
            command_word(operation)
        ),
        "take a checkpoint with `git ward checkpoint`, restore one with `git ward rollback <id>` or `git ward undo`",
        "checkpoint.keep",
    )
}

/// May `git ward undo` make `change` from a checkpoint's own record of
/// the refs a command named (its `Ward-Ref` trailers), where no journal
/// line says what the command moved? A checkpoint is a commit anyone who
/// can write a ref could have written, so only what an agent may do
/// itself: a branch or tag ([`decide_ref_change`] as an agent's), never
/// git-ward's own refs, remote-tracking, replacement or top-level ones.
pub fn decide_recorded_ref(policy: &Policy, change: &RefChange) -> Decision {
    let name = change.refname.as_str();
    let plain = name.starts_with("refs/heads/") || name.starts_with("refs/tags/");
    if !plain {
        return Decision::deny(
            Code::D001,
            format!("a checkpoint's record names '{name}', which is not a branch or tag: undo does not move it"),
            "move it by hand if it should move",
            "branches.protected",
        );
    }
    let d = decide_ref_change(policy, Actor::Agent, "ward.undo", change);
    match d.denial() {
        Some(_) => Decision::deny(
            Code::D001,
            format!("a checkpoint's record names protected ref '{name}': undo moves protected refs only as the ref journal recorded them"),
            "move it by hand if it should move (it is protected: through review)",
            "branches.protected",
        ),
        None => d,
    }
}

/// The first denial among a transaction's changes, else allow.
pub fn decide_transaction(
    policy: &Policy,
    actor: Actor,
    operation: &str,
    changes: &[RefChange],
) -> Decision {
    for change in changes {
        let d = decide_ref_change(policy, actor, operation, change);
        if d.denial().is_some() {
            return d;
        }
    }
    Decision::allow("no protected ref is written")
}

/// One line of a push, as pre-push (client) or pre-receive (server) sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PushUpdate {
    /// The remote ref (`refs/heads/main`).
    pub refname: String,
    /// The remote's value before the push; `None` when the ref is new there.
    pub old: Option<String>,
    /// The pushed value; `None` for a deletion.
    pub new: Option<String>,
    /// `old` is an ancestor of `new` (true when either is absent).
    pub fast_forward: bool,
}

/// pre-push, for one line of a push to `remote` (as git names it: the
/// remote, or the URL), with the agent's `contract`: anyone's deletion of
/// a protected remote ref is EN-GIT-D-005; for agents, a protected
/// destination is EN-GIT-D-001 and a non-fast-forward outside
/// `push.force_allowed` is EN-GIT-D-005.
pub fn decide_push_update(
    policy: &Policy,
    actor: Actor,
    update: &PushUpdate,
    remote: &str,
    contract: Option<&str>,
) -> Decision {
    let name = display(&update.refname);
    let protected = policy.is_protected(&update.refname);
    if update.new.is_none() {
        if protected {
            return Decision::deny(
                Code::D005,
                format!("push deletes protected ref '{name}'"),
                "protected refs are never deleted by a push; ask the repository's owner",
                "branches.protected",
            );
        }
        return Decision::allow("deletes an unprotected remote ref");
    }
    if !binds(policy, actor) {
        return Decision::allow(BINDS_AGENTS_ONLY);
    }
    if update.old.is_some() && !update.fast_forward && !policy.force_allowed(&update.refname) {
        return Decision::deny(
            Code::D005,
            format!("force push to '{name}' is outside push.force_allowed (not a fast-forward)"),
            force_push_hint(policy, remote, contract),
            "push.force_allowed",
        );
    }
    if protected {
        return Decision::deny(
            Code::D001,
            format!("push to protected ref '{name}'"),
            protected_push_hint(policy, &update.refname, remote, contract),
            "branches.protected",
        );
    }
    Decision::allow("pushes to an unprotected ref")
}

/// What pre-receive knows about one pushed ref, beyond the update itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiveFacts {
    /// Commits on the new first-parent line (`old..new`) that carry the contract footer.
    pub footer_on_first_parent: Vec<String>,
    /// Every new commit (`old..new`) that carries the contract footer.
    pub footer_anywhere: Vec<String>,
    /// The contract the footer of the newest agent commit on the new
    /// first-parent line names (its branch is what to merge).
    pub contract: Option<String>,
    /// The ref is the branch the team layer comes from, or becomes it by
    /// this push, and the pushed `.ward/policy.toml` is not a valid policy:
    /// why (every later command would fail on it, pushes of its fix too).
    pub team_policy_invalid: Option<String>,
    /// Creating the ref makes it the branch the team layer comes from, in
    /// place of this one, with another `.ward/policy.toml`.
    pub takes_team_from: Option<String>,
}

/// pre-receive, for one pushed ref, for everyone: no deletion and no
/// non-fast-forward of a protected ref; agent commits (carrying the footer)
/// reach it per `server.agent_commits_to_protected`.
pub fn decide_receive(policy: &Policy, update: &PushUpdate, facts: &ReceiveFacts) -> Decision {
    let name = display(&update.refname);
    if update.refname.starts_with("refs/replace/") && update.new.is_some() {
        // git reads `<other>` wherever the replaced commit is named: what
        // `main` holds, and the team policy on it, would be the pusher's.
        return Decision::deny(
            Code::D001,
            format!(
                "push writes replacement ref '{}', which changes what every branch holds, protected ones among them",
                update.refname
            ),
            "push the commits themselves; replacement refs on the server are the repository owner's to set",
            "branches.protected",
        );
    }
    if !policy.is_protected(&update.refname) {
        return Decision::allow("not a protected ref");
    }
    let is_tag = update.refname.starts_with("refs/tags/");
    match (&update.old, &update.new) {
        (_, None) => {
            return Decision::deny(
                Code::D005,
                format!("push deletes protected ref '{name}'"),
                "protected refs are never deleted by a push; ask the repository's owner",
                "branches.protected",
            )
        }
        (Some(_), Some(_)) if is_tag => {
            return Decision::deny(
                Code::D005,
                format!("push moves protected tag '{name}'"),
                "protected tags never move: push a new tag for the new commit",
                "branches.protected",
            )
        }
        (Some(_), Some(_)) if !update.fast_forward => return Decision::deny(
            Code::D005,
            format!("push rewrites protected ref '{name}' (not a fast-forward)"),
            "protected refs only move forward: merge or rebase onto the server's value, then push",
            "branches.protected",
        ),
        _ => {}
    }
    if let Some(why) = &facts.team_policy_invalid {
        return Decision::deny(
            Code::E001,
            format!("push makes .ward/policy.toml on '{name}' the team policy, and it is not valid: {why}"),
            "fix it (`git ward policy check .ward/policy.toml`) and push again; every command on this server reads it",
            "branches.protected",
        );
    }
    if let Some(source) = &facts.takes_team_from {
        return Decision::deny(
            Code::D001,
            format!("creating protected branch '{name}' makes its .ward/policy.toml the team policy in place of the one on '{source}'"),
            format!("create it with the .ward/policy.toml that '{source}' has (change the policy on '{source}' through review first), or ask the repository's owner"),
            "branches.protected",
        );
    }
    let offenders = match policy.settings.server.agent_commits_to_protected {
        ServerAgentCommits::Allow => &[][..],
        ServerAgentCommits::ViaMerge => &facts.footer_on_first_parent[..],
        ServerAgentCommits::Deny => &facts.footer_anywhere[..],
    };
    if let Some(commit) = offenders.first() {
        let short = &commit[..commit.len().min(12)];
        let (message, hint) = match policy.settings.server.agent_commits_to_protected {
            ServerAgentCommits::Deny => (
                format!("agent commit {short} reaches protected ref '{name}' (server.agent_commits_to_protected = \"deny\")"),
                "agent work stays on agent branches on this server".to_string(),
            ),
            _ => {
                let branch = crate::decide::agent_branch(policy, facts.contract.as_deref());
                let merge = format!("`git merge --no-ff {branch}`, then push");
                (
                    format!("agent commit {short} reaches protected ref '{name}' without a merge"),
                    match &update.old {
                        // A fast-forward to the agent's commits leaves nothing to merge.
                        Some(old) => format!(
                            "merge it with a merge commit of your own: put '{name}' back to the server's value (`git reset --keep {}`), then {merge}",
                            &old[..old.len().min(12)]
                        ),
                        None => format!("merge the agent's branch with a merge commit of your own: {merge}"),
                    },
                )
            }
        };
        return Decision::deny(
            Code::D001,
            message,
            hint,
            "server.agent_commits_to_protected",
        );
    }
    Decision::allow("a fast-forward of a protected ref")
}

/// Is a footer line present in `message`, for any contract id? `template`
/// is `commit.footer` (`Contract: {contract}`). Read at least as
/// generously as the commit hooks read a footer that is there already, so
/// that no spelling they leave alone passes as a person's commit: any
/// line, blanks around it ignored; a trailer-shaped template matches a
/// trailer whose key is its key in any case, with any blanks around the
/// `:` (`contract :c1`); every `{contract}` stands for the same id.
pub fn footer_in(message: &str, template: &str) -> bool {
    footer_contract(message, template).is_some()
}

/// The contract id the last footer line in `message` names (a commit
/// rewritten by another contract gets its footer after the first one),
/// read as [`footer_in`] reads footers.
pub fn footer_contract<'a>(message: &'a str, template: &str) -> Option<&'a str> {
    let template = template.trim();
    let wanted = trailer_parts(template);
    message.lines().rev().find_map(|line| {
        let line = line.trim();
        match (wanted, trailer_parts(line)) {
            (Some((key, value)), Some((k, v))) if key.eq_ignore_ascii_case(k) => fills(v, value),
            (Some(_), _) => None,
            (None, _) => fills(line, template),
        }
    })
}

/// A trailer's key and value, blanks around both taken off, when `line`
/// is `Key: value` as git's trailer code reads it (letters, digits and
/// `-`, perhaps blanks, then the `:`).
fn trailer_parts(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = key.trim_end();
    let shaped = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    shaped.then(|| (key, value.trim()))
}

/// The id when `text` is the `template` with each `{contract}` one and
/// the same valid id.
fn fills<'a>(text: &'a str, template: &str) -> Option<&'a str> {
    let (prefix, _) = template.split_once("{contract}")?;
    let rest = text.strip_prefix(prefix)?;
    rest.char_indices()
        .map(|(at, c)| at + c.len_utf8())
        .take(crate::policy::MAX_CONTRACT_LEN)
        .map(|end| &rest[..end])
        .find(|id| crate::policy::valid_contract(id) && text == template.replace("{contract}", id))
}

fn display(refname: &str) -> String {
    short_name(refname).map_or_else(|| refname.to_string(), |s| s.into_owned())
}

#[cfg(test)]
#[path = "refs_tests.rs"]
mod tests;
