//! The decision matrix on branches: reads, commits on a protected branch, its
//! refs moved, syncing, agent and other branches, a detached HEAD.

use super::matrix_support::*;
use super::*;

#[test]
fn the_matrix_on_branches() {
    let Policies {
        default,
        off,
        others,
        no_sync,
        ..
    } = policies();

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
            commit_like("add"),
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        // Protected ref itself moved, rewritten or deleted.
        (
            "reset <rev> on main",
            &default,
            moves_current("reset", None),
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
            moves_current("rebase", None),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        (
            "branch -f main",
            &default,
            writes_ref(
                "branch",
                "refs/heads/main",
                RefOp::Update,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch -D main",
            &default,
            writes_ref("branch", "refs/heads/main", RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch -m x main (creates main)",
            &default,
            writes_ref("branch", "refs/heads/main", RefOp::Create, None),
            agent("x", None),
            Want::Deny(Code::D001),
        ),
        // `origin/main` reads as this branch before the remote-tracking ref.
        (
            "branch origin/main (origin is a remote)",
            &default,
            writes_ref("branch", "refs/heads/origin/main", RefOp::Create, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "branch feature/main (no remote feature)",
            &default,
            writes_ref("branch", "refs/heads/feature/main", RefOp::Create, None),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "branch -D origin/main",
            &default,
            writes_ref("branch", "refs/heads/origin/main", RefOp::Delete, None),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "update-ref -d main",
            &default,
            writes_ref("update-ref", "refs/heads/main", RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag -f v1 (moves a protected tag)",
            &default,
            writes_ref("tag", "refs/tags/v1", RefOp::Update, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag -d v1",
            &default,
            writes_ref("tag", "refs/tags/v1", RefOp::Delete, None),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "tag v2 (creating a protected tag is additive)",
            &default,
            writes_ref("tag", "refs/tags/v2", RefOp::Create, None),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "protected ref moved even with capability off",
            &off,
            moves_current("reset", None),
            agent("main", None),
            Want::Deny(Code::D001),
        ),
        // Syncing a protected branch.
        (
            "checkout -b main origin/main (sync)",
            &default,
            writes_ref(
                "checkout",
                "refs/heads/main",
                RefOp::Create,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "checkout -b main other (not sync)",
            &default,
            writes_ref("checkout", "refs/heads/main", RefOp::Create, Some("feat")),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "fetch origin main:main (sync, may move it)",
            &default,
            syncing(writes_ref(
                "fetch",
                "refs/heads/main",
                RefOp::Update,
                Some("origin/main"),
            )),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "fetch origin agent/x:main (another branch's value)",
            &default,
            syncing(writes_ref(
                "fetch",
                "refs/heads/main",
                RefOp::Update,
                Some("origin/agent/x"),
            )),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "fetch <url> main:main (no remote names it)",
            &default,
            syncing(writes_ref("fetch", "refs/heads/main", RefOp::Update, None)),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "sync off: creating main from origin/main",
            &no_sync,
            writes_ref(
                "checkout",
                "refs/heads/main",
                RefOp::Create,
                Some("origin/main"),
            ),
            agent("feat", None),
            Want::Deny(Code::D001),
        ),
        (
            "pull on main is syncing",
            &default,
            syncing(Action::mutating("pull")),
            agent("main", None),
            Want::Allow,
        ),
        (
            "fetch on main is syncing",
            &default,
            syncing(Action::mutating("fetch")),
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
            moves_current("reset", None),
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
            writes_ref("branch", "refs/heads/main", RefOp::Update, None),
            detached(),
            Want::Deny(Code::D001),
        ),
        (
            "detached: reset moves no branch",
            &default,
            moves_current("reset", None),
            detached(),
            Want::Allow,
        ),
    ];
    check(rows);
}
