//! Checkpoints git-ward did not make: a checkpoint ref rewritten to a
//! commit whose tree holds `..` and `.git` entries and whose trailers name
//! a directory above the repository and protected refs. A restore writes
//! nothing outside the working tree or into the git directory, and undo
//! moves no protected ref on a checkpoint's word.

use std::os::unix::fs::PermissionsExt;

pub use crate::ward_refs::AGENT;

use crate::common::{sibling, TestRepo};
use crate::mcp::Raw;
use serde_json::json;

/// Writes `text` as a blob; its id.
fn blob(repo: &TestRepo, text: &str) -> String {
    let r = repo.git_stdin(["hash-object", "-w", "--stdin"], text).ok();
    r.stdout.trim().to_string()
}

/// `git mktree` of `entries` (`<mode> <type> <id>\t<name>` lines); its id.
fn tree(repo: &TestRepo, entries: &[String]) -> String {
    let input: String = entries.iter().map(|e| format!("{e}\n")).collect();
    repo.git_stdin(["mktree"], &input)
        .ok()
        .stdout
        .trim()
        .to_string()
}

/// Rewrites checkpoint `id` as an attacker would: its own tree plus
/// `../escaped.txt`, `.git/hooks/post-commit`, `.git/ward/policy.toml`
/// and `.GIT/config`, its message plus `extra` trailer lines.
pub fn forge(repo: &TestRepo, id: &str, extra: &str) {
    let name = format!("refs/ward/checkpoints/{id}");
    let evil = blob(repo, "escaped\n");
    let hook = blob(repo, "#!/bin/sh\ntouch \"$HOME/pwned\"\n");
    let policy = blob(repo, "[branches]\nprotected = []\n");
    let up = tree(repo, &[format!("100644 blob {evil}\tescaped.txt")]);
    let hooks = tree(repo, &[format!("100755 blob {hook}\tpost-commit")]);
    let ward = tree(repo, &[format!("100644 blob {policy}\tpolicy.toml")]);
    let dot_git = tree(
        repo,
        &[
            format!("040000 tree {hooks}\thooks"),
            format!("040000 tree {ward}\tward"),
        ],
    );
    let upper = tree(repo, &[format!("100644 blob {evil}\tconfig")]);
    let own = repo
        .git(["ls-tree", &format!("{name}^{{tree}}")])
        .ok()
        .stdout;
    let mut entries: Vec<String> = own.lines().map(str::to_string).collect();
    entries.push(format!("040000 tree {up}\t.."));
    entries.push(format!("040000 tree {dot_git}\t.git"));
    entries.push(format!("040000 tree {upper}\t.GIT"));
    let forged_tree = tree(repo, &entries);
    let raw = repo.git(["cat-file", "commit", &name]).ok().stdout;
    let message = raw.split_once("\n\n").unwrap().1;
    let message = format!("{message}{extra}");
    let mut args = vec!["commit-tree".to_string(), forged_tree];
    for p in repo
        .git(["rev-parse", &format!("{name}^@")])
        .ok()
        .stdout
        .lines()
    {
        args.extend(["-p".to_string(), p.to_string()]);
    }
    let commit = repo.git_stdin(&args, &message).ok().stdout;
    repo.git(["update-ref", &name, commit.trim()]).ok();
}

fn mode_of(path: &std::path::Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// Nothing the forged tree holds landed outside the working tree or in
/// the git directory, and the directory above kept its bits.
#[track_caller]
fn nothing_escaped(repo: &TestRepo, above_mode: u32) {
    assert!(
        !sibling(repo, "escaped.txt").exists(),
        "written beside the repository"
    );
    assert!(
        !repo.dir.join(".git/hooks/post-commit").exists(),
        "a hook was installed"
    );
    assert!(
        !repo.dir.join(".git/ward/policy.toml").exists(),
        "a policy was written"
    );
    assert!(!repo.dir.join(".GIT").exists(), ".GIT was written");
    assert_eq!(
        mode_of(repo.tmp.path()),
        above_mode,
        "the directory above changed"
    );
}

/// A repository with `a.txt` committed, a checkpoint of it, `a.txt`
/// changed since; the checkpoint's id.
fn checkpointed() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write("a.txt", "v1\n").commit("a");
    let id = repo.checkpoint("before");
    repo.write("a.txt", "v2\n");
    (repo, id)
}

