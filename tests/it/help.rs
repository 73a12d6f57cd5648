//! Help where a person looks for it: `git ward` alone, a group alone, a
//! mistyped command, `git ward --help` through git (its man page),
//! completions.

use std::process::Command;

use crate::common::{real_git, ward_bin, TestRepo};

#[test]
fn git_ward_alone_and_each_group_alone_list_their_commands() {
    let repo = TestRepo::new();
    let run = repo.ward(Vec::<&str>::new()).code(2);
    assert!(run.stderr.contains("Commands:"), "{}", run.stderr);
    for command in ["undo", "checkpoint", "policy", "completions"] {
        assert!(run.stderr.contains(command), "{command}: {}", run.stderr);
    }
    assert!(!run.stderr.contains("EN-GIT-I-001"), "{}", run.stderr);
    for (group, commands) in [
        ("policy", &["show", "check"][..]),
        ("contract", &["start", "end", "show"][..]),
    ] {
        let run = repo.ward([group]).code(2);
        assert!(!run.stderr.contains("EN-GIT-I-001"), "{}", run.stderr);
        for command in commands {
            assert!(
                run.stderr.contains(command),
                "{group} {command}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    let repo = TestRepo::new();
    repo.ward(["udno"])
        .code(2)
        .stderr_has("EN-GIT-I-001")
        .stderr_has("'undo'");
}

#[test]
fn completions_name_every_command_for_each_shell() {
    let repo = TestRepo::new();
    for shell in ["bash", "zsh", "fish"] {
        let run = repo.ward(["completions", shell]).ok();
        for command in ["checkpoints", "rollback", "undo", "contract"] {
            assert!(run.stdout.contains(command), "{shell} {command}");
        }
    }
    let bash = repo.ward(["completions", "bash"]).ok().stdout;
    assert!(bash.contains("-o default git-ward"), "{bash}");
    repo.ward(["completions", "tcsh-not"]).code(2);
}

/// `git ward --help` is git's `man git-ward`: the page `./install` puts
/// beside the binary, which `man` finds through PATH.
#[test]
fn git_ward_help_through_git_opens_the_man_page() {
    let repo = TestRepo::new();
    let prefix = repo.home.join("prefix");
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    crate::common::copy_ward_bin(&bin.join("git-ward"));
    let man1 = prefix.join("share/man/man1");
    repo.ward(["man".as_ref(), man1.as_os_str()])
        .ok()
        .stdout_has("man pages");
    for page in ["git-ward.1", "git-ward-undo.1", "git-ward-policy-show.1"] {
        assert!(man1.join(page).exists(), "{page}");
    }
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        bin.display(),
        real_git().parent().unwrap().display()
    );
    let mut cmd = Command::new(real_git());
    repo.hermetic(&mut cmd);
    let out = cmd
        .args(["ward", "--help"])
        .env("PATH", &path)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .env("WARD_REAL_GIT", real_git())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.contains("git-ward"), "{text}");
    assert!(text.contains("rollback"), "{text}");
    assert!(ward_bin().exists());
}
