//! Commands that write a file over whatever is there: every spelling that
//! writes, and the look-alikes that do not.

use super::*;

/// `a`, writing `file` over what is there.
fn writes(a: Action, file: &str) -> Action {
    let why = format!("{} writes '{file}' over what is there", a.command);
    Action {
        effect: Effect::Mutating,
        writes_files: vec![file.into()],
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

/// Commands that write files by other options or by their arguments: the
/// files they name, each a destructive, mutating write.
#[test]
fn other_writers_name_every_file_they_write() {
    for (line, files) in [
        ("mailinfo msg.txt patch.txt", &["msg.txt", "patch.txt"][..]),
        ("mailinfo -k -u --scissors m p", &["m", "p"]),
        (
            "mailinfo -- .git/ward/policy.toml p",
            &[".git/ward/policy.toml", "p"],
        ),
        ("mailinfo -k -- m p", &["m", "p"]),
        ("mailinfo --end-of-options m p", &["m", "p"]),
        ("merge-file -- .git/hooks/x b o", &[".git/hooks/x"]),
        ("merge-file -L a -- cur b o", &["cur"]),
        ("bundle create -- .git/hooks/x HEAD", &[".git/hooks/x"]),
        ("bundle create -q --version=2 f HEAD", &["f"]),
        (
            "credential-store --file=.git/hooks/x store",
            &[".git/hooks/x"],
        ),
        (
            "credential-store --file .git/hooks/x store",
            &[".git/hooks/x"],
        ),
        (
            "credential-cache --socket .git/hooks/x exit",
            &[".git/hooks/x"],
        ),
        ("credential-cache--daemon .git/hooks/x", &[".git/hooks/x"]),
        ("mailsplit -oout mbox", &["out"]),
        (
            "read-tree --index-output=.git/hooks/x HEAD",
            &[".git/hooks/x"],
        ),
        ("read-tree --index-out=x HEAD", &["x"]),
        ("fast-export --export-marks=marks HEAD", &["marks"]),
        ("fast-export --export-marks marks HEAD", &["marks"]),
        (
            "fast-import --export-marks=m --export-pack-edges=e",
            &["m", "e"],
        ),
        ("index-pack -o idx pack", &["idx"]),
        ("checkout-index -a --prefix=.git/hooks/", &[".git/hooks/"]),
        ("checkout-index -a --prefix .git/hooks/", &[".git/hooks/"]),
        ("checkout-index -a --pref=out/", &["out/"]),
        (
            "config -f .git/ward/policy.toml branches.protected []",
            &[".git/ward/policy.toml"],
        ),
        ("config --file=p.toml set a.b c", &["p.toml"]),
    ] {
        let a = run(line);
        let want: Vec<String> = files.iter().map(|f| f.to_string()).collect();
        assert_eq!(a.writes_files, want, "git {line}");
        assert_ne!(a.effect, Effect::Read, "git {line}");
        assert!(a.destructive.is_some(), "git {line}");
    }
    // Reads, and options that only look alike.
    for line in [
        "config -f p.toml --get a.b",
        "config --file p.toml --list",
        "config get --file=p.toml a.b",
        "fast-export --import-marks=m HEAD",
        "read-tree --index-output HEAD",
        "checkout-index -a",
    ] {
        let a = run(line);
        assert!(
            a.writes_files.is_empty() || line == "read-tree --index-output HEAD",
            "git {line}: {:?}",
            a.writes_files
        );
    }
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
        "mailinfo m p",
        "mailsplit -oout mbox",
        "fast-export --export-marks=m HEAD",
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
