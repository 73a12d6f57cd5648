//! The git command-line classifier, through the shim's entry:
//! `parse_globals`, then `classify` with a `Context`. The input is argv,
//! its words split at NUL bytes, any byte allowed in a word.
//!
//! Beyond not panicking: classifying is deterministic (a pure function of
//! argv and the context) and its `Action` serializes (the audit line).
#![no_main]

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;

use git_ward::classify::{classify, parse_globals, Context};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args: Vec<OsString> = data
        .split(|b| *b == 0)
        .map(|w| OsString::from_vec(w.to_vec()))
        .collect();
    let aliases: HashMap<String, String> = [
        ("co", "checkout"),
        ("nuke", "reset --hard"),
        ("nv", "-c core.hooksPath=/dev/null commit"),
        ("loop", "loop"),
        ("sh", "!git reset --hard"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let env_config = vec![("alias.st".to_string(), "status".to_string())];
    let remotes = vec!["origin".to_string(), "upstream".to_string()];
    let is_local_branch = |name: &str| matches!(name, "main" | "feature" | "agent/x");
    let is_revision = |name: &str| {
        let hex = name.len() >= 7 && name.chars().all(|c| c.is_ascii_hexdigit());
        hex || name.starts_with("v1") || name == "HEAD"
    };
    let config = |key: &str| match key {
        "push.default" => vec!["simple".to_string()],
        "branch.main.merge" => vec!["refs/heads/main".to_string()],
        "branch.main.remote" | "remote.pushdefault" => vec!["origin".to_string()],
        _ => Vec::new(),
    };
    let is_own_exec_path = |dir: &OsStr| dir == OsStr::new("/usr/lib/git-core");
    let ctx = Context {
        aliases: &aliases,
        env_config: &env_config,
        remotes: &remotes,
        current_branch: Some("main"),
        is_local_branch: &is_local_branch,
        is_revision: &is_revision,
        config: &config,
        env_namespace: false,
        env_exec_path: None,
        is_own_exec_path: &is_own_exec_path,
    };
    let git = parse_globals(&args);
    let action = classify(&git, &ctx);
    assert_eq!(action, classify(&parse_globals(&args), &ctx));
    serde_json::to_string(&action).expect("an Action serializes");
});
