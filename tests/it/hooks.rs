//! The hooks, installed by `git ward install`, with the shim *not* on PATH:
//! every protected ref stays where it was, whatever an agent runs.

use std::path::Path;

use crate::common::{sibling, TestRepo};
use crate::tools;

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];
const CLAUDE: &[(&str, &str)] = &[("CLAUDECODE", "1")];

/// Extra environment for one git run.
type Env = &'static [(&'static str, &'static str)];

/// A repository on `main` (two commits), tag `v1`, hooks installed.
fn installed() -> TestRepo {
    let repo = TestRepo::new();
    repo.commit("second");
    repo.git(["tag", "v1"]).ok();
    repo.ward(["install"]).ok();
    repo
}

/// Every protected ref with its value (branches and tags).
fn protected(repo: &TestRepo) -> String {
    repo.git([
        "for-each-ref",
        "--format=%(refname) %(objectname)",
        "refs/heads/main",
        "refs/heads/release",
        "refs/tags",
    ])
    .ok()
    .stdout
}

/// Asserts git failed and git-ward said why, in the the rules' two lines.
#[track_caller]
/// git-ward's hooks in a hooks directory, by name.
fn ward_hooks(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sample"))
        .collect();
    names.sort();
    names
}

/// `cp -a` of the repository, beside it.
fn copy_of(repo: &TestRepo) -> std::path::PathBuf {
    let copy = sibling(repo, "copy");
    let cp = std::process::Command::new("cp")
        .arg("-a")
        .arg(&repo.dir)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    copy
}

/// A copy of a repository keeps the install record naming the original's
/// hooks by path: uninstall in the copy removes the copy's, never the
/// original's.
#[test]
fn uninstall_in_a_copy_leaves_the_originals_hooks() {
    let repo = installed();
    let copy = copy_of(&repo);
    let hooks = repo.dir.join(".git/hooks");
    let before = ward_hooks(&hooks);
    assert!(before.contains(&"reference-transaction".to_string()));
    let mut uninstall = repo.ward_command(["uninstall"]);
    uninstall.current_dir(&copy);
    assert!(uninstall.output().unwrap().status.success());
    assert_eq!(ward_hooks(&hooks), before, "the original's hooks");
    assert_eq!(ward_hooks(&copy.join(".git/hooks")), Vec::<String>::new());
    // Gone from the original's path too (moved away): its own are meant.
    let moved = crate::common::sibling(&repo, "moved");
    std::fs::rename(&repo.dir, &moved).unwrap();
    let mut doctor = repo.ward_command(["doctor"]);
    doctor.current_dir(&moved);
    let out = doctor.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("is missing"), "{text}");
    std::fs::rename(&moved, &repo.dir).unwrap();
}

/// With a relative `core.hooksPath` (husky's `.husky/_`, installed with
/// `--force`) the install record names the original's hooks directory by
/// its absolute path: uninstall in a copy acts where git runs the copy's
/// hooks, and the original stays guarded.
#[test]
fn uninstall_in_a_copy_with_a_relative_hooks_path_leaves_the_original_guarded() {
    let repo = TestRepo::new();
    let husky = repo.dir.join(".husky/_");
    std::fs::create_dir_all(&husky).unwrap();
    write_hook(&husky.join("pre-commit"), "#!/bin/sh\nexit 0\n");
    repo.git(["config", "core.hooksPath", ".husky/_"]).ok();
    repo.ward(["install", "--force"]).ok();
    let before = snapshot(&husky);
    let copy = copy_of(&repo);
    let mut uninstall = repo.ward_command(["uninstall"]);
    uninstall.current_dir(&copy);
    crate::common::Run::from(uninstall.output().unwrap())
        .ok()
        .stdout_has("restored");
    assert_eq!(ward_hooks(&copy.join(".husky/_")), vec!["pre-commit"]);
    assert_eq!(snapshot(&husky), before, "the original's hooks");
    refused(repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT));
    // doctor in the copy looks at the copy's hooks, not the original's.
    let mut doctor = repo.ward_command(["doctor"]);
    doctor.current_dir(&copy);
    let out = doctor.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains(repo.dir.to_str().unwrap()), "{text}");
}

/// `.git/hooks` a link into the working tree (`../githooks`, to version
/// the hooks): an agent's allowed `git clean` or `checkout` there would
/// delete git-ward's hooks, so install refuses it unless `--force`, and
/// doctor says why.
#[test]
fn a_hooks_directory_in_the_working_tree_is_refused_without_force() {
    let repo = TestRepo::new();
    let tree_hooks = repo.dir.join("githooks");
    std::fs::create_dir_all(&tree_hooks).unwrap();
    write_hook(&tree_hooks.join("pre-commit"), "#!/bin/sh\nexit 0\n");
    std::fs::remove_dir_all(hooks_dir(&repo)).unwrap();
    std::os::unix::fs::symlink("../githooks", hooks_dir(&repo)).unwrap();
    let before = snapshot(&tree_hooks);
    repo.ward(["install"])
        .code(2)
        .stderr_has("EN-GIT-I-001")
        .stderr_has("inside the working tree")
        .stderr_has("--force");
    assert_eq!(snapshot(&tree_hooks), before);
    let (_, v) = repo.ward_json(["doctor", "--json"], &[]);
    let place = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "hooks dir")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(place["level"], "warn", "{v}");
    assert!(
        place["detail"]
            .as_str()
            .unwrap()
            .contains("inside the working tree"),
        "{v}"
    );
    repo.ward(["install", "--force"]).ok();
    assert!(tree_hooks.join("reference-transaction").exists());
}

