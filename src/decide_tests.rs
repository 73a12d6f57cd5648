//! The decision matrix as tables (one row per cell and per rule) and a test
//! per rule, in files by concern; here the helpers they share, the seed
//! scenarios and the check that only `decide` says no.

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

fn hint(d: &Decision) -> &str {
    d.denial()
        .and_then(|e| e.hint.as_deref())
        .expect("a denial with a hint")
}

/// Decides each row and fails with every row whose outcome differs;
/// a denial always carries a hint.
fn check(rows: Vec<(&str, &Policy, Action, Facts, Want)>) {
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

#[path = "decide/commit_tests.rs"]
mod commit;
#[path = "decide/matrix_branches_tests.rs"]
mod matrix_branches;
#[path = "decide/matrix_checkpoints_tests.rs"]
mod matrix_checkpoints;
#[path = "decide/matrix_guards_tests.rs"]
mod matrix_guards;
#[path = "decide/matrix_people_tests.rs"]
mod matrix_people;
#[path = "decide/matrix_support_tests.rs"]
mod matrix_support;
#[path = "decide/rules_tests.rs"]
mod rules;

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
