//! The policy layers, `policy show --origin`, `policy check`,
//! and the audit log's query command.

use crate::common::TestRepo;

fn explain(repo: &TestRepo, env: &[(&str, &str)]) -> serde_json::Value {
    let out = repo
        .ward_env(["explain", "--json", "--", "commit", "-m", "x"], env)
        .ok();
    serde_json::from_str(out.stdout.trim()).unwrap()
}

/// `policy show --json` where a layer is bad: EN-GIT-E-001, whose value is returned.
fn invalid_policy(repo: &TestRepo) -> serde_json::Value {
    let (_, v) = repo.ward_json(["policy", "show", "--json"], &[]);
    assert_eq!(v["code"], "EN-GIT-E-001", "{v}");
    v
}

/// An agent's commit through the shim while a layer is bad: refused
/// (exit 1) with `says` on stderr, and the branch does not move.
fn agent_commit_refused(repo: &TestRepo, says: &str) {
    let before = repo.rev("HEAD");
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .code(1)
    .stderr_has(says);
    assert_eq!(repo.rev("HEAD"), before);
}

#[test]
fn every_layer_overrides_the_one_below_and_show_origin_says_which() {
    let repo = TestRepo::new();
    let system = repo.path("system-policy.toml");
    std::fs::write(
        &system,
        "[branches]\nagent_prefix = \"sys/\"\n[checkpoint]\nkeep = 7\n",
    )
    .unwrap();
    let user_dir = repo.home.join(".config/git-ward");
    std::fs::create_dir_all(&user_dir).unwrap();
    std::fs::write(
        user_dir.join("policy.toml"),
        "[branches]\nagent_prefix = \"user/\"\n",
    )
    .unwrap();
    let sys = system.to_str().unwrap().to_string();
    let env = [
        ("WARD_SYSTEM_POLICY", sys.as_str()),
        ("WARD_CONTRACT", "c1"),
    ];

    assert_eq!(
        explain(&repo, &env)["switch_to"],
        "user/c1",
        "user overrides system"
    );
    repo.local_policy("[branches]\nagent_prefix = \"local/\"\n");
    assert_eq!(
        explain(&repo, &env)["switch_to"],
        "local/c1",
        "local overrides user"
    );

    // A person's view: for an agent, `WARD_SYSTEM_POLICY` is inert.
    let shown = repo
        .ward_env(["policy", "show", "--origin"], &env[..1])
        .ok()
        .stdout;
    let line = |key: &str| {
        shown
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .unwrap_or("")
            .to_string()
    };
    assert!(
        line("branches.agent_prefix").contains("\"local/\""),
        "{shown}"
    );
    assert!(
        line("branches.agent_prefix").contains("# local ("),
        "{shown}"
    );
    assert!(line("checkpoint.keep").contains("# system ("), "{shown}");
    assert!(line("branches.protected").contains("# built-in"), "{shown}");
}

#[test]
fn the_team_layer_is_read_from_the_committed_protected_branch_only() {
    let repo = TestRepo::new();
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"team/\"\n",
    );
    repo.commit("team policy");
    let env = [("WARD_CONTRACT", "c1")];
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1");
    let origin = repo.ward(["policy", "show", "--origin"]).ok().stdout;
    assert!(
        origin.contains("# team (.ward/policy.toml on main)"),
        "{origin}"
    );

    // An agent's uncommitted edit changes nothing...
    repo.write(
        ".ward/policy.toml",
        "[capabilities]\nensure_working_branch = true\n[branches]\nprotected = []\n",
    );
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1");
    // ...nor does one committed on its own branch.
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.commit("loosen the policy");
    repo.git(["switch", "-q", "main"]).ok();
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1");
    // `policy check` validates the working copy.
    repo.write(".ward/policy.toml", "[branches]\nprotected = \"main\"\n");
    repo.ward(["policy", "check"])
        .code(3)
        .stderr_has("[EN-GIT-E-001]")
        .stderr_has(".ward/policy.toml:2:");
}