/// A repository at a path that is not UTF-8 gets its hooks where git runs
/// them, and nowhere else.
#[test]
fn install_in_a_repository_at_a_non_utf8_path() {
    use std::os::unix::ffi::OsStrExt;
    let mut repo = TestRepo::new();
    let odd = repo
        .tmp
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    std::fs::rename(&repo.dir, &odd).unwrap();
    repo.dir = odd;
    let entries = || -> Vec<std::ffi::OsString> {
        let mut names: Vec<_> = std::fs::read_dir(repo.tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = entries();
    let (_, v) = repo.ward_json(["install", "--json"], &[]);
    assert_eq!(v["status"], "S", "{v}");
    assert_eq!(entries(), before, "no directory made beside the repository");
    assert!(hooks_dir(&repo).join("reference-transaction").is_file());
    assert!(repo.dir.join(".git/ward/install.json").is_file());
    refused(repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT));
    repo.ward(["doctor"]).stdout_has("installed and current");
    repo.ward(["uninstall"]).ok().stdout_has("removed");
    assert_eq!(ward_hooks(&hooks_dir(&repo)), Vec::<String>::new());
}

/// Every ref's name, one per line.
fn ref_names(repo: &TestRepo) -> String {
    repo.git(["for-each-ref", "--format=%(refname)"])
        .ok()
        .stdout
}

fn refused(run: crate::common::Run) {
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("ward: denied [EN-GIT-D-00"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\nhint: "), "{}", run.stderr);
}

fn hooks_dir(repo: &TestRepo) -> std::path::PathBuf {
    repo.dir.join(".git/hooks")
}

fn write_hook(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A snapshot of a directory: name, bytes (or link target), mode.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            let bytes = if meta.file_type().is_symlink() {
                std::fs::read_link(e.path())
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                std::fs::read(e.path()).unwrap()
            };
            (
                e.file_name().to_string_lossy().into_owned(),
                bytes,
                meta.permissions().mode(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn install_writes_five_hooks_and_twice_changes_nothing() {
    let repo = TestRepo::new();
    let out = repo.ward(["install", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["status"], "S");
    let dir = hooks_dir(&repo);
    // The kernel starts git-ward itself; the `/bin/sh` form is for paths a
    // `#!` line cannot hold (tested in `a_missing_binary_fails_closed`).
    let bin = crate::common::ward_bin().canonicalize().unwrap();
    let first = format!("#!{} hook\n# git-ward hook:", bin.display());
    let plain = !bin.display().to_string().contains(char::is_whitespace) && first.len() < 140;
    for name in [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "pre-push",
        "reference-transaction",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        if plain {
            assert!(text.starts_with(&first), "{name}: {text}");
        } else {
            assert!(text.contains(&format!("hook {name} \"$@\"")), "{text}");
        }
    }
    let before = snapshot(&dir);
    let manifest = std::fs::read(repo.dir.join(".git/ward/install.json")).unwrap();
    repo.ward(["install"]).ok().stdout_has("unchanged");
    assert_eq!(snapshot(&dir), before);
    assert_eq!(
        std::fs::read(repo.dir.join(".git/ward/install.json")).unwrap(),
        manifest
    );
}

#[test]
fn uninstall_restores_every_foreign_hook_byte_for_byte() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    write_hook(
        &dir.join("pre-commit"),
        "#!/bin/sh\n# mine\r\nexit 0\n\u{0}binary\n",
    );
    write_hook(
        &dir.join("commit-msg"),
        "#!/usr/bin/env python3\nprint('hi')\n",
    );
    std::fs::write(repo.dir.join("script.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    std::os::unix::fs::symlink("../../script.sh", dir.join("pre-push")).unwrap();
    let before = snapshot(&dir);
    repo.ward(["install"]).ok().stdout_has("chained");
    assert_ne!(snapshot(&dir), before);
    repo.ward(["install"]).ok();
    // An agent may not switch the hooks off this way, through the shim or not.
    let installed = snapshot(&dir);
    repo.ward_env(["uninstall"], &[("WARD_AGENT", "1")])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-004]")
        .stderr_has("hint:");
    // Nor make them links that git skips once the binary is gone.
    repo.ward_env(["install", "--link"], &[("WARD_AGENT", "1")])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-004] install --link");
    let (run, v) = repo.ward_json(["install", "--link", "--json"], AGENT);
    assert_eq!(run.code, Some(1), "{v}");
    assert_eq!(v["status"], "D", "{v}");
    assert_eq!(v["code"], "EN-GIT-D-004", "{v}");
    assert!(v["hint"].is_string(), "{v}");
    assert_eq!(snapshot(&dir), installed);
    let refused = repo.audit_records(&["--decision", "deny"]);
    assert!(
        refused
            .iter()
            .any(|r| r["operation"] == "ward.uninstall" && r["denial_code"] == "EN-GIT-D-004"),
        "{refused:?}"
    );
    let mut via_shim = repo.shim_command(["ward", "uninstall"]);
    let path = format!(
        "{}:{}",
        crate::common::ward_bin().parent().unwrap().display(),
        via_shim
            .get_envs()
            .find(|(k, _)| *k == "PATH")
            .and_then(|(_, v)| v)
            .unwrap()
            .to_string_lossy()
    );
    via_shim.env("PATH", path);
    crate::common::Run::from(via_shim.output().unwrap())
        .code(1)
        .stderr_has("EN-GIT-D-004");
    assert_eq!(snapshot(&dir), installed);
    repo.ward(["uninstall"]).ok().stdout_has("restored");
    assert_eq!(snapshot(&dir), before);
    assert!(!repo.dir.join(".git/ward/install.json").exists());
}

#[test]
fn chained_hooks_still_run_with_their_arguments_and_stdin() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    let log = repo.path("chain.log");
    write_hook(
        &dir.join("pre-push"),
        &format!(
            "#!/bin/sh\necho \"pre-push $*\" >> {0}\ncat >> {0}\nexit 0\n",
            log.display()
        ),
    );
    write_hook(
        &dir.join("commit-msg"),
        &format!(
            "#!/bin/sh\necho \"commit-msg $(basename $1)\" >> {0}\nexit 0\n",
            log.display()
        ),
    );
    repo.ward(["install"]).ok();
    let remote = repo.bare_at(sibling(&repo, "remote.git"));
    repo.git(["remote", "add", "origin", remote.to_str().unwrap()])
        .ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"]).ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("commit-msg COMMIT_EDITMSG"), "{text}");
    assert!(
        text.contains(&format!("pre-push origin {}", remote.display())),
        "{text}"
    );
    assert!(
        text.contains("refs/heads/main"),
        "the chained hook got stdin: {text}"
    );

    // A chained hook's refusal is the hook's refusal.
    write_hook(
        &dir.join("commit-msg.ward-orig"),
        "#!/bin/sh\necho no >&2\nexit 3\n",
    );
    repo.git(["commit", "-q", "--allow-empty", "-m", "y"])
        .code(1)
        .stderr_has("no");
}

/// Hook managers such as husky read which hook runs from `$0`: a chained
/// shell script runs by the name git gave the hook.
#[test]
fn a_chained_shell_hook_runs_by_its_own_name() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    let log = repo.path("ran.log");
    // husky's shape: every hook sources one script, which picks by name.
    write_hook(
        &dir.join("pre-commit"),
        "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n",
    );
    std::fs::write(
        dir.join("h"),
        format!(
            "n=$(basename \"$0\")\necho \"$n $*\" >> {}\n",
            log.display()
        ),
    )
    .unwrap();
    // Not a shell script: run from where it lies.
    write_hook(
        &dir.join("commit-msg"),
        &format!("#!/usr/bin/env python3\nimport sys, os\nopen({:?}, 'a').write(os.path.basename(sys.argv[0]) + '\\n')\n", log.display().to_string()),
    );
    repo.ward(["install"]).ok().stdout_has("chained");
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"]).ok();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text, "pre-commit \ncommit-msg.ward-orig\n");
}

/// A hook with no `#!` line is a shell script to git (it runs it with
/// `/bin/sh`); one git may not execute, or a link to nothing, git skips.
/// Chained, each does as it did before the install.
#[test]
fn chained_hooks_run_or_are_skipped_as_git_would() {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    let dir = hooks_dir(&repo);
    let log = repo.path("ran.log");
    write_hook(
        &dir.join("commit-msg"),
        &format!("echo \"plain $(basename \"$0\")\" >> {}\n", log.display()),
    );
    std::fs::write(
        dir.join("reference-transaction"),
        "#!/bin/sh\necho disabled >&2\nexit 1\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("/nonexistent/runner", dir.join("pre-commit")).unwrap();
    repo.git(["commit", "-q", "--allow-empty", "-m", "before"])
        .ok();
    repo.ward(["install"]).ok().stdout_has("chained");
    repo.git(["commit", "-q", "--allow-empty", "-m", "after"])
        .ok()
        .stderr_lacks("disabled");
    repo.git(["branch", "topic"]).ok();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text, "plain commit-msg\nplain commit-msg\n");
    // Still guarded: the chained hooks come after git-ward's check.
    repo.git(["switch", "-q", "main"]).ok();
    refused(repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT));
}

#[test]
fn a_real_pre_commit_framework_hook_keeps_running() {
    let pre_commit = tools::bin("pre-commit");
    let repo = TestRepo::new();
    repo.write(
        ".pre-commit-config.yaml",
        "repos:\n- repo: local\n  hooks:\n  - id: marker\n    name: marker\n    entry: sh -c 'touch ../framework-ran'\n    language: system\n    pass_filenames: false\n    always_run: true\n",
    );
    repo.git(["add", ".pre-commit-config.yaml"]).ok();
    let mut cmd = std::process::Command::new(pre_commit);
    repo.hermetic(&mut cmd);
    assert!(cmd.args(["install"]).output().unwrap().status.success());
    let dir = hooks_dir(&repo);
    let before = snapshot(&dir);
    repo.ward(["install"]).ok().stdout_has("chained");
    repo.git(["commit", "-q", "-m", "with framework"]).ok();
    assert!(
        repo.path("framework-ran").exists(),
        "the framework's hook ran"
    );
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1)
        .stderr_has("EN-GIT-D-00");
    repo.ward(["uninstall"]).ok();
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn relative_or_global_hooks_path_is_refused_without_force() {
    let repo = TestRepo::new();
    repo.git(["config", "core.hooksPath", ".githooks"]).ok();
    repo.ward(["install"]).code(2).stderr_has("relative");
    repo.ward(["install", "--force"]).ok();
    assert!(repo.dir.join(".githooks/reference-transaction").exists());
    repo.git(["config", "--unset", "core.hooksPath"]).ok();
    let global = repo.path("global-hooks");
    repo.git([
        "config",
        "--global",
        "core.hooksPath",
        global.to_str().unwrap(),
    ])
    .ok();
    repo.ward(["install"]).code(2).stderr_has("global");
}

#[test]
fn agents_leave_every_protected_ref_where_it_was() {
    let repo = installed();
    repo.git(["branch", "feat", "HEAD~1"]).ok();
    repo.git(["branch", "ahead"]).ok();
    repo.git(["checkout", "-q", "ahead"]).ok();
    repo.write("ahead.txt", "ahead\n");
    repo.commit("ahead of main");
    repo.git(["checkout", "-q", "main"]).ok();
    let before = protected(&repo);
    let tries: &[(&[&str], Env)] = &[
        (
            &["commit", "--no-verify", "-q", "--allow-empty", "-m", "x"],
            AGENT,
        ),
        (&["commit", "-q", "--allow-empty", "-m", "x"], CLAUDE),
        // A variable of `enforce.agent_env` counts whatever its value.
        (
            &["commit", "-q", "--allow-empty", "-m", "x"],
            &[("CLAUDECODE", "0")],
        ),
        // So does WARD_CONTRACT, set but empty (an agent with no contract).
        (
            &["commit", "-q", "--allow-empty", "-m", "x"],
            &[("WARD_CONTRACT", "")],
        ),
        (&["update-ref", "refs/heads/main", "HEAD~1"], AGENT),
        (&["update-ref", "-d", "refs/heads/main"], AGENT),
        (&["merge", "--ff-only", "ahead"], AGENT),
        (&["reset", "--hard", "HEAD~1"], AGENT),
        (&["cherry-pick", "ahead"], AGENT),
        (&["tag", "-f", "v1", "HEAD~1"], AGENT),
        (&["tag", "-d", "v1"], AGENT),
        (&["update-ref", "refs/heads/release/1", "HEAD"], AGENT),
        // `$GIT_DIR/main`, which git's reading of `main` finds first.
        (&["update-ref", "main", "HEAD~1"], AGENT),
    ];
    for (args, env) in tries {
        let run = repo.git_env(*args, env);
        assert_ne!(run.code, Some(0), "{args:?} should fail:\n{}", run.stderr);
        assert!(
            run.stderr.contains("ward: denied [EN-GIT-D-00"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("\nhint: "), "{args:?}: {}", run.stderr);
        assert_eq!(protected(&repo), before, "{args:?} moved a protected ref");
        repo.git(["reset", "-q", "--hard", "main"]).ok();
        let _ = repo.git(["cherry-pick", "--abort"]);
    }
    assert!(!repo.dir.join(".git/main").exists());
    // From another branch: force-moving main, and a rename onto it.
    repo.git(["checkout", "-q", "feat"]).ok();
    refused(repo.git_env(["branch", "-f", "main", "feat"], CLAUDE));
    assert_eq!(protected(&repo), before);
    let run = repo.git_env(["branch", "-M", "ahead", "main"], AGENT);
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(protected(&repo), before);
    // A branch -D after pack-refs (the ref lives in packed-refs only).
    repo.git(["pack-refs", "--all"]).ok();
    refused(repo.git_env(["branch", "-D", "main"], AGENT));
    assert_eq!(protected(&repo), before);
    // Denials are in the audit log, with the hook as source.
    let log = repo.ward(["audit", "--json"]).ok().stdout;
    assert!(
        log.contains("\"source\":\"reference-transaction\""),
        "{log}"
    );
}

#[test]
fn humans_are_not_bound_unless_everyone() {
    let repo = installed();
    repo.git(["commit", "-q", "--allow-empty", "-m", "human"])
        .ok();
    repo.git(["update-ref", "refs/heads/main", "HEAD~1"]).ok();
    repo.git(["tag", "-f", "v1", "HEAD"]).ok();
    repo.local_policy("[enforce]\nactors = \"everyone\"\n");
    let before = protected(&repo);
    repo.git(["commit", "-q", "--allow-empty", "-m", "human"])
        .code(1)
        .stderr_has("EN-GIT-D-00");
    repo.git(["update-ref", "refs/heads/main", "HEAD~1"])
        .code(128)
        .stderr_has("EN-GIT-D-001");
    assert_eq!(protected(&repo), before);
}

#[test]
fn gc_pack_refs_and_agent_branches_work() {
    let repo = installed();
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "work"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok();
    repo.git_env(["tag", "v2"], AGENT).ok();
    let before = protected(&repo);
    repo.git_env(["pack-refs", "--all"], AGENT).ok();
    repo.git_env(["gc", "-q"], AGENT).ok();
    assert_eq!(protected(&repo), before);
    repo.git_env(["reset", "-q", "--hard", "HEAD~1"], AGENT)
        .ok();
    repo.git_env(["branch", "-D", "agent/c1"], AGENT).code(1);
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    repo.git_env(["branch", "-D", "agent/c1"], AGENT).ok();
}

/// A bare remote with `main` pushed (upstream set) by a human.
fn with_remote(repo: &TestRepo) -> std::path::PathBuf {
    let remote = sibling(repo, "remote.git");
    repo.git([
        "init",
        "-q",
        "--bare",
        "-b",
        "main",
        remote.to_str().unwrap(),
    ])
    .ok();
    repo.git([
        "remote",
        "add",
        "origin",
        &format!("file://{}", remote.display()),
    ])
    .ok();
    repo.git(["push", "-q", "-u", "origin", "main", "v1"]).ok();
    remote
}

fn remote_refs(remote: &Path, repo: &TestRepo) -> String {
    repo.git([
        "--git-dir",
        remote.to_str().unwrap(),
        "for-each-ref",
        "--format=%(refname) %(objectname)",
    ])
    .ok()
    .stdout
}

#[test]
fn agent_pushes_never_move_protected_remote_refs() {
    let repo = installed();
    let remote = with_remote(&repo);
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "work"], AGENT)
        .ok();
    let before = remote_refs(&remote, &repo);
    for args in [
        &["push", "origin", "HEAD:main"][..],
        &["push", "--force", "origin", "HEAD~2:main"],
        &["push", "origin", "+HEAD:refs/heads/main"],
        &["push", "origin", ":main"],
        &["push", "origin", "HEAD:refs/tags/v9"],
        &["push", "origin", "HEAD:main", "HEAD:agent/c1"],
    ] {
        let run = repo.git_env(args, AGENT);
        assert_ne!(run.code, Some(0), "{args:?}:\n{}", run.stderr);
        assert!(
            run.stderr.contains("ward: denied [EN-GIT-D-00"),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(remote_refs(&remote, &repo), before, "{args:?}");
    }
    // Anyone's deletion of a protected remote ref is refused.
    repo.git(["push", "origin", ":main"])
        .code(1)
        .stderr_has("EN-GIT-D-005");
    // The agent's own branch is fine, and may be force-pushed.
    repo.git_env(["push", "-q", "origin", "HEAD"], AGENT).ok();
    repo.git_env(
        ["commit", "-q", "--amend", "--allow-empty", "-m", "work 2"],
        AGENT,
    )
    .ok();
    repo.git_env(["push", "-q", "--force", "origin", "HEAD"], AGENT)
        .ok();
    // A non-fast-forward elsewhere is a force push, whatever flag made it.
    repo.git(["push", "-q", "origin", "main:feat"]).ok();
    repo.git_env(["push", "origin", "+HEAD~2:feat"], AGENT)
        .code(1)
        .stderr_has("EN-GIT-D-005");
}

/// `--follow-tags` sends only the annotated tags what is pushed reaches:
/// the shim lets it through, and pre-push judges each tag git sends.
#[test]
fn follow_tags_is_judged_by_the_tags_it_sends() {
    let repo = installed();
    let remote = with_remote(&repo);
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.shim_env(["checkout", "-q", "-b", "agent/c1"], c1).ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "work"], c1)
        .ok();
    repo.shim_env(
        ["push", "-q", "--follow-tags", "-u", "origin", "agent/c1"],
        c1,
    )
    .ok();
    repo.git(["tag", "-a", "-m", "release", "rel-9"]).ok();
    let before = remote_refs(&remote, &repo);
    repo.shim_env(["push", "--follow-tags", "origin", "agent/c1"], c1)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-00")
        .stderr_has("tags/rel-9")
        .stderr_has("--no-follow-tags");
    repo.shim_env(["push", "-q", "--no-follow-tags", "origin", "agent/c1"], c1)
        .ok();
    assert_eq!(remote_refs(&remote, &repo), before);
}

