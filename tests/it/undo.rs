//! `git ward undo`: destructive agent commands run through the shim, then
//! undone: files, index and refs as before the command.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

/// An agent's repository on `agent/c1` with three commits, git-ward's
/// hooks installed (for the ref journal), dirty and untracked files, an
/// ignored file and an allow-listed ignored one.
fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "*.log\n.env\nbuild/\n")
        .commit("ignore");
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a1\n").commit("a1");
    repo.write("a.txt", "a2\n").commit("a2");
    // The ref journal comes from the hooks; without them undo reads the
    // refs the checkpoint recorded.
    let _ = repo.ward(["install"]);
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write("a.txt", "dirty\n")
        .write("staged.txt", "staged\n");
    repo.git(["add", "staged.txt"]).ok();
    repo.write("new/untracked.txt", "untracked\n")
        .write("debug.log", "log\n")
        .write(".env", "SECRET=1\n");
    repo
}

fn undo(repo: &TestRepo) {
    repo.ward(["undo", "--yes"]).ok();
}

/// The objects checkpoints keep reachable under `refs/ward/kept/`: what
/// each ref names, and the parents of the one keeping stash entries.
fn kept_objects(repo: &TestRepo) -> String {
    let refs = repo
        .git([
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/ward/kept/",
        ])
        .ok()
        .stdout;
    let mut out = String::new();
    for line in refs.lines() {
        let (name, id) = line.split_once(' ').unwrap();
        out.push_str(&format!("{id}\n"));
        if name.ends_with("/stashes") {
            out.push_str(&repo.git(["log", "-1", "--format=%P", id]).ok().stdout);
        }
    }
    out
}

#[test]
fn reset_hard_over_dirty_and_untracked_files() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn reset_hard_two_commits_back() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard", "HEAD~2"], C1).ok();
    assert_ne!(repo.state(), before);
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("refs/heads/agent/c1");
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn checkout_dot_and_restore_dot() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["checkout", "--", "."], C1).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    undo(&repo);
    assert_eq!(repo.state(), before);
    repo.shim_env(["restore", "."], C1).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn clean_fdx_brings_back_only_what_was_kept() {
    let repo = agent_repo();
    repo.write("build/out.o", "obj\n");
    repo.shim_env(["clean", "-fdxq"], C1).ok();
    assert_eq!(repo.read("new/untracked.txt"), None);
    assert_eq!(repo.read(".env"), None);
    undo(&repo);
    assert_eq!(
        repo.read("new/untracked.txt").as_deref(),
        Some("untracked\n")
    );
    assert_eq!(
        repo.read(".env").as_deref(),
        Some("SECRET=1\n"),
        "allow-listed"
    );
    assert_eq!(repo.read("debug.log"), None, "ignored and not allow-listed");
    assert_eq!(repo.read("build/out.o"), None);
}

