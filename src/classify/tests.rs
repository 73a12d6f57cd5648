//! The classifier as a table: one row per command line, each asserting the
//! whole [`Action`]; then the global options, and properties on arbitrary argv.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use proptest::prelude::*;

use super::*;
use crate::action::{CheckoutTarget as Co, Push, PushDest, RefOp, RefTarget, RefWrite};

mod edge;
mod output;
mod push_config;
mod ref_names;
mod repoints;

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
    classify_with(args, env, &|_| Vec::new())
}

/// [`classify_in`], with the config files' values from `config`.
fn classify_with(
    args: &[OsString],
    env: &[(String, String)],
    config: &dyn Fn(&str) -> Vec<String>,
) -> Action {
    let aliases = aliases();
    let remotes = vec!["origin".to_string(), "upstream".to_string()];
    let is_local = |n: &str| LOCAL.contains(&n);
    let resolves = |n: &str| LOCAL.contains(&n) || RESOLVES.contains(&n);
    let ctx = Context {
        config: &config,
        aliases: &aliases,
        env_config: env,
        remotes: &remotes,
        current_branch: Some("main"),
        is_local_branch: &is_local,
        is_revision: &resolves,
        env_namespace: false,
        env_exec_path: None,
        is_own_exec_path: &|_| true,
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
/// Sets index entries back without touching the files.
pub(super) fn unstages(a: Action) -> Action {
    Action {
        unstages: true,
        ..a
    }
}
/// Writes the paths from a tree-ish.
pub(super) fn from_tree(a: Action) -> Action {
    Action {
        from_tree: true,
        ..a
    }
}
/// Limited to these pathspecs.
pub(super) fn within(a: Action, paths: &[&str]) -> Action {
    Action {
        paths: Some(paths.iter().map(|p| p.to_string()).collect()),
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
/// An alias defined for the command alone (`-c alias.x=...`).
pub(super) fn given_alias(a: Action, name: &str) -> Action {
    Action {
        alias_given: true,
        ..alias(a, name)
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
fn trees(a: Action, dirs: &[&str]) -> Action {
    Action {
        new_trees: dirs.iter().map(|d| d.to_string()).collect(),
        ..a
    }
}
fn repoints(a: Action, key: &str) -> Action {
    Action {
        repoints: vec![key.to_string()],
        ..a
    }
}
fn syncs(a: Action) -> Action {
    Action { syncs: true, ..a }
}
/// A `pull` that merges or rebases into the current branch.
fn merges(a: Action) -> Action {
    Action {
        pull_integrates: true,
        ..a
    }
}
/// A merge that syncs if it fast-forwards to `target`.
fn ff(a: Action, target: &str) -> Action {
    Action {
        ff_target: Some(target.to_string()),
        ..a
    }
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
            given_alias(commits(m("commit")), "ci"),
        ),
        (
            "-c core.hooksPath=/dev/null commit",
            hooks(commits(m("commit")), HOOKS_PATH),
        ),
        ("commit --no-verify", hooks(commits(m("commit")), NO_VERIFY)),
        ("commit -n -m x", hooks(commits(m("commit")), NO_VERIFY)),
        (
            "push --no-verify",
            hooks(
                pushes(
                    m("push"),
                    Push {
                        remote: None,
                        ..to("", &[("HEAD", "refs/heads/main", false, false)])
                    },
                ),
                PUSH_NO_VERIFY,
            ),
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
            refs(m("reset"), vec![w(cur(), Update, Some("HEAD~1"))]),
        ),
        ("reset --hard", destroys(m("reset"), HARD)),
        (
            "reset --hard origin/main",
            refs(
                destroys(m("reset"), HARD),
                vec![w(cur(), Update, Some("origin/main"))],
            ),
        ),
        (
            "reset --merge",
            destroys(m("reset"), "reset --merge rewrites the working tree"),
        ),
        (
            "checkout -- .",
            within(destroys(m("checkout"), PATHS), &["."]),
        ),
        (
            "checkout HEAD -- file.txt",
            from_tree(within(destroys(m("checkout"), PATHS), &["file.txt"])),
        ),
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
        (
            "checkout -- -D",
            within(destroys(m("checkout"), PATHS), &["-D"]),
        ),
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
        ("restore --staged f", within(unstages(m("restore")), &["f"])),
        ("restore --staged -p", unstages(m("restore"))),
        ("reset", unstages(m("reset"))),
        (
            "reset --mixed -- a b",
            within(unstages(m("reset")), &["a", "b"]),
        ),
        (
            "reset HEAD~1",
            refs(unstages(m("reset")), vec![w(cur(), Update, Some("HEAD~1"))]),
        ),
        ("read-tree HEAD", unstages(m("read-tree"))),
        (
            "read-tree -m -u HEAD",
            destroys(m("read-tree"), "read-tree -u discards uncommitted changes"),
        ),
        (
            "read-tree -mu HEAD other",
            from_tree(destroys(
                m("read-tree"),
                "read-tree -u discards uncommitted changes",
            )),
        ),
        (
            "read-tree --reset -u other",
            from_tree(destroys(
                m("read-tree"),
                "read-tree -u discards uncommitted changes",
            )),
        ),
        (
            "read-tree --reset -u HEAD",
            destroys(m("read-tree"), "read-tree -u discards uncommitted changes"),
        ),
        ("read-tree -n -m -u HEAD", m("read-tree")),
        ("update-index --force-remove f", unstages(m("update-index"))),
        (
            "update-index --cacheinfo=100644,abc,f",
            unstages(m("update-index")),
        ),
        (
            "update-index --cacheinfo 100644 abc f",
            unstages(m("update-index")),
        ),
        ("update-index --index-info", unstages(m("update-index"))),
        ("update-index --unresolve f", unstages(m("update-index"))),
        ("update-index --add f", m("update-index")),
        ("update-index --refresh", m("update-index")),
        ("update-index --assume-unchanged f", m("update-index")),
        ("read-tree -n HEAD", m("read-tree")),
        ("restore .", within(destroys(m("restore"), RESTORE), &["."])),
        (
            "restore --source HEAD~1 -- path",
            from_tree(within(destroys(m("restore"), RESTORE), &["path"])),
        ),
        ("clean -n", r("clean")),
        ("clean -fdx", destroys(m("clean"), CLEAN)),
        ("clean -d -f", destroys(m("clean"), CLEAN)),
        ("stash", destroys(m("stash"), super::STASH_PUSH)),
        (
            "stash push -u -m wip",
            destroys(m("stash"), super::STASH_PUSH),
        ),
        ("stash create", m("stash")),
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
        // A short name that is a tag here (and no branch) deletes the remote's tag.
        (
            "push origin :v1",
            pushes(
                m("push"),
                to("origin", &[("", "refs/tags/v1", false, true)]),
            ),
        ),
        (
            "push origin --delete v1.0",
            pushes(
                m("push"),
                Push {
                    delete: true,
                    ..to("origin", &[("", "refs/tags/v1.0", false, true)])
                },
            ),
        ),
        (
            "push origin :feature",
            pushes(m("push"), to("origin", &[("", "feature", false, true)])),
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
                destroys(
                    m("update-ref"),
                    "update-ref -d deletes a ref and its reflog",
                ),
                vec![w(named("refs/heads/main"), Delete, None)],
            ),
        ),
        (
            "tag -d v1.0",
            refs(
                destroys(
                    m("tag"),
                    "tag -d and tag -f drop a tag's old value, which no reflog keeps",
                ),
                vec![w(named("refs/tags/v1.0"), Delete, None)],
            ),
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
        (
            "reflog expire --expire=now --all",
            destroys(
                m("reflog"),
                "reflog expire drops the entries that keep lost commits",
            ),
        ),
        ("reflog expire -n --all", m("reflog")),
        // `--updateref` moves the ref past every hook.
        (
            "reflog delete --updateref main@{0}",
            refs(
                destroys(
                    m("reflog"),
                    "reflog expire drops the entries that keep lost commits",
                ),
                vec![w(named("refs/heads/main"), Update, None)],
            ),
        ),
        (
            "reflog expire --updateref --expire=now --all",
            refs(
                destroys(
                    m("reflog"),
                    "reflog expire drops the entries that keep lost commits",
                ),
                vec![w(RefTarget::All, Update, None)],
            ),
        ),
        (
            "reflog delete --updateref HEAD@{1} v1@{0} refs/tags/v1@{0}",
            refs(
                destroys(
                    m("reflog"),
                    "reflog expire drops the entries that keep lost commits",
                ),
                vec![
                    w(cur(), Update, None),
                    w(RefTarget::All, Update, None),
                    w(named("refs/tags/v1"), Update, None),
                ],
            ),
        ),
        ("reflog delete --updateref -n main@{0}", m("reflog")),
        // git takes a long option's unique prefix.
        (
            "reflog delete --upd main@{0}",
            refs(
                destroys(
                    m("reflog"),
                    "reflog expire drops the entries that keep lost commits",
                ),
                vec![w(named("refs/heads/main"), Update, None)],
            ),
        ),
        ("reflog delete --u --dry main@{0}", m("reflog")),
        (
            "reflog delete --updateref --no-updateref main@{0}",
            destroys(
                m("reflog"),
                "reflog expire drops the entries that keep lost commits",
            ),
        ),
        // `--expire <time>` takes the next word: no ref of that name.
        (
            "reflog expire --updateref --expire now main",
            refs(
                destroys(
                    m("reflog"),
                    "reflog expire drops the entries that keep lost commits",
                ),
                vec![w(named("refs/heads/main"), Update, None)],
            ),
        ),
        ("reflog show", r("reflog")),
        (
            "gc --prune=now",
            destroys(
                m("gc"),
                "gc --prune deletes unreachable objects, lost commits among them",
            ),
        ),
        ("gc", m("gc")),
        ("gc --prune=never", m("gc")),
        (
            "prune",
            destroys(
                m("prune"),
                "prune deletes unreachable objects, lost commits among them",
            ),
        ),
        ("prune --dry-run", m("prune")),
        (
            "worktree remove --force ../wt",
            Action {
                removes_worktree: Some("../wt".into()),
                ..destroys(
                    m("worktree"),
                    "worktree remove --force deletes the worktree's uncommitted changes",
                )
            },
        ),
        ("add -A", commits(m("add"))),
        (
            "pull --rebase",
            merges(syncs(destroys(
                m("pull"),
                "pull --rebase rewrites local commits",
            ))),
        ),
        ("fetch", syncs(m("fetch"))),
        // Another branch pulled into `main` makes commits there; its own syncs.
        ("pull origin feature", commits(merges(syncs(m("pull"))))),
        ("pull --ff-only origin +feature", commits(syncs(m("pull")))),
        ("pull origin main", merges(syncs(m("pull")))),
        ("pull origin HEAD", merges(syncs(m("pull")))),
        ("pull upstream refs/heads/main", merges(syncs(m("pull")))),
        ("lfs pull", u("lfs")),
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
        Just(b"remote".to_vec()),
        Just(b"fetch".to_vec()),
        Just(b"add".to_vec()),
        Just(b"set-url".to_vec()),
        Just(b"rename".to_vec()),
        Just(b"-u".to_vec()),
        Just(b"branch.main.merge".to_vec()),
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
