//! `git ward checkpoint`, `checkpoints`, `checkpoint show`: what a snapshot
//! holds, what it leaves alone, and where it still works.

use std::os::unix::fs::MetadataExt;

use crate::common::TestRepo;

/// A repository with a modified, a staged, an untracked, an ignored and an
/// allow-listed ignored file.
fn busy() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n.env\n")
        .write("src/lib.rs", "fn a() {}\n")
        .commit("base");
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write("README", "changed\n")
        .write("staged.txt", "staged\n");
    repo.git(["add", "staged.txt"]).ok();
    repo.write("staged.txt", "staged, then edited\n")
        .write("new/untracked.txt", "new\n")
        .write("debug.log", "noise\n")
        .write(".env", "SECRET=1\n");
    repo
}

fn ls_tree(repo: &TestRepo, rev: &str) -> Vec<String> {
    repo.git(["ls-tree", "-r", "--name-only", rev])
        .ok()
        .stdout
        .lines()
        .map(str::to_string)
        .collect()
}

fn mtimes(repo: &TestRepo) -> Vec<(String, i64, i64)> {
    let mut out = Vec::new();
    for rel in [
        "README",
        "staged.txt",
        "new/untracked.txt",
        "debug.log",
        ".env",
        ".git/index",
    ] {
        let m = std::fs::metadata(repo.dir.join(rel)).unwrap();
        out.push((rel.to_string(), m.mtime(), m.mtime_nsec()));
    }
    out
}

#[test]
fn checkpoint_holds_worktree_and_index_and_touches_nothing() {
    let repo = busy();
    repo.git(["stash", "list"]).ok();
    let before = repo.state();
    let times = mtimes(&repo);
    let index = std::fs::read(repo.dir.join(".git/index")).unwrap();
    let head = repo.rev("HEAD");

    let (run, v) = repo.ward_json(["checkpoint", "-m", "before lunch", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["status"], "S");
    let cp = &v["checkpoint"];
    assert_eq!(cp["id"], "chk-local-1");
    assert_eq!(cp["type"], "manual");
    assert_eq!(cp["description"], "before lunch");
    assert_eq!(cp["branch"], "main");
    assert_eq!(cp["counts"]["untracked"], 1);
    assert_eq!(cp["counts"]["ignored"], 1);

    assert_eq!(
        repo.state(),
        before,
        "the checkpoint changed the repository"
    );
    assert_eq!(mtimes(&repo), times, "mtimes changed");
    assert_eq!(std::fs::read(repo.dir.join(".git/index")).unwrap(), index);
    assert_eq!(repo.rev("HEAD"), head);
    assert!(repo.rev("refs/stash").is_none());

    let r = "refs/ward/checkpoints/chk-local-1";
    let files = ls_tree(&repo, r);
    for want in [
        ".env",
        ".gitignore",
        "README",
        "new/untracked.txt",
        "src/lib.rs",
        "staged.txt",
    ] {
        assert!(
            files.contains(&want.to_string()),
            "{want} missing from {files:?}"
        );
    }
    assert!(
        !files.contains(&"debug.log".to_string()),
        "ignored file kept"
    );
    assert_eq!(
        repo.git(["show", &format!("{r}:staged.txt")]).ok().stdout,
        "staged, then edited\n"
    );
    // Parents: HEAD, then a commit of the staged tree.
    assert_eq!(repo.rev(&format!("{r}^1")), head);
    assert_eq!(
        repo.git(["show", &format!("{r}^2:staged.txt")]).ok().stdout,
        "staged\n"
    );
    assert!(repo
        .git(["cat-file", "-p", r])
        .ok()
        .stdout
        .contains("Ward-Type: manual"));
}

#[test]
fn checkpoints_lists_and_show_opens_a_branch() {
    let repo = busy();
    let a = repo.checkpoint("one");
    repo.write("README", "again\n");
    let b = repo.checkpoint("two");
    assert_eq!((a.as_str(), b.as_str()), ("chk-local-1", "chk-local-2"));
    repo.ward(["checkpoints"])
        .ok()
        .stdout_has("chk-local-2")
        .stdout_has("manual")
        .stdout_has("two");
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    let list = v["checkpoints"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], "chk-local-2", "newest first");
    assert!(list[0]["head"].as_str().is_some());
    assert!(list[0]["counts"]["files"].as_u64().unwrap() >= 6);

    repo.ward(["checkpoint", "show", &a, "--diff", "--branch"])
        .ok()
        .stdout_has("Description: one")
        .stdout_has("+changed")
        .stdout_has("snapshot/chk-local-1");
    assert_eq!(
        repo.rev("snapshot/chk-local-1"),
        repo.rev("refs/ward/checkpoints/chk-local-1")
    );
    repo.ward(["checkpoint", "show", "chk-local-9"])
        .code(2)
        .stderr_has("EN-GIT-I-001");
    repo.ward(["checkpoint", "show", "../../HEAD"])
        .code(2)
        .stderr_has("invalid checkpoint id");
}

