//! The shim: transparent when it allows, exact when it refuses.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

use crate::common::{real_git, remote_rev, with_remote, TestRepo};

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

// --- Transparency -------------------------------------------------------

#[test]
fn exit_codes_pass_through() {
    let repo = TestRepo::new();
    repo.shim(["rev-parse", "--verify", "nope"]).code(128);
    repo.shim(["status", "--no-such-option"]).code(129);
    repo.shim(["status"]).ok();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    // A mutating command that fails runs as a child: its status still passes through.
    repo.shim(["commit", "-q", "-m", "nothing to commit"])
        .code(1);
}

#[test]
fn outside_a_repository_git_runs_untouched() {
    let repo = TestRepo::new();
    let outside = repo.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let mut cmd = repo.shim_command(["status"]);
    cmd.current_dir(&outside)
        .env("GIT_CEILING_DIRECTORIES", repo.tmp.path());
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(128));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a git repository"));
    repo.shim(["--version"]).ok().stdout_has("git version");
    let new = repo.path("fresh");
    repo.shim(["init", "-q", new.to_str().unwrap()]).ok();
    assert!(new.join(".git").exists());
}

#[test]
fn binary_data_passes_through_unchanged() {
    let repo = TestRepo::new();
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let data: Vec<u8> = (0..200 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let run = |mut cmd: std::process::Command, input: &[u8]| {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = input.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        out
    };
    let mut plain = std::process::Command::new(real_git());
    repo.hermetic(&mut plain);
    plain.args(["hash-object", "-w", "--stdin"]);
    let want = run(plain, &data);
    let got = run(repo.shim_command(["hash-object", "-w", "--stdin"]), &data);
    assert_eq!(got.stdout, want.stdout);
    let oid = String::from_utf8(want.stdout).unwrap();

    let request = format!("{}\n", oid.trim());
    let mut plain = std::process::Command::new(real_git());
    repo.hermetic(&mut plain);
    plain.args(["cat-file", "--batch"]);
    let want = run(plain, request.as_bytes());
    let got = run(
        repo.shim_command(["cat-file", "--batch"]),
        request.as_bytes(),
    );
    assert_eq!(got.stdout.len(), want.stdout.len());
    assert!(got.stdout == want.stdout, "cat-file --batch output differs");
    assert!(want
        .stdout
        .windows(data.len())
        .any(|w| w == data.as_slice()));
}

#[test]
fn messages_arrive_unchanged() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    let message = "subject with 'quotes' and \"double\" $HOME *.rs `tick`\n\nbody: ünïcödé ✓ — line\n\tindented";
    repo.shim(["commit", "-q", "--allow-empty", "-m", message])
        .ok();
    let body = repo.git(["log", "-1", "--format=%B"]).ok().stdout;
    assert_eq!(body.trim_end(), message);
}

#[test]
fn a_read_hands_git_the_environment_once_with_the_markers_and_sigpipe_default() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::new();
    // A stand-in for the real git that shows what it was given, first on
    // PATH after the shim (`WARD_REAL_GIT` is inert for agents).
    let probe_dir = repo.path("probe");
    std::fs::create_dir_all(&probe_dir).unwrap();
    let probe = probe_dir.join("git");
    std::fs::write(
        &probe,
        "#!/bin/sh\necho \"args: $*\"\nenv\ngrep SigIgn /proc/$$/status\n",
    )
    .unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = repo
        .shim_env(
            ["status", "--short"],
            &[
                (
                    "PATH",
                    &format!(
                        "{}:{}:/usr/bin:/bin",
                        repo.shim_dir.display(),
                        probe_dir.display()
                    ),
                ),
                ("WARD_TRACE_ID", "t-outer"),
                ("WARD_AGENT", "0"),
                ("KEPT_AS_IS", "a=b c"),
            ],
        )
        .ok()
        .stdout;
    assert!(out.starts_with("args: status --short\n"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    let once = |line: &str| lines.iter().filter(|l| **l == line).count() == 1;
    assert!(once("KEPT_AS_IS=a=b c"), "{out}");
    assert!(once("WARD_TRACE_ID=t-outer"), "{out}");
    assert!(once("WARD_VIA=shim"), "{out}");
    assert!(once("WARD_AGENT=1"), "{out}");
    assert!(!lines.contains(&"WARD_AGENT=0"), "{out}");
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("WARD_SHIM_SEEN="))
            .count(),
        1,
        "{out}"
    );
    // SIGPIPE (13) is not ignored: `git log | head` ends git quietly.
    let ignored = lines
        .iter()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .map(|m| u64::from_str_radix(m.trim(), 16).unwrap())
        .unwrap();
    assert_eq!(ignored & (1 << 12), 0, "{out}");
}

#[test]
fn non_utf8_arguments_are_preserved() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(repo.dir.join(name), "x").unwrap();
    repo.shim([std::ffi::OsStr::new("add"), name]).ok();
    let listed = repo
        .git(["-c", "core.quotepath=false", "ls-files", "-z"])
        .ok()
        .output
        .stdout;
    assert!(listed.windows(8).any(|w| w == b"caf\xe9.txt"), "{listed:?}");
}

#[test]
fn a_signal_to_the_shim_reaches_git_and_its_status_passes_through() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    // A mutating command (runs as a child) that blocks in its editor.
    let mut child = repo
        .shim_command(["-c", "core.editor=sleep 30 #", "commit", "--allow-empty"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    assert!(
        status.signal() == Some(libc::SIGTERM) || status.code() == Some(128 + libc::SIGTERM),
        "{status:?}"
    );
    assert_eq!(
        repo.git(["rev-list", "--count", "HEAD"]).stdout.trim(),
        "1",
        "no commit was made"
    );
}

#[test]
fn no_real_git_is_exit_127_with_a_hint() {
    let repo = TestRepo::new();
    let mut cmd = repo.shim_command(["status"]);
    cmd.env_remove("WARD_REAL_GIT").env("PATH", &repo.shim_dir);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(127));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ward: error [EN-GIT-E-001] no real git found on PATH"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
}

