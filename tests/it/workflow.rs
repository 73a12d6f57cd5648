//! The agent workflow: contracts, `git ward init`, `git ward save`.

use crate::common::{exists, TestRepo};

fn json(stdout: &str) -> serde_json::Value {
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The trailers of HEAD's message, as `git interpret-trailers --parse` reads them.
fn trailers(repo: &TestRepo) -> Vec<(String, String)> {
    let body = repo.git(["log", "-1", "--format=%B"]).ok().stdout;
    let path = repo.path("msg.txt");
    std::fs::write(&path, body).unwrap();
    let parsed = repo
        .git([
            "interpret-trailers".as_ref(),
            "--parse".as_ref(),
            path.as_os_str(),
        ])
        .ok()
        .stdout;
    parsed
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn subject(repo: &TestRepo) -> String {
    repo.git(["log", "-1", "--format=%s"])
        .ok()
        .stdout
        .trim()
        .to_string()
}

// ---- contract ----

#[test]
fn contract_start_show_end() {
    let repo = TestRepo::new();
    repo.ward(["contract", "start", "bad id"])
        .code(2)
        .stderr_has("EN-GIT-I-001")
        .stderr_has("hint: a contract id is 1 to 100 characters");
    repo.ward(["contract", "start", "task-1"]).ok();
    let shown = json(&repo.ward(["contract", "show", "--json"]).ok().stdout);
    assert_eq!(shown["contract"], "task-1");
    assert!(shown["source"].as_str().unwrap().ends_with("ward/contract"));
    let env = json(
        &repo
            .ward_env(["contract", "show", "--json"], &[("WARD_CONTRACT", "t2")])
            .ok()
            .stdout,
    );
    assert_eq!(env["contract"], "t2");
    assert_eq!(env["source"], "env WARD_CONTRACT");
    repo.ward(["contract", "start", "task-2"])
        .code(2)
        .stderr_has("contract 'task-1' is active");
    repo.ward(["contract", "start", "task-2", "--force"]).ok();
    repo.ward(["contract", "end"])
        .ok()
        .stdout_has("contract 'task-2' ended");
    repo.ward(["contract", "show"])
        .ok()
        .stdout_has("no active contract");
}

// ---- init ----

#[test]
fn init_creates_a_versioned_workspace() {
    let repo = TestRepo::new();
    let ws = repo.path("ws");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/app.py"), "print(1)\n").unwrap();
    let out = repo
        .ward([
            "init".as_ref(),
            ws.as_os_str(),
            "--ignore".as_ref(),
            "target/".as_ref(),
            "--json".as_ref(),
        ])
        .ok();
    let v = json(&out.stdout);
    assert_eq!(v["status"], "S");
    assert_eq!(v["created"], true);
    assert_eq!(
        std::fs::read_to_string(ws.join(".gitignore")).unwrap(),
        "*.db\n*.log\n__pycache__/\n.DS_Store\ntarget/\n"
    );
    let git = |args: &[&str]| {
        let mut full = vec!["-C", ws.to_str().unwrap()];
        full.extend_from_slice(args);
        repo.git(full).ok().stdout.trim().to_string()
    };
    assert_eq!(git(&["log", "--format=%s"]), "Initialize workspace");
    assert_eq!(git(&["config", "--local", "user.name"]), "agent");
    assert_eq!(
        git(&["config", "--local", "user.email"]),
        "agent@workspace.local"
    );
    assert_eq!(git(&["ls-files"]), ".gitignore\nsrc/app.py");
    assert_eq!(git(&["status", "--porcelain"]), "");
    assert_eq!(v["commit"].as_str().unwrap(), git(&["rev-parse", "HEAD"]));
    assert_eq!(v["hooks_installed"], true, "{v}");
}

/// An agent's workspace starts with what init wrote: the files that were
/// there (a `.ward/policy.toml`, which on `main` would be the team layer)
/// are saved through the rules, onto the agent's own branch.
#[test]
fn an_agents_init_commits_only_what_init_wrote() {
    let repo = TestRepo::new();
    let ws = repo.path("ws");
    std::fs::create_dir_all(ws.join(".ward")).unwrap();
    std::fs::write(ws.join(".ward/policy.toml"), "[branches]\nprotected = []\n").unwrap();
    std::fs::write(ws.join("app.py"), "print(1)\n").unwrap();
    repo.git(["init", "-q", ws.to_str().unwrap()]).ok();
    let c1 = [("WARD_CONTRACT", "c1")];
    let ward = |args: &[&str]| {
        let mut cmd = repo.ward_command(args);
        cmd.current_dir(&ws)
            .envs(c1)
            .stdin(std::process::Stdio::null());
        crate::common::Run::from(cmd.output().unwrap())
    };
    let v = json(&ward(&["init", "--json"]).ok().stdout);
    assert_eq!(v["files_left_to_save"], true, "{v}");
    let git = |args: &[&str]| {
        let mut full = vec!["-C", ws.to_str().unwrap()];
        full.extend_from_slice(args);
        repo.git(full).ok().stdout.trim().to_string()
    };
    let first = git(&["branch", "--show-current"]);
    assert_eq!(git(&["ls-tree", "-r", "--name-only", &first]), ".gitignore");
    ward(&["save", "-m", "the work"]).ok();
    assert_eq!(git(&["branch", "--show-current"]), "agent/c1");
    assert_eq!(git(&["ls-tree", "-r", "--name-only", &first]), ".gitignore");
    assert_eq!(
        git(&["ls-tree", "-r", "--name-only", "agent/c1"]),
        ".gitignore\n.ward/policy.toml\napp.py"
    );
}

#[test]
fn init_in_an_existing_repository_adds_only_what_is_missing() {
    let repo = TestRepo::new();
    repo.git(["config", "user.name", "Someone"]).ok();
    repo.write(".gitignore", "*.log\n");
    let head = repo.rev("HEAD");
    let v = json(&repo.ward(["init", "--json"]).ok().stdout);
    assert_eq!(v["created"], false);
    assert_eq!(
        v["gitignore_added"],
        serde_json::json!(["*.db", "__pycache__/", ".DS_Store"])
    );
    assert_eq!(
        v["identity_set"],
        serde_json::json!({"user.email": "agent@workspace.local"})
    );
    assert_eq!(v["commit"], serde_json::Value::Null);
    assert_eq!(repo.rev("HEAD"), head, "no commit on a branch with history");
    assert_eq!(
        repo.git(["config", "user.name"]).ok().stdout.trim(),
        "Someone"
    );
    repo.ward(["init"])
        .ok()
        .stdout_has("is already a repository");
    let again = json(&repo.ward(["init", "--json"]).ok().stdout);
    assert_eq!(again["gitignore_added"], serde_json::json!([]));
    assert_eq!(again["identity_set"], serde_json::json!({}));
    // The hooks were there already: nothing added, nothing claimed.
    assert_eq!(again["hooks_installed"], false, "{again}");
    assert_eq!(v["hooks_installed"], true, "{v}");
}

#[test]
fn init_without_git_changes_nothing() {
    let repo = TestRepo::new();
    let ws = repo.path("nogit");
    repo.ward_env(
        ["init".as_ref(), ws.as_os_str()],
        &[("PATH", "/nonexistent"), ("WARD_REAL_GIT", "")],
    )
    .code(3)
    .stderr_has("git not available: workspace versioning disabled");
    assert!(!exists(&ws));
    repo.ward_env(
        ["init".as_ref(), ws.as_os_str(), "--json".as_ref()],
        &[("WARD_REAL_GIT", "/nonexistent/git")],
    )
    .code(3)
    .stdout_has("git not available");
    assert!(!exists(&ws));
}

#[test]
fn init_at_a_path_that_is_a_file_is_an_invalid_argument_that_names_it() {
    let repo = TestRepo::new();
    repo.ward(["init", "README"])
        .code(2)
        .stderr_has("cannot make a workspace at ")
        .stderr_has("README: File exists")
        .stderr_has("hint: name a directory");
    assert_eq!(repo.read("README").as_deref(), Some("hello\n"));
}

// ---- save ----

const SAVE_ARGS: &[&str] = &[
    "save",
    "-m",
    "Add login form",
    "--phase",
    "2",
    "--todo",
    "T-7",
    "--notes",
    "uses bcrypt",
    "--notes",
    "tests pending",
];

#[test]
fn save_writes_a_structured_message_with_trailers() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    repo.write("login.py", "form\n");
    let v = json(&repo.ward(SAVE_ARGS.iter().chain(&["--json"])).ok().stdout);
    assert_eq!(v["status"], "S");
    assert_eq!(v["branch"], "feature");
    assert_eq!(v["switched"], false);
    assert_eq!(v["commit"].as_str(), repo.rev("HEAD").as_deref());
    assert_eq!(subject(&repo), "[Phase 2] T-7: Add login form");
    let t = trailers(&repo);
    let keys: Vec<&str> = t.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["Completed", "Phase", "Todo", "Notes", "Notes"]);
    let completed = &t[0].1;
    assert!(
        completed.len() == 24 && completed.ends_with('Z') && completed.as_bytes()[10] == b'T',
        "RFC 3339: {completed}"
    );
    assert_eq!(t[1].1, "2");
    assert_eq!(t[2].1, "T-7");
    assert_eq!(t[3].1, "uses bcrypt");
    assert_eq!(t[4].1, "tests pending");
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    // The audit line has the command line as asked.
    let lines = repo.audit_records(&[]);
    let save = lines
        .iter()
        .find(|r| r["operation"] == "ward.save")
        .expect("a save line");
    assert_eq!(save["argv"], serde_json::json!(SAVE_ARGS));
}