/// With another agent prefix and remote, the push hints of the shim and
/// of pre-push name them and the contract, and following them works.
#[test]
fn push_hints_name_the_agent_branch_and_the_remote() {
    let repo = installed();
    let remote = with_remote(&repo);
    repo.git(["remote", "rename", "origin", "up"]).ok();
    repo.local_policy("[branches]\nagent_prefix = \"bot/\"\n");
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "work"], c1)
        .ok();
    assert_eq!(repo.branch(), "bot/c1");
    repo.shim_env(["push", "up", "bot/c1:main"], c1)
        .code(1)
        .stderr_has(
        "hint: push to a branch of your own (`git push up HEAD:bot/c1`) and open a merge request",
    );
    repo.git_env(["push", "up", "bot/c1:main"], c1)
        .code(1)
        .stderr_has(
        "hint: push to a branch of your own (`git push up HEAD:bot/c1`) and open a merge request",
    );
    repo.shim_env(["push", "-q", "up", "HEAD:bot/c1"], c1).ok();
    // push.force_allowed keeps its `agent/*`: no force push is offered.
    repo.shim_env(
        ["commit", "-q", "--amend", "--allow-empty", "-m", "work2"],
        c1,
    )
    .ok();
    repo.shim_env(["push", "-f", "up", "bot/c1"], c1)
        .code(1)
        .stderr_has("hint: push without force; push.force_allowed does not cover your agent branch 'bot/c1' either");
    repo.local_policy("[branches]\nagent_prefix = \"bot/\"\n[push]\nforce_allowed = [\"bot/*\"]\n");
    repo.git(["push", "-q", "up", "HEAD:feat"]).ok();
    repo.shim_env(
        ["commit", "-q", "--amend", "--allow-empty", "-m", "work3"],
        c1,
    )
    .ok();
    repo.git_env(["push", "-f", "up", "HEAD:feat"], c1)
        .code(1)
        .stderr_has("(`git push --force up bot/c1`)");
    repo.shim_env(["push", "-q", "--force", "up", "bot/c1"], c1)
        .ok();
    assert!(remote_refs(&remote, &repo).contains("refs/heads/bot/c1"));
    assert!(!remote_refs(&remote, &repo).contains("refs/heads/agent/"));
}

