//! Repositories that keep their refs in reftable (git 2.45 and newer):
//! gix reads refs from files only, so the hooks read refs through the real
//! git, and the shim refuses what it cannot check or undo.

use crate::common::TestRepo;

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

/// A repository on `main` with one commit, its refs in reftable; `None`
/// when this git has no reftable.
fn reftable_repo() -> Option<TestRepo> {
    reftable_repo_with(&[])
}

/// [`reftable_repo`] with config set before the first commit.
fn reftable_repo_with(config: &[(&str, &str)]) -> Option<TestRepo> {
    let repo = TestRepo::empty();
    std::fs::remove_dir_all(repo.dir.join(".git")).unwrap();
    if repo
        .git(["init", "-q", "-b", "main", "--ref-format=reftable"])
        .code
        != Some(0)
    {
        eprintln!("skipped: this git has no reftable (git 2.45 or newer has)");
        return None;
    }
    for (key, value) in config {
        repo.git(["config", key, value]).ok();
    }
    repo.write("README", "hello\n");
    repo.git(["add", "README"]).ok();
    repo.git(["commit", "-q", "-m", "initial"]).ok();
    assert!(repo.dir.join(".git/reftable").is_dir());
    Some(repo)
}

#[test]
fn the_shim_lets_reads_through_and_refuses_what_it_cannot_check() {
    let Some(repo) = reftable_repo() else { return };
    let main = repo.rev("main");
    let status = repo.shim(["status", "--short"]).ok().stdout;
    assert_eq!(status, repo.git(["status", "--short"]).ok().stdout);
    // A commit on main, even with a contract: no switch, no commit.
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .code(1)
    .stderr_has("EN-GIT-E-001")
    .stderr_has("git refs migrate --ref-format=files");
    assert_eq!(repo.rev("main"), main);
    // A destructive command cannot be checkpointed: refused, work kept.
    repo.write("README", "work in progress\n");
    repo.shim(["reset", "--hard"])
        .code(1)
        .stderr_has("reftable");
    assert_eq!(repo.read("README").as_deref(), Some("work in progress\n"));
    repo.ward(["checkpoint"])
        .code(3)
        .stderr_has("[EN-GIT-E-001]")
        .stderr_has("reftable");
    repo.ward(["undo", "--dry-run"])
        .code(3)
        .stderr_has("[EN-GIT-E-001]");
}

#[test]
fn the_hooks_guard_protected_refs_and_read_the_team_policy() {
    let Some(repo) = reftable_repo() else { return };
    // A team layer, committed on main, protects `staging` too.
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"main\", \"staging\"]\n",
    );
    repo.git(["add", ".ward/policy.toml"]).ok();
    repo.git(["commit", "-q", "-m", "team policy"]).ok();
    repo.git(["branch", "staging"]).ok();
    repo.ward(["install"]).ok();
    let main = repo.rev("main");
    let staging = repo.rev("staging");
    // pre-commit reads HEAD through git and refuses a commit on main.
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1)
        .stderr_has("protected branch 'main'");
    assert_eq!(repo.rev("main"), main);
    // The team layer's branch is guarded by reference-transaction.
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "f"]).ok();
    repo.git_env(["branch", "-f", "staging", "feat"], AGENT)
        .code(128)
        .stderr_has("'staging'");
    assert_eq!(repo.rev("staging"), staging);
}

#[test]
fn a_team_layer_that_cannot_be_read_is_an_error_here_too() {
    let Some(repo) = reftable_repo() else { return };
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"team/\"\n",
    );
    repo.git(["add", ".ward/policy.toml"]).ok();
    repo.git(["commit", "-q", "-m", "team policy"]).ok();
    repo.ward(["policy", "show", "--origin"])
        .ok()
        .stdout_has("# team (.ward/policy.toml on main)");
    repo.lose_object("refs/heads/main");
    let run = repo.ward(["policy", "show", "--origin"]);
    assert_ne!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stderr.contains("cannot read the team policy"),
        "{}",
        run.stderr
    );
}

/// The hint's way out works for an agent: back to files, the shim checks
/// and switches again. Into reftable is refused: git renames branches
/// there without the reference-transaction hook (`branch -M x main`).
#[test]
fn an_agent_may_migrate_refs_to_files_and_not_into_reftable() {
    // git 2.46 and 2.47 migrate no reflogs: a repository without them.
    let Some(repo) = reftable_repo_with(&[("core.logAllRefUpdates", "false")]) else {
        return;
    };
    let help = repo.git(["refs", "migrate", "-h"]);
    if !format!("{}{}", help.stdout, help.stderr).contains("--ref-format") {
        eprintln!("skipped: this git has no `refs migrate` (git 2.46 or newer has)");
        return;
    }
    let _ = repo.ward(["install"]);
    repo.shim(["refs", "migrate", "--ref-format=files"]).ok();
    assert!(!repo.dir.join(".git/reftable").exists());
    let main = repo.rev("main");
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok()
    .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.rev("main"), main);
    // Into reftable: refused, before git runs, however spelled (git takes
    // the last --ref-format, and the last word on --dry-run).
    for args in [
        &["refs", "migrate", "--ref-format=reftable"][..],
        &[
            "refs",
            "migrate",
            "--ref-format=files",
            "--ref-format=reftable",
        ],
        &[
            "refs",
            "migrate",
            "--dry-run",
            "--no-dry-run",
            "--ref-f=reftable",
        ],
    ] {
        repo.shim(args).code(1).stderr_has("[EN-GIT-D-004]");
    }
    assert!(!repo.dir.join(".git/reftable").exists());
}
