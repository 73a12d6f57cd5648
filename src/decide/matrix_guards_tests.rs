//! The decision matrix of the guards: pushes, hooks switched off, checkouts
//! of local branches only.

use super::*;

#[test]
fn the_matrix_of_guards() {
    let default = policy("");
    let lax_checkout = policy("[checkout]\nlocal_only = false\n");
    let no_verify_ok = policy("[enforce]\nallow_no_verify = true\n");

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
    ];
    check(rows);
}
