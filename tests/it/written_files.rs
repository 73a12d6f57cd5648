//! Commands that write a file over whatever is there (`diff --output`,
//! `archive -o`): over an agent's work they are checkpointed first and
//! undone after; into the git directory, where hooks and policy live, they
//! are refused.

use crate::common::TestRepo;

const C1: &[(&str, &str)] = &[("WARD_CONTRACT", "c1")];

/// Extra environment for one run.
type Env<'a> = &'a [(&'a str, &'a str)];

fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.write("a.txt", "a\n").commit("a");
    repo.write("a.txt", "hours of work\n")
        .write("notes.txt", "untracked notes\n");
    repo
}

#[test]
fn a_file_written_over_work_is_checkpointed_and_undone() {
    for args in [
        &["diff", "--output=a.txt"][..],
        &["log", "-1", "--output", "notes.txt"],
        &["archive", "-o", "notes.txt", "HEAD"],
        &["blame", "--output=notes.txt", "a.txt"],
        &["read-tree", "--index-output=notes.txt", "HEAD"],
        &["fast-export", "--export-marks=notes.txt", "HEAD"],
    ] {
        let repo = agent_repo();
        let before = repo.state();
        repo.shim_env(args, C1).ok();
        assert_ne!(repo.state(), before, "{args:?} wrote nothing");
        assert_eq!(repo.checkpoint_count(), 1, "{args:?}");
        repo.ward(["undo", "--yes"]).ok();
        assert_eq!(repo.state(), before, "{args:?}");
    }
}

/// `config --file` edits the file it names in place: over an untracked
/// one, checkpointed first.
#[test]
fn a_config_file_written_in_the_tree_is_checkpointed_and_undone() {
    let repo = agent_repo();
    repo.write("tool.ini", "[a]\n\tb = c\n");
    let before = repo.state();
    repo.shim_env(["config", "-f", "tool.ini", "a.b", "d"], C1)
        .ok();
    assert_eq!(repo.read("tool.ini").as_deref(), Some("[a]\n\tb = d\n"));
    assert_eq!(repo.checkpoint_count(), 1);
    repo.ward(["undo", "--yes"]).ok();
    assert_eq!(repo.state(), before);
    // Reading it changes nothing and takes no checkpoint.
    repo.shim_env(["config", "-f", "tool.ini", "--get", "a.b"], C1)
        .ok();
    assert_eq!(repo.checkpoint_count(), 2);
}

#[test]
fn a_new_file_or_one_outside_the_tree_takes_no_checkpoint() {
    let repo = agent_repo();
    let outside = repo.path("out.diff");
    repo.shim_env(["diff", "--output=new.diff"], C1).ok();
    repo.shim_env(["diff", &format!("--output={}", outside.display())], C1)
        .ok();
    assert!(repo.read("new.diff").is_some());
    assert!(outside.exists());
    assert_eq!(repo.checkpoint_count(), 0);
}

