//! `git ward init`: a new git-versioned workspace for an agent.
//!
//! The seed's workspace versioning: `git init`, a `.gitignore`, a local
//! identity, the hooks, and an initial commit. In an existing repository it
//! adds only what is missing and says what it added.
//!
//! The initial commit is part of creating the workspace, so it is made
//! before the hooks are installed; from then on every commit meets the rules.
//! A person's holds every file there; an agent's only the `.gitignore`
//! init wrote, the rest left for `git ward save`, which takes the agent to
//! its own branch.
//! A repository that already has commits gets no commit from `init`: an
//! added `.gitignore` line is left for the agent to save like any other change.

use super::Outcome;
use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};
use crate::facts::{self, Repo};
use crate::git::Git;

/// Create a git-versioned workspace: `git init`, a `.gitignore` from policy
/// `init.ignore` plus `--ignore`, a local identity where none is configured
/// (`init.user_name`/`init.user_email`), git-ward's hooks, and an initial
/// commit `Initialize workspace`. In an existing repository, adds only what is missing.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The workspace directory, created if needed (default: the current directory).
    pub dir: Option<PathBuf>,
    /// Another pattern for `.gitignore` (repeat for more).
    #[arg(long = "ignore", value_name = "PATTERN")]
    pub ignore: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The message of the workspace's first commit.
const INITIAL_MESSAGE: &str = "Initialize workspace";

/// Runs `git ward init`.
pub fn run(args: InitArgs) -> Outcome {
    let json = args.json;
    Outcome::report(json, init(&args).map(|r| (r.to_json(), r.text())))
}

/// What `init` found and did.
#[derive(Debug, Default)]
struct Report {
    dir: PathBuf,
    created: bool,
    gitignore_added: Vec<String>,
    identity_set: Vec<(String, String)>,
    hooks_installed: bool,
    hooks_error: Option<String>,
    commit: Option<String>,
    left_uncommitted: bool,
    /// Files an agent's initial commit left out (it holds `.gitignore` only).
    left_for_save: bool,
}

impl Report {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "dir": self.dir,
            "created": self.created,
            "gitignore_added": self.gitignore_added,
            "identity_set": self.identity_set.iter().map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
            "hooks_installed": self.hooks_installed,
            "hooks_error": self.hooks_error,
            "commit": self.commit,
            "files_left_to_save": self.left_for_save,
        })
    }

    fn text(&self) -> String {
        let mut out = if self.created {
            format!("initialized a workspace in {}\n", self.dir.display())
        } else {
            format!("{} is already a repository; ", self.dir.display())
        };
        let mut added = Vec::new();
        if !self.gitignore_added.is_empty() {
            added.push(format!(".gitignore: {}", self.gitignore_added.join(", ")));
        }
        for (key, value) in &self.identity_set {
            added.push(format!("{key} = {value}"));
        }
        if self.hooks_installed {
            added.push("hooks installed".to_string());
        }
        if let Some(c) = &self.commit {
            added.push(format!(
                "commit {} {INITIAL_MESSAGE}",
                c.get(..12).unwrap_or(c)
            ));
        }
        if !self.created {
            out.push_str(if added.is_empty() {
                "nothing was missing\n"
            } else {
                "added what was missing:\n"
            });
        }
        for line in added {
            out.push_str(&format!("  {line}\n"));
        }
        if let Some(e) = &self.hooks_error {
            out.push_str(&format!("ward: warning: hooks not installed: {e}\n"));
        }
        if self.left_uncommitted {
            out.push_str(
                "  .gitignore changed: save it with `git ward save -m \"Ignore build output\"`\n",
            );
        }
        if self.left_for_save {
            out.push_str(
                "  the files that were here are not committed: save them with `git ward save -m \"...\"`, which puts them on your own branch\n",
            );
        }
        out
    }
}