/// `git diff | git apply -R` throws the changes away like `checkout -- .`,
/// and the patch from the pipe is in no file: checkpointed first.
#[test]
fn apply_reverse_of_the_changes_comes_back() {
    let repo = agent_repo();
    let patch = repo.path("changes.diff");
    std::fs::write(&patch, repo.git(["diff"]).ok().stdout).unwrap();
    let before = repo.state();
    repo.shim_env(["apply", "-R", patch.to_str().unwrap()], C1)
        .ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// Deleting a stash entry's reflog line is what `stash drop` does.
#[test]
fn a_stash_entry_reflog_deletes_comes_back() {
    let repo = agent_repo();
    repo.git(["stash", "push", "-q", "-m", "first"]).ok();
    repo.write("a.txt", "second\n");
    repo.git(["stash", "push", "-q", "-m", "second"]).ok();
    let before = repo.state();
    let list = repo.git(["stash", "list"]).ok().stdout;
    for args in [
        &["reflog", "delete", "refs/stash@{1}"][..],
        // Leaves refs/stash at the entry its reflog no longer lists.
        &["reflog", "delete", "refs/stash@{0}"],
        &["reflog", "expire", "--expire=now", "refs/stash"],
    ] {
        repo.shim_env(args, C1).ok();
        assert_ne!(repo.git(["stash", "list"]).ok().stdout, list, "{args:?}");
        undo(&repo);
        assert_eq!(repo.git(["stash", "list"]).ok().stdout, list, "{args:?}");
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

#[test]
fn stash_drop_comes_back() {
    let repo = agent_repo();
    repo.git(["stash", "-q", "-u"]).ok();
    let before = repo.state();
    let stash = repo.rev("refs/stash").unwrap();
    repo.shim_env(["stash", "drop", "-q"], C1).ok();
    assert!(repo.rev("refs/stash").is_none());
    assert!(kept_objects(&repo).contains(&stash));
    undo(&repo);
    assert_eq!(repo.rev("refs/stash").as_deref(), Some(stash.as_str()));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_single_stash_entry_update_ref_deletes_comes_back_listed() {
    let repo = agent_repo();
    repo.git(["stash", "-q"]).ok();
    let list = repo.git(["stash", "list"]).ok().stdout;
    repo.shim_env(["update-ref", "-d", "refs/stash"], C1).ok();
    undo(&repo);
    assert_eq!(repo.git(["stash", "list"]).ok().stdout, list);
}

#[test]
fn every_stash_entry_update_ref_deletes_comes_back() {
    let repo = agent_repo();
    repo.git(["stash", "-q", "-u"]).ok();
    repo.write("a.txt", "second\n");
    repo.git(["stash", "-q"]).ok();
    let before = repo.state();
    let older = repo.rev("stash@{1}").unwrap();
    repo.shim_env(["update-ref", "-d", "refs/stash"], C1).ok();
    assert!(repo.rev("refs/stash").is_none());
    // One ref keeps every entry, however many there are.
    let kept = repo
        .git(["for-each-ref", "--format=%(refname)", "refs/ward/kept/"])
        .ok()
        .stdout;
    let stash_refs: Vec<&str> = kept.lines().filter(|l| !l.contains("/ref-")).collect();
    assert_eq!(stash_refs, ["refs/ward/kept/chk-c1-1/stashes"]);
    prune_everything(&repo);
    undo(&repo);
    assert_eq!(repo.rev("stash@{1}").as_deref(), Some(older.as_str()));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_branch_a_symbolic_ref_replaces_is_kept_through_a_prune() {
    let repo = agent_repo();
    let tip = commit_only_on(&repo, "agent/other");
    repo.shim_env(
        ["symbolic-ref", "refs/heads/agent/other", "refs/heads/main"],
        C1,
    )
    .ok();
    repo.git(["update-ref", "--no-deref", "-d", "refs/heads/agent/other"])
        .ok();
    prune_everything(&repo);
    assert!(kept_objects(&repo).contains(&tip));
    repo.git(["branch", "agent/other", &tip]).ok();
}

#[test]
fn a_branch_made_a_symbolic_ref_is_a_branch_again_and_the_other_is_left_alone() {
    let repo = agent_repo();
    let tip = commit_only_on(&repo, "agent/other");
    let before = repo.state();
    repo.shim_env(
        [
            "symbolic-ref",
            "refs/heads/agent/other",
            "refs/heads/agent/c1",
        ],
        C1,
    )
    .ok();
    undo(&repo);
    let symbolic = repo.git(["symbolic-ref", "-q", "refs/heads/agent/other"]);
    assert_ne!(
        symbolic.code,
        Some(0),
        "still symbolic: {}",
        symbolic.stdout
    );
    assert_eq!(repo.rev("agent/other").as_deref(), Some(tip.as_str()));
    assert_eq!(repo.state(), before);
}

#[test]
fn branch_delete_comes_back() {
    let repo = agent_repo();
    repo.git(["branch", "doomed", "HEAD~1"]).ok();
    let tip = repo.rev("doomed");
    let before = repo.state();
    repo.shim_env(["branch", "-q", "-D", "doomed"], C1).ok();
    assert!(repo.rev("doomed").is_none());
    undo(&repo);
    assert_eq!(repo.rev("doomed"), tip);
    assert_eq!(repo.state(), before);
}

/// An agent's git that skips the shim (`/usr/bin/git` by its path) takes
/// no checkpoint, but the hooks journal the refs it moves: undo moves them
/// back when it is the last command, and a second undo redoes.
#[test]
fn an_agents_ref_changes_that_skipped_the_shim_are_undone() {
    let repo = agent_repo();
    let agent = [("WARD_AGENT", "1")];
    repo.shim_env(["commit", "-q", "-m", "by the shim"], C1)
        .ok();
    let through_shim = repo.rev("agent/c1");
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "plain"], &agent)
        .ok();
    assert_ne!(repo.rev("agent/c1"), through_shim);
    undo(&repo);
    assert_eq!(repo.rev("agent/c1"), through_shim);

    repo.git(["branch", "doomed", "HEAD~1"]).ok();
    let tip = repo.rev("doomed");
    repo.git_env(["branch", "-D", "doomed"], &agent).ok();
    assert!(repo.rev("doomed").is_none());
    repo.ward(["undo", "--list"])
        .ok()
        .stdout_has("branch -D doomed  checkpoint -  1 ref change");
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("Undo `git branch -D doomed`")
        .stdout_has("FILES     left as they are: no checkpoint was taken")
        .stdout_has("REF       refs/heads/doomed recreate");
    undo(&repo);
    assert_eq!(repo.rev("doomed"), tip);
    undo(&repo);
    assert!(repo.rev("doomed").is_none());
}

/// A commit that only `refs/heads/<name>` (and its reflog) reaches.
fn commit_only_on(repo: &TestRepo, name: &str) -> String {
    let only = repo
        .git([
            "commit-tree",
            "HEAD^{tree}",
            "-p",
            "HEAD",
            "-m",
            "only here",
        ])
        .ok()
        .stdout
        .trim()
        .to_string();
    repo.git(["update-ref", &format!("refs/heads/{name}"), &only])
        .ok();
    only
}

/// Expires every reflog and prunes what nothing else reaches, with the real
/// git (no checkpoint of its own).
fn prune_everything(repo: &TestRepo) {
    repo.git(["reflog", "expire", "--expire=now", "--all"]).ok();
    repo.git(["gc", "-q", "--prune=now"]).ok();
}

#[test]
fn a_ref_update_ref_deletes_outlives_a_prune_and_comes_back() {
    let repo = agent_repo();
    let only = commit_only_on(&repo, "doomed");
    let before = repo.state();
    // Its reflog goes with it, as with `branch -D`.
    repo.shim_env(["update-ref", "-d", "refs/heads/doomed"], C1)
        .ok();
    assert!(repo.rev("doomed").is_none());
    assert_eq!(repo.checkpoint_count(), 1);
    prune_everything(&repo);
    repo.git(["cat-file", "-e", &only]).ok();
    undo(&repo);
    assert_eq!(repo.rev("doomed").as_deref(), Some(only.as_str()));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_branch_a_forced_rename_replaces_outlives_a_prune_and_comes_back() {
    let repo = agent_repo();
    repo.git(["branch", "agent/old", "HEAD~1"]).ok();
    let old = repo.rev("agent/old");
    let only = commit_only_on(&repo, "agent/target");
    // git gives the target old's reflog: its own commits are left unreached.
    repo.shim_env(["branch", "-M", "agent/old", "agent/target"], C1)
        .ok();
    assert_eq!(repo.rev("agent/target"), old);
    assert_eq!(repo.checkpoint_count(), 1);
    prune_everything(&repo);
    repo.git(["cat-file", "-e", &only]).ok();
    undo(&repo);
    assert_eq!(repo.rev("agent/target").as_deref(), Some(only.as_str()));
    assert_eq!(repo.rev("agent/old"), old);
}

#[test]
fn a_branch_rename_is_undone_exactly() {
    let repo = agent_repo();
    repo.git(["branch", "agent/old", "HEAD~1"]).ok();
    let old = repo.rev("agent/old");
    // The new name is written outside a ref transaction (files backend):
    // no hook journals it, the shim does.
    repo.shim_env(["branch", "-m", "agent/old", "agent/new"], C1)
        .ok();
    assert_eq!(repo.rev("agent/new"), old);
    undo(&repo);
    assert_eq!(repo.rev("agent/old"), old);
    assert!(repo.rev("refs/heads/agent/new").is_none());
}

#[test]
fn a_tag_deleted_or_moved_outlives_a_prune_and_comes_back() {
    let repo = agent_repo();
    // Tags unprotected, so an agent may delete and move them.
    repo.local_policy(
        "[branches]\nprotected = [\"main\"]\n[checkpoint]\ninclude_ignored = [\".env\"]\n",
    );
    let only = commit_only_on(&repo, "scratch");
    repo.git(["tag", "-a", "-m", "note", "exp", &only]).ok();
    repo.git(["tag", "moved", &only]).ok();
    repo.git(["branch", "-q", "-D", "scratch"]).ok();
    let exp = repo.rev("refs/tags/exp").unwrap();
    repo.shim_env(["tag", "-d", "exp"], C1).ok();
    repo.shim_env(["tag", "-f", "moved", "HEAD"], C1).ok();
    assert!(repo.rev("refs/tags/exp").is_none());
    assert_eq!(repo.checkpoint_count(), 2);
    prune_everything(&repo);
    repo.git(["cat-file", "-e", &exp]).ok();
    repo.git(["cat-file", "-e", &only]).ok();
    let kept = kept_objects(&repo);
    assert!(kept.contains(&exp), "{kept}");
    assert!(kept.contains(&only), "{kept}");
    undo(&repo);
    assert_eq!(repo.rev("refs/tags/moved").as_deref(), Some(only.as_str()));
}

#[test]
fn rebase_of_a_branch() {
    let repo = agent_repo();
    repo.git(["stash", "-q", "-u"]).ok();
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("m.txt", "m\n").commit("on main");
    repo.git(["switch", "-q", "agent/c1"]).ok();
    repo.git(["stash", "pop", "-q"]).ok();
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "wip"]).ok();
    let before = repo.state();
    repo.shim_env(["rebase", "-q", "main"], C1).ok();
    assert_ne!(repo.rev("agent/c1"), None);
    assert_ne!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn undo_twice_redoes_and_list_shows_commands() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    let after = repo.state();
    repo.ward(["undo", "--list"])
        .ok()
        .stdout_has("git reset -q --hard HEAD~1");
    undo(&repo);
    assert_eq!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), after, "the second undo redoes");
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// A human's `git ward rollback` is recorded as the human's and stays
/// undoable, as an agent's is.
#[test]
fn a_humans_rollback_is_recorded_as_theirs_and_can_be_undone() {
    let repo = agent_repo();
    let id = repo.checkpoint("before the edit");
    repo.write("a.txt", "edited after\n");
    let edited = repo.state();
    repo.ward(["rollback", &id, "--yes"]).ok();
    let line = repo.audit_records(&[]).pop().unwrap();
    assert_eq!(line["operation"], "ward.rollback", "{line}");
    assert_eq!(line["actor"], "human", "{line}");
    repo.ward(["undo", "--list"])
        .ok()
        .stdout_has(&format!("git ward rollback {id} --yes"));
    undo(&repo);
    assert_eq!(repo.state(), edited);
}

#[test]
fn a_ref_moved_since_is_named_and_left_alone() {
    let repo = agent_repo();
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    repo.write("b.txt", "b\n").commit("human commit");
    let moved = repo.rev("agent/c1");
    repo.ward(["undo", "--yes"]).ok().stdout_has("moved since");
    assert_eq!(repo.rev("agent/c1"), moved);
}

#[test]
fn an_undo_with_only_a_ref_moved_since_says_nothing_was_undone() {
    let repo = agent_repo();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "agent"], C1)
        .ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "person"])
        .ok();
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("Nothing undone: 1 ref the command moved has moved since");
}

#[test]
fn verbose_lists_the_unchanged_files_of_the_plan() {
    let repo = agent_repo();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    repo.ward(["undo", "--dry-run", "--verbose"])
        .ok()
        .stdout_has("  UNCHANGED .gitignore\n");
}

#[test]
fn unconfirmed_undo_changes_nothing() {
    let repo = agent_repo();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    let after = repo.state();
    repo.ward(["undo"])
        .code(2)
        .stdout_has("Not confirmed")
        .stdout_has("To proceed: git ward undo --yes");
    repo.ward(["undo", "--dry-run"]).ok();
    assert_eq!(repo.state(), after);
    // Asked at a terminal and told no: nothing changes either.
    let run = repo
        .ward_at_terminal(["undo"], "n\n")
        .code(1)
        .stderr_has("Continue with undo? [y/N]")
        .stdout_has("Not confirmed: nothing changed");
    assert!(!run.stdout.contains("no terminal"), "{}", run.stdout);
    assert_eq!(repo.state(), after);
}