#[test]
fn the_team_layer_follows_the_branch_as_it_moves() {
    let repo = TestRepo::new();
    let env = [("WARD_CONTRACT", "c1")];
    assert_eq!(explain(&repo, &env)["switch_to"], "agent/c1");
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"team/\"\n",
    );
    repo.commit("team policy");
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1");
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1", "remembered");
    assert!(repo.dir.join(".git/ward/team-policy.cache").exists());
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"crew/\"\n",
    );
    repo.commit("another prefix");
    assert_eq!(explain(&repo, &env)["switch_to"], "crew/c1");
    repo.git(["rm", "-q", ".ward/policy.toml"]).ok();
    repo.commit("no team policy");
    assert_eq!(explain(&repo, &env)["switch_to"], "agent/c1");
    // Back to a commit that had one (the same id as before): its text.
    repo.git(["reset", "-q", "--hard", "HEAD~1"]).ok();
    assert_eq!(explain(&repo, &env)["switch_to"], "crew/c1");
}

#[test]
fn the_team_layer_is_found_whatever_the_number_of_packs() {
    let repo = TestRepo::new();
    let env = [("WARD_CONTRACT", "c1")];
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"team/\"\n",
    );
    repo.commit("team policy");
    repo.git(["repack", "-adq"]).ok();
    // Newer packs, one object each, as fetches leave them.
    for i in 0..8 {
        let id = repo
            .git_stdin(["hash-object", "-w", "--stdin"], &format!("blob {i}\n"))
            .ok()
            .stdout;
        repo.git_stdin(["pack-objects", "-q", ".git/objects/pack/pack"], &id)
            .ok();
    }
    assert_eq!(explain(&repo, &env)["switch_to"], "team/c1");
}

#[test]
fn a_team_layer_that_cannot_be_read_refuses_instead_of_being_skipped() {
    let repo = TestRepo::new();
    repo.write(
        ".ward/policy.toml",
        "[branches]\nagent_prefix = \"team/\"\n",
    );
    repo.commit("team policy");
    // main's commit is gone from the object store (a broken clone, say).
    repo.lose_object("refs/heads/main");
    let (_, v) = repo.ward_json(
        ["explain", "--json", "--", "commit", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    );
    assert_eq!(v["verdict"], "deny", "{v}");
    assert!(
        v["policy_error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot read the team policy")),
        "{v}"
    );
}

/// A broken team policy on `main` stops every change, its own fix
/// included: the error names the committed file, `policy check` reads it
/// by that name, and the hint's way out gets the one fixing commit through.
#[test]
fn a_broken_team_policy_says_how_to_check_it_and_how_to_commit_its_fix() {
    let repo = TestRepo::new();
    repo.write(".ward/policy.toml", "[push]\nforce_allowed = 3\n");
    repo.commit("team policy");
    repo.ward(["install"]).ok();
    repo.git(["commit", "--allow-empty", "-q", "-m", "x"])
        .code(1)
        .stderr_has("EN-GIT-E-001")
        .stderr_has("`git ward policy check main:.ward/policy.toml`")
        .stderr_has("git -c core.hooksPath=/dev/null commit");
    repo.ward(["policy", "check", "main:.ward/policy.toml"])
        .code(3)
        .stderr_has("main:.ward/policy.toml:2:17: key `force_allowed`");
    repo.ward(["policy", "check", "main:no/such.toml"])
        .code(2)
        .stderr_has("cannot read main:no/such.toml");
    // The way out the hint gives.
    repo.write(
        ".ward/policy.toml",
        "[push]\nforce_allowed = [\"agent/*\"]\n",
    );
    repo.git(["add", "-A"]).ok();
    repo.git([
        "-c",
        "core.hooksPath=/dev/null",
        "commit",
        "-q",
        "-m",
        "fix",
    ])
    .ok();
    repo.ward(["policy", "check", "main:.ward/policy.toml"])
        .ok()
        .stdout_has("valid");
    repo.git(["commit", "--allow-empty", "-q", "-m", "after"])
        .ok();
}

