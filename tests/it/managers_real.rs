//! git-ward beside the real hook managers (pre-commit from PyPI, lefthook
//! and husky from npm, installed by `tools.rs`): in either order of
//! installation, after the other manager syncs its hooks again, an agent's
//! push to `main` is refused, by its git run by path as by the shim; the
//! manager's own hooks still run; and uninstalling in either order leaves
//! no git-ward file behind and loses no hook of the other manager's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{real_git, remote_rev, ward_bin, with_remote, Run, TestRepo};
use crate::tools;

const AGENT: &[(&str, &str)] = &[("WARD_AGENT", "1")];

/// PATH for the managers and the hooks they write: the real git, git-ward
/// (husky's scripts name it as `git-ward`), the tools, then the rest.
fn path() -> OsString {
    let mut dirs: Vec<PathBuf> = vec![
        real_git().parent().unwrap().to_path_buf(),
        ward_bin().parent().unwrap().to_path_buf(),
        tools::bin("lefthook").parent().unwrap().to_path_buf(),
        tools::bin("pre-commit").parent().unwrap().to_path_buf(),
    ];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// Runs a manager's command in the working tree; it must succeed.
fn tool(repo: &TestRepo, program: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(program);
    repo.hermetic(&mut cmd);
    cmd.env("PATH", path())
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(std::process::Stdio::null());
    Run::from(cmd.output().expect("run a hook manager")).ok()
}

/// The real git, with the managers' PATH (their hooks find their programs).
fn git(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Run {
    let path = path();
    let mut all: Vec<(&str, &str)> = vec![("PATH", path.to_str().unwrap()), ("NO_COLOR", "1")];
    all.extend_from_slice(env);
    repo.git_env(args, &all)
}

fn hooks_dir(repo: &TestRepo) -> PathBuf {
    let out = repo
        .git(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .ok();
    PathBuf::from(out.stdout.trim())
}

/// The files in `dir` that are git-ward's (its marker line), or that
/// git-ward named (`.ward-orig`), by name.
fn ward_files(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.contains("ward-")
                || std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("# git-ward hook:"))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// An agent's commit on a branch of its own, pushed onto the remote's
/// `main`: refused by its git run by path (the hooks) and through the
/// shim, and the remote's `main` stays.
fn agents_push_to_main_is_refused(repo: &TestRepo, what: &str) {
    let before = remote_rev(repo, "refs/heads/main");
    let branch = format!("agent/{}", repo.tick_name());
    git(repo, &["checkout", "-q", "-b", &branch], &[]).ok();
    git(
        repo,
        &["commit", "-q", "--allow-empty", "-m", "agent work"],
        AGENT,
    )
    .ok();
    let by_path = git(repo, &["push", "origin", "HEAD:main"], AGENT);
    assert_ne!(
        by_path.code,
        Some(0),
        "{what}: by path:\n{}",
        by_path.stderr
    );
    assert!(
        by_path.stderr.contains("EN-GIT-D-00"),
        "{what}: by path:\n{}",
        by_path.stderr
    );
    assert_eq!(remote_rev(repo, "refs/heads/main"), before, "{what}");
    let shim = repo.shim_env(["push", "origin", "HEAD:main"], AGENT);
    assert_ne!(shim.code, Some(0), "{what}: shim:\n{}", shim.stderr);
    assert!(
        shim.stderr.contains("EN-GIT-D-00"),
        "{what}: shim:\n{}",
        shim.stderr
    );
    assert_eq!(remote_rev(repo, "refs/heads/main"), before, "{what}");
    git(repo, &["checkout", "-q", "main"], &[]).ok();
}

/// A person's commit on `main` (with a file, so that every manager runs
/// its commands), which the manager's own pre-commit hook marks.
fn persons_commit_runs(repo: &TestRepo, mark: &str, what: &str) {
    let marked = repo.dir.join(".git").join(mark);
    let _ = std::fs::remove_file(&marked);
    let n = repo.tick_name();
    repo.write(&format!("file-{n}"), "x\n");
    git(repo, &["add", "."], &[]).ok();
    git(repo, &["commit", "-q", "-m", &format!("person {n}")], &[]).ok();
    assert!(marked.exists(), "{what}: the manager's hook did not run");
}

trait Tick {
    fn tick_name(&self) -> String;
}

impl Tick for TestRepo {
    fn tick_name(&self) -> String {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        format!("t{n}")
    }
}

// --- pre-commit -----------------------------------------------------------

const PRE_COMMIT_CONFIG: &str = "repos:
- repo: local
  hooks:
  - id: mark
    name: mark
    entry: touch .git/pre-commit-ran
    language: system
    always_run: true
    pass_filenames: false
    stages: [pre-commit]
  - id: mark-push
    name: mark-push
    entry: touch .git/pre-push-ran
    language: system
    always_run: true
    pass_filenames: false
    stages: [pre-push]
";

fn pre_commit_repo() -> TestRepo {
    let repo = with_remote();
    repo.write(".pre-commit-config.yaml", PRE_COMMIT_CONFIG);
    repo.write(".gitignore", "remote.git/\n");
    repo.git(["add", "."]).ok();
    repo.git(["commit", "-q", "-m", "pre-commit config"]).ok();
    repo
}

fn pre_commit_install(repo: &TestRepo) {
    let pc = tools::bin("pre-commit");
    tool(
        repo,
        &pc,
        &["install", "-t", "pre-commit", "-t", "pre-push"],
    );
}

#[test]
fn pre_commit_and_git_ward_in_either_order_survive_a_resync() {
    for ward_first in [true, false] {
        let what = if ward_first {
            "git-ward, then pre-commit"
        } else {
            "pre-commit, then git-ward"
        };
        let repo = pre_commit_repo();
        if ward_first {
            repo.ward(["install"]).ok();
            pre_commit_install(&repo);
        } else {
            pre_commit_install(&repo);
            repo.ward(["install"]).ok();
        }
        persons_commit_runs(&repo, "pre-commit-ran", what);
        agents_push_to_main_is_refused(&repo, what);
        // pre-commit installs again (a new clone's setup script, an upgrade).
        pre_commit_install(&repo);
        persons_commit_runs(&repo, "pre-commit-ran", what);
        agents_push_to_main_is_refused(&repo, &format!("{what}, re-installed"));
        repo.ward(["doctor"]).stdout_has("ok   hooks");
    }
}

#[test]
fn pre_commit_and_git_ward_uninstall_in_either_order() {
    for ward_first in [true, false] {
        let repo = pre_commit_repo();
        repo.ward(["install"]).ok();
        pre_commit_install(&repo);
        pre_commit_install(&repo);
        let hooks = hooks_dir(&repo);
        if ward_first {
            repo.ward(["uninstall"]).ok();
            assert_eq!(ward_files(&hooks), Vec::<String>::new(), "git-ward first");
            // pre-commit's hooks still run.
            persons_commit_runs(&repo, "pre-commit-ran", "after git-ward's uninstall");
            let pc = tools::bin("pre-commit");
            tool(
                &repo,
                &pc,
                &["uninstall", "-t", "pre-commit", "-t", "pre-push"],
            );
        } else {
            let pc = tools::bin("pre-commit");
            tool(
                &repo,
                &pc,
                &["uninstall", "-t", "pre-commit", "-t", "pre-push"],
            );
            // git-ward's hooks are back where pre-commit found them.
            agents_push_to_main_is_refused(&repo, "after pre-commit's uninstall");
            repo.ward(["uninstall"]).ok();
        }
        assert_eq!(ward_files(&hooks), Vec::<String>::new(), "{ward_first}");
        repo.ward(["doctor"]).stdout_lacks_stray();
    }
}

#[test]
fn git_ward_installed_after_pre_commit_and_uninstalled_gives_its_hooks_back() {
    let repo = pre_commit_repo();
    pre_commit_install(&repo);
    let hooks = hooks_dir(&repo);
    let theirs = std::fs::read(hooks.join("pre-commit")).unwrap();
    repo.ward(["install"]).ok();
    repo.ward(["uninstall"]).ok();
    assert_eq!(std::fs::read(hooks.join("pre-commit")).unwrap(), theirs);
    assert_eq!(ward_files(&hooks), Vec::<String>::new());
    persons_commit_runs(&repo, "pre-commit-ran", "pre-commit after git-ward left");
}

// --- lefthook -------------------------------------------------------------

const LEFTHOOK_YML: &str = "pre-commit:
  commands:
    mark:
      run: touch .git/lefthook-ran
";

fn lefthook_repo() -> TestRepo {
    let repo = with_remote();
    repo.write("lefthook.yml", LEFTHOOK_YML);
    repo.write(".gitignore", "remote.git/\nlefthook-local.yml\n");
    repo.git(["add", "."]).ok();
    repo.git(["commit", "-q", "-m", "lefthook config"]).ok();
    repo
}

fn lefthook(repo: &TestRepo, args: &[&str]) -> Run {
    tool(repo, &tools::bin("lefthook"), args)
}

/// The team changes `lefthook.yml` (a pre-push command), commits it, and
/// lefthook syncs its hooks as it does on such a change.
fn lefthook_resync(repo: &TestRepo) {
    repo.write(
        "lefthook.yml",
        &format!("{LEFTHOOK_YML}pre-push:\n  commands:\n    mark:\n      run: touch .git/lefthook-push-ran\n"),
    );
    git(repo, &["add", "lefthook.yml"], &[]).ok();
    git(repo, &["commit", "-q", "-m", "lefthook: pre-push"], &[]).ok();
    lefthook(repo, &["install"]);
}

#[test]
fn lefthook_and_git_ward_in_either_order_survive_a_resync() {
    for ward_first in [true, false] {
        let what = if ward_first {
            "git-ward, then lefthook"
        } else {
            "lefthook, then git-ward"
        };
        let repo = lefthook_repo();
        if ward_first {
            // git-ward's gates go into lefthook's local config at once.
            repo.ward(["install"]).ok().stdout_has("lefthook-local.yml");
            lefthook(&repo, &["install"]);
            // lefthook's hooks run git-ward: kept, and nothing to add.
            let again = repo
                .ward(["install"])
                .ok()
                .stdout_has("pre-push               kept (runs git-ward)");
            assert!(!again.stdout.contains("note: lefthook"), "{}", again.stdout);
        } else {
            lefthook(&repo, &["install"]);
            repo.ward(["install"]).ok().stdout_has("lefthook-local.yml");
        }
        persons_commit_runs(&repo, "lefthook-ran", what);
        agents_push_to_main_is_refused(&repo, what);
        lefthook_resync(&repo);
        persons_commit_runs(&repo, "lefthook-ran", what);
        agents_push_to_main_is_refused(&repo, &format!("{what}, re-synced"));
        // A second sync changes nothing.
        lefthook(&repo, &["install"]);
        agents_push_to_main_is_refused(&repo, &format!("{what}, synced twice"));
    }
}

#[test]
fn lefthook_and_git_ward_uninstall_in_either_order() {
    for ward_first in [true, false] {
        let repo = lefthook_repo();
        lefthook(&repo, &["install"]);
        repo.ward(["install"]).ok();
        lefthook_resync(&repo);
        let hooks = hooks_dir(&repo);
        if ward_first {
            repo.ward(["uninstall"]).ok();
            assert_eq!(ward_files(&hooks), Vec::<String>::new(), "git-ward first");
            assert!(!repo.dir.join("lefthook-local.yml").exists());
            persons_commit_runs(&repo, "lefthook-ran", "after git-ward's uninstall");
            lefthook(&repo, &["uninstall"]);
        } else {
            lefthook(&repo, &["uninstall"]);
            repo.ward(["uninstall"]).ok();
            assert!(!repo.dir.join("lefthook-local.yml").exists());
        }
        assert_eq!(ward_files(&hooks), Vec::<String>::new(), "{ward_first}");
        assert_eq!(
            repo.read("lefthook.yml").unwrap().lines().next(),
            Some("pre-commit:")
        );
    }
}

#[test]
fn a_lefthook_local_config_of_the_users_own_is_kept_byte_for_byte() {
    let repo = lefthook_repo();
    let own = "# mine\nskip_output:\n  - meta\n";
    repo.write("lefthook-local.yml", own);
    lefthook(&repo, &["install"]);
    repo.ward(["install"]).ok();
    agents_push_to_main_is_refused(&repo, "with a local config");
    repo.ward(["uninstall"]).ok();
    assert_eq!(repo.read("lefthook-local.yml").as_deref(), Some(own));
}

/// What an agent's command through the shim does with `env` set, on an
/// agent branch of its own: a commit, then a read.
fn agents_commit_with(repo: &TestRepo, env: &[(&str, &str)]) -> Run {
    let path = path();
    let mut all: Vec<(&str, &str)> = vec![("PATH", path.to_str().unwrap()), ("WARD_AGENT", "1")];
    all.extend_from_slice(env);
    repo.shim_env(["status", "--short"], &all).ok();
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "agent work"], &all)
}

/// A hook manager's own switches in an agent's environment would skip the
/// gates it runs for git-ward: the shim refuses the agent's command as one
/// that switches hooks off, and names the variable; a read runs. A switch
/// that leaves git-ward's command in runs.
#[test]
fn lefthooks_switches_in_an_agents_environment_switch_hooks_off() {
    let repo = lefthook_repo();
    lefthook(&repo, &["install"]);
    repo.ward(["install"]).ok();
    git(&repo, &["checkout", "-q", "-b", "agent/c1"], &[]).ok();
    for (name, value) in [
        ("LEFTHOOK", "0"),
        ("LEFTHOOK", "false"),
        ("LEFTHOOK_EXCLUDE", "lint, git-ward"),
        ("LEFTHOOK_BIN", "/bin/true"),
        ("LEFTHOOK_CONFIG", "/dev/null"),
    ] {
        agents_commit_with(&repo, &[(name, value)])
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has(&format!("{name}={value}"));
    }
    let before = repo.git(["rev-parse", "HEAD"]).ok().stdout;
    agents_commit_with(&repo, &[("LEFTHOOK_EXCLUDE", "lint"), ("LEFTHOOK", "1")]).ok();
    assert_ne!(repo.git(["rev-parse", "HEAD"]).ok().stdout, before);
}

// --- husky ----------------------------------------------------------------

fn husky_repo() -> TestRepo {
    let repo = with_remote();
    repo.write(".husky/pre-commit", "touch .git/husky-ran\n");
    repo.write(".gitignore", "remote.git/\n");
    repo.git(["add", "."]).ok();
    repo.git(["commit", "-q", "-m", "husky scripts"]).ok();
    repo
}

/// What `npm install` runs in a project whose `prepare` script is `husky`.
fn husky(repo: &TestRepo) {
    tool(repo, &tools::bin("husky"), &[]);
}

/// What `git ward install` says to add to husky's scripts, added.
fn follow_husky_advice(install: &Run) {
    for line in install.stdout.lines() {
        let Some((file, call)) = line.trim().split_once(": git-ward hook ") else {
            continue;
        };
        let path = Path::new(file);
        let old = std::fs::read_to_string(path).unwrap_or_default();
        std::fs::write(path, format!("git-ward hook {call}\n{old}")).unwrap();
    }
}

#[test]
fn husky_and_git_ward_in_either_order_survive_a_rerun() {
    for ward_first in [true, false] {
        let what = if ward_first {
            "git-ward, then husky"
        } else {
            "husky, then git-ward"
        };
        let repo = husky_repo();
        if ward_first {
            repo.ward(["install"]).ok();
            husky(&repo);
            // husky points git elsewhere: the shim refuses the agent's
            // commit until git-ward is where git runs the hooks.
            repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], AGENT)
                .code(1)
                .stderr_has("EN-GIT-D-004");
        } else {
            husky(&repo);
        }
        let install = repo.ward(["install"]).ok().stdout_has("husky:");
        follow_husky_advice(&install);
        persons_commit_runs(&repo, "husky-ran", what);
        agents_push_to_main_is_refused(&repo, what);
        // `npm install` runs husky again: its scripts are written anew.
        husky(&repo);
        persons_commit_runs(&repo, "husky-ran", what);
        agents_push_to_main_is_refused(&repo, &format!("{what}, husky again"));
    }
}