/// Undo from a journal written by hand (what reference-transaction writes):
/// the ref part works whoever recorded it.
#[test]
fn undo_follows_a_written_journal() {
    let repo = TestRepo::new();
    repo.write("a.txt", "1\n").commit("one");
    repo.write("a.txt", "2\n").commit("two");
    repo.write("a.txt", "dirty\n");
    let before = repo.state();
    let old = repo.rev("main").unwrap();
    let id = repo.checkpoint("pre");
    repo.git(["reset", "-q", "--hard", "HEAD~1"]).ok();
    let new = repo.rev("main").unwrap();
    let dir = repo.dir.join(".git/ward/audit");
    std::fs::create_dir_all(&dir).unwrap();
    let wt = std::fs::canonicalize(&repo.dir).unwrap();
    let lines = [
        serde_json::json!({"timestamp":"2026-01-01T00:00:01.000Z","started_at":"","duration_ms":0,"trace_id":"t-1","source":"reference-transaction","actor":"agent","contract_id":null,"operation":"git.reset","argv":[],"tier":1,"decision":"allow","branch_before":null,"branch_after":null,"actions_taken":["journal"],"denial_code":null,"exit_code":null,"worktree":null,"ref":"refs/heads/main","old":old,"new":new}),
        serde_json::json!({"timestamp":"2026-01-01T00:00:02.000Z","started_at":"","duration_ms":0,"trace_id":"t-1","source":"shim","actor":"agent","contract_id":null,"operation":"git.reset","argv":["reset","--hard","HEAD~1"],"tier":1,"decision":"checkpoint","branch_before":"main","branch_after":"main","actions_taken":[format!("checkpoint {id}")],"denial_code":null,"exit_code":0,"worktree":wt.display().to_string()}),
    ];
    // The command ran over midnight: its lines are in two days' files.
    std::fs::write(
        dir.join("audit.2026-01-01.jsonl"),
        format!("{}\n", lines[0]),
    )
    .unwrap();
    std::fs::write(
        dir.join("audit.2026-01-02.jsonl"),
        format!("{}\n", lines[1]),
    )
    .unwrap();
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("Undo `git reset --hard HEAD~1`")
        .stdout_has("RESTORE   a.txt");
    undo(&repo);
    assert_eq!(repo.rev("main").as_deref(), Some(old.as_str()));
    assert_eq!(repo.state(), before);
}

/// The command's checkpoint pruned since: undo says the files cannot
/// come back, never that they are as they were.
#[test]
fn undo_after_its_checkpoint_was_pruned_says_so() {
    let repo = agent_repo();
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    repo.write("a.txt", "dirty\n");
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    for m in ["a", "b", "c"] {
        repo.checkpoint(m);
    }
    let run = repo.ward(["undo", "--yes"]).ok();
    let run = run.stdout_has("Nothing can be undone: checkpoint chk-c1-1, which held the files from before the command, no longer exists");
    assert!(
        !run.stdout.contains("already as they were"),
        "{}",
        run.stdout
    );
}

/// The last command is looked for in older files when today's has none.
#[test]
fn undo_finds_the_last_command_in_an_older_days_file() {
    let repo = agent_repo();
    repo.write("a.txt", "dirty\n");
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    let dir = repo.dir.join(".git/ward/audit");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        std::fs::rename(&path, dir.join("audit.2026-01-01.jsonl")).unwrap();
    }
    repo.shim_env(["status", "-s"], C1).ok();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    repo.ward(["undo", "--list"])
        .ok()
        .stdout_has("git reset -q --hard");
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// A command run on another directory as its working tree is undone the
/// same way, and undo and rollback from the repository say how.
#[test]
fn a_command_on_a_borrowed_working_tree_is_undone_the_same_way() {
    let repo = agent_repo();
    let other = crate::common::sibling(&repo, "other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("a.txt"), "precious\n").unwrap();
    let tree = format!("--work-tree={}", other.display());
    repo.shim_env([tree.as_str(), "reset", "-q", "--hard"], C1)
        .ok();
    assert_eq!(
        std::fs::read_to_string(other.join("a.txt")).unwrap(),
        "a2\n"
    );
    let how = format!("`git {tree} ward undo` undoes it");
    repo.ward(["undo", "--dry-run"]).ok().stdout_has(&how);
    repo.ward(["rollback", "chk-c1-1", "--dry-run"])
        .code(2)
        .stderr_has(&format!("`git {tree} ward rollback chk-c1-1`"));
    // What git hands `git --work-tree=<dir> ward undo`.
    let other_dir = other.display().to_string();
    repo.ward_env(["undo", "--yes"], &[("GIT_WORK_TREE", other_dir.as_str())])
        .ok();
    assert_eq!(
        std::fs::read_to_string(other.join("a.txt")).unwrap(),
        "precious\n"
    );
}

/// A writer killed in the middle of its line leaves it partial: the next
/// command's line starts on a line of its own, and undo finds it.
#[test]
fn undo_finds_the_command_after_a_torn_audit_line() {
    let repo = agent_repo();
    repo.shim_env(["status", "-s"], C1).ok();
    let dir = repo.dir.join(".git/ward/audit");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(entry.unwrap().path())
            .unwrap();
        std::io::Write::write_all(&mut file, br#"{"timestamp":"2026"#).unwrap();
    }
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// Files too large for the checkpoint: the one the command deleted is
/// named as lost, never "as before"; the one it left is left as it is.
#[test]
fn a_deleted_file_the_checkpoint_left_out_is_named_as_lost() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let _ = repo.ward(["install"]);
    repo.local_policy("[checkpoint]\nmax_file_size = \"1KiB\"\n");
    repo.write("big.bin", &"x".repeat(2048))
        .write("other.bin", &"y".repeat(2048));
    repo.shim_env(["clean", "-fq", "--", "big.bin"], C1)
        .ok()
        .stderr_has("left out big.bin");
    assert!(repo.read("big.bin").is_none());
    let lost = "big.bin was left out of the checkpoint (larger than checkpoint.max_file_size) and cannot be brought back";
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("LOST      big.bin (2.0 KiB): not in the checkpoint")
        .stdout_has("LEFT OUT  other.bin (2.0 KiB): not in the checkpoint (larger than checkpoint.max_file_size); left as it is");
    let (run, json) = repo.ward_json(["undo", "--yes", "--json"], &[]);
    run.ok();
    assert_eq!(json["plan"]["left_out"][0]["path"], "big.bin");
    assert_eq!(json["plan"]["left_out"][0]["gone"], true);
    assert_eq!(json["plan"]["left_out"][1]["gone"], false);
    let undo = repo.ward(["undo", "--yes"]).ok();
    assert!(!undo.stdout.contains("as they were"), "{}", undo.stdout);
    undo.stdout_has(&format!("Nothing can be undone: {lost}"));
    repo.ward(["rollback", "chk-c1-1", "--yes"])
        .ok()
        .stdout_has(&format!("Nothing to restore: {lost}"));
}

/// Without the hooks there is no ref journal: undo falls back on the refs
/// the checkpoint recorded, checked against their reflogs.
#[test]
fn without_hooks_undo_uses_the_checkpoints_record_of_refs() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "1\n").commit("one");
    repo.write("a.txt", "2\n").commit("two");
    repo.git(["branch", "doomed", "HEAD~1"]).ok();
    repo.write("a.txt", "dirty\n");
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard", "HEAD~2"], C1).ok();
    undo(&repo);
    assert_eq!(repo.state(), before);
    repo.shim_env(["branch", "-q", "-D", "doomed"], C1).ok();
    undo(&repo);
    assert_eq!(repo.state(), before);
    assert!(!repo.dir.join(".git/hooks/reference-transaction").exists());
}

#[test]
fn mv_force_over_a_changed_file_and_an_untracked_one() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("x.txt", "x\n")
        .write("y.txt", "y\n")
        .write("z.txt", "z\n")
        .commit("files");
    let _ = repo.ward(["install"]);
    repo.write("y.txt", "y changed\n")
        .write("u.txt", "untracked\n");
    let before = repo.state();
    repo.shim_env(["mv", "-f", "x.txt", "y.txt"], C1).ok();
    assert_eq!(repo.read("y.txt").as_deref(), Some("x\n"));
    undo(&repo);
    assert_eq!(repo.read("y.txt").as_deref(), Some("y changed\n"));
    assert_eq!(repo.state(), before);
    repo.shim_env(["mv", "-f", "z.txt", "u.txt"], C1).ok();
    assert_eq!(repo.read("u.txt").as_deref(), Some("z\n"));
    undo(&repo);
    assert_eq!(repo.read("u.txt").as_deref(), Some("untracked\n"));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_forced_checkout_of_another_branch_comes_back_to_the_branch() {
    let repo = agent_repo();
    repo.git(["branch", "agent/other", "HEAD~1"]).ok();
    let before = repo.state();
    repo.shim_env(["checkout", "-q", "-f", "agent/other"], C1)
        .ok();
    assert_eq!(repo.branch(), "agent/other");
    let after = repo.state();
    repo.ward(["undo", "--dry-run"])
        .ok()
        .stdout_has("HEAD      back on agent/c1 (the command left it on agent/other)");
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), after, "the second undo redoes");
    // From a detached HEAD (a person left it so), and back.
    undo(&repo);
    repo.git(["checkout", "-q", "--detach"]).ok();
    let detached = repo.state();
    repo.shim_env(["checkout", "-q", "-f", "agent/other"], C1)
        .ok();
    assert_eq!(repo.branch(), "agent/other");
    undo(&repo);
    assert_eq!(repo.branch(), "HEAD");
    assert_eq!(repo.state(), detached);
}

#[test]
fn a_branch_the_command_created_and_left_head_on_is_left_cleanly() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["switch", "-q", "-c", "agent/new"], C1).ok();
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert!(repo.rev("refs/heads/agent/new").is_none());
    assert_eq!(repo.state(), before);
}