#[test]
fn save_commits_even_when_nothing_changed() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    let before = repo.rev("HEAD").unwrap();
    repo.ward(["save", "-m", "Checked the plan"])
        .ok()
        .stdout_has("saved ");
    assert_eq!(repo.rev("HEAD^").unwrap(), before);
    assert_eq!(repo.rev("HEAD^{tree}"), repo.rev("HEAD^^{tree}"));
    assert_eq!(subject(&repo), "Checked the plan");
}

/// `save` with paths stages only those, as literal names: `*.txt` names a
/// file called `*.txt`, which is not there, so nothing is saved (as a
/// glob it would have taken `two.txt`).
#[test]
fn save_with_paths_commits_only_those() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    repo.write("one.txt", "1\n").write("two.txt", "2\n");
    repo.ward(["save", "-m", "Only one", "one.txt"]).ok();
    let committed = repo
        .git(["show", "--name-only", "--format=", "HEAD"])
        .ok()
        .stdout;
    assert_eq!(committed, "one.txt\n");
    repo.ward(["save", "-m", "A glob", "*.txt"])
        .code(3)
        .stderr_has("*.txt");
    assert_eq!(subject(&repo), "Only one");
    let left = repo.git(["status", "--porcelain"]).ok().stdout;
    assert_eq!(left, "?? two.txt\n");
}