#[test]
fn a_file_written_into_the_git_directory_is_refused() {
    let repo = agent_repo();
    let policy = repo.dir.join(".git/ward/policy.toml");
    let hook = repo.dir.join(".git/hooks/pre-commit");
    std::os::unix::fs::symlink(&hook, repo.dir.join("innocent.txt")).unwrap();
    std::fs::create_dir_all(repo.dir.join("sub")).unwrap();
    let sub = repo.dir.join("sub");
    for (dir, args) in [
        (
            &repo.dir,
            vec![
                "log",
                "-1",
                "--format=[branches]%nprotected = []",
                "--output=.git/ward/policy.toml",
            ],
        ),
        // Through a symbolic link whose target does not exist yet.
        (&repo.dir, vec!["diff", "--output=innocent.txt"]),
        (&sub, vec!["show", "--output=../.git/config"]),
        (&sub, vec!["archive", "-o", "../.git/hooks/x", "HEAD"]),
        (
            &repo.dir,
            vec!["mailinfo", ".git/ward/policy.toml", "/dev/null"],
        ),
        (
            &repo.dir,
            vec![
                "config",
                "-f",
                ".git/ward/policy.toml",
                "branches.protected",
                "[]",
            ],
        ),
        (
            &repo.dir,
            vec!["checkout-index", "-a", "-f", "--prefix=.git/hooks/"],
        ),
        (
            &repo.dir,
            vec!["read-tree", "--index-output=.git/hooks/pre-commit", "HEAD"],
        ),
    ] {
        repo.shim_in(dir, &args, C1)
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has("the git directory")
            .stderr_has("hint:");
    }
    assert!(!policy.exists());
    assert!(!hook.exists());
    assert!(!repo.dir.join(".git/hooks/x").exists());
    assert!(!repo.dir.join(".git/hooks/a.txt").exists());
    // The user's policy file, which git's config syntax can write as TOML.
    let user_policy = repo.home.join(".config/git-ward/policy.toml");
    repo.shim_env(
        [
            "config",
            "--file",
            user_policy.to_str().unwrap(),
            "branches.protected",
            "[]",
        ],
        C1,
    )
    .code(1)
    .stderr_has("EN-GIT-D-004")
    .stderr_has("policy file");
    assert!(!user_policy.exists());
    // Named by the environment: `GIT_CONFIG` for a plain write,
    // `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` for `--global` and
    // `--system`.
    let local_policy = repo.dir.join(".git/ward/policy.toml");
    for (var, file, flag) in [
        ("GIT_CONFIG", &local_policy, None),
        ("GIT_CONFIG", &user_policy, None),
        ("GIT_CONFIG_GLOBAL", &local_policy, Some("--global")),
        ("GIT_CONFIG_SYSTEM", &user_policy, Some("--system")),
    ] {
        let mut args = vec!["config"];
        args.extend(flag);
        args.extend(["branches.protected", "[]"]);
        repo.shim_env(
            args,
            &[("WARD_CONTRACT", "c1"), (var, file.to_str().unwrap())],
        )
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("hint:");
        assert!(!file.exists(), "{var}");
    }
    // Another file named so is written as usual.
    let elsewhere = crate::common::sibling(&repo, "elsewhere.cfg");
    repo.shim_env(
        ["config", "x.y", "z"],
        &[
            ("WARD_CONTRACT", "c1"),
            ("GIT_CONFIG", elsewhere.to_str().unwrap()),
        ],
    )
    .ok();
    assert!(std::fs::read_to_string(&elsewhere)
        .unwrap()
        .contains("y = z"));
    assert!(repo
        .git(["config", "--list", "--local"])
        .ok()
        .stdout
        .contains("core.bare"));
}