#[test]
fn a_branch_checkout_b_resets_comes_back_with_head_and_files() {
    for (cmd, flag) in [("checkout", "-B"), ("switch", "-C")] {
        let repo = agent_repo();
        // A branch with a commit of its own, which the reset leaves on no branch.
        let own = repo
            .git(["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "own"])
            .ok()
            .stdout;
        repo.git(["branch", "agent/other", own.trim()]).ok();
        let before = repo.state();
        repo.shim_env([cmd, "-q", flag, "agent/other"], C1).ok();
        assert_eq!(repo.branch(), "agent/other", "{cmd}");
        assert_ne!(repo.state(), before, "{cmd}");
        undo(&repo);
        assert_eq!(repo.branch(), "agent/c1", "{cmd}");
        assert_eq!(repo.state(), before, "{cmd}");
    }
}

#[test]
fn a_commit_the_shim_moved_off_main_is_undone_back_onto_main() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.write("work.txt", "work\n");
    repo.git(["add", "work.txt"]).ok();
    let before = repo.state();
    repo.shim_env(["commit", "-q", "-m", "agent work"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.branch(), "agent/c1");
    undo(&repo);
    assert_eq!(repo.branch(), "main");
    assert!(repo.rev("refs/heads/agent/c1").is_none());
    assert_eq!(repo.state(), before);
}

#[test]
fn a_commit_the_shim_moved_onto_an_existing_agent_branch_is_undone_back_onto_main() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("agent.txt", "agent\n").commit("agent work");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "edited on main\n")
        .write("untracked.txt", "mine\n");
    let before = repo.state();
    let agent_before = repo.rev("agent/c1");
    repo.shim_env(["commit", "-q", "-a", "-m", "more agent work"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert!(repo.read("agent.txt").is_some());
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("HEAD      back on main (the command left it on agent/c1)");
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("agent/c1"), agent_before);
    assert_eq!(repo.state(), before);
    // And again: redone, onto the agent branch.
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert_ne!(repo.rev("agent/c1"), agent_before);
    assert_eq!(repo.read("README").as_deref(), Some("edited on main\n"));
}

#[test]
fn undo_leaves_files_the_checkpoint_left_out_as_ignored() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write(".gitignore", ".env\nbuild/\n").commit("ignore");
    repo.write(".env", "SECRET=1\n")
        .write("build/out.o", "object\n");
    // Past the commit that ignores them: no longer ignored, untouched.
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("KEEP      .env (ignored where the checkpoint was taken: left alone)")
        .stdout_has("remove 0 files");
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    assert_eq!(repo.read("build/out.o").as_deref(), Some("object\n"));
    assert_eq!(repo.read(".gitignore").as_deref(), Some(".env\nbuild/\n"));
    // A file created since, ignored by neither, still goes.
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    repo.write("created.txt", "new\n");
    undo(&repo);
    assert_eq!(repo.read("created.txt"), None);
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
}

#[test]
fn a_stash_over_a_file_where_a_tracked_directory_was_is_undone() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("d/f", "tracked\n").commit("d");
    // Changes the entry keeps: no checkpoint.
    repo.write("README", "edited\n");
    repo.shim_env(["stash", "-q"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 0);
    repo.git(["stash", "pop", "-q"]).ok();
    // A file where the tracked directory was: the reset deletes it.
    std::fs::remove_dir_all(repo.dir.join("d")).unwrap();
    repo.write("d", "precious work\n");
    let before = repo.state();
    repo.shim_env(["stash", "push", "-q"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    assert_eq!(repo.read("d/f").as_deref(), Some("tracked\n"));
    undo(&repo);
    assert_eq!(repo.read("d").as_deref(), Some("precious work\n"));
    assert_eq!(repo.read("README").as_deref(), Some("edited\n"));
    // The files and index as before; the entry stays in the stash list.
    let without_stash = |state: String| -> Vec<String> {
        state
            .lines()
            .filter(|l| !l.starts_with("refs/stash") && !l.starts_with("stash "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(without_stash(repo.state()), without_stash(before));
}

/// A tracked file marked skip-worktree with a local edit (a config kept
/// out of sight): `git status` never looks at it, paths written from a
/// tree-ish overwrite it. Checkpointed with what is on disk, and undone
/// with its mark.
#[test]
fn a_skip_worktree_file_written_over_is_checkpointed_and_undone_with_its_mark() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("conf", "v1\n").commit("conf");
    repo.git(["branch", "agent/other"]).ok();
    repo.write("conf", "v2\n").commit("conf v2");
    repo.git(["update-index", "--skip-worktree", "conf"]).ok();
    repo.write("conf", "local tweak\n");
    // What leaves it alone takes no checkpoint for it.
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 0);
    let before = repo.state();
    repo.shim_env(["checkout", "agent/other", "--", "."], C1)
        .ok();
    assert_eq!(repo.read("conf").as_deref(), Some("v1\n"));
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(repo.read("conf").as_deref(), Some("local tweak\n"));
    assert_eq!(repo.git(["ls-files", "-t", "conf"]).ok().stdout, "S conf\n");
    assert_eq!(repo.state(), before);
}

/// A staged deletion with an untracked file in its place: `stash` keeps
/// the deletion, then the reset deletes the file; and ignored files where
/// a tracked file was, which nothing holds, refuse the stash.
#[test]
fn a_stash_over_a_staged_deletion_or_ignored_files_loses_nothing() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write(".gitignore", "*.log\n")
        .write("d/f", "tracked\n")
        .write("g", "tracked\n")
        .commit("d and g");
    repo.git(["rm", "-q", "-r", "--cached", "d"]).ok();
    std::fs::remove_dir_all(repo.dir.join("d")).unwrap();
    repo.write("d", "precious\n");
    repo.shim_env(["stash", "-q"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(repo.read("d").as_deref(), Some("precious\n"));
    // Ignored files in a directory where a tracked file was.
    std::fs::remove_file(repo.dir.join("d")).unwrap();
    repo.git(["reset", "-q", "--hard"]).ok();
    std::fs::remove_file(repo.dir.join("g")).unwrap();
    repo.write("g/run.log", "ignored work\n");
    repo.shim_env(["stash", "-q"], C1)
        .code(1)
        .stderr_has("stash would delete ignored files where tracked paths were")
        .stderr_has("g/run.log");
    assert_eq!(repo.read("g/run.log").as_deref(), Some("ignored work\n"));
}

/// A file added with `--intent-to-add` is in no staged tree: the
/// checkpoint names it, and undo adds it so again.
#[test]
fn an_intent_to_add_entry_comes_back_as_one() {
    let repo = agent_repo();
    repo.write("planned.txt", "planned\n");
    repo.git(["add", "-N", "planned.txt"]).ok();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    undo(&repo);
    assert_eq!(
        repo.git(["status", "--porcelain", "planned.txt"])
            .ok()
            .stdout,
        " A planned.txt\n"
    );
    assert_eq!(repo.state(), before);
}

/// Skip-worktree and intent-to-add marks on names with a newline or
/// bytes that are not UTF-8 come back on exactly those entries, and on no
/// other (`a b` is not `a\nb`).
#[test]
fn index_marks_on_odd_names_come_back_on_the_same_entries() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let at = |rel: &[u8]| repo.dir.join(std::ffi::OsStr::from_bytes(rel));
    let name = |rel: &'static [u8]| std::ffi::OsStr::from_bytes(rel);
    for rel in [&b"a\nb"[..], b"a b", b"s\xe9"] {
        std::fs::write(at(rel), "1\n").unwrap();
    }
    repo.write("other", "1\n");
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "base"]).ok();
    for rel in [&b"a\nb"[..], b"s\xe9"] {
        repo.git([
            "update-index".as_ref(),
            "--skip-worktree".as_ref(),
            name(rel),
        ])
        .ok();
        std::fs::write(at(rel), "local only\n").unwrap();
    }
    std::fs::write(at(b"new\xff"), "draft\n").unwrap();
    std::fs::write(at(b"new\nline"), "draft\n").unwrap();
    repo.git([
        "add".as_ref(),
        "-N".as_ref(),
        name(b"new\xff"),
        name(b"new\nline"),
    ])
    .ok();
    repo.write("other", "edit\n");
    let marks = || repo.git(["ls-files", "-v", "-z"]).stdout;
    let before = marks();
    repo.shim_env(["checkout", "HEAD", "--", "other"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(marks(), before);
    assert_eq!(std::fs::read(at(b"a\nb")).unwrap(), b"local only\n");
}

/// A file marked assume-unchanged (a local edit kept out of commits)
/// keeps its mark through a command that rewrites the index and its undo.
#[test]
fn an_assume_unchanged_mark_comes_back_with_the_index() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("config.ini", "db=prod\n")
        .write("a", "a\n")
        .commit("base");
    repo.git(["update-index", "--assume-unchanged", "config.ini"])
        .ok();
    repo.write("config.ini", "db=localhost\n");
    // The staged version is only in the index: the command is checkpointed.
    repo.write("a", "staged\n");
    repo.git(["add", "a"]).ok();
    repo.write("a", "on disk\n");
    let marks = || repo.git(["ls-files", "-v", "config.ini", "a"]).ok().stdout;
    let before = (marks(), repo.state());
    assert_eq!(before.0, "H a\nh config.ini\n");
    repo.shim_env(["read-tree", "HEAD"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!((marks(), repo.state()), before);
    assert_eq!(repo.read("config.ini").as_deref(), Some("db=localhost\n"));
}

/// Files whose absolute path is longer than `PATH_MAX` while their path
/// from the top is not (git works from the top, so they are ordinary files
/// to it) are checkpointed and brought back like any other.
#[test]
fn files_deeper_than_path_max_from_the_root_are_checkpointed_and_undone() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    // Reached from the top only: the test's own file calls would fail too.
    let sh = |script: &str, path: &str| {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", script, "sh", path]).current_dir(&repo.dir);
        crate::common::Run::from(cmd.output().unwrap()).ok().stdout
    };
    let room = 4100 - repo.dir.as_os_str().len();
    let dir = vec!["d".repeat(100); room / 101 - 1].join("/");
    let name = |c: &str| {
        format!(
            "{dir}/{}",
            c.repeat(4100 - repo.dir.as_os_str().len() - dir.len() - 2)
        )
    };
    let (tracked, untracked) = (name("t"), name("u"));
    assert!(tracked.len() < 4096 && repo.dir.join(&tracked).as_os_str().len() > 4096);
    sh("mkdir -p \"$1\"", &dir);
    sh("echo committed > \"$1\"", &tracked);
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "deep"]).ok();
    sh("echo precious edit >> \"$1\"", &tracked);
    sh(
        "echo precious untracked > \"$1\"; chmod 600 \"$1\"",
        &untracked,
    );
    repo.write("a", "x\n");
    repo.shim_env(["checkout", "--", "."], C1).ok();
    assert_eq!(sh("cat \"$1\"", &tracked), "committed\n");
    undo(&repo);
    assert_eq!(sh("cat \"$1\"", &tracked), "committed\nprecious edit\n");
    repo.shim_env(["clean", "-fdq"], C1).ok();
    assert_eq!(sh("ls \"$1\" 2>/dev/null || true", &untracked), "");
    undo(&repo);
    assert_eq!(sh("cat \"$1\"", &untracked), "precious untracked\n");
    assert_eq!(sh("stat -c %a \"$1\"", &untracked), "600\n");
}

#[test]
fn head_moved_since_is_named_and_left_alone() {
    let repo = agent_repo();
    repo.git(["branch", "agent/other", "HEAD~1"]).ok();
    repo.git(["branch", "agent/third"]).ok();
    repo.shim_env(["checkout", "-q", "-f", "agent/other"], C1)
        .ok();
    repo.git(["switch", "-q", "agent/third"]).ok();
    repo.ward(["undo", "--yes"]).ok().stdout_has(
        "HEAD      on agent/third since (the command left it on agent/other): left alone",
    );
    assert_eq!(repo.branch(), "agent/third");
}

/// On a clean `agent/c1` that ignores `.env`, with an `.env` the policy
/// keeps; `agent/other` tracks a `.env` of its own, `agent/plain` none.
fn kept_env_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/other"]).ok();
    repo.write(".env", "tracked\n").commit("env tracked here");
    repo.git(["switch", "-q", "-c", "agent/plain", "main"]).ok();
    repo.git(["switch", "-q", "-c", "agent/c1", "main"]).ok();
    repo.write(".gitignore", ".env\n").commit("ignore");
    let _ = repo.ward(["install"]);
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write(".env", "SECRET=1\n");
    repo
}