fn init(args: &InitArgs) -> Result<Report> {
    for pattern in &args.ignore {
        if pattern.trim().is_empty() || pattern.contains(['\n', '\r', '\0']) {
            return Err(Error::invalid(
                format!("invalid --ignore pattern {pattern:?}"),
                "pass one .gitignore pattern per --ignore, e.g. `--ignore target/`",
            ));
        }
    }
    let git = usable_git()?;
    let cwd = std::env::current_dir().doing("read the current directory")?;
    let dir = match &args.dir {
        Some(d) => cwd.join(d),
        None => cwd,
    };
    if facts::in_a_git_dir(Repo::discover().as_ref(), Path::new("/"), &dir) {
        super::tool_step(
            crate::decide::ToolStep::WorkspaceInGitDir(&dir),
            "ward.init",
        )?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::invalid(
            format!("cannot make a workspace at {}: {e}", dir.display()),
            "name a directory, or a path where one can be created",
        )
    })?;
    let dir = dir.canonicalize().at("resolve", &dir)?;
    let here = git.clone().in_dir(&dir);
    let top = here
        .run(["rev-parse", "--show-toplevel"])
        .ok()
        .and_then(|t| PathBuf::from(t).canonicalize().ok());
    // An explicit DIR inside another repository gets its own, as `git init DIR` does.
    let existing = match (&top, &args.dir) {
        (Some(top), Some(_)) => *top == dir,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let mut report = Report {
        dir: if existing {
            top.clone().unwrap_or(dir.clone())
        } else {
            dir.clone()
        },
        created: !existing,
        ..Report::default()
    };
    if !existing {
        here.run(["init", "-q"])?;
    }
    let top = report.dir.clone();
    let git = git.in_dir(&top);
    let repo = Repo::at(&top).ok_or_else(|| {
        Error::internal(format!("cannot open the repository at {}", top.display()))
    })?;
    let policy = facts::load_policy(Some(&repo), false)?;
    let init = &policy.settings.init;

    let mut patterns = init.ignore.clone();
    patterns.extend(args.ignore.iter().cloned());
    report.gitignore_added = add_ignores(&top.join(".gitignore"), &patterns)?;

    for (key, value) in [
        ("user.name", &init.user_name),
        ("user.email", &init.user_email),
    ] {
        let configured = git
            .run(["config", "--get", key])
            .is_ok_and(|v| !v.trim().is_empty());
        if !configured && !value.is_empty() {
            git.run(["config", "--local", key, value.as_str()])?;
            report.identity_set.push((key.to_string(), value.clone()));
        }
    }

    let born = git
        .run(["rev-parse", "-q", "--verify", "HEAD^{commit}"])
        .is_ok();
    // An agent's first commit lands on the unborn branch, a protected one
    // as likely as not, with no hook yet to judge it: it holds only what
    // init wrote. What was there before (a `.ward/policy.toml` among it,
    // which would become the team layer) is saved like any other change,
    // through the rules, onto the agent's own branch.
    let agent = facts::actor(&policy, false) == crate::decide::Actor::Agent;
    if !born && agent {
        if top.join(".gitignore").is_file() {
            git.run(["add", "--", ".gitignore"])?;
        }
    } else if !born {
        git.run(["add", "-A"])?;
    }
    if !born {
        git.run(["commit", "-q", "--allow-empty", "-m", INITIAL_MESSAGE])
            .map_err(|e| {
                e.with_hint("the repository is initialized but has no commit; fix the cause and run `git ward init` again")
            })?;
        report.commit = Some(git.run(["rev-parse", "HEAD"])?);
        report.left_for_save = agent
            && !git
                .run(["status", "--porcelain", "--untracked-files=normal"])?
                .trim()
                .is_empty();
    } else {
        report.left_uncommitted = !report.gitignore_added.is_empty();
    }

    match install_hooks(&top) {
        Ok(changed) => report.hooks_installed = changed,
        Err(e) => report.hooks_error = Some(e),
    }
    Ok(report)
}

/// The real git, if it runs at all; otherwise the seed's message.
fn usable_git() -> Result<Git> {
    let unusable = || {
        Error::internal("git not available: workspace versioning disabled")
            .with_hint("install git, or set WARD_REAL_GIT to its absolute path")
    };
    let git = Git::locate().map_err(|_| unusable())?.detached_from_env();
    git.run(["--version"]).map_err(|_| unusable())?;
    Ok(git)
}

/// Appends the patterns `.gitignore` lacks; returns them.
fn add_ignores(path: &Path, patterns: &[String]) -> Result<Vec<String>> {
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(Error::internal(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    let have: Vec<&str> = current.lines().map(str::trim).collect();
    let mut missing: Vec<String> = Vec::new();
    for p in patterns {
        let p = p.trim();
        if !have.contains(&p) && !missing.iter().any(|m| m == p) {
            missing.push(p.to_string());
        }
    }
    if missing.is_empty() {
        return Ok(missing);
    }
    let mut text = current;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for p in &missing {
        text.push_str(p);
        text.push('\n');
    }
    std::fs::write(path, text).at("write", path)?;
    Ok(missing)
}

/// Runs `git-ward install` in the workspace; the error text if it fails.
/// Installs the hooks; whether any hook changed (not all `unchanged`).
fn install_hooks(top: &Path) -> std::result::Result<bool, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .args(["install", "--json"])
        .current_dir(top)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        let changed = report["hooks"]
            .as_array()
            .is_none_or(|hooks| hooks.iter().any(|h| h["action"] != "unchanged"));
        return Ok(changed);
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(said
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("`git ward install` failed")
        .trim_start_matches("ward: ")
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_are_added_once_and_only_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".gitignore");
        std::fs::write(&path, "*.log").unwrap();
        let pats: Vec<String> = ["*.db", "*.log", "*.db"].map(String::from).to_vec();
        assert_eq!(add_ignores(&path, &pats).unwrap(), vec!["*.db".to_string()]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "*.log\n*.db\n");
        assert!(add_ignores(&path, &pats).unwrap().is_empty());
    }
}