/// A working tree inside the git directory makes every command that
/// changes files write there: `git --work-tree=.git restore` puts a
/// committed `ward/policy.toml` where the local policy layer lives, or a
/// hook into `hooks/`. However the working tree is named, an agent's is
/// refused; another repository's `.git` counts too.
#[test]
fn a_working_tree_inside_the_git_directory_is_refused() {
    let repo = agent_repo();
    repo.write("ward/policy.toml", "[branches]\nprotected = []\n")
        .write("pre-commit", "#!/bin/sh\nexit 0\n")
        .commit("files that belong in .git");
    std::os::unix::fs::symlink(repo.dir.join(".git"), repo.dir.join("link")).unwrap();
    let other = crate::common::sibling(&repo, "other");
    repo.git(["init", "-q", other.to_str().unwrap()]).ok();
    let other_git = other.join(".git");
    let hooks = repo.dir.join(".git/hooks");
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>);
    let cases: Vec<Case> = vec![
        (
            vec![
                "--work-tree=.git",
                "restore",
                "--source=HEAD",
                "--",
                "ward/policy.toml",
            ],
            vec![],
        ),
        (
            vec![
                "--work-tree",
                hooks.to_str().unwrap(),
                "checkout",
                "HEAD",
                "--",
                "pre-commit",
            ],
            vec![],
        ),
        (vec!["--work-tree=link", "reset", "-q", "--hard"], vec![]),
        (
            vec!["restore", "--source=HEAD", "--", "ward/policy.toml"],
            vec![("GIT_WORK_TREE", ".git")],
        ),
        (
            vec!["checkout", "HEAD", "--", "pre-commit"],
            vec![("GIT_WORK_TREE", other_git.to_str().unwrap())],
        ),
    ];
    for (args, env) in cases {
        let mut env = env.clone();
        env.extend_from_slice(C1);
        repo.shim_env(&args, &env)
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has("has its working tree in the git directory")
            .stderr_has("hint:");
    }
    assert!(!repo.dir.join(".git/ward/policy.toml").exists());
    assert!(!hooks.join("pre-commit").exists());
    assert!(!other_git.join("pre-commit").exists());
    // Set in the repository's config (relative to the git directory).
    repo.git(["config", "core.worktree", "hooks"]).ok();
    repo.shim_env(["checkout", "HEAD", "--", "pre-commit"], C1)
        .code(1)
        .stderr_has("has its working tree in the git directory");
    assert!(!hooks.join("pre-commit").exists());
    repo.git(["config", "--unset", "core.worktree"]).ok();
    // Reading with such a working tree is harmless; a working tree
    // elsewhere works as ever.
    repo.shim_env(["--work-tree=.git", "status", "--short"], C1)
        .ok();
    let elsewhere = crate::common::sibling(&repo, "elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    repo.shim_env(
        [
            "--work-tree",
            elsewhere.to_str().unwrap(),
            "restore",
            "--source=HEAD",
            "--",
            "pre-commit",
        ],
        C1,
    )
    .ok();
    assert!(elsewhere.join("pre-commit").exists());
}