#[test]
fn an_ignored_file_the_policy_keeps_is_saved_before_a_switch_overwrites_it() {
    let repo = kept_env_repo();
    // Nothing in the way on a branch without the file: no checkpoint.
    repo.shim_env(["switch", "-q", "agent/plain"], C1).ok();
    repo.shim_env(["switch", "-q", "agent/c1"], C1).ok();
    assert_eq!(repo.checkpoint_count(), 0);
    // git replaces the ignored file with the branch's own, silently.
    let before = repo.state();
    repo.shim_env(["switch", "-q", "agent/other"], C1).ok();
    assert_eq!(repo.read(".env").as_deref(), Some("tracked\n"));
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    assert_eq!(repo.state(), before);
    // A merge may bring it in too: checkpointed whenever one is there.
    repo.shim_env(["merge", "-q", "--no-edit", "agent/other"], C1)
        .ok();
    assert_eq!(repo.read(".env").as_deref(), Some("tracked\n"));
    assert_eq!(
        repo.checkpoint_count(),
        3,
        "the undo's safety checkpoint, then the merge's"
    );
}

#[test]
fn sparse_checkout_saves_the_ignored_files_the_policy_keeps() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write(".gitignore", "*.env\n")
        .write("a/code.txt", "a\n")
        .write("b/code.txt", "b\n")
        .commit("two directories");
    repo.local_policy("[checkpoint]\ninclude_ignored = [\"*.env\"]\n");
    repo.write("b/local.env", "SECRET=1\n");
    repo.shim_env(["sparse-checkout", "set", "a"], C1).ok();
    assert_eq!(repo.read("b/local.env"), None, "git deletes the directory");
    assert_eq!(repo.checkpoint_count(), 1);
    repo.git(["sparse-checkout", "disable"]).ok();
    undo(&repo);
    assert_eq!(repo.read("b/local.env").as_deref(), Some("SECRET=1\n"));
}

#[test]
fn a_forced_switch_on_a_clean_tree_saves_a_kept_ignored_file_in_its_way() {
    let repo = kept_env_repo();
    let before = repo.state();
    // Nothing tracked is changed, nothing untracked but the ignored file.
    repo.shim_env(["switch", "-q", "-f", "agent/other"], C1)
        .ok();
    assert_eq!(repo.read(".env").as_deref(), Some("tracked\n"));
    assert_eq!(repo.checkpoint_count(), 1);
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    assert_eq!(repo.state(), before);
}

#[test]
fn a_checkout_that_merges_local_changes_comes_back() {
    let repo = agent_repo();
    repo.git(["branch", "agent/other", "HEAD~1"]).ok();
    // git refuses `checkout -m` over staged changes.
    repo.git(["reset", "-q", "--", "staged.txt"]).ok();
    let before = repo.state();
    // a.txt differs between the branches and locally: a conflict, and
    // git keeps no other copy of the local change.
    repo.shim_env(["checkout", "-q", "-m", "agent/other"], C1)
        .ok();
    assert_eq!(repo.branch(), "agent/other");
    assert!(repo.read("a.txt").unwrap().contains("<<<<<<<"));
    undo(&repo);
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.read("a.txt").as_deref(), Some("dirty\n"));
    assert_eq!(repo.state(), before);
}

#[test]
fn head_does_not_go_back_to_a_branch_deleted_since() {
    let repo = agent_repo();
    repo.git(["branch", "agent/other", "HEAD~1"]).ok();
    repo.shim_env(["checkout", "-q", "-f", "agent/other"], C1)
        .ok();
    repo.git(["branch", "-q", "-D", "agent/c1"]).ok();
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("HEAD      stays on agent/other: agent/c1 no longer exists");
    assert_eq!(repo.branch(), "agent/other");
}

#[test]
fn skipping_a_picked_commit_keeps_the_resolution_under_way() {
    let repo = agent_repo();
    repo.git(["stash", "-q", "-u"]).ok();
    // No kept ignored file, which a pick could overwrite: nothing else
    // calls for a checkpoint.
    std::fs::remove_file(repo.dir.join(".env")).unwrap();
    repo.git(["switch", "-q", "-c", "agent/other", "HEAD~1"])
        .ok();
    repo.write("a.txt", "other\n").commit("other");
    let pick = repo.rev("HEAD").unwrap();
    repo.git(["switch", "-q", "agent/c1"]).ok();
    for (cmd, start) in [
        ("cherry-pick", vec!["cherry-pick", pick.as_str()]),
        ("revert", vec!["revert", "--no-edit", "HEAD~1"]),
    ] {
        repo.git(start).code(1);
        // A resolution under way, which --skip would throw away.
        repo.write("a.txt", "careful resolution\n");
        repo.shim_env([cmd, "--skip"], C1).ok();
        assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"), "{cmd}");
        undo(&repo);
        assert_eq!(
            repo.read("a.txt").as_deref(),
            Some("careful resolution\n"),
            "{cmd}"
        );
        repo.git(["reset", "-q", "--hard"]).ok();
    }
}

