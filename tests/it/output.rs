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

/// Runs git-ward with stdout on a pseudo-terminal; what it printed there.
fn at_terminal(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> String {
    use std::io::Read;
    use std::os::fd::FromRawFd;
    // SAFETY: posix_openpt returns a fresh descriptor (or -1), owned once here;
    // grantpt, unlockpt and ptsname_r get that open master and a buffer of
    // the length they are told.
    let (mut master, name) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        assert_eq!(libc::ptsname_r(fd, name.as_mut_ptr(), name.len()), 0);
        let name = std::ffi::CStr::from_ptr(name.as_ptr())
            .to_str()
            .unwrap()
            .to_string();
        (std::fs::File::from_raw_fd(fd), name)
    };
    let slave = std::fs::OpenOptions::new().write(true).open(&name).unwrap();
    // The command (which holds the terminal's other end) ends here, so
    // that reading sees the end once the child is gone.
    let status = {
        let mut cmd = repo.ward_command(args);
        cmd.envs(env.iter().copied())
            .stdout(std::process::Stdio::from(slave))
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
    };
    assert!(status.code().is_some());
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    // The terminal's buffer holds what was written; EIO once it is drained.
    while let Ok(n) = master.read(&mut buf) {
        if n == 0 {
            break;
        }
        text.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&text).into_owned()
}

#[test]
fn colour_on_a_terminal_only_and_never_with_no_color() {
    let repo = TestRepo::new();
    let explain = [
        "explain",
        "--as-agent",
        "--",
        "push",
        "--force",
        "origin",
        "main",
    ];
    let coloured = at_terminal(&repo, &explain, &[]);
    assert!(coloured.contains("\x1b[31mdeny\x1b[0m"), "{coloured:?}");
    for env in [("NO_COLOR", "1"), ("CLICOLOR", "0")] {
        let plain = at_terminal(&repo, &explain, &[env]);
        assert!(
            plain.contains("deny") && !plain.contains('\x1b'),
            "{env:?}: {plain:?}"
        );
    }
    let piped = repo.ward(explain).ok().stdout;
    assert!(!piped.contains('\x1b'), "{piped:?}");
}