#[test]
fn a_forged_checkpoint_is_restored_inside_the_working_tree_only() {
    let (repo, id) = checkpointed();
    forge(&repo, &id, "Ward-Mode: 777 ..\nWard-Mode: 777 .git\n");
    let above = mode_of(repo.tmp.path());
    let dry = repo.ward(["rollback", &id, "--dry-run"]).ok();
    for named in [
        "../escaped.txt",
        ".git/hooks/post-commit",
        ".git/ward/policy.toml",
        ".GIT/config",
    ] {
        assert!(
            dry.stdout.contains(&format!("REFUSED   {named} (")),
            "{named}:\n{}",
            dry.stdout
        );
    }
    assert!(
        dry.stdout
            .contains("REFUSED   .. (its Ward-Mode trailer names"),
        "{}",
        dry.stdout
    );
    let run = repo
        .ward(["rollback", &id, "--yes", "--accept-changed"])
        .code(3);
    assert!(
        run.stdout.contains("not restored: ../escaped.txt: "),
        "{}",
        run.stdout
    );
    nothing_escaped(&repo, above);
    assert_eq!(
        repo.read("a.txt").as_deref(),
        Some("v1\n"),
        "the rest is restored"
    );
}

#[test]
fn the_mcp_rollback_refuses_a_forged_checkpoints_paths() {
    let (repo, id) = checkpointed();
    forge(&repo, &id, "Ward-Mode: 777 ..\n");
    let above = mode_of(repo.tmp.path());
    let mut s = Raw::start(&repo);
    let plan = s.call(1, "rollback", json!({"checkpoint_id": id}));
    let refused: Vec<&str> = plan["structuredContent"]["plan"]["refused"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["path"].as_str()).collect())
        .unwrap_or_default();
    assert!(refused.contains(&"../escaped.txt"), "{plan}");
    assert!(refused.contains(&".git/hooks/post-commit"), "{plan}");
    assert!(refused.contains(&".."), "{plan}");
    let r = s.call(2, "rollback", json!({"checkpoint_id": id, "confirm": true}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r.to_string().contains("rewritten since"), "{r}");
    nothing_escaped(&repo, above);
    assert_eq!(
        repo.read("a.txt").as_deref(),
        Some("v2\n"),
        "nothing restored"
    );
}

/// The id of the one checkpoint the repository holds.
fn only_checkpoint(repo: &TestRepo) -> String {
    repo.git([
        "for-each-ref",
        "--format=%(refname:lstrip=3)",
        "refs/ward/checkpoints/",
    ])
    .ok()
    .stdout
    .trim()
    .to_string()
}

/// An agent's `checkout -- a.txt`, whose checkpoint is then rewritten
/// with `Ward-Ref` lines for `main` (a commit back) and a new
/// `release/x`; the forged trailers.
fn agent_checkout_then_forged() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.write("a.txt", "v1\n").commit("a");
    repo.write("b.txt", "b\n").commit("b");
    repo.write("a.txt", "mine\n");
    repo.shim(["checkout", "--", "a.txt"]).ok();
    let id = only_checkpoint(&repo);
    let back = repo.rev("main~1").unwrap();
    let trailers =
        format!("Ward-Ref: refs/heads/main {back}\nWard-Ref: refs/heads/release/x {back}\n");
    forge(&repo, &id, &trailers);
    (repo, id)
}

