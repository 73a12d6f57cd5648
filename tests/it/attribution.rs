//! Attribution on agent commits (policy `[commit]`): harness trailers
//! stripped, `Assisted-by` added, `Signed-off-by` refused when asked.

use crate::common::TestRepo;

const AGENT: &[(&str, &str)] = &[
    ("WARD_AGENT", "1"),
    ("WARD_CONTRACT", "c1"),
    ("CLAUDECODE", "1"),
    ("ANTHROPIC_MODEL", "claude-opus-4"),
];

/// Hooks installed, on `agent/c1`, with this `[commit]` policy.
fn repo_with(policy: &str) -> TestRepo {
    let repo = TestRepo::new();
    repo.local_policy(&format!("[commit]\n{policy}\n"));
    repo.ward(["install"]).ok();
    repo.git(["checkout", "-q", "-b", "agent/c1"]).ok();
    repo
}

fn message(repo: &TestRepo) -> String {
    repo.git(["log", "-1", "--format=%B"]).ok().stdout
}

#[test]
fn harness_trailers_are_stripped_and_the_assistant_credited() {
    let repo = repo_with(
        "assisted_by = \"Assisted-by: {agent}:{model}\"\nstrip_trailers = [\"Co-Authored-By\"]",
    );
    repo.write("a", "1\n");
    repo.git(["add", "a"]).ok();
    repo.git_env(
        [
            "commit",
            "-q",
            "-m",
            "Add a\n\nCo-Authored-By: Claude <noreply@anthropic.com>",
        ],
        AGENT,
    )
    .ok();
    assert_eq!(
        message(&repo),
        "Add a\n\nContract: c1\nAssisted-by: claude-code:claude-opus-4\n\n"
    );
    // A person's commit is theirs: nothing added or taken.
    repo.write("b", "1\n");
    repo.git(["add", "b"]).ok();
    repo.git([
        "commit",
        "-q",
        "-m",
        "Add b\n\nCo-Authored-By: Someone <s@e>",
    ])
    .ok();
    assert_eq!(message(&repo), "Add b\n\nCo-Authored-By: Someone <s@e>\n\n");
}

#[test]
fn an_agents_sign_off_is_refused_only_when_the_policy_says_so() {
    let repo = repo_with("signed_off_by = \"refuse\"");
    repo.write("a", "1\n");
    repo.git(["add", "a"]).ok();
    repo.git_env(["commit", "-q", "-s", "-m", "Add a"], AGENT)
        .code(1)
        .stderr_has("EN-GIT-D-009");
    repo.git_env(["commit", "-q", "-m", "Add a"], AGENT).ok();
    // The default lets it through, as before.
    let repo = repo_with("");
    repo.write("a", "1\n");
    repo.git(["add", "a"]).ok();
    repo.git_env(["commit", "-q", "-s", "-m", "Add a"], AGENT)
        .ok();
    assert!(message(&repo).contains("Signed-off-by: Test <test@example.com>"));
}

#[test]
fn explain_shows_the_attribution_of_a_commit() {
    let repo = repo_with("signed_off_by = \"refuse\"\nstrip_trailers = [\"Claude-Session\"]");
    repo.ward(["explain", "--", "commit", "-m", "x"])
        .ok()
        .stdout_has("attribution:")
        .stdout_has("strips Claude-Session, Signed-off-by: refuse");
    let (_, v) = repo.ward_json(["explain", "--json", "--", "commit", "-m", "x"], &[]);
    assert_eq!(v["attribution"]["signed_off_by"], "refuse", "{v}");
}