#[test]
fn husky_and_git_ward_uninstall_in_either_order() {
    for ward_first in [true, false] {
        let repo = husky_repo();
        husky(&repo);
        let install = repo.ward(["install"]).ok();
        follow_husky_advice(&install);
        husky(&repo);
        let hooks = repo.dir.join(".husky/_");
        if ward_first {
            repo.ward(["uninstall"]).ok();
            assert_eq!(ward_files(&hooks), Vec::<String>::new(), "git-ward first");
            // husky's own scripts still run.
            let pre_commit = repo.read(".husky/pre-commit").unwrap();
            repo.write(
                ".husky/pre-commit",
                &pre_commit.replace("git-ward hook pre-commit \"$@\"\n", ""),
            );
            persons_commit_runs(&repo, "husky-ran", "after git-ward's uninstall");
        } else {
            // husky's way out: hooks back to git's own directory, its own gone.
            git(&repo, &["config", "--unset", "core.hooksPath"], &[]).ok();
            std::fs::remove_dir_all(&hooks).unwrap();
            repo.ward(["uninstall"]).ok();
            assert_eq!(ward_files(&hooks_dir(&repo)), Vec::<String>::new());
        }
        assert_eq!(ward_files(&hooks), Vec::<String>::new(), "{ward_first}");
        assert!(repo.dir.join(".husky/pre-commit").exists());
    }
}

