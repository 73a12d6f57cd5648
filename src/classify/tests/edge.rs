//! Rows beyond the issue's list: every spelling and every rule, one row each.

use super::*;
use crate::action::CheckoutTarget;

const MERGE: &str =
    "--merge merges local changes into the files checked out, keeping no other copy of them";
const DEINIT: &str =
    "submodule deinit --force removes submodule working trees with their local changes";
const MIGRATE_REFTABLE: &str =
    "refs migrate into reftable, where git renames branches without the reference-transaction hook";
const REPLACES: &str = "branch -M/-C replaces an existing branch, and its reflog with it";
fn unseen(command: &str) -> String {
    format!("{command} makes commits that no commit-msg hook sees, so without the contract footer; make them with `git commit`")
}
const TAG_NO_REFLOG: &str = "tag -d and tag -f drop a tag's old value, which no reflog keeps";

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
        ("clone https://x/y", outside(trees(m("clone"), &["y"]))),
        (
            "clone -o up --depth 1 ../x.git/ here",
            outside(trees(m("clone"), &["here"])),
        ),
        ("clone git@host:a/b.git", outside(trees(m("clone"), &["b"]))),
        (
            "clone --separate-git-dir=/tmp/g ../x",
            outside(trees(m("clone"), &["x", "/tmp/g"])),
        ),
        ("init", outside(trees(m("init"), &["."]))),
        (
            "init -q --bare --template=/tmp/t .git/ward",
            Action {
                templates: Some("/tmp/t".into()),
                ..outside(trees(m("init"), &[".git/ward"]))
            },
        ),
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
        // A merge that may fast-forward to the branch's upstream or its
        // same-named remote-tracking branch syncs if it does (a fact).
        (
            "merge origin/main",
            ff(commits(m("merge")), "refs/remotes/origin/main"),
        ),
        (
            "merge refs/remotes/upstream/main",
            ff(commits(m("merge")), "refs/remotes/upstream/main"),
        ),
        (
            "-c branch.main.remote=origin merge",
            ff(
                repoints(commits(m("merge")), "branch.main.remote"),
                "@{upstream}",
            ),
        ),
        (
            "-c branch.main.remote=origin merge @{u}",
            ff(
                repoints(commits(m("merge")), "branch.main.remote"),
                "@{upstream}",
            ),
        ),
        // An upstream in the repository itself (remote `.`) is no sync source.
        (
            "-c branch.main.remote=. merge",
            repoints(commits(m("merge")), "branch.main.remote"),
        ),
        ("merge", commits(m("merge"))),
        // A strategy of its own makes a merge commit anyway.
        ("merge -s ours origin/main", commits(m("merge"))),
        ("merge --strategy=subtree origin/main", commits(m("merge"))),
        (
            "merge --no-ff --ff origin/main",
            ff(commits(m("merge")), "refs/remotes/origin/main"),
        ),
        ("merge origin/feature", commits(m("merge"))),
        ("merge origin/main~1", commits(m("merge"))),
        ("merge origin/main upstream/main", commits(m("merge"))),
        ("merge --no-ff origin/main", commits(m("merge"))),
        ("merge --squash origin/main", commits(m("merge"))),
        // The last of --ff, --no-ff and --ff-only wins, as in git.
        ("merge --ff-only --no-ff origin/main", commits(m("merge"))),
        ("merge --no-ff --ff-only origin/main", syncs(m("merge"))),
        ("-c merge.ff=false merge origin/main", commits(m("merge"))),
        ("-c merge.ff=only merge origin/main", syncs(m("merge"))),
        (
            "-c branch.main.mergeOptions=--no-ff merge origin/main",
            commits(m("merge")),
        ),
        (
            "push -n origin main",
            pushes(r("push"), to("origin", &[("main", "main", false, false)])),
        ),
        (
            "push -fu origin agent/x",
            pushes(
                repoints(m("push"), "branch.agent/x.merge"),
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
            pushes(
                m("push"),
                to("origin", &[("HEAD", "refs/heads/main", false, false)]),
            ),
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
                to("origin", &[("HEAD", "refs/heads/main", false, false)]),
            ),
        ),
        (
            "push --repo=upstream",
            pushes(
                m("push"),
                to("upstream", &[("HEAD", "refs/heads/main", false, false)]),
            ),
        ),
        ("push origin ^main", pushes(m("push"), to("origin", &[]))),
        // reset: commit or path, as git reads them.
        ("reset HEAD", unstages(m("reset"))),
        (
            "reset file.txt",
            within(unstages(m("reset")), &["file.txt"]),
        ),
        (
            "reset v1.0",
            refs(unstages(m("reset")), vec![w(cur(), Update, Some("v1.0"))]),
        ),
        ("reset main -- f", within(unstages(m("reset")), &["f"])),
        (
            "reset -q --keep abc1234",
            refs(
                destroys(m("reset"), "reset --keep rewrites the working tree"),
                vec![w(cur(), Update, Some("abc1234"))],
            ),
        ),
        (
            "reset --soft --hard HEAD~2",
            refs(
                destroys(m("reset"), HARD),
                vec![w(cur(), Update, Some("HEAD~2"))],
            ),
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
        (
            "checkout main file",
            from_tree(within(destroys(m("checkout"), PATHS), &["main", "file"])),
        ),
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
                    destroys(m("checkout"), "checkout -B resets an existing branch"),
                    vec![w(named("refs/heads/main"), Update, Some("origin/main"))],
                ),
                Co::New(s("main")),
            ),
        ),
        (
            "checkout -B fresh origin/main",
            co(
                refs(
                    m("checkout"),
                    vec![w(named("refs/heads/fresh"), Update, Some("origin/main"))],
                ),
                Co::New(s("fresh")),
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
                refs(
                    destroys(m("switch"), "switch -C resets an existing branch"),
                    vec![w(named("refs/heads/main"), Update, None)],
                ),
                Co::New(s("main")),
            ),
        ),
        (
            "switch -C fresh",
            co(
                refs(
                    m("switch"),
                    vec![w(named("refs/heads/fresh"), Update, None)],
                ),
                Co::New(s("fresh")),
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
        // --merge: destructive when it moves to another commit.
        (
            "switch -m main",
            co(destroys(m("switch"), MERGE), Co::Local(s("main"))),
        ),
        (
            "checkout --merge main",
            co(destroys(m("checkout"), MERGE), Co::Local(s("main"))),
        ),
        (
            "checkout -m --detach v1",
            co(destroys(m("checkout"), MERGE), Co::Detach(s("v1"))),
        ),
        (
            "checkout -mb topic main",
            co(
                refs(
                    destroys(m("checkout"), MERGE),
                    vec![w(named("refs/heads/topic"), Create, Some("main"))],
                ),
                Co::New(s("topic")),
            ),
        ),
        (
            "switch -m -c topic",
            co(
                refs(
                    m("switch"),
                    vec![w(named("refs/heads/topic"), Create, None)],
                ),
                Co::New(s("topic")),
            ),
        ),
        ("checkout -m", r("checkout")),
        (
            "checkout -fm main",
            co(
                destroys(m("checkout"), "checkout --force throws away local changes"),
                Co::Local(s("main")),
            ),
        ),
        (
            "switch origin/main",
            co(m("switch"), Co::Remote(s("origin/main"))),
        ),
        ("switch feature", co(m("switch"), Co::Local(s("feature")))),
        (
            "restore -SW f",
            within(destroys(m("restore"), RESTORE), &["f"]),
        ),
        (
            "restore --staged --worktree f",
            within(destroys(m("restore"), RESTORE), &["f"]),
        ),
        (
            "clean",
            destroys(
                m("clean"),
                "clean deletes untracked files (unless clean.requireForce stops it)",
            ),
        ),
        ("clean -fn", r("clean")),
        (
            "clean -ffd",
            Action {
                removes_repositories: Some(false),
                ..destroys(m("clean"), CLEAN)
            },
        ),
        (
            "clean -f -d -x --force",
            Action {
                removes_repositories: Some(true),
                ..destroys(m("clean"), CLEAN)
            },
        ),
        ("clean --dry-run -f", r("clean")),
        // Work inside submodules.
        (
            "submodule deinit -f sub",
            Action {
                reaches_submodules: Some(true),
                ..destroys(m("submodule"), DEINIT)
            },
        ),
        (
            "submodule --quiet deinit -qf --all",
            Action {
                reaches_submodules: Some(true),
                ..destroys(m("submodule"), DEINIT)
            },
        ),
        ("submodule deinit sub", m("submodule")),
        ("submodule deinit -- -f", m("submodule")),
        (
            "submodule update --init --force",
            Action {
                reaches_submodules: Some(false),
                ..destroys(
                    m("submodule"),
                    "submodule update --force throws away local changes in submodules",
                )
            },
        ),
        ("submodule update --init", m("submodule")),
        ("submodule -q status", r("submodule")),
        (
            "submodule foreach -q git status",
            destroys(
                m("submodule"),
                "submodule runs a command whose git commands git-ward cannot see",
            ),
        ),
        (
            "bisect run sh -c 'git clean -fdq'",
            destroys(
                m("bisect"),
                "bisect runs a command whose git commands git-ward cannot see",
            ),
        ),
        (
            "difftool -y -x 'sh -c x' HEAD",
            destroys(
                m("difftool"),
                "difftool runs a command whose git commands git-ward cannot see",
            ),
        ),
        (
            "difftool --extcmd=x HEAD",
            destroys(
                m("difftool"),
                "difftool runs a command whose git commands git-ward cannot see",
            ),
        ),
        ("difftool -y HEAD", r("difftool")),
        (
            "reset --hard --recurse-submodules",
            Action {
                reaches_submodules: Some(false),
                ..destroys(m("reset"), super::HARD)
            },
        ),
        (
            "-c submodule.recurse=yes reset --hard",
            Action {
                reaches_submodules: Some(false),
                ..destroys(m("reset"), super::HARD)
            },
        ),
        (
            "-c submodule.recurse reset --hard --no-recurse-submodules",
            destroys(m("reset"), super::HARD),
        ),
        (
            "-c submodule.recurse=false reset --hard",
            destroys(m("reset"), super::HARD),
        ),
        // Not destructive: nothing to look at in submodules.
        (
            "reset --soft --recurse-submodules HEAD~1",
            run("reset --soft HEAD~1"),
        ),
        // stash
        ("stash list", r("stash")),
        ("stash show -p", r("stash")),
        ("stash apply", commits(m("stash"))),
        // A push to git, which then refuses the word `pop`.
        (
            "stash -q pop",
            destroys(m("stash"), crate::classify::STASH_PUSH),
        ),
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
                destroys(m("branch"), REPLACES),
                vec![
                    w(named("refs/heads/a"), Delete, None),
                    w(named("refs/heads/main"), Update, None),
                ],
            ),
        ),
        (
            "branch -C feature",
            refs(
                destroys(m("branch"), REPLACES),
                vec![w(named("refs/heads/feature"), Update, None)],
            ),
        ),
        // Forced onto a name that does not exist, or onto itself: nothing replaced.
        (
            "branch -M a fresh",
            refs(
                m("branch"),
                vec![
                    w(named("refs/heads/a"), Delete, None),
                    w(named("refs/heads/fresh"), Update, None),
                ],
            ),
        ),
        (
            "branch -M main",
            refs(
                m("branch"),
                vec![
                    w(cur(), Delete, None),
                    w(named("refs/heads/main"), Update, None),
                ],
            ),
        ),
        (
            "branch -c a b",
            refs(m("branch"), vec![w(named("refs/heads/b"), Create, None)]),
        ),
        (
            "branch -u origin/main",
            repoints(m("branch"), "branch.main.merge"),
        ),
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
            refs(
                destroys(m("tag"), TAG_NO_REFLOG),
                vec![w(named("refs/tags/v1"), Update, None)],
            ),
        ),
        // No such tag yet: `-f` only creates it.
        (
            "tag -f v10",
            refs(m("tag"), vec![w(named("refs/tags/v10"), Create, None)]),
        ),
        (
            "tag -d v1 v2",
            refs(
                destroys(m("tag"), TAG_NO_REFLOG),
                vec![
                    w(named("refs/tags/v1"), Delete, None),
                    w(named("refs/tags/v2"), Delete, None),
                ],
            ),
        ),
        ("tag -d", m("tag")),
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
                destroys(
                    m("symbolic-ref"),
                    "symbolic-ref replaces the value a ref held",
                ),
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
            refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
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
                vec![w(named("refs/heads/main"), Update, Some("origin/main"))],
            )),
        ),
        (
            "fetch origin +refs/heads/agent/x:main",
            syncs(refs(
                m("fetch"),
                vec![w(named("refs/heads/main"), Update, Some("origin/agent/x"))],
            )),
        ),
        (
            "fetch /tmp/elsewhere main:main",
            syncs(refs(
                m("fetch"),
                vec![w(named("refs/heads/main"), Update, None)],
            )),
        ),
        (
            "fetch origin refs/tags/v1:main",
            syncs(refs(
                m("fetch"),
                vec![w(named("refs/heads/main"), Update, None)],
            )),
        ),
        (
            "fetch origin +refs/heads/x:refs/remotes/origin/x",
            syncs(m("fetch")),
        ),
        // Same names from a configured remote: the hook judges each ref.
        (
            "fetch origin 'refs/heads/*:refs/heads/*'",
            syncs(m("fetch")),
        ),
        (
            "fetch origin '+refs/heads/*:refs/heads/*'",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        (
            "fetch /tmp/x 'refs/heads/*:refs/heads/*'",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        (
            "fetch origin 'refs/heads/agent/*:refs/heads/*'",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        // Tags without `+` (or `--force`) are only created.
        ("fetch origin 'refs/tags/*:refs/tags/*'", syncs(m("fetch"))),
        (
            "fetch -f origin 'refs/tags/*:refs/tags/*'",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        (
            "fetch origin '+refs/tags/*:refs/tags/*'",
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
        (
            "fetch --prune-tags origin",
            Action {
                fetch_prunes: true,
                ..syncs(destroys(
                    m("fetch"),
                    "fetch --prune-tags deletes local tags the remote lacks",
                ))
            },
        ),
        (
            "fetch -ft origin",
            syncs(refs(m("fetch"), vec![w(RefTarget::All, Update, None)])),
        ),
        ("fetch -t origin", syncs(m("fetch"))),
        ("pull --ff-only", syncs(m("pull"))),
        ("pull --rebase=false", merges(syncs(m("pull")))),
        ("pull", merges(syncs(m("pull")))),
        ("pull --ff-only --ff", merges(syncs(m("pull")))),
        ("pull --no-ff --ff-only origin", syncs(m("pull"))),
        (
            "pull -r origin main:main",
            merges(syncs(destroys(
                refs(
                    m("pull"),
                    vec![w(named("refs/heads/main"), Update, Some("origin/main"))],
                ),
                "pull --rebase rewrites local commits",
            ))),
        ),
        (
            "pull --no-verify",
            syncs(hooks(
                merges(m("pull")),
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
            Action {
                reaches_submodules: Some(true),
                ..within(
                    commits(destroys(
                        m("rm"),
                        "rm -f deletes files whatever their uncommitted changes",
                    )),
                    &["x"],
                )
            },
        ),
        (
            "rm --cached -f x",
            within(unstages(commits(m("rm"))), &["x"]),
        ),
        ("rm --cached x", commits(m("rm"))),
        ("mv a b", commits(m("mv"))),
        (
            "mv -f a b",
            commits(destroys(
                m("mv"),
                "mv -f overwrites the destination, tracked or not",
            )),
        ),
        (
            "mv -kf a b",
            commits(destroys(
                m("mv"),
                "mv -f overwrites the destination, tracked or not",
            )),
        ),
        ("mv -n -f a b", r("mv")),
        ("apply p.diff", destroys(m("apply"), APPLY)),
        ("apply -R p.diff", destroys(m("apply"), APPLY)),
        ("apply --index p.diff", destroys(commits(m("apply")), APPLY)),
        ("apply --cached p.diff", commits(m("apply"))),
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
        (
            "reflog delete HEAD@{1}",
            destroys(
                m("reflog"),
                "reflog expire drops the entries that keep lost commits",
            ),
        ),
        ("remote", r("remote")),
        ("remote -v", r("remote")),
        ("remote show origin", r("remote")),
        (
            "remote add x y",
            Action {
                remote_change: Some(crate::action::RemoteChange::Add("x".into())),
                ..m("remote")
            },
        ),
        ("worktree list", r("worktree")),
        (
            "worktree prune -v",
            Action {
                prunes_worktrees: true,
                ..destroys(m("worktree"), crate::classify::WORKTREE_PRUNE)
            },
        ),
        ("worktree prune --dry-run", m("worktree")),
        ("worktree prune -nv", m("worktree")),
        (
            "worktree remove ../wt",
            Action {
                removes_worktree: Some("../wt".into()),
                ..destroys(
                    m("worktree"),
                    "worktree remove deletes the worktree's HEAD, the only ref to commits made there detached",
                )
            },
        ),
        (
            "worktree add ../topic",
            refs(
                trees(m("worktree"), &["../topic"]),
                vec![w(named("refs/heads/topic"), Create, None)],
            ),
        ),
        ("worktree add ../wt", trees(m("worktree"), &["../wt"])),
        (
            "worktree add -b n ../p main",
            refs(
                trees(m("worktree"), &["../p"]),
                vec![w(named("refs/heads/n"), Create, Some("main"))],
            ),
        ),
        (
            "worktree add ../p only-remote",
            refs(
                trees(m("worktree"), &["../p"]),
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
            hooks(
                refs(m("fast-import"), vec![w(RefTarget::All, Update, None)]),
                &unseen("fast-import"),
            ),
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
        (
            "cherry-pick --skip",
            commits(destroys(
                m("cherry-pick"),
                "cherry-pick --skip throws away the changes of the commit in progress",
            )),
        ),
        (
            "revert --skip",
            commits(destroys(
                m("revert"),
                "revert --skip throws away the changes of the commit in progress",
            )),
        ),
        (
            "am --skip",
            commits(destroys(
                m("am"),
                "am --skip throws away the changes of the patch in progress",
            )),
        ),
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
        (
            "replace a b",
            refs(m("replace"), vec![w(named("refs/replace/a"), Create, None)]),
        ),
        (
            "replace -d a",
            refs(m("replace"), vec![w(named("refs/replace/a"), Delete, None)]),
        ),
        ("rerere status", r("rerere")),
        ("rerere forget x", m("rerere")),
        ("bundle verify b", r("bundle")),
        ("bundle unbundle b", m("bundle")),
        ("hash-object f", r("hash-object")),
        ("hash-object -w f", m("hash-object")),
        ("interpret-trailers --in-place f", m("interpret-trailers")),
        ("interpret-trailers f", r("interpret-trailers")),
        ("refs verify", r("refs")),
        (
            "refs migrate --ref-format=reftable",
            hooks(m("refs"), MIGRATE_REFTABLE),
        ),
        (
            "refs migrate --ref-format reftable --no-reflog",
            hooks(m("refs"), MIGRATE_REFTABLE),
        ),
        ("refs migrate --ref-format=reftable --dry-run", m("refs")),
        // The last --ref-format, the last word on --dry-run, prefixes.
        (
            "refs migrate --ref-format=files --ref-format=reftable",
            hooks(m("refs"), MIGRATE_REFTABLE),
        ),
        (
            "refs migrate --dry-run --no-dry-run --ref-format=reftable",
            hooks(m("refs"), MIGRATE_REFTABLE),
        ),
        (
            "refs migrate --ref-f=reftable",
            hooks(m("refs"), MIGRATE_REFTABLE),
        ),
        ("refs migrate --dry --ref-format=reftable", m("refs")),
        (
            "refs migrate --ref-format=files --dry-run",
            Action {
                migrates_to_files: true,
                ..m("refs")
            },
        ),
        (
            "refs migrate --ref-f=files",
            Action {
                migrates_to_files: true,
                ..m("refs")
            },
        ),
        (
            "refs migrate --ref-format=files",
            Action {
                migrates_to_files: true,
                ..m("refs")
            },
        ),
        (
            "refs migrate --ref-format files",
            Action {
                migrates_to_files: true,
                ..m("refs")
            },
        ),
        ("commit-graph verify", r("commit-graph")),
        ("commit-graph write", m("commit-graph")),
        ("notes", r("notes")),
        (
            "commit-tree HEAD^{tree}",
            hooks(m("commit-tree"), &unseen("commit-tree")),
        ),
        ("hash-object -w -t blob f", m("hash-object")),
        (
            "hash-object -w -t commit --stdin",
            hooks(m("hash-object"), &unseen("hash-object")),
        ),
        (
            "replace --graft a b",
            hooks(
                refs(m("replace"), vec![w(named("refs/replace/a"), Create, None)]),
                &unseen("replace"),
            ),
        ),
        (
            "replace --edit a",
            hooks(
                refs(m("replace"), vec![w(named("refs/replace/a"), Create, None)]),
                &unseen("replace"),
            ),
        ),
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
        (
            "co -- .",
            alias(within(destroys(m("checkout"), PATHS), &["."]), "co"),
        ),
        ("st", alias(r("status"), "st")),
        ("amend", alias(commits(m("commit")), "amend")),
        (
            "deep",
            alias(hooks(commits(m("commit")), NO_VERIFY), "deep"),
        ),
        ("nv", alias(hooks(commits(m("commit")), HOOKS_PATH), "nv")),
        (
            "sh",
            alias(
                destroys(
                    u("sh"),
                    "the shell alias 'sh' runs commands git-ward cannot see",
                ),
                "sh",
            ),
        ),
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
        ("-c alias.x=ci x", given_alias(commits(m("commit")), "x")),
        (
            "-c alias.rb='rebase -i' rb main",
            given_alias(
                refs(destroys(m("rebase"), REBASE), vec![w(cur(), Update, None)]),
                "rb",
            ),
        ),
    ];
    check(rows);
}

const APPLY: &str = "apply rewrites working tree files in place";

/// `checkout <tree> --pathspec-from-file=<f>` restores the paths the file
/// lists, or, when it lists none, switches to `<tree>`: read as both, so
/// that `checkout.local_only` and the switch rules still see the target.
#[test]
fn a_pathspec_file_leaves_the_checkout_target_in_sight() {
    for (line, target) in [
        (
            "checkout --pathspec-from-file=/dev/null origin/main",
            CheckoutTarget::Remote("origin/main".into()),
        ),
        (
            "checkout --pathspec-from-file /dev/null -",
            CheckoutTarget::Special("-".into()),
        ),
        (
            "checkout feature --pathspec-from-file=list",
            CheckoutTarget::Local("feature".into()),
        ),
    ] {
        let a = run(line);
        assert_eq!(a.checkout, Some(target), "git {line}");
        assert!(a.destructive.is_some(), "git {line}");
    }
    // Without a tree-ish, or with `-p`, nothing to switch to.
    assert_eq!(run("checkout --pathspec-from-file=list").checkout, None);
    assert_eq!(run("checkout -p origin/main").checkout, None);
}
