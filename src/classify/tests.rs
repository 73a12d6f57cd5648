//! The classifier as a table: one row per command line, each asserting the
//! whole [`Action`]; then the global options, and properties on arbitrary argv.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use proptest::prelude::*;

use super::*;
use crate::action::{CheckoutTarget as Co, Push, PushDest, RefOp, RefTarget, RefWrite};

/// The repository the rows run in: on `main`, remotes `origin` and `upstream`.
const LOCAL: &[&str] = &["main", "feat/x", "feature", "a", "agent/x", "wt"];
const RESOLVES: &[&str] = &[
    "v1.0",
    "v1",
    "refs/tags/v1.0",
    "refs/tags/v1",
    "refs/remotes/origin/main",
    "refs/remotes/origin/only-remote",
    "abc1234",
];

fn aliases() -> HashMap<String, String> {
    [
        ("ci", "commit"),
        ("co", "checkout"),
        ("st", "status --short"),
        ("amend", "commit --amend --no-edit"),
        ("nv", "-c core.hooksPath=/dev/null commit"),
        ("sh", "!git commit --no-verify"),
        ("loop1", "loop2"),
        ("loop2", "loop1"),
        ("self", "self -v"),
        ("deep", "ci -n"),
        ("quoted", "commit -m 'two words' \"-n\""),
        ("unclosed", "commit -m 'oops"),
        ("empty", ""),
        ("commit", "status"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn classify_in(args: &[OsString], env: &[(String, String)]) -> Action {
    let aliases = aliases();
    let remotes = vec!["origin".to_string(), "upstream".to_string()];
    let is_local = |n: &str| LOCAL.contains(&n);
    let resolves = |n: &str| LOCAL.contains(&n) || RESOLVES.contains(&n);
    let ctx = Context {
        aliases: &aliases,
        env_config: env,
        remotes: &remotes,
        current_branch: Some("main"),
        is_local_branch: &is_local,
        is_revision: &resolves,
    };
    classify(&parse_globals(args), &ctx)
}

/// Splits a row's command line (after `git `) like a shell would.
fn run(line: &str) -> Action {
    let words = split_cmdline(line).expect("row quotes balance");
    let words = if line.is_empty() { Vec::new() } else { words };
    let args: Vec<OsString> = words.into_iter().map(OsString::from).collect();
    classify_in(&args, &[])
}

// Builders for expected actions.
fn r(cmd: &str) -> Action {
    Action::read(cmd)
}
fn m(cmd: &str) -> Action {
    Action::mutating(cmd)
}
fn u(cmd: &str) -> Action {
    Action {
        effect: Effect::Unknown,
        ..m(cmd)
    }
}
fn commits(a: Action) -> Action {
    Action {
        creates_commits: true,
        ..a
    }
}
fn destroys(a: Action, why: &str) -> Action {
    Action {
        destructive: Some(why.into()),
        ..a
    }
}
fn hooks(a: Action, how: &str) -> Action {
    Action {
        hooks_off: Some(how.into()),
        ..a
    }
}
fn alias(a: Action, name: &str) -> Action {
    Action {
        alias: Some(name.into()),
        ..a
    }
}
fn refs(a: Action, writes: Vec<RefWrite>) -> Action {
    Action { refs: writes, ..a }
}
fn co(a: Action, target: Co) -> Action {
    Action {
        checkout: Some(target),
        ..a
    }
}
fn syncs(a: Action) -> Action {
    Action { syncs: true, ..a }
}
fn outside(a: Action) -> Action {
    Action {
        needs_repo: false,
        ..a
    }
}
fn pushes(a: Action, push: Push) -> Action {
    Action {
        push: Some(push),
        ..a
    }
}
fn w(target: RefTarget, op: RefOp, start: Option<&str>) -> RefWrite {
    RefWrite {
        target,
        op,
        start: start.map(str::to_string),
    }
}
fn named(full: &str) -> RefTarget {
    RefTarget::Named(full.into())
}
fn to(remote: &str, dests: &[(&str, &str, bool, bool)]) -> Push {
    Push {
        remote: Some(remote.into()),
        dests: dests
            .iter()
            .map(|(src, dst, force, delete)| PushDest {
                src: src.to_string(),
                dst: Some(dst.to_string()),
                force: *force,
                delete: *delete,
            })
            .collect(),
        ..Push::default()
    }
}
fn s(text: &str) -> String {
    text.to_string()
}

const HARD: &str = "reset --hard discards uncommitted changes";
const PATHS: &str = "checkout of paths overwrites their uncommitted changes";
const FORCE: &str = "checkout --force throws away local changes";
const RESTORE: &str = "restore overwrites uncommitted changes in the working tree";
const CLEAN: &str = "clean -f deletes untracked files";
const REBASE: &str = "rebase rewrites the branch's commits";
const NO_VERIFY: &str = "commit --no-verify skips the pre-commit and commit-msg hooks";
const PUSH_NO_VERIFY: &str = "push --no-verify skips the pre-push hook";
const HOOKS_PATH: &str = "sets core.hookspath=/dev/null for the command";

#[test]
fn the_issue_command_lines() {
    use RefOp::*;
    let cur = || RefTarget::Current;
    let rows: Vec<(&str, Action)> = vec![
        ("status", r("status")),
        ("-C ../x commit -qam msg", commits(m("commit"))),
        (
            "--git-dir=/r/.git --work-tree=/r commit",
            commits(m("commit")),
        ),
        (
            "-c alias.ci=commit ci -m x",
            alias(commits(m("commit")), "ci"),
        ),
        (
            "-c core.hooksPath=/dev/null commit",
            hooks(commits(m("commit")), HOOKS_PATH),
        ),
        ("commit --no-verify", hooks(commits(m("commit")), NO_VERIFY)),
        ("commit -n -m x", hooks(commits(m("commit")), NO_VERIFY)),
        (
            "push --no-verify",
            hooks(pushes(m("push"), Push::default()), PUSH_NO_VERIFY),
        ),
        (
            "config core.hooksPath /tmp/h",
            hooks(
                m("config"),
                "config writes core.hooksPath, which can switch hooks off",
            ),
        ),
        ("config --get core.hooksPath", r("config")),
        (
            "reset --soft HEAD~1",
            refs(m("reset"), vec![w(cur(), Update, None)]),
        ),
        ("reset --hard", destroys(m("reset"), HARD)),
        (
            "reset --hard origin/main",
            refs(destroys(m("reset"), HARD), vec![w(cur(), Update, None)]),
        ),
        (
            "reset --merge",
            destroys(m("reset"), "reset --merge rewrites the working tree"),
        ),
        ("checkout -- .", destroys(m("checkout"), PATHS)),
        ("checkout HEAD -- file.txt", destroys(m("checkout"), PATHS)),
        (
            "checkout -f main",
            co(destroys(m("checkout"), FORCE), Co::Local(s("main"))),
        ),
        ("checkout feat/x", co(m("checkout"), Co::Local(s("feat/x")))),
        (
            "checkout -b agent/c1 origin/main",
            co(
                refs(
                    m("checkout"),
                    vec![w(named("refs/heads/agent/c1"), Create, Some("origin/main"))],
                ),
                Co::New(s("agent/c1")),
            ),
        ),
        (
            "checkout origin/main",
            co(m("checkout"), Co::Remote(s("origin/main"))),
        ),
        ("checkout @{-1}", co(m("checkout"), Co::Special(s("@{-1}")))),
        ("checkout -- -D", destroys(m("checkout"), PATHS)),
        (
            "switch --discard-changes main",
            co(
                destroys(
                    m("switch"),
                    "switch --discard-changes throws away local changes",
                ),
                Co::Local(s("main")),
            ),
        ),
        ("restore --staged f", m("restore")),
        ("restore .", destroys(m("restore"), RESTORE)),
        (
            "restore --source HEAD~1 -- path",
            destroys(m("restore"), RESTORE),
        ),
        ("clean -n", r("clean")),
        ("clean -fdx", destroys(m("clean"), CLEAN)),
        ("clean -d -f", destroys(m("clean"), CLEAN)),
        ("stash", m("stash")),
        (
            "stash drop stash@{0}",
            destroys(m("stash"), "stash drop deletes a stash entry"),
        ),
        (
            "stash clear",
            destroys(m("stash"), "stash clear deletes every stash entry"),
        ),
        (
            "stash pop",
            commits(destroys(
                m("stash"),
                "stash pop drops the stash entry it applies",
            )),
        ),
        ("branch", r("branch")),
        (
            "branch -D feature",
            refs(
                destroys(
                    m("branch"),
                    "branch -D deletes a branch whatever its unmerged commits",
                ),
                vec![w(named("refs/heads/feature"), Delete, None)],
            ),
        ),
        (
            "branch -f main origin/main",
            refs(
                m("branch"),
                vec![w(named("refs/heads/main"), Update, Some("origin/main"))],
            ),
        ),
        (
            "branch -m a main",
            refs(
                m("branch"),
                vec![
                    w(named("refs/heads/a"), Delete, None),
                    w(named("refs/heads/main"), Create, None),
                ],
            ),
        ),
        (
            "push --force origin main",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("main", "main", false, false)])
                },
            ),
        ),
        (
            "push --force=true origin x",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("x", "x", false, false)])
                },
            ),
        ),
        (
            "push origin +main",
            pushes(m("push"), to("origin", &[("main", "main", true, false)])),
        ),
        (
            "push --mirror",
            pushes(
                m("push"),
                Push {
                    mirror: true,
                    force: true,
                    ..Push::default()
                },
            ),
        ),
        (
            "push origin --delete main",
            pushes(
                m("push"),
                Push {
                    delete: true,
                    ..to("origin", &[("", "main", false, true)])
                },
            ),
        ),
        (
            "push origin :main",
            pushes(m("push"), to("origin", &[("", "main", false, true)])),
        ),
        (
            "push origin HEAD:main",
            pushes(m("push"), to("origin", &[("HEAD", "main", false, false)])),
        ),
        (
            "push --force-with-lease origin agent/x",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("agent/x", "agent/x", false, false)])
                },
            ),
        ),
        (
            "push origin refs/heads/feat:refs/heads/release/1",
            pushes(
                m("push"),
                to(
                    "origin",
                    &[("refs/heads/feat", "refs/heads/release/1", false, false)],
                ),
            ),
        ),
        (
            "update-ref -d refs/heads/main",
            refs(
                m("update-ref"),
                vec![w(named("refs/heads/main"), Delete, None)],
            ),
        ),
        (
            "tag -d v1.0",
            refs(m("tag"), vec![w(named("refs/tags/v1.0"), Delete, None)]),
        ),
        ("merge main", commits(m("merge"))),
        (
            "rebase -i main",
            refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
        ),
        ("commit --amend", commits(m("commit"))),
        (
            "filter-branch --tree-filter 'rm -f x' HEAD",
            refs(m("filter-branch"), vec![w(cur(), Update, None)]),
        ),
        ("reflog expire --expire=now --all", m("reflog")),
        ("gc --prune=now", m("gc")),
        (
            "worktree remove --force ../wt",
            destroys(
                m("worktree"),
                "worktree remove --force deletes the worktree's uncommitted changes",
            ),
        ),
        ("add -A", commits(m("add"))),
        (
            "pull --rebase",
            syncs(destroys(m("pull"), "pull --rebase rewrites local commits")),
        ),
        ("fetch", syncs(m("fetch"))),
        ("lfs pull", u("lfs")),
    ];
    check(rows);
}