/// The shim's refusals of a protected ref fit its kind: a tag is made
/// anew, and a branch behind its upstream is synced by a fast-forward,
/// which then works.
#[test]
fn shim_protected_ref_hints_fit_tags_and_syncing() {
    let repo = installed();
    let remote = with_remote(&repo);
    crate::common::upstream_moves(&repo, &remote);
    repo.git(["fetch", "-q"]).ok();
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.shim_env(["tag", "-f", "v1", "origin/main"], c1)
        .code(1)
        .stderr_has("hint: protected tags are never moved or deleted; create a new tag instead");
    repo.shim_env(["reset", "--hard", "origin/main"], c1)
        .code(1)
        .stderr_has("`git merge --ff-only origin/main` (or `git pull --ff-only`)");
    repo.shim_env(["merge", "-q", "--ff-only", "origin/main"], c1)
        .ok();
    assert_eq!(repo.branch(), "main");
    assert_eq!(repo.rev("main"), repo.rev("origin/main"));
}

/// A person bound by the rules meets only the hooks: `explain` says a
/// hard reset of `main` to its upstream, a fast-forward, goes through (the
/// hook lets it, as syncing), and that a person's destructive command is
/// not checkpointed (no shim takes one); both hold when run.
#[test]
fn explain_for_a_person_under_everyone_predicts_the_hooks() {
    let repo = installed();
    let remote = with_remote(&repo);
    crate::common::upstream_moves(&repo, &remote);
    repo.git(["fetch", "-q"]).ok();
    repo.local_policy("[enforce]\nactors = \"everyone\"\n");
    let explain = |args: &[&str]| {
        let mut argv = vec!["explain", "--json", "--"];
        argv.extend(args);
        repo.ward_json(argv, &[]).1
    };
    let v = explain(&["reset", "--hard", "origin/main"]);
    assert_eq!(
        (&v["decision"], &v["checkpoint"]),
        (&"allow".into(), &false.into()),
        "{v}"
    );
    let v = explain(&["reset", "--hard", "v1"]);
    assert_eq!(v["code"], "EN-GIT-D-001", "{v}");
    let v = explain(&["reset", "--hard", "origin/main"]);
    assert!(v["rule"].as_str().unwrap().contains("no checkpoint"), "{v}");
    let before = repo.git(["for-each-ref", "refs/ward/"]).ok().stdout;
    repo.git(["reset", "-q", "--hard", "origin/main"]).ok();
    assert_eq!(repo.rev("main"), repo.rev("origin/main"));
    assert_eq!(repo.git(["for-each-ref", "refs/ward/"]).ok().stdout, before);
}

/// A pull on a protected branch with commits of its own cannot
/// fast-forward: the shim says so and how to merge on the agent branch,
/// naming the upstream, and following it works; a pull that failed for
/// another reason gets no such note.
#[test]
fn a_pull_that_would_merge_on_main_says_how_to_merge_elsewhere() {
    let repo = installed();
    let remote = with_remote(&repo);
    crate::common::upstream_moves(&repo, &remote);
    let c1 = &[("WARD_CONTRACT", "c1")];
    let url = repo.git(["remote", "get-url", "origin"]).ok().stdout;
    repo.git(["remote", "set-url", "origin", "/nowhere/at/all"])
        .ok();
    let failed = repo.shim_env(["pull", "-q"], c1);
    assert_ne!(failed.code, Some(0));
    failed
        .stderr_lacks("pull.ff=only")
        .stderr_lacks("hint: merge");
    repo.git(["remote", "set-url", "origin", url.trim()]).ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "local"])
        .ok();
    let run = repo.shim_env(["pull", "-q"], c1);
    assert_ne!(run.code, Some(0));
    run.stderr_has("ward: 'main' has commits that 'origin/main' lacks")
        .stderr_has("hint: merge on a branch of your own: `git switch -c agent/c1`, then `git pull --no-rebase origin main`");
    repo.shim_env(["switch", "-q", "-c", "agent/c1"], c1).ok();
    repo.shim_env(["pull", "-q", "--no-rebase", "origin", "main"], c1)
        .ok();
    assert!(repo
        .git(["merge-base", "--is-ancestor", "origin/main", "agent/c1"])
        .code
        .is_some_and(|c| c == 0));
}

/// `pull origin feature` on `main` brings another branch in: the agent is
/// moved to its own branch first, as for `merge origin/feature`, and
/// `main` stays; its own branch's pull still syncs it.
#[test]
fn a_pull_of_another_branch_on_main_moves_to_the_agent_branch() {
    let repo = installed();
    let _remote = with_remote(&repo);
    repo.git(["switch", "-q", "-c", "feature"]).ok();
    repo.write("f.txt", "f\n").commit("feature work");
    repo.git(["push", "-q", "origin", "feature"]).ok();
    repo.git(["switch", "-q", "main"]).ok();
    let main = repo.rev("main");
    let c1 = &[("WARD_CONTRACT", "c1")];
    let (_, v) = repo.ward_json(
        [
            "explain",
            "--json",
            "--as-agent",
            "--",
            "pull",
            "origin",
            "feature",
        ],
        c1,
    );
    assert_eq!(v["decision"], "autoswitch", "{v}");
    repo.shim_env(["pull", "-q", "--no-rebase", "origin", "feature"], c1)
        .ok()
        .stderr_has("switched to 'agent/c1'");
    assert_eq!(repo.branch(), "agent/c1");
    assert_eq!(repo.rev("main"), main);
    assert_eq!(repo.read("f.txt").as_deref(), Some("f\n"));
    // The remote's HEAD is its own default branch: a pull of it syncs.
    repo.git(["switch", "-q", "main"]).ok();
    let (_, v) = repo.ward_json(
        [
            "explain",
            "--json",
            "--as-agent",
            "--",
            "pull",
            "origin",
            "HEAD",
        ],
        c1,
    );
    assert_eq!(v["decision"], "allow", "{v}");
}

#[test]
fn pull_ff_only_syncs_a_clean_protected_branch() {
    let repo = installed();
    let remote = with_remote(&repo);
    crate::common::upstream_moves(&repo, &remote);
    repo.git_env(["pull", "-q", "--ff-only"], AGENT).ok();
    assert_eq!(repo.rev("main"), repo.rev("origin/main"));
    // Creating a protected branch from its remote-tracking ref is syncing too.
    repo.git(["checkout", "-q", "--detach"]).ok();
    repo.git(["branch", "-D", "main"]).ok();
    repo.git_env(["checkout", "-q", "main"], AGENT).ok();
    assert_eq!(repo.rev("main"), repo.rev("origin/main"));
    // Resetting it anywhere else is not.
    repo.git_env(["reset", "-q", "--hard", "HEAD~1"], AGENT)
        .code(128)
        .stderr_has("EN-GIT-D-001");
    // Nor is moving it onto an upstream in the repository itself (remote
    // `.`), which is a branch like any other.
    let ahead = repo
        .git(["commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "topic"])
        .ok()
        .stdout
        .trim()
        .to_string();
    repo.git(["branch", "topic", &ahead]).ok();
    repo.git(["branch", "-q", "--set-upstream-to=topic", "main"])
        .ok();
    let main = repo.rev("main");
    for args in [
        &["merge", "-q", "--ff-only", "topic"][..],
        &["update-ref", "refs/heads/main", "topic"],
    ] {
        let run = repo.git_env(args, AGENT);
        assert_ne!(run.code, Some(0), "{args:?}");
        assert!(
            run.stderr.contains("EN-GIT-D-001"),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(repo.rev("main"), main, "{args:?}");
    }
}

/// A hook cannot move the agent: it is told to switch itself, whether or
/// not a contract is active (starting one moves it only through the shim).
#[test]
fn pre_commit_refuses_where_the_shim_would_switch() {
    let repo = installed();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-003] commit on protected branch 'main' needs an active contract")
        .stderr_has("hint: work on a branch of your own (`git switch -c <name>`), then retry; or start a contract (`git ward contract start <id>`) and commit through the git-ward shim, which moves you");
    let c1 = [("WARD_CONTRACT", "c1")];
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], &c1)
        .code(1)
        .stderr_has("(`git switch -c agent/c1`), then retry; the git-ward shim does this for you");
    // Where the agent branch exists, the hint checks it out.
    repo.git(["branch", "agent/c1"]).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], &c1)
        .code(1)
        .stderr_has("(`git switch agent/c1`), then retry");
    repo.git_env(["switch", "-q", "agent/c1"], &c1).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], &c1)
        .ok();
    let log = repo.ward(["audit", "--json"]).ok().stdout;
    assert!(log.contains("\"source\":\"pre-commit\""), "{log}");
}

