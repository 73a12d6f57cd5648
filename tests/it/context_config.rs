//! Config the environment carries for one command (SPEC section 10):
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
    vec![
        vec![("GIT_CONFIG_PARAMETERS".into(), format!("'{key}'='{value}'"))],
        vec![
            ("GIT_CONFIG_COUNT".into(), "1".into()),
            ("GIT_CONFIG_KEY_0".into(), key.into()),
            ("GIT_CONFIG_VALUE_0".into(), value.into()),
        ],
        vec![("GIT_CONFIG_GLOBAL".into(), global.to_str().unwrap().into())],
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
    for n in 0..3 {
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