#[test]
fn the_shim_skips_itself_and_copies_of_itself_on_path() {
    let repo = TestRepo::new();
    // Two shim directories, one a copy (other inode), both before the real git.
    let copy_dir = repo.path("shim-copy");
    std::fs::create_dir_all(&copy_dir).unwrap();
    crate::common::copy_ward_bin(&copy_dir.join("git"));
    let mut cmd = repo.shim_command(["rev-parse", "--is-inside-work-tree"]);
    let path = format!(
        "{}:{}:{}",
        repo.shim_dir.display(),
        copy_dir.display(),
        real_git().parent().unwrap().display()
    );
    cmd.env_remove("WARD_REAL_GIT").env("PATH", path);
    let out = cmd.output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "true",
        "{:?}",
        out
    );
}

// --- The rules through the shim ------------------------------------------

#[test]
fn commit_on_main_without_contract_is_denied_and_changes_nothing() {
    let repo = TestRepo::new();
    let main = repo.rev("main");
    repo.write("a.txt", "a");
    repo.shim(["add", "a.txt"])
        .code(1)
        .stderr_has("EN-GIT-D-003");
    repo.git(["add", "a.txt"]).ok();
    repo.shim(["commit", "-m", "x"])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-003]")
        .stderr_has("hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry");
    assert_eq!(repo.rev("main"), main);
    assert_eq!(repo.branch(), "main");
    assert!(repo.rev("refs/heads/agent/c1").is_none());
}

#[test]
fn commit_on_main_with_contract_moves_to_the_agent_branch_carrying_the_work() {
    let repo = TestRepo::new();
    let main = repo.rev("main");
    repo.write("a.txt", "work");
    repo.git(["add", "a.txt"]).ok();
    repo.write("README", "changed, unstaged\n");
    repo.shim_env(["commit", "-q", "-m", "work"], C1)
        .ok()
        .stderr_has("ward: on protected 'main'; switched to 'agent/c1'");
    assert_eq!(repo.rev("main"), main, "main did not move");
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.rev("agent/c1~1"), main);
    assert_eq!(repo.git(["show", "agent/c1:a.txt"]).ok().stdout, "work");
    assert_eq!(
        repo.read("README").unwrap(),
        "changed, unstaged\n",
        "unstaged work carried"
    );

    // Sticky: a new contract on the agent branch stays there.
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "more"],
        &[("WARD_CONTRACT", "c2")],
    )
    .ok();
    assert_eq!(repo.branch(), "agent/c1");
    assert!(repo.rev("refs/heads/agent/c2").is_none());
}

/// A branch that is a symbolic ref to main is main to a commit: without
/// the hooks too, the shim moves the agent (or refuses without a contract).
#[test]
fn a_branch_that_is_a_symbolic_ref_to_main_is_main() {
    let repo = TestRepo::new();
    let main = repo.rev("main");
    repo.git(["symbolic-ref", "refs/heads/foo", "refs/heads/main"])
        .ok();
    repo.git(["symbolic-ref", "HEAD", "refs/heads/foo"]).ok();
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("[EN-GIT-D-003] commit on protected branch 'main'");
    assert_eq!(repo.rev("main"), main);
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.rev("main"), main);
    assert_eq!(repo.branch(), "agent/c1");
}

/// `rebase --update-refs` over a stack of the agent's own branches moves
/// them all; a protected branch in the range is the hook's to refuse.
#[test]
fn rebase_update_refs_moves_the_agents_stack_not_a_protected_branch() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/part1"]).ok();
    repo.write("p1", "1\n").commit("p1");
    repo.git(["switch", "-q", "-c", "agent/part2"]).ok();
    repo.write("p2", "2\n").commit("p2");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("m", "m\n").commit("m");
    repo.git(["switch", "-q", "agent/part2"]).ok();
    repo.shim_env(["rebase", "-q", "--update-refs", "main"], C1)
        .ok();
    let main = repo.rev("main");
    assert_eq!(repo.rev("agent/part2~2"), main);
    assert_eq!(repo.rev("agent/part1~1"), main);
    // Now a protected branch points into the range: it stays.
    repo.git(["branch", "release/1", "agent/part1"]).ok();
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("m", "m2\n").commit("m2");
    repo.git(["switch", "-q", "agent/part2"]).ok();
    let release = repo.rev("release/1");
    repo.shim_env(["rebase", "-q", "--update-refs", "main"], C1)
        .stderr_has("[EN-GIT-D-001] rebase moves protected ref 'release/1'");
    assert_eq!(repo.rev("release/1"), release);
}

/// `reflog delete|expire --updateref` moves a ref past every hook (git
/// writes it outside any reference transaction): the shim judges it.
#[test]
fn reflog_updateref_of_a_protected_branch_is_refused() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.write("m", "m\n").commit("m");
    let main = repo.rev("main");
    for args in [
        &["reflog", "delete", "--updateref", "main@{0}"][..],
        &["reflog", "delete", "--updateref", "HEAD@{0}"],
        &[
            "reflog",
            "delete",
            "--updateref",
            "--rewrite",
            "refs/heads/main@{0}",
        ],
        &["reflog", "expire", "--updateref", "--expire=now", "--all"],
        // A long option's unique prefix, as git takes it.
        &["reflog", "delete", "--upd", "main@{0}"],
    ] {
        repo.shim_env(args, C1)
            .code(1)
            .stderr_has("ward: denied [EN-GIT-D-001] reflog")
            .stderr_has("hint:");
        assert_eq!(repo.rev("main"), main, "{args:?}");
    }
    // On a branch of its own it goes through, checkpointed first.
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("m", "m2\n").commit("m2");
    repo.shim_env(["reflog", "delete", "--updateref", "agent/c1@{0}"], C1)
        .ok();
    assert_eq!(repo.rev("agent/c1"), main);
}