#[test]
fn a_snapshot_branch_the_rules_deny_is_a_denial_and_a_taken_name_invalid() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[branches]\nprotected = [\"main\", \"snapshot/*\"]\n");
    let id = repo.checkpoint("x");
    let agent = [("WARD_AGENT", "1")];
    repo.ward_env(["checkpoint", "show", &id, "--branch"], &agent)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-001]");
    let (run, v) = repo.ward_json(["checkpoint", "show", &id, "--branch", "--json"], &agent);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        (v["status"].as_str(), v["code"].as_str()),
        (Some("D"), Some("EN-GIT-D-001"))
    );
    assert!(repo.rev(&format!("refs/heads/snapshot/{id}")).is_none());

    repo.local_policy("");
    repo.git(["branch", "snapshot"]).ok();
    repo.ward(["checkpoint", "show", &id, "--branch"])
        .code(2)
        .stderr_has("EN-GIT-I-001")
        .stderr_has("branch 'snapshot' already exists");
}

#[test]
fn ids_carry_the_contract_and_stay_unique_across_worktrees() {
    let repo = TestRepo::new();
    let other = other_worktree(&repo);
    assert_eq!(repo.checkpoint("a"), "chk-local-1");
    let mut cmd = std::process::Command::new(crate::common::ward_bin());
    repo.hermetic(&mut cmd);
    let out = cmd
        .current_dir(&other)
        .env("WARD_REAL_GIT", crate::common::real_git())
        .args(["checkpoint", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["checkpoint"]["id"], "chk-local-2");
    assert_eq!(v["checkpoint"]["branch"], "side");
    let (_, v) = repo.ward_json(["checkpoint", "--json"], &[("WARD_CONTRACT", "task-7")]);
    assert_eq!(v["checkpoint"]["id"], "chk-task-7-1");
    assert_eq!(v["checkpoint"]["contract"], "task-7");
}

#[test]
fn log_decorations_leave_checkpoints_out() {
    let repo = TestRepo::new();
    repo.write("README", "x\n");
    repo.checkpoint("x");
    let log = repo.git(["log", "--all", "--decorate", "--oneline"]).ok();
    assert!(!log.stdout.contains("ward/"), "{}", log.stdout);
    assert!(log.stdout.contains("HEAD -> main"), "{}", log.stdout);
}

#[test]
fn retention_keeps_the_newest_and_the_pinned() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    repo.ward(["checkpoint", "-m", "pinned", "--pin"]).ok();
    for m in ["b", "c", "d"] {
        repo.checkpoint(m);
    }
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    let ids: Vec<&str> = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["chk-local-4", "chk-local-3", "chk-local-1"]);
}

/// A linked worktree at `<repo>/other` on a new branch `side`.
fn other_worktree(repo: &TestRepo) -> std::path::PathBuf {
    let other = repo.path("other");
    repo.git([
        "worktree",
        "add",
        "-q",
        other.to_str().unwrap(),
        "-b",
        "side",
    ])
    .ok();
    other
}

/// `git ward checkpoint -m <message>` run in `dir`.
fn checkpoint_in(repo: &TestRepo, dir: &std::path::Path, message: &str) {
    let mut cmd = repo.ward_command(["checkpoint", "-m", message]);
    crate::common::Run::from(cmd.current_dir(dir).output().unwrap()).ok();
}

#[test]
fn retention_keeps_the_newest_per_worktree_whatever_the_contracts() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 3\n");
    let other = other_worktree(&repo);
    checkpoint_in(&repo, &other, "other");
    for task in 1..=5 {
        let env = [("WARD_CONTRACT", format!("task{task}"))];
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        for _ in 0..2 {
            repo.ward_env(["checkpoint"], &env).ok();
        }
    }
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    let ids: Vec<&str> = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec!["chk-task5-2", "chk-task5-1", "chk-task4-2", "chk-local-1"],
        "three of this worktree's, and the other worktree's one"
    );
}

