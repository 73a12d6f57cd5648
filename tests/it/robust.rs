//! Malformed input never makes git-ward panic: garbage on a hook's stdin,
//! odd hook arguments, corrupt files under `<git-common-dir>/ward/`, odd
//! environment values, a reader that goes away. A failure is an error
//! with a hint; a hook that guards a protected ref fails closed.

use std::os::fd::FromRawFd;
use std::process::{Command, Stdio};

use crate::common::{real_git, ward_bin, Run, TestRepo};

/// Asserts the process ended without a panic (Rust's exit code 101, the
/// "panicked" line on stderr).
#[track_caller]
fn no_panic(run: &Run, what: &str) {
    assert_ne!(run.code, Some(101), "{what}: exit 101\n{}", run.stderr);
    assert!(
        !run.stderr.contains("panicked"),
        "{what}: panicked\n{}",
        run.stderr
    );
}

#[test]
fn output_into_a_reader_that_went_away_is_dropped_without_a_panic() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git_env(
        ["commit", "--allow-empty", "-m", "x"],
        &[("WARD_AGENT", "1")],
    );
    for args in [
        &["audit"][..],
        &["audit", "--json"],
        &["explain", "commit", "-m", "x"],
        &["checkpoints"],
        &["policy", "show"],
    ] {
        // stdout is a pipe whose reading end is already closed.
        let mut fds = [0; 2];
        // SAFETY: pipe(2) fills two fresh descriptors, each owned once below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        // SAFETY: fds[0] is ours and closed here, fds[1] is handed to the child.
        let (read, write) = unsafe {
            (
                std::fs::File::from_raw_fd(fds[0]),
                std::fs::File::from_raw_fd(fds[1]),
            )
        };
        drop(read);
        let mut cmd = Command::new(ward_bin());
        repo.hermetic(&mut cmd);
        cmd.env("WARD_REAL_GIT", real_git())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(write))
            .stderr(Stdio::piped());
        let output = cmd.output().expect("run git-ward");
        no_panic(&run_of(output), &format!("{args:?}"));
    }
}

/// A finished process as a [`Run`].
fn run_of(output: std::process::Output) -> Run {
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        output,
    }
}

#[test]
fn audit_reads_over_garbage_lines_and_any_since() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git_env(
        ["commit", "--allow-empty", "-m", "x"],
        &[("WARD_AGENT", "1")],
    );
    let dir = repo.dir.join(".git/ward/audit");
    let mut garbage = b"garbage\n{\n{\"timestamp\":5}\n\xff\xfe\n".to_vec();
    garbage.extend_from_slice(
        br#"{"timestamp":"99999999999999999-99-99T99:99:99.999Z","started_at":"","duration_ms":0,"trace_id":"","source":"x","actor":"agent","contract_id":null,"operation":"","argv":[],"tier":1,"decision":"allow","branch_before":null,"branch_after":null,"actions_taken":[],"denial_code":null,"exit_code":null,"worktree":null}"#,
    );
    garbage.push(b'\n');
    std::fs::write(dir.join("audit.1999-01-01.jsonl"), &garbage).unwrap();
    std::fs::write(dir.join("audit.x"), vec![0xffu8; 100_000]).unwrap();
    for since in ["1d", "200000000000000d", "0s"] {
        let run = repo.ward(["audit", "--since", since]);
        no_panic(&run, since);
        run.ok();
    }
    repo.ward(["audit", "--json"])
        .ok()
        .stdout_has("\"decision\":\"deny\"");
}