#[test]
fn a_shell_alias_is_checkpointed_first() {
    let repo = agent_repo();
    let before = repo.state();
    // The alias's git is a child of git, which the shim does not see.
    repo.shim_env(
        [
            "-c",
            "alias.wipe=!git reset -q --hard && git clean -fdq",
            "wipe",
        ],
        C1,
    )
    .ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"));
    assert!(repo.read("new/untracked.txt").is_none());
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// A nested repository where another commit tracks files: git would
/// write them over the nested repository's, so a checkout or reset there is
/// refused; a restore leaves the files inside one (which the superproject
/// sees as its own untracked ones where it tracks paths in it).
#[test]
fn files_inside_a_nested_repository_are_never_overwritten_or_removed() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/other"]).ok();
    repo.write("nested/file.txt", "tracked on other\n")
        .commit("other");
    repo.git(["switch", "-q", "-c", "agent/c1", "main"]).ok();
    let nested = repo.dir.join("nested");
    repo.git(["init", "-q", nested.to_str().unwrap()]).ok();
    repo.write("nested/file.txt", "the nested repository's work\n");
    for args in [
        &["checkout", "-q", "-f", "agent/other"][..],
        &["reset", "-q", "--hard", "agent/other"],
    ] {
        repo.shim_env(args, C1)
            .code(1)
            .stderr_has("nested/, a nested repository")
            .stderr_has("hint: nothing was run;");
        assert_eq!(
            repo.read("nested/file.txt").as_deref(),
            Some("the nested repository's work\n"),
            "{args:?}"
        );
    }
    // A checkpoint from before the nested repository: its files stay.
    std::fs::remove_dir_all(&nested).unwrap();
    repo.git(["switch", "-q", "agent/other"]).ok();
    let id = repo.checkpoint("before");
    repo.git(["init", "-q", nested.to_str().unwrap()]).ok();
    repo.write("nested/code.c", "uncommitted hours\n");
    repo.ward(["rollback", &id, "--yes"])
        .ok()
        .stdout_has("KEEP      nested/code.c (inside a nested repository: left alone)");
    assert_eq!(
        repo.read("nested/code.c").as_deref(),
        Some("uncommitted hours\n")
    );
}

#[test]
fn a_nested_repository_is_never_cleaned_away() {
    let repo = agent_repo();
    let nested = repo.dir.join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    let git = |args: &[&str]| {
        let status = std::process::Command::new(crate::common::real_git())
            .current_dir(&nested)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", &repo.home)
            .status()
            .unwrap();
        assert!(status.success(), "{args:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(nested.join("lib.txt"), "its own history\n").unwrap();
    git(&["add", "lib.txt"]);
    git(&[
        "-c",
        "user.name=a",
        "-c",
        "user.email=a@x",
        "commit",
        "-qm",
        "lib",
    ]);
    let before = repo.state();
    for args in [&["clean", "-ffdx"][..], &["clean", "-f", "-f", "-d"]] {
        repo.shim_env(args, C1)
            .code(1)
            .stderr_has("nested repositor")
            .stderr_has("vendor/lib/")
            .stderr_has("hint:");
        assert_eq!(repo.state(), before, "{args:?}");
    }
    // One -f leaves nested repositories alone: allowed, undoable.
    repo.shim_env(["clean", "-fdx"], C1).ok();
    assert!(nested.join(".git").exists());
    assert!(nested.join("lib.txt").exists());
}

#[test]
fn work_inside_a_submodule_is_refused_not_lost() {
    let src = TestRepo::new();
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let url = src.dir.to_str().unwrap();
    repo.git([
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        url,
        "sub",
    ])
    .ok();
    repo.git(["commit", "-qm", "sub"]).ok();
    repo.write("sub/README", "uncommitted in the submodule\n");
    for args in [
        &["submodule", "deinit", "-f", "sub"][..],
        &["submodule", "deinit", "--force", "--all"],
        &["reset", "-q", "--hard", "--recurse-submodules"],
        &["-c", "submodule.recurse=true", "checkout", "-f", "."],
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "update",
            "--force",
        ],
        &["rm", "-q", "-r", "-f", "sub"],
    ] {
        repo.shim_env(args, C1)
            .code(1)
            .stderr_has("uncommitted work in submodule sub,")
            .stderr_has("hint: nothing was run; commit or stash it inside the submodule first");
        assert_eq!(
            repo.read("sub/README").as_deref(),
            Some("uncommitted in the submodule\n"),
            "{args:?}"
        );
    }
    // A path elsewhere is not the submodule's.
    repo.write("other.txt", "other\n").commit("other");
    repo.shim_env(["rm", "-q", "-f", "other.txt"], C1).ok();
    // Without --recurse-submodules, git leaves the submodule's files alone.
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    assert!(repo.read("sub/README").unwrap().starts_with("uncommitted"));
    // Untracked files: only a deinit takes them.
    repo.git(["-C", "sub", "checkout", "--", "README"]).ok();
    repo.write("sub/notes.txt", "untracked in the submodule\n");
    repo.shim_env(["reset", "-q", "--hard", "--recurse-submodules"], C1)
        .ok();
    for args in [
        &["submodule", "deinit", "-f", "sub"][..],
        &["rm", "-rf", "sub"],
    ] {
        repo.shim_env(args, C1).code(1).stderr_has("submodule sub,");
        assert!(repo.read("sub/notes.txt").is_some(), "{args:?}");
    }
    std::fs::remove_file(repo.dir.join("sub/notes.txt")).unwrap();
    // An ignored file the policy keeps, which no checkpoint can hold there.
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write(".git/modules/sub/info/exclude", ".env\n");
    repo.write("sub/.env", "SECRET=1\n");
    repo.shim_env(["rm", "-q", "-rf", "sub"], C1)
        .code(1)
        .stderr_has("sub/.env");
    assert_eq!(repo.read("sub/.env").as_deref(), Some("SECRET=1\n"));
    std::fs::remove_file(repo.dir.join("sub/.env")).unwrap();
    repo.shim_env(["submodule", "deinit", "-q", "-f", "sub"], C1)
        .ok();
    assert_eq!(repo.read("sub/README"), None);
}

/// `agent_repo` with no ignored file kept (whose checkpoint would be
/// taken anyway).
fn unkept_repo() -> TestRepo {
    let repo = agent_repo();
    repo.local_policy("");
    repo
}

/// `unkept_repo` with `staged.txt` staged as `staged` and changed since on
/// disk: the staged version is only in the index.
fn staged_only_repo() -> TestRepo {
    let repo = unkept_repo();
    repo.write("staged.txt", "changed since\n");
    repo
}

/// The staged version of `path`.
fn staged(repo: &TestRepo, path: &str) -> String {
    repo.git(["show", &format!(":{path}")]).ok().stdout
}

#[test]
fn unstaging_a_version_only_the_index_holds_comes_back() {
    for args in [
        &["reset", "-q"][..],
        &["reset", "-q", "--", "staged.txt"],
        &["reset", "-q", "staged.txt"],
        &["restore", "--staged", "staged.txt"],
        &["restore", "--staged", "."],
        &["read-tree", "HEAD"],
        &["rm", "-q", "--cached", "-f", "staged.txt"],
        &["update-index", "--force-remove", "staged.txt"],
    ] {
        let repo = staged_only_repo();
        let before = repo.state();
        let count = repo.checkpoint_count();
        repo.shim_env(args, C1).ok();
        assert_eq!(repo.checkpoint_count(), count + 1, "{args:?}");
        assert!(
            repo.git(["show", ":staged.txt"]).code != Some(0),
            "{args:?} unstaged nothing"
        );
        undo(&repo);
        assert_eq!(staged(&repo, "staged.txt"), "staged\n", "{args:?}");
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

#[test]
fn replacing_a_version_only_the_index_holds_comes_back() {
    let repo = staged_only_repo();
    let blob = repo.rev("HEAD:a.txt").unwrap();
    let before = repo.state();
    let count = repo.checkpoint_count();
    let entry = format!("100644,{blob},staged.txt");
    repo.shim_env(["update-index", "--cacheinfo", &entry], C1)
        .ok();
    assert_eq!(repo.checkpoint_count(), count + 1);
    assert_ne!(staged(&repo, "staged.txt"), "staged\n");
    undo(&repo);
    assert_eq!(staged(&repo, "staged.txt"), "staged\n");
    assert_eq!(repo.state(), before);
}

#[test]
fn unstaging_what_the_working_tree_still_holds_takes_no_checkpoint() {
    let repo = unkept_repo();
    let count = repo.checkpoint_count();
    // staged.txt is staged as it is on disk; a.txt is changed but not staged.
    repo.shim_env(["reset", "-q"], C1).ok();
    repo.shim_env(["restore", "--staged", "."], C1).ok();
    // A path other than the staged-only one.
    let repo2 = staged_only_repo();
    repo2.shim_env(["restore", "--staged", "a.txt"], C1).ok();
    assert_eq!(repo.checkpoint_count(), count);
    assert_eq!(repo2.checkpoint_count(), count);
    assert_eq!(staged(&repo2, "staged.txt"), "staged\n");
}

#[test]
fn a_mixed_reset_to_an_older_commit_comes_back_with_its_index() {
    let repo = unkept_repo();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "HEAD~1"], C1).ok();
    assert_ne!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn a_destructive_command_the_shim_moved_off_main_is_checkpointed_first() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.write("a.txt", "committed\n").commit("a");
    repo.write("b.txt", "stashed\n");
    repo.git(["add", "b.txt"]).ok();
    repo.git(["stash", "-q"]).ok();
    repo.write("a.txt", "an hour of work\n");
    let count = repo.checkpoint_count();
    let before = repo.state();
    repo.shim_env(["rm", "-q", "-f", "a.txt"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.read("a.txt"), None);
    assert_eq!(repo.checkpoint_count(), count + 1);
    undo(&repo);
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.state(), before);

    // `stash pop` drops the entry it applies.
    repo.git(["checkout", "-q", "--", "a.txt"]).ok();
    let before = repo.state();
    repo.shim_env(["stash", "pop", "-q"], C1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.git(["stash", "list"]).ok().stdout, "");
    undo(&repo);
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.state(), before);
}

