use crate::common::TestRepo;

#[test]
fn explain_commit_on_main_without_contract_is_d003_with_hint() {
    let repo = TestRepo::new();
    repo.ward_env(
        ["explain", "--", "commit", "-m", "x"],
        &[("WARD_AGENT", "1")],
    )
    .ok()
    .stdout_has("EN-GIT-D-003")
    .stdout_has("hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry");
}

#[test]
fn explain_commit_on_main_with_contract_switches() {
    let repo = TestRepo::new();
    repo.ward_env(
        ["explain", "--", "commit", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok()
    .stdout_has("autoswitch")
    .stdout_has("agent/c1");
    let json = repo
        .ward_env(
            ["explain", "--json", "--", "commit", "-m", "x"],
            &[("WARD_CONTRACT", "c1")],
        )
        .ok();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["switch_to"], "agent/c1");
    assert_eq!(v["status"], "S");
    assert_eq!(repo.branch(), "main", "explain changes nothing");
}

#[test]
fn explain_as_human_allows() {
    let repo = TestRepo::new();
    let json = repo
        .ward(["explain", "--json", "--", "commit", "-m", "x"])
        .ok();
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["verdict"], "allow");
    assert_eq!(v["facts"]["actor"], "human");
}

/// A variable of `enforce.agent_env` marks an agent when it is set at
/// all; only `WARD_AGENT` reads `0` or empty as no.
#[test]
fn an_agent_env_variable_counts_whatever_its_value() {
    let repo = TestRepo::new();
    repo.local_policy("[enforce]\nagent_env = [\"WARD_AGENT\", \"CLAUDECODE\", \"MY_BOT\"]\n");
    for (env, actor) in [
        (&[("CLAUDECODE", "1")][..], "agent"),
        (&[("CLAUDECODE", "0")][..], "agent"),
        (&[("CLAUDECODE", "")][..], "agent"),
        (&[("MY_BOT", "0")][..], "agent"),
        (&[("WARD_AGENT", "0")][..], "human"),
        (&[("WARD_AGENT", "")][..], "human"),
        (&[("GEMINI_CLI", "1")][..], "human"),
    ] {
        let run = repo
            .ward_env(["explain", "--json", "--", "status"], env)
            .ok();
        let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert_eq!(v["facts"]["actor"], actor, "{env:?}");
    }
}

/// The built-in list holds variables agents set for their commands, not
/// settings people export in their own shells.
#[test]
fn a_persons_agent_tool_settings_do_not_make_an_agent() {
    let repo = TestRepo::new();
    for (env, actor) in [
        (&[("CODEX_HOME", "/home/p/.codex")][..], "human"),
        (&[("AIDER_MODEL", "sonnet")][..], "human"),
        (&[("CODEX_SANDBOX", "seatbelt")][..], "agent"),
    ] {
        let run = repo
            .ward_env(["explain", "--json", "--", "status"], env)
            .ok();
        let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert_eq!(v["facts"]["actor"], actor, "{env:?}");
    }
}

#[test]
fn explain_takes_the_command_line_with_or_without_git_in_front() {
    let repo = TestRepo::new();
    for args in [
        &[
            "explain", "--json", "--", "push", "--force", "origin", "main",
        ][..],
        &[
            "explain", "--json", "--", "git", "push", "--force", "origin", "main",
        ],
    ] {
        let run = repo.ward_env(args, &[("WARD_AGENT", "1")]).ok();
        let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert_eq!(v["operation"], "git.push", "{args:?}");
        assert_eq!(v["verdict"], "deny", "{args:?}");
    }
}

/// The rule explain gives says why, true to the branch:
/// on `main` a mutating command that makes no commit (an unknown one, git
/// decides nothing for it) is allowed because of what it does, not
/// because the branch is unprotected; elsewhere the branch is the reason.
#[test]
fn the_rule_names_the_branch_as_it_is() {
    let repo = TestRepo::new();
    let agent = [("WARD_AGENT", "1")];
    let rule = |repo: &TestRepo| -> String {
        let (run, v) = repo.ward_json(["explain", "--json", "--", "frobnicate"], &agent);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(v["verdict"], "allow", "{v}");
        v["rule"].as_str().unwrap().to_string()
    };
    let on_main = rule(&repo);
    assert!(on_main.contains("protected branch"), "{on_main}");
    assert!(!on_main.contains("unprotected"), "{on_main}");
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    assert_eq!(rule(&repo), "on an unprotected branch: stay");
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    assert_eq!(rule(&repo), "on an agent branch: stay (sticky)");
}