#[test]
fn retention_spares_the_checkpoint_a_rollback_restores_from() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    repo.write("a.txt", "first\n");
    let first = repo.checkpoint("first");
    repo.write("a.txt", "second\n");
    repo.checkpoint("second");
    repo.write("a.txt", "third\n");
    // The safety checkpoint is the third: the oldest one is the one restored.
    repo.ward(["rollback", &first, "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("first\n"));
    assert!(repo
        .rev(&format!("refs/ward/checkpoints/{first}"))
        .is_some());
    repo.write("a.txt", "fourth\n");
    repo.ward(["rollback", &first, "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("first\n"));
}

#[test]
fn works_in_an_empty_repository() {
    let repo = TestRepo::empty();
    repo.write("a.txt", "a\n");
    let (run, v) = repo.ward_json(["checkpoint", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(v["checkpoint"]["head"].is_null());
    assert_eq!(
        ls_tree(&repo, "refs/ward/checkpoints/chk-local-1"),
        vec!["a.txt"]
    );
    std::fs::remove_file(repo.dir.join("a.txt")).unwrap();
    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    assert!(repo.rev("HEAD").is_none(), "still no commit");
}

#[test]
fn works_during_a_conflicted_merge() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "side"]).ok();
    repo.write("README", "side\n").commit("side");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "main\n").commit("main");
    repo.git(["merge", "-q", "side"]).code(1);
    let conflicted = repo.read("README").unwrap();
    assert!(conflicted.contains("<<<<<<<"));
    let before = repo.state();
    let (run, v) = repo.ward_json(["checkpoint", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["checkpoint"]["conflicted"][0], "README");
    assert_eq!(repo.state(), before, "the conflicted index is untouched");
    assert!(repo.git(["ls-files", "-u"]).ok().stdout.contains("README"));
    repo.write("README", "resolved badly\n");
    repo.ward(["rollback", "chk-local-1", "--yes"]).ok();
    assert_eq!(repo.read("README").unwrap(), conflicted);
}

#[test]
fn a_held_index_lock_fails_loudly_after_a_short_wait() {
    let repo = TestRepo::new();
    repo.write("README", "dirty\n");
    let lock = repo.dir.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let start = std::time::Instant::now();
    repo.ward(["checkpoint"]).code(3).stderr_has("index.lock");
    assert!(start.elapsed() >= std::time::Duration::from_secs(1));
    assert!(repo.rev("refs/ward/checkpoints/chk-local-1").is_none());

    // Released while we wait: the checkpoint is taken.
    let l = lock.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::remove_file(l).unwrap();
    });
    repo.ward(["checkpoint"]).ok();
    t.join().unwrap();
    assert!(repo.rev("refs/ward/checkpoints/chk-local-1").is_some());
}

#[test]
fn large_untracked_files_are_left_out_and_named() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nmax_file_size = \"1KiB\"\n");
    repo.write("big.bin", &"x".repeat(4096))
        .write("small.txt", "s\n");
    repo.ward(["checkpoint"])
        .ok()
        .stdout_has("left out")
        .stdout_has("big.bin");
    let files = ls_tree(&repo, "refs/ward/checkpoints/chk-local-1");
    assert!(files.contains(&"small.txt".to_string()));
    assert!(!files.contains(&"big.bin".to_string()));
    repo.ward(["checkpoint", "show", "chk-local-1"])
        .ok()
        .stdout_has("Left out:    big.bin");
}

/// A large file whose name is not UTF-8 (or holds a newline) is named
/// exactly, quoted: a rollback finds it still there, left as it is, not
/// lost.
#[test]
fn a_large_file_with_an_odd_name_is_left_out_by_its_exact_name() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nmax_file_size = \"1KiB\"\n");
    for name in [&b"big\xe9.bin"[..], b"big\nline.bin"] {
        let path = repo.dir.join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(path, "x".repeat(4096)).unwrap();
    }
    repo.ward(["checkpoint"]).ok().stdout_has("left out");
    let plan = repo.ward(["rollback", "chk-local-1", "--dry-run"]).ok();
    let plan = plan
        .stdout_has("LEFT OUT  \"big\\351.bin\"")
        .stdout_has("LEFT OUT  \"big\\nline.bin\"");
    assert!(!plan.stdout.contains("LOST"), "{}", plan.stdout);
}