/// Another exec path runs its own `git-upload-pack` for a local remote,
/// which could serve the agent's commits as `origin/main`: a fetch with
/// one is refused, whether from `--exec-path=` or `GIT_EXEC_PATH`; git's
/// own (which git sets for aliases and hooks) is fine.
#[test]
fn a_fetch_through_another_exec_path_is_refused() {
    let repo = with_remote();
    let fake = repo.path("fake-exec");
    std::fs::create_dir(&fake).unwrap();
    let fake_arg = format!("--exec-path={}", fake.display());
    repo.shim_env([fake_arg.as_str(), "fetch", "-q", "origin"], C1)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-001] fetch runs git's helpers from another exec path")
        .stderr_has("hint: run it without --exec-path");
    repo.shim_env(
        ["pull", "-q", "--ff-only"],
        &[
            ("WARD_CONTRACT", "c1"),
            ("GIT_EXEC_PATH", fake.to_str().unwrap()),
        ],
    )
    .code(1)
    .stderr_has("[EN-GIT-D-001]");
    let own = repo.shim(["--exec-path"]).ok().stdout;
    let own = own.trim();
    repo.shim_env(
        ["fetch", "-q", "origin"],
        &[("WARD_CONTRACT", "c1"), ("GIT_EXEC_PATH", own)],
    )
    .ok();
    // Empty, git takes its own.
    repo.shim_env(
        ["fetch", "-q", "origin"],
        &[("WARD_CONTRACT", "c1"), ("GIT_EXEC_PATH", "")],
    )
    .ok();
    repo.shim_env([format!("--exec-path={own}").as_str(), "fetch", "-q"], C1)
        .ok();
}

/// A git directory made by hand (`HEAD`, and a `commondir` naming the
/// repository) whose `config.worktree` sends hooks elsewhere switches them
/// off for a command run through it, like a config file the environment
/// names: refused. A linked worktree git made runs them as ever.
#[test]
fn a_hand_made_git_dir_that_switches_hooks_off_is_refused() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.git(["config", "extensions.worktreeConfig", "true"])
        .ok();
    let fake = crate::common::sibling(&repo, "fake");
    let nohooks = crate::common::sibling(&repo, "nohooks");
    std::fs::create_dir_all(&nohooks).unwrap();
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("HEAD"), "ref: refs/heads/agent/c1\n").unwrap();
    std::fs::write(
        fake.join("commondir"),
        format!("{}\n", repo.dir.join(".git").display()),
    )
    .unwrap();
    std::fs::write(
        fake.join("gitdir"),
        format!("{}\n", repo.dir.join(".git").display()),
    )
    .unwrap();
    std::fs::write(
        fake.join("config.worktree"),
        format!("[core]\n\thooksPath = {}\n", nohooks.display()),
    )
    .unwrap();
    let main = repo.rev("main");
    let git_dir = format!("--git-dir={}", fake.display());
    repo.shim_env(
        [
            git_dir.as_str(),
            "--work-tree=.",
            "update-ref",
            "refs/heads/main",
            "HEAD",
        ],
        C1,
    )
    .code(1)
    .stderr_has("ward: denied [EN-GIT-D-004]")
    .stderr_has("none of the repository's worktrees");
    repo.shim_env(
        ["--work-tree=.", "commit", "--allow-empty", "-qm", "x"],
        &[("WARD_CONTRACT", "c1"), ("GIT_DIR", fake.to_str().unwrap())],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004");
    assert_eq!(repo.rev("main"), main);
    // A linked worktree of git's making runs the hooks: no refusal there.
    let wt = crate::common::sibling(&repo, "wt");
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "agent/wt",
        wt.to_str().unwrap(),
    ])
    .ok();
    repo.shim_in(&wt, ["commit", "--allow-empty", "-qm", "wt work"], C1)
        .ok();
    repo.shim_in(&wt, ["update-ref", "refs/heads/main", "HEAD"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("main"), main);
}

/// The agent branch is its own: no upstream inherited from main.
#[test]
fn a_new_agent_branch_tracks_nothing_whatever_autosetupmerge_says() {
    let repo = with_remote();
    repo.git(["branch", "-q", "--set-upstream-to=origin/main", "main"])
        .ok();
    repo.git(["config", "branch.autoSetupMerge", "inherit"])
        .ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "work"], C1)
        .ok();
    assert_eq!(repo.branch(), "agent/c1");
    repo.git(["rev-parse", "--abbrev-ref", "agent/c1@{upstream}"])
        .code(128);
}

#[test]
fn an_existing_agent_branch_is_checked_out_not_recreated() {
    let repo = TestRepo::new();
    repo.git(["branch", "agent/c1"]).ok();
    repo.git(["switch", "-q", "agent/c1"]).ok();
    repo.commit("earlier work");
    let agent_tip = repo.rev("agent/c1");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("new.txt", "n");
    repo.git(["add", "new.txt"]).ok();
    repo.shim_env(["commit", "-q", "-m", "next"], C1).ok();
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.rev("agent/c1~1"), agent_tip);
}

/// The agent stages a file on main and commits: the shim moves it.
fn commit_staged_work(repo: &TestRepo) {
    repo.write("new.txt", "n");
    repo.git(["add", "new.txt"]).ok();
    repo.shim_env(["commit", "-q", "-m", "next"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
}

/// An agent branch a remote has (pushed from another clone) is resumed:
/// made from the remote's, tracking it, not started again at HEAD.
#[test]
fn an_agent_branch_only_a_remote_has_is_resumed_from_it() {
    let repo = with_remote();
    // The ref journal, for the undo below.
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.commit("earlier session");
    let pushed = repo.rev("agent/c1");
    repo.git(["push", "-q", "origin", "agent/c1"]).ok();
    repo.git(["switch", "-q", "main"]).ok();
    repo.git(["branch", "-q", "-D", "agent/c1"]).ok();
    commit_staged_work(&repo);
    assert_eq!(repo.rev("agent/c1~1"), pushed);
    assert_eq!(
        repo.git(["rev-parse", "--abbrev-ref", "agent/c1@{upstream}"])
            .ok()
            .stdout
            .trim(),
        "origin/agent/c1"
    );
    // Undone: back on main with the work staged; and redone.
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.branch(), "main");
    assert!(repo.rev("refs/heads/agent/c1").is_none());
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "A  new.txt\n"
    );
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.branch(), "agent/c1");
    repo.shim_env(["push", "-q", "origin", "agent/c1"], C1).ok();
    assert_eq!(remote_rev(&repo, "agent/c1"), repo.rev("agent/c1"));
}

