//! Protected branches sync to remote-tracking refs (a protected
//! branch may be fast-forwarded to its upstream's value). So an agent may
//! not write those refs itself, nor change where they come from: else it
//! could fast-forward `main` onto its own commits (and with a committed
//! `.ward/policy.toml` there, relax the team layer).

use crate::common::{sibling, TestRepo};

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

/// `main` (two commits) pushed to a bare `origin` with upstream set, hooks
/// installed; the agent's own commit on `agent/c1`, also pushed there as
/// `agent/main` (agent branches may be pushed). Returns the agent's commit.
fn setup() -> (TestRepo, String) {
    let repo = TestRepo::new();
    repo.commit("second");
    repo.ward(["install"]).ok();
    let remote = sibling(&repo, "remote.git");
    let remote = remote.to_str().unwrap();
    repo.git(["init", "-q", "--bare", "-b", "main", remote])
        .ok();
    repo.git(["remote", "add", "origin", &format!("file://{remote}")])
        .ok();
    repo.git(["push", "-q", "-u", "origin", "main"]).ok();
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "agent work"], AGENT)
        .ok();
    repo.git_env(["push", "-q", "origin", "HEAD:agent/main"], AGENT)
        .ok();
    let work = repo.rev("agent/c1").unwrap();
    (repo, work)
}

/// Asserts git failed and git-ward said why (git's own exit code for a
/// hook's refusal differs by command and version).
#[track_caller]
fn refused(run: crate::common::Run) {
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("ward: denied [EN-GIT-D-001]") && run.stderr.contains("\nhint: "),
        "{}",
        run.stderr
    );
}

/// Someone else pushes a new commit onto the remote's `main`; its id.
fn upstream_moves(repo: &TestRepo) -> String {
    crate::common::upstream_moves(repo, &sibling(repo, "remote.git"))
}

/// The refs an agent must not be able to move this way.
fn tracked(repo: &TestRepo) -> (Option<String>, Option<String>) {
    (repo.rev("refs/remotes/origin/main"), repo.rev("main"))
}