#[test]
fn ward_policy_is_honoured_for_humans_only() {
    let repo = TestRepo::new();
    let file = repo.path("mine.toml");
    std::fs::write(
        &file,
        "[enforce]\nactors = \"everyone\"\n[capabilities]\nensure_working_branch = false\n",
    )
    .unwrap();
    let f = file.to_str().unwrap().to_string();
    // A human: the file applies, so the rules bind and the capability is off.
    let human = explain(&repo, &[("WARD_POLICY", f.as_str())]);
    assert_eq!(human["code"], "EN-GIT-D-001", "{human}");
    // An agent: the file is ignored (no capability change: D-003, not D-001).
    let agent = explain(&repo, &[("WARD_POLICY", f.as_str()), ("WARD_AGENT", "1")]);
    assert_eq!(agent["code"], "EN-GIT-D-003", "{agent}");
}

#[test]
fn policy_check_reports_file_line_column_and_key() {
    let repo = TestRepo::new();
    let good = repo.path("good.toml");
    std::fs::write(&good, "[push]\nforce_allowed = [\"agent/*\", \"wip/*\"]\n").unwrap();
    repo.ward(["policy", "check", good.to_str().unwrap()])
        .ok()
        .stdout_has("valid");
    let bad = repo.path("bad.toml");
    std::fs::write(
        &bad,
        "[push]\nforce_allowed = [\"agent/*\"]\nforce_everything = true\n",
    )
    .unwrap();
    // An invalid policy is EN-GIT-E-001, status E, exit 3;
    // a file that cannot be read is an invalid argument (exit 2).
    let out = repo
        .ward(["policy", "check", bad.to_str().unwrap()])
        .code(3);
    assert!(out.stderr.contains("bad.toml:3:1"), "{}", out.stderr);
    assert!(out.stderr.contains("force_everything"), "{}", out.stderr);
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    let json = repo
        .ward(["policy", "check", "--json", bad.to_str().unwrap()])
        .code(3);
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["status"], "E");
    assert_eq!(v["code"], "EN-GIT-E-001");
    let missing = repo.path("missing.toml");
    let json = repo
        .ward(["policy", "check", "--json", missing.to_str().unwrap()])
        .code(2);
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["status"], "I");
    // A value its type accepts but the policy does not: at the value too.
    std::fs::write(&bad, "[turns]\ntest_timeout = \"5x\"\n").unwrap();
    repo.ward(["policy", "check", bad.to_str().unwrap()])
        .code(3)
        .stderr_has("bad.toml:2:16: key `turns.test_timeout`: '5x' is not a duration")
        .stderr_has("hint: fix `turns.test_timeout` in");
}

#[test]
fn audit_filters_by_contract_decision_and_time() {
    let repo = TestRepo::new();
    repo.shim_env(["commit", "--allow-empty", "-m", "x"], &[])
        .code(1);
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok();
    repo.shim_env(["status"], &[("WARD_CONTRACT", "c2")]).ok();
    let lines = |args: &[&str]| repo.audit_records(args);
    let c1 = lines(&["--contract", "c1"]);
    assert!(!c1.is_empty() && c1.iter().all(|l| l["contract_id"] == "c1"));
    assert!(c1.iter().any(|l| l["decision"] == "autoswitch"));
    let denied = lines(&["--decision", "deny"]);
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["denial_code"], "EN-GIT-D-003");
    assert_eq!(lines(&["--since", "1h"]).len(), lines(&[]).len());
    repo.ward(["audit", "--since", "soon"])
        .code(2)
        .stderr_has("hint:");
    let table = repo.ward(["audit", "--contract", "c2"]).ok().stdout;
    assert!(
        table.contains("git.status") || table.contains("status"),
        "{table}"
    );
}

