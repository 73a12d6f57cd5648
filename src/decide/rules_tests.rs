//! One rule each: a policy that fails to load, pushes, what protected
//! branches sync from, the tool's own steps, refs a command does not name,
//! the hints of refused pushes and refs, a detached checkout.

use super::*;

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