#[test]
fn read_tree_merging_into_the_working_tree_comes_back() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["read-tree", "-m", "-u", "HEAD"], C1).ok();
    assert_ne!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// Another tree read into the working tree writes its files over untracked
/// ones in their way, on a tree whose tracked files are clean.
#[test]
fn read_tree_of_another_tree_over_untracked_files_comes_back() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "other"]).ok();
    repo.write("notes.txt", "theirs\n").commit("notes");
    repo.git(["switch", "-q", "-c", "agent/c1", "main"]).ok();
    repo.write("notes.txt", "my precious notes\n");
    let before = repo.state();
    repo.shim_env(["read-tree", "--reset", "-u", "other"], C1)
        .ok();
    assert_eq!(repo.read("notes.txt").as_deref(), Some("theirs\n"));
    undo(&repo);
    assert_eq!(
        repo.read("notes.txt").as_deref(),
        Some("my precious notes\n")
    );
    assert_eq!(repo.state(), before);
}

/// A path named in bytes that are not UTF-8 is what git reads: the
/// command is checkpointed as for the whole tree, and undone.
#[test]
fn a_path_that_is_not_utf8_is_checkpointed_and_comes_back() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let name = std::ffi::OsStr::from_bytes(b"r\xe9sum\xe9.txt");
    let untracked = std::ffi::OsStr::from_bytes(b"u\xe9");
    std::fs::write(repo.dir.join(name), "v1\n").unwrap();
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "base"]).ok();
    std::fs::write(repo.dir.join(name), "v2 precious\n").unwrap();
    let before = repo.state();
    repo.shim_env([std::ffi::OsStr::new("checkout"), "--".as_ref(), name], C1)
        .ok();
    assert_eq!(std::fs::read(repo.dir.join(name)).unwrap(), b"v1\n");
    undo(&repo);
    assert_eq!(
        std::fs::read(repo.dir.join(name)).unwrap(),
        b"v2 precious\n"
    );
    assert_eq!(repo.state(), before);
    std::fs::write(repo.dir.join(untracked), "untracked precious\n").unwrap();
    repo.shim_env(
        [
            std::ffi::OsStr::new("clean"),
            "-f".as_ref(),
            "--".as_ref(),
            untracked,
        ],
        C1,
    )
    .ok();
    assert!(!repo.dir.join(untracked).exists());
    undo(&repo);
    assert_eq!(
        std::fs::read(repo.dir.join(untracked)).unwrap(),
        b"untracked precious\n"
    );
}

