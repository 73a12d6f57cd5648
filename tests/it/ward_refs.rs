//! `refs/ward/` and the state files beside it are git-ward's alone: an
//! agent's git writes none of them, through the shim or around it; a
//! pinned checkpoint outlives a rewrite, a deletion and a flood; a
//! person's rewrite or deletion keeps the commit git-ward made.

use crate::common::TestRepo;
use crate::mcp::Raw;
use serde_json::json;

/// The id of a checkpoint a person pinned.
fn pinned(repo: &TestRepo) -> String {
    let (_, v) = repo.ward_json(["checkpoint", "-m", "keep", "--pin", "--json"], &[]);
    v["checkpoint"]["id"].as_str().unwrap().to_string()
}

pub const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

/// git failed, refused by the reference-transaction hook.
#[track_caller]
fn refused(run: crate::common::Run) {
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("EN-GIT-D-001"), "{}", run.stderr);
}

#[test]
fn an_agent_writes_no_ref_under_refs_ward_through_the_shim() {
    let repo = TestRepo::new();
    let id = pinned(&repo);
    let name = format!("refs/ward/checkpoints/{id}");
    let before = repo.rev(&name).unwrap();
    let onto = format!("+HEAD:{name}");
    let delete = format!(":{name}");
    for args in [
        vec!["update-ref", "refs/ward/checkpoints/chk-local-9", "HEAD"],
        vec!["update-ref", &name, "HEAD"],
        vec!["update-ref", "-d", &name],
        // Into the repository itself, no hook installed to stop it.
        vec!["fetch", "-q", ".", "HEAD:refs/ward/checkpoints/chk-local-9"],
        vec!["fetch", "-q", ".", &onto],
        vec!["fetch", "-q", ".", "+refs/heads/*:refs/ward/checkpoints/*"],
        vec!["push", "-q", ".", "HEAD:refs/ward/checkpoints/chk-local-9"],
        vec!["push", "-q", ".", &onto],
        vec!["push", "-q", ".", &delete],
        vec!["push", "-q", "--delete", ".", &name],
    ] {
        repo.shim(&args)
            .code(1)
            .stderr_has("EN-GIT-D-001")
            .stderr_has("git-ward's own")
            .stderr_has("git ward checkpoint");
    }
    assert_eq!(repo.rev(&name), Some(before));
    assert_eq!(repo.rev("refs/ward/checkpoints/chk-local-9"), None);
}

#[test]
fn an_agents_git_that_skips_the_shim_writes_no_ref_under_refs_ward() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let id = pinned(&repo);
    let name = format!("refs/ward/checkpoints/{id}");
    let before = repo.rev(&name).unwrap();
    let head = repo.rev("HEAD").unwrap();
    // Neither the variable git-ward's own gits carry nor a pipe on it
    // makes an agent's git git-ward's.
    for env in [AGENT, &[("WARD_AGENT", "1"), ("WARD_OWN_FD", "0")]] {
        refused(repo.git_env(["update-ref", "-d", &name], env));
        refused(repo.git_env(["update-ref", &name, &head], env));
        refused(repo.git_env(["update-ref", "refs/ward/kept/x/y", &head], env));
        let fetch = ["fetch", "-q", ".", "HEAD:refs/ward/checkpoints/chk-local-7"];
        refused(repo.git_env(fetch, env));
    }
    assert_eq!(repo.rev(&name), Some(before.clone()));
    assert_eq!(repo.rev("refs/ward/kept/x/y"), None);
    assert_eq!(repo.rev("refs/ward/checkpoints/chk-local-7"), None);
    // git-ward's own writes pass, for an agent too: a checkpoint, and
    // retention deleting one.
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    for n in 0..6 {
        repo.write("f.txt", &format!("{n}\n"));
        repo.ward_env(["checkpoint", "-m", "flood"], AGENT).ok();
    }
    assert_eq!(
        repo.rev(&name).as_deref(),
        Some(before.as_str()),
        "the pinned one"
    );
    assert!(repo.checkpoint_count() <= 4, "retention ran");
    // A person's plain git is a person's.
    repo.git(["update-ref", "-d", &name]).ok();
}