#[test]
fn turns_roll_back_to_the_newest_passing_turn_on_pollution() {
    let repo = TestRepo::new();
    let env = [("WARD_CONTRACT", "c1")];
    repo.write("code.txt", "good\n");
    let (run, v) = repo.ward_json(["turn", "--tests", "echo ran; true", "--json"], &env);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("ran"), "test output passes through");
    assert_eq!(v["turn"], 1);
    assert_eq!(v["tests"], "pass");
    assert_eq!(v["checkpoint"], "chk-c1-1");
    repo.write("code.txt", "worse\n");
    repo.ward_env(["turn", "--tests", "false"], &env)
        .ok()
        .stdout_has("Turn 2: tests fail");
    repo.write("code.txt", "worst\n")
        .write("junk.txt", "junk\n");
    // Polluted, but rollback-on-pollution is off: it says so and changes nothing.
    repo.ward_env(["turn", "--tests", "false"], &env)
        .ok()
        .stdout_has("polluted")
        .stdout_has("--rollback-on-pollution");
    assert_eq!(repo.read("code.txt").as_deref(), Some("worst\n"));
    let (run, v) = repo.ward_json(
        [
            "turn",
            "--tests",
            "exit 1",
            "--rollback-on-pollution",
            "--json",
        ],
        &env,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["turn"], 4);
    assert_eq!(v["rolled_back_to"], "chk-c1-1");
    assert!(v["safety_checkpoint"].as_str().is_some());
    assert_eq!(repo.read("code.txt").as_deref(), Some("good\n"));
    assert_eq!(repo.read("junk.txt"), None);
    let (_, list) = repo.ward_json(["checkpoints", "--json"], &[]);
    let turns: Vec<&serde_json::Value> = list["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["type"] == "turn")
        .collect();
    assert_eq!(turns.len(), 4);
    assert!(list["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["type"] == "pre-rollback"));
}

#[test]
fn the_turn_a_pollution_rollback_restores_from_outlives_retention() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    repo.write("code.txt", "good\n");
    repo.ward(["turn", "--tests", "true"]).ok();
    // Other checkpoints after it (manual, pre-destructive) do not push it
    // out, nor the turn count.
    for m in ["a", "b", "c", "d"] {
        repo.write("code.txt", &format!("{m}\n"));
        repo.checkpoint(m);
    }
    repo.write("code.txt", "bad\n");
    repo.ward(["turn", "--tests", "false"]).ok();
    repo.write("code.txt", "worse\n");
    let (run, v) = repo.ward_json(
        [
            "turn",
            "--tests",
            "false",
            "--rollback-on-pollution",
            "--json",
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["turn"], 3);
    assert_eq!(v["rolled_back_to"], "chk-local-1");
    assert_eq!(repo.read("code.txt").as_deref(), Some("good\n"));
    repo.ward(["checkpoint", "show", "chk-local-1"]).ok();
}

/// A removed worktree's checkpoints are the main worktree's to prune.
#[test]
fn checkpoints_of_a_removed_worktree_are_pruned_from_the_main_one() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    let other = other_worktree(&repo);
    for _ in 0..2 {
        checkpoint_in(&repo, &other, "there");
    }
    repo.git(["worktree", "remove", other.to_str().unwrap()])
        .ok();
    for m in ["a", "b", "c"] {
        repo.checkpoint(m);
    }
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert_eq!(v["checkpoints"].as_array().unwrap().len(), 2, "{v}");
}

/// A linked worktree that lives on after the repository's directory was
/// renamed keeps its checkpoints: they are not taken for a gone one's.
#[test]
fn a_renamed_repositorys_live_worktree_keeps_its_checkpoints() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    let wt = crate::common::sibling(&repo, "wt");
    let wt_dir = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", wt_dir, "-b", "side"])
        .ok();
    checkpoint_in(&repo, &wt, "there");
    let moved = crate::common::sibling(&repo, "moved");
    std::fs::rename(&repo.dir, &moved).unwrap();
    let in_moved = |args: &[&str]| {
        let mut cmd = repo.ward_command(args);
        cmd.current_dir(&moved).output().unwrap()
    };
    let repair = std::process::Command::new(crate::common::real_git())
        .args(["-C", moved.to_str().unwrap(), "worktree", "repair", wt_dir])
        .output()
        .unwrap();
    assert!(repair.status.success());
    for m in ["a", "b", "c"] {
        assert!(in_moved(&["checkpoint", "-m", m]).status.success());
    }
    let show = crate::common::Run::from(in_moved(&["checkpoint", "show", "chk-local-1"]));
    std::fs::rename(&moved, &repo.dir).unwrap();
    show.ok();
}

/// Pinned checkpoints beyond `keep` do not make every checkpoint after
/// them read all checkpoints again: the count retention goes by stays
/// within `keep`.
#[test]
fn pinned_checkpoints_do_not_bring_retention_forward() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    for m in ["p1", "p2", "p3"] {
        repo.ward(["checkpoint", "-m", m, "--pin"]).ok();
    }
    for m in ["a", "b", "c"] {
        repo.checkpoint(m);
    }
    let count = std::fs::read_to_string(repo.dir.join(".git/ward/checkpoint-count")).unwrap();
    assert!(count.trim().parse::<u32>().unwrap() <= 2, "{count}");
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert_eq!(v["checkpoints"].as_array().unwrap().len(), 5, "{v}");
}