#[test]
fn save_on_main_with_a_contract_switches_to_the_agent_branch() {
    let repo = TestRepo::new();
    let main = repo.rev("main");
    repo.write("feature.txt", "work\n");
    let out = repo
        .ward_env(
            ["save", "-m", "Do the work", "--json"],
            &[("WARD_CONTRACT", "c1")],
        )
        .ok();
    let v = json(&out.stdout);
    assert_eq!(v["branch"], "agent/c1");
    assert_eq!(v["switched"], true);
    assert_eq!(v["switched_from"], "main");
    assert_eq!(repo.rev("main"), main, "main did not move");
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.rev("agent/c1^"), main);
    let t = trailers(&repo);
    assert_eq!(
        t.last().unwrap(),
        &("Contract".to_string(), "c1".to_string())
    );
    assert_eq!(
        t.iter().filter(|(k, _)| k == "Contract").count(),
        1,
        "the footer appears once"
    );
    assert_eq!(repo.git(["status", "--porcelain"]).ok().stdout, "");
    // Sticky: a second save stays on the agent branch.
    let v = json(
        &repo
            .ward_env(["save", "-m", "More", "--json"], &[("WARD_CONTRACT", "c1")])
            .ok()
            .stdout,
    );
    assert_eq!(v["branch"], "agent/c1");
    assert_eq!(v["switched"], false);
}

/// A save that moved onto an existing agent branch is undone back onto
/// main, with the files as they were (the ref journal needs the hooks).
#[test]
fn a_save_onto_an_existing_agent_branch_is_undone() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("agent.txt", "earlier\n").commit("earlier");
    let agent = repo.rev("agent/c1");
    repo.git(["switch", "-q", "main"]).ok();
    repo.write("README", "edited on main\n");
    let before = repo.state();
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.ward_env(["save", "-m", "Work"], c1)
        .ok()
        .stdout_has("switched to 'agent/c1'");
    repo.ward_env(["undo", "--yes"], c1).ok();
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("agent/c1"), agent);
    assert_eq!(repo.state(), before);
}

#[test]
fn save_with_the_hooks_installed_carries_the_footer_once() {
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    repo.write("x.txt", "x\n");
    repo.ward_env(
        ["save", "-m", "Do it", "--todo", "T-2"],
        &[("WARD_CONTRACT", "c9")],
    )
    .ok()
    .stdout_has("switched to 'agent/c9'");
    let t = trailers(&repo);
    let contract: Vec<_> = t.iter().filter(|(k, _)| k == "Contract").collect();
    assert_eq!(
        contract,
        [&("Contract".to_string(), "c9".to_string())],
        "{t:?}"
    );
    assert_eq!(subject(&repo), "T-2: Do it");
}

#[test]
fn save_on_main_without_a_contract_is_denied_and_touches_nothing() {
    let repo = TestRepo::new();
    let main = repo.rev("main");
    repo.write("staged.txt", "s\n");
    repo.git(["add", "staged.txt"]).ok();
    repo.write("new.txt", "n\n");
    repo.ward_env(["save", "-m", "x"], &[("WARD_AGENT", "1")])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-003]")
        .stderr_has("hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry");
    let v = json(
        &repo
            .ward_env(["save", "-m", "x", "--json"], &[("WARD_AGENT", "1")])
            .code(1)
            .stdout,
    );
    assert_eq!(v["status"], "D");
    assert_eq!(v["code"], "EN-GIT-D-003");
    assert_eq!(repo.rev("main"), main);
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "A  staged.txt\n?? new.txt\n"
    );
    let log = repo.ward(["audit", "--json"]).ok().stdout;
    assert!(
        log.contains("ward.save") && log.contains("EN-GIT-D-003"),
        "{log}"
    );
}