/// The same on a protected branch with no commit yet (a fresh `git init`
/// that fetched the remote): resumed from the remote's, and undone back
/// onto the unborn branch.
#[test]
fn an_agent_branch_only_a_remote_has_is_resumed_from_an_unborn_branch() {
    let source = with_remote();
    source.git(["switch", "-q", "-c", "agent/c1"]).ok();
    source.commit("earlier session");
    source.git(["push", "-q", "origin", "agent/c1"]).ok();
    let pushed = source.rev("agent/c1");
    let repo = TestRepo::empty();
    let _ = repo.ward(["install"]);
    let remote = source.path("remote.git");
    repo.git(["remote", "add", "origin", remote.to_str().unwrap()])
        .ok();
    repo.git(["fetch", "-q", "origin"]).ok();
    commit_staged_work(&repo);
    assert_eq!(repo.rev("agent/c1~1"), pushed);
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(
        repo.git(["symbolic-ref", "HEAD"]).ok().stdout.trim(),
        "refs/heads/main"
    );
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "A  new.txt\n"
    );
}

#[test]
fn capability_off_is_d001() {
    let repo = TestRepo::new();
    repo.local_policy("[capabilities]\nensure_working_branch = false\n");
    let main = repo.rev("main");
    repo.shim_env(["commit", "--allow-empty", "-m", "x"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("main"), main);
}

#[test]
fn capability_for_other_contracts_is_d002() {
    let repo = TestRepo::new();
    repo.local_policy("[capabilities]\nensure_working_branch = [\"team-*\"]\n");
    repo.shim_env(["commit", "--allow-empty", "-m", "x"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-002");
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "team-1")],
    )
    .ok();
    assert_eq!(repo.branch(), "agent/team-1");
}

/// A contract from `WARD_CONTRACT` outranks the contract file: the D-002
/// hint says to change the variable, not to start a contract.
#[test]
fn d002_with_the_contract_from_the_environment_says_to_change_it() {
    let repo = TestRepo::new();
    repo.local_policy("[capabilities]\nensure_working_branch = [\"team-*\"]\n");
    repo.shim_env(["commit", "--allow-empty", "-m", "x"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-002")
        .stderr_has(
            "or set WARD_CONTRACT to a contract that capabilities.ensure_working_branch lists",
        )
        .stderr_lacks("contract start");
    repo.ward(["contract", "start", "c1"]).ok();
    repo.shim(["commit", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-002")
        .stderr_has("(`git ward contract start <id>`)");
}

#[test]
fn feature_branches_and_detached_heads_stay() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], C1)
        .ok();
    assert_eq!(repo.branch(), "feat");
    repo.git(["switch", "-q", "--detach", "main"]).ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "y"], C1)
        .ok();
    assert_eq!(repo.branch(), "HEAD");
}

#[test]
fn read_only_commands_on_main_never_switch() {
    let repo = TestRepo::new();
    for args in [
        &["status"][..],
        &["log", "--oneline"],
        &["diff"],
        &["branch"],
        &["show", "HEAD"],
    ] {
        repo.shim_env(args, C1).ok();
    }
    assert_eq!(repo.branch(), "main");
    assert!(repo.rev("refs/heads/agent/c1").is_none());
}