/// The tool's own lines name the actor its environment says, as
/// the shim's and the hooks' do: a person running `git ward` is a human.
#[test]
fn the_tools_audit_lines_name_the_actor_its_environment_says() {
    let repo = TestRepo::new();
    let last = || -> serde_json::Value { repo.audit_records(&[]).pop().unwrap() };
    for (env, actor) in [
        (&[][..], "human"),
        (&[("WARD_AGENT", "0")][..], "human"),
        (&[("WARD_AGENT", "1")][..], "agent"),
        (&[("WARD_CONTRACT", "c1")][..], "agent"),
        (&[("CLAUDECODE", "1")][..], "agent"),
    ] {
        repo.ward_env(["checkpoint", "-m", "x"], env).ok();
        let line = last();
        assert_eq!(line["operation"], "ward.checkpoint", "{line}");
        assert_eq!(line["source"], "tool", "{line}");
        assert_eq!(line["actor"], actor, "{env:?}: {line}");
    }
    repo.ward(["contract", "start", "c2"]).ok();
    assert_eq!(last()["operation"], "ward.contract.start");
    assert_eq!(last()["actor"], "human");
    repo.ward_env(["contract", "end"], &[("CLAUDECODE", "1")])
        .ok();
    assert_eq!(last()["operation"], "ward.contract.end");
    assert_eq!(last()["actor"], "agent");
}

#[test]
fn a_team_policy_committed_as_a_directory_or_symlink_is_an_error_not_skipped() {
    for kind in ["directory", "symlink"] {
        let repo = TestRepo::new();
        let target = repo.dir.join(".ward/policy.toml");
        std::fs::create_dir_all(repo.dir.join(".ward")).unwrap();
        if kind == "directory" {
            std::fs::create_dir_all(&target).unwrap();
            std::fs::write(target.join("x"), "[branches]\n").unwrap();
        } else {
            std::fs::write(repo.dir.join("real.toml"), "[branches]\nprotected = []\n").unwrap();
            std::os::unix::fs::symlink("../real.toml", &target).unwrap();
        }
        repo.git(["add", "-A"]).ok();
        repo.git(["commit", "-q", "-m", "team policy"]).ok();
        // A policy that cannot be read: EN-GIT-E-001, status E, exit 3.
        let what = if kind == "directory" {
            "a directory"
        } else {
            "a symbolic link"
        };
        invalid_policy(&repo);
        repo.ward(["policy", "show"]).code(3).stderr_has(&format!(
            ".ward/policy.toml committed on 'main' is not a file but {what}"
        ));
        // Checked by its committed name, it is said to be no file (the
        // link's target path is not read as TOML).
        repo.ward(["policy", "check", "main:.ward/policy.toml"])
            .code(2)
            .stderr_has(&format!("not a file but {what}"));
        // An agent's commit on main is refused, not let through.
        agent_commit_refused(&repo, "is not a file");
    }
}

/// A team whose branch is `trunk` commits its policy there: the layer is
/// read only from a branch the layers below protect, so `policy check` and
/// `doctor` say it is not read, and how to fix it; once the user layer
/// protects `trunk`, it is read and they say nothing.
#[test]
fn a_team_policy_on_a_branch_nothing_protects_is_reported_unread() {
    let repo = TestRepo::new();
    repo.git(["branch", "-q", "-m", "trunk"]).ok();
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"trunk\"]\nagent_prefix = \"team/\"\n",
    );
    repo.commit("team policy");
    repo.ward(["policy", "check"])
        .ok()
        .stdout_has("valid")
        .stdout_has("warning: .ward/policy.toml is not read")
        .stdout_has("('main', 'master')")
        .stdout_has("hint: commit it to one of them, or protect your main branch");
    repo.ward(["doctor"])
        .stdout_has("team policy")
        .stdout_has("none exists here");
    let json = repo.ward(["policy", "check", "--json"]).ok().stdout;
    assert!(
        json.contains("\"warning\":\".ward/policy.toml is not read"),
        "{json}"
    );

    let user = repo.home.join(".config/git-ward/policy.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "[branches]\nprotected = [\"trunk\"]\n").unwrap();
    let check = repo.ward(["policy", "check"]).ok().stdout;
    assert!(!check.contains("warning"), "{check}");
    let doctor = repo.ward(["doctor"]).stdout;
    assert!(!doctor.contains("team policy"), "{doctor}");
    assert_eq!(
        explain(&repo, &[("WARD_CONTRACT", "c1")])["switch_to"],
        "team/c1"
    );

    // A protected branch that exists but does not carry the file.
    std::fs::remove_file(&user).unwrap();
    repo.git(["branch", "-q", "main", "HEAD~"]).ok();
    repo.ward(["policy", "check"])
        .ok()
        .stdout_has("from the committed tree of 'main', which has no such file")
        .stdout_has("hint: commit it to 'main'");
}

