//! One row per command line: the git invocations it runs, where, with what.

use super::{split, GitCall};

/// `(line, [(args joined by spaces, dirs joined by '/', env as NAME=VALUE)])`
fn calls(line: &str) -> Vec<(String, String, String)> {
    let out = split(line);
    assert_eq!(out.unreadable, None, "{line:?} should be readable");
    out.git
        .iter()
        .map(|c: &GitCall| {
            (
                c.args.join(" "),
                c.dirs.join("/"),
                c.env
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .collect()
}

fn row(args: &str, dirs: &str, env: &str) -> (String, String, String) {
    (args.into(), dirs.into(), env.into())
}

#[test]
fn every_git_in_a_line_is_found() {
    type Row<'a> = (&'a str, &'a [(&'a str, &'a str, &'a str)]);
    let table: &[Row] = &[
        ("git status", &[("status", "", "")]),
        (
            "git status && git log",
            &[("status", "", ""), ("log", "", "")],
        ),
        (
            "git a || git b; git c | git d & git e",
            &[
                ("a", "", ""),
                ("b", "", ""),
                ("c", "", ""),
                ("d", "", ""),
                ("e", "", ""),
            ],
        ),
        ("git a\ngit b", &[("a", "", ""), ("b", "", "")]),
        ("(git a; git b)", &[("a", "", ""), ("b", "", "")]),
        ("echo $(git rev-parse HEAD)", &[("rev-parse HEAD", "", "")]),
        ("echo \"`git log -1`\"", &[("log -1", "", "")]),
        (
            "diff <(git show a) <(git show b)",
            &[("show a", "", ""), ("show b", "", "")],
        ),
        (
            "/usr/bin/git -c core.hooksPath=/dev/null commit -m x",
            &[("-c core.hooksPath=/dev/null commit -m x", "", "")],
        ),
        ("\\git push", &[("push", "", "")]),
        ("'git' push", &[("push", "", "")]),
        ("g\"i\"t push", &[("push", "", "")]),
        (
            "git commit -m 'a b' -m \"c \\\"d\\\"\"",
            &[("commit -m a b -m c \"d\"", "", "")],
        ),
        ("cd sub && git commit -m x", &[("commit -m x", "sub", "")]),
        (
            "cd sub; cd ../other && git status",
            &[("status", "sub/../other", "")],
        ),
        (
            "(cd sub && git a); git b",
            &[("a", "sub", ""), ("b", "", "")],
        ),
        (
            "pushd /tmp/r >/dev/null && git status",
            &[("status", "/tmp/r", "")],
        ),
        ("git -C sub status", &[("-C sub status", "", "")]),
        ("GIT_DIR=/x git status", &[("status", "", "GIT_DIR=/x")]),
        ("A=1 B='2 3' git status", &[("status", "", "A=1 B=2 3")]),
        (
            "env GIT_CONFIG_GLOBAL=/tmp/c git commit",
            &[("commit", "", "GIT_CONFIG_GLOBAL=/tmp/c")],
        ),
        (
            "env -i -u HOME X=1 /usr/bin/git status",
            &[("status", "", "X=1")],
        ),
        ("env -C sub git status", &[("status", "sub", "")]),
        ("sh -c 'git reset --hard'", &[("reset --hard", "", "")]),
        ("bash -c \"git reset --hard\"", &[("reset --hard", "", "")]),
        (
            "bash -lc 'cd sub && git push -f'",
            &[("push -f", "sub", "")],
        ),
        ("X=1 bash -c 'Y=2 git a'", &[("a", "", "X=1 Y=2")]),
        ("sh -c \"sh -c 'git deep'\"", &[("deep", "", "")]),
        ("eval git push --force", &[("push --force", "", "")]),
        ("command git status", &[("status", "", "")]),
        ("exec git status", &[("status", "", "")]),
        ("nohup nice -n 5 git gc", &[("gc", "", "")]),
        ("timeout -s KILL 10 git fetch", &[("fetch", "", "")]),
        ("sudo git status", &[("status", "", "")]),
        (
            "if git diff --quiet; then git commit -m x; fi",
            &[("diff --quiet", "", ""), ("commit -m x", "", "")],
        ),
        ("for f in a b; do git add $f; done", &[("add $f", "", "")]),
        ("{ git a; git b; }", &[("a", "", ""), ("b", "", "")]),
        ("! git diff --quiet", &[("diff --quiet", "", "")]),
        ("git log > out.txt 2>&1", &[("log", "", "")]),
        ("git log &> out.txt", &[("log", "", "")]),
        ("git log # git push --force", &[("log", "", "")]),
        (
            "git commit -F - <<EOF\ngit push --force\nEOF\ngit status",
            &[("commit -F -", "", ""), ("status", "", "")],
        ),
        (
            "git commit -m \"$(cat <<'EOF'\nSubject\n\nBody git push\nEOF\n)\"",
            &[(
                "commit -m $(cat <<'EOF'\nSubject\n\nBody git push\nEOF\n)",
                "",
                "",
            )],
        ),
        (
            "git commit -m x \\\n  --amend",
            &[("commit -m x --amend", "", "")],
        ),
        ("echo $((1 + 2)) && git status", &[("status", "", "")]),
    ];
    for (line, want) in table {
        let want: Vec<_> = want.iter().map(|(a, d, e)| row(a, d, e)).collect();
        assert_eq!(calls(line), want, "{line:?}");
    }
}