/// Checkpoint `name`'s commit written again without its `Ward-Pinned`
/// trailer (and so another commit); its id.
fn unpinned(repo: &TestRepo, name: &str) -> String {
    let raw = repo.git(["cat-file", "commit", name]).ok().stdout;
    let text: String = raw
        .lines()
        .filter(|l| !l.starts_with("Ward-Pinned:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let args = ["hash-object", "-t", "commit", "-w", "--stdin"];
    repo.git_stdin(args, &text).ok().stdout.trim().to_string()
}

/// An agent's git with the hooks off runs `args`.
fn hooks_off(repo: &TestRepo, args: &[&str]) {
    let mut off = vec!["-c", "core.hooksPath=/dev/null"];
    off.extend(args);
    repo.git_env(off, AGENT).ok();
}

/// `n` checkpoints, each of a change, through the shim and the tool.
fn flood(repo: &TestRepo, n: usize) {
    for i in 0..n {
        repo.write("f.txt", &format!("{i}\n"));
        repo.shim(["checkout", "--", "."]).ok();
        repo.ward(["checkpoint", "-m", "flood"]).ok();
    }
}

#[test]
fn a_pinned_checkpoint_survives_a_rewrite_a_deletion_and_a_flood() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[checkpoint]\nkeep = 3\n");
    let id = pinned(&repo);
    let name = format!("refs/ward/checkpoints/{id}");
    let kept = format!("refs/ward/kept/{id}/made");
    let before = repo.rev(&name).unwrap();
    let head = repo.rev("HEAD").unwrap();
    // An agent's, through the shim and around it: refused.
    repo.shim(["update-ref", &name, &head]).code(1);
    refused(repo.git_env(["update-ref", "-d", &name], AGENT));
    let forged = unpinned(&repo, &name);
    refused(repo.git_env(["update-ref", &name, &forged], AGENT));
    flood(&repo, 12);
    assert_eq!(repo.rev(&name).as_deref(), Some(before.as_str()));
    let (_, v) = repo.ward_json(["checkpoints", "--json"], &[]);
    assert!(v.to_string().contains(&id), "{v}");
    // An agent's git with the hooks off rewrites it without its pin:
    // retention still spares it, and keeps the commit git-ward made.
    hooks_off(&repo, &["update-ref", &name, &forged]);
    flood(&repo, 12);
    assert_eq!(repo.rev(&name), Some(forged), "the pinned id was pruned");
    assert_eq!(repo.rev(&kept).as_deref(), Some(before.as_str()));
    repo.ward(["rollback", &id, "--dry-run"])
        .ok()
        .stdout_has(&format!("(kept as {kept})"));
    // Retention deletes nothing it keeps.
    flood(&repo, 12);
    assert_eq!(repo.rev(&kept), Some(before));
}

/// A person's plain git may rewrite or delete a checkpoint (a recent one
/// here, unpinned): the reference-transaction hook keeps the commit
/// git-ward made, and says where.
#[test]
fn a_persons_rewrite_or_deletion_of_a_checkpoint_keeps_what_git_ward_made() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.write("a.txt", "v1\n");
    let id = repo.checkpoint("recent");
    let name = format!("refs/ward/checkpoints/{id}");
    let kept = format!("refs/ward/kept/{id}/made");
    let made = repo.rev(&name).unwrap();
    let head = repo.rev("HEAD").unwrap();
    repo.git(["update-ref", &name, &head])
        .ok()
        .stderr_has(&format!("checkpoint {id} was rewritten"))
        .stderr_has(&kept);
    assert_eq!(repo.rev(&kept).as_deref(), Some(made.as_str()));
    // Put back and deleted: still kept, said once.
    repo.git(["update-ref", &name, &made]).ok();
    repo.git(["update-ref", "-d", &name]).ok();
    assert_eq!(repo.rev(&kept).as_deref(), Some(made.as_str()));
    // A second one, deleted outright.
    repo.write("a.txt", "v2\n");
    let other = repo.checkpoint("another");
    let other_name = format!("refs/ward/checkpoints/{other}");
    let other_made = repo.rev(&other_name).unwrap();
    repo.git(["update-ref", "-d", &other_name])
        .ok()
        .stderr_has(&format!("checkpoint {other} was deleted"));
    assert_eq!(
        repo.rev(&format!("refs/ward/kept/{other}/made")),
        Some(other_made)
    );
    // git-ward's own deletions (retention) and a pack-refs keep nothing.
    repo.git(["pack-refs", "--all"]).ok().stderr_lacks("was ");
    repo.local_policy("[checkpoint]\nkeep = 2\n");
    let first = repo.checkpoint("first");
    for n in 0..6 {
        repo.write("a.txt", &format!("{n}\n"));
        repo.ward(["checkpoint", "-m", "more"])
            .ok()
            .stderr_lacks("kept as");
    }
    assert_eq!(
        repo.rev(&format!("refs/ward/checkpoints/{first}")),
        None,
        "pruned"
    );
    assert_eq!(repo.rev(&format!("refs/ward/kept/{first}/made")), None);
}

