//! Malformed input never makes git-ward panic: garbage on a hook's stdin,
//! odd hook arguments, corrupt files under `<git-common-dir>/ward/`, odd
//! environment values, a reader that goes away. A failure is an error
//! with a hint; a hook that guards a protected ref fails closed.

use std::ffi::OsStr;
use std::io::Write;
use std::os::fd::FromRawFd;
use std::os::unix::ffi::OsStrExt;
use std::process::Stdio;

use crate::common::{Run, TestRepo};

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
        let mut cmd = repo.ward_command(args);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::from(write))
            .stderr(Stdio::piped());
        let output = cmd.output().expect("run git-ward");
        let run = Run::from(output);
        no_panic(&run, &format!("{args:?}"));
        // Not killed by SIGPIPE half way: git-ward ignores it.
        assert!(run.code.is_some(), "{args:?}: killed by a signal");
    }
}

#[test]
fn closed_standard_descriptors_are_opened_on_dev_null_before_anything_else() {
    use std::os::unix::process::CommandExt;
    let repo = TestRepo::new();
    // The MCP server waits on stdin: its descriptors can be looked at.
    let mut cmd = repo.ward_command(["mcp"]);
    // SAFETY: close(2) in the child between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::close(1);
            libc::close(2);
            Ok(())
        });
    }
    let mut child = cmd.stdin(Stdio::piped()).spawn().expect("run git-ward");
    let fds = format!("/proc/{}/fd", child.id());
    let mut targets = Vec::new();
    for _ in 0..200 {
        // Until the binary runs (the link names it) and has done its start.
        targets = [1, 2]
            .map(|fd| std::fs::read_link(format!("{fds}/{fd}")).ok())
            .to_vec();
        let exe = std::fs::read_link(format!("/proc/{}/exe", child.id())).ok();
        if exe.is_some_and(|e| e.ends_with("git-ward")) && targets.iter().all(Option::is_some) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    drop(child.stdin.take());
    let status = child.wait().expect("wait");
    for target in &targets {
        assert_eq!(
            target.as_deref(),
            Some(std::path::Path::new("/dev/null")),
            "{targets:?}"
        );
    }
    assert!(status.code().is_some(), "{status:?}");
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
/// `git-ward <args>` with `stdin` bytes and extra (possibly non-UTF-8) environment.
fn ward_with(repo: &TestRepo, args: &[&OsStr], stdin: &[u8], env: &[(&str, &OsStr)]) -> Run {
    let mut cmd = repo.ward_command(args);
    cmd.envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run git-ward");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // git-ward may exit without reading all of it.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().expect("wait for git-ward");
    writer.join().unwrap();
    Run::from(output)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

#[test]
fn hooks_take_garbage_on_stdin_and_in_arguments_without_a_panic() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let mut inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"garbage".to_vec(),
        b"a b\n\n \r\n".to_vec(),
        b"\xff\xfe \x00 refs/heads/\xff\r\n".to_vec(),
        format!("{} {} refs/heads/main\r\n", "0".repeat(40), "g".repeat(40)).into_bytes(),
    ];
    inputs.push(vec![b'x'; 1 << 20]);
    inputs.push((0..=255u8).cycle().take(5000).collect());
    let hooks = [
        "reference-transaction",
        "pre-push",
        "pre-receive",
        "pre-commit",
        "commit-msg",
    ];
    let bad = OsStr::from_bytes(b"\xff\xfe");
    let arg_sets: [&[&OsStr]; 4] = [
        &[],
        &[os("preparing")],
        &[os("prepared"), os("extra"), os("more")],
        &[bad, bad],
    ];
    for hook in hooks {
        for args in arg_sets {
            for (i, input) in inputs.iter().enumerate() {
                let mut argv = vec![os("hook"), os(hook)];
                argv.extend_from_slice(args);
                let run = ward_with(&repo, &argv, input, &[("WARD_AGENT", os("1"))]);
                no_panic(&run, &format!("{hook} {args:?} input {i}"));
            }
        }
    }
}

