//! Config a command sets that says where a branch syncs from
//! ([`Action::repoints`]): every spelling that sets it.

use super::*;

fn repoints(line: &str) -> Vec<String> {
    run(line).repoints
}

#[test]
fn every_way_to_set_where_a_branch_syncs_from() {
    let rows: &[(&str, &[&str])] = &[
        ("remote set-url origin /tmp/evil", &["remote.origin.url"]),
        (
            "remote set-url --add origin /tmp/evil",
            &["remote.origin.url"],
        ),
        ("remote rename evil origin", &["remote.origin.url"]),
        (
            "config --add remote.origin.fetch +refs/heads/x:refs/remotes/origin/main",
            &["remote.origin.fetch"],
        ),
        (
            "-c remote.origin.fetch=+refs/x:refs/remotes/origin/main push origin x",
            &["remote.origin.fetch"],
        ),
        ("config remote.origin.url /tmp/evil", &["remote.origin.url"]),
        (
            "config set remote.origin.URL /tmp/evil",
            &["remote.origin.url"],
        ),
        (
            "config --add remote.evil.url /tmp/evil",
            &["remote.evil.url"],
        ),
        (
            "config --global url./tmp/evil.insteadOf https://x",
            &["url./tmp/evil.insteadof"],
        ),
        (
            "config branch.main.merge refs/heads/agent-x",
            &["branch.main.merge"],
        ),
        ("config Branch.main.Remote evil", &["branch.main.remote"]),
        (
            "config --rename-section remote.evil remote.origin",
            &["remote.origin.url"],
        ),
        (
            "config rename-section branch.x branch.main",
            &["branch.main.merge"],
        ),
        (
            "-c remote.origin.url=/tmp/evil fetch",
            &["remote.origin.url"],
        ),
        (
            "-c url./tmp/evil.insteadOf=https://x pull",
            &["url./tmp/evil.insteadof"],
        ),
        ("branch -u origin/agent-x", &["branch.main.merge"]),
        (
            "branch --set-upstream-to=origin/agent-x main",
            &["branch.main.merge"],
        ),
        ("branch -u origin/x feat", &["branch.feat.merge"]),
        ("push -u origin main:agent-main", &["branch.main.merge"]),
        (
            "push --set-upstream origin HEAD:agent-main",
            &["branch.main.merge"],
        ),
        ("push -u origin agent/x", &["branch.agent/x.merge"]),
        (
            "fetch --set-upstream origin agent-x",
            &["branch.main.merge"],
        ),
        ("pull --set-upstream origin agent-x", &["branch.main.merge"]),
        // Nothing that leaves it as it is, or reads it.
        ("remote set-url --push origin /tmp/x", &[]),
        ("remote remove origin", &[]),
        ("remote -v", &[]),
        ("remote get-url origin", &[]),
        ("config remote.origin.url", &[]),
        ("config --get remote.origin.url", &[]),
        ("config --unset remote.origin.url", &[]),
        ("config unset branch.main.merge", &[]),
        ("config remote.origin.pushurl /tmp/x", &[]),
        ("config --remove-section remote.origin", &[]),
        ("branch --unset-upstream", &[]),
        ("branch --track feat origin/main", &[]),
        ("push origin agent/x", &[]),
        ("fetch origin", &[]),
        ("-c remote.origin.prune=true fetch", &[]),
    ];
    let mut failures = Vec::new();
    for (line, want) in rows {
        let got = repoints(line);
        if got != *want {
            failures.push(format!("git {line}: want {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_environment_repoints_every_command() {
    let env = vec![(s("url./tmp/evil.insteadof"), s("https://example.com/"))];
    let got = classify_in(&[OsString::from("fetch")], &env);
    assert_eq!(got.repoints, vec!["url./tmp/evil.insteadof".to_string()]);
}

#[test]
fn an_editor_on_the_config_can_switch_hooks_off() {
    for line in [
        "config --edit",
        "config -e",
        "config edit",
        "config --global -e",
    ] {
        assert!(run(line).hooks_off.is_some(), "{line}");
    }
    assert!(run("config --list").hooks_off.is_none());
}

#[test]
fn a_remote_added_is_named_not_refused() {
    for line in [
        "remote add evil /tmp/evil",
        "remote -v add -t main -m main -f evil /tmp/evil",
        "remote add --mirror=fetch evil /tmp/evil",
    ] {
        let a = run(line);
        assert_eq!(
            a.remote_change,
            Some(crate::action::RemoteChange::Add("evil".into())),
            "{line}"
        );
        assert!(a.repoints.is_empty(), "{line}");
    }
    assert_eq!(run("remote set-url evil /x").remote_change, None);
    assert_eq!(
        run("remote rm evil").remote_change,
        Some(crate::action::RemoteChange::Remove("evil".into()))
    );
}