#[test]
fn only_a_fetch_of_the_same_branch_from_its_remote_writes_a_tracking_ref() {
    let (repo, work) = setup();
    let remote = sibling(&repo, "remote.git");
    let url = format!("file://{}", remote.display());
    let before = tracked(&repo);
    let work = work.as_str();
    let forged: Vec<Vec<String>> = [
        vec!["update-ref", "refs/remotes/origin/main", work],
        vec!["fetch", "-q", ".", "agent/c1:refs/remotes/origin/main"],
        vec!["fetch", "-q", &url, "agent/main:refs/remotes/origin/main"],
        vec![
            "fetch",
            "-q",
            "origin",
            "+agent/main:refs/remotes/origin/main",
        ],
        vec![
            "fetch",
            "-q",
            "origin",
            "+refs/heads/agent/*:refs/remotes/origin/*",
        ],
        vec![
            "fetch",
            "-q",
            "--refmap=+refs/heads/agent/*:refs/remotes/origin/*",
            "origin",
            "agent/main",
        ],
        vec![
            "-c",
            "remote.origin.fetch=+refs/heads/agent/*:refs/remotes/origin/*",
            "fetch",
            "-q",
            "origin",
            "agent/main",
        ],
    ]
    .iter()
    .map(|v| v.iter().map(|s| s.to_string()).collect())
    .collect();
    for args in &forged {
        let run = repo.git_env(args, AGENT);
        assert_ne!(run.code, Some(0), "{args:?} went through");
        assert!(
            run.stderr.contains("ward: denied [EN-GIT-D-001]") && run.stderr.contains("\nhint: "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(tracked(&repo), before, "{args:?}");
    }
    // Through the shim, the hand-written ref is refused before git runs,
    // as explain says.
    let update = ["update-ref", "refs/remotes/origin/main", work];
    repo.shim_env(update, AGENT)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-001]")
        .stderr_lacks("fatal:");
    let mut explain = vec!["explain", "--as-agent", "--"];
    explain.extend(update);
    repo.ward(explain).ok().stdout_has("EN-GIT-D-001");
    assert_eq!(tracked(&repo), before);
    // A fetch refspec changed past the shim (by plain git) maps another
    // branch there: refused too.
    repo.git([
        "config",
        "--replace-all",
        "remote.origin.fetch",
        "+refs/heads/agent/*:refs/remotes/origin/*",
    ])
    .ok();
    refused(repo.git_env(["fetch", "-q", "origin"], AGENT));
    assert_eq!(tracked(&repo), before);
    repo.git([
        "config",
        "--replace-all",
        "remote.origin.fetch",
        "+refs/heads/*:refs/remotes/origin/*",
    ])
    .ok();
    // So the protected branch cannot be synced onto the agent's work.
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    repo.git_env(["pull", "-q", "--ff-only"], AGENT).ok();
    assert_eq!(tracked(&repo), before);

    // Under a name that is no configured remote's, nothing syncs to it.
    repo.git_env(["update-ref", "refs/remotes/upstream/main", work], AGENT)
        .ok();
    refused(repo.git_env(["update-ref", "refs/heads/main", work], AGENT));
    // Nor to another branch whose name ends the same (`origin`'s `agent/main`).
    repo.git(["pack-refs", "--all"]).ok();
    refused(repo.git_env(["merge", "-q", "--ff-only", "origin/agent/main"], AGENT));
    assert_eq!(tracked(&repo), before);

    // A person may write them; deleting one syncs nothing.
    repo.git(["update-ref", "refs/remotes/origin/main", work])
        .ok();
    repo.git([
        "update-ref",
        "refs/remotes/origin/main",
        before.0.as_ref().unwrap(),
    ])
    .ok();
    repo.git_env(["branch", "-q", "-d", "-r", "origin/main"], AGENT)
        .ok();
    assert_eq!(repo.rev("refs/remotes/origin/main"), None);
}

#[test]
fn fetching_the_branch_from_its_remote_still_syncs() {
    let (repo, _) = setup();
    let upstream = upstream_moves(&repo);
    let upstream = upstream.as_str();
    repo.git(["config", "alias.f", "fetch -q"]).ok();
    for args in [
        &["fetch", "-q", "origin", "main"][..],
        &["fetch", "-q", "origin", "main:refs/remotes/origin/main"],
        &[
            "fetch",
            "-q",
            "origin",
            "refs/heads/*:refs/remotes/origin/*",
        ],
        &["fetch", "-q"],
        &["fetch", "-q", "--all"],
        &["f", "origin"],
    ] {
        repo.git(["update-ref", "refs/remotes/origin/main", "main"])
            .ok();
        repo.git_env(args, AGENT).ok();
        assert_eq!(
            repo.rev("refs/remotes/origin/main").as_deref(),
            Some(upstream),
            "{args:?}"
        );
    }
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    repo.git_env(["pull", "-q", "--ff-only"], AGENT).ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream));
}