#[test]
fn undo_moves_no_protected_ref_on_a_checkpoints_word() {
    let (repo, _) = agent_checkout_then_forged();
    let main = repo.rev("main").unwrap();
    let above = mode_of(repo.tmp.path());
    let run = repo.ward(["undo", "--yes", "--accept-changed"]);
    assert!(
        run.stdout.contains("refs/heads/main left alone: "),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(
        run.stdout.contains("no ref journal for this command"),
        "{}",
        run.stdout
    );
    assert_eq!(
        repo.rev("main").as_deref(),
        Some(main.as_str()),
        "main moved"
    );
    assert_eq!(repo.rev("refs/heads/release/x"), None, "release/x created");
    nothing_escaped(&repo, above);
    assert_eq!(
        repo.read("a.txt").as_deref(),
        Some("mine\n"),
        "the files come back"
    );
}

#[test]
fn the_mcp_undo_moves_no_protected_ref_on_a_checkpoints_word() {
    let (repo, _) = agent_checkout_then_forged();
    let main = repo.rev("main").unwrap();
    let above = mode_of(repo.tmp.path());
    let mut s = Raw::start(&repo);
    let plan = s.call(1, "undo", json!({}));
    let refused = plan["structuredContent"]["refs_refused"].to_string();
    assert!(refused.contains("refs/heads/main"), "{plan}");
    let r = s.call(2, "undo", json!({"confirm": true}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r.to_string().contains("rewritten since"), "{r}");
    assert_eq!(
        repo.rev("main").as_deref(),
        Some(main.as_str()),
        "main moved"
    );
    assert_eq!(repo.rev("refs/heads/release/x"), None, "release/x created");
    nothing_escaped(&repo, above);
}

#[test]
fn a_branch_an_agent_may_move_still_comes_back_from_the_record() {
    let repo = TestRepo::new();
    repo.git(["branch", "feature"]).ok();
    repo.write("x.txt", "x\n");
    let feature = repo.rev("feature").unwrap();
    repo.shim(["branch", "-D", "feature"]).ok();
    assert_eq!(repo.rev("refs/heads/feature"), None);
    let run = repo.ward(["undo", "--yes"]).ok();
    assert!(run.stdout.contains("no ref journal"), "{}", run.stdout);
    assert_eq!(repo.rev("refs/heads/feature"), Some(feature));
}

/// A checkpoint whose ref was rewritten, or that git-ward has no record
/// of making, is shown with the reason and restored only on a person's
/// `--accept-changed`; never on an agent's.
#[test]
fn a_rewritten_checkpoint_is_restored_only_on_a_persons_word() {
    let repo = TestRepo::new();
    repo.write("a.txt", "v1\n").commit("a");
    let id = repo.checkpoint("before");
    repo.write("a.txt", "v2\n");
    let name = format!("refs/ward/checkpoints/{id}");
    // The same tree and message, another commit: nothing in it is odd
    // but that git-ward did not make it.
    let raw = repo.git(["cat-file", "commit", &name]).ok().stdout;
    let message = format!("{}\nWard-Note: x\n", raw.split_once("\n\n").unwrap().1);
    let tree = repo.rev(&format!("{name}^{{tree}}")).unwrap();
    let commit = repo.git_stdin(["commit-tree", &tree], &message).ok().stdout;
    repo.git(["update-ref", &name, commit.trim()]).ok();
    repo.ward(["rollback", &id, "--dry-run"])
        .ok()
        .stdout_has("  CHANGED   checkpoint ")
        .stdout_has("rewritten since");
    let plain = repo.ward(["rollback", &id, "--yes"]).code(1);
    assert!(plain.stderr.contains("EN-GIT-D-001"), "{}", plain.stderr);
    assert!(
        plain.stderr.contains("--accept-changed"),
        "{}",
        plain.stderr
    );
    repo.ward_env(["rollback", &id, "--yes", "--accept-changed"], AGENT)
        .code(1)
        .stderr_has("a person reads the plan");
    assert_eq!(repo.read("a.txt").as_deref(), Some("v2\n"));
    repo.ward(["rollback", &id, "--yes", "--accept-changed"])
        .ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("v1\n"));
    // One git-ward made and nobody touched needs no flag.
    let own = repo.checkpoint("own");
    repo.write("a.txt", "v3\n");
    repo.ward(["rollback", &own, "--yes"]).ok();
    assert_eq!(repo.read("a.txt").as_deref(), Some("v1\n"));
}

#[test]
fn undo_from_a_rewritten_checkpoint_needs_a_persons_word() {
    let repo = TestRepo::new();
    repo.write("a.txt", "v1\n").commit("a");
    repo.write("a.txt", "mine\n");
    repo.shim(["checkout", "--", "a.txt"]).ok();
    let id = only_checkpoint(&repo);
    forge(&repo, &id, "Ward-Mode: 777 ..\n");
    let above = mode_of(repo.tmp.path());
    repo.ward(["undo", "--yes"])
        .code(1)
        .stderr_has("EN-GIT-D-001")
        .stdout_has("  CHANGED   ");
    assert_eq!(repo.read("a.txt").as_deref(), Some("v1\n"));
    repo.ward(["undo", "--yes", "--accept-changed"]).code(3);
    assert_eq!(repo.read("a.txt").as_deref(), Some("mine\n"));
    nothing_escaped(&repo, above);
}

/// A checkpoint of a linked worktree an agent removed names where the
/// worktree was (`Ward-Workdir`); rewritten to name a place outside, undo
/// makes no worktree there, even on a person's `--accept-changed`.
#[test]
fn undo_makes_no_worktree_where_a_rewritten_checkpoint_says() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a1\n").commit("a1");
    repo.ward(["install"]).ok();
    let wt = repo.path("wt");
    let path = wt.to_str().unwrap();
    repo.git(["worktree", "add", "-q", "-b", "agent/c1-side", path])
        .ok();
    std::fs::write(wt.join("a.txt"), "wip\n").unwrap();
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.shim_env(["worktree", "remove", "--force", "../wt"], c1)
        .ok();
    let elsewhere = crate::common::sibling(&repo, "elsewhere");
    let workdir = format!("Ward-Workdir: {}", wt.display());
    let forged = format!("Ward-Workdir: {}", elsewhere.display());
    let name = "refs/ward/checkpoints/chk-c1-1";
    let raw = repo.git(["cat-file", "commit", name]).ok().stdout;
    assert!(raw.contains(&workdir), "{raw}");
    let text = raw.replace(&workdir, &forged);
    let args = ["hash-object", "-t", "commit", "-w", "--stdin"];
    let commit = repo.git_stdin(args, &text).ok().stdout;
    repo.git(["update-ref", name, commit.trim()]).ok();
    repo.ward(["undo", "--yes", "--accept-changed"])
        .code(2)
        .stderr_has("a worktree is made again only from a checkpoint as git-ward made it");
    assert!(!elsewhere.exists(), "a worktree was made outside");
    assert!(!wt.exists());
}