#[test]
fn protected_refs_cannot_be_moved_through_the_shim() {
    let repo = TestRepo::new();
    repo.commit("second");
    let main = repo.rev("main");
    repo.shim_env(["reset", "--hard", "HEAD~1"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    repo.shim(["reset", "--soft", "HEAD~1"])
        .code(1)
        .stderr_has("EN-GIT-D-001");
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    for args in [
        &["branch", "-f", "main", "HEAD~1"][..],
        &["branch", "-D", "main"],
        &["branch", "-m", "feat", "main"],
        &["update-ref", "-d", "refs/heads/main"],
    ] {
        repo.shim(args).code(1).stderr_has("EN-GIT-D-001");
    }
    assert_eq!(repo.rev("main"), main);
    assert_eq!(repo.branch(), "feat");
}

#[test]
fn pushes_to_protected_refs_and_force_pushes_are_refused() {
    let repo = with_remote();
    let remote_main = remote_rev(&repo, "main");
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.commit("agent work");
    for (args, code) in [
        (&["push", "origin", "HEAD:main"][..], "EN-GIT-D-001"),
        (&["push", "--force", "origin", "main"], "EN-GIT-D-005"),
        (&["push", "origin", "+HEAD:main"], "EN-GIT-D-005"),
        (&["push", "origin", ":main"], "EN-GIT-D-005"),
        (&["push", "origin", "--delete", "main"], "EN-GIT-D-005"),
        (&["push", "--mirror", "origin"], "EN-GIT-D-005"),
    ] {
        repo.shim(args).code(1).stderr_has(code);
    }
    assert_eq!(remote_rev(&repo, "main"), remote_main);
    // A protected tag deleted by its short name (git finds the remote's
    // tag `v1`), with no hooks installed here: the shim alone refuses it.
    repo.git(["tag", "v1"]).ok();
    repo.git(["push", "-q", "origin", "v1"]).ok();
    let tag = remote_rev(&repo, "refs/tags/v1");
    assert!(tag.is_some());
    for args in [
        &["push", "origin", ":v1"][..],
        &["push", "origin", "--delete", "v1"],
        &["push", "-d", "origin", "v1"],
    ] {
        repo.shim(args)
            .code(1)
            .stderr_has("ward: denied [EN-GIT-D-005] push deletes protected ref 'tags/v1'");
    }
    assert_eq!(remote_rev(&repo, "refs/tags/v1"), tag);
    // Its own branch, force included, is fine.
    repo.shim(["push", "-q", "origin", "agent/c1"]).ok();
    repo.git([
        "commit",
        "-q",
        "--amend",
        "--allow-empty",
        "-m",
        "rewritten",
    ])
    .ok();
    repo.shim(["push", "-q", "--force", "origin", "agent/c1"])
        .ok();
    assert_eq!(remote_rev(&repo, "agent/c1"), repo.rev("agent/c1"));
}

#[test]
fn what_the_config_makes_a_plain_push_send_is_checked() {
    let repo = with_remote();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.commit("agent work");
    repo.git(["push", "-q", "-u", "origin", "agent/c1"]).ok();
    let remote_main = remote_rev(&repo, "main");
    // A mirror remote: every push to it is a mirror push.
    repo.git(["config", "remote.origin.mirror", "true"]).ok();
    repo.shim(["push"])
        .code(1)
        .stderr_has("EN-GIT-D-005")
        .stderr_has("remote.origin.mirror");
    repo.shim(["-c", "remote.origin.mirror=false", "push", "-q"])
        .ok();
    repo.git(["config", "--unset", "remote.origin.mirror"]).ok();
    repo.shim(["-c", "remote.origin.mirror", "push", "origin"])
        .code(1)
        .stderr_has("EN-GIT-D-005");
    // A configured refspec onto main, and matching.
    repo.git(["config", "remote.origin.push", "HEAD:refs/heads/main"])
        .ok();
    repo.shim(["push"]).code(1).stderr_has("EN-GIT-D-001");
    repo.git(["config", "--unset", "remote.origin.push"]).ok();
    // Matching sends main, the same on both sides: nothing changes there.
    repo.shim(["-c", "push.default=matching", "push", "-q"])
        .ok();
    assert_eq!(remote_rev(&repo, "main"), remote_main);
    // Once main is ahead here, it would move there.
    let agent_tip = repo.rev("agent/c1").unwrap();
    repo.git(["update-ref", "refs/heads/main", &agent_tip]).ok();
    repo.shim(["-c", "push.default=matching", "push"])
        .code(1)
        .stderr_has("EN-GIT-D-001")
        .stderr_has("push with push.default=matching would move protected ref 'main' on origin");
    // The plain push of the agent's own branch still goes through.
    repo.commit("more agent work");
    repo.shim(["push", "-q"]).ok();
    assert_eq!(remote_rev(&repo, "agent/c1"), repo.rev("agent/c1"));
    assert_eq!(remote_rev(&repo, "main"), remote_main);
}

#[test]
fn switching_hooks_off_is_d004() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    let tip = repo.rev("feat");
    repo.shim(["commit", "--allow-empty", "--no-verify", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    repo.shim(["commit", "--allow-empty", "-n", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    // `am --no-verify` skips applypatch-msg, which puts the footer in.
    repo.shim(["am", "--no-verify", "missing.mbox"])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("applypatch-msg");
    repo.shim([
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "--allow-empty",
        "-m",
        "x",
    ])
    .code(1)
    .stderr_has("EN-GIT-D-004");
    repo.shim_env(
        ["commit", "--allow-empty", "-m", "x"],
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "core.hooksPath"),
            ("GIT_CONFIG_VALUE_0", "/dev/null"),
        ],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004");
    repo.shim(["config", "core.hooksPath", "/tmp/h"])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    assert_eq!(repo.rev("feat"), tip);
    assert!(repo.git(["config", "core.hooksPath"]).code.unwrap() != 0);
    repo.shim(["config", "--get", "core.hooksPath"]).code(1); // read-only, unset: git's own 1
}

#[test]
fn agents_check_out_local_branches_only() {
    let repo = with_remote();
    repo.git(["branch", "feature/new-feature"]).ok();
    repo.shim(["checkout", "origin/main"])
        .code(1)
        .stderr_has("EN-GIT-D-006");
    repo.shim(["checkout", "@{-1}"])
        .code(1)
        .stderr_has("EN-GIT-D-006");
    repo.shim(["switch", "--detach", "HEAD~0"])
        .code(1)
        .stderr_has("EN-GIT-D-006");
    // A detached checkout is refused as one, even of a local branch.
    repo.shim(["switch", "--detach", "main"])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-006] agents work on a local branch, not a detached HEAD (at 'main')")
        .stderr_has("(`git switch main`)");
    repo.shim(["checkout", "--detach"])
        .code(1)
        .stderr_has(
            "ward: denied [EN-GIT-D-006] agents work on a local branch, not a detached HEAD\n",
        )
        .stderr_lacks("local branches only");
    // An empty pathspec file makes a path checkout a switch.
    repo.shim(["checkout", "--pathspec-from-file=/dev/null", "origin/main"])
        .code(1)
        .stderr_has("EN-GIT-D-006");
    assert_eq!(repo.branch(), "main");
    repo.shim(["checkout", "-q", "feature/new-feature"]).ok();
    assert_eq!(repo.branch(), "feature/new-feature");
}

#[test]
fn global_options_select_the_repository_as_git_does() {
    let repo = TestRepo::new();
    let elsewhere = repo.path("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let dir = repo.dir.to_str().unwrap().to_string();
    // -C from another directory.
    let mut cmd = repo.shim_command(["-C", &dir, "commit", "--allow-empty", "-m", "x"]);
    cmd.current_dir(&elsewhere);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("EN-GIT-D-003"));
    // --git-dir/--work-tree.
    let git_dir = format!("--git-dir={dir}/.git");
    let work_tree = format!("--work-tree={dir}");
    let mut cmd = repo.shim_command([
        git_dir.as_str(),
        work_tree.as_str(),
        "commit",
        "--allow-empty",
        "-m",
        "x",
    ]);
    cmd.current_dir(&elsewhere).env("WARD_CONTRACT", "c1");
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(repo.branch(), "agent/c1");
}

#[test]
fn a_subdirectory_and_a_linked_worktree() {
    let repo = TestRepo::new();
    repo.write("sub/dir/f.txt", "f");
    repo.commit("sub");
    let mut cmd = repo.shim_command(["commit", "--allow-empty", "-m", "x"]);
    cmd.current_dir(repo.dir.join("sub/dir"));
    assert_eq!(cmd.output().unwrap().status.code(), Some(1));

    // A linked worktree on release/1 (protected): it switches there only.
    repo.git(["branch", "release/1"]).ok();
    let wt = repo.path("wt");
    repo.git(["worktree", "add", "-q", wt.to_str().unwrap(), "release/1"])
        .ok();
    let mut cmd = repo.shim_command(["commit", "-q", "--allow-empty", "-m", "in wt"]);
    cmd.current_dir(&wt).env("WARD_CONTRACT", "c1");
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wt_branch = repo
        .git([
            "-C",
            wt.to_str().unwrap(),
            "rev-parse",
            "--abbrev-ref",
            "HEAD",
        ])
        .stdout;
    assert_eq!(wt_branch.trim(), "agent/c1");
    assert_eq!(repo.branch(), "main", "the main worktree did not move");
}

#[test]
fn aliases_are_resolved_before_classifying() {
    let repo = TestRepo::new();
    repo.git(["config", "alias.ci", "commit"]).ok();
    repo.shim(["ci", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-003");
    repo.shim(["-c", "alias.sv=commit", "sv", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-003");
    repo.git(["config", "alias.st", "status"]).ok();
    repo.shim(["st"]).ok();
}

#[test]
fn aliases_in_included_config_files_are_resolved() {
    let repo = TestRepo::new();
    let included = |name: &str, text: &str| {
        let path = repo.home.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let always = included("always.inc", "[alias]\n\tcm = commit\n");
    let here = included("here.inc", "[alias]\n\tcx = commit\n");
    let on_main = included("main.inc", "[alias]\n\tcb = commit\n");
    let git_dir = repo.dir.join(".git");
    std::fs::write(
        repo.home.join(".gitconfig"),
        format!(
            "[include]\n\tpath = {always}\n\
             [includeIf \"gitdir:{}\"]\n\tpath = {here}\n\
             [includeIf \"onbranch:main\"]\n\tpath = {on_main}\n",
            git_dir.display()
        ),
    )
    .unwrap();
    for alias in ["cm", "cx", "cb"] {
        repo.shim([alias, "--allow-empty", "-m", "x"])
            .code(1)
            .stderr_has("EN-GIT-D-003");
    }
}

#[test]
fn aliases_the_repositorys_own_config_includes_are_resolved() {
    let repo = TestRepo::new();
    let git_dir = repo.dir.join(".git");
    // Relative to the including file, as git resolves it.
    std::fs::write(
        git_dir.join("always.inc"),
        "[alias]\n\tcm = commit\n\tcy = commit\n\tcz = commit\n",
    )
    .unwrap();
    std::fs::write(git_dir.join("here.inc"), "[alias]\n\tcx = commit\n").unwrap();
    std::fs::write(git_dir.join("main.inc"), "[alias]\n\tcb = commit\n").unwrap();
    std::fs::write(git_dir.join("other.inc"), "[alias]\n\tco = commit\n").unwrap();
    let mut config = std::fs::read_to_string(git_dir.join("config")).unwrap();
    // An alias set before the include is overridden by it; one set after
    // it overrides the included one.
    config.push_str(&format!(
        "[alias]\n\tcy = status\n\
         [include]\n\tpath = always.inc\n\
         [alias]\n\tcz = status\n\
         [includeIf \"gitdir:{}\"]\n\tpath = here.inc\n\
         [includeIf \"onbranch:main\"]\n\tpath = main.inc\n\
         [includeIf \"onbranch:other\"]\n\tpath = other.inc\n",
        git_dir.display()
    ));
    std::fs::write(git_dir.join("config"), config).unwrap();
    let git_dir_env = [("GIT_DIR", git_dir.to_str().unwrap())];
    for alias in ["cm", "cx", "cb", "cy"] {
        // The light road, and gix's (the environment names the git dir).
        repo.shim([alias, "--allow-empty", "-m", "x"])
            .code(1)
            .stderr_has("EN-GIT-D-003");
        repo.shim_env([alias, "--allow-empty", "-m", "x"], &git_dir_env)
            .code(1)
            .stderr_has("EN-GIT-D-003");
    }
    // Not included on this branch: git knows no `co`, and says so.
    repo.shim(["co"])
        .code(1)
        .stderr_has("'co' is not a git command");
    repo.shim(["cz"]).ok();
    repo.shim_env(["cz"], &git_dir_env).ok();
}

#[test]
fn a_broken_policy_fails_closed_for_mutations_only() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.local_policy("[branches\nprotected = 1\n");
    repo.shim(["status"]).ok();
    repo.shim(["commit", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-E-001")
        .stderr_has("policy.toml:1:");
}

#[test]
fn every_shim_command_is_audited_with_its_trace() {
    let repo = TestRepo::new();
    repo.shim(["status"]).ok();
    repo.shim(["commit", "--allow-empty", "-m", "x"]).code(1);
    let lines = audit_lines(&repo);
    let status = lines
        .iter()
        .find(|l| l["operation"] == "git.status")
        .expect("status logged");
    assert_eq!(status["tier"], 0);
    assert_eq!(status["source"], "shim");
    let denied = lines
        .iter()
        .find(|l| l["decision"] == "deny")
        .expect("denial logged");
    assert_eq!(denied["denial_code"], "EN-GIT-D-003");
    assert_eq!(denied["exit_code"], 1);
    assert_eq!(denied["branch_before"], "main");
    for key in [
        "timestamp",
        "started_at",
        "duration_ms",
        "trace_id",
        "actor",
        "argv",
        "worktree",
    ] {
        assert!(!denied[key].is_null(), "{key} missing");
    }
    assert_eq!(repo.audit_records(&["--decision", "deny"]).len(), 1);
}

#[test]
fn the_read_fast_path_honours_the_policy() {
    let repo = TestRepo::new();
    // Twice: the first run fills the settings cache, the second reads it.
    repo.shim(["status"]).ok();
    repo.shim(["status"]).ok();
    let lines = audit_lines(&repo);
    assert_eq!(
        lines
            .iter()
            .filter(|l| l["operation"] == "git.status")
            .count(),
        2
    );
    assert!(lines
        .iter()
        .all(|l| l["tier"] == 0 && l["branch_before"] == "main"));

    // Reads switch hooks off only through config: that takes the full road.
    repo.shim(["-c", "core.hooksPath=/dev/null", "status"])
        .code(1)
        .stderr_has("EN-GIT-D-004");

    // A policy that reclassifies `status` as mutating is seen at once.
    repo.local_policy("[commands]\nmutating = [\"status\"]\n");
    repo.shim(["status"]).ok();
    let last = audit_lines(&repo).pop().unwrap();
    assert_eq!(last["operation"], "git.status");
    assert_eq!(last["tier"], 1);

    // audit.reads = false: reads leave no line.
    repo.local_policy("[audit]\nreads = false\n");
    let before = audit_lines(&repo).len();
    repo.shim(["status"]).ok();
    repo.shim(["log", "--oneline"]).ok();
    assert_eq!(audit_lines(&repo).len(), before);
}

// --- The read-only fast path below the top of the working tree ---------

/// What the shim says on stderr with `WARD_LOG=debug` when it takes the
/// read-only fast path, and when it takes the full road.
const FAST: &str = "read-only fast path";
const FULL: &str = "assessed";

/// A repository on `main` with `sub/dir`, a modified file, an untracked
/// one, a directory `elsewhere` beside it and a link `link -> repo/sub`.
fn with_subdirectories() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("sub/dir/f.txt", "f\n");
    repo.commit("sub");
    repo.write("README", "changed\n")
        .write("sub/dir/new.txt", "new\n");
    std::fs::create_dir_all(repo.path("elsewhere")).unwrap();
    std::os::unix::fs::symlink(repo.dir.join("sub"), repo.path("link")).unwrap();
    repo
}

/// Reads run below the top: (directory, command line).
fn reads_below_the_top(repo: &TestRepo) -> Vec<(std::path::PathBuf, Vec<String>)> {
    let top = repo.dir.to_str().unwrap().to_string();
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        (repo.dir.join("sub/dir"), words(&["status"])),
        (
            repo.dir.join("sub/dir"),
            words(&["rev-parse", "HEAD", "--show-prefix"]),
        ),
        (
            repo.dir.join("sub"),
            words(&["-C", "dir", "diff", "--stat"]),
        ),
        (
            repo.path("elsewhere"),
            words(&["-C", &top, "-C", "sub/dir", "status", "--short"]),
        ),
        (
            repo.tmp.path().to_path_buf(),
            words(&["-C", "link/dir/..", "log", "--oneline"]),
        ),
    ]
}

#[test]
fn reads_from_a_subdirectory_or_after_dash_c_answer_as_git_does() {
    let repo = with_subdirectories();
    for (dir, args) in reads_below_the_top(&repo) {
        let ours = repo.shim_in(&dir, &args, &[]).ok();
        let git = repo.git_in(&dir, &args).ok();
        assert_eq!(ours.stdout, git.stdout, "{args:?} in {}", dir.display());
        assert_eq!(ours.stderr, git.stderr, "{args:?} in {}", dir.display());
    }
}

#[test]
fn reads_from_a_subdirectory_or_after_dash_c_take_the_fast_path() {
    let repo = with_subdirectories();
    let debug = [("WARD_LOG", "debug")];
    for (dir, args) in reads_below_the_top(&repo) {
        repo.shim_in(&dir, &args, &debug)
            .ok()
            .stderr_has(FAST)
            .stderr_lacks(FULL);
    }
    // What the full road records for a read from a subdirectory (`-c` takes it).
    repo.shim_in(&repo.dir.join("sub/dir"), ["-c", "x.y=z", "status"], &debug)
        .ok()
        .stderr_has(FULL);
    let lines = audit_lines(&repo);
    let (full, fast) = lines.split_last().unwrap();
    assert_eq!(fast.len(), reads_below_the_top(&repo).len());
    let top = repo.dir.canonicalize().unwrap();
    assert_eq!(full["worktree"], top.to_str().unwrap());
    for line in fast {
        assert_eq!(line["worktree"], full["worktree"], "{line}");
        assert_eq!(line["branch_before"], "main", "{line}");
        assert_eq!(line["tier"], 0, "{line}");
    }
}

#[test]
fn a_read_the_policy_calls_mutating_takes_the_full_road_from_below_the_top() {
    let repo = with_subdirectories();
    repo.local_policy("[commands]\nmutating = [\"status\"]\n");
    let top = repo.dir.to_str().unwrap();
    let debug = [("WARD_LOG", "debug")];
    repo.shim_in(&repo.dir.join("sub/dir"), ["status"], &debug)
        .ok()
        .stderr_has(FULL)
        .stderr_lacks(FAST);
    repo.shim_in(
        &repo.path("elsewhere"),
        ["-C", top, "-C", "sub", "status"],
        &debug,
    )
    .ok()
    .stderr_has(FULL)
    .stderr_lacks(FAST);
    // Run as a child and logged with its exit status, as mutating commands are.
    for line in audit_lines(&repo) {
        assert_eq!(line["tier"], 1, "{line}");
        assert_eq!(line["exit_code"], 0, "{line}");
    }
}

#[test]
fn mutations_from_below_the_top_are_refused_on_a_protected_branch() {
    let repo = with_subdirectories();
    let head = repo.rev("HEAD");
    let top = repo.dir.to_str().unwrap();
    let cases: [(&std::path::Path, &[&str]); 3] = [
        (&repo.dir.join("sub/dir"), &["commit", "-qam", "x"]),
        (
            &repo.path("elsewhere"),
            &["-C", top, "-C", "sub", "commit", "-qam", "x"],
        ),
        (repo.tmp.path(), &["-C", "link", "commit", "-qam", "x"]),
    ];
    for (dir, args) in cases {
        repo.shim_in(dir, args, &[])
            .code(1)
            .stderr_has("EN-GIT-D-003");
    }
    assert_eq!(repo.rev("HEAD"), head);
    assert_eq!(repo.branch(), "main");
}

#[test]
fn linked_worktrees_and_bare_repositories_are_found_from_below_their_top() {
    let repo = with_subdirectories();
    repo.git(["branch", "feat"]).ok();
    let wt = repo.path("wt");
    repo.git(["worktree", "add", "-q", wt.to_str().unwrap(), "feat"])
        .ok();
    let bare = repo.bare_clone_at(repo.path("bare.git"));
    let debug = [("WARD_LOG", "debug")];
    let in_wt = repo.shim_in(&wt.join("sub/dir"), ["status", "--short"], &debug);
    assert_eq!(in_wt.ok().stderr_has(FAST).stdout, "");
    repo.shim_in(&bare.join("refs"), ["log", "--oneline"], &debug)
        .ok()
        .stderr_has(FAST)
        .stdout_has("sub");
    let lines = audit_lines(&repo);
    let wt_line = lines.last().unwrap();
    assert_eq!(
        wt_line["worktree"],
        wt.canonicalize().unwrap().to_str().unwrap()
    );
    assert_eq!(wt_line["branch_before"], "feat");
    // The bare repository keeps its own log, with no working tree.
    let mut cmd = std::process::Command::new(crate::common::ward_bin());
    repo.hermetic(&mut cmd);
    let out = cmd
        .current_dir(&bare)
        .args(["audit", "--json"])
        .output()
        .unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["operation"], "git.log");
    assert!(line["worktree"].is_null(), "{line}");
}

#[test]
fn unusual_layouts_below_the_top_take_the_full_road() {
    let repo = with_subdirectories();
    let sub = repo.dir.join("sub/dir");
    let ceiling = repo.tmp.path().to_str().unwrap();
    let debug = [("WARD_LOG", "debug")];
    let cases: [(&std::path::Path, &[(&str, &str)]); 2] = [
        (&sub, &[("GIT_CEILING_DIRECTORIES", ceiling)]),
        (&repo.dir.join(".git/refs"), &[]),
    ];
    for (dir, env) in cases {
        let git = repo.git_in(dir, ["rev-parse", "--git-dir"]);
        let ours = repo.shim_in(dir, ["rev-parse", "--git-dir"], &[env, &debug].concat());
        assert_eq!(ours.stdout, git.stdout, "{}", dir.display());
        ours.ok().stderr_has(FULL).stderr_lacks(FAST);
    }
    // A `.git` in a subdirectory that git would not take for a repository.
    std::fs::create_dir_all(sub.join(".git")).unwrap();
    repo.shim_in(&sub, ["status"], &debug)
        .ok()
        .stderr_has(FULL)
        .stderr_lacks(FAST);
}

/// The audit log, one JSON value per line.
fn audit_lines(repo: &TestRepo) -> Vec<serde_json::Value> {
    repo.audit_records(&[])
}

#[test]
fn overwritten_hooks_are_refused_and_doctor_fix_reinstalls_them() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.ward(["install"]).ok();
    repo.shim(["commit", "-q", "--allow-empty", "-m", "quiet"])
        .ok();
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    // A gate that no longer runs git-ward: the agent's mutation waits.
    repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("pre-commit");
    let last = audit_lines(&repo).pop().unwrap();
    assert_eq!(last["denial_code"], "EN-GIT-D-004", "{last}");

    repo.ward(["doctor"]).code(3).stdout_has("FAIL hooks");
    repo.ward(["doctor", "--fix"]).ok();
    let run = repo.shim(["commit", "-q", "--allow-empty", "-m", "y"]).ok();
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

/// Protected tags (`tags/*`) may be created, `-f` or not, but not moved.
#[test]
fn a_protected_tag_may_be_created_with_force_but_not_moved() {
    let repo = TestRepo::new();
    repo.commit("two");
    repo.git(["tag", "v1", "HEAD~1"]).ok();
    let v1 = repo.rev("v1");
    repo.shim(["tag", "-f", "v10"]).ok();
    assert_eq!(repo.rev("v10"), repo.rev("HEAD"));
    repo.shim(["tag", "-f", "v1"])
        .code(1)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("v1"), v1);
}

/// A person's merge of `feature` into main, conflicted and resolved, not
/// yet committed.
fn merge_in_progress_on_main(repo: &TestRepo) {
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    repo.write("README", "feature\n").commit("feature");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "main\n").commit("main");
    let _ = repo.git(["merge", "feature"]);
    repo.write("README", "resolved\n");
    repo.git(["add", "README"]).ok();
}

/// A person's merge in progress on `main`, its conflict resolved: the
/// agent's commit is refused (a move to its branch would end the merge),
/// as explain says, and the merge is still there to finish.
#[test]
fn a_merge_in_progress_on_main_is_refused_not_carried_off() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    merge_in_progress_on_main(&repo);
    let agent = [("WARD_CONTRACT", "c1")];
    repo.ward_env(["explain", "--", "commit", "-m", "merge"], &agent)
        .stdout_has("decision:   deny");
    repo.shim_env(["commit", "-q", "-m", "merge"], &agent)
        .code(1)
        .stderr_has("while a merge is in progress there")
        .stderr_has("git merge --abort");
    assert_eq!(repo.branch(), "main");
    assert!(repo.dir.join(".git/MERGE_HEAD").exists());
}

/// With the agent branch there already, the in-progress hint checks it
/// out (`git switch -c` would refuse), and following it works.
#[test]
fn an_in_progress_hint_checks_out_an_agent_branch_that_exists() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git(["branch", "agent/c1"]).ok();
    merge_in_progress_on_main(&repo);
    let agent = [("WARD_CONTRACT", "c1")];
    repo.shim_env(["commit", "-q", "-m", "merge"], &agent)
        .code(1)
        .stderr_has("redo it on your own branch (`git switch agent/c1`)");
    repo.shim_env(["merge", "--abort"], &agent).ok();
    repo.shim_env(["switch", "-q", "agent/c1"], &agent).ok();
    assert_eq!(repo.branch(), "agent/c1");
}

/// Where the agent branch is itself protected there is nowhere to move: the
/// commit is refused up front, naming why, and explain agrees.
#[test]
fn a_protected_agent_branch_is_named_as_the_reason() {
    let repo = TestRepo::new();
    repo.local_policy("[branches]\nprotected = [\"main\", \"agent/*\"]\n");
    let main = repo.rev("main");
    let (_, v) = repo.ward_json(
        ["explain", "--json", "--as-agent", "--", "commit", "-m", "x"],
        C1,
    );
    assert_eq!(v["code"], "EN-GIT-D-001", "{v}");
    repo.shim_env(["commit", "--allow-empty", "-m", "x"], C1)
        .code(1)
        .stderr_has("the agent branch 'agent/c1' is protected too")
        .stderr_has("hint: work on a branch no protected pattern matches");
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("main"), main);
    assert!(repo.rev("refs/heads/agent/c1").is_none());
}