#[test]
fn the_shim_refuses_changing_where_a_protected_branch_syncs_from() {
    let (repo, _) = setup();
    let config = |repo: &TestRepo| {
        repo.git(["config", "--list", "--local"])
            .ok()
            .stdout
            .lines()
            .filter(|l| {
                l.starts_with("remote.") || l.starts_with("branch.") || l.starts_with("url.")
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let before = config(&repo);
    let evil = sibling(&repo, "evil.git");
    let evil = evil.to_str().unwrap();
    for args in [
        &["remote", "set-url", "origin", evil][..],
        &["remote", "rename", "origin", "evil"],
        &["config", "remote.origin.url", evil],
        &["config", "url.file:///tmp/x.insteadOf", "file://"],
        &["config", "branch.main.merge", "refs/heads/agent/main"],
        &["branch", "-u", "origin/agent/main", "main"],
        &["push", "-u", "origin", "main:agent/main2"],
    ] {
        let run = repo.shim_env(args, AGENT);
        assert_ne!(run.code, Some(0), "{args:?} went through");
        assert!(
            run.stderr.contains("ward: denied [EN-GIT-D-001]") && run.stderr.contains("\nhint: "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(config(&repo), before, "{args:?}");
    }
    assert_eq!(repo.rev("refs/remotes/origin/agent/main2"), None);
    // `-c` for one fetch: refused before git runs.
    repo.shim_env(
        ["-c", &format!("remote.origin.url={evil}"), "fetch", "-q"],
        AGENT,
    )
    .code(1)
    .stderr_has("EN-GIT-D-001");
    // The agent's own branch's upstream is its own business.
    repo.shim_env(
        ["branch", "-q", "-u", "origin/agent/main", "agent/c1"],
        AGENT,
    )
    .ok();
    repo.shim_env(["push", "-q", "-u", "origin", "agent/c1"], AGENT)
        .ok();
    // With nothing syncing (branches.sync_from_upstream = false) it may.
    repo.local_policy("[branches]\nsync_from_upstream = false\n");
    repo.shim_env(["remote", "add", "upstream", evil], AGENT)
        .ok();
}

#[test]
fn fetching_a_protected_branch_into_itself_syncs_it_and_nothing_else_does() {
    let (repo, work) = setup();
    let upstream = upstream_moves(&repo);
    let remote = sibling(&repo, "remote.git");
    let main = repo.rev("main");
    // Another branch's value, or another repository's, is not syncing.
    let url = format!("file://{}", remote.display());
    for args in [
        &["fetch", "-q", "origin", "agent/main:main"][..],
        &[
            "fetch",
            "-q",
            "origin",
            "+refs/heads/agent/main:refs/heads/main",
        ],
        &["fetch", "-q", &url, "agent/main:main"],
    ] {
        let run = repo.shim_env(args, AGENT);
        assert_ne!(run.code, Some(0), "{args:?} went through the shim");
        refused(repo.git_env(args, AGENT));
        assert_eq!(repo.rev("main"), main, "{args:?}");
    }
    assert_ne!(repo.rev("main").as_deref(), Some(work.as_str()));
    // The branch's own value from its remote is, through the shim and past it.
    repo.shim_env(["fetch", "-q", "origin", "main:main"], AGENT)
        .ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
    repo.git(["update-ref", "refs/heads/main", main.as_deref().unwrap()])
        .ok();
    repo.git_env(
        ["fetch", "-q", "origin", "refs/heads/main:refs/heads/main"],
        AGENT,
    )
    .ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
}

#[test]
fn a_push_writes_a_tracking_ref_only_through_a_same_name_mapping() {
    let (repo, work) = setup();
    let before = tracked(&repo);
    // The remote's refs/x/c1 mapped onto origin/main for this one push.
    refused(repo.git_env(
        [
            "-c",
            "remote.origin.fetch=+refs/x/c1:refs/remotes/origin/main",
            "push",
            "-q",
            "origin",
            "agent/c1:refs/x/c1",
        ],
        AGENT,
    ));
    assert_eq!(tracked(&repo), before);
    // The shim refuses setting such a mapping; set past it (plain git),
    // a push through it is refused by the hook.
    let remap = [
        "config",
        "--replace-all",
        "remote.origin.fetch",
        "+refs/heads/agent/zz:refs/remotes/origin/main",
    ];
    repo.shim_env(remap, AGENT)
        .code(1)
        .stderr_has("EN-GIT-D-001");
    repo.git(remap).ok();
    refused(repo.git_env(["push", "-q", "origin", "agent/c1:agent/zz"], AGENT));
    assert_eq!(tracked(&repo), before);
    assert_ne!(repo.rev("main").as_deref(), Some(work.as_str()));
}

#[test]
fn a_symbolic_tracking_ref_is_never_synced_to() {
    let (repo, work) = setup();
    let before = tracked(&repo);
    // git 2.39 writes it past the hook; 2.47 shows it to the hook.
    let symref = repo.git_env(
        [
            "symbolic-ref",
            "refs/remotes/origin/main",
            "refs/heads/agent/c1",
        ],
        AGENT,
    );
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    let merge = repo.git_env(["merge", "-q", "--ff-only", "origin/main"], AGENT);
    if symref.code == Some(0) {
        refused(merge);
    } else {
        refused(symref);
    }
    assert_eq!(repo.rev("main"), before.1);
    assert_ne!(repo.rev("main").as_deref(), Some(work.as_str()));
}

#[test]
fn a_hooks_path_in_a_config_file_the_environment_names_switches_hooks_off() {
    let (repo, work) = setup();
    let before = tracked(&repo);
    let file = repo.tmp.path().join("agent.gitconfig");
    let included = repo.tmp.path().join("included.gitconfig");
    let file = file.to_str().unwrap();
    // Hooks switched off for one command, directly or through an include:
    // the hook that would refuse the forged ref does not run, so the shim
    // refuses (EN-GIT-D-004).
    for (text, inc) in [
        ("[core]\n\thooksPath = /nonexistent\n", ""),
        (
            "[include]\n\tpath = included.gitconfig\n",
            "[core]\n\thooksPath = /nonexistent\n",
        ),
    ] {
        std::fs::write(file, text).unwrap();
        std::fs::write(&included, inc).unwrap();
        for var in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] {
            let env = [
                ("WARD_AGENT", "1"),
                ("GIT_CONFIG_NOSYSTEM", "0"),
                (var, file),
            ];
            repo.shim_env(["update-ref", "refs/remotes/origin/main", &work], &env)
                .code(1)
                .stderr_has("ward: denied [EN-GIT-D-004]");
            assert_eq!(tracked(&repo), before, "{var}");
            // Reading is still reading.
            repo.shim_env(["status", "--short"], &env).ok();
        }
    }
}

#[test]
fn an_ordinary_config_file_the_environment_names_changes_nothing() {
    let (repo, _) = setup();
    let file = repo.tmp.path().join("harness.gitconfig");
    let included = repo.tmp.path().join("colors.gitconfig");
    std::fs::write(&included, "[color]\n\tui = auto\n").unwrap();
    std::fs::write(
        &file,
        "[user]\n\tname = Agent\n[include]\n\tpath = colors.gitconfig\n\
         [url \"git@github.com:\"]\n\tinsteadOf = https://github.com/\n",
    )
    .unwrap();
    let env = [
        ("WARD_CONTRACT", "c1"),
        ("GIT_CONFIG_GLOBAL", file.to_str().unwrap()),
    ];
    repo.shim_env(["status", "--short"], &env).ok();
    repo.shim_env(["log", "-1", "--oneline"], &env).ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], &env)
        .ok();
    repo.shim_env(["fetch", "-q"], &env).ok();
}

#[test]
fn a_pattern_fetch_of_tags_or_same_named_branches_is_judged_ref_by_ref() {
    let (repo, _) = setup();
    let upstream = upstream_moves(&repo);
    let other = sibling(&repo, "other");
    repo.git_in(&other, ["tag", "v2"]).ok();
    repo.git_in(&other, ["push", "-q", "origin", "v2"]).ok();
    repo.shim_env(["fetch", "-q", "origin", "refs/tags/*:refs/tags/*"], AGENT)
        .ok();
    assert!(repo.rev("refs/tags/v2").is_some());
    // main is fast-forwarded to the remote's own main: syncing.
    repo.shim_env(
        ["fetch", "-q", "origin", "refs/heads/*:refs/heads/*"],
        AGENT,
    )
    .ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
    // Another branch's value under main's name is not.
    refused(repo.shim_env(
        ["fetch", "-q", "origin", "refs/heads/agent/*:refs/heads/*"],
        AGENT,
    ));
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
    // Pruning tags deletes a protected one only past the hook's refusal.
    repo.git(["tag", "v0-local"]).ok();
    refused(repo.shim_env(["fetch", "-q", "--prune", "--prune-tags", "origin"], AGENT));
    assert!(repo.rev("refs/tags/v0-local").is_some());
    repo.git(["tag", "-d", "v0-local"]).ok();
    repo.shim_env(["fetch", "-q", "--prune", "--prune-tags", "origin"], AGENT)
        .ok();
}

#[test]
fn a_namespace_or_another_upload_pack_is_not_the_remote() {
    let (repo, work) = setup();
    let before = tracked(&repo);
    // The agent's commit where a namespace makes origin serve it as main.
    repo.git_env(
        [
            "push",
            "-q",
            "origin",
            "agent/c1:refs/namespaces/x/refs/heads/main",
        ],
        AGENT,
    )
    .ok();
    // A scratch repository holding it as main, read by another upload-pack.
    let evil = sibling(&repo, "evil.git");
    repo.git(["init", "-q", "--bare", "-b", "main", evil.to_str().unwrap()])
        .ok();
    repo.git(["push", "-q", evil.to_str().unwrap(), "agent/c1:main"])
        .ok();
    let upload = format!("--upload-pack=git-upload-pack {} #", evil.display());
    let config = format!(
        "remote.origin.uploadpack=git-upload-pack {} #",
        evil.display()
    );
    type Row<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);
    let rows: Vec<Row> = vec![
        (
            vec!["fetch", "-q", "origin", "main:main"],
            vec![("GIT_NAMESPACE", "x")],
        ),
        (vec!["--namespace=x", "fetch", "-q", "origin"], vec![]),
        (vec!["fetch", "-q", &upload, "origin"], vec![]),
        (vec!["-c", &config, "fetch", "-q", "origin"], vec![]),
    ];
    for (args, env) in &rows {
        let mut agent = vec![("WARD_AGENT", "1")];
        agent.extend(env.iter().copied());
        // Refused by the shim, and past it by the hook.
        refused(repo.shim_env(args, &agent));
        refused(repo.git_env(args, &agent));
        assert_eq!(tracked(&repo), before, "{args:?}");
    }
    assert_ne!(repo.rev("main").as_deref(), Some(work.as_str()));
}

#[test]
fn a_remote_an_agent_adds_is_fetched_from_but_never_synced_from() {
    let (repo, work) = setup();
    let before = tracked(&repo);
    // The agent's repository, with its commit as main.
    let evil = sibling(&repo, "evil.git");
    repo.git(["init", "-q", "--bare", "-b", "main", evil.to_str().unwrap()])
        .ok();
    repo.git(["push", "-q", evil.to_str().unwrap(), "agent/c1:main"])
        .ok();
    repo.shim_env(
        ["remote", "add", "-f", "evil", evil.to_str().unwrap()],
        AGENT,
    )
    .ok();
    assert_eq!(
        repo.rev("refs/remotes/evil/main").as_deref(),
        Some(work.as_str())
    );
    repo.shim_env(["fetch", "-q", "evil"], AGENT).ok();
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    for args in [
        &["merge", "-q", "--ff-only", "evil/main"][..],
        &["pull", "-q", "--ff-only", "evil", "main"],
        &["update-ref", "refs/heads/main", "refs/remotes/evil/main"],
    ] {
        refused(repo.git_env(args, AGENT));
        assert_eq!(tracked(&repo), before, "{args:?}");
    }
    repo.git_env(["checkout", "-q", "agent/c1"], AGENT).ok();
    refused(repo.git_env(["fetch", "-q", "evil", "main:main"], AGENT));
    assert_eq!(tracked(&repo), before);
    // The remote a person set up still syncs.
    let upstream = upstream_moves(&repo);
    repo.shim_env(["fetch", "-q", "origin", "main:main"], AGENT)
        .ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
    // Its own remote the agent may re-point and rename; the mark follows,
    // and goes when it removes the remote.
    let record = || repo.read(".git/ward/agent-remotes").unwrap_or_default();
    repo.shim_env(["remote", "set-url", "evil", evil.to_str().unwrap()], AGENT)
        .ok();
    repo.shim_env(["remote", "rename", "evil", "ev2"], AGENT)
        .ok();
    assert_eq!(record(), "ev2\n");
    repo.shim_env(["remote", "remove", "ev2"], AGENT).ok();
    assert_eq!(record(), "");
    // So a remote a person adds later under that name syncs.
    repo.git([
        "remote",
        "add",
        "ev2",
        &format!("file://{}", sibling(&repo, "remote.git").display()),
    ])
    .ok();
    repo.git(["fetch", "-q", "ev2"]).ok();
    repo.git([
        "update-ref",
        "refs/heads/main",
        before.1.as_deref().unwrap(),
    ])
    .ok();
    repo.git_env(["fetch", "-q", "ev2", "main:main"], AGENT)
        .ok();
    assert_eq!(repo.rev("main").as_deref(), Some(upstream.as_str()));
}

/// `git merge origin/main` on a `main` behind it fast-forwards `main`, as
/// `pull` would (syncing); on a `main` with commits of its own the merge
/// makes a commit, so the agent moves to its branch first and `main` stays.
#[test]
fn a_merge_that_fast_forwards_main_to_its_upstream_syncs() {
    let (repo, _) = setup();
    const C2: &[(&str, &str)] = &[("WARD_CONTRACT", "c2")];
    repo.git(["checkout", "-q", "main"]).ok();
    let ahead = upstream_moves(&repo);
    repo.shim_env(["fetch", "-q"], C2).ok();
    // A strategy of its own makes a merge commit: not syncing.
    repo.shim_env(
        ["merge", "-q", "--no-edit", "-s", "ours", "origin/main"],
        C2,
    )
    .ok()
    .stderr_has("switched to 'agent/c2'");
    assert!(!repo.dir.join(".git/MERGE_HEAD").exists());
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git(["branch", "-q", "-D", "agent/c2"]).ok();
    repo.shim_env(["merge", "-q", "origin/main"], C2).ok();
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("main"), Some(ahead));

    repo.commit("a person's work on main");
    let mine = repo.rev("main");
    let other = sibling(&repo, "other");
    repo.git_in(&other, ["commit", "-q", "--allow-empty", "-m", "more"])
        .ok();
    repo.git_in(&other, ["push", "-q", "origin", "main"]).ok();
    repo.shim_env(["fetch", "-q"], C2).ok();
    repo.shim_env(["merge", "-q", "--no-edit", "origin/main"], C2)
        .ok()
        .stderr_has("switched to 'agent/c2'");
    assert_eq!(repo.branch(), "agent/c2");
    assert_eq!(repo.rev("main"), mine);
}

/// A `pull` on a `main` with commits of its own would merge (or rebase) there, which
/// the hook refuses only after git has written the merge into the index
/// and files: run fast-forward only, git refuses it first, nothing changed.
#[test]
fn a_pull_that_would_merge_on_main_changes_nothing() {
    let (repo, _) = setup();
    repo.git(["checkout", "-q", "main"]).ok();
    upstream_moves(&repo);
    repo.write("mine.txt", "a person's work\n");
    repo.commit("a person's commit on main");
    let before = repo.rev("main");
    let run = repo.shim_env(["pull", "--no-rebase"], &[("WARD_CONTRACT", "c1")]);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    run.stderr_has("a pull only fast-forwards (pull.ff=only)")
        .stderr_has("`git pull --no-rebase origin main`");
    assert_eq!(repo.rev("main"), before);
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    assert!(!repo.dir.join(".git/MERGE_HEAD").exists());
    // Nor does a rebasing one start a rebase there.
    let run = repo.shim_env(["pull", "--rebase"], &[("WARD_CONTRACT", "c1")]);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(repo.rev("main"), before);
    assert!(!repo.dir.join(".git/rebase-merge").exists());
    assert!(!repo.dir.join(".git/rebase-apply").exists());
}
