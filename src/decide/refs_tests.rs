//! The ref-level rules as a table: a change, a push line or a received
//! ref, and the decision.

use super::*;
use crate::policy::Layer;

fn policy(extra: &str) -> Policy {
    Policy::built_in()
        .with_layer(extra, Layer::BuiltIn)
        .unwrap()
}

const A: &str = "1111111111111111111111111111111111111111";
const B: &str = "2222222222222222222222222222222222222222";

fn change(refname: &str, current: Option<&str>, new: Option<&str>) -> RefChange {
    RefChange {
        refname: refname.into(),
        current: current.map(Into::into),
        new: new.map(Into::into),
        fast_forward: true,
        ..RefChange::default()
    }
}

/// A change of a remote-tracking ref of a configured remote.
fn tracking(refname: &str, branch: &str, current: Option<&str>, new: Option<&str>) -> RefChange {
    RefChange {
        tracked: vec![branch.to_string()],
        ..change(refname, current, new)
    }
}

fn code(d: &Decision) -> Option<Code> {
    d.denial().map(|e| e.code)
}

#[test]
fn transaction_rules_as_a_table() {
    let p = policy("");
    let sync = RefChange {
        matches_upstream: true,
        ..change("refs/heads/main", Some(A), Some(B))
    };
    let sync_not_ff = RefChange {
        fast_forward: false,
        ..sync.clone()
    };
    let fetched = RefChange {
        fetched: true,
        ..tracking("refs/remotes/origin/main", "main", Some(A), Some(B))
    };
    let prune = RefChange {
        pruning: true,
        ..change("refs/heads/main", Some(A), None)
    };
    let rows: Vec<(RefChange, Actor, Option<Code>)> = vec![
        (
            change("refs/heads/main", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/heads/main", Some(A), Some(B)),
            Actor::Human,
            None,
        ),
        (
            change("refs/heads/main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/heads/main", Some(A), None),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/heads/main", Some(A), Some(A)),
            Actor::Agent,
            None,
        ),
        (change("refs/heads/main", None, None), Actor::Agent, None),
        (
            change("refs/heads/release/2", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/heads/agent/c1", Some(A), Some(B)),
            Actor::Agent,
            None,
        ),
        (change("refs/heads/feat", Some(A), None), Actor::Agent, None),
        // A protected branch syncs to its remote-tracking refs: only
        // a fetch of that branch from that remote writes them.
        (
            tracking("refs/remotes/origin/main", "main", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            tracking("refs/remotes/origin/main", "main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            tracking("refs/remotes/a/b/release/2", "release/2", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (fetched.clone(), Actor::Agent, None),
        // A ref outside refs/ is a file in the git directory.
        (
            change("ward/policy.toml", None, Some(B)),
            Actor::Agent,
            Some(Code::D004),
        ),
        (
            change("ward/policy.toml", Some(A), None),
            Actor::Agent,
            Some(Code::D004),
        ),
        (
            change("ward/policy.toml", None, Some(B)),
            Actor::Human,
            None,
        ),
        (
            change("main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (change("ORIG_HEAD", None, Some(B)), Actor::Agent, None),
        // A tag or a ref under refs/ named like a protected branch
        // is what git reads for that name.
        (
            change("refs/tags/main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/release/2", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (change("refs/main", Some(A), None), Actor::Agent, None),
        (change("refs/tags/main", None, Some(B)), Actor::Human, None),
        (change("refs/tags/v9", None, Some(B)), Actor::Agent, None),
        (
            change("refs/tags/origin/main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/origin/main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/tags/origin/feat", None, Some(B)),
            Actor::Agent,
            None,
        ),
        (
            change("refs/notes/commits", None, Some(B)),
            Actor::Agent,
            None,
        ),
        // A branch named like origin's main (the hook read `tracked`).
        (
            tracking("refs/heads/origin/main", "main", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            tracking("refs/heads/origin/main", "main", None, Some(B)),
            Actor::Human,
            None,
        ),
        (
            change("refs/heads/feature/main", None, Some(B)),
            Actor::Agent,
            None,
        ),
        // git's own names: read only as `prefetch/remotes/origin/main`.
        (
            change("refs/prefetch/remotes/origin/main", None, Some(B)),
            Actor::Agent,
            None,
        ),
        (
            change("refs/rewritten/main", None, Some(B)),
            Actor::Agent,
            None,
        ),
        // A replacement changes what every commit reads as.
        (
            change("refs/replace/1111", None, Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/replace/1111", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/replace/1111", Some(A), None),
            Actor::Agent,
            None,
        ),
        (
            change("refs/replace/1111", None, Some(B)),
            Actor::Human,
            None,
        ),
        // Not a configured remote's: nothing syncs to it.
        (
            change("refs/remotes/nowhere/main", Some(A), Some(B)),
            Actor::Agent,
            None,
        ),
        (
            tracking("refs/remotes/origin/main", "main", Some(A), Some(B)),
            Actor::Human,
            None,
        ),
        (
            tracking("refs/remotes/origin/main", "main", Some(A), None),
            Actor::Agent,
            None,
        ),
        (
            tracking("refs/remotes/origin/feat", "feat", Some(A), Some(B)),
            Actor::Agent,
            None,
        ),
        (
            tracking("refs/remotes/origin/HEAD", "HEAD", Some(A), Some(B)),
            Actor::Agent,
            None,
        ),
        (change("refs/tags/v1", None, Some(A)), Actor::Agent, None),
        // A symbolic protected tag moves with what it points to.
        (
            change("refs/tags/v1", None, Some("ref:refs/heads/feat")),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/tags/v1", None, Some("ref:refs/heads/feat")),
            Actor::Human,
            None,
        ),
        (
            change("refs/tags/v1", Some(A), Some(B)),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            change("refs/tags/v1", Some(A), None),
            Actor::Agent,
            Some(Code::D001),
        ),
        (sync.clone(), Actor::Agent, None),
        (
            RefChange {
                current: None,
                ..sync.clone()
            },
            Actor::Agent,
            None,
        ),
        (sync_not_ff, Actor::Agent, Some(Code::D001)),
        (prune, Actor::Agent, None),
    ];
    for (row, actor, want) in rows {
        assert_eq!(
            code(&decide_ref_change(&p, actor, "git.x", &row)),
            want,
            "{row:?} {actor:?}"
        );
        if never_denied(&row, guarded(&row, |r| p.is_protected(r))) {
            assert_eq!(want, None, "the quick path must agree: {row:?}");
        }
    }
    let no_sync = policy("[branches]\nsync_from_upstream = false\n");
    assert_eq!(
        code(&decide_ref_change(&no_sync, Actor::Agent, "git.x", &sync)),
        Some(Code::D001)
    );
    let tracking = tracking("refs/remotes/origin/main", "main", Some(A), Some(B));
    assert_eq!(
        code(&decide_ref_change(
            &no_sync,
            Actor::Agent,
            "git.x",
            &tracking
        )),
        None,
        "nothing syncs to it"
    );
    let everyone = policy("[enforce]\nactors = \"everyone\"\n");
    assert_eq!(
        code(&decide_ref_change(
            &everyone,
            Actor::Human,
            "git.x",
            &change("refs/heads/main", Some(A), Some(B))
        )),
        Some(Code::D001)
    );
}

#[test]
fn push_rules_as_a_table() {
    let p = policy("");
    let up = |r: &str, old: Option<&str>, new: Option<&str>, ff: bool| PushUpdate {
        refname: r.into(),
        old: old.map(Into::into),
        new: new.map(Into::into),
        fast_forward: ff,
    };
    let rows = [
        (
            up("refs/heads/main", Some(A), Some(B), true),
            Actor::Agent,
            Some(Code::D001),
        ),
        (
            up("refs/heads/main", Some(A), Some(B), true),
            Actor::Human,
            None,
        ),
        (
            up("refs/heads/main", Some(A), None, true),
            Actor::Human,
            Some(Code::D005),
        ),
        (
            up("refs/heads/main", Some(A), Some(B), false),
            Actor::Agent,
            Some(Code::D005),
        ),
        (
            up("refs/heads/feat", Some(A), Some(B), false),
            Actor::Agent,
            Some(Code::D005),
        ),
        (
            up("refs/heads/feat", Some(A), Some(B), false),
            Actor::Human,
            None,
        ),
        (
            up("refs/heads/agent/c1", Some(A), Some(B), false),
            Actor::Agent,
            None,
        ),
        (
            up("refs/heads/feat", None, Some(B), false),
            Actor::Agent,
            None,
        ),
        (
            up("refs/heads/feat", Some(A), None, true),
            Actor::Agent,
            None,
        ),
        (
            up("refs/tags/v1", None, Some(B), true),
            Actor::Agent,
            Some(Code::D001),
        ),
    ];
    for (row, actor, want) in rows {
        assert_eq!(
            code(&decide_push_update(&p, actor, &row, "origin", None)),
            want,
            "{row:?} {actor:?}"
        );
    }
}

/// pre-push's hints name the remote the push named, the policy's
/// agent prefix and the contract.
#[test]
fn push_update_hints_name_the_remote_and_the_agent_branch() {
    let bot = policy("[branches]\nagent_prefix = \"bot/\"\n");
    let up = |r: &str, ff: bool| PushUpdate {
        refname: r.into(),
        old: Some(A.into()),
        new: Some(B.into()),
        fast_forward: ff,
    };
    let hint = |u: &PushUpdate, contract| {
        decide_push_update(&bot, Actor::Agent, u, "up", contract)
            .denial()
            .and_then(|e| e.hint.clone())
            .unwrap()
    };
    assert_eq!(
        hint(&up("refs/heads/main", true), Some("c1")),
        "push to a branch of your own (`git push up HEAD:bot/c1`) and open a merge request"
    );
    assert_eq!(
        hint(&up("refs/tags/v1", true), None),
        "tags are a person's to push; push your branch without them (`git push --no-follow-tags up bot/<contract>`)"
    );
    assert_eq!(
        hint(&up("refs/heads/bot/c1", false), Some("c1")),
        "push without force; push.force_allowed does not cover your agent branch 'bot/c1' either"
    );
}

#[test]
fn receive_rules_as_a_table() {
    let up = |r: &str, old: Option<&str>, new: Option<&str>, ff: bool| PushUpdate {
        refname: r.into(),
        old: old.map(Into::into),
        new: new.map(Into::into),
        fast_forward: ff,
    };
    let none = ReceiveFacts::default();
    let merged = ReceiveFacts {
        footer_on_first_parent: vec![],
        footer_anywhere: vec![A.into()],
        ..ReceiveFacts::default()
    };
    let direct = ReceiveFacts {
        footer_on_first_parent: vec![A.into()],
        footer_anywhere: vec![A.into()],
        ..ReceiveFacts::default()
    };
    let invalid = ReceiveFacts {
        team_policy_invalid: Some("x.toml:1:1: bad".into()),
        ..ReceiveFacts::default()
    };
    let takes = ReceiveFacts {
        takes_team_from: Some("master".into()),
        ..ReceiveFacts::default()
    };
    let via_merge = policy("");
    let deny = policy("[server]\nagent_commits_to_protected = \"deny\"\n");
    let allow = policy("[server]\nagent_commits_to_protected = \"allow\"\n");
    let main = up("refs/heads/main", Some(A), Some(B), true);
    let rows = [
        (
            &via_merge,
            up("refs/heads/main", Some(A), None, true),
            &none,
            Some(Code::D005),
        ),
        (
            &via_merge,
            up("refs/heads/main", Some(A), Some(B), false),
            &none,
            Some(Code::D005),
        ),
        (
            &via_merge,
            up("refs/tags/v1", Some(A), Some(B), true),
            &none,
            Some(Code::D005),
        ),
        (
            &via_merge,
            up("refs/tags/v1", None, Some(B), true),
            &none,
            None,
        ),
        (
            &via_merge,
            up("refs/heads/feat", Some(A), None, false),
            &none,
            None,
        ),
        (&via_merge, main.clone(), &none, None),
        (&via_merge, main.clone(), &merged, None),
        (&via_merge, main.clone(), &direct, Some(Code::D001)),
        (&deny, main.clone(), &merged, Some(Code::D001)),
        (&allow, main.clone(), &direct, None),
        (&via_merge, main.clone(), &invalid, Some(Code::E001)),
        (
            &via_merge,
            up("refs/heads/main", None, Some(B), true),
            &takes,
            Some(Code::D001),
        ),
        // Replacement refs: never written by a push, deleted freely.
        (
            &allow,
            up("refs/replace/1111", None, Some(B), true),
            &none,
            Some(Code::D001),
        ),
        (
            &via_merge,
            up("refs/replace/1111", Some(A), None, true),
            &none,
            None,
        ),
        (
            &via_merge,
            up("refs/heads/agent/c1", Some(A), Some(B), true),
            &direct,
            None,
        ),
    ];
    for (p, row, facts, want) in rows {
        assert_eq!(
            code(&decide_receive(p, &row, facts)),
            want,
            "{row:?} {facts:?}"
        );
    }
}

#[test]
fn footers_are_found_in_both_forms() {
    let t = "Contract: {contract}";
    assert!(footer_in("subject\n\nContract: c1\n", t));
    assert!(!footer_in("subject\n\nContract: \n", t));
    assert!(!footer_in("subject mentions Contract: c1 inline\n", t));
    let b = "[Contract: {contract}]";
    assert!(footer_in("subject\n\n[Contract: task-7]\n", b));
    assert!(!footer_in("subject\n\nContract: task-7\n", b));
}

/// Every spelling the commit hooks take for the footer already there.
#[test]
fn footers_are_found_in_every_spelling_the_hooks_accept() {
    let t = "Contract: {contract}";
    for body in [
        "s\n\ncontract: c1\n",
        "s\n\nCONTRACT:c1\n",
        "s\n\nContract :\tc1\n",
        "s\n\n  Contract: c1  \n",
        "s\n\nSigned-off-by: A <a@b>\n Contract: c1\n",
    ] {
        assert!(footer_in(body, t), "{body:?}");
    }
    assert!(!footer_in("s\n\nContracts: c1\n", t));
    assert!(!footer_in("s\n\nContract: c1 c2\n", t));
    // A template naming the contract twice: the same id both times.
    let twice = "Contract: {contract} (task {contract})";
    assert!(footer_in("s\n\nContract: c1 (task c1)\n", twice));
    assert!(footer_in("s\n\ncontract:  c1 (task c1)\n", twice));
    assert!(!footer_in("s\n\nContract: c1 (task c2)\n", twice));
    let b = "[Contract: {contract}]";
    assert!(footer_in("s\n\n  [Contract: c-1.x]\n", b));
}

#[test]
fn the_contract_a_footer_names_is_read_back() {
    let t = "Contract: {contract}";
    assert_eq!(footer_contract("s\n\ncontract : c1\n", t), Some("c1"));
    assert_eq!(
        footer_contract("s\n\nContract: c1\nContract: c2\n", t),
        Some("c2")
    );
    assert_eq!(footer_contract("s\n\nContracts: c1\n", t), None);
    assert_eq!(
        footer_contract("s\n\n[Contract: t-7]\n", "[Contract: {contract}]"),
        Some("t-7")
    );
}