#[test]
fn edge_cases() {
    use RefOp::*;
    let cur = || RefTarget::Current;
    let rows: Vec<(&str, Action)> = vec![
        // git alone, informational globals, help.
        ("", outside(r(""))),
        ("--version", outside(r("version"))),
        ("-v", outside(r("version"))),
        ("--help commit", outside(r("help"))),
        ("--exec-path", outside(r(""))),
        ("commit --help", outside(r("commit"))),
        ("clone https://x/y", outside(m("clone"))),
        ("init", outside(m("init"))),
        // Global options in both forms, before the subcommand only.
        (
            "-p --no-pager --literal-pathspecs --namespace ns commit",
            commits(m("commit")),
        ),
        (
            "--git-dir /r/.git --work-tree /r -C x -C y commit -n",
            hooks(commits(m("commit")), NO_VERIFY),
        ),
        (
            "--config-env=core.hooksPath=HP commit",
            hooks(
                commits(m("commit")),
                "sets core.hookspath from $HP for the command",
            ),
        ),
        (
            "--config-env core.HOOKSPATH=HP commit",
            hooks(
                commits(m("commit")),
                "sets core.hookspath from $HP for the command",
            ),
        ),
        (
            "-c CORE.HooksPath=/dev/null status",
            hooks(r("status"), HOOKS_PATH),
        ),
        (
            "-c include.path=/tmp/x commit",
            hooks(
                commits(m("commit")),
                "sets include.path=/tmp/x for the command",
            ),
        ),
        // Bundles, abbreviations, negations, value-taking flags.
        ("commit -qanm x", hooks(commits(m("commit")), NO_VERIFY)),
        ("commit -m -n", commits(m("commit"))),
        ("commit -nm x --verify", commits(m("commit"))),
        ("commit --no-verif", hooks(commits(m("commit")), NO_VERIFY)),
        ("commit -- -n", commits(m("commit"))),
        ("commit -C HEAD -n", hooks(commits(m("commit")), NO_VERIFY)),
        ("commit --dry-run", r("commit")),
        ("merge -n main", commits(m("merge"))),
        (
            "merge --no-verify main",
            hooks(
                commits(m("merge")),
                "merge --no-verify skips the pre-merge-commit and commit-msg hooks",
            ),
        ),
        (
            "merge --abort",
            destroys(
                m("merge"),
                "merge --abort resets the working tree to before the merge",
            ),
        ),
        ("merge --ff-only origin/main", syncs(m("merge"))),
        (
            "push -n origin main",
            pushes(r("push"), to("origin", &[("main", "main", false, false)])),
        ),
        (
            "push -fu origin agent/x",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("agent/x", "agent/x", false, false)])
                },
            ),
        ),
        (
            "push --force-w origin x",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("x", "x", false, false)])
                },
            ),
        ),
        // `--forc` could be any of three options: git refuses the line.
        (
            "push --forc origin x",
            pushes(m("push"), to("origin", &[("x", "x", false, false)])),
        ),
        (
            "push --force --no-force origin x",
            pushes(m("push"), to("origin", &[("x", "x", false, false)])),
        ),
        (
            "push --force-if-includes origin x",
            pushes(
                m("push"),
                Push {
                    force: true,
                    ..to("origin", &[("x", "x", false, false)])
                },
            ),
        ),
        (
            "push --no-verify --verify origin",
            pushes(m("push"), to("origin", &[])),
        ),
        (
            "push origin HEAD",
            pushes(
                m("push"),
                to("origin", &[("HEAD", "refs/heads/main", false, false)]),
            ),
        ),
        (
            "push origin v1",
            pushes(
                m("push"),
                to("origin", &[("v1", "refs/tags/v1", false, false)]),
            ),
        ),
        (
            "push origin tag v1",
            pushes(
                m("push"),
                to("origin", &[("refs/tags/v1", "refs/tags/v1", false, false)]),
            ),
        ),
        (
            "push -d origin tag v1",
            pushes(
                m("push"),
                Push {
                    delete: true,
                    ..to("origin", &[("", "refs/tags/v1", false, true)])
                },
            ),
        ),
        (
            "push origin 'refs/heads/*:refs/heads/*'",
            pushes(
                m("push"),
                Push {
                    all: true,
                    ..to("origin", &[])
                },
            ),
        ),
        (
            "push --branches origin",
            pushes(
                m("push"),
                Push {
                    all: true,
                    ..to("origin", &[])
                },
            ),
        ),
        (
            "push --follow-tags origin",
            pushes(
                m("push"),
                Push {
                    tags: true,
                    ..to("origin", &[])
                },
            ),
        ),
        (
            "push --repo=upstream",
            pushes(m("push"), to("upstream", &[])),
        ),
        ("push origin ^main", pushes(m("push"), to("origin", &[]))),
        // reset: commit or path, as git reads them.
        ("reset HEAD", m("reset")),
        ("reset file.txt", m("reset")),
        ("reset v1.0", refs(m("reset"), vec![w(cur(), Update, None)])),
        ("reset main -- f", m("reset")),
        (
            "reset -q --keep abc1234",
            refs(
                destroys(m("reset"), "reset --keep rewrites the working tree"),
                vec![w(cur(), Update, None)],
            ),
        ),
        (
            "reset --soft --hard HEAD~2",
            refs(destroys(m("reset"), HARD), vec![w(cur(), Update, None)]),
        ),
        // checkout and switch targets.
        ("checkout", r("checkout")),
        ("checkout -", co(m("checkout"), Co::Special(s("-")))),
        ("checkout HEAD~", co(m("checkout"), Co::Special(s("HEAD~")))),
        ("checkout HEAD^", co(m("checkout"), Co::Special(s("HEAD^")))),
        (
            "checkout main..feature",
            co(m("checkout"), Co::Special(s("main..feature"))),
        ),
        (
            "checkout remotes/origin/main",
            co(m("checkout"), Co::Remote(s("remotes/origin/main"))),
        ),
        (
            "checkout refs/remotes/origin/main",
            co(m("checkout"), Co::Remote(s("refs/remotes/origin/main"))),
        ),
        (
            "checkout refs/heads/main",
            co(m("checkout"), Co::Special(s("refs/heads/main"))),
        ),
        ("checkout v1.0", co(m("checkout"), Co::Special(s("v1.0")))),
        (
            "checkout 0123456789abcdef0123456789abcdef01234567",
            co(
                m("checkout"),
                Co::Special(s("0123456789abcdef0123456789abcdef01234567")),
            ),
        ),
        ("checkout main --", co(m("checkout"), Co::Local(s("main")))),
        ("checkout main file", destroys(m("checkout"), PATHS)),
        ("checkout nothing-here", destroys(m("checkout"), PATHS)),
        ("checkout .", destroys(m("checkout"), PATHS)),
        ("checkout -p", destroys(m("checkout"), PATHS)),
        (
            "checkout --force main",
            co(destroys(m("checkout"), FORCE), Co::Local(s("main"))),
        ),
        (
            "checkout -qf main",
            co(destroys(m("checkout"), FORCE), Co::Local(s("main"))),
        ),
        (
            "checkout only-remote",
            co(
                refs(
                    m("checkout"),
                    vec![w(
                        named("refs/heads/only-remote"),
                        Create,
                        Some("origin/only-remote"),
                    )],
                ),
                Co::Local(s("only-remote")),
            ),
        ),
        (
            "checkout --no-guess only-remote",
            destroys(m("checkout"), PATHS),
        ),
        (
            "checkout -B main origin/main",
            co(
                refs(
                    m("checkout"),
                    vec![w(named("refs/heads/main"), Update, Some("origin/main"))],
                ),
                Co::New(s("main")),
            ),
        ),
        (
            "checkout --orphan fresh",
            co(
                refs(
                    m("checkout"),
                    vec![w(named("refs/heads/fresh"), Create, None)],
                ),
                Co::New(s("fresh")),
            ),
        ),
        (
            "checkout -t origin/main",
            co(
                refs(
                    m("checkout"),
                    vec![w(named("refs/heads/main"), Create, Some("origin/main"))],
                ),
                Co::New(s("main")),
            ),
        ),
        (
            "checkout --detach v1.0",
            co(m("checkout"), Co::Detach(s("v1.0"))),
        ),
        (
            "switch -c x origin/main",
            co(
                refs(
                    m("switch"),
                    vec![w(named("refs/heads/x"), Create, Some("origin/main"))],
                ),
                Co::New(s("x")),
            ),
        ),
        (
            "switch -C main",
            co(
                refs(m("switch"), vec![w(named("refs/heads/main"), Update, None)]),
                Co::New(s("main")),
            ),
        ),
        (
            "switch -f main",
            co(
                destroys(
                    m("switch"),
                    "switch --discard-changes throws away local changes",
                ),
                Co::Local(s("main")),
            ),
        ),
        ("switch --detach", co(m("switch"), Co::Detach(s("HEAD")))),
        (
            "switch origin/main",
            co(m("switch"), Co::Remote(s("origin/main"))),
        ),
        ("switch feature", co(m("switch"), Co::Local(s("feature")))),
        ("restore -SW f", destroys(m("restore"), RESTORE)),
        (
            "restore --staged --worktree f",
            destroys(m("restore"), RESTORE),
        ),
        (
            "clean",
            destroys(
                m("clean"),
                "clean deletes untracked files (unless clean.requireForce stops it)",
            ),
        ),
        ("clean -fn", r("clean")),
        ("clean --dry-run -f", r("clean")),
        // stash
        ("stash list", r("stash")),
        ("stash show -p", r("stash")),
        ("stash apply", commits(m("stash"))),
        ("stash -q pop", m("stash")),
        (
            "stash branch topic",
            co(
                refs(m("stash"), vec![w(named("refs/heads/topic"), Create, None)]),
                Co::New(s("topic")),
            ),
        ),
        // branch and tag forms
        ("branch --list 'f*'", r("branch")),
        ("branch -a", r("branch")),
        ("branch -r", r("branch")),
        ("branch -vv", r("branch")),
        ("branch --show-current", r("branch")),
        ("branch --contains abc1234", r("branch")),
        (
            "branch new",
            refs(m("branch"), vec![w(named("refs/heads/new"), Create, None)]),
        ),
        (
            "branch new main",
            refs(
                m("branch"),
                vec![w(named("refs/heads/new"), Create, Some("main"))],
            ),
        ),
        (
            "branch -d a b",
            refs(
                m("branch"),
                vec![
                    w(named("refs/heads/a"), Delete, None),
                    w(named("refs/heads/b"), Delete, None),
                ],
            ),
        ),
        (
            "branch --delete --force a",
            refs(
                destroys(
                    m("branch"),
                    "branch -D deletes a branch whatever its unmerged commits",
                ),
                vec![w(named("refs/heads/a"), Delete, None)],
            ),
        ),
        (
            "branch -dr origin/x",
            refs(
                m("branch"),
                vec![w(named("refs/remotes/origin/x"), Delete, None)],
            ),
        ),
        (
            "branch -m new",
            refs(
                m("branch"),
                vec![
                    w(cur(), Delete, None),
                    w(named("refs/heads/new"), Create, None),
                ],
            ),
        ),
        (
            "branch -M a main",
            refs(
                m("branch"),
                vec![
                    w(named("refs/heads/a"), Delete, None),
                    w(named("refs/heads/main"), Update, None),
                ],
            ),
        ),
        (
            "branch -c a b",
            refs(m("branch"), vec![w(named("refs/heads/b"), Create, None)]),
        ),
        ("branch -u origin/main", m("branch")),
        ("tag", r("tag")),
        ("tag -l", r("tag")),
        ("tag -n5", r("tag")),
        (
            "tag v2",
            refs(m("tag"), vec![w(named("refs/tags/v2"), Create, None)]),
        ),
        (
            "tag -am msg v2 HEAD",
            refs(
                m("tag"),
                vec![w(named("refs/tags/v2"), Create, Some("HEAD"))],
            ),
        ),
        (
            "tag -f v1",
            refs(m("tag"), vec![w(named("refs/tags/v1"), Update, None)]),
        ),
        // refs by plumbing
        (
            "update-ref refs/heads/main abc1234",
            refs(
                m("update-ref"),
                vec![w(named("refs/heads/main"), Update, None)],
            ),
        ),
        (
            "update-ref HEAD abc1234",
            refs(m("update-ref"), vec![w(cur(), Update, None)]),
        ),
        (
            "update-ref refs/heads/n abc1234 0000000000000000000000000000000000000000",
            refs(
                m("update-ref"),
                vec![w(named("refs/heads/n"), Create, None)],
            ),
        ),
        (
            "update-ref --stdin",
            refs(m("update-ref"), vec![w(RefTarget::All, Update, None)]),
        ),
        ("symbolic-ref HEAD", r("symbolic-ref")),
        (
            "symbolic-ref HEAD refs/heads/feature",
            co(m("symbolic-ref"), Co::Local(s("feature"))),
        ),
        (
            "symbolic-ref refs/heads/main refs/heads/x",
            refs(
                m("symbolic-ref"),
                vec![w(named("refs/heads/main"), Update, None)],
            ),
        ),
        (
            "filter-branch -f --msg-filter cat -- --all",
            refs(m("filter-branch"), vec![w(RefTarget::All, Update, None)]),
        ),
        (
            "filter-branch --env-filter x feature",
            refs(
                m("filter-branch"),
                vec![w(named("refs/heads/feature"), Update, None)],
            ),
        ),
        (
            "filter-branch",
            refs(m("filter-branch"), vec![w(cur(), Update, None)]),
        ),
        // rebase forms
        (
            "rebase main feature",
            refs(
                destroys(m("rebase"), REBASE),
                vec![w(named("refs/heads/feature"), Update, None)],
            ),
        ),
        (
            "rebase --root feature",
            refs(
                destroys(m("rebase"), REBASE),
                vec![w(named("refs/heads/feature"), Update, None)],
            ),
        ),
        (
            "rebase --onto main HEAD~3",
            refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
        ),
        (
            "rebase --update-refs main",
            refs(
                destroys(m("rebase"), REBASE),
                vec![w(cur(), Update, None), w(RefTarget::All, Update, None)],
            ),
        ),
        ("rebase --continue", m("rebase")),
        (
            "rebase --abort",
            destroys(
                m("rebase"),
                "rebase --abort throws away the rebase's work in progress",
            ),
        ),
        ("rebase --show-current-patch", r("rebase")),
        (
            "rebase --no-verify main",
            refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
        ),
        // fetch and pull
        (
            "fetch origin main:main",
            syncs(refs(
                m("fetch"),
                vec![w(named("refs/heads/main"), Update, None)],
            )),
        ),
        (
            "fetch origin +refs/heads/x:refs/remotes/origin/x",
            syncs(m("fetch")),
        ),
        (
            "fetch origin 'refs/heads/*:refs/heads/*'",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        (
            "fetch origin tag v9",
            syncs(refs(
                m("fetch"),
                vec![w(named("refs/tags/v9"), Create, None)],
            )),
        ),
        ("fetch --dry-run", syncs(r("fetch"))),
        ("pull --ff-only", syncs(m("pull"))),
        ("pull --rebase=false", syncs(m("pull"))),
        (
            "pull -r origin main:main",
            syncs(destroys(
                refs(m("pull"), vec![w(named("refs/heads/main"), Update, None)]),
                "pull --rebase rewrites local commits",
            )),
        ),
        (
            "pull --no-verify",
            syncs(hooks(
                m("pull"),
                "pull --no-verify skips the pre-merge-commit and commit-msg hooks",
            )),
        ),
        // config
        (
            "config set core.hooksPath x",
            hooks(
                m("config"),
                "config writes core.hooksPath, which can switch hooks off",
            ),
        ),
        (
            "config --unset core.hookspath",
            hooks(
                m("config"),
                "config writes core.hookspath, which can switch hooks off",
            ),
        ),
        (
            "config --add Core.HooksPath x",
            hooks(
                m("config"),
                "config writes Core.HooksPath, which can switch hooks off",
            ),
        ),
        (
            "config --global core.hooksPath /x",
            hooks(
                m("config"),
                "config writes core.hooksPath, which can switch hooks off",
            ),
        ),
        ("config --global user.name x", outside(m("config"))),
        ("config --system -l", outside(r("config"))),
        ("config get user.name", r("config")),
        ("config user.name", r("config")),
        ("config -l", r("config")),
        ("config user.name x", m("config")),
        (
            "config includeIf.gitdir:/x/.path /tmp/y",
            hooks(
                m("config"),
                "config writes includeIf.gitdir:/x/.path, which can switch hooks off",
            ),
        ),
        // other commands
        ("add -n .", r("add")),
        (
            "rm -f x",
            commits(destroys(
                m("rm"),
                "rm -f deletes files whatever their uncommitted changes",
            )),
        ),
        ("rm --cached -f x", commits(m("rm"))),
        ("mv a b", commits(m("mv"))),
        ("apply p.diff", m("apply")),
        ("apply --index p.diff", commits(m("apply"))),
        ("apply --check p.diff", r("apply")),
        ("cherry-pick abc1234", commits(m("cherry-pick"))),
        ("revert -n HEAD", commits(m("revert"))),
        (
            "am --abort",
            destroys(m("am"), "am --abort restores the original branch"),
        ),
        ("am mbox", commits(m("am"))),
        ("reflog", r("reflog")),
        ("reflog show main", r("reflog")),
        ("reflog delete HEAD@{1}", m("reflog")),
        ("remote", r("remote")),
        ("remote -v", r("remote")),
        ("remote show origin", r("remote")),
        ("remote add x y", m("remote")),
        ("worktree list", r("worktree")),
        ("worktree remove ../wt", m("worktree")),
        (
            "worktree add ../topic",
            refs(
                m("worktree"),
                vec![w(named("refs/heads/topic"), Create, None)],
            ),
        ),
        ("worktree add ../wt", m("worktree")),
        (
            "worktree add -b n ../p main",
            refs(
                m("worktree"),
                vec![w(named("refs/heads/n"), Create, Some("main"))],
            ),
        ),
        (
            "worktree add ../p only-remote",
            refs(
                m("worktree"),
                vec![w(
                    named("refs/heads/only-remote"),
                    Create,
                    Some("origin/only-remote"),
                )],
            ),
        ),
        ("notes list", r("notes")),
        ("notes add -m x", m("notes")),
        (
            "fast-import",
            refs(m("fast-import"), vec![w(RefTarget::All, Update, None)]),
        ),
        ("log --oneline", r("log")),
        ("commit -h", outside(r("commit"))),
        ("merge --quit", m("merge")),
        ("merge --continue", commits(m("merge"))),
        (
            "cherry-pick --abort",
            destroys(
                m("cherry-pick"),
                "cherry-pick --abort resets the working tree to before the sequence",
            ),
        ),
        ("cherry-pick --quit", m("cherry-pick")),
        ("am --show-current-patch=diff", r("am")),
        ("am --quit", m("am")),
        ("submodule", r("submodule")),
        ("submodule status", r("submodule")),
        ("submodule update --init", m("submodule")),
        ("bisect log", r("bisect")),
        ("bisect start", m("bisect")),
        ("sparse-checkout list", r("sparse-checkout")),
        ("sparse-checkout set a", m("sparse-checkout")),
        ("replace -l", r("replace")),
        ("replace a b", m("replace")),
        ("rerere status", r("rerere")),
        ("rerere forget x", m("rerere")),
        ("bundle verify b", r("bundle")),
        ("bundle unbundle b", m("bundle")),
        ("hash-object f", r("hash-object")),
        ("hash-object -w f", m("hash-object")),
        ("interpret-trailers --in-place f", m("interpret-trailers")),
        ("interpret-trailers f", r("interpret-trailers")),
        ("refs verify", r("refs")),
        ("refs migrate --ref-format=reftable", m("refs")),
        ("commit-graph verify", r("commit-graph")),
        ("commit-graph write", m("commit-graph")),
        ("notes", r("notes")),
        ("commit-tree HEAD^{tree}", m("commit-tree")),
        (
            "send-pack x main",
            pushes(
                m("send-pack"),
                Push {
                    all: true,
                    ..Push::default()
                },
            ),
        ),
        ("ward explain -- commit", u("ward")),
        // aliases
        ("ci -m x", alias(commits(m("commit")), "ci")),
        ("CI -m x", alias(commits(m("commit")), "CI")),
        ("co -- .", alias(destroys(m("checkout"), PATHS), "co")),
        ("st", alias(r("status"), "st")),
        ("amend", alias(commits(m("commit")), "amend")),
        (
            "deep",
            alias(hooks(commits(m("commit")), NO_VERIFY), "deep"),
        ),
        ("nv", alias(hooks(commits(m("commit")), HOOKS_PATH), "nv")),
        ("sh", alias(u("sh"), "sh")),
        ("loop1", alias(u("loop1"), "loop1")),
        ("self", alias(u("self"), "self")),
        (
            "quoted",
            alias(hooks(commits(m("commit")), NO_VERIFY), "quoted"),
        ),
        ("unclosed", alias(u("unclosed"), "unclosed")),
        // An empty alias runs `git ""`, which git does not know.
        ("empty", alias(u(""), "empty")),
        ("commit", commits(m("commit"))),
        ("-c alias.x=ci x", alias(commits(m("commit")), "x")),
        (
            "-c alias.rb='rebase -i' rb main",
            alias(
                refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
                "rb",
            ),
        ),
    ];
    check(rows);
}

