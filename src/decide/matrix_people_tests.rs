//! The decision matrix for people and the hooks: who the rules bind, refs
//! a person meets only in the hooks, syncing in the hook.

use super::matrix_support::*;
use super::*;

#[test]
fn the_matrix_for_people() {
    let Policies {
        default, everyone, ..
    } = policies();

    let rows: Vec<(&str, &Policy, Action, Facts, Want)> = vec![
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
            writes_ref(
                "update-ref",
                "refs/remotes/origin/main",
                RefOp::Update,
                None,
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "update-ref refs/remotes/origin/feat",
            &default,
            writes_ref(
                "update-ref",
                "refs/remotes/origin/feat",
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
            dry_run(push(&[("main", "main", false, false)], false)),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "push --dry-run origin feat",
            &default,
            dry_run(push(&[("feat", "feat", false, false)], false)),
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
            commit_hooks_off("commit --no-verify skips the pre-commit and commit-msg hooks"),
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
            repoint_main_upstream(),
            human("feat"),
            Want::Allow,
        ),
        (
            "everyone: agent re-points main's upstream",
            &everyone,
            repoint_main_upstream(),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human writes into the git directory",
            &everyone,
            Action::mutating("diff"),
            writes_git_dir("/r/.git/x", human("feat")),
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
            moves_current("reset", Some("origin/main")),
            fast_forward(human("main")),
            Want::Allow,
        ),
        (
            "everyone: human resets main to its upstream, not a fast-forward",
            &everyone,
            moves_current("reset", Some("origin/main")),
            human("main"),
            Want::Deny(Code::D001),
        ),
        (
            "everyone: human resets main elsewhere",
            &everyone,
            moves_current("reset", Some("feat")),
            fast_forward(human("main")),
            Want::Deny(Code::D001),
        ),
        (
            "agent resets main to its upstream, a fast-forward",
            &default,
            moves_current("reset", Some("origin/main")),
            fast_forward(agent("main", Some("c1"))),
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
    check(rows);
}