#[test]
fn an_allow_listed_ignored_file_a_stash_writes_over_comes_back() {
    let repo = TestRepo::new();
    repo.write(".gitignore", ".env\n").commit("ignore");
    let _ = repo.ward(["install"]);
    repo.local_policy("[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.write(".env", "from the stash\n");
    repo.git(["add", "-f", ".env"]).ok();
    repo.git(["stash", "push", "-q"]).ok();
    repo.write(".env", "SECRET=1\n");
    for args in [&["stash", "apply", "-q"][..], &["stash", "branch", "nb"]] {
        repo.git(["switch", "-q", "main"]).ok();
        let before = repo.state();
        repo.shim_env(args, C1).ok();
        assert_eq!(
            repo.read(".env").as_deref(),
            Some("from the stash\n"),
            "{args:?}"
        );
        undo(&repo);
        assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"), "{args:?}");
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

#[test]
fn a_command_difftool_runs_is_checkpointed_first() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(
        [
            "difftool",
            "-y",
            "-x",
            "sh -c 'git checkout -- . && git clean -fdq' sh",
            "HEAD",
        ],
        C1,
    )
    .ok();
    assert_ne!(repo.state(), before, "the command ran");
    undo(&repo);
    assert_eq!(repo.state(), before);
}

#[test]
fn gc_told_to_expire_early_keeps_the_commits_only_reflogs_reach() {
    for (config_file, args) in [
        (
            false,
            &[
                "-c",
                "gc.reflogExpireUnreachable=now",
                "-c",
                "gc.pruneExpire=now",
                "gc",
                "-q",
            ][..],
        ),
        (true, &["gc", "-q"]),
        (true, &["maintenance", "run", "--task=gc"]),
    ] {
        let repo = agent_repo();
        let lost = repo.rev("HEAD").unwrap();
        repo.git(["reset", "-q", "--soft", "HEAD~1"]).ok();
        if config_file {
            repo.git(["config", "gc.reflogExpireUnreachable", "now"])
                .ok();
            repo.git(["config", "gc.pruneExpire", "now"]).ok();
        }
        repo.shim_env(args, C1).ok();
        // Kept past git's own expiry too (refs/ward/kept/<id>/lost).
        prune_everything(&repo);
        let kept = repo.git(["cat-file", "-e", &format!("{lost}^{{commit}}")]);
        assert_eq!(kept.code, Some(0), "{args:?}: {}", kept.stderr);
    }
}

#[test]
fn files_others_could_not_read_come_back_so() {
    use std::os::unix::fs::PermissionsExt;
    let repo = agent_repo();
    let mode = |rel: &str| {
        std::fs::metadata(repo.dir.join(rel))
            .map(|m| m.permissions().mode() & 0o777)
            .ok()
    };
    let set = |rel: &str, bits: u32| {
        std::fs::set_permissions(repo.dir.join(rel), std::fs::Permissions::from_mode(bits)).unwrap()
    };
    repo.write("secrets/key.pem", "-----BEGIN KEY-----\n");
    set(".env", 0o600);
    set("secrets/key.pem", 0o640);
    set("secrets", 0o700);
    repo.shim_env(["clean", "-fdxq"], C1).ok();
    assert_eq!(mode(".env"), None);
    undo(&repo);
    assert_eq!(repo.read(".env").as_deref(), Some("SECRET=1\n"));
    assert_eq!(
        repo.read("secrets/key.pem").as_deref(),
        Some("-----BEGIN KEY-----\n")
    );
    assert_eq!(mode(".env"), Some(0o600));
    assert_eq!(mode("secrets/key.pem"), Some(0o640));
    assert_eq!(mode("secrets"), Some(0o700));
    // Files anyone could read come back as a checkout makes them.
    assert_eq!(mode("new/untracked.txt").map(|m| m & 0o044), Some(0o044));
}

/// Private files and directories whose names hold a newline or bytes
/// that are not UTF-8, and a private directory of files anyone could read
/// in it: each comes back with its own bits, never readable by others.
#[test]
fn private_files_and_directories_with_odd_names_come_back_private() {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    let repo = agent_repo();
    let at = |rel: &[u8]| repo.dir.join(std::ffi::OsStr::from_bytes(rel));
    let mode = |rel: &[u8]| {
        std::fs::metadata(at(rel))
            .map(|m| m.permissions().mode() & 0o777)
            .ok()
    };
    let make = |rel: &[u8], bits: u32| {
        std::fs::write(at(rel), "TOKEN=1\n").unwrap();
        std::fs::set_permissions(at(rel), std::fs::Permissions::from_mode(bits)).unwrap();
    };
    let private_dir = |rel: &[u8]| {
        std::fs::create_dir(at(rel)).unwrap();
        make(&[rel, b"/k"].concat(), 0o644);
        std::fs::set_permissions(at(rel), std::fs::Permissions::from_mode(0o700)).unwrap();
    };
    make(b"secret\nkey", 0o600);
    make(b"t\xe9l\xe9.env", 0o600);
    private_dir(b"keys\xfe");
    private_dir(b"dir\nname");
    private_dir(b"keys");
    repo.shim_env(["clean", "-fdq"], C1).ok();
    assert_eq!(mode(b"secret\nkey"), None);
    undo(&repo);
    for (rel, bits) in [
        (&b"secret\nkey"[..], 0o600),
        (b"t\xe9l\xe9.env", 0o600),
        (b"keys\xfe", 0o700),
        (b"dir\nname", 0o700),
        (b"keys", 0o700),
        (b"keys/k", 0o644),
    ] {
        assert_eq!(mode(rel), Some(bits), "{}", String::from_utf8_lossy(rel));
    }
    assert_eq!(std::fs::read(at(b"keys\xfe/k")).unwrap(), b"TOKEN=1\n");
}

#[test]
fn the_working_tree_a_command_is_told_of_is_the_one_checkpointed() {
    for env_var in [false, true] {
        let repo = agent_repo();
        let before = repo.state();
        // A directory whose `.git` file names the repository's git dir.
        let elsewhere = repo.tmp.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(
            elsewhere.join(".git"),
            format!("gitdir: {}\n", repo.dir.join(".git").display()),
        )
        .unwrap();
        let tree = repo.dir.to_str().unwrap();
        let flag = format!("--work-tree={tree}");
        let (args, env): (Vec<&str>, Vec<(&str, &str)>) = if env_var {
            (
                vec!["reset", "-q", "--hard"],
                vec![("WARD_CONTRACT", "c1"), ("GIT_WORK_TREE", tree)],
            )
        } else {
            (
                vec![&flag, "reset", "-q", "--hard"],
                vec![("WARD_CONTRACT", "c1")],
            )
        };
        repo.shim_in(&elsewhere, &args, &env).ok();
        assert_eq!(repo.read("a.txt").as_deref(), Some("a2\n"), "{args:?}");
        undo(&repo);
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

#[test]
fn a_stash_pop_that_conflicts_over_a_staged_edit_comes_back_unconflicted() {
    let repo = agent_repo();
    // A stash that changes a.txt, then a staged edit of a.txt it conflicts with.
    repo.write("a.txt", "stashed\n");
    repo.git(["stash", "push", "-q", "--", "a.txt"]).ok();
    repo.write("a.txt", "staged work\n");
    repo.git(["add", "a.txt"]).ok();
    let before = repo.state();
    let pop = repo.shim_env(["stash", "pop", "-q"], C1);
    assert_ne!(pop.code, Some(0), "the pop conflicts");
    assert_ne!(repo.git(["ls-files", "-u"]).ok().stdout, "", "in conflict");
    undo(&repo);
    let unmerged = repo.git(["ls-files", "-u"]).ok().stdout;
    assert_eq!(unmerged, "", "still unmerged");
    assert_eq!(repo.state(), before);
}

#[test]
fn a_checkpoint_of_the_longest_contract_id_is_undone_and_rolled_back_to() {
    let repo = TestRepo::new();
    let contract = "c".repeat(100);
    let env = [("WARD_CONTRACT", contract.as_str())];
    repo.write("README", "precious\n");
    repo.shim_env(["checkout", "--", "README"], &env).ok();
    let id = format!("chk-{contract}-1");
    repo.ward(["checkpoint", "show", &id]).ok().stdout_has(&id);
    repo.ward_env(["undo", "--yes"], &env).ok();
    assert_eq!(repo.read("README").as_deref(), Some("precious\n"));
    repo.write("README", "later\n");
    repo.ward(["rollback", &id, "--yes"]).ok();
    assert_eq!(repo.read("README").as_deref(), Some("precious\n"));
}

/// An undo that could not move a ref (a lock a killed git left) says so
/// and that the same command can run again; run again once the lock is
/// gone, it finishes the job rather than redo the half it did.
#[test]
fn an_undo_that_did_not_finish_is_finished_by_the_next() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("f1", "one\n").commit("one");
    repo.write("f2", "two\n").commit("two");
    let two = repo.rev("agent/c1");
    repo.write("f1", "uncommitted work\n");
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard", "HEAD~1"], C1).ok();
    let lock = repo.dir.join(".git/refs/heads/agent/c1.lock");
    std::fs::write(&lock, "").unwrap();
    // A git at work in the repository: its lock is live, and undo leaves it.
    let mut running = repo.live_git();
    repo.ward(["undo", "--yes"])
        .code(3)
        .stderr_has("the same command can run again");
    drop(running.stdin.take());
    running.wait().unwrap();
    assert_eq!(repo.read("f1").as_deref(), Some("uncommitted work\n"));
    std::fs::remove_file(&lock).unwrap();
    undo(&repo);
    assert_eq!(repo.rev("agent/c1"), two);
    assert_eq!(repo.state(), before);
}

/// One undo or rollback at a time per working tree: a second one started
/// while the first runs says so and changes nothing; a lock whose process
/// is gone is taken over.
#[test]
fn a_second_undo_while_one_runs_says_so_and_changes_nothing() {
    let repo = agent_repo();
    let before = repo.state();
    repo.shim_env(["reset", "-q", "--hard"], C1).ok();
    let after = repo.state();
    let lock = repo.dir.join(".git/ward/restore.lock");
    std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    let held = std::fs::File::open(&lock).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    let locked = unsafe {
        libc::flock(
            std::os::fd::AsRawFd::as_raw_fd(&held),
            libc::LOCK_EX | libc::LOCK_NB,
        )
    };
    assert_eq!(locked, 0);
    for args in [&["undo", "--yes"][..], &["rollback", "chk-c1-1", "--yes"]] {
        repo.ward_env(args, C1)
            .code(3)
            .stderr_has("is changing this working tree")
            .stderr_has("hint: wait for it to finish");
        assert_eq!(repo.state(), after);
    }
    // Looking changes nothing and needs no lock.
    repo.ward(["undo", "--dry-run"]).ok();
    // The kernel lets it go with its holder, whatever the file says.
    drop(held);
    let gone = crate::common::gone_pid();
    std::fs::write(&lock, format!("{gone}\n")).unwrap();
    undo(&repo);
    assert_eq!(repo.state(), before);
}

/// Twenty pairs of undos started together, the second a little later
/// each round (0 to 95 ms, across the first one's run): each pair undoes
/// the last command at most once (the second waits for no half: it says
/// another is running, or, started after the first finished, redoes).
/// A lock taken after reading what to undo, or let go before the undo is
/// recorded, lets a second one undo the same command again.
#[test]
fn two_undos_started_together_never_undo_the_same_command_twice() {
    let repo = agent_repo();
    repo.write("a.txt", "a\n");
    repo.git(["add", "a.txt"]).ok();
    repo.git(["commit", "-qm", "a"]).ok();
    for round in 0..20 {
        repo.write("a.txt", &format!("round {round}\n"));
        repo.shim_env(["checkout", "--", "a.txt"], C1).ok();
        let start = || {
            let mut cmd = repo.ward_command(["undo", "--yes", "--json"]);
            cmd.stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        };
        let a = start();
        std::thread::sleep(std::time::Duration::from_millis(5 * round));
        let b = start();
        let undid: Vec<String> = [a, b]
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .filter(|o| o.status.success())
            .map(|o| {
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                v["undo"]["trace_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        assert!(!undid.is_empty(), "round {round}: neither undo ran");
        if let [first, second] = undid.as_slice() {
            assert_ne!(
                first, second,
                "round {round}: the same command undone twice"
            );
        }
    }
}

/// A plain checkout of a branch takes no checkpoint (git loses nothing in
/// it): undo switches back as git switched, carrying uncommitted changes;
/// undo again goes forward.
#[test]
fn a_plain_checkout_is_undone_by_switching_back() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.write("f.txt", "f\n").commit("f");
    repo.git(["switch", "-q", "-c", "agent/c1", "main"]).ok();
    repo.write("README", "my edit\n");
    repo.shim_env(["checkout", "-q", "feat"], C1).ok();
    assert_eq!(repo.branch(), "feat");
    repo.ward(["undo", "--yes"])
        .ok()
        .stdout_has("HEAD is back on agent/c1");
    assert_eq!(repo.branch(), "agent/c1");
    assert!(repo.read("f.txt").is_none());
    assert_eq!(repo.read("README").as_deref(), Some("my edit\n"));
    undo(&repo);
    assert_eq!(repo.branch(), "feat");
    assert_eq!(repo.read("f.txt").as_deref(), Some("f\n"));
    assert_eq!(repo.read("README").as_deref(), Some("my edit\n"));
}

/// `commands.read` may name an alias, as the config files define it: one
/// redefined for the command alone (`-c alias.lg='reset --hard' lg`) is
/// judged by what it runs, checkpointed, and undone.
#[test]
fn a_read_only_alias_redefined_on_the_command_line_is_judged_by_what_it_runs() {
    let repo = agent_repo();
    repo.local_policy("[commands]\nread = [\"lg\"]\n[checkpoint]\ninclude_ignored = [\".env\"]\n");
    repo.git(["config", "alias.lg", "log --oneline"]).ok();
    repo.shim_env(["lg", "-1"], C1).ok();
    let before = repo.state();
    repo.shim_env(["-c", "alias.lg=reset -q --hard", "lg"], C1)
        .ok();
    assert_ne!(repo.state(), before);
    undo(&repo);
    assert_eq!(repo.state(), before);
}
