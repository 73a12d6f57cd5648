//! Commands that write a file over whatever is there: every spelling that
//! writes, and the look-alikes that do not.

use super::*;

/// `a`, writing `file` over what is there.
fn writes(a: Action, file: &str) -> Action {
    let why = format!("{} writes '{file}' over what is there", a.command);
    Action {
        effect: Effect::Mutating,
        writes_file: Some(file.into()),
        ..destroys(a, &why)
    }
}

#[test]
fn files_written_over_what_is_there() {
    check(vec![
        ("diff --output=a.txt", writes(r("diff"), "a.txt")),
        ("diff HEAD --output a.txt", writes(r("diff"), "a.txt")),
        ("log -1 --output=.git/x", writes(r("log"), ".git/x")),
        ("show --stat --output=o", writes(r("show"), "o")),
        ("rev-list HEAD --output=o", writes(r("rev-list"), "o")),
        ("blame --output=o a.txt", writes(r("blame"), "o")),
        ("diff-tree HEAD --output=o", writes(r("diff-tree"), "o")),
        ("stash list --output=o", writes(r("stash"), "o")),
        ("archive -o x.tar HEAD", writes(r("archive"), "x.tar")),
        ("archive -ox.tar HEAD", writes(r("archive"), "x.tar")),
        ("archive --output=x.tar HEAD", writes(r("archive"), "x.tar")),
        ("format-patch -o out -1", writes(r("format-patch"), "out")),
        (
            "format-patch --output-directory=out -1",
            writes(r("format-patch"), "out"),
        ),
        (
            "bundle create b.bundle HEAD",
            writes(r("bundle"), "b.bundle"),
        ),
        (
            "merge-file -L a -L b -L c x.txt y.txt z.txt",
            writes(m("merge-file"), "x.txt"),
        ),
        // Nothing written: after `--`, another option, to stdout.
        ("log -- --output=x", r("log")),
        ("diff --output-indicator-new=+", r("diff")),
        ("ls-files -o", r("ls-files")),
        ("log -o", r("log")),
        ("bundle verify b.bundle", r("bundle")),
        ("merge-file -p x.txt y.txt z.txt", m("merge-file")),
    ]);
}

#[test]
fn the_fast_path_leaves_every_writing_spelling_to_the_full_road() {
    let words = |line: &str| -> Vec<OsString> { line.split(' ').map(OsString::from).collect() };
    for line in [
        "diff --output=a.txt",
        "log --output a.txt",
        "archive -o x.tar HEAD",
        "format-patch -oout -1",
        "bundle create b HEAD",
    ] {
        let w = words(line);
        let command = w[0].to_str().unwrap();
        assert!(may_write_file(command, &w[1..]), "{line}");
    }
    for line in ["diff HEAD", "log -- --output=x", "ls-files -o", "status"] {
        let w = words(line);
        let command = w[0].to_str().unwrap();
        assert!(!may_write_file(command, &w[1..]), "{line}");
    }
}