/// A protected tag may be created, but not as a symbolic ref: that one
/// would move with the branch it points to. Gits from 2.45 on pass the
/// symbolic ref to reference-transaction; older ones write it past the
/// hook (README).
#[test]
fn a_protected_tag_is_never_a_symbolic_ref() {
    let repo = installed();
    repo.git(["switch", "-q", "-c", "feat"]).ok();
    let version = repo.git(["--version"]).ok().stdout;
    let minor: u32 = version
        .trim()
        .trim_start_matches("git version 2.")
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap();
    let run = repo.git_env(["symbolic-ref", "refs/tags/v2", "refs/heads/feat"], AGENT);
    if minor >= 45 {
        run.code(128).stderr_has(
            "ward: denied [EN-GIT-D-001] symbolic-ref creates protected tag 'tags/v2' as a symbolic ref to 'refs/heads/feat'",
        );
        assert!(
            repo.git(["rev-parse", "-q", "--verify", "refs/tags/v2"])
                .code
                != Some(0)
        );
    }
    // A plain one is made, and a person's symbolic one too.
    repo.git_env(["tag", "v3"], AGENT).ok();
    repo.git(["symbolic-ref", "refs/tags/v4", "refs/heads/feat"])
        .ok();
}

/// The commit writes the branch a symbolic-ref branch names: pre-commit
/// judges that one.
#[test]
fn pre_commit_follows_a_branch_that_is_a_symbolic_ref() {
    let repo = installed();
    repo.git(["symbolic-ref", "refs/heads/foo", "refs/heads/main"])
        .ok();
    repo.git(["symbolic-ref", "HEAD", "refs/heads/foo"]).ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-003] commit on protected branch 'main' needs an active contract");
    let log = repo.ward(["audit", "--json"]).ok().stdout;
    assert!(log.contains("\"source\":\"pre-commit\""), "{log}");
}

#[test]
fn the_journal_records_real_old_values_under_the_trace() {
    let repo = installed();
    let env = &[("WARD_AGENT", "1"), ("WARD_TRACE_ID", "t-1")];
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], env).ok();
    let base = repo.rev("HEAD").unwrap();
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "w"],
        &[("WARD_AGENT", "1"), ("WARD_TRACE_ID", "t-2")],
    )
    .ok();
    let tip = repo.rev("HEAD").unwrap();
    repo.git(["checkout", "-q", "main"]).ok();
    repo.git_env(
        ["branch", "-D", "agent/c1"],
        &[("WARD_AGENT", "1"), ("WARD_TRACE_ID", "t-3")],
    )
    .ok();
    repo.git([
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "human, not journaled",
    ])
    .ok();
    let lines: Vec<serde_json::Value> = std::fs::read_dir(repo.dir.join(".git/ward/audit"))
        .unwrap()
        .flat_map(|f| {
            std::fs::read_to_string(f.unwrap().path())
                .unwrap()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .map(|l| serde_json::from_str(&l).unwrap())
        .filter(|v: &serde_json::Value| v["actions_taken"][0] == "journal")
        .collect();
    let find = |trace: &str, r: &str| {
        lines
            .iter()
            .find(|v| v["trace_id"] == trace && v["ref"] == r)
            .unwrap_or_else(|| panic!("no journal line {trace} {r}: {lines:#?}"))
    };
    let zero = "0".repeat(40);
    assert_eq!(find("t-1", "refs/heads/agent/c1")["old"], zero.as_str());
    assert_eq!(find("t-1", "refs/heads/agent/c1")["new"], base.as_str());
    let c = find("t-2", "refs/heads/agent/c1");
    assert_eq!(
        (c["old"].as_str(), c["new"].as_str()),
        (Some(base.as_str()), Some(tip.as_str()))
    );
    assert_eq!(c["source"], "reference-transaction");
    assert_eq!(c["operation"], "git.ref-update");
    assert_eq!(c["actor"], "agent");
    assert_eq!(c["tier"], 1);
    assert_eq!(c["exit_code"], 0);
    assert_eq!(find("t-2", "HEAD")["old"], base.as_str());
    let d = find("t-3", "refs/heads/agent/c1");
    assert_eq!(
        (d["old"].as_str(), d["new"].as_str()),
        (Some(tip.as_str()), Some(zero.as_str()))
    );
    assert_eq!(
        lines.iter().filter(|v| v["trace_id"] == "t-3").count(),
        1,
        "{lines:#?}"
    );
    assert!(lines.iter().all(|v| v["actor"] == "agent"));
    assert!(
        !repo
            .dir
            .join(".git/ward/tx")
            .read_dir()
            .unwrap()
            .any(|_| true),
        "carry-over files are cleaned up"
    );
}

#[test]
fn install_shim_makes_the_link_and_prints_the_path_line() {
    let repo = TestRepo::new();
    let dir = repo.path("myshim");
    let out = repo.ward(["install", "--shim", dir.to_str().unwrap()]).ok();
    assert!(
        out.stdout
            .contains(&format!("export PATH=\"{}:$PATH\"", dir.display())),
        "{}",
        out.stdout
    );
    let target = std::fs::read_link(dir.join("git")).unwrap();
    assert_eq!(target, crate::common::ward_bin().canonicalize().unwrap());
    repo.ward(["install", "--shim", dir.to_str().unwrap()])
        .ok()
        .stdout_has("unchanged");
    let out = repo.ward(["install", "--shim", "--json"]).ok();
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert!(
        v["shim_dir"]
            .as_str()
            .unwrap()
            .ends_with(".local/share/git-ward/shim"),
        "{v}"
    );
}

/// A directory where the shim's link would go is an invalid argument,
/// with or without `--force`, never an internal error.
#[test]
fn install_shim_over_a_directory_is_refused_as_invalid() {
    let repo = TestRepo::new();
    let dir = repo.path("myshim");
    std::fs::create_dir_all(dir.join("git")).unwrap();
    for force in [&[][..], &["--force"][..]] {
        let mut args = vec!["install", "--shim", dir.to_str().unwrap(), "--json"];
        args.extend(force);
        let (run, v) = repo.ward_json(args, &[]);
        assert_eq!(run.code, Some(2), "{force:?}: {v}");
        assert_eq!(v["status"], "I", "{v}");
        assert_eq!(v["code"], "EN-GIT-I-001", "{v}");
        assert!(
            v["message"].as_str().unwrap().contains("is a directory"),
            "{v}"
        );
    }
    assert!(dir.join("git").is_dir());
}

#[test]
fn policy_changes_reach_the_hooks_at_once() {
    let repo = installed();
    repo.git_env(["branch", "trunk"], AGENT).ok();
    repo.git_env(["branch", "-f", "trunk", "HEAD~1"], AGENT)
        .ok();
    // The team layer: committed on main, read from there.
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"main\", \"trunk\"]\n",
    );
    repo.commit("team policy");
    refused(repo.git_env(["branch", "-f", "trunk", "HEAD"], AGENT));
    // The local layer.
    repo.local_policy("[branches]\nprotected = [\"main\"]\n");
    repo.git_env(["branch", "-f", "trunk", "HEAD"], AGENT).ok();
}

/// A brace pattern names its branches one by one: the team layer comes
/// from `main` of `{main,develop}`, never from a branch an agent makes
/// under the pattern's literal name.
#[test]
fn a_brace_pattern_names_the_team_layers_branch() {
    let repo = installed();
    let user = repo.home.join(".config/git-ward");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("policy.toml"),
        "[branches]\nprotected = [\"{main,develop}\"]\n",
    )
    .unwrap();
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"{main,develop}\", \"trunk\"]\n",
    );
    repo.commit("team policy");
    repo.git(["branch", "trunk"]).ok();
    refused(repo.git_env(["branch", "-f", "trunk", "HEAD~1"], AGENT));
    repo.git_env(["switch", "-q", "-c", "{main,develop}"], AGENT)
        .ok();
    repo.write(".ward/policy.toml", "[branches]\nprotected = []\n");
    repo.git_env(["commit", "-qam", "no rules"], AGENT).ok();
    repo.git(["switch", "-q", "main"]).ok();
    refused(repo.git_env(["branch", "-f", "trunk", "HEAD~1"], AGENT));
    refused(repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT));
}

