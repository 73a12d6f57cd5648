//! Hooks off by any route (EN-GIT-D-004): repository
//! pointers under which git runs other hooks, and config files an agent
//! points git at for one command, are refused through the shim like
//! `--no-verify`; a person's own config keeps its warning.

use std::path::PathBuf;

use crate::common::TestRepo;

const C1: (&str, &str) = ("WARD_CONTRACT", "c1");

/// `main` (A, B) with `side` (A, S) beside it and the agent's branch
/// `agent/c1` (A, B, C) checked out; hooks installed.
fn stacked() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["checkout", "-qb", "side"]).ok();
    repo.write("s.txt", "s\n").commit("S");
    repo.git(["checkout", "-q", "main"]).ok();
    repo.write("b.txt", "b\n").commit("B");
    repo.git(["checkout", "-qb", "agent/c1"]).ok();
    repo.write("c.txt", "c\n").commit("C");
    repo.ward(["install"]).ok();
    repo
}

/// A directory of links to the repository's refs, objects and config,
/// with a `hooks/` of its own, empty.
fn link_farm(repo: &TestRepo) -> PathBuf {
    let farm = repo.path("farm");
    std::fs::create_dir_all(farm.join("hooks")).unwrap();
    let git = repo.dir.join(".git");
    for name in ["refs", "objects", "config", "packed-refs", "logs", "info"] {
        std::os::unix::fs::symlink(git.join(name), farm.join(name)).unwrap();
    }
    farm
}

/// The rebase that moves `main` along through `--update-refs`.
const REBASE: &[&str] = &["rebase", "-q", "--update-refs", "--onto", "side", "main~1"];

fn refused(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) {
    refused_as(repo, args, env, "ward: denied [EN-GIT-D-004]");
}

fn refused_as(repo: &TestRepo, args: &[&str], env: &[(&str, &str)], line: &str) {
    let main = repo.rev("main");
    let mut env = env.to_vec();
    env.push(C1);
    repo.shim_env(args, &env).code(1).stderr_has(line);
    assert_eq!(repo.rev("main"), main, "{env:?}");
}

#[test]
fn a_common_dir_of_links_with_empty_hooks_is_refused() {
    let repo = stacked();
    let farm = link_farm(&repo);
    let farm = farm.to_str().unwrap();
    refused(&repo, REBASE, &[("GIT_COMMON_DIR", farm)]);
    refused(
        &repo,
        &["commit", "-q", "--allow-empty", "-m", "x"],
        &[("GIT_COMMON_DIR", farm)],
    );
    // The same rebase with the repository's own hooks: the hooks refuse
    // the move of `main`, whatever the rebase does to the agent's branch.
    let main = repo.rev("main");
    let _ = repo.shim_env(REBASE, &[C1]);
    assert_eq!(repo.rev("main"), main);
}

