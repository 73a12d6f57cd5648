//! Commits on a protected branch: the switch, the refusals and their hints,
//! syncing, and what the rule names where a command stays.

use super::*;

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