#[test]
fn a_turn_without_a_test_command_is_refused() {
    let repo = TestRepo::new();
    for tests in ["", " \t\n"] {
        repo.ward(["turn", "--tests", tests])
            .code(2)
            .stderr_has("EN-GIT-I-001")
            .stderr_has("test command is empty");
        let (run, v) = repo.ward_json(["turn", "--json", "--tests", tests], &[]);
        assert_eq!(run.code, Some(2));
        assert_eq!(v["status"], "I");
    }
    assert_eq!(repo.checkpoint_count(), 0);
}

#[test]
fn a_turn_ends_what_its_tests_left_running() {
    let repo = TestRepo::new();
    let start = std::time::Instant::now();
    // The output read through a pipe, as a harness reads it.
    let out = repo
        .ward_command(["turn", "--tests", "sleep 20 & echo tests done; exit 1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("tests fail"));
    assert!(
        start.elapsed() < std::time::Duration::from_secs(10),
        "the leftover sleep held the pipe"
    );
}

#[test]
fn a_stopped_turn_stops_its_tests() {
    use std::os::unix::process::ExitStatusExt;
    let repo = TestRepo::new();
    let (started, late) = (repo.path("started.txt"), repo.path("late.txt"));
    let tests = format!(
        "echo > '{}'; sleep 2; echo late > '{}'",
        started.display(),
        late.display()
    );
    let mut turn = repo
        .ward_command(["turn", "--tests", &tests])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..500 {
        if started.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(started.exists(), "the tests started");
    // SAFETY: kill(2) of the child just started.
    unsafe {
        libc::kill(turn.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = turn.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(!late.exists(), "the tests went on after git-ward stopped");
    assert_eq!(repo.checkpoint_count(), 0);
}

#[test]
fn a_partial_pollution_rollback_names_its_safety_checkpoint_and_what_failed() {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.o\n").commit("ignore");
    repo.write("x", "keep\n");
    repo.ward(["turn", "--tests", "true"]).ok();
    std::fs::remove_file(repo.dir.join("x")).unwrap();
    repo.write("x/f.o", "ignored, in the way\n")
        .write("README", "changed\n");
    repo.ward(["turn", "--tests", "false"]).ok();
    let run = repo
        .ward(["turn", "--tests", "false", "--rollback-on-pollution"])
        .code(3)
        .stdout_has("Safety checkpoint: chk-local-4")
        .stdout_has("not restored: x: ")
        .stderr_has("EN-GIT-E-001");
    assert!(
        run.stdout.contains("Rolled back to chk-local-1"),
        "{}",
        run.stdout
    );
    assert_eq!(repo.read("README").as_deref(), Some("hello\n"));
    repo.write("README", "changed again\n");
    let (run, v) = repo.ward_json(
        [
            "turn",
            "--json",
            "--tests",
            "false",
            "--rollback-on-pollution",
        ],
        &[],
    );
    assert_eq!(run.code, Some(3));
    assert_eq!(v["status"], "E");
    assert_eq!(v["safety_checkpoint"], "chk-local-6");
    assert_eq!(v["failures"][0]["path"], "x");
}

#[test]
fn turns_without_a_passing_one_change_nothing() {
    let repo = TestRepo::new();
    repo.local_policy("[turns]\nrollback_on_pollution = true\npollution_threshold = 1\n");
    repo.write("code.txt", "bad\n");
    repo.ward(["turn", "--tests", "false"])
        .ok()
        .stdout_has("No passing turn to roll back to: nothing changed");
    assert_eq!(repo.read("code.txt").as_deref(), Some("bad\n"));
}

#[test]
fn the_shim_checkpoints_before_destroying_and_only_then() {
    let repo = TestRepo::new();
    let c1 = [("WARD_CONTRACT", "c1")];
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    // A clean tree: nothing to lose, no checkpoint.
    repo.shim_env(["checkout", "--", "."], &c1).ok();
    assert!(repo.rev("refs/ward/checkpoints/chk-c1-1").is_none());
    repo.write("README", "dirty\n");
    repo.shim_env(["checkout", "--", "."], &c1).ok();
    assert_eq!(repo.read("README").as_deref(), Some("hello\n"));
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    let cp = &v["checkpoints"][0];
    assert_eq!(cp["id"], "chk-c1-1");
    assert_eq!(cp["type"], "pre-destructive");
    assert_eq!(cp["command"], "git.checkout");
    assert!(cp["trace_id"].as_str().is_some());
    assert_eq!(repo.checkpoint_file("chk-c1-1", "README"), "dirty\n");
    // A held index.lock: no checkpoint, so the command does not run.
    repo.write("README", "dirty again\n");
    std::fs::write(repo.dir.join(".git/index.lock"), "").unwrap();
    repo.shim_env(["checkout", "--", "."], &c1)
        .code(3)
        .stderr_has("index.lock");
    std::fs::remove_file(repo.dir.join(".git/index.lock")).unwrap();
    assert_eq!(repo.read("README").as_deref(), Some("dirty again\n"));
}

#[test]
fn a_destructive_command_limited_to_paths_looks_only_at_them() {
    let repo = TestRepo::new();
    let c1 = [("WARD_CONTRACT", "c1")];
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a\n")
        .write("b.txt", "b\n")
        .write("sub/x.txt", "x\n");
    repo.commit("files");
    // b.txt is dirty, but `checkout -- a.txt` cannot touch it: no checkpoint.
    repo.write("b.txt", "b dirty\n");
    repo.shim_env(["checkout", "--", "a.txt"], &c1).ok();
    repo.shim_env(["restore", "a.txt"], &c1).ok();
    repo.shim_env(["checkout", "HEAD", "--", "a.txt"], &c1).ok();
    assert_eq!(repo.checkpoint_count(), 0);
    assert_eq!(repo.read("b.txt").as_deref(), Some("b dirty\n"));
    // Without `--`, every word may be a path: b.txt is looked at.
    repo.shim_env(["checkout", "b.txt", "a.txt"], &c1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    assert_eq!(repo.read("b.txt").as_deref(), Some("b\n"));
    // A path relative to a subdirectory, as git reads it there.
    repo.write("sub/x.txt", "x dirty\n");
    repo.shim_in(&repo.dir.join("sub"), ["checkout", "--", "x.txt"], &c1)
        .ok();
    assert_eq!(repo.checkpoint_count(), 2);
    assert_eq!(repo.checkpoint_file("chk-c1-2", "sub/x.txt"), "x dirty\n");
    // Pathspecs read otherwise than by default: the whole tree is looked at.
    repo.write("a.txt", "a dirty\n");
    repo.shim_env(["--icase-pathspecs", "checkout", "--", "A.TXT"], &c1)
        .ok();
    assert_eq!(repo.checkpoint_count(), 3);
    assert_eq!(repo.read("a.txt").as_deref(), Some("a\n"));
    // `clean` limited to a directory: untracked files elsewhere do not count.
    repo.write("keep/new.txt", "new\n");
    repo.shim_env(["clean", "-fd", "sub"], &c1).ok();
    assert_eq!(repo.checkpoint_count(), 3);
    repo.shim_env(["clean", "-fd", "keep"], &c1).ok();
    assert_eq!(repo.checkpoint_count(), 4);
}

#[test]
fn paths_written_from_another_commit_keep_the_untracked_files_they_overwrite() {
    let repo = TestRepo::new();
    let c1 = [("WARD_CONTRACT", "c1")];
    repo.git(["switch", "-q", "-c", "other"]).ok();
    repo.write("n.txt", "committed on other\n");
    repo.commit("n on other");
    repo.git(["switch", "-q", "-c", "agent/c1", "main"]).ok();
    // Untracked here; `checkout other -- n.txt` writes over it.
    repo.write("n.txt", "untracked work\n");
    repo.shim_env(["checkout", "other", "--", "n.txt"], &c1)
        .ok();
    assert_eq!(repo.read("n.txt").as_deref(), Some("committed on other\n"));
    assert_eq!(
        repo.checkpoint_file("chk-c1-1", "n.txt"),
        "untracked work\n"
    );
    // The same through `restore --source`.
    // (`checkout` staged it; unstaged, it is untracked again.)
    repo.git(["rm", "-q", "--cached", "n.txt"]).ok();
    repo.write("n.txt", "more untracked work\n");
    repo.shim_env(["restore", "--source", "other", "n.txt"], &c1)
        .ok();
    assert_eq!(
        repo.checkpoint_file("chk-c1-2", "n.txt"),
        "more untracked work\n"
    );
}

#[test]
fn commits_only_reflogs_keep_outlive_an_expire_and_a_prune() {
    let c1 = [("WARD_CONTRACT", "c1")];
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "1\n").commit("one");
    repo.write("a.txt", "2\n").commit("two");
    let lost = repo.rev("HEAD").unwrap();
    // Reset away by a person: only reflogs reach `two` now.
    repo.git(["reset", "-q", "--hard", "HEAD~1"]).ok();
    // Dry runs destroy nothing and keep nothing.
    repo.shim_env(
        ["reflog", "expire", "--dry-run", "--expire=now", "--all"],
        &c1,
    )
    .ok();
    assert_eq!(repo.checkpoint_count(), 0);
    repo.shim_env(["reflog", "expire", "--expire=now", "--all"], &c1)
        .ok()
        .stderr_has("keeps 1 commit only reflogs held");
    repo.shim_env(["gc", "-q", "--prune=now"], &c1).ok();
    repo.shim_env(["prune"], &c1).ok();
    // The reflogs are gone, the commit is not: git-ward's ref reaches it.
    assert_eq!(repo.git(["reflog", "show", "--all"]).ok().stdout, "");
    let kept = repo
        .git(["for-each-ref", "--format=%(refname)", "refs/ward/kept/"])
        .ok()
        .stdout;
    let kept = kept.lines().find(|r| r.ends_with("/lost")).unwrap();
    repo.git(["merge-base", "--is-ancestor", &lost, kept]).ok();
    repo.git(["cat-file", "-e", &format!("{lost}:a.txt")]).ok();
    // Nothing left that only reflogs reach: no more checkpoints.
    assert_eq!(repo.checkpoint_count(), 1);
    // Undo has nothing to put back, and says where the commits are.
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has(&format!("`git log {kept}` lists them"));
}

#[test]
fn an_expire_in_a_repository_without_commits_keeps_nothing() {
    let repo = TestRepo::empty();
    repo.shim_env(
        ["reflog", "expire", "--expire=now", "--all"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok();
    assert_eq!(repo.checkpoint_count(), 0);
}

/// Listing and showing checkpoints only read: like read-only git commands
///, they run while the policy is broken, which a person
/// may be about to fix from a checkpoint. Taking one still fails closed.
#[test]
fn listing_and_showing_run_while_the_policy_is_broken() {
    let repo = TestRepo::new();
    repo.write("a.txt", "1\n");
    let id = repo.checkpoint("before the policy broke");
    repo.local_policy("[checkout\n");
    let (run, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["status"], "S");
    assert_eq!(v["checkpoints"][0]["id"], id.as_str());
    repo.ward(["checkpoint", "show", &id])
        .ok()
        .stdout_has("before the policy broke");
    repo.ward(["checkpoint", "-m", "now"])
        .code(3)
        .stderr_has("EN-GIT-E-001");
    repo.ward(["checkpoint", "show", &id, "--branch"])
        .code(3)
        .stderr_has("EN-GIT-E-001");
}

#[test]
fn numbers_written_by_hand_cannot_stop_checkpoints() {
    let repo = TestRepo::new();
    let huge = "refs/ward/checkpoints/chk-local-18446744073709551615";
    repo.git(["update-ref", huge, "HEAD"]).ok();
    assert_eq!(repo.checkpoint("after a huge ref"), "chk-local-1");
    std::fs::write(
        repo.dir.join(".git/ward/seq/chk-local"),
        "18446744073709551615\n",
    )
    .unwrap();
    assert_eq!(
        repo.checkpoint("after a huge remembered number"),
        "chk-local-2"
    );

    // A turn checkpoint whose turn number is the largest there is.
    let (_, v) = repo.ward_json(["turn", "--tests", "true", "--json"], &[]);
    let turn = v["checkpoint"].as_str().unwrap().to_string();
    let message = repo
        .git([
            "log",
            "-1",
            "--format=%B",
            &format!("refs/ward/checkpoints/{turn}"),
        ])
        .ok()
        .stdout
        .replace("Ward-Turn: 1\n", "Ward-Turn: 4294967295\n")
        .replace(&format!("Ward-Id: {turn}\n"), "Ward-Id: chk-local-50\n");
    let tree = format!("refs/ward/checkpoints/{turn}^{{tree}}");
    let forged = repo.git_stdin(["commit-tree", &tree], &message).ok().stdout;
    repo.git([
        "update-ref",
        "refs/ward/checkpoints/chk-local-50",
        forged.trim(),
    ])
    .ok();
    let (run, v) = repo.ward_json(["turn", "--tests", "true", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["turn"], 2);

    repo.write("README", "dirty\n");
    repo.shim_env(["checkout", "--", "."], &[]).ok();
    assert_eq!(repo.read("README").as_deref(), Some("hello\n"));
}

#[test]
fn a_checkpoint_with_an_empty_message_is_listed_and_restored() {
    let repo = TestRepo::new();
    repo.write("README", "kept\n");
    let (run, v) = repo.ward_json(["checkpoint", "-m", "", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let id = v["checkpoint"]["id"].as_str().unwrap().to_string();
    let (_, list) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert_eq!(list["checkpoints"][0]["id"], id.as_str());
    assert_eq!(list["checkpoints"][0]["description"], "");
    repo.write("README", "lost\n");
    repo.ward(["rollback", &id, "--yes"]).ok();
    assert_eq!(repo.read("README").as_deref(), Some("kept\n"));
}

#[test]
fn any_byte_in_a_message_keeps_the_checkpoint_listed() {
    let repo = TestRepo::new();
    let odd = repo.checkpoint("a\u{1e}b\u{1f}c\tfield");
    let plain = repo.checkpoint("plain");
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    let listed: Vec<(&str, &str)> = v["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap(),
                c["description"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            (plain.as_str(), "plain"),
            (odd.as_str(), "a\u{1e}b\u{1f}c\tfield")
        ]
    );
}

#[test]
fn many_checkpoints_at_once_each_get_an_id() {
    let repo = TestRepo::new();
    let trees: Vec<std::path::PathBuf> = (1..=3)
        .map(|w| {
            let dir = repo.path(&format!("wt{w}"));
            let branch = format!("w{w}");
            repo.git([
                "worktree",
                "add",
                "-q",
                dir.to_str().unwrap(),
                "-b",
                &branch,
            ])
            .ok();
            std::fs::write(dir.join("README"), format!("dirty {w}\n")).unwrap();
            dir
        })
        .collect();
    let children: Vec<std::process::Child> = (0..36)
        .map(|k| {
            let mut cmd = repo.ward_command(["checkpoint", "-m", &format!("k{k}")]);
            cmd.current_dir(&trees[k % 3])
                .env("WARD_CONTRACT", "shared")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(repo.checkpoint_count(), 36);
}

/// What a killed run left (its temporary index, its scratch checkout) is
/// removed by the next one; what a running one holds stays.
#[test]
fn what_a_killed_run_left_is_swept_and_a_live_ones_stays() {
    let repo = TestRepo::new();
    let gone = crate::common::gone_pid();
    let git_dir = repo.dir.join(".git");
    let live = std::process::id();
    let scratch = git_dir.join("ward/tmp");
    std::fs::create_dir_all(scratch.join(format!("checkout-{gone}/files"))).unwrap();
    std::fs::create_dir_all(scratch.join(format!("checkout-{live}"))).unwrap();
    for name in [
        format!("ward-index-{gone}-0"),
        format!("ward-index-{gone}-0.lock"),
        format!("ward-index-{live}-0"),
    ] {
        std::fs::write(git_dir.join(name), "index").unwrap();
    }
    repo.write("README", "changed\n");
    let (_, v) = repo.ward_json(["checkpoint", "--json"], &[]);
    let id = v["checkpoint"]["id"].as_str().unwrap().to_string();
    repo.write("README", "changed again\n");
    repo.ward(["rollback", &id, "--yes", "--no-safety"]).ok();
    assert!(!git_dir.join(format!("ward-index-{gone}-0")).exists());
    assert!(!git_dir.join(format!("ward-index-{gone}-0.lock")).exists());
    assert!(!scratch.join(format!("checkout-{gone}")).exists());
    assert!(git_dir.join(format!("ward-index-{live}-0")).exists());
    assert!(scratch.join(format!("checkout-{live}")).exists());
}

/// Runs that prune at the same time (a small `checkpoint.keep`, many
/// checkpoints at once) each delete what is still there: no warning, and
/// `keep` left.
#[test]
fn retention_at_the_same_time_in_one_worktree_warns_of_nothing() {
    let repo = TestRepo::new();
    repo.local_policy("[checkpoint]\nkeep = 3\n");
    repo.write("README", "dirty\n");
    for round in 0..4 {
        let children: Vec<std::process::Child> = (0..4)
            .map(|k| {
                let mut cmd = repo.ward_command(["checkpoint", "-m", &format!("r{round}-{k}")]);
                cmd.stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                cmd.spawn().unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{stderr}");
            assert!(!stderr.contains("retention failed"), "{stderr}");
        }
    }
    repo.ward(["checkpoint", "-m", "last"]).ok();
    assert!(repo.checkpoint_count() <= 4, "{}", repo.checkpoint_count());
}
