//! Output a person reads: the shim's checkpoint line, doctor's hints.

use crate::common::TestRepo;

const AGENT: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

#[test]
fn the_shim_says_which_checkpoint_it_took_and_how_to_undo() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.write("README", "an hour of work\n");
    repo.shim_env(["reset", "-q", "--hard"], AGENT)
        .ok()
        .stderr_has("ward: checkpoint chk-c1-1 saved your changes; undo with git ward undo --yes");
    // Nothing to lose, nothing said.
    let run = repo.shim_env(["reset", "-q", "--hard"], AGENT).ok();
    assert!(!run.stderr.contains("checkpoint"), "{}", run.stderr);
}

#[test]
fn doctor_gives_each_hint_once_and_changes_nothing_without_fix() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.ward(["install", "--shim"]).ok();
    for hook in ["pre-commit", "commit-msg", "pre-push"] {
        std::fs::write(
            repo.dir.join(".git/hooks").join(hook),
            "#!/bin/sh\nexit 0\n",
        )
        .unwrap();
    }
    let audit = repo.dir.join(".git/ward/audit");
    if audit.exists() {
        std::fs::remove_dir_all(&audit).unwrap();
    }
    let run = repo.ward(["doctor"]).code(3);
    assert_eq!(
        run.stdout.matches("doctor --fix").count(),
        1,
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("pre-push hook was replaced"),
        "{}",
        run.stdout
    );
    // The shim exists: no hint to create it.
    assert!(!run.stdout.contains("install --shim"), "{}", run.stdout);
    assert!(!audit.exists(), "doctor created {}", audit.display());
    repo.ward(["doctor", "--fix"]).ok();
    assert!(audit.exists());
}

/// Columns fit their content: a long branch name pushes the next column
/// along in every row, and the header with it.
#[test]
fn the_checkpoint_table_aligns_long_branch_names() {
    let repo = TestRepo::new();
    repo.git([
        "switch",
        "-q",
        "-c",
        "agent/a-rather-long-branch-name-indeed",
    ])
    .ok();
    repo.write("README", "one\n");
    repo.checkpoint("one");
    repo.git(["switch", "-q", "-c", "b"]).ok();
    repo.write("README", "two\n");
    repo.checkpoint("two");
    let text = repo.ward(["checkpoints"]).ok().stdout;
    let lines: Vec<&str> = text.lines().collect();
    let head = lines[0].find("HEAD").unwrap();
    let contract = lines[0].find("CONTRACT").unwrap();
    for line in &lines[1..] {
        assert_eq!(line.as_bytes()[head - 1], b' ', "{text}");
        assert_ne!(line.as_bytes()[head], b' ', "{text}");
        assert_eq!(&line[contract..contract + 1], "-", "{text}");
    }
}

#[test]
fn explain_says_what_a_command_destroys_in_words() {
    let repo = TestRepo::new();
    repo.ward(["explain", "--", "clean", "-fd"])
        .ok()
        .stdout_has("destroys:   clean -f deletes untracked files");
}