trait NoStray {
    fn stdout_lacks_stray(self) -> Run;
}

impl NoStray for Run {
    fn stdout_lacks_stray(self) -> Run {
        assert!(!self.stdout.contains("stray hooks"), "{}", self.stdout);
        self
    }
}

/// `HUSKY=0` in an agent's environment skips husky's scripts, and the
/// git-ward lines in them, where husky runs git-ward's gates: refused as switching hooks off; `HUSKY=1`
/// runs.
#[test]
fn husky_switched_off_in_an_agents_environment_switches_hooks_off() {
    let repo = husky_repo();
    husky(&repo);
    let install = repo.ward(["install"]).ok();
    follow_husky_advice(&install);
    // husky writes its own scripts again: git-ward's pre-commit and
    // pre-push gates now run through the lines in `.husky/<name>`.
    husky(&repo);
    git(&repo, &["checkout", "-q", "-b", "agent/c1"], &[]).ok();
    agents_commit_with(&repo, &[("HUSKY", "0")])
        .code(1)
        .stderr_has("EN-GIT-D-004")
        .stderr_has("HUSKY=0");
    let before = repo.git(["rev-parse", "HEAD"]).ok().stdout;
    agents_commit_with(&repo, &[("HUSKY", "1")]).ok();
    assert_ne!(repo.git(["rev-parse", "HEAD"]).ok().stdout, before);
}