#[test]
fn a_failed_commit_leaves_the_index_as_it_was() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    repo.write("a.txt", "a\n");
    repo.git(["add", "a.txt"]).ok();
    repo.write("b.txt", "b\n");
    let head = repo.rev("HEAD");
    let out = repo.ward(["save", "-m", "x"]);
    assert_ne!(out.code, Some(0));
    let out = out
        .stderr_has("git commit failed")
        .stderr_has("lint failed");
    assert!(out.stderr.contains("index is as it was"), "{}", out.stderr);
    assert_eq!(repo.rev("HEAD"), head);
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "A  a.txt\n?? b.txt\n"
    );
}

/// In a repository with no commit yet, a save moved to the (unborn) agent
/// branch whose commit fails goes back to the unborn branch it left.
#[test]
fn a_failed_save_on_an_unborn_branch_goes_back_to_it() {
    let repo = TestRepo::empty();
    let branch = repo
        .git(["symbolic-ref", "--short", "HEAD"])
        .ok()
        .stdout
        .trim()
        .to_string();
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\necho 'lint failed' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    repo.write("a.txt", "a\n");
    let out = repo.ward_env(["save", "-m", "x"], &[("WARD_CONTRACT", "c1")]);
    assert_ne!(out.code, Some(0));
    out.stderr_has("lint failed");
    assert_eq!(
        repo.git(["symbolic-ref", "--short", "HEAD"])
            .ok()
            .stdout
            .trim(),
        branch
    );
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "?? a.txt\n"
    );
}

// ---- demo ----

#[test]
fn the_demo_tells_the_whole_story() {
    let repo = TestRepo::new();
    let out = repo.ward(["demo", "--json"]);
    let v = json(&out.stdout);
    let failed: Vec<&serde_json::Value> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ok"] != true)
        .collect();
    assert!(failed.is_empty(), "steps that went wrong: {failed:#?}");
    assert_eq!(v["status"], "S", "{v}");
    assert_eq!(out.code, Some(0));
    assert!(
        !std::path::Path::new(v["dir"].as_str().unwrap()).exists(),
        "cleaned up"
    );
}

// ---- integration guide claims ----

#[test]
fn aider_style_no_verify_commits_are_refused_unless_the_policy_allows_them() {
    // docs/integrations.md, Aider: `git commit --no-verify` from an agent is
    // EN-GIT-D-004; `enforce.allow_no_verify = true` lets it through, and
    // the reference-transaction hook still guards main.
    let repo = TestRepo::new();
    repo.ward(["install"]).ok();
    let contract = [("WARD_CONTRACT", "aider-1")];
    repo.write("a.py", "x = 1\n");
    repo.shim_env(["add", "a.py"], &contract).ok();
    repo.shim_env(["commit", "--no-verify", "-m", "aider: add a"], &contract)
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("enforce.allow_no_verify");
    repo.shim_env(["commit", "-m", "aider: add a"], &contract)
        .ok();
    assert_eq!(repo.branch(), "agent/aider-1");
    repo.local_policy("[enforce]\nallow_no_verify = true\n");
    repo.write("a.py", "x = 2\n");
    repo.shim_env(["commit", "-a", "--no-verify", "-m", "aider: b"], &contract)
        .ok();
    let main = repo.rev("main");
    let out = repo.git_env(
        ["update-ref", "refs/heads/main", "HEAD"],
        &[("WARD_AGENT", "1")],
    );
    assert_ne!(out.code, Some(0));
    out.stderr_has("EN-GIT-D-001");
    assert_eq!(repo.rev("main"), main);
}

/// A save whose commit the repository's own pre-commit hook refuses leaves
/// nothing behind: back on `main`, the agent branch the move made gone,
/// the index and files as they were.
#[test]
fn a_refused_save_undoes_its_move_and_the_branch_it_made() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::new();
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\necho no >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.ward(["install"]).ok();
    repo.write("work.txt", "work\n");
    let run = repo.ward_env(["save", "-m", "work"], &[("WARD_CONTRACT", "c1")]);
    assert_ne!(run.code, Some(0), "{}", run.stdout);
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("refs/heads/agent/c1"), None);
    assert_eq!(repo.read("work.txt").as_deref(), Some("work\n"));
    assert_eq!(
        repo.git(["status", "--porcelain"]).ok().stdout,
        "?? work.txt\n"
    );
}
