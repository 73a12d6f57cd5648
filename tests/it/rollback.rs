//! `git ward rollback`: the plan, the confirmation, the safety checkpoint,
//! selective and safe restores, and a rollback killed halfway.

use crate::common::TestRepo;

/// A checkpoint, then one change of every kind after it.
fn changed_since() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n.env\n")
        .write("keep.txt", "keep\n")
        .write("edit.txt", "v1\n")
        .write("gone.txt", "gone\n")
        .commit("base");
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write("untracked.txt", "mine\n").write(".env", "A=1\n");
    let id = repo.checkpoint("base");
    repo.write("edit.txt", "v2\n")
        .write("created.txt", "new\n")
        .write("dir/created.txt", "new\n")
        .write("debug.log", "ignored, created since\n")
        .write(".env", "A=2\n");
    std::fs::remove_file(repo.dir.join("gone.txt")).unwrap();
    std::fs::remove_file(repo.dir.join("untracked.txt")).unwrap();
    (repo, id)
}

fn statuses(v: &serde_json::Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["plan"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_string(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_plan_names_every_kind_of_change() {
    let (repo, id) = changed_since();
    let (run, v) = repo.ward_json(["rollback", &id, "--dry-run", "--json"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(v["status"], "S");
    let s = |p: &str, k: &str| (p.to_string(), k.to_string());
    assert_eq!(
        statuses(&v),
        vec![
            s(".env", "RESTORE"),
            s("created.txt", "REMOVE"),
            s("dir/created.txt", "REMOVE"),
            s("edit.txt", "RESTORE"),
            s("gone.txt", "MISSING"),
            s("untracked.txt", "MISSING"),
        ]
    );
    assert_eq!(v["plan"]["unchanged"], 3, "README, .gitignore, keep.txt");
    assert_eq!(v["modify"], 4);
    assert_eq!(v["remove"], 2);
    repo.ward(["rollback", &id, "--dry-run"])
        .ok()
        .stdout_has("  RESTORE   edit.txt")
        .stdout_has("  REMOVE    created.txt")
        .stdout_has("  MISSING   gone.txt")
        .stdout_has("  UNCHANGED 3 files")
        .stdout_has("This will modify 4 files and remove 2 files");
    repo.ward(["rollback", &id, "--dry-run", "--verbose"])
        .ok()
        .stdout_has("  UNCHANGED keep.txt");
}

#[test]
fn dry_run_and_unconfirmed_runs_change_nothing() {
    let (repo, id) = changed_since();
    let before = repo.state();
    let index = std::fs::read(repo.dir.join(".git/index")).unwrap();
    repo.ward(["rollback", &id, "--dry-run", "--diff"])
        .ok()
        .stdout_has("-v2")
        .stdout_has("Dry run: nothing changed");
    assert_eq!(repo.state(), before);
    // No terminal: not a denial (exit 2), and the exact command to run.
    repo.ward(["rollback", &id])
        .code(2)
        .stdout_has("Not confirmed: nothing changed")
        .stdout_has(&format!("To proceed: git ward rollback {id} --yes"));
    assert_eq!(repo.state(), before);
    let (run, v) = repo.ward_json(["rollback", &id, "--json"], &[]);
    assert_eq!(run.code, Some(2));
    assert_eq!(v["status"], "I");
    assert_eq!(repo.state(), before);
    // --interactive with no terminal: no file is chosen, none is asked.
    repo.ward_stdin(["rollback", &id, "--interactive", "--no-safety"], "")
        .code(2)
        .stdout_has("Not confirmed: nothing changed");
    assert_eq!(repo.state(), before);
    assert_eq!(std::fs::read(repo.dir.join(".git/index")).unwrap(), index);
}

/// At a terminal the question is asked: no (or just Enter) changes
/// nothing and says so, without claiming there was no terminal; yes rolls
/// back.
#[test]
fn the_question_at_a_terminal_takes_no_and_yes() {
    let (repo, id) = changed_since();
    let before = repo.state();
    for answer in ["n\n", "\n"] {
        let run = repo
            .ward_at_terminal(["rollback", &id], answer)
            .code(1)
            .stderr_has("Continue with rollback? [y/N]")
            .stdout_has("Not confirmed: nothing changed");
        assert!(!run.stdout.contains("no terminal"), "{}", run.stdout);
        assert_eq!(repo.state(), before);
    }
    let run = repo.ward_at_terminal(["rollback", &id, "--json"], "no\n");
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!((v["status"].as_str(), run.code), (Some("D"), Some(1)));
    assert_eq!(v["message"], "Not confirmed: nothing changed.");
    repo.ward_at_terminal(["rollback", &id], "y\n")
        .ok()
        .stdout_has("Restored 4 files, removed 2 files");
    assert_eq!(repo.read("edit.txt").as_deref(), Some("v1\n"));
}

#[test]
fn rollback_restores_takes_a_safety_checkpoint_and_can_be_rolled_back() {
    let (repo, id) = changed_since();
    let after = repo.state();
    let edit_mtime = std::fs::metadata(repo.dir.join("keep.txt"))
        .unwrap()
        .modified()
        .unwrap();
    let run = repo
        .ward(["rollback", &id, "--yes"])
        .ok()
        .stdout_has("Safety checkpoint: chk-local-2")
        .stdout_has("Restored 4 files, removed 2 files");
    let _ = run;
    assert_eq!(repo.read("edit.txt").as_deref(), Some("v1\n"));
    assert_eq!(repo.read("gone.txt").as_deref(), Some("gone\n"));
    assert_eq!(repo.read("untracked.txt").as_deref(), Some("mine\n"));
    assert_eq!(
        repo.read(".env").as_deref(),
        Some("A=1\n"),
        "allow-listed ignored restored"
    );
    assert_eq!(repo.read("created.txt"), None);
    assert!(!repo.dir.join("dir").exists(), "emptied directory removed");
    assert_eq!(
        repo.read("debug.log").as_deref(),
        Some("ignored, created since\n"),
        "ignored files are never touched"
    );
    assert_eq!(
        std::fs::metadata(repo.dir.join("keep.txt"))
            .unwrap()
            .modified()
            .unwrap(),
        edit_mtime,
        "unchanged files are not rewritten"
    );
    assert!(
        repo.rev(&format!("refs/ward/checkpoints/{id}")).is_some(),
        "checkpoint kept"
    );
    let audit = std::fs::read_dir(repo.dir.join(".git/ward/audit")).unwrap();
    let text: String = audit
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(text.contains("\"operation\":\"ward.rollback\""));

    // An agent's rollback keeps what it overwrites undoable.
    let agent = repo.state();
    repo.ward_env(
        ["rollback", "chk-local-2", "--yes", "--no-safety"],
        &[("WARD_AGENT", "1")],
    )
    .code(1)
    .stderr_has("ward: denied [EN-GIT-D-004] rollback --no-safety")
    .stderr_has("hint:");
    assert_eq!(repo.state(), agent);
    repo.ward(["rollback", "chk-local-2", "--yes", "--no-safety"])
        .ok();
    assert_eq!(
        repo.state(),
        after,
        "rolling back the rollback gives the state back"
    );
    assert!(
        repo.rev("refs/ward/checkpoints/chk-local-3").is_none(),
        "--no-safety"
    );
}

#[test]
fn files_restores_only_the_named_paths() {
    let (repo, id) = changed_since();
    repo.ward(["rollback", &id, "--yes", "--files", "edit.txt", "dir"])
        .ok()
        .stdout_has("Restored 1 file, removed 1 file");
    assert_eq!(repo.read("edit.txt").as_deref(), Some("v1\n"));
    assert_eq!(repo.read("dir/created.txt"), None);
    assert_eq!(repo.read("created.txt").as_deref(), Some("new\n"));
    assert_eq!(repo.read("gone.txt"), None);
}

/// A name that is not UTF-8 (Latin-1, as in old repositories) is taken
/// by `--files` as the bytes it is, with `--diff` too.
#[test]
fn files_takes_a_path_that_is_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let (repo, id) = changed_since();
    let name = OsStr::from_bytes(b"r\xe9sum\xe9.txt");
    std::fs::write(repo.dir.join(name), "v2 precious\n").unwrap();
    let id2 = repo.checkpoint("with it");
    std::fs::write(repo.dir.join(name), "v3\n").unwrap();
    let mut args: Vec<&OsStr> = ["rollback", &id2, "--yes", "--diff", "--files"]
        .map(OsStr::new)
        .to_vec();
    args.push(name);
    repo.ward(args)
        .ok()
        .stdout_has("Restored 1 file, removed 0 files");
    assert_eq!(
        std::fs::read(repo.dir.join(name)).unwrap(),
        b"v2 precious\n"
    );
    assert_eq!(repo.read("edit.txt").as_deref(), Some("v2\n"));
    assert_ne!(id, id2);
}

#[test]
fn paths_outside_the_worktree_are_refused_before_anything_changes() {
    let (repo, id) = changed_since();
    let outside = repo.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, repo.dir.join("link")).unwrap();
    let before = repo.state();
    for bad in [
        "../outside/x".to_string(),
        outside.join("x").display().to_string(),
        "/etc/passwd".to_string(),
        "link/x".to_string(),
        "edit.txt/../../outside".to_string(),
    ] {
        repo.ward(["rollback", &id, "--yes", "--files", "edit.txt", &bad])
            .code(2)
            .stderr_has("EN-GIT-I-001")
            .stderr_has("refusing path");
        assert_eq!(repo.state(), before, "{bad}");
    }
}

#[test]
fn a_symlinked_directory_in_the_checkpoint_never_leads_writes_outside() {
    let repo = TestRepo::new();
    repo.write("d/f.txt", "inside\n").commit("d");
    let id = repo.checkpoint("with d");
    let outside = repo.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::remove_dir_all(repo.dir.join("d")).unwrap();
    std::os::unix::fs::symlink(&outside, repo.dir.join("d")).unwrap();
    repo.ward(["rollback", &id, "--yes"]).ok();
    assert!(!outside.join("f.txt").exists(), "wrote through a symlink");
    assert_eq!(repo.read("d/f.txt").as_deref(), Some("inside\n"));
}

#[test]
fn index_restores_the_staged_state_too() {
    let repo = TestRepo::new();
    repo.write("a.txt", "staged\n");
    repo.git(["add", "a.txt"]).ok();
    repo.write("a.txt", "worktree\n");
    let staged = repo.git(["diff", "--cached"]).ok().stdout;
    let id = repo.checkpoint("staged");
    repo.git(["reset", "-q"]).ok();
    repo.write("a.txt", "later\n");
    repo.ward(["rollback", &id, "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("worktree\n"));
    assert_eq!(
        repo.git(["diff", "--cached"]).ok().stdout,
        "",
        "index left alone"
    );
    repo.ward(["rollback", &id, "--yes", "--index"]).ok();
    assert_eq!(repo.git(["diff", "--cached"]).ok().stdout, staged);
    assert_eq!(repo.read("a.txt").as_deref(), Some("worktree\n"));
}

#[test]
fn interactive_asks_per_file() {
    let (repo, id) = changed_since();
    // Plan order: .env, created.txt, dir/created.txt, edit.txt, gone.txt, untracked.txt
    repo.ward_at_terminal(["rollback", &id, "--interactive"], "n\ny\nn\na\n")
        .ok()
        .stderr_has("RESTORE .env? [y/N/a] ");
    assert_eq!(repo.read(".env").as_deref(), Some("A=2\n"));
    assert_eq!(repo.read("created.txt"), None);
    assert_eq!(repo.read("dir/created.txt").as_deref(), Some("new\n"));
    assert_eq!(repo.read("edit.txt").as_deref(), Some("v1\n"));
    assert_eq!(repo.read("gone.txt").as_deref(), Some("gone\n"));
    assert_eq!(repo.read("untracked.txt").as_deref(), Some("mine\n"));
}

/// The per-file questions need a terminal. Without one, `--interactive`
/// changes nothing and takes no safety checkpoint, as a plain rollback
/// without a terminal; `--yes` does not answer them, nor does a pipe.
#[test]
fn interactive_without_a_terminal_changes_nothing_even_with_yes() {
    let (repo, id) = changed_since();
    let before = repo.state();
    let checkpoints = repo.checkpoint_count();
    for flags in [
        &["--interactive"][..],
        &["--interactive", "--yes"],
        &["-i", "-y"],
    ] {
        let mut args = vec!["rollback", id.as_str()];
        args.extend_from_slice(flags);
        let run = repo
            .ward(&args)
            .code(2)
            .stdout_has("Not confirmed: nothing changed")
            .stdout_has("run it at a terminal")
            .stdout_has("without --interactive and with --yes");
        assert!(
            !run.stdout.contains("Restored"),
            "{flags:?}: {}",
            run.stdout
        );
        assert!(!run.stdout.contains("Safety checkpoint"), "{}", run.stdout);
        assert_eq!(repo.state(), before, "{flags:?}");
        assert_eq!(repo.checkpoint_count(), checkpoints, "{flags:?}");

        args.push("--json");
        let (run, v) = repo.ward_json(&args, &[]);
        assert_eq!(
            (v["status"].as_str(), run.code),
            (Some("I"), Some(2)),
            "{v}"
        );
        assert!(v.get("safety_checkpoint").is_none(), "{v}");
        assert_eq!(repo.state(), before, "{flags:?} --json");
        assert_eq!(repo.checkpoint_count(), checkpoints, "{flags:?} --json");
    }
    // Answers on a pipe are not a person's.
    repo.ward_stdin(["rollback", &id, "--interactive", "--yes"], "a\n")
        .code(2)
        .stdout_has("Not confirmed: nothing changed");
    assert_eq!(repo.state(), before);
    assert_eq!(repo.checkpoint_count(), checkpoints);
}

#[test]
fn commit_records_the_rollback_under_the_same_rules() {
    let (repo, id) = changed_since();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.ward(["rollback", &id, "--yes", "--commit"])
        .ok()
        .stdout_has(&format!("Committed as `Rollback to {id}` on agent/c1"));
    assert_eq!(
        repo.git(["log", "-1", "--format=%s"]).ok().stdout.trim(),
        format!("Rollback to {id}")
    );
    assert_eq!(repo.git(["show", "HEAD:edit.txt"]).ok().stdout, "v1\n");

    // An agent on main without a contract: the commit is denied, as any
    // commit would be, before anything is restored.
    let (repo, id) = changed_since();
    let before = repo.state();
    repo.ward_env(
        ["rollback", &id, "--yes", "--commit"],
        &[("WARD_AGENT", "1")],
    )
    .code(1)
    .stderr_has("EN-GIT-D-003")
    .stderr_has("nothing was restored");
    assert_eq!(repo.state(), before);
    assert_eq!(
        repo.git(["log", "-1", "--format=%s"]).ok().stdout.trim(),
        "base"
    );
    // With a contract it switches to the agent branch first.
    repo.ward_env(
        ["rollback", &id, "--yes", "--commit"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok();
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.rev("main"), repo.rev("HEAD~1"));
}

/// A path that cannot be restored (a submodule's commit) is named, the
/// others are restored, and the end is an error with its code and hint.
#[test]
fn a_path_that_cannot_be_restored_ends_in_an_error_with_a_hint() {
    let repo = TestRepo::new();
    repo.write("a.txt", "kept\n");
    let id = repo.submodule_moved_since_checkpoint();
    repo.write("a.txt", "changed\n");
    repo.ward(["rollback", &id, "--yes"])
        .code(3)
        .stdout_has("not restored: sub: a submodule")
        .stderr_has("ward: error [EN-GIT-E-001] rollback: 1 path could not be restored")
        .stderr_has("hint: ");
    assert_eq!(repo.read("a.txt").as_deref(), Some("kept\n"));
    let (run, v) = repo.ward_json(["rollback", &id, "--yes", "--json"], &[]);
    assert_eq!(run.code, Some(3));
    assert_eq!(v["status"], "E", "{v}");
    assert_eq!(v["code"], "EN-GIT-E-001", "{v}");
    assert!(v["hint"].is_string(), "{v}");
    // The audit line says so too.
    let lines = repo.audit_records(&[]);
    let last = lines
        .iter()
        .rev()
        .find(|r| r["operation"] == "ward.rollback")
        .unwrap();
    assert_eq!(last["exit_code"], 3, "{last}");
    assert!(
        last["actions_taken"]
            .to_string()
            .contains("1 path not restored"),
        "{last}"
    );
}

#[test]
fn a_rollback_killed_at_random_points_is_recoverable() {
    use std::os::unix::process::CommandExt;
    let (repo, id) = changed_since();
    for i in 0..12 {
        repo.write(&format!("more/{i}.txt"), &"data\n".repeat(200));
    }
    let before = repo.state();
    // Aim the kills around where the safety checkpoint and the writes
    // happen: after about one dry run's time (snapshot and plan).
    let clock = std::time::Instant::now();
    repo.ward(["rollback", &id, "--dry-run"]).ok();
    let plan_ms = clock.elapsed().as_millis() as u64;
    // The state a finished rollback leaves, and back again.
    let run = repo.ward(["rollback", &id, "--yes", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["status"], "S");
    let done = repo.state();
    let safety = v["safety_checkpoint"].as_str().unwrap().to_string();
    repo.ward(["rollback", &safety, "--yes", "--no-safety"])
        .ok();
    assert_eq!(repo.state(), before);
    let (mut untouched, mut partial, mut complete) = (0, 0, 0);
    for run in 0..20u64 {
        let existing = repo
            .git([
                "for-each-ref",
                "--format=%(refname)",
                "refs/ward/checkpoints/",
            ])
            .stdout;
        let mut cmd = std::process::Command::new(crate::common::ward_bin());
        repo.hermetic(&mut cmd);
        cmd.env("WARD_REAL_GIT", crate::common::real_git())
            .args(["rollback", &id, "--yes"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0);
        let mut child = cmd.spawn().unwrap();
        // From early (before any change) to late (after the last write).
        let delay = plan_ms / 2 + (run * 7919 + 13) % 20 * plan_ms / 16;
        std::thread::sleep(std::time::Duration::from_millis(delay));
        unsafe {
            libc::kill(-(child.id() as i32), libc::SIGKILL);
        }
        let _ = child.wait();
        let _ = std::fs::remove_file(repo.dir.join(".git/index.lock"));
        let now = repo
            .git([
                "for-each-ref",
                "--format=%(refname)",
                "refs/ward/checkpoints/",
            ])
            .stdout;
        let new: Vec<&str> = now.lines().filter(|l| !existing.contains(l)).collect();
        match new.as_slice() {
            [] => {
                assert_eq!(
                    repo.state(),
                    before,
                    "run {run}: no safety checkpoint, yet changes"
                );
                untouched += 1;
            }
            [safety] => {
                match repo.state() {
                    s if s == before => untouched += 1,
                    s if s == done => complete += 1,
                    _ => partial += 1,
                }
                let safety = safety.trim_start_matches("refs/ward/checkpoints/");
                repo.ward(["rollback", safety, "--yes", "--no-safety"]).ok();
                assert_eq!(repo.state(), before, "run {run}: rolling back to {safety}");
            }
            more => panic!("run {run}: several new checkpoints {more:?}"),
        }
    }
    eprintln!(
        "killed: {untouched} before any change, {partial} halfway, {complete} after the last write"
    );
}