/// The team layer comes from the first protected branch that exists: an
/// agent may not make an earlier one (even syncing it from its upstream),
/// which would swap the team's rules for whatever that branch holds. A
/// person may.
#[test]
fn an_agent_may_not_make_the_branch_the_team_layer_would_move_to() {
    let repo = installed();
    let _remote = with_remote(&repo);
    repo.git(["switch", "-q", "-c", "master"]).ok();
    repo.write(
        ".ward/policy.toml",
        "[branches]\nprotected = [\"main\", \"master\", \"develop\"]\n",
    );
    repo.commit("team policy");
    repo.git(["branch", "develop"]).ok();
    repo.git(["branch", "-D", "main"]).ok();
    let c1 = &[("WARD_CONTRACT", "c1")];
    repo.shim_env(["checkout", "-q", "main"], c1)
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-001] checkout creates protected branch 'main', which would then be where the team policy is read from, in place of 'master'")
        .stderr_has("hint:");
    refused(repo.git_env(["branch", "main", "origin/main"], AGENT));
    assert!(repo.rev("refs/heads/main").is_none());
    // The team's rules still hold: develop is protected.
    refused(repo.git_env(["branch", "-f", "develop", "HEAD~1"], AGENT));
    repo.git(["branch", "main", "origin/main"]).ok();
}

#[test]
fn a_policy_file_replaced_with_its_size_and_time_kept_reaches_the_hooks() {
    let repo = installed();
    repo.git_env(["branch", "trunk", "HEAD~1"], AGENT).ok();
    // As `cp -p` installs a new version: written in place, the same size,
    // the old modification time put back.
    let install = |text: &str| {
        repo.local_policy(text);
        let file = std::fs::File::options()
            .write(true)
            .open(repo.dir.join(".git/ward/policy.toml"))
            .unwrap();
        file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30))
            .unwrap();
    };
    install("[branches]\nprotected = [\"main\", \"zzzzz\"]\n");
    repo.git_env(["branch", "-f", "trunk", "HEAD"], AGENT).ok();
    // The ctime the kernel sets is coarser than a nanosecond.
    std::thread::sleep(std::time::Duration::from_millis(50));
    install("[branches]\nprotected = [\"main\", \"trunk\"]\n");
    refused(repo.git_env(["branch", "-f", "trunk", "HEAD~1"], AGENT));
}

#[test]
fn a_policy_file_that_is_a_dangling_link_refuses_instead_of_vanishing() {
    let user = |repo: &TestRepo| repo.home.join(".config/git-ward/policy.toml");
    let local = |repo: &TestRepo| repo.dir.join(".git/ward/policy.toml");
    for layer in [user, local] {
        let repo = installed();
        repo.git(["checkout", "-q", "-b", "feat"]).ok();
        // The hooks have run (and cached their settings) with no such layer.
        repo.git_env(["commit", "-q", "--allow-empty", "-m", "a"], AGENT)
            .ok();
        let path = layer(&repo);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(repo.path("moved-away.toml"), &path).unwrap();
        let before = repo.rev("feat");
        repo.git_env(["commit", "-q", "--allow-empty", "-m", "b"], AGENT)
            .code(1)
            .stderr_has("EN-GIT-E-001")
            .stderr_has("moved-away.toml, which does not exist");
        assert_eq!(repo.rev("feat"), before);
        // And doctor says why.
        repo.ward(["doctor"]).code(3).stdout_has("symbolic link");
    }
}

#[test]
fn a_real_deletion_is_not_mistaken_for_pack_refs() {
    let repo = installed();
    let main = repo.rev("main").unwrap();
    repo.git(["checkout", "-q", "--detach"]).ok();
    // Loose and packed hold the same value, as in the middle of pack-refs.
    repo.git(["pack-refs", "--all", "--no-prune"]).ok();
    refused(repo.git_env(["update-ref", "-d", "refs/heads/main", &main], AGENT));
    assert_eq!(repo.rev("refs/heads/main").as_deref(), Some(main.as_str()));
    repo.git_env(["pack-refs", "--all"], AGENT).ok();
    assert_eq!(repo.rev("refs/heads/main").as_deref(), Some(main.as_str()));
}

/// Installs hooks from a copy of git-ward at `rel` (under the test repo),
/// removes the copy, and returns a commit's run with no git-ward on PATH.
fn commit_without_binary(repo: &TestRepo, rel: &str) -> crate::common::Run {
    install_from_copy(repo, rel, "install");
    // PATH holds git but no git-ward.
    let path = crate::common::real_git()
        .parent()
        .unwrap()
        .display()
        .to_string()
        + ":/usr/bin:/bin";
    repo.git_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("PATH", path.as_str())],
    )
}

/// Runs `git ward <install>` from a copy of git-ward at `rel` (under the
/// test repo), then removes the copy.
fn install_from_copy(repo: &TestRepo, rel: &str, install: &str) {
    let copy = repo.path(rel);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(crate::common::ward_bin(), &copy).unwrap();
    // Another test thread may still hold the copy's write descriptor across a
    // fork for a moment ("text file busy"): retry.
    let out = (0..50)
        .find_map(|_| {
            match std::process::Command::new(&copy)
                .current_dir(&repo.dir)
                .env("WARD_REAL_GIT", crate::common::real_git())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &repo.home)
                .args(install.split(' '))
                .output()
            {
                Ok(out) => Some(out),
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    None
                }
                Err(e) => panic!("{e}"),
            }
        })
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_file(&copy).unwrap();
}

#[test]
fn a_missing_binary_fails_closed() {
    // `#!/path/git-ward hook`: git cannot start the hook and refuses.
    let repo = TestRepo::new();
    let before = repo.rev("main");
    let run = commit_without_binary(&repo, "bin/git-ward-copy");
    assert_ne!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("hooks/pre-commit"), "{}", run.stderr);
    assert_eq!(repo.rev("main"), before);
    // Any git-ward that runs later says what happened.
    repo.ward(["doctor"])
        .stdout_has("git-ward-copy, which is gone");
    // A path with a blank cannot stand in a `#!` line: the `/bin/sh` form,
    // which says it itself.
    let repo = TestRepo::new();
    let before = repo.rev("main");
    commit_without_binary(&repo, "with blank/git-ward-copy")
        .code(1)
        .stderr_has("ward: error: git-ward is missing");
    assert_eq!(repo.rev("main"), before);
}

#[test]
fn the_shim_points_hooks_whose_binary_is_gone_at_itself() {
    for install in ["install", "install --link"] {
        let repo = TestRepo::new();
        repo.git(["checkout", "-q", "-b", "feat"]).ok();
        install_from_copy(&repo, "bin/git-ward-copy", install);
        let hook = hooks_dir(&repo).join("reference-transaction");
        let gone = if install.ends_with("--link") {
            "is a link to"
        } else {
            "starts"
        };
        repo.ward(["doctor"])
            .stdout_has(gone)
            .stdout_has("git-ward-copy, which is gone");
        // The shim, found on PATH, is git-ward: the hooks start it from now on.
        let before = repo.rev("feat");
        repo.shim(["commit", "-q", "--allow-empty", "-m", "x"])
            .ok()
            .stderr_has("git-ward-copy, which is gone; they now start");
        assert_ne!(repo.rev("feat"), before, "{install}: the commit was made");
        assert!(
            !hook.symlink_metadata().unwrap().is_symlink() || install.ends_with("--link"),
            "{install}: the form stays"
        );
        repo.ward(["doctor"]).ok();
        // A git that skips the shim runs them too: they still refuse.
        refused(repo.git_env(["update-ref", "refs/heads/main", "HEAD"], AGENT));
        let quiet = repo.shim(["commit", "-q", "--allow-empty", "-m", "y"]).ok();
        assert!(
            !quiet.stderr.contains("ward:"),
            "{install}: {}",
            quiet.stderr
        );
    }
}

#[test]
fn a_destructive_command_first_after_the_binary_went_is_checkpointed() {
    // The checkpoint's own `update-ref` runs the hooks: they are repointed
    // before it, not after.
    let repo = TestRepo::new();
    repo.git(["checkout", "-q", "-b", "feat"]).ok();
    install_from_copy(&repo, "bin/git-ward-copy", "install");
    repo.write("README", "an hour of work\n");
    let count = repo.checkpoint_count();
    repo.shim_env(["reset", "-q", "--hard"], &[("WARD_CONTRACT", "c1")])
        .ok()
        .stderr_has("they now start");
    assert_eq!(repo.checkpoint_count(), count + 1);
}

#[test]
fn linked_worktrees_share_the_hooks() {
    let repo = installed();
    let wt = sibling(&repo, "wt");
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "agent/c1",
        wt.to_str().unwrap(),
    ])
    .ok();
    let before = protected(&repo);
    let wt_s = wt.to_str().unwrap();
    refused(repo.git_env(
        ["-C", wt_s, "update-ref", "refs/heads/main", "HEAD~1"],
        AGENT,
    ));
    refused(repo.git_env(["-C", wt_s, "push", ".", "+HEAD~1:main"], AGENT));
    assert_eq!(protected(&repo), before);
    repo.git_env(
        ["-C", wt_s, "commit", "-q", "--allow-empty", "-m", "w"],
        &[("WARD_CONTRACT", "c1")],
    )
    .ok();
    let msg = repo
        .git(["log", "-1", "--format=%B", "agent/c1"])
        .ok()
        .stdout;
    assert!(msg.contains("Contract: c1"), "{msg}");
}