/// git-ward's state files under the git directory (the record of the
/// checkpoints it made, the lease, the agent's remotes, the local policy) are
/// written by no git command an agent runs: through the shim, and as refs
/// named like them by a git that skips the shim and meets the hooks.
#[test]
fn an_agent_plants_no_state_file_through_git() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let id = pinned(&repo);
    let record = repo.dir.join(".git/ward/made").join(&id);
    let before = std::fs::read_to_string(&record).unwrap();
    let head = repo.rev("HEAD").unwrap();
    let made = format!("ward/made/{id}");
    let out = format!("--output=.git/ward/made/{id}");
    for name in [
        made.as_str(),
        "ward/lease",
        "ward/agent-remotes",
        "ward/policy.toml",
    ] {
        repo.shim(["update-ref", name, &head])
            .code(1)
            .stderr_has("EN-GIT-D-004");
        let run = repo.git_env(["update-ref", name, &head], AGENT);
        assert_ne!(run.code, Some(0), "{}", run.stderr);
        assert!(run.stderr.contains("EN-GIT-D-004"), "{}", run.stderr);
    }
    repo.shim(["log", "-1", "--format=%H", &out])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    assert_eq!(std::fs::read_to_string(&record).unwrap(), before);
    for file in ["lease", "agent-remotes", "policy.toml"] {
        let path = repo.dir.join(".git/ward").join(file);
        assert!(
            std::fs::read_to_string(&path).map_or(true, |t| !t.contains(&head)),
            "{file} planted"
        );
    }
}

/// Through the MCP tools too: a checkpoint pinned when it was made, its
/// ref since rewritten without the pin by an agent's git with the hooks
/// off, outlives a flood of `checkpoint_create` calls, and the commit
/// git-ward made stays reachable.
#[test]
fn a_pinned_checkpoint_outlives_a_flood_of_mcp_checkpoints() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[checkpoint]\nkeep = 3\n");
    let id = pinned(&repo);
    let name = format!("refs/ward/checkpoints/{id}");
    let before = repo.rev(&name).unwrap();
    let forged = unpinned(&repo, &name);
    hooks_off(&repo, &["update-ref", &name, &forged]);
    let mut s = Raw::start(&repo);
    for n in 0..12 {
        repo.write("f.txt", &format!("{n}\n"));
        let r = s.call(n + 1, "checkpoint_create", json!({"message": "flood"}));
        assert_ne!(r["isError"], true, "{r}");
    }
    let list = s.call(99, "checkpoint_list", json!({}));
    assert!(list.to_string().contains(&id), "{list}");
    assert_eq!(repo.rev(&name), Some(forged));
    assert_eq!(repo.rev(&format!("refs/ward/kept/{id}/made")), Some(before));
}

/// Deleted with the hooks off (no hook sees it), a pinned and a recent
/// checkpoint leave git-ward's record of them: the next retention keeps
/// both commits, and nothing of the checkpoints it prunes itself.
#[test]
fn a_checkpoint_deleted_with_the_hooks_off_is_kept_by_retention() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[checkpoint]\nkeep = 3\n");
    let pin = pinned(&repo);
    repo.write("a.txt", "recent\n");
    let recent = repo.checkpoint("recent");
    let mut made = Vec::new();
    for id in [&pin, &recent] {
        let name = format!("refs/ward/checkpoints/{id}");
        made.push(repo.rev(&name).unwrap());
        hooks_off(&repo, &["update-ref", "-d", &name]);
        assert_eq!(repo.rev(&name), None);
    }
    flood(&repo, 8);
    let kept = repo.git(["for-each-ref", "refs/ward/kept/"]).ok().stdout;
    let expected = format!(
        "{} commit\trefs/ward/kept/{pin}/made\n{} commit\trefs/ward/kept/{recent}/made\n",
        made[0], made[1]
    );
    assert_eq!(kept, expected);
}
