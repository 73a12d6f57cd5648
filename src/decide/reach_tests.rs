//! Commands that write refs their command line does not name, as a table:
//! (policy, command, what facts found) → allowed or the code.

use super::super::{decide, Actor, Decision, Facts, Verdict};
use super::Reach;
use crate::action::{Action, Push, RefOp, RefTarget, RefWrite};
use crate::error::Code;
use crate::policy::{Layer, Policy};

const PERMISSIVE: &str = r#"
[enforce]
allow_no_verify = true
[branches]
protected = []
[checkout]
local_only = false
[push]
force_allowed = ["*"]
[checkpoint]
before_destructive = false
"#;

fn policy(extra: &str) -> Policy {
    Policy::built_in()
        .with_layer(extra, Layer::BuiltIn)
        .unwrap()
}

fn code(d: &Decision) -> Option<Code> {
    match &d.verdict {
        Verdict::Deny(e) => Some(e.code),
        _ => None,
    }
}

fn push(all: bool, tags: bool, mirror: bool) -> Action {
    Action {
        push: Some(Push {
            remote: Some("origin".into()),
            all,
            tags,
            mirror,
            force: mirror,
            ..Push::default()
        }),
        ..Action::mutating("push")
    }
}

fn unnamed(cmd: &str) -> Action {
    Action {
        refs: vec![RefWrite {
            target: RefTarget::All,
            op: RefOp::Update,
            start: None,
        }],
        ..Action::mutating(cmd)
    }
}

fn repoint(key: &str) -> Action {
    Action {
        repoints: vec![key.to_string()],
        ..Action::mutating("config")
    }
}

fn facts(hooks: &[&str], pushed: &[(&str, Option<bool>)]) -> Facts {
    Facts {
        reach: Reach {
            hooks: hooks.iter().map(|h| h.to_string()).collect(),
            pushed: pushed.iter().map(|(r, c)| (r.to_string(), *c)).collect(),
        },
        ..Facts::agent_on("agent/c1", Some("c1"))
    }
}

#[test]
fn unnamed_refs_are_judged_by_what_they_reach() {
    let default = "";
    let none: &[(&str, Option<bool>)] = &[];
    let main_same = &[("refs/heads/main", Some(false))][..];
    let main_moves = &[("refs/heads/main", Some(true))][..];
    let main_unknown = &[("refs/heads/main", None)][..];
    let tag_unknown = &[("refs/tags/v1", None)][..];
    #[rustfmt::skip]
    let rows: Vec<(&str, Action, Facts, Option<Code>)> = vec![
        // A policy that protects nothing: a pure pass-through.
        (PERMISSIVE, push(true, false, false), facts(&[], main_unknown), None),
        (PERMISSIVE, push(false, true, false), facts(&[], tag_unknown), None),
        (PERMISSIVE, push(false, false, true), facts(&[], none), None),
        (PERMISSIVE, unnamed("update-ref"), facts(&[], none), None),
        (PERMISSIVE, unnamed("fast-import"), facts(&[], none), None),
        (PERMISSIVE, unnamed("fetch"), facts(&[], none), None),
        (PERMISSIVE, repoint("remote.origin.url"), facts(&[], none), None),
        (PERMISSIVE, repoint("url.https://x/.insteadof"), facts(&[], none), None),
        (PERMISSIVE, repoint("branch.main.merge"), facts(&[], none), None),
        // The default policy: what the remote-tracking refs say.
        (default, push(true, false, false), facts(&[], none), None),
        (default, push(true, false, false), facts(&[], main_same), None),
        (default, push(true, false, false), facts(&[], main_moves), Some(Code::D001)),
        (default, push(true, false, false), facts(&[], main_unknown), Some(Code::D001)),
        (default, push(false, true, false), facts(&[], tag_unknown), Some(Code::D001)),
        (default, push(false, false, true), facts(&[], none), Some(Code::D005)),
        // ... or the pre-push hook, which sees each ref that changes.
        (default, push(true, false, false), facts(&["pre-push"], main_moves), None),
        (default, push(false, true, false), facts(&["pre-push"], tag_unknown), None),
        (default, push(false, false, true), facts(&["pre-push"], none), None),
        (default, push(true, false, false), facts(&["reference-transaction"], main_moves), Some(Code::D001)),
        // update-ref --stdin and the like: the reference-transaction hook sees each ref.
        (default, unnamed("update-ref"), facts(&[], none), Some(Code::D001)),
        (default, unnamed("update-ref"), facts(&["pre-push"], none), Some(Code::D001)),
        (default, unnamed("update-ref"), facts(&["reference-transaction"], none), None),
        (default, unnamed("fast-import"), facts(&["reference-transaction"], none), None),
        // ... but not reflog --updateref, which writes past every hook.
        (default, unnamed("reflog"), facts(&["reference-transaction"], none), Some(Code::D001)),
        (PERMISSIVE, unnamed("reflog"), facts(&[], none), None),
        (default, unnamed("fetch"), facts(&["reference-transaction"], none), Some(Code::D001)),
        // Where a protected branch syncs from stays a person's decision.
        (default, repoint("remote.origin.url"), facts(&["reference-transaction"], none), Some(Code::D001)),
        (default, repoint("branch.main.merge"), facts(&[], none), Some(Code::D001)),
        (default, repoint("branch.feature.merge"), facts(&[], none), None),
    ];
    for (i, (extra, action, facts, want)) in rows.into_iter().enumerate() {
        let d = decide(&policy(extra), &action, &facts);
        assert_eq!(
            code(&d),
            want,
            "row {i}: {action:?} {:?}: {}",
            facts.reach,
            d.rule
        );
    }
}

#[test]
fn a_push_refusal_names_the_ref_and_whether_its_remote_value_is_known() {
    let p = policy("");
    let moves = decide(
        &p,
        &push(true, false, false),
        &facts(&[], &[("refs/heads/main", Some(true))]),
    );
    assert!(
        moves
            .rule
            .contains("would move protected ref 'main' on origin"),
        "{}",
        moves.rule
    );
    let unknown = decide(
        &p,
        &push(false, true, false),
        &facts(&[], &[("refs/tags/v1", None)]),
    );
    assert!(
        unknown.rule.contains("'tags/v1'") && unknown.rule.contains("not known"),
        "{}",
        unknown.rule
    );
}

#[test]
fn a_person_bound_by_nothing_is_not_asked() {
    let human = Facts {
        actor: Actor::Human,
        ..facts(&[], &[("refs/heads/main", Some(true))])
    };
    assert_eq!(
        code(&decide(&policy(""), &push(true, false, false), &human)),
        None
    );
}