#[test]
fn the_link_form_enforces_and_chains_the_same() {
    let repo = TestRepo::new();
    let dir = hooks_dir(&repo);
    let log = repo.path("chain.log");
    write_hook(
        &dir.join("commit-msg"),
        &format!("#!/bin/sh\necho ran >> {}\n", log.display()),
    );
    let before = snapshot(&dir);
    repo.ward(["install", "--link"]).ok().stdout_has("chained");
    assert!(std::fs::read_link(dir.join("reference-transaction")).is_ok());
    repo.ward(["install", "--link"])
        .ok()
        .stdout_has("unchanged");
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"]).ok();
    refused(repo.git_env(["update-ref", "refs/heads/main", "HEAD~1"], AGENT));
    assert!(std::fs::read_to_string(&log).unwrap().contains("ran"));
    // Back to scripts, then out.
    repo.ward(["install"]).ok().stdout_has("updated");
    repo.ward(["uninstall"]).ok();
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn the_shim_refuses_while_hooks_went_missing_or_were_replaced() {
    let repo = TestRepo::new();
    repo.git(["checkout", "-q", "-b", "feat"]).ok();
    repo.ward(["install"]).ok();
    let quiet = repo.shim(["commit", "-q", "--allow-empty", "-m", "x"]).ok();
    assert!(!quiet.stderr.contains("warning"), "{}", quiet.stderr);
    write_hook(&hooks_dir(&repo).join("pre-commit"), "#!/bin/sh\nexit 0\n");
    std::fs::remove_file(hooks_dir(&repo).join("reference-transaction")).unwrap();
    repo.shim(["commit", "-q", "--allow-empty", "-m", "y"])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("pre-commit");
    repo.ward(["install", "--force"]).ok();
    let fixed = repo.shim(["commit", "-q", "--allow-empty", "-m", "z"]).ok();
    assert!(!fixed.stderr.contains("warning"), "{}", fixed.stderr);
}

#[test]
fn a_rename_onto_a_new_protected_name_is_refused() {
    let repo = installed();
    repo.git(["branch", "tmp"]).ok();
    refused(repo.git_env(["branch", "-m", "tmp", "release/9"], AGENT));
    assert_eq!(repo.rev("refs/heads/release/9"), None);
    assert!(repo.rev("refs/heads/tmp").is_some());
    repo.git_env(["branch", "-m", "tmp", "agent/x"], AGENT).ok();
    repo.git(["branch", "-m", "agent/x", "release/9"]).ok();
}

#[test]
fn a_hooks_path_from_an_included_file_is_reported() {
    let repo = installed();
    let elsewhere = repo.path("other-hooks");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let inc = repo.home.join("hooks.inc");
    std::fs::write(
        &inc,
        format!("[core]\n\thooksPath = {}\n", elsewhere.display()),
    )
    .unwrap();
    std::fs::write(
        repo.home.join(".gitconfig"),
        format!(
            "[includeIf \"gitdir:{}/\"]\n\tpath = {}\n",
            repo.dir.display(),
            inc.display()
        ),
    )
    .unwrap();
    repo.ward(["doctor"])
        .stdout_has("FAIL hooks")
        .stdout_has("(core.hooksPath in the global config)");
    // Included by the repository's own config, relative to it.
    std::fs::remove_file(repo.home.join(".gitconfig")).unwrap();
    repo.ward(["doctor"]).stdout_has("ok   hooks");
    std::fs::copy(&inc, repo.dir.join(".git/hooks.inc")).unwrap();
    repo.git(["config", "include.path", "hooks.inc"]).ok();
    repo.ward(["doctor"])
        .stdout_has("FAIL hooks")
        .stdout_has("(core.hooksPath in the repository config)");
}

#[test]
fn a_global_hooks_path_set_after_install_is_reported() {
    let repo = installed();
    repo.ward(["doctor"]).stdout_has("ok   hooks");
    // Set later, in the user's config: git now runs hooks from there.
    let elsewhere = repo.path("other-hooks");
    std::fs::create_dir_all(&elsewhere).unwrap();
    repo.git([
        "config",
        "--global",
        "core.hooksPath",
        elsewhere.to_str().unwrap(),
    ])
    .ok();
    repo.ward(["doctor"])
        .stdout_has("FAIL hooks")
        .stdout_has("(core.hooksPath in the global config)")
        .stdout_has("they do not run")
        .stdout_has("git config --global --unset core.hooksPath")
        .stdout_has("core.hooksPath = ");
    // --fix does not install into a directory other repositories share.
    repo.ward(["doctor", "--fix"]).stdout_has("FAIL hooks");
    repo.ward(["install"])
        .code(2)
        .stderr_has("`git config --global --unset core.hooksPath`");
    assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[("WARD_CONTRACT", "c1")],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004")
    .stderr_has(elsewhere.to_str().unwrap());
}

/// A failed check is an error: `--json` says
/// status E, and the exit status is the one that goes with it, 3.
#[test]
fn a_failed_doctor_check_is_an_error_in_status_and_exit() {
    let repo = installed();
    let (run, v) = repo.ward_json(["doctor", "--json"], &[]);
    assert_eq!(
        (run.code, v["status"].as_str()),
        (Some(0), Some("S")),
        "{v}"
    );
    repo.local_policy("[checkout\n");
    let (run, v) = repo.ward_json(["doctor", "--json"], &[]);
    assert_eq!(
        (run.code, v["status"].as_str()),
        (Some(3), Some("E")),
        "{v}"
    );
    repo.ward(["doctor"]).code(3).stdout_has("FAIL policy");
}

/// The hooks are what enforces the rules on a git that skips the shim
/// ("hooks present and current"): where they were never
/// installed, or were uninstalled, doctor fails its hooks check, and
/// `--fix` installs them.
#[test]
fn doctor_fails_where_the_hooks_are_not_installed_and_fix_installs_them() {
    let repo = TestRepo::new();
    let ours = |repo: &TestRepo| {
        std::fs::read_to_string(hooks_dir(repo).join("reference-transaction"))
            .is_ok_and(|t| t.contains("git-ward hook"))
    };
    repo.ward(["doctor"])
        .code(3)
        .stdout_has("FAIL hooks      git-ward's hooks are not installed in this repository")
        .stdout_has("hint: run `git ward install`");
    let (run, v) = repo.ward_json(["doctor", "--json"], &[]);
    let hooks = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "hooks")
        .unwrap();
    assert_eq!(
        (run.code, v["status"].as_str()),
        (Some(3), Some("E")),
        "{v}"
    );
    assert_eq!(hooks["level"], "fail", "{v}");
    assert!(!ours(&repo));

    repo.ward(["doctor", "--fix"])
        .ok()
        .stdout_has("ok   hooks      installed and current");
    assert!(ours(&repo));
    refused(repo.git_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT));
    repo.ward(["doctor"]).ok();

    repo.ward(["uninstall"]).ok();
    assert!(!ours(&repo));
    repo.ward(["doctor"])
        .code(3)
        .stdout_has("git-ward's hooks are not installed");
    // Only the server's hook, in a working repository: still not installed.
    repo.ward(["install", "--server"]).ok();
    repo.ward(["doctor"])
        .code(3)
        .stdout_has("git-ward's hooks are not installed");
    repo.ward(["uninstall"]).ok();

    // --fix installs as `git ward install` does: not into a directory
    // core.hooksPath names relative to the working tree.
    repo.git(["config", "core.hooksPath", ".githooks"]).ok();
    repo.ward(["doctor", "--fix"])
        .code(3)
        .stdout_has("`git ward install` failed: invalid [EN-GIT-I-001] not installing: core.hooksPath = .githooks is relative");
    assert!(!repo.dir.join(".githooks").exists());
}