/// Patterns match short names: one written as a full ref name would
/// protect nothing, so it is refused where it is written, and an agent's
/// commit on main is refused while it stands.
#[test]
fn a_pattern_written_as_a_full_ref_name_is_refused() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.local_policy("[branches]\nprotected = [\"refs/heads/main\", \"refs/tags/*\"]\n");
    let local = repo.dir.join(".git/ward/policy.toml");
    repo.ward(["policy", "check", local.to_str().unwrap()])
        .code(3)
        .stderr_has("EN-GIT-E-001")
        .stderr_has(
            "policy.toml:2:14: key `branches.protected`: 'refs/heads/main' is a full ref name",
        )
        .stderr_has("(write 'main')");
    let main = repo.rev("main");
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_AGENT", "1")],
    )
    .code(1)
    .stderr_has("EN-GIT-E-001");
    assert_eq!(repo.rev("main"), main);
}

/// The same bytes that are not UTF-8 are an invalid policy in every layer
/// and in `policy check`, at the line and column of the first of them.
#[test]
fn a_policy_that_is_not_utf8_is_invalid_in_every_layer_at_its_first_bad_byte() {
    let bytes: &[u8] = b"[branches]\nprotected = [\"main\", \"dev\xe9\"]\n";
    let at = "policy.toml:2:26: key `protected`: not UTF-8 text (byte 0xe9)";
    let refused = |repo: &TestRepo, source: &str| {
        let v = invalid_policy(repo);
        let message = v["message"].as_str().unwrap_or_default();
        assert!(message.contains(&format!("{source}{at}")), "{v}");
    };
    // The team layer, committed on main; its working copy; checked by name.
    let repo = TestRepo::new();
    std::fs::create_dir_all(repo.dir.join(".ward")).unwrap();
    std::fs::write(repo.dir.join(".ward/policy.toml"), bytes).unwrap();
    repo.git(["add", "-A"]).ok();
    repo.git(["commit", "-q", "-m", "team policy"]).ok();
    refused(&repo, "main:.ward/");
    // Twice: the second read comes from the team layer's cache.
    refused(&repo, "main:.ward/");
    repo.ward(["policy", "check"])
        .code(3)
        .stderr_has("EN-GIT-E-001")
        .stderr_has(at);
    repo.ward(["policy", "check", "main:.ward/policy.toml"])
        .code(3)
        .stderr_has(&format!("main:.ward/{at}"));
    agent_commit_refused(&repo, "EN-GIT-E-001");
    // The local and user layers.
    let repo = TestRepo::new();
    let local = repo.dir.join(".git/ward/policy.toml");
    std::fs::create_dir_all(local.parent().unwrap()).unwrap();
    std::fs::write(&local, bytes).unwrap();
    refused(&repo, ".git/ward/");
    std::fs::remove_file(&local).unwrap();
    let user = repo.home.join(".config/git-ward/policy.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, bytes).unwrap();
    refused(&repo, "git-ward/");
}
