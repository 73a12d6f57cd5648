//! The decision matrix of the guards: pushes, hooks switched off, checkouts
//! of local branches only.

use super::matrix_support::*;
use super::*;

#[test]
fn the_matrix_of_guards() {
    let Policies {
        default,
        lax_checkout,
        no_verify_ok,
        ..
    } = policies();

    let rows: Vec<(&str, &Policy, Action, Facts, Want)> = vec![
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
            mirror_push(Push::default()),
            agent("feat", None),
            Want::Deny(Code::D005),
        ),
        (
            "a mirror remote by configuration",
            &default,
            mirror_push(Push {
                configured_by: Some("remote.origin.mirror".into()),
                dests: vec![PushDest {
                    dst: Some("agent/x".into()),
                    src: "agent/x".into(),
                    force: false,
                    delete: false,
                }],
                ..Push::default()
            }),
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
            commit_hooks_off("--no-verify"),
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
            gate_replaced(agent("feat", None)),
            Want::Deny(Code::D004),
        ),
        (
            "a read while a gate hook is replaced",
            &default,
            Action::read("log"),
            gate_replaced(agent("feat", None)),
            Want::Allow,
        ),
        (
            "a person's commit while a gate hook is replaced",
            &default,
            commit(),
            gate_replaced(human("feat")),
            Want::Allow,
        ),
        (
            "--output into the git directory",
            &no_verify_ok,
            diff_output(".git/hooks/pre-commit"),
            writes_git_dir("/r/.git/hooks/pre-commit", agent("main", None)),
            Want::Deny(Code::D004),
        ),
        (
            "a person's --output into the git directory",
            &default,
            diff_output(".git/x"),
            writes_git_dir("/r/.git/x", human("main")),
            Want::Allow,
        ),
        (
            "--output over a file in the tree, on main",
            &default,
            diff_output("a.txt"),
            agent("main", None),
            Want::Checkpoint,
        ),
        (
            "--no-verify allowed by policy",
            &no_verify_ok,
            commit_hooks_off("--no-verify"),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "human may --no-verify",
            &default,
            commit_hooks_off("--no-verify"),
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
    ];
    check(rows);
}