#[test]
fn a_protected_ref_in_odd_hook_input_is_still_refused() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let z = "0".repeat(40);
    let head = repo.rev("HEAD").unwrap();
    let agent = [("WARD_AGENT", os("1"))];
    // A new value that is no object id still moves main.
    for line in [
        format!("{head} nothex refs/heads/main\r\n"),
        format!("{head} {z} refs/heads/main\n\u{ff}garbage\n"),
    ] {
        for state in ["preparing", "prepared"] {
            let args = [os("hook"), os("reference-transaction"), os(state)];
            let run = ward_with(&repo, &args, line.as_bytes(), &agent);
            no_panic(&run, &line);
            assert_eq!(run.code, Some(1), "{line:?} {state}: {}", run.stderr);
        }
    }
    // A push deleting main, alone (EN-GIT-D-005) and amid lines that are
    // not git's (refused whole: what they push cannot be judged).
    let alone = format!("(delete) {z} refs/heads/main {head}\n");
    let amid = format!("junk\n(delete) {z} refs/heads/main {head}\r\n\u{ff}\n");
    let args = [os("hook"), os("pre-push"), os("origin"), os("url")];
    for push in [alone, amid] {
        let run = ward_with(&repo, &args, push.as_bytes(), &agent);
        no_panic(&run, "pre-push");
        assert_ne!(run.code, Some(0), "{}", run.stderr);
        assert!(run.stderr.contains("ward: denied ["), "{}", run.stderr);
    }
    // On a server, for everyone: a non-hex new value is no fast-forward.
    let receive = format!("{head} nothex refs/heads/main\n");
    let args = [os("hook"), os("pre-receive")];
    let run = ward_with(&repo, &args, receive.as_bytes(), &[]);
    no_panic(&run, "pre-receive");
    assert_ne!(run.code, Some(0), "{}", run.stderr);
}

#[test]
fn a_chained_hook_runs_from_a_hooks_directory_that_is_not_utf8() {
    let repo = TestRepo::new();
    let dir = repo.tmp.path().join(OsStr::from_bytes(b"hooks-\xff"));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = repo.path("chained-ran");
    let orig = dir.join("pre-commit.ward-orig");
    std::fs::write(&orig, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&orig, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = ward_with(
        &repo,
        &[os("hook"), os("pre-commit")],
        b"",
        &[("WARD_HOOK_DIR", dir.as_os_str())],
    );
    no_panic(&run, "pre-commit");
    run.ok();
    assert!(marker.exists(), "the chained hook did not run");
}

#[test]
fn a_contract_that_is_not_utf8_marks_an_agent_and_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    let bad = OsStr::from_bytes(b"c\xff1");
    let args = [os("explain"), os("--"), os("commit"), os("-m"), os("x")];
    let run = ward_with(&repo, &args, b"", &[("WARD_CONTRACT", bad)]);
    no_panic(&run, "WARD_CONTRACT not UTF-8");
    run.ok()
        .stdout_has("decision:   deny")
        .stdout_has("EN-GIT-I-001")
        .stdout_has("invalid contract id");
    // Through the shim: refused as the invalid argument it is.
    repo.shim_env(
        ["commit", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "no good")],
    )
    .code(1)
    .stderr_has("ward: denied [EN-GIT-I-001] commit refused: invalid contract id 'no good'")
    .stderr_has("hint: a contract id is");
    // Through the hooks, with no other agent marker: still an agent.
    repo.ward(["install"]).ok();
    let before = repo.rev("main");
    let mut cmd = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut cmd);
    let out = cmd
        .current_dir(&repo.dir)
        .args(["commit", "-q", "--allow-empty", "-m", "x"])
        .env("WARD_CONTRACT", bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(repo.rev("main"), before);
}