fn check(rows: Vec<(&str, Action)>) {
    let mut failures = Vec::new();
    for (line, want) in rows {
        let got = run(line);
        if got != want {
            failures.push(format!("git {line}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn environment_config_switches_hooks_off_and_defines_aliases() {
    let env = vec![
        (s("core.hookspath"), s("/dev/null")),
        (s("alias.envci"), s("commit")),
    ];
    let got = classify_in(&[OsString::from("envci")], &env);
    assert_eq!(got.command, "commit");
    assert_eq!(got.alias.as_deref(), Some("envci"));
    assert_eq!(
        got.hooks_off.as_deref(),
        Some("the environment sets core.hookspath=/dev/null (GIT_CONFIG_*)")
    );
}

#[test]
fn non_utf8_words_are_read_lossily() {
    let bad = |b: &[u8]| OsString::from_vec(b.to_vec());
    let got = classify_in(&[bad(b"checkout"), bad(b"-b"), bad(b"x\xff")], &[]);
    assert_eq!(got.checkout, Some(Co::New(s("x\u{fffd}"))));
    let got = classify_in(&[bad(b"\xffcommit")], &[]);
    assert_eq!(got.effect, Effect::Unknown);
    let got = classify_in(
        &[bad(b"-C"), bad(b"\xfe"), bad(b"reset"), bad(b"--hard")],
        &[],
    );
    assert_eq!(got.destructive.as_deref(), Some(HARD));
}

#[test]
fn global_options_split_like_git() {
    let words = |line: &str| -> Vec<OsString> {
        split_cmdline(line)
            .unwrap()
            .into_iter()
            .map(OsString::from)
            .collect()
    };
    let g = parse_globals(&words("-C a -C '' --git-dir=g --work-tree w -c Core.HooksPath=x -c flag --config-env=a.B=V --bare -P commit -v"));
    assert_eq!(g.globals.chdir, [PathBuf::from("a")]);
    assert_eq!(g.globals.git_dir, Some(PathBuf::from("g")));
    assert_eq!(g.globals.work_tree, Some(PathBuf::from("w")));
    assert_eq!(
        g.globals.config,
        [(s("core.hookspath"), s("x")), (s("flag"), s("true"))]
    );
    assert_eq!(g.globals.config_env, [(s("a.b"), s("V"))]);
    assert!(g.globals.bare && !g.globals.informational);
    assert_eq!(g.rest, words("commit -v"));
    let g = parse_globals(&words("--version commit"));
    assert!(g.globals.informational);
    assert_eq!(g.rest, words("--version commit"));
    let g = parse_globals(&words(
        "--shallow-file f --attr-source=x --no-advice status",
    ));
    assert_eq!(g.rest, words("status"));
    assert_eq!(parse_globals(&words("-c")).rest, Vec::<OsString>::new());
}

#[test]
fn alias_words_split_like_git() {
    assert_eq!(
        split_cmdline("a 'b c' \"d\\\"e\" f\\ g").unwrap(),
        ["a", "b c", "d\"e", "f g"]
    );
    assert_eq!(split_cmdline("a  b ").unwrap(), ["a", "b", ""]);
    assert_eq!(split_cmdline("'x"), None);
    assert_eq!(split_cmdline("x\\"), None);
}

fn any_word() -> impl Strategy<Value = OsString> {
    let pieces = prop_oneof![
        Just(b"-".to_vec()),
        Just(b"--".to_vec()),
        Just(b"-c".to_vec()),
        Just(b"-C".to_vec()),
        Just(b"=".to_vec()),
        Just(b":".to_vec()),
        Just(b"+".to_vec()),
        Just(b"alias.".to_vec()),
        Just(b"commit".to_vec()),
        Just(b"checkout".to_vec()),
        Just(b"push".to_vec()),
        Just(b"branch".to_vec()),
        Just(b"config".to_vec()),
        Just(b"stash".to_vec()),
        Just(b"worktree".to_vec()),
        Just(b"tag".to_vec()),
        Just(b"ci".to_vec()),
        Just(b"loop1".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..6),
    ];
    proptest::collection::vec(pieces, 1..4).prop_map(|p| OsString::from_vec(p.concat()))
}

proptest! {
    #[test]
    fn never_panics_on_arbitrary_argv(args in proptest::collection::vec(any_word(), 0..8)) {
        let git = parse_globals(&args);
        prop_assert!(git.rest.len() <= args.len());
        let _ = classify_in(&args, &[]);
    }

    #[test]
    fn never_panics_on_raw_bytes(raw in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 0..8)) {
        let args: Vec<OsString> = raw.into_iter().map(OsString::from_vec).collect();
        let _ = classify_in(&args, &[]);
    }

    #[test]
    fn never_panics_on_arbitrary_aliases(value in ".{0,40}", args in proptest::collection::vec(any_word(), 0..4)) {
        let mut argv = vec![OsString::from("-c"), OsString::from(format!("alias.zz={value}")), OsString::from("zz")];
        argv.extend(args);
        let _ = classify_in(&argv, &[]);
    }
}
