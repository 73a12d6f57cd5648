//! What a `push` with no refspec sends, as git's config says: every road
//! to a mirror push, matching, configured refspecs and `push.default`.

use super::*;

/// Classifies `line` with these config files' values (keys as normalized).
fn with(config: &[(&str, &str)], line: &str) -> Action {
    let values = |key: &str| {
        config
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
            .collect()
    };
    let args: Vec<OsString> = split_cmdline(line)
        .expect("quotes balance")
        .into_iter()
        .map(OsString::from)
        .collect();
    classify_with(&args, &[], &values)
}

fn pushed(a: &Action) -> &Push {
    a.push.as_ref().expect("a push")
}

fn dests(a: &Action) -> Vec<(String, bool)> {
    pushed(a)
        .dests
        .iter()
        .map(|d| (d.dst.clone().unwrap_or_default(), d.force))
        .collect()
}

#[test]
fn a_mirror_remote_makes_every_push_to_it_a_mirror_push() {
    let mirror = [("remote.origin.mirror", "true")];
    for line in [
        "push",
        "push origin",
        "push origin agent/x",
        "push --repo=origin",
    ] {
        let a = with(&mirror, line);
        assert!(pushed(&a).mirror && pushed(&a).force, "{line}: {a:?}");
        assert_eq!(
            pushed(&a).configured_by.as_deref(),
            Some("remote.origin.mirror"),
            "{line}"
        );
    }
    // Another remote, or a mirror switched off, is no mirror.
    assert!(!pushed(&with(&mirror, "push upstream")).mirror);
    assert!(!pushed(&with(&[("remote.origin.mirror", "off")], "push")).mirror);
    // The last value wins, and a bare key (read as `true`) counts.
    assert!(
        pushed(&with(
            &[
                ("remote.origin.mirror", "false"),
                ("remote.origin.mirror", "yes")
            ],
            "push"
        ))
        .mirror
    );
}

#[test]
fn config_on_the_command_line_and_in_the_environment_counts() {
    let a = with(&[], "-c remote.origin.mirror push");
    assert!(pushed(&a).mirror, "{a:?}");
    let a = with(&[], "-c Remote.origin.Mirror=true push origin");
    assert!(pushed(&a).mirror, "{a:?}");
    let a = with(&[], "-c push.default=matching push");
    assert!(pushed(&a).all, "{a:?}");
    let env = vec![(s("remote.origin.mirror"), s("1"))];
    let a = classify_with(&[OsString::from("push")], &env, &|_| Vec::new());
    assert!(pushed(&a).mirror, "{a:?}");
}

#[test]
fn the_push_remote_is_found_as_git_finds_it() {
    let mirror_up = ("remote.up.mirror", "true");
    for config in [
        vec![mirror_up, ("branch.main.pushremote", "up")],
        vec![mirror_up, ("remote.pushdefault", "up")],
        vec![mirror_up, ("branch.main.remote", "up")],
    ] {
        assert!(pushed(&with(&config, "push")).mirror, "{config:?}");
    }
    // pushRemote wins over the branch's remote.
    let config = [
        mirror_up,
        ("branch.main.remote", "up"),
        ("branch.main.pushremote", "origin"),
    ];
    assert!(!pushed(&with(&config, "push")).mirror);
}

#[test]
fn configured_refspecs_are_read_like_the_command_lines() {
    let a = with(&[("remote.origin.push", "HEAD:refs/heads/main")], "push");
    assert_eq!(dests(&a), [(s("refs/heads/main"), false)]);
    let a = with(
        &[("remote.origin.push", "+refs/heads/x:refs/heads/release/1")],
        "push origin",
    );
    assert_eq!(dests(&a), [(s("refs/heads/release/1"), true)]);
    let a = with(
        &[("remote.origin.push", "refs/heads/*:refs/heads/*")],
        "push",
    );
    assert!(pushed(&a).all);
    assert_eq!(
        pushed(&a).configured_by.as_deref(),
        Some("remote.origin.push")
    );
    let a = with(&[("remote.origin.push", "refs/tags/*:refs/tags/*")], "push");
    assert!(pushed(&a).tags);
    // Refspecs on the command line replace the configured ones.
    let a = with(
        &[("remote.origin.push", "HEAD:refs/heads/main")],
        "push origin feat",
    );
    assert_eq!(dests(&a), [(s("feat"), false)]);
}

#[test]
fn push_default_chooses_the_destination() {
    let upstream = [("branch.main.merge", "refs/heads/trunk")];
    let cases: &[(&str, Vec<(String, bool)>)] = &[
        ("simple", vec![(s("refs/heads/main"), false)]),
        ("current", vec![(s("refs/heads/main"), false)]),
        ("upstream", vec![(s("refs/heads/trunk"), false)]),
        ("tracking", vec![(s("refs/heads/trunk"), false)]),
        ("nothing", vec![]),
    ];
    for (mode, want) in cases {
        let mut config = upstream.to_vec();
        config.push(("push.default", mode));
        assert_eq!(&dests(&with(&config, "push")), want, "push.default={mode}");
    }
    let a = with(&[("push.default", "matching")], "push");
    assert!(pushed(&a).all);
    assert_eq!(
        pushed(&a).configured_by.as_deref(),
        Some("push.default=matching")
    );
    // No push.default: simple, the current branch to its own name.
    assert_eq!(
        dests(&with(&upstream, "push")),
        [(s("refs/heads/main"), false)]
    );
}

#[test]
fn a_matching_refspec_pushes_every_branch() {
    assert!(pushed(&run("push origin :")).all);
    let forced = run("push origin +:");
    assert!(pushed(&forced).all && pushed(&forced).force);
}

/// A fetch prunes by its options, else by its remote's config, else by
/// `fetch.prune` (the shim runs such a fetch as written, not atomic).
#[test]
fn a_fetch_prunes_by_option_or_by_config() {
    let prunes = |config: &[(&str, &str)], line: &str| with(config, line).fetch_prunes;
    assert!(!prunes(&[], "fetch origin"));
    assert!(prunes(&[], "fetch --prune origin"));
    assert!(prunes(&[], "fetch -p"));
    assert!(prunes(&[], "fetch -P origin"));
    let on = [("fetch.prune", "true")];
    for line in [
        "fetch",
        "fetch origin",
        "fetch -q origin main",
        "fetch /a/path",
    ] {
        assert!(prunes(&on, line), "{line}");
    }
    assert!(!prunes(&on, "fetch --no-prune origin"));
    assert!(prunes(&[("fetch.prunetags", "yes")], "fetch"));
    // The remote's own setting wins over fetch.prune, for that remote only.
    let remote = [("fetch.prune", "true"), ("remote.origin.prune", "false")];
    assert!(!prunes(&remote, "fetch origin"));
    assert!(prunes(&remote, "fetch upstream"));
    assert!(prunes(&[("remote.upstream.prune", "1")], "fetch upstream"));
    assert!(!prunes(&[("remote.upstream.prune", "1")], "fetch origin"));
    assert!(!prunes(&[("fetch.prune", "off")], "fetch"));
    // A pull's fetch is git's own concern.
    assert!(!prunes(&on, "pull"));
}