#[test]
fn lines_without_git_run_none() {
    for line in [
        "ls -la",
        "echo git",
        "cat .gitignore",
        "grep -r git .",
        "gitk",
        "legit push",
    ] {
        let out = split(line);
        assert!(out.git.is_empty(), "{line:?}: {:?}", out.git);
        assert!(out.others, "{line:?}");
    }
    // What this reader cannot follow is no concern where git is never named.
    assert_eq!(split("case x in a) ls;; esac").unreadable, None);
}

#[test]
fn only_git_and_cd_is_all_git() {
    assert!(!split("cd sub && git status && git log").others);
    assert!(split("git status && rm -rf /").others);
    assert!(split("git log | head").others);
    assert!(!split("bash -c 'cd sub && git status'").others);
    assert!(split("bash -c 'git status; make'").others);
}

#[test]
fn a_value_known_only_when_the_shell_runs_is_marked() {
    assert!(split("git push origin \"$BRANCH\"").git[0].opaque);
    assert!(split("git commit -m \"$(date)\"").git[0].opaque);
    assert!(!split("git commit -m '$(date)'").git[0].opaque);
    assert_eq!(split("git commit -m '$(date)'").git[0].args[2], "$(date)");
}

#[test]
fn what_cannot_be_read_where_git_may_hide_is_unreadable() {
    for line in [
        "git commit -m 'unclosed",
        "git commit -m \"unclosed",
        "echo $(git status",
        "$GIT push --force",
        "$(which git) push --force",
        "cd \"$DIR\" && git commit -m x",
        "cd && git status",
        "cd - && git status",
        "popd && git push",
        "git ls-files | xargs git rm",
        "case $x in a) git push;; esac",
        "f() { git push --force; }; f",
        "sudo -u bob git push",
        "sh -c \"$CMD git\"",
        "git commit -F - <<EOF\nno end",
        "env -S 'git push' x",
    ] {
        assert!(
            split(line).unreadable.is_some(),
            "{line:?}: {:?}",
            split(line)
        );
    }
}

#[test]
fn a_shell_running_a_script_file_hides_nothing_it_can_see() {
    let out = split("bash ./deploy.sh && git status");
    assert_eq!(out.unreadable, None);
    assert_eq!(out.git.len(), 1);
    assert!(out.others);
}

#[test]
fn command_v_only_looks_git_up() {
    let out = split("command -v git");
    assert!(out.git.is_empty());
    assert_eq!(out.unreadable, None);
}

/// Found by fuzzing (docs/fuzzing.md): a parenthesis opened inside
/// backquotes and left open when they close read the closing backquote as
/// an empty word, again and again, until memory ran out.
#[test]
fn a_backquote_closing_an_open_parenthesis_is_unreadable() {
    for line in [
        "(git `(o`t a;;s $(git",
        "echo `(git push`",
        "x `(a` && git status",
    ] {
        assert!(
            split(line).unreadable.is_some(),
            "{line:?}: {:?}",
            split(line)
        );
    }
    assert_eq!(calls("echo `git rev-parse HEAD`").len(), 1);
}