#[test]
fn a_git_dir_whose_commondir_is_a_farm_of_links_is_refused() {
    let repo = stacked();
    let farm = link_farm(&repo);
    let made = repo.path("made");
    std::fs::create_dir_all(&made).unwrap();
    std::fs::write(made.join("HEAD"), "ref: refs/heads/agent/c1\n").unwrap();
    std::fs::write(made.join("commondir"), format!("{}\n", farm.display())).unwrap();
    std::fs::copy(repo.dir.join(".git/index"), made.join("index")).unwrap();
    let made = made.to_str().unwrap();
    // A git directory git-ward cannot open: refused as without facts.
    refused_as(
        &repo,
        &["commit", "-q", "--allow-empty", "-m", "x"],
        &[("GIT_DIR", made), ("GIT_WORK_TREE", ".")],
        "ward: denied [EN-GIT-",
    );
    let git_dir = format!("--git-dir={made}");
    refused_as(
        &repo,
        &[
            git_dir.as_str(),
            "--work-tree=.",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        &[],
        "ward: denied [EN-GIT-",
    );
}

/// An agent's own home, whose git config sends hooks to `hooks`.
fn agent_home(repo: &TestRepo, file: &str, text: &str) -> PathBuf {
    let home = repo.path("agent-home");
    let path = home.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    home
}

fn hooks_elsewhere(repo: &TestRepo) -> String {
    let dir = repo.path("no-hooks");
    std::fs::create_dir_all(&dir).unwrap();
    format!("[core]\n\thooksPath = {}\n", dir.display())
}

#[test]
fn a_hooks_path_in_a_home_the_agent_chose_is_refused() {
    let repo = stacked();
    let text = hooks_elsewhere(&repo);
    let home = agent_home(&repo, ".gitconfig", &text);
    let home = home.to_str().unwrap();
    refused(&repo, REBASE, &[("HOME", home)]);
    refused(&repo, REBASE, &[("HOME", home), ("XDG_CONFIG_HOME", home)]);
}

#[test]
fn a_hooks_path_in_an_xdg_config_the_agent_chose_is_refused() {
    let repo = stacked();
    let text = hooks_elsewhere(&repo);
    let xdg = agent_home(&repo, "git/config", &text);
    refused(&repo, REBASE, &[("XDG_CONFIG_HOME", xdg.to_str().unwrap())]);
}

#[test]
fn a_hooks_path_an_agent_home_includes_is_refused() {
    let repo = stacked();
    let inc = repo.path("hooks.inc");
    std::fs::write(&inc, hooks_elsewhere(&repo)).unwrap();
    for text in [
        format!("[include]\n\tpath = {}\n", inc.display()),
        format!(
            "[includeIf \"gitdir:{}/\"]\n\tpath = {}\n",
            repo.dir.display(),
            inc.display()
        ),
    ] {
        let home = agent_home(&repo, ".gitconfig", &text);
        refused(&repo, REBASE, &[("HOME", home.to_str().unwrap())]);
    }
}

#[test]
fn the_persons_own_home_sending_hooks_elsewhere_stops_agents() {
    let repo = stacked();
    // Set after the install, in the home it was installed from.
    let text = hooks_elsewhere(&repo);
    std::fs::write(repo.home.join(".gitconfig"), text).unwrap();
    // git runs no gate hook of git-ward's now: the agent's mutation waits
    // for a person.
    repo.shim_env(["commit", "-q", "--allow-empty", "-m", "x"], &[C1])
        .code(1)
        .stderr_has("EN-GIT-D-004");
    // An agent's home without any hooksPath is no hooks switched off.
    let home = agent_home(&repo, ".gitconfig", "[user]\n\tname = a\n");
    std::fs::remove_file(repo.home.join(".gitconfig")).unwrap();
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "y"],
        &[C1, ("HOME", home.to_str().unwrap())],
    )
    .ok();
}

#[test]
fn a_linked_worktree_and_git_dir_of_the_repository_itself_pass() {
    let repo = stacked();
    let git_dir = repo.dir.join(".git");
    repo.shim_env(
        ["commit", "-q", "--allow-empty", "-m", "x"],
        &[C1, ("GIT_DIR", git_dir.to_str().unwrap())],
    )
    .ok();
    let wt = repo.path("wt");
    repo.git([
        "worktree",
        "add",
        "-q",
        "-b",
        "agent/wt",
        wt.to_str().unwrap(),
    ])
    .ok();
    repo.shim_in(
        &wt,
        ["commit", "-q", "--allow-empty", "-m", "y"],
        &[
            C1,
            (
                "GIT_DIR",
                &git_dir.join("worktrees/wt").display().to_string(),
            ),
        ],
    )
    .ok();
}

#[test]
fn doctor_records_the_persons_home_where_an_older_install_did_not() {
    let repo = stacked();
    std::fs::remove_file(repo.dir.join(".git/ward/config-home")).unwrap();
    let text = hooks_elsewhere(&repo);
    let home = agent_home(&repo, ".gitconfig", &text);
    let home = home.to_str().unwrap();
    // An agent's run of doctor records nothing.
    repo.ward_env(["doctor"], &[("WARD_AGENT", "1"), ("HOME", home)]);
    assert!(!repo.dir.join(".git/ward/config-home").exists());
    repo.ward(["doctor"]);
    assert!(repo.dir.join(".git/ward/config-home").exists());
    refused(&repo, REBASE, &[("HOME", home)]);
}