/// Unstaging is allowed (the rules' matrix has no rule for it); a staged
/// version only the index holds is checkpointed first, and the audit line
/// says `checkpoint` only when one was taken. A destructive command the
/// shim moves off `main` is switched, then checkpointed.
#[test]
fn unstaging_is_allowed_and_a_switched_destructive_command_checkpointed() {
    let repo = TestRepo::new();
    let agent = [("WARD_AGENT", "1"), ("WARD_CONTRACT", "c1")];
    let (_, v) = repo.ward_json(
        ["explain", "--json", "--", "restore", "--staged", "f"],
        &agent,
    );
    assert_eq!(v["decision"], "allow", "{v}");
    assert_eq!(v["checkpoint_if_staged"], true, "{v}");
    let (_, v) = repo.ward_json(["explain", "--json", "--", "rm", "-f", "f"], &agent);
    assert_eq!(v["decision"], "autoswitch", "{v}");
    assert_eq!(v["checkpoint"], true, "{v}");
    repo.ward_env(["explain", "--", "rm", "-f", "f"], &agent)
        .ok()
        .stdout_has("would switch to 'agent/c1', checkpoint (if anything is there to lose), then run the command");
    // Onto an agent branch that exists, the move itself is checkpointed.
    repo.git(["branch", "agent/c1"]).ok();
    let (_, v) = repo.ward_json(["explain", "--json", "--", "commit", "-m", "x"], &agent);
    assert_eq!(v["checkpoint_before_switch"], true, "{v}");
    repo.ward_env(["explain", "--", "commit", "-m", "x"], &agent)
        .ok()
        .stdout_has("would checkpoint, then switch to 'agent/c1', then run the command");
    repo.git(["branch", "-D", "agent/c1"]).ok();

    repo.write("f", "staged\n");
    repo.git(["add", "f"]).ok();
    repo.shim_env(["restore", "--staged", "f"], &agent).ok();
    repo.write("f", "staged\n");
    repo.git(["add", "f"]).ok();
    repo.write("f", "changed since\n");
    repo.shim_env(["restore", "--staged", "f"], &agent).ok();
    let decisions: Vec<String> = repo
        .ward(["audit", "--json"])
        .ok()
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["operation"] == "git.restore")
        .map(|v| v["decision"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(decisions, ["allow", "checkpoint"]);
}

/// git-ward's own steps are explained as the tool decides them, the real
/// run agreeing: `save` as a commit, the steps that switch guards off.
#[test]
fn explain_of_the_tools_own_steps_agrees_with_the_run() {
    let repo = TestRepo::new();
    let _ = repo.ward(["install"]);
    let agent = &[("WARD_AGENT", "1")];
    for (step, code) in [
        (&["save", "-m", "x"][..], "EN-GIT-D-003"),
        (&["uninstall"][..], "EN-GIT-D-004"),
        (&["install", "--link"][..], "EN-GIT-D-004"),
        (
            &["rollback", "chk-local-1", "--no-safety"][..],
            "EN-GIT-D-004",
        ),
    ] {
        let mut explain = vec!["explain", "--", "ward"];
        explain.extend(step);
        repo.ward_env(explain, agent).ok().stdout_has(code);
        repo.ward_env(step.to_vec(), agent).code(1).stderr_has(code);
    }
    repo.ward_env(
        ["explain", "--", "ward", "save", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok()
    .stdout_has("would switch to 'agent/c1'");
    repo.ward(["explain", "--", "ward", "uninstall"])
        .ok()
        .stdout_has("would run the command");
}

/// The effect shown is the one the policy's `commands` overrides leave,
/// as the tier is.
#[test]
fn the_effect_shown_is_the_one_the_policy_leaves() {
    let repo = TestRepo::new();
    repo.local_policy("[commands]\nread = [\"lfs\"]\nmutating = [\"log\"]\n");
    repo.ward(["explain", "--", "lfs", "pull"])
        .ok()
        .stdout_has("effect:     read (tier 0)");
    repo.ward(["explain", "--", "log"])
        .ok()
        .stdout_has("effect:     mutating (tier 1)");
}