/// Run as `git ward doctor` through the shim, doctor reads PATH as the
/// agent's shell set it, not with the exec path git put in front.
#[test]
fn doctor_through_git_sees_the_shim_first() {
    let repo = TestRepo::new();
    let tools = sibling(&repo, "tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(crate::common::ward_bin(), tools.join("git-ward")).unwrap();
    let mut cmd = repo.shim_command(["ward", "doctor"]);
    let path = std::env::join_paths(
        std::iter::once(repo.shim_dir.clone())
            .chain(std::iter::once(tools))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    cmd.env("PATH", path);
    crate::common::Run::from(cmd.output().unwrap())
        .stdout_has("ok   shim ")
        .stdout_has("is git-ward, first on PATH");
}

/// Where no hooks are expected, doctor does not fail for their absence:
/// outside a repository (`./install` runs doctor wherever it is started),
/// and in a bare repository, whose pre-receive hook is optional.
#[test]
fn doctor_passes_without_hooks_outside_a_repository_and_in_a_bare_one() {
    let repo = TestRepo::new();
    let bare = repo.bare_at(sibling(&repo, "server.git"));
    let outside = sibling(&repo, "outside");
    std::fs::create_dir_all(&outside).unwrap();
    let doctor = |dir: &Path| {
        let mut cmd = repo.ward_command(["doctor"]);
        cmd.current_dir(dir)
            .env("GIT_CEILING_DIRECTORIES", repo.tmp.path());
        crate::common::Run::from(cmd.output().unwrap())
    };
    doctor(&outside)
        .ok()
        .stdout_has("warn repository not in a git repository: hook checks skipped");
    doctor(&bare)
        .ok()
        .stdout_has("ok   hooks      none in this bare repository");
    let mut cmd = repo.ward_command(["install", "--server"]);
    cmd.current_dir(&bare);
    assert!(cmd.output().unwrap().status.success());
    doctor(&bare)
        .ok()
        .stdout_has("ok   hooks      installed and current");
    std::fs::remove_file(bare.join("hooks/pre-receive")).unwrap();
    doctor(&bare)
        .code(3)
        .stdout_has("pre-receive hook is missing")
        .stdout_has("`git ward install --server`");
    // `--fix` puts it back as `install --server` would.
    let mut cmd = repo.ward_command(["doctor", "--fix"]);
    cmd.current_dir(&bare)
        .env("GIT_CEILING_DIRECTORIES", repo.tmp.path());
    crate::common::Run::from(cmd.output().unwrap()).ok();
    assert!(bare.join("hooks/pre-receive").exists());
    doctor(&bare)
        .ok()
        .stdout_has("ok   hooks      installed and current");
}

/// A package manager keeps git-ward in a versioned directory with a link
/// to it on PATH: the hooks (and the shim) name the link, which an upgrade
/// repoints, not the versioned path, which it removes.
#[test]
fn hooks_name_git_ward_by_its_link_on_path_and_outlive_an_upgrade() {
    let repo = TestRepo::new();
    let root = repo.tmp.path();
    let place = |version: &str| {
        let dir = root.join("cellar").join(version);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("git-ward");
        if std::fs::hard_link(crate::common::ward_bin(), &file).is_err() {
            crate::common::copy_ward_bin(&file);
        }
        file
    };
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("git-ward");
    std::os::unix::fs::symlink(place("1"), &link).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for args in [&["install"][..], &["install", "--shim", "shim"]] {
        let mut cmd = std::process::Command::new(&link);
        repo.hermetic(&mut cmd);
        let out = cmd.env("PATH", &path).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let hook = std::fs::read_to_string(hooks_dir(&repo).join("pre-commit")).unwrap();
    assert_eq!(
        hook.lines().next(),
        Some(format!("#!{} hook", link.display()).as_str())
    );
    assert_eq!(std::fs::read_link(repo.dir.join("shim/git")).unwrap(), link);
    // The upgrade: a new version, the link repointed, the old one gone.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(place("2"), &link).unwrap();
    std::fs::remove_dir_all(root.join("cellar/1")).unwrap();
    repo.git(["commit", "-q", "--allow-empty", "-m", "after the upgrade"])
        .ok();
    assert_eq!(
        repo.git(["log", "-1", "--format=%s"]).ok().stdout.trim(),
        "after the upgrade"
    );
}

#[test]
fn an_agent_makes_no_replacement_ref() {
    let repo = installed();
    let main = repo.rev("main").unwrap();
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    repo.write("README", "the agent's\n");
    repo.git_env(["commit", "-q", "-am", "forged"], AGENT).ok();
    let forged = repo.rev("agent/c1").unwrap();
    let replacements = |repo: &TestRepo| repo.git(["replace", "-l"]).ok().stdout;
    for args in [
        &["replace", &main, &forged][..],
        &["replace", "--graft", &main],
        &["update-ref", &format!("refs/replace/{main}"), &forged],
    ] {
        refused(repo.git_env(args, AGENT));
        assert_eq!(replacements(&repo), "", "{args:?}");
    }
    assert_eq!(
        repo.git(["show", "main:README"]).ok().stdout,
        "hello\n",
        "main reads as it is"
    );
    // Through the shim, refused before git runs, as explain says.
    for args in [
        &["replace", &main, &forged][..],
        &["update-ref", &format!("refs/replace/{main}"), &forged],
    ] {
        repo.shim_env(args, AGENT)
            .code(1)
            .stderr_has("[EN-GIT-D-001]")
            .stderr_has("writes a replacement ref");
        let explain: Vec<&str> = ["explain", "--"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        repo.ward_env(explain, AGENT).stdout_has("decision:   deny");
    }
    // A person may; an agent may take one away.
    repo.git(["replace", &main, &forged]).ok();
    repo.shim_env(["replace", "-l"], AGENT)
        .ok()
        .stdout_has(&main);
    repo.git_env(["replace", "-d", &main], AGENT).ok();
    assert_eq!(replacements(&repo), "");
}

#[test]
fn an_agent_makes_no_ref_that_git_reads_for_a_protected_branch() {
    let repo = installed();
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    repo.git_env(["commit", "-q", "--allow-empty", "-m", "agent's"], AGENT)
        .ok();
    let main = repo.rev("main").unwrap();
    let before = ref_names(&repo);
    for args in [
        &["tag", "main"][..],
        &["tag", "-a", "-m", "x", "release/9"],
        &["update-ref", "refs/main", "HEAD"],
        &["update-ref", "refs/tags/master", "HEAD"],
        // The remote-tracking name main syncs to: `git merge origin/main`
        // reads a tag of that name first.
        &["tag", "origin/main"],
        &["update-ref", "refs/origin/main", "HEAD"],
    ] {
        for run in [repo.git_env(args, AGENT), repo.shim_env(args, AGENT)] {
            assert_ne!(run.code, Some(0), "{args:?} went through");
            refused(run);
        }
        assert_eq!(ref_names(&repo), before, "{args:?}");
    }
    assert_eq!(repo.rev("main").as_deref(), Some(main.as_str()));
    // Any other tag is the agent's to make.
    repo.git_env(["tag", "v9"], AGENT).ok();
}

/// A branch `origin/main` is what git reads for `origin/main` before
/// `refs/remotes/origin/main`, where `origin` is a remote: an agent's is
/// refused however it is made; one under another first part is not.
#[test]
fn an_agent_makes_no_branch_named_like_a_remotes_protected_branch() {
    let repo = installed();
    repo.git(["remote", "add", "origin", "/nowhere"]).ok();
    repo.git_env(["checkout", "-q", "-b", "agent/c1"], AGENT)
        .ok();
    let before = ref_names(&repo);
    for args in [
        &["branch", "origin/main"][..],
        &["checkout", "-q", "-b", "origin/main"],
        &["update-ref", "refs/heads/origin/master", "HEAD"],
        &["branch", "-m", "agent/c1", "origin/main"],
    ] {
        for run in [repo.git_env(args, AGENT), repo.shim_env(args, AGENT)] {
            assert_ne!(run.code, Some(0), "{args:?} went through");
            assert!(
                run.stderr.contains("which git reads for 'origin/m"),
                "{args:?}: {}",
                run.stderr
            );
            refused(run);
        }
        assert_eq!(ref_names(&repo), before, "{args:?}");
    }
    // A remote the agent added itself counts too (`remote remove origin`
    // and `remote add origin <url>` make one).
    repo.shim_env(["remote", "add", "up", "/nowhere"], AGENT)
        .ok();
    refused(repo.git_env(["branch", "up/main"], AGENT));
    repo.git_env(["branch", "feature/main"], AGENT).ok();
    repo.git(["branch", "origin/main"]).ok();
}

/// With `enforce.actors = "everyone"` a person on a protected branch is
/// told to switch to a branch of their own (no shim moves a person; a
/// contract would not), `explain` predicts that refusal, and the hint
/// works when followed.
#[test]
fn a_person_bound_by_the_rules_is_told_to_switch_and_that_works() {
    let repo = installed();
    repo.local_policy("[enforce]\nactors = \"everyone\"\n");
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("ward: denied [EN-GIT-D-003] commit on protected branch 'main'")
        .stderr_has("hint: work on a branch of your own (`git switch -c <name>`), then retry");
    repo.ward(["contract", "start", "c1"]).ok();
    let (_, v) = repo.ward_json(["explain", "--json", "--", "commit", "-m", "x"], &[]);
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(v["code"], "EN-GIT-D-001", "{v}");
    assert_eq!(
        v["hint"], "work on a branch of your own (`git switch -c agent/c1`), then retry",
        "{v}"
    );
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"])
        .code(1)
        .stderr_has("(`git switch -c agent/c1`), then retry");
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.git(["commit", "-q", "--allow-empty", "-m", "x"]).ok();
}
