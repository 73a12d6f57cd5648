//! Config the environment carries for one command:
//! it reaches the real git that runs the command, never git-ward's own
//! calls, so a checkpoint holds the bytes on disk and undo writes them back.

use crate::common::TestRepo;

const C1: (&str, &str) = ("WARD_CONTRACT", "c1");

/// An agent's repository on `agent/c1`, hooks installed, with an
/// untracked file and a changed tracked one, and a file holding `*`.
fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    let _ = repo.ward(["install"]);
    std::fs::write(repo.path("everything"), "*\n").unwrap();
    std::fs::write(repo.path("attributes"), "* filter=x\n").unwrap();
    repo.write("notes/work.txt", "an hour of work\n");
    repo
}

/// The ways the environment sets `key` to `value` for one command.
fn env_routes(repo: &TestRepo, key: &str, value: &str) -> Vec<Vec<(String, String)>> {
    let global = repo.path(&format!("global-{}", key.replace('.', "-")));
    std::fs::write(
        &global,
        format!("[{}]\n\t{} = {value}\n", section(key), name(key)),
    )
    .unwrap();
    // An agent's own home, whose `.gitconfig` says the same.
    let home = repo.path(&format!("home-{}", key.replace('.', "-")));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::copy(&global, home.join(".gitconfig")).unwrap();
    vec![
        vec![("GIT_CONFIG_PARAMETERS".into(), format!("'{key}'='{value}'"))],
        vec![
            ("GIT_CONFIG_COUNT".into(), "1".into()),
            ("GIT_CONFIG_KEY_0".into(), key.into()),
            ("GIT_CONFIG_VALUE_0".into(), value.into()),
        ],
        vec![("GIT_CONFIG_GLOBAL".into(), global.to_str().unwrap().into())],
        vec![("HOME".into(), home.to_str().unwrap().into())],
    ]
}

fn section(key: &str) -> String {
    let (section, _) = key.rsplit_once('.').unwrap();
    match section.split_once('.') {
        Some((s, sub)) => format!("{s} \"{sub}\""),
        None => section.to_string(),
    }
}

fn name(key: &str) -> &str {
    key.rsplit_once('.').unwrap().1
}

fn as_refs(env: &[(String, String)]) -> Vec<(&str, &str)> {
    env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[test]
fn clean_fdx_with_everything_ignored_by_the_environment_is_undoable() {
    for n in 0..4 {
        let repo = agent_repo();
        let everything = repo.path("everything");
        let route =
            env_routes(&repo, "core.excludesFile", everything.to_str().unwrap()).swap_remove(n);
        let mut env = as_refs(&route);
        env.push(C1);
        repo.shim_env(["clean", "-fdxq"], &env).ok();
        assert_eq!(repo.read("notes/work.txt"), None, "{route:?}");
        repo.ward(["undo", "--yes"]).ok();
        assert_eq!(
            repo.read("notes/work.txt").as_deref(),
            Some("an hour of work\n"),
            "{route:?}"
        );
    }
}

#[test]
fn reset_hard_with_a_clean_filter_from_the_environment_is_undone_byte_for_byte() {
    let repo = agent_repo();
    let attributes = repo.path("attributes");
    let params = format!(
        "'filter.x.clean'='true' 'core.attributesFile'='{}'",
        attributes.display()
    );
    repo.write("README", "changed by hand\n");
    repo.shim_env(
        ["reset", "-q", "--hard"],
        &[("GIT_CONFIG_PARAMETERS", params.as_str()), C1],
    )
    .ok();
    assert_eq!(repo.read("README").as_deref(), Some("hello\n"));
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.read("README").as_deref(), Some("changed by hand\n"));
    assert_eq!(
        repo.read("notes/work.txt").as_deref(),
        Some("an hour of work\n")
    );
}

/// `other` tracks `x.txt`; here it is an untracked file of the agent's.
fn untracked_in_the_way() -> TestRepo {
    let repo = agent_repo();
    repo.git(["checkout", "-qb", "other"]).ok();
    repo.write("x.txt", "theirs\n").commit("x");
    repo.git(["checkout", "-q", "agent/c1"]).ok();
    repo.write("x.txt", "mine, never committed\n");
    repo
}

/// `x.txt` is `other`'s now; undo brings the agent's back.
fn overwritten_then_undone(repo: &TestRepo) {
    assert_eq!(repo.read("x.txt").as_deref(), Some("theirs\n"));
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(
        repo.read("x.txt").as_deref(),
        Some("mine, never committed\n")
    );
}

#[test]
fn checkout_that_config_lets_overwrite_an_untracked_file_is_undoable() {
    let repo = untracked_in_the_way();
    let ignore_all = format!("core.excludesFile={}", repo.path("everything").display());
    // Without the setting git refuses: nothing is overwritten.
    repo.shim_env(["checkout", "-q", "other"], &[C1]).code(1);
    repo.shim_env(["-c", &ignore_all, "checkout", "-q", "other"], &[C1])
        .ok();
    overwritten_then_undone(&repo);
}

#[test]
fn merge_that_config_lets_overwrite_an_untracked_file_is_undoable() {
    let repo = untracked_in_the_way();
    let params = format!(
        "'core.excludesFile'='{}'",
        repo.path("everything").display()
    );
    repo.shim_env(
        ["merge", "-q", "--no-edit", "other"],
        &[C1, ("GIT_CONFIG_PARAMETERS", params.as_str())],
    )
    .ok();
    overwritten_then_undone(&repo);
}

#[test]
fn checkout_that_a_config_file_lets_overwrite_an_untracked_file_is_undoable() {
    for route in ["GIT_CONFIG_GLOBAL", "HOME"] {
        let repo = untracked_in_the_way();
        let text = format!(
            "[core]\n\texcludesFile = {}\n",
            repo.path("everything").display()
        );
        let home = repo.path("agent-home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".gitconfig"), text).unwrap();
        let value = match route {
            "HOME" => home.display().to_string(),
            _ => home.join(".gitconfig").display().to_string(),
        };
        repo.shim_env(["checkout", "-q", "other"], &[C1, (route, value.as_str())])
            .ok();
        assert_eq!(repo.read("x.txt").as_deref(), Some("theirs\n"), "{route}");
        repo.ward(["undo", "--yes"]).ok();
        assert_eq!(
            repo.read("x.txt").as_deref(),
            Some("mine, never committed\n"),
            "{route}"
        );
    }
}

#[test]
fn checkout_over_a_file_the_working_trees_ignore_rules_hide_is_undoable() {
    // The repository's own rules, as the working tree has them now: an
    // `info/exclude` and a `.gitignore` no commit holds yet.
    for (file, rule) in [(".git/info/exclude", "*\n"), (".gitignore", "x.txt\n")] {
        let repo = untracked_in_the_way();
        std::fs::write(repo.dir.join(file), rule).unwrap();
        repo.shim_env(["checkout", "-q", "other"], &[C1]).ok();
        overwritten_then_undone(&repo);
    }
    // Nothing ignored in the way: no checkpoint.
    let repo = untracked_in_the_way();
    std::fs::remove_file(repo.dir.join("x.txt")).unwrap();
    repo.shim_env(["checkout", "-q", "other"], &[C1]).ok();
    assert_eq!(repo.checkpoint_count(), 0);
}