/// A repository made inside the git directory (its working tree is the
/// `.git` directory itself): `git ward init` there is refused, and a
/// repository a person left there is one whose commands are refused.
#[test]
fn a_repository_whose_working_tree_is_a_git_directory_is_refused() {
    let repo = agent_repo();
    repo.ward_env(["init", ".git"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("hint:");
    repo.ward_env(["init", ".git/ward"], C1)
        .code(1)
        .stderr_has("EN-GIT-D-004");
    assert!(!repo.dir.join(".git/.git").exists());
    // One made by hand: its commands write the outer git directory.
    let inner = repo.dir.join(".git");
    repo.git(["init", "-q", inner.to_str().unwrap()]).ok();
    let git_dir = repo.dir.join(".git");
    repo.shim_in(&git_dir, ["checkout", "-q", "-b", "x"], C1)
        .code(1)
        .stderr_has("has its working tree in the git directory");
    assert!(repo.dir.join(".git/HEAD").exists());
}

/// `git init` over a repository copies every template file its git
/// directory lacks into it, with no hook: a `ward/policy.toml` there is
/// the local policy layer, a loose ref shadows a packed one. A repository
/// or working tree made inside a git directory writes there too.
#[test]
fn a_repository_made_over_or_inside_a_git_directory_is_refused() {
    let repo = agent_repo();
    let _ = repo.ward(["install"]);
    let tpl = repo.tmp.path().join("tpl");
    std::fs::create_dir_all(tpl.join("ward")).unwrap();
    std::fs::write(tpl.join("ward/policy.toml"), "[branches]\nprotected = []\n").unwrap();
    let tpl = tpl.to_str().unwrap().to_string();
    let template = format!("--template={tpl}");
    let policy = repo.dir.join(".git/ward/policy.toml");
    let env_template: &[(&str, &str)] = &[("WARD_CONTRACT", "c1"), ("GIT_TEMPLATE_DIR", &tpl)];
    for (args, env) in [
        (vec!["init", &template], C1),
        (vec!["init", "-q"], env_template),
        (
            vec!["-c", &format!("init.templateDir={tpl}"), "init", "."],
            C1,
        ),
        (vec!["init", "-q", "--bare", &template, ".git/ward"], C1),
        (
            vec!["init", "-q", "--separate-git-dir=.git/x", "../elsewhere"],
            C1,
        ),
        (vec!["clone", "-q", ".", ".git/copy"], C1),
        (
            vec!["worktree", "add", ".git/refs/remotes/origin", "HEAD"],
            C1,
        ),
    ] {
        repo.shim_env(&args, env)
            .code(1)
            .stderr_has("ward: denied [EN-GIT-D-004]")
            .stderr_has("\nhint: ");
        assert!(!policy.exists(), "{args:?}");
        assert!(!repo.dir.join(".git/copy").exists(), "{args:?}");
        assert!(
            !repo.dir.join(".git/refs/remotes/origin").exists(),
            "{args:?}"
        );
    }
    // A new one elsewhere is the agent's to make.
    let fresh = repo.tmp.path().join("fresh");
    repo.shim_env(["init", "-q", fresh.to_str().unwrap()], C1)
        .ok();
    repo.shim_env(["clone", "-q", ".", "../copy"], C1).ok();
    repo.shim_env(["worktree", "add", "-q", "../wt", "HEAD"], C1)
        .ok();
}

/// Over an existing repository with git's own templates, `init` changes
/// nothing git-ward keeps there; a repository or working tree made in a
/// bare repository's directory where git never reads writes nothing it
/// reads. Both are the agent's to do.
#[test]
fn a_plain_reinit_and_a_tree_in_a_bare_directory_go_through() {
    let repo = agent_repo();
    let _ = repo.ward(["install"]);
    let main = repo.rev("main");
    let hook = repo.dir.join(".git/hooks/reference-transaction");
    let before = std::fs::read(&hook).unwrap();
    repo.shim_env(["init", "-q"], C1).ok();
    assert_eq!(repo.rev("main"), main);
    assert_eq!(std::fs::read(&hook).unwrap(), before);
    let bare = repo.bare_clone_at(repo.tmp.path().join("b.git"));
    repo.shim_in(&bare, ["init", "-q", "sub"], C1).ok();
    assert!(bare.join("sub/.git").is_dir());
    repo.shim_in(&bare, ["worktree", "add", "-q", "-b", "agent/wt", "wt"], C1)
        .ok();
    assert!(bare.join("wt/.git").is_file());
    // Where git reads, refused.
    for args in [
        &["init", "-q", "hooks"][..],
        &["worktree", "add", "-q", "-b", "agent/x", "worktrees/x"],
        &["init", "-q", "refs/heads/x"],
    ] {
        repo.shim_in(&bare, args, C1)
            .code(1)
            .stderr_has("ward: denied [EN-GIT-D-004]");
    }
    assert!(!bare.join("hooks/.git").exists());
    assert!(!bare.join("worktrees/x").exists());
}

/// Every other way a git command line writes into the git directory: a
/// file named after `--`, credential helpers' files, `apply
/// --unsafe-paths`, a submodule or moved worktree there, an index file
/// there, a ref outside `refs/` (a file at the top of the git directory).
#[test]
fn the_other_ways_into_the_git_directory_are_refused() {
    let repo = agent_repo();
    let _ = repo.ward(["install"]);
    let hooks = repo.dir.join(".git/hooks");
    let snapshot = |repo: &TestRepo| {
        let mut names: Vec<String> = walk(&repo.dir.join(".git"))
            .into_iter()
            // git-ward's own caches and logs come and go.
            .filter(|p| !p.contains("/ward/") || p.ends_with("policy.toml"))
            .filter(|p| !p.contains("/logs/"))
            .collect();
        names.sort();
        names
    };
    std::fs::write(
        repo.path("patch.diff"),
        "--- /dev/null\n+++ b/policy.toml\n@@ -0,0 +1 @@\n+[branches]\n",
    )
    .unwrap();
    std::fs::write(repo.path("mail"), "From: a <a@b>\nSubject: x\n\nbody\n").unwrap();
    let patch = repo.path("patch.diff");
    let patch = patch.to_str().unwrap();
    let gitdir_ward = format!("--directory={}", repo.dir.join(".git/ward").display());
    let wt = repo.tmp.path().join("wt");
    repo.git(["worktree", "add", "-q", wt.to_str().unwrap(), "HEAD"])
        .ok();
    let before = snapshot(&repo);
    let rows: Vec<(Vec<&str>, Env)> = vec![
        (vec!["mailinfo", "--", ".git/ward/policy.toml", "p"], C1),
        (
            vec![
                "merge-file",
                "--",
                ".git/hooks/reference-transaction",
                "a.txt",
                "a.txt",
            ],
            C1,
        ),
        (
            vec![
                "bundle",
                "create",
                "--",
                ".git/hooks/reference-transaction",
                "HEAD",
            ],
            C1,
        ),
        (
            vec![
                "credential-store",
                "--file=.git/hooks/reference-transaction",
                "store",
            ],
            C1,
        ),
        (vec!["apply", "--unsafe-paths", &gitdir_ward, patch], C1),
        (
            vec!["submodule", "add", ".", ".git/refs/remotes/origin"],
            C1,
        ),
        (
            vec!["worktree", "move", wt.to_str().unwrap(), ".git/refs/x"],
            C1,
        ),
        (vec!["update-ref", "ward/policy.toml", "HEAD"], C1),
        (
            vec!["add", "a.txt"],
            &[
                ("WARD_CONTRACT", "c1"),
                ("GIT_INDEX_FILE", ".git/ward/policy.toml"),
            ],
        ),
    ];
    for (args, env) in &rows {
        let run = repo.shim_env(args, env);
        assert_ne!(run.code, Some(0), "{args:?} went through");
        assert!(
            run.stderr.contains("ward: denied [EN-GIT-D-004]") && run.stderr.contains("\nhint: "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(snapshot(&repo), before, "{args:?}");
    }
    assert!(hooks.join("reference-transaction").exists());
    // An index of its own in the git directory is fine.
    repo.shim_env(
        ["add", "a.txt"],
        &[
            ("WARD_CONTRACT", "c1"),
            ("GIT_INDEX_FILE", ".git/index.agent"),
        ],
    )
    .ok();
}

/// Every path under `dir`, as a string.
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            out.push(path.display().to_string());
            if path.is_dir() && !path.is_symlink() {
                out.extend(walk(&path));
            }
        }
    }
    out
}

#[test]
fn an_index_file_is_found_as_git_finds_it_and_only_a_writer_is_judged() {
    let repo = agent_repo();
    let _ = repo.ward(["install"]);
    let sub = repo.dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::os::unix::fs::symlink(".git", repo.dir.join("gd")).unwrap();
    let policy = repo.dir.join(".git/ward/policy.toml");
    // Relative to the top of the working tree, as git reads it, through a
    // symbolic link too.
    repo.shim_in(
        &sub,
        ["read-tree", "HEAD"],
        &[
            ("WARD_CONTRACT", "c1"),
            ("GIT_INDEX_FILE", "gd/ward/policy.toml"),
        ],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004");
    assert!(!policy.exists());
    repo.shim_in(
        &sub,
        ["read-tree", "HEAD"],
        &[
            ("WARD_CONTRACT", "c1"),
            ("GIT_INDEX_FILE", ".git/index.tmp"),
        ],
    )
    .ok();
    // A command that writes no index is not judged by it.
    for args in [&["log", "-1", "--oneline"][..], &["rev-parse", "HEAD"]] {
        repo.shim_env(
            args,
            &[
                ("WARD_CONTRACT", "c1"),
                ("GIT_INDEX_FILE", ".git/tmp-index"),
            ],
        )
        .ok();
    }
}

#[test]
fn an_editor_on_the_config_is_refused() {
    let repo = agent_repo();
    repo.shim_env(
        ["config", "--edit"],
        &[("WARD_CONTRACT", "c1"), ("GIT_EDITOR", "true")],
    )
    .code(1)
    .stderr_has("EN-GIT-D-004");
}
