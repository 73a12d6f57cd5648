//! The policy: built-in values, patterns, layers and their origins.

use std::path::PathBuf;

use super::layers::built_in_settings;
use super::*;

#[test]
fn remote_tracking_refs_read_every_way_a_remote_name_allows() {
    fn readings(r: &str) -> Vec<(&str, &str)> {
        tracking_readings(r).collect()
    }
    assert_eq!(
        readings("refs/remotes/origin/main"),
        vec![("origin", "main")]
    );
    assert_eq!(
        readings("refs/remotes/origin/agent/main"),
        vec![("origin", "agent/main"), ("origin/agent", "main")]
    );
    assert!(readings("refs/remotes/origin").is_empty());
    assert!(readings("refs/remotes//main").is_empty());
    assert!(readings("refs/heads/main").is_empty());
}

#[test]
fn the_embedded_policy_passes_every_layer_check() {
    parse_layer(BUILT_IN, "policy.toml").unwrap();
}

#[test]
fn the_built_in_values_are_the_embedded_files() {
    let parsed: Settings = toml::from_str(BUILT_IN).unwrap();
    assert_eq!(built_in_settings(), parsed);
}

#[test]
fn built_in_policy_has_the_spec_defaults() {
    let p = Policy::built_in();
    let s = &p.settings;
    assert_eq!(s.enforce.actors, Actors::Agents);
    assert!(s.enforce.agent_env.iter().any(|v| v == "CLAUDECODE"));
    assert!(s.enforce.agent_env.iter().any(|v| v == "WARD_AGENT"));
    assert!(!s.enforce.allow_no_verify);
    assert_eq!(
        s.branches.protected,
        ["main", "master", "release/*", "tags/*"]
    );
    assert_eq!(s.branches.agent_prefix, "agent/");
    assert!(s.branches.sync_from_upstream);
    assert_eq!(s.capabilities.ensure_working_branch, Capability::All(true));
    assert!(s.checkout.local_only);
    assert_eq!(s.push.force_allowed, ["agent/*"]);
    assert_eq!(s.commit.footer, "Contract: {contract}");
    assert!(s.checkpoint.before_destructive);
    assert_eq!(parse_size(&s.checkpoint.max_file_size), Some(16 << 20));
    assert_eq!(s.checkpoint.keep, 200);
    assert_eq!(s.turns.pollution_threshold, 2);
    assert_eq!(
        parse_duration(&s.turns.test_timeout),
        Some(std::time::Duration::from_secs(1800))
    );
    assert!(s.audit.reads);
    assert_eq!(s.timeouts.git_seconds, 10);
    assert_eq!(
        s.server.agent_commits_to_protected,
        ServerAgentCommits::ViaMerge
    );
    assert_eq!(s.init.user_name, "agent");
    assert_eq!(s.mcp.max_output_bytes, 65536);
    assert!(p.origins().values().all(|o| *o == Layer::BuiltIn));
    assert!(p.origins().contains_key("branches.protected"));
}

#[test]
fn protected_patterns_match_short_names_and_star_crosses_slash() {
    let p = Policy::built_in();
    for yes in [
        "refs/heads/main",
        "main",
        "refs/heads/master",
        "refs/heads/release/1",
        "refs/heads/release/1/x",
        "refs/tags/v1.0",
    ] {
        assert!(p.is_protected(yes), "{yes}");
    }
    for no in [
        "refs/heads/feat",
        "refs/heads/agent/c1",
        "refs/remotes/origin/main",
        "refs/ward/checkpoints/x",
        "mainly",
        "refs/heads/xmain",
        "",
    ] {
        assert!(!p.is_protected(no), "{no}");
    }
    assert!(p.force_allowed("refs/heads/agent/x"));
    assert!(!p.force_allowed("refs/heads/main"));
}

#[test]
fn layers_override_keys_and_remember_origin() {
    let base = Policy::built_in();
    let p = base
        .clone()
        .with_layer(
            "[branches]\nprotected = [\"trunk\"]\n",
            Layer::Local(PathBuf::from("/r/.git/ward/policy.toml")),
        )
        .unwrap();
    assert!(p.is_protected("refs/heads/trunk"));
    assert!(!p.is_protected("refs/heads/main"));
    assert_eq!(
        p.settings.branches.agent_prefix, "agent/",
        "untouched keys keep their value"
    );
    assert!(matches!(p.origin("branches.protected"), Layer::Local(_)));
    assert_eq!(p.origin("branches.agent_prefix"), Layer::BuiltIn);
}

#[test]
fn a_layer_path_is_no_layer_only_when_nothing_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.toml");
    let layer = || Layer::User(path.clone());
    let mut p = Policy::built_in();
    p.add_file(&path, layer()).unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone.toml"), &path).unwrap();
    let err = p.add_file(&path, layer()).unwrap_err();
    assert!(
        err.message.contains("gone.toml, which does not exist"),
        "{err}"
    );
    assert!(err.hint.is_some());
}

#[test]
fn capability_can_be_granted_to_contract_globs() {
    let p = Policy::built_in()
        .with_layer(
            "[capabilities]\nensure_working_branch = [\"team-*\"]\n",
            Layer::BuiltIn,
        )
        .unwrap();
    assert_eq!(p.capability(Some("team-1")), CapabilityFor::On);
    assert_eq!(p.capability(Some("other")), CapabilityFor::OtherContracts);
    assert_eq!(p.capability(None), CapabilityFor::OtherContracts);
    let off = Policy::built_in()
        .with_layer(
            "[capabilities]\nensure_working_branch = false\n",
            Layer::BuiltIn,
        )
        .unwrap();
    assert_eq!(off.capability(Some("x")), CapabilityFor::Off);
}