#[test]
fn a_linked_worktree_at_a_path_that_is_not_utf8_is_found_and_guarded() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "second"])
        .ok();
    let main = repo.rev("main");
    let wt = repo.tmp.path().join(OsStr::from_bytes(b"wt-\xe9t\xe9"));
    let mut add = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut add);
    let out = add
        .current_dir(&repo.dir)
        .args([os("worktree"), os("add"), os("-q"), os("-b"), os("feat")])
        .arg(&wt)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut update = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut update);
    let out = update
        .current_dir(&wt)
        .args(["update-ref", "refs/heads/main", "HEAD~1"])
        .env("WARD_AGENT", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("EN-GIT-D-001"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.rev("main"), main);
    // The shim finds the repository from there as git does: reads take the
    // fast path (the worktree's `.git` file names a path that is not UTF-8).
    let mut status = repo.shim_command(["status", "--short"]);
    let out = status
        .current_dir(&wt)
        .env("WARD_LOG", "debug")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("read-only fast path"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Outside a repository every tool command that needs one answers an
/// invalid argument (EN-GIT-I-001, exit 2), not an internal error; so
/// does `install --shim` over a file.
#[test]
fn outside_a_repository_the_tool_answers_invalid() {
    let repo = TestRepo::new();
    let outside = crate::common::sibling(&repo, "outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("a-file"), "x\n").unwrap();
    for args in [
        &["install", "--json"][..],
        &["uninstall", "--json"],
        &["checkpoint", "--json"],
        &["install", "--shim", "a-file", "--json"],
    ] {
        let mut cmd = repo.ward_command(args);
        cmd.current_dir(&outside)
            .env("GIT_CEILING_DIRECTORIES", repo.tmp.path());
        let out = cmd.output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {v}");
        assert_eq!(v["code"], "EN-GIT-I-001", "{args:?}: {v}");
        assert!(v["hint"].is_string(), "{args:?}: {v}");
    }
}

/// `--json` answers a usage error as any other: one object
/// of status `I` on stdout, besides clap's words on stderr; after `--` the
/// words are git's, whose `--json` asks nothing of git-ward.
#[test]
fn usage_errors_answer_in_json_when_asked() {
    let repo = TestRepo::new();
    for args in [
        &["rollback", "--json"][..],
        &["contract", "start", "--json", "-x"],
        &["checkpoints", "--json", "--bogus"],
        &["audit", "--json", "--since"],
        &["no-such-command", "--json"],
    ] {
        let (run, v) = repo.ward_json(args, &[]);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert_eq!(v["status"], "I", "{args:?}: {v}");
        assert_eq!(v["code"], "EN-GIT-I-001", "{args:?}: {v}");
        assert!(v["hint"].is_string(), "{args:?}: {v}");
    }
    repo.ward(["explain", "--", "log", "--json"])
        .ok()
        .stdout_has("git.log");
    // In text, the usual `ward:` line and its hint, then the usage.
    let run = repo
        .ward(["rollback"])
        .code(2)
        .stderr_has("ward: invalid [EN-GIT-I-001]")
        .stderr_has("\nhint: ")
        .stderr_has("Usage: git-ward rollback");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

/// A file git-ward reads that never ends (`/dev/zero`) or never opens for
/// writing (a FIFO) is an error, never a hang.
#[test]
fn a_policy_or_state_file_that_never_ends_is_an_error_not_a_hang() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let ward = repo.dir.join(".git/ward");
    std::fs::create_dir_all(&ward).unwrap();
    let finishes = |mut cmd: std::process::Command| {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        for _ in 0..200 {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = child.kill();
        panic!("still running after 20 s");
    };
    // The hooks' settings cache: rebuilt, a person's commit goes through.
    std::os::unix::fs::symlink("/dev/zero", ward.join("hook-cache.json")).unwrap();
    let mut commit = std::process::Command::new(crate::common::real_git());
    repo.hermetic(&mut commit);
    commit.args(["commit", "-q", "--allow-empty", "-m", "x"]);
    assert!(finishes(commit).success());
    // A user config file the environment names that never ends.
    let mut explain = repo.ward_command(["explain", "--", "commit", "-m", "x"]);
    explain.env("GIT_CONFIG_GLOBAL", "/dev/zero");
    assert!(finishes(explain).success());
    // The contract file and a checkpoint sequence file: a read through
    // the shim, a contract started over it, a checkpoint all finish.
    std::os::unix::fs::symlink("/dev/zero", ward.join("contract")).unwrap();
    let mut status = repo.shim_command(["status", "--short"]);
    status.env_remove("WARD_CONTRACT");
    assert!(finishes(status).success());
    std::fs::create_dir_all(ward.join("seq")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", ward.join("seq/chk-local")).unwrap();
    let checkpoint = repo.ward_command(["checkpoint"]);
    assert!(finishes(checkpoint).success());
    let start = repo.ward_command(["contract", "start", "c9"]);
    assert!(finishes(start).success());
    // The local policy layer: the tool says it cannot read it.
    std::os::unix::fs::symlink("/dev/zero", ward.join("policy.toml")).unwrap();
    let show = repo.ward_command(["policy", "show"]);
    assert_eq!(finishes(show).code(), Some(3));
}

#[test]
fn a_checkpoint_ref_naming_a_missing_object_hides_no_other_checkpoint() {
    let repo = TestRepo::new();
    let id = repo.checkpoint("kept");
    // A damaged repository: a checkpoint ref whose commit is gone.
    let refs = repo.dir.join(".git/refs/ward/checkpoints");
    std::fs::write(refs.join("chk-local-9"), format!("{}\n", "1".repeat(40))).unwrap();
    let run = repo.ward(["checkpoints"]);
    no_panic(&run, "checkpoints");
    run.ok()
        .stdout_has(&id)
        .stderr_has("refs/ward/checkpoints/chk-local-9 names a missing object");
    repo.ward(["turn", "--tests", "true"])
        .ok()
        .stdout_has("Turn 1: tests pass");
}

#[test]
fn a_garbled_contract_file_is_named_with_the_way_out() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let file = repo.dir.join(".git/ward/contract");
    for garbage in [&b"c1\nc2\n"[..], b"\xff\xfe\n"] {
        std::fs::write(&file, garbage).unwrap();
        let run = repo.ward(["contract", "show"]);
        no_panic(&run, "contract show");
        run.code(2)
            .stderr_has("invalid contract id")
            .stderr_has(".git/ward/contract")
            .stderr_has("git ward contract end");
        // The footer hook says the same, and leaves the commit alone.
        let before = repo.rev("HEAD");
        repo.git_env(
            ["commit", "-q", "--allow-empty", "-m", "x"],
            &[("WARD_AGENT", "1")],
        )
        .stderr_has(".git/ward/contract");
        assert_eq!(repo.rev("HEAD"), before);
    }
    repo.ward(["contract", "end"]).ok();
    repo.ward(["contract", "show"])
        .ok()
        .stdout_has("no active contract");
}

#[test]
fn an_install_record_that_cannot_be_written_is_named_with_a_hint() {
    let repo = TestRepo::new();
    let record = repo.dir.join(".git/ward/install.json");
    std::fs::create_dir_all(&record).unwrap();
    let run = repo.ward(["install"]);
    no_panic(&run, "install");
    run.code(3)
        .stderr_has("cannot write")
        .stderr_has(".git/ward/install.json")
        .stderr_has("hint: make");
    std::fs::remove_dir(&record).unwrap();
    repo.ward(["install"]).ok();
    assert!(record.is_file());
}

#[test]
fn a_file_where_a_directory_belongs_is_named_in_the_error() {
    let repo = TestRepo::new();
    let hooks = repo.dir.join(".git/hooks");
    std::fs::remove_dir_all(&hooks).unwrap();
    std::fs::write(&hooks, "not a directory\n").unwrap();
    let run = repo.ward(["install"]).code(3);
    no_panic(&run, "install");
    run.stderr_has(&format!("cannot create the directory {}", hooks.display()));
    std::fs::remove_file(&hooks).unwrap();

    let ward = repo.dir.join(".git/ward");
    let _ = std::fs::remove_dir_all(&ward);
    std::fs::write(&ward, "not a directory\n").unwrap();
    repo.ward(["contract", "start", "c1"])
        .code(3)
        .stderr_has(&ward.display().to_string());
}

#[test]
fn a_hook_that_cannot_read_the_policy_refuses_as_a_denial() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[branches\n");
    let run = repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_AGENT", "1")],
    );
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("ward: denied [EN-GIT-E-001]") && run.stderr.contains("\nhint: "),
        "{}",
        run.stderr
    );
}

#[test]
fn a_ward_policy_path_that_is_not_utf8_is_honoured() {
    let repo = TestRepo::new();
    let path = repo.tmp.path().join(OsStr::from_bytes(b"p\xff.toml"));
    std::fs::write(&path, "[enforce]\nactors = \"everyone\"\n").unwrap();
    let run = ward_with(
        &repo,
        &[os("policy"), os("show")],
        b"",
        &[("WARD_POLICY", path.as_os_str())],
    );
    assert!(
        run.stdout.contains("actors = \"everyone\""),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

/// A SHA-256 repository, which git-ward cannot read: an agent's mutating
/// commands are refused as without facts (so nothing runs unchecked and
/// without a checkpoint), reads pass, and the tool says why.
#[test]
fn a_repository_git_ward_cannot_read_refuses_mutations_and_says_why() {
    let repo = TestRepo::new();
    let dir = repo.path("sha");
    repo.git([
        "init",
        "-q",
        "--object-format=sha256",
        "-b",
        "main",
        dir.to_str().unwrap(),
    ])
    .ok();
    std::fs::write(dir.join("a.txt"), "one\n").unwrap();
    repo.git_in(&dir, ["add", "a.txt"]).ok();
    repo.git_in(&dir, ["commit", "-q", "-m", "one"]).ok();
    std::fs::write(dir.join("a.txt"), "work\n").unwrap();
    let agent = [("WARD_CONTRACT", "c1")];
    repo.shim_in(&dir, ["reset", "--hard"], &agent)
        .code(1)
        .stderr_has("[EN-GIT-E-001]")
        .stderr_has("sha256 objects")
        .stderr_has("hint: ");
    assert_eq!(
        std::fs::read_to_string(dir.join("a.txt")).unwrap(),
        "work\n"
    );
    repo.shim_in(&dir, ["status", "--short"], &agent)
        .ok()
        .stdout_has(" M a.txt");
    let mut cmd = repo.ward_command(["checkpoint"]);
    cmd.current_dir(&dir);
    crate::common::Run::from(cmd.output().unwrap())
        .code(3)
        .stderr_has("sha256 objects");
}

/// A destructive command told of a working tree that is not a directory:
/// nothing runs, and the error names that directory, not git.
#[test]
fn a_working_tree_that_is_not_a_directory_is_named_in_the_error() {
    let repo = TestRepo::new();
    repo.write("untracked.txt", "keep\n");
    let run = repo.shim_env(
        ["--work-tree=nothere", "clean", "-fd"],
        &[("WARD_CONTRACT", "c1")],
    );
    no_panic(&run, "clean with a missing work tree");
    run.code(3)
        .stderr_has("the working tree")
        .stderr_has("nothere is not a directory")
        .stderr_has("hint: nothing was run; check --work-tree");
    assert!(repo.dir.join("untracked.txt").exists());
}

/// A line pre-push cannot read is shown once escaped, as it came.
#[test]
fn a_line_pre_push_cannot_read_is_shown_escaped_once() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let args = [os("hook"), os("pre-push"), os("origin"), os("url")];
    let run = ward_with(&repo, &args, b"junk\x19line\n", &[("WARD_AGENT", os("1"))]);
    no_panic(&run, "pre-push");
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot read the line 'junk\\u{19}line'"),
        "{}",
        run.stderr
    );
}
