//! The decision matrix as a table: one row per cell and per rule.

use super::hints::HINT_PROTECTED_REF;
use super::*;
use crate::action::{CheckoutTarget, Push, PushDest, RefOp, RefTarget, RefWrite};
use crate::policy::Layer;

/// What a row expects.
#[derive(Debug, PartialEq)]
enum Want {
    Allow,
    Checkpoint,
    /// Allowed; checkpointed first if a staged version would be lost.
    SaveStaged,
    /// Switched, then checkpointed.
    SwitchCheckpoint(&'static str),
    Deny(Code),
    Switch(&'static str),
}

fn outcome(d: &Decision) -> Want {
    match &d.verdict {
        Verdict::Allow if d.checkpoint => Want::Checkpoint,
        Verdict::Allow if d.save_staged => Want::SaveStaged,
        Verdict::Allow => Want::Allow,
        Verdict::Deny(e) => Want::Deny(e.code),
        Verdict::Switch(b) if d.checkpoint => {
            Want::SwitchCheckpoint(Box::leak(b.clone().into_boxed_str()))
        }
        Verdict::Switch(b) => Want::Switch(Box::leak(b.clone().into_boxed_str())),
    }
}

fn policy(extra: &str) -> Policy {
    Policy::built_in()
        .with_layer(extra, Layer::BuiltIn)
        .unwrap()
}

fn commit() -> Action {
    Action {
        creates_commits: true,
        ..Action::mutating("commit")
    }
}

/// A commit-making command other than `commit`.
fn commit_like(cmd: &str) -> Action {
    Action {
        creates_commits: true,
        ..Action::mutating(cmd)
    }
}

fn ref_write(cmd: &str, target: RefTarget, op: RefOp, start: Option<&str>) -> Action {
    Action {
        refs: vec![RefWrite {
            target,
            op,
            start: start.map(str::to_string),
        }],
        ..Action::mutating(cmd)
    }
}

fn named(r: &str) -> RefTarget {
    RefTarget::Named(r.to_string())
}

fn destructive(cmd: &str) -> Action {
    Action {
        destructive: Some(format!("{cmd} can destroy work")),
        ..Action::mutating(cmd)
    }
}

fn push(dests: &[(&str, &str, bool, bool)], force: bool) -> Action {
    Action {
        push: Some(Push {
            remote: Some("origin".into()),
            dests: dests
                .iter()
                .map(|(src, dst, plus, delete)| PushDest {
                    src: src.to_string(),
                    dst: Some(dst.to_string()),
                    force: *plus,
                    delete: *delete,
                })
                .collect(),
            force,
            ..Push::default()
        }),
        ..Action::mutating("push")
    }
}

fn checkout(target: CheckoutTarget) -> Action {
    Action {
        checkout: Some(target),
        ..Action::mutating("checkout")
    }
}

fn agent(branch: &str, contract: Option<&str>) -> Facts {
    Facts::agent_on(branch, contract)
}

/// `facts`, with the push reaching `main` on the remote, whose value
/// there differs (`Some(true)`) or is not known (`None`).
fn reaching_main(facts: Facts, changes: Option<bool>) -> Facts {
    Facts {
        reach: Reach {
            pushed: vec![("refs/heads/main".to_string(), changes)],
            ..Reach::default()
        },
        ..facts
    }
}

fn human(branch: &str) -> Facts {
    Facts {
        actor: Actor::Human,
        ..Facts::agent_on(branch, None)
    }
}

fn detached() -> Facts {
    Facts {
        head: Some(Head::Detached),
        ..Facts::agent_on("x", Some("c1"))
    }
}

#[test]
fn the_matrix() {
    let default = policy("");
    let off = policy("[capabilities]\nensure_working_branch = false\n");
    let others = policy("[capabilities]\nensure_working_branch = [\"team-*\"]\n");
    let everyone = policy("[enforce]\nactors = \"everyone\"\n");
    let no_sync = policy("[branches]\nsync_from_upstream = false\n");
    let no_checkpoint = policy("[checkpoint]\nbefore_destructive = false\n");
    let keep_env = policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    let keep_env_off =
        policy("[checkpoint]\ninclude_ignored = [\".env\"]\nbefore_destructive = false\n");
    let lax_checkout = policy("[checkout]\nlocal_only = false\n");
    let no_verify_ok = policy("[enforce]\nallow_no_verify = true\n");
    let read_override = policy("[commands]\nread = [\"lfs\"]\n");
    let agent_protected = policy("[branches]\nprotected = [\"main\", \"agent/*\"]\n");
    let read_alias = policy("[commands]\nread = [\"lg\"]\n");
    let unknown_read = policy("[commands]\nunknown = \"read\"\n");

    let rows: Vec<(&str, &Policy, Action, Facts, Want)> = vec![
        // Read-only: any branch, any capability, any contract.
        (
            "read on main",
            &default,
            Action::read("status"),
            agent("main", None),
            Want::Allow,
        ),
        (
            "read on main, capability off",
            &off,
            Action::read("log"),
            agent("main", Some("c1")),
            Want::Allow,
        ),
        (
            "read on main with contract never switches",
            &default,
            Action::read("diff"),
            agent("main", Some("c1")),
            Want::Allow,
        ),
        // Commits on a protected branch.
        (
            "commit on main, capability off",
            &off,
            commit(),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        (
            "commit on main, capability for other contracts",
            &others,
            commit(),
            agent("main", Some("c1")),
            Want::Deny(Code::D002),
        ),
        (
            "commit on main, capability for other contracts, no contract",
            &others,
            commit(),
            agent("main", None),
            Want::Deny(Code::D002),
        ),
        (
            "commit on main, capability for this contract",
            &others,
            commit(),
            agent("main", Some("team-1")),
            Want::Switch("agent/team-1"),
        ),
        (
            "commit on main, no contract",
            &default,
            commit(),
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        (
            "commit on main, contract",
            &default,
            commit(),
            agent("main", Some("c1")),
            Want::Switch("agent/c1"),
        ),
        (
            "commit on release/1, contract",
            &default,
            commit(),
            agent("release/1", Some("c1")),
            Want::Switch("agent/c1"),
        ),
        (
            "commit on unborn main, contract",
            &default,
            commit(),
            Facts {
                head: Some(Head::Unborn("main".into())),
                ..agent("main", Some("c1"))
            },
            Want::Switch("agent/c1"),
        ),
        (
            "add on main, no contract",
            &default,
            Action {
                creates_commits: true,
                ..Action::mutating("add")
            },
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        // Protected ref itself moved, rewritten or deleted.
        (
            "reset <rev> on main",
            &default,
            ref_write("reset", RefTarget::Current, RefOp::Update, None),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        (
            "a write the command line cannot name (filter-branch --all), on a feature branch",
            &default,
            ref_write("filter-branch", RefTarget::All, RefOp::Update, None),
            agent("feature", Some("c1")),
            Want::Deny(Code::D001),
        ),
        (
            "rebase on main",
            &default,
            ref_write("rebase", RefTarget::Current, RefOp::Update, None),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        (
            "branch -f main",
            &default,
            ref_write(
                "branch",
                named("refs/heads/main"),
                RefOp::Update,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch -D main",
            &default,
            ref_write("branch", named("refs/heads/main"), RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch -m x main (creates main)",
            &default,
            ref_write("branch", named("refs/heads/main"), RefOp::Create, None),
            agent("x", None),
            Want::Deny(Code::D001),
        ),
        // `origin/main` reads as this branch before the remote-tracking ref.
        (
            "branch origin/main (origin is a remote)",
            &default,
            ref_write(
                "branch",
                named("refs/heads/origin/main"),
                RefOp::Create,
                None,
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch feature/main (no remote feature)",
            &default,
            ref_write(
                "branch",
                named("refs/heads/feature/main"),
                RefOp::Create,
                None,
            ),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "branch -D origin/main",
            &default,
            ref_write(
                "branch",
                named("refs/heads/origin/main"),
                RefOp::Delete,
                None,
            ),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "update-ref -d main",
            &default,
            ref_write("update-ref", named("refs/heads/main"), RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag -f v1 (moves a protected tag)",
            &default,
            ref_write("tag", named("refs/tags/v1"), RefOp::Update, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag -d v1",
            &default,
            ref_write("tag", named("refs/tags/v1"), RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag v2 (creating a protected tag is additive)",
            &default,
            ref_write("tag", named("refs/tags/v2"), RefOp::Create, None),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "protected ref moved even with capability off",
            &off,
            ref_write("reset", RefTarget::Current, RefOp::Update, None),
            agent("main", None),
            Want::Deny(Code::D001),
        ),
        // Syncing a protected branch.
        (
            "checkout -b main origin/main (sync)",
            &default,
            ref_write(
                "checkout",
                named("refs/heads/main"),
                RefOp::Create,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "checkout -b main other (not sync)",
            &default,
            ref_write(
                "checkout",
                named("refs/heads/main"),
                RefOp::Create,
                Some("feat"),
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "fetch origin main:main (sync, may move it)",
            &default,
            Action {
                syncs: true,
                ..ref_write(
                    "fetch",
                    named("refs/heads/main"),
                    RefOp::Update,
                    Some("origin/main"),
                )
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "fetch origin agent/x:main (another branch's value)",
            &default,
            Action {
                syncs: true,
                ..ref_write(
                    "fetch",
                    named("refs/heads/main"),
                    RefOp::Update,
                    Some("origin/agent/x"),
                )
            },
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "fetch <url> main:main (no remote names it)",
            &default,
            Action {
                syncs: true,
                ..ref_write("fetch", named("refs/heads/main"), RefOp::Update, None)
            },
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "sync off: creating main from origin/main",
            &no_sync,
            ref_write(
                "checkout",
                named("refs/heads/main"),
                RefOp::Create,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "pull on main is syncing",
            &default,
            Action {
                syncs: true,
                ..Action::mutating("pull")
            },
            agent("main", None),
            Want::Allow,
        ),
        (
            "fetch on main is syncing",
            &default,
            Action {
                syncs: true,
                ..Action::mutating("fetch")
            },
            agent("main", None),
            Want::Allow,
        ),
        // Sticky agent branches and other branches.
        (
            "commit on agent branch, new contract stays",
            &default,
            commit(),
            agent("agent/c1", Some("c2")),
            Want::Allow,
        ),
        (
            "commit on feature branch stays",
            &default,
            commit(),
            agent("feat/x", Some("c1")),
            Want::Allow,
        ),
        (
            "commit on feature branch, no contract",
            &default,
            commit(),
            agent("feat/x", None),
            Want::Allow,
        ),
        (
            "reset <rev> on feature branch",
            &default,
            ref_write("reset", RefTarget::Current, RefOp::Update, None),
            agent("feat", None),
            Want::Allow,
        ),
        // Detached HEAD.
        (
            "commit on detached HEAD",
            &default,
            commit(),
            detached(),
            Want::Allow,
        ),
        (
            "detached: ref-level check still guards main",
            &default,
            ref_write("branch", named("refs/heads/main"), RefOp::Update, None),
            detached(),
            Want::Deny(Code::D001),
        ),
        (
            "detached: reset moves no branch",
            &default,
            ref_write("reset", RefTarget::Current, RefOp::Update, None),
            detached(),
            Want::Allow,
        ),
        // Pushes.
        (
            "push to main",
            &default,
            push(&[("HEAD", "main", false, false)], false),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "push refs/heads/feat:refs/heads/release/1",
            &default,
            push(
                &[("refs/heads/feat", "refs/heads/release/1", false, false)],
                false,
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "push a tag",
            &default,
            push(&[("refs/tags/v1", "refs/tags/v1", false, false)], false),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "push to own agent branch",
            &default,
            push(&[("HEAD", "agent/c1", false, false)], false),
            agent("agent/c1", None),
            Want::Allow,
        ),
        (
            "force push to agent branch",
            &default,
            push(&[("HEAD", "agent/c1", false, false)], true),
            agent("agent/c1", None),
            Want::Allow,
        ),
        (
            "force push to feature branch",
            &default,
            push(&[("HEAD", "feat", false, false)], true),
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "+refspec to main",
            &default,
            push(&[("main", "main", true, false)], false),
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "+refspec to agent branch",
            &default,
            push(&[("x", "agent/x", true, false)], false),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "push --delete main, agent",
            &default,
            push(&[("", "main", false, true)], false),
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "push :main, human too",
            &default,
            push(&[("", "main", false, true)], false),
            human("feat"),
            Want::Deny(Code::D005),
        ),
        (
            "push --delete feature, human",
            &default,
            push(&[("", "feat", false, true)], false),
            human("feat"),
            Want::Allow,
        ),
        (
            "human pushes to main",
            &default,
            push(&[("HEAD", "main", false, false)], false),
            human("main"),
            Want::Allow,
        ),
        (
            "push --mirror",
            &default,
            Action {
                push: Some(Push {
                    mirror: true,
                    force: true,
                    ..Push::default()
                }),
                ..Action::mutating("push")
            },
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "a mirror remote by configuration",
            &default,
            Action {
                push: Some(Push {
                    mirror: true,
                    force: true,
                    configured_by: Some("remote.origin.mirror".into()),
                    dests: vec![PushDest {
                        dst: Some("agent/x".into()),
                        src: "agent/x".into(),
                        force: false,
                        delete: false,
                    }],
                    ..Push::default()
                }),
                ..Action::mutating("push")
            },
            agent("agent/x", None),
            Want::Deny(Code::D005),
        ),
        (
            "push.default=matching",
            &default,
            Action {
                push: Some(Push {
                    all: true,
                    configured_by: Some("push.default=matching".into()),
                    ..Push::default()
                }),
                ..Action::mutating("push")
            },
            reaching_main(agent("feat", None), None),
            Want::Deny(Code::D001),
        ),
        (
            "plain push, nothing configured to push",
            &default,
            Action {
                push: Some(Push::default()),
                ..Action::mutating("push")
            },
            agent("main", None),
            Want::Allow,
        ),
        // Hooks switched off.
        (
            "commit --no-verify",
            &default,
            Action {
                hooks_off: Some("--no-verify".into()),
                ..commit()
            },
            agent("feat", None),
            Want::Deny(Code::D004),
        ),
        (
            "hooksPath from the environment",
            &default,
            commit(),
            Facts {
                env_hooks_off: Some("GIT_CONFIG_PARAMETERS".into()),
                ..agent("feat", None)
            },
            Want::Deny(Code::D004),
        ),
        (
            "a gate hook another manager replaced",
            &no_verify_ok,
            commit(),
            Facts {
                gates_replaced: Some("git runs /r/.git/hooks/pre-push".into()),
                ..agent("feat", None)
            },
            Want::Deny(Code::D004),
        ),
        (
            "a read while a gate hook is replaced",
            &default,
            Action::read("log"),
            Facts {
                gates_replaced: Some("git runs /r/.git/hooks/pre-push".into()),
                ..agent("feat", None)
            },
            Want::Allow,
        ),
        (
            "a person's commit while a gate hook is replaced",
            &default,
            commit(),
            Facts {
                gates_replaced: Some("git runs /r/.git/hooks/pre-push".into()),
                ..human("feat")
            },
            Want::Allow,
        ),
        (
            "--output into the git directory",
            &no_verify_ok,
            Action {
                effect: Effect::Mutating,
                writes_files: vec![".git/hooks/pre-commit".into()],
                destructive: Some("diff writes it".into()),
                ..Action::read("diff")
            },
            Facts {
                writes_guarded: Some(
                    "writes into the git directory (/r/.git/hooks/pre-commit)".into(),
                ),
                ..agent("main", None)
            },
            Want::Deny(Code::D004),
        ),
        (
            "a person's --output into the git directory",
            &default,
            Action {
                effect: Effect::Mutating,
                writes_files: vec![".git/x".into()],
                destructive: Some("diff writes it".into()),
                ..Action::read("diff")
            },
            Facts {
                writes_guarded: Some("writes into the git directory (/r/.git/x)".into()),
                ..human("main")
            },
            Want::Allow,
        ),
        (
            "--output over a file in the tree, on main",
            &default,
            Action {
                effect: Effect::Mutating,
                writes_files: vec!["a.txt".into()],
                destructive: Some("diff writes it".into()),
                ..Action::read("diff")
            },
            agent("main", None),
            Want::Checkpoint,
        ),
        (
            "--no-verify allowed by policy",
            &no_verify_ok,
            Action {
                hooks_off: Some("--no-verify".into()),
                ..commit()
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "human may --no-verify",
            &default,
            Action {
                hooks_off: Some("--no-verify".into()),
                ..commit()
            },
            human("main"),
            Want::Allow,
        ),
        // Checkout of local branches only.
        (
            "checkout origin/main",
            &default,
            checkout(CheckoutTarget::Remote("origin/main".into())),
            agent("feat", None),
            Want::Deny(Code::D006),
        ),
        (
            "checkout @{-1}",
            &default,
            checkout(CheckoutTarget::Special("@{-1}".into())),
            agent("feat", None),
            Want::Deny(Code::D006),
        ),
        (
            "switch --detach HEAD~0",
            &default,
            checkout(CheckoutTarget::Detach("HEAD~0".into())),
            agent("feat", None),
            Want::Deny(Code::D006),
        ),
        (
            "checkout feature/new-feature",
            &default,
            checkout(CheckoutTarget::Local("feature/new-feature".into())),
            agent("main", None),
            Want::Allow,
        ),
        (
            "checkout remote with local_only off",
            &lax_checkout,
            checkout(CheckoutTarget::Remote("origin/main".into())),
            agent("feat", None),
            Want::Allow,
        ),
        // Destructive commands are checkpointed, then allowed.
        (
            "reset --hard on feature",
            &default,
            destructive("reset"),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "clean -fd on main",
            &default,
            destructive("clean"),
            agent("main", None),
            Want::Checkpoint,
        ),
        // Destructive and commit-making on main: switched, then checkpointed.
        (
            "rm -f on main, contract",
            &default,
            Action {
                creates_commits: true,
                ..destructive("rm")
            },
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        (
            "stash pop on main, contract",
            &default,
            Action {
                creates_commits: true,
                ..destructive("stash")
            },
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        (
            "stash pop on main, contract, checkpoints off",
            &no_checkpoint,
            Action {
                creates_commits: true,
                ..destructive("stash")
            },
            agent("main", Some("c1")),
            Want::Switch("agent/c1"),
        ),
        (
            "rm -f on main, no contract",
            &default,
            Action {
                creates_commits: true,
                ..destructive("rm")
            },
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        (
            "merge on main, ignored files kept",
            &keep_env,
            commit_like("merge"),
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        // Unstaging: a staged version only the index holds is checkpointed.
        (
            "reset (mixed) on main",
            &default,
            Action {
                unstages: true,
                ..Action::mutating("reset")
            },
            agent("main", None),
            Want::SaveStaged,
        ),
        (
            "restore --staged, checkpoints off",
            &no_checkpoint,
            Action {
                unstages: true,
                ..Action::mutating("restore")
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "mixed reset that moves main is denied",
            &default,
            Action {
                unstages: true,
                ..ref_write("reset", RefTarget::Current, RefOp::Update, None)
            },
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // Ignored files the policy keeps, in the way of incoming files.
        (
            "switch, ignored files kept",
            &keep_env,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "merge, ignored files kept",
            &keep_env,
            Action::mutating("merge"),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "worktree remove, ignored files kept",
            &keep_env,
            Action {
                removes_worktree: Some("../wt".into()),
                ..Action::mutating("worktree")
            },
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "worktree remove, no ignored files kept",
            &default,
            Action {
                removes_worktree: Some("../wt".into()),
                ..Action::mutating("worktree")
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "switch, no ignored files kept",
            &default,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "switch, ignored files kept, checkpoints off",
            &keep_env_off,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "commit, ignored files kept",
            &keep_env,
            commit(),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "destructive, checkpoints off",
            &no_checkpoint,
            destructive("clean"),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "destructive on main that moves main is denied",
            &default,
            Action {
                destructive: Some("reset --hard".into()),
                ..ref_write("reset", RefTarget::Current, RefOp::Update, None)
            },
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // Unknown and overridden commands.
        (
            "unknown is mutating: on main, no contract",
            &default,
            Action {
                effect: Effect::Unknown,
                creates_commits: true,
                ..Action::mutating("lfs")
            },
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        (
            "commands.read override",
            &read_override,
            Action {
                effect: Effect::Unknown,
                creates_commits: true,
                ..Action::mutating("lfs")
            },
            agent("main", None),
            Want::Allow,
        ),
        // The agent branch protected too: nowhere to move.
        (
            "commit on main, the agent branch protected",
            &agent_protected,
            commit(),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // An alias the policy calls read-only, as the config files define it.
        (
            "commands.read names a file's alias",
            &read_alias,
            Action {
                alias: Some("lg".into()),
                ..destructive("reset")
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "commands.read names an alias defined for the command alone",
            &read_alias,
            Action {
                alias: Some("lg".into()),
                alias_given: true,
                ..destructive("reset")
            },
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "commands.unknown = read",
            &unknown_read,
            Action {
                effect: Effect::Unknown,
                creates_commits: true,
                ..Action::mutating("lfs")
            },
            agent("main", None),
            Want::Allow,
        ),
        // Humans are not bound unless everyone is.
        (
            "human commits on main",
            &default,
            commit(),
            human("main"),
            Want::Allow,
        ),
        // A remote-tracking ref main syncs to, written by hand.
        (
            "update-ref refs/remotes/origin/main",
            &default,
            ref_write(
                "update-ref",
                named("refs/remotes/origin/main"),
                RefOp::Update,
                None,
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "update-ref refs/remotes/origin/feat",
            &default,
            ref_write(
                "update-ref",
                named("refs/remotes/origin/feat"),
                RefOp::Update,
                None,
            ),
            agent("feat", None),
            Want::Allow,
        ),
        // git runs pre-push for a dry run too: judged alike.
        (
            "push --dry-run origin main",
            &default,
            Action {
                effect: Effect::Read,
                ..push(&[("main", "main", false, false)], false)
            },
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "push --dry-run origin feat",
            &default,
            Action {
                effect: Effect::Read,
                ..push(&[("feat", "feat", false, false)], false)
            },
            agent("feat", None),
            Want::Allow,
        ),
        // What the rules give agents alone a person meets only in the hooks.
        (
            "everyone: human force-pushes a feature branch",
            &everyone,
            push(&[("feat", "feat", false, false)], true),
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: agent force-pushes a feature branch",
            &everyone,
            push(&[("feat", "feat", false, false)], true),
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "everyone: human pushes to main",
            &everyone,
            push(&[("main", "main", false, false)], false),
            human("feat"),
            Want::Deny(Code::D001),
        ),
        // A person meets only the hooks: pre-commit for a commit that runs
        // it, reference-transaction for a command that moves the branch,
        // none for one that writes only the index, files or config.
        (
            "everyone: human commits on main",
            &everyone,
            commit(),
            human("main"),
            Want::Deny(Code::D003),
        ),
        (
            "everyone: human commits --no-verify on main",
            &everyone,
            Action {
                hooks_off: Some(
                    "commit --no-verify skips the pre-commit and commit-msg hooks".into(),
                ),
                ..commit()
            },
            human("main"),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human merges on main",
            &everyone,
            commit_like("merge"),
            human("main"),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human stages on main",
            &everyone,
            commit_like("add"),
            human("main"),
            Want::Allow,
        ),
        (
            "everyone: human re-points main's upstream",
            &everyone,
            Action {
                repoints: vec!["branch.main.merge".into()],
                ..Action::mutating("branch")
            },
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: agent re-points main's upstream",
            &everyone,
            Action {
                repoints: vec!["branch.main.merge".into()],
                ..Action::mutating("branch")
            },
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human writes into the git directory",
            &everyone,
            Action::mutating("diff"),
            Facts {
                writes_guarded: Some("writes into the git directory (/r/.git/x)".into()),
                ..human("feat")
            },
            Want::Allow,
        ),
        // The shim checkpoints an agent's command; a person's git never
        // goes through it.
        (
            "everyone: human resets --hard a feature branch",
            &everyone,
            destructive("reset"),
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: agent resets --hard a feature branch",
            &everyone,
            destructive("reset"),
            agent("feat", None),
            Want::Checkpoint,
        ),
        // A fast-forward of main to its upstream is syncing in the hook; a
        // person meets only the hook, an agent the shim too.
        (
            "everyone: human resets main to its upstream, a fast-forward",
            &everyone,
            ref_write(
                "reset",
                RefTarget::Current,
                RefOp::Update,
                Some("origin/main"),
            ),
            Facts {
                fast_forward: true,
                ..human("main")
            },
            Want::Allow,
        ),
        (
            "everyone: human resets main to its upstream, not a fast-forward",
            &everyone,
            ref_write(
                "reset",
                RefTarget::Current,
                RefOp::Update,
                Some("origin/main"),
            ),
            human("main"),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human resets main elsewhere",
            &everyone,
            ref_write("reset", RefTarget::Current, RefOp::Update, Some("feat")),
            Facts {
                fast_forward: true,
                ..human("main")
            },
            Want::Deny(Code::D001),
        ),
        (
            "agent resets main to its upstream, a fast-forward",
            &default,
            ref_write(
                "reset",
                RefTarget::Current,
                RefOp::Update,
                Some("origin/main"),
            ),
            Facts {
                fast_forward: true,
                ..agent("main", Some("c1"))
            },
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human checks out origin/main",
            &everyone,
            checkout(CheckoutTarget::Remote("origin/main".into())),
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: human switches hooks off",
            &everyone,
            Action {
                hooks_off: Some("config writes core.hooksPath".into()),
                ..Action::mutating("config")
            },
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: human commits on main without contract",
            &everyone,
            commit(),
            human("main"),
            Want::Deny(Code::D003),
        ),
        // No shim moves a person.
        (
            "everyone: human commits on main with a contract",
            &everyone,
            commit(),
            Facts {
                contract: Some("c1".into()),
                ..human("main")
            },
            Want::Deny(Code::D001),
        ),
    ];

    let mut failures = Vec::new();
    for (name, policy, action, facts, want) in rows {
        let got = decide(policy, &action, &facts);
        if outcome(&got) != want {
            failures.push(format!(
                "{name}: want {want:?}, got {:?} ({})",
                outcome(&got),
                got.rule
            ));
        }
        if let Verdict::Deny(e) = &got.verdict {
            assert!(
                e.hint.as_ref().is_some_and(|h| !h.is_empty()),
                "{name}: a denial without a hint"
            );
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_seed_scenarios() {
    let p = policy("");
    // 1. Protected + mutating without capability: denied with D-001.
    let off = policy("[capabilities]\nensure_working_branch = false\n");
    assert_eq!(
        outcome(&decide(&off, &commit(), &agent("main", Some("c1")))),
        Want::Deny(Code::D001)
    );
    // 2. With capability and contract: auto-switch to agent/<contract>.
    assert_eq!(
        outcome(&decide(&p, &commit(), &agent("main", Some("c1")))),
        Want::Switch("agent/c1")
    );
    // 3. Read-only never switches.
    assert_eq!(
        outcome(&decide(
            &p,
            &Action::read("status"),
            &agent("main", Some("c1"))
        )),
        Want::Allow
    );
    // 4. On agent/*, a new contract stays on the same branch.
    assert_eq!(
        outcome(&decide(&p, &commit(), &agent("agent/c1", Some("c2")))),
        Want::Allow
    );
    // 5. On a feature branch the agent stays.
    assert_eq!(
        outcome(&decide(&p, &commit(), &agent("feature", Some("c1")))),
        Want::Allow
    );
}

#[test]
fn an_allowed_rule_names_the_branch_kind_it_was_allowed_on() {
    let p = Policy::built_in();
    let notes = Action::mutating("notes");
    for (branch, rule) in [
        (
            "main",
            "on a protected branch: neither commits nor moves a protected ref",
        ),
        ("agent/c1", "on an agent branch: stay (sticky)"),
        ("feat", "on an unprotected branch: stay"),
    ] {
        let d = decide(&p, &notes, &agent(branch, Some("c1")));
        assert_eq!(
            (outcome(&d), d.rule.as_str()),
            (Want::Allow, rule),
            "{branch}"
        );
    }
}

#[test]
fn d003_message_and_hint_are_the_spec_example() {
    let d = decide(&policy(""), &commit(), &agent("main", None));
    let e = d.denial().unwrap();
    assert_eq!(
        e.render(),
        "ward: denied [EN-GIT-D-003] commit on protected branch 'main' needs an active contract\n\
         hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry\n"
    );
}

#[test]
fn a_broken_policy_fails_closed_for_mutations_only() {
    let err = Error::internal("invalid policy /x:1:1: key `y`: bad");
    assert_eq!(
        outcome(&decide_without_policy(&commit(), &err)),
        Want::Deny(Code::E001)
    );
    assert_eq!(
        outcome(&decide_without_policy(&Action::read("status"), &err)),
        Want::Allow
    );
    let unknown = Action {
        effect: Effect::Unknown,
        ..Action::mutating("lfs")
    };
    assert_eq!(
        outcome(&decide_without_policy(&unknown, &err)),
        Want::Deny(Code::E001)
    );
    // An invalid contract id is the user's argument: I-001, still refused.
    let bad_id = crate::facts::invalid_contract("no good");
    assert_eq!(
        outcome(&decide_without_policy(&commit(), &bad_id)),
        Want::Deny(Code::I001)
    );
}

#[test]
fn a_plumbing_push_is_named_as_itself() {
    let action = Action {
        push: Some(Push {
            all: true,
            ..Push::default()
        }),
        ..Action::mutating("send-pack")
    };
    let facts = reaching_main(agent("agent/c1", Some("c1")), None);
    let d = decide(&Policy::built_in(), &action, &facts);
    let err = d.denial().expect("refused");
    assert_eq!(err.code, Code::D001);
    assert!(
        err.message
            .starts_with("send-pack can write protected ref 'main' on origin"),
        "{}",
        err.message
    );
}

#[test]
fn where_protected_branches_sync_from_is_a_persons_to_set() {
    let default = Policy::built_in();
    let no_sync = policy("[branches]\nsync_from_upstream = false\n");
    let sets = |key: &str| Action {
        repoints: vec![key.to_string()],
        ..Action::mutating("config")
    };
    let rows: &[(&str, &Facts, &Policy, Want)] = &[
        (
            "remote.evil.url",
            &agent("agent/c1", Some("c1")),
            &default,
            Want::Deny(Code::D001),
        ),
        (
            "url./tmp/e.insteadof",
            &agent("agent/c1", None),
            &default,
            Want::Deny(Code::D001),
        ),
        (
            "branch.main.merge",
            &agent("agent/c1", None),
            &default,
            Want::Deny(Code::D001),
        ),
        (
            "branch.release/2.remote",
            &agent("feat", None),
            &default,
            Want::Deny(Code::D001),
        ),
        (
            "branch.agent/c1.merge",
            &agent("agent/c1", None),
            &default,
            Want::Allow,
        ),
        ("remote.evil.url", &human("main"), &default, Want::Allow),
        (
            "remote.evil.url",
            &agent("agent/c1", None),
            &no_sync,
            Want::Allow,
        ),
        (
            "branch.main.merge",
            &agent("main", None),
            &no_sync,
            Want::Allow,
        ),
    ];
    for (key, facts, policy, want) in rows {
        let d = decide(policy, &sets(key), facts);
        assert_eq!(outcome(&d), *want, "{key} {facts:?}");
        if let Some(e) = d.denial() {
            assert!(e.message.contains(key), "{}", e.message);
        }
    }
    // A remote the agent added is its own to re-point, and to rename.
    let own = Facts {
        agent_remotes: vec!["evil".into()],
        ..agent("agent/c1", None)
    };
    assert_eq!(
        outcome(&decide(&default, &sets("remote.evil.url"), &own)),
        Want::Allow
    );
    assert_eq!(
        outcome(&decide(&default, &sets("remote.origin.url"), &own)),
        Want::Deny(Code::D001)
    );
    let rename = |from: &str| Action {
        remote_change: Some(crate::action::RemoteChange::Rename(
            from.into(),
            "up".into(),
        )),
        ..sets("remote.up.url")
    };
    assert_eq!(
        outcome(&decide(&default, &rename("evil"), &own)),
        Want::Allow
    );
    assert_eq!(
        outcome(&decide(&default, &rename("origin"), &own)),
        Want::Deny(Code::D001)
    );
}

#[test]
fn only_a_person_removes_the_hooks() {
    let default = Policy::built_in();
    let lenient = Policy::built_in()
        .with_layer("[enforce]\nallow_no_verify = true\n", Layer::BuiltIn)
        .unwrap();
    for step in [ToolStep::Uninstall, ToolStep::LinkHooks] {
        let code = |p: &Policy, actor| decide_tool(p, actor, step).denial().map(|e| e.code);
        assert_eq!(code(&default, Actor::Agent), Some(Code::D004), "{step:?}");
        assert_eq!(code(&default, Actor::Human), None, "{step:?}");
        assert_eq!(code(&lenient, Actor::Agent), None, "{step:?}");
    }
    // Without a safety checkpoint, whatever the policy; in a git
    // directory, for anyone.
    let safety = |p: &Policy, actor| {
        decide_tool(p, actor, ToolStep::RollbackWithoutSafety)
            .denial()
            .map(|e| e.code)
    };
    assert_eq!(safety(&lenient, Actor::Agent), Some(Code::D004));
    assert_eq!(safety(&default, Actor::Human), None);
    let in_git_dir = ToolStep::WorkspaceInGitDir(std::path::Path::new("/r/.git"));
    assert!(decide_tool(&default, Actor::Human, in_git_dir)
        .denial()
        .is_some());
}

#[test]
fn denial_codes_come_from_this_module_only() {
    // Habit 0 of STYLE.md: only `decide` says no.
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut offenders = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(src)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let in_decide = path.parent().is_some_and(|p| p.ends_with("decide"));
            if in_decide || ["decide.rs", "decide_tests.rs", "error.rs"].contains(&name.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for code in [
                "Code::D001",
                "Code::D002",
                "Code::D003",
                "Code::D004",
                "Code::D005",
                "Code::D006",
                "Code::D007",
                "Code::D008",
            ] {
                if text.contains(code) {
                    offenders.push(format!("{}: {code}", path.display()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "denial codes outside decide.rs: {offenders:?}"
    );
}

#[test]
fn a_write_of_refs_unnamed_says_so() {
    let action = ref_write("fetch", RefTarget::All, RefOp::Update, None);
    let d = decide(&Policy::built_in(), &action, &agent("agent/c1", Some("c1")));
    let err = d.denial().expect("refused");
    assert_eq!(err.code, Code::D001);
    assert_eq!(
        err.message,
        "fetch can write refs its command line does not name, protected ones among them"
    );
}

/// `git merge origin/main` on a `main` behind it is syncing when it
/// fast-forwards (the hook checks the value); otherwise it makes a commit,
/// and the agent moves to its branch as for any other.
#[test]
fn a_fast_forward_to_the_upstream_is_syncing() {
    let merge = Action {
        ff_target: Some("refs/remotes/origin/main".into()),
        ..commit_like("merge")
    };
    let ahead = Facts {
        fast_forward: true,
        ..agent("main", Some("c1"))
    };
    let no_sync = policy("[branches]\nsync_from_upstream = false\n");
    let rows: [(&Action, &Facts, &Policy, Want); 5] = [
        (&merge, &ahead, &Policy::built_in(), Want::Allow),
        (
            &merge,
            &agent("main", Some("c1")),
            &Policy::built_in(),
            Want::Switch("agent/c1"),
        ),
        (&merge, &ahead, &no_sync, Want::Switch("agent/c1")),
        (
            &commit_like("merge"),
            &ahead,
            &Policy::built_in(),
            Want::Switch("agent/c1"),
        ),
        (
            &merge,
            &Facts {
                fast_forward: true,
                ..agent("main", None)
            },
            &Policy::built_in(),
            Want::Allow,
        ),
    ];
    for (i, (action, facts, policy, want)) in rows.into_iter().enumerate() {
        assert_eq!(outcome(&decide(policy, action, facts)), want, "row {i}");
    }
}

/// The agent branch checked out in another worktree: git would not move
/// this one onto it, so the commit is refused up front, saying where it is.
#[test]
fn an_agent_branch_checked_out_elsewhere_is_refused_up_front() {
    let elsewhere = Facts {
        checked_out_elsewhere: vec![("agent/c1".into(), "/w/wt".into())],
        ..agent("main", Some("c1"))
    };
    let d = decide(&Policy::built_in(), &commit(), &elsewhere);
    assert_eq!(outcome(&d), Want::Deny(Code::D001));
    assert!(d.denial().unwrap().message.contains("/w/wt"));
    let other = Facts {
        checked_out_elsewhere: vec![("agent/c2".into(), "/w/wt".into())],
        ..agent("main", Some("c1"))
    };
    assert_eq!(
        outcome(&decide(&Policy::built_in(), &commit(), &other)),
        Want::Switch("agent/c1")
    );
}

/// A `pull` that would merge runs fast-forward only on a protected branch
/// (syncing), and as typed anywhere else.
#[test]
fn a_pull_on_a_protected_branch_only_fast_forwards() {
    let pull = Action {
        syncs: true,
        pull_integrates: true,
        ..Action::mutating("pull")
    };
    let p = Policy::built_in();
    assert!(decide(&p, &pull, &agent("main", Some("c1"))).fast_forward_only);
    assert!(!decide(&p, &pull, &agent("agent/c1", Some("c1"))).fast_forward_only);
    let no_sync = policy("[branches]\nsync_from_upstream = false\n");
    assert!(!decide(&no_sync, &pull, &agent("main", Some("c1"))).fast_forward_only);
}

/// A merge in progress on a protected branch: the move to the agent branch
/// would end it (its commit made there with one parent), so it is refused.
#[test]
fn a_merge_in_progress_on_a_protected_branch_is_not_carried_off() {
    let merging = Facts {
        in_progress: Some("merge"),
        ..agent("main", Some("c1"))
    };
    let d = decide(&Policy::built_in(), &commit(), &merging);
    assert_eq!(outcome(&d), Want::Deny(Code::D001));
    assert!(d
        .denial()
        .unwrap()
        .hint
        .as_deref()
        .unwrap()
        .contains("git merge --abort"));
    let on_own = Facts {
        in_progress: Some("merge"),
        ..agent("agent/c1", Some("c1"))
    };
    assert_eq!(
        outcome(&decide(&Policy::built_in(), &commit(), &on_own)),
        Want::Allow
    );
}

fn hint(d: &Decision) -> &str {
    d.denial()
        .and_then(|e| e.hint.as_deref())
        .expect("a denial with a hint")
}

/// Nothing moves a person off a protected branch (their git never goes
/// through the shim), nor an agent whose commit a hook judges: they are
/// told to switch to a branch of their own, the agent branch when there
/// is a contract, never only to start one (which would not move them
/// either). The code stays the matrix's: no contract is EN-GIT-D-003.
#[test]
fn a_commit_nothing_can_move_is_told_to_switch_itself() {
    let everyone = policy("[enforce]\nactors = \"everyone\"\n");
    let bot = policy("[enforce]\nactors = \"everyone\"\n[branches]\nagent_prefix = \"bot/\"\n");
    let with = |facts: Facts, contract: &str| Facts {
        contract: Some(contract.into()),
        ..facts
    };
    let in_hook = |facts: Facts| Facts {
        in_hook: true,
        ..facts
    };
    let exists = |facts: Facts| Facts {
        agent_branch_exists: true,
        ..facts
    };
    let rows: [(&Policy, Facts, Code, &str); 6] = [
        (&everyone, human("main"), Code::D003, "work on a branch of your own (`git switch -c <name>`), then retry"),
        (&bot, with(human("main"), "c1"), Code::D001, "work on a branch of your own (`git switch -c bot/c1`), then retry"),
        (&everyone, exists(with(human("main"), "c1")), Code::D001, "work on a branch of your own (`git switch agent/c1`), then retry"),
        (
            &everyone,
            in_hook(agent("main", None)),
            Code::D003,
            "work on a branch of your own (`git switch -c <name>`), then retry; or start a contract (`git ward contract start <id>`) and commit through the git-ward shim, which moves you",
        ),
        (
            &everyone,
            in_hook(with(agent("main", None), "c1")),
            Code::D001,
            "work on a branch of your own (`git switch -c agent/c1`), then retry; the git-ward shim does this for you",
        ),
        (
            &everyone,
            exists(in_hook(with(agent("main", None), "c1"))),
            Code::D001,
            "work on a branch of your own (`git switch agent/c1`), then retry; the git-ward shim does this for you",
        ),
    ];
    for (i, (p, facts, code, want)) in rows.into_iter().enumerate() {
        let d = decide(p, &commit(), &facts);
        assert_eq!(outcome(&d), Want::Deny(code), "row {i}");
        assert_eq!(hint(&d), want, "row {i}");
    }
    // `git ward save` moves HEAD itself, for a person too.
    let saving = Facts {
        saving: true,
        ..with(human("main"), "c1")
    };
    assert_eq!(
        outcome(&decide(&everyone, &commit(), &saving)),
        Want::Switch("agent/c1")
    );
}

/// A contract from `WARD_CONTRACT` outranks `git ward contract start`: the
/// hint says which to change.
#[test]
fn a_contract_from_the_environment_is_changed_there() {
    let others = policy("[capabilities]\nensure_working_branch = [\"team-*\"]\n");
    let from_file = agent("main", Some("foo"));
    let d = decide(&others, &commit(), &from_file);
    assert_eq!(outcome(&d), Want::Deny(Code::D002));
    assert!(hint(&d).contains("git ward contract start"), "{}", hint(&d));
    let from_env = Facts {
        contract_from_env: true,
        ..from_file
    };
    let d = decide(&others, &commit(), &from_env);
    assert!(
        hint(&d).contains("set WARD_CONTRACT to a contract that"),
        "{}",
        hint(&d)
    );
    assert!(!hint(&d).contains("contract start"), "{}", hint(&d));
}

/// The way back to the agent branch after aborting what is in progress
/// checks it out where it exists (`git switch -c` would refuse).
#[test]
fn an_in_progress_hint_switches_to_an_agent_branch_that_exists() {
    let merging = Facts {
        in_progress: Some("merge"),
        ..agent("main", Some("c1"))
    };
    let d = decide(&Policy::built_in(), &commit(), &merging);
    assert!(
        hint(&d).ends_with("(`git switch -c agent/c1`)"),
        "{}",
        hint(&d)
    );
    let exists = Facts {
        agent_branch_exists: true,
        ..merging
    };
    let d = decide(&Policy::built_in(), &commit(), &exists);
    assert!(
        hint(&d).ends_with("(`git switch agent/c1`)"),
        "{}",
        hint(&d)
    );
}

/// Push hints name the remote the command named, the policy's agent
/// prefix and the contract; force-pushing the agent branch is offered
/// only where `push.force_allowed` lets it, and a tag is a person's.
#[test]
fn push_hints_name_the_remote_and_the_agent_branch() {
    let bot = policy("[branches]\nagent_prefix = \"bot/\"\n");
    let bot_forced =
        policy("[branches]\nagent_prefix = \"bot/\"\n[push]\nforce_allowed = [\"bot/*\"]\n");
    let to = |remote: &str, action: Action| Action {
        push: action.push.map(|p| Push {
            remote: Some(remote.into()),
            ..p
        }),
        ..action
    };
    let c1 = agent("bot/c1", Some("c1"));
    let c1_main_moves = reaching_main(agent("bot/c1", Some("c1")), Some(true));
    let rows: [(&Policy, Action, &Facts, &str); 6] = [
        (
            &bot,
            to("up", push(&[("HEAD", "main", false, false)], false)),
            &c1,
            "push to a branch of your own (`git push up HEAD:bot/c1`) and open a merge request",
        ),
        (
            &Policy::built_in(),
            push(&[("HEAD", "main", false, false)], false),
            &agent("feat", None),
            "push to a branch of your own (`git push origin HEAD:agent/<contract>`) and open a merge request",
        ),
        (
            &bot,
            to("up", push(&[("bot/c1", "bot/c1", false, false)], true)),
            &c1,
            "push without force; push.force_allowed does not cover your agent branch 'bot/c1' either",
        ),
        (
            &bot_forced,
            to("up", push(&[("HEAD", "feat", false, false)], true)),
            &c1,
            "push without force, or force-push only to your own agent branch (`git push --force up bot/c1`)",
        ),
        (
            &bot,
            to("up", push(&[("refs/tags/v2", "refs/tags/v2", false, false)], false)),
            &c1,
            "tags are a person's to push; push your branch without them (`git push --no-follow-tags up bot/c1`)",
        ),
        (
            &bot,
            Action {
                push: Some(Push {
                    remote: Some("up".into()),
                    all: true,
                    ..Push::default()
                }),
                ..Action::mutating("push")
            },
            &c1_main_moves,
            "push one branch of your own by name: `git push up bot/c1`",
        ),
    ];
    for (i, (p, action, facts, want)) in rows.into_iter().enumerate() {
        assert_eq!(hint(&decide(p, &action, facts)), want, "row {i}");
    }
    // A force push of the agent branch that the setting covers passes.
    let own = to("up", push(&[("bot/c1", "bot/c1", false, false)], true));
    assert_eq!(outcome(&decide(&bot_forced, &own, &c1)), Want::Allow);
}

/// A protected ref's refusal says what fits its kind: a new tag for a
/// tag, the fast-forward for a branch put to its upstream's value.
#[test]
fn protected_ref_hints_fit_the_ref() {
    let p = Policy::built_in();
    let tags = policy("[branches]\nprotected = [\"main\", \"tags/*\"]\n");
    let c1 = agent("main", Some("c1"));
    let rows: [(&Policy, Action, &Facts, &str); 5] = [
        (
            &tags,
            ref_write("tag", named("refs/tags/v1"), RefOp::Update, Some("origin/main")),
            &c1,
            "protected tags are never moved or deleted; create a new tag instead",
        ),
        (
            &p,
            ref_write("reset", RefTarget::Current, RefOp::Update, Some("origin/main")),
            &c1,
            "a protected branch moves to its upstream only by a fast-forward: `git merge --ff-only origin/main` (or `git pull --ff-only`); other changes go on a branch of your own",
        ),
        (
            &p,
            ref_write("branch", named("refs/heads/main"), RefOp::Update, Some("origin/main")),
            &agent("feat", Some("c1")),
            "a protected branch moves to its upstream only by a fast-forward: `git switch main`, then `git merge --ff-only origin/main` (or `git pull --ff-only`); other changes go on a branch of your own",
        ),
        (
            &p,
            ref_write("reset", RefTarget::Current, RefOp::Update, Some("HEAD~1")),
            &c1,
            HINT_PROTECTED_REF,
        ),
        (
            &p,
            ref_write("update-ref", named("refs/heads/main"), RefOp::Delete, Some("origin/main")),
            &c1,
            HINT_PROTECTED_REF,
        ),
    ];
    for (i, (p, action, facts, want)) in rows.into_iter().enumerate() {
        let d = decide(p, &action, facts);
        assert_eq!(outcome(&d), Want::Deny(Code::D001), "row {i}");
        assert_eq!(hint(&d), want, "row {i}");
    }
}

/// A detached checkout is refused as such: not as a branch that is not
/// local (`switch --detach main` names a local one).
#[test]
fn a_detached_checkout_is_refused_as_one() {
    let p = Policy::built_in();
    let d = decide(
        &p,
        &checkout(CheckoutTarget::Detach("main".into())),
        &agent("feat", None),
    );
    let e = d.denial().expect("refused");
    assert_eq!(e.code, Code::D006);
    assert_eq!(
        e.message,
        "agents work on a local branch, not a detached HEAD (at 'main')"
    );
    assert_eq!(
        hint(&d),
        "make a branch of your own there (`git switch -c <name> main`), or check out 'main' if it is a local branch (`git switch main`)"
    );
    let d = decide(
        &p,
        &checkout(CheckoutTarget::Detach("HEAD".into())),
        &agent("feat", None),
    );
    assert_eq!(
        d.denial().unwrap().message,
        "agents work on a local branch, not a detached HEAD"
    );
    assert!(!hint(&d).contains("local branches only"));
}
