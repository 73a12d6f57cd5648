//! `git ward doctor`: checks the installation, one line per check.

use crate::error::{exit, Result};
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::hooks::install::same_file;

/// Check the installation: the binary, the shim first on PATH and the real
/// git behind it, the hooks, core.hooksPath, the policy, the audit log.
/// Exits 3, an error (`--json` status E), when a check fails.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Reinstall hooks that are missing or were overwritten by another hook manager.
    #[arg(long)]
    pub fix: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Ok,
    Warn,
    Fail,
}

/// One line of the report.
#[derive(Debug, serde::Serialize)]
pub struct Check {
    pub name: &'static str,
    pub level: Level,
    pub detail: String,
    pub hint: Option<String>,
}

fn check(
    name: &'static str,
    level: Level,
    detail: impl Into<String>,
    hint: Option<String>,
) -> Check {
    Check {
        name,
        level,
        detail: detail.into(),
        hint,
    }
}

/// The oldest git with the reference-transaction hook.
const MIN_GIT: (u32, u32) = (2, 29);

/// Parses `git version 2.47.3` into (2, 47).
pub fn parse_git_version(text: &str) -> Option<(u32, u32)> {
    let version = text.trim().strip_prefix("git version ")?;
    let mut parts = version.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

fn checks(fix: bool) -> Vec<Check> {
    let mut out = Vec::new();
    let me = std::env::current_exe().ok();
    out.push(check(
        "binary",
        Level::Ok,
        format!(
            "git-ward {} at {}",
            env!("CARGO_PKG_VERSION"),
            me.as_ref().map_or("?".into(), |p| p.display().to_string())
        ),
        None,
    ));

    let shim_hint = crate::hooks::install::default_shim_dir().map(|d| {
        format!(
            "put the shim first on the agent's PATH: export PATH=\"{}:$PATH\" (create it with `git ward install --shim`)",
            d.display()
        )
    });
    match (which::which("git"), &me) {
        (Ok(first), Some(me)) if same_file(&first, me) => out.push(check(
            "shim",
            Level::Ok,
            format!("{} is git-ward, first on PATH", first.display()),
            None,
        )),
        (Ok(first), _) => out.push(check(
            "shim",
            Level::Warn,
            format!(
                "first git on PATH is {}, not the shim (fine for humans; agents need the shim)",
                first.display()
            ),
            shim_hint,
        )),
        (Err(_), _) => out.push(check("shim", Level::Warn, "no git on PATH", shim_hint)),
    }

    match Git::locate() {
        Ok(git) => {
            let version = git.run(["--version"]).unwrap_or_default();
            match parse_git_version(&version) {
                Some(v) if v >= MIN_GIT => out.push(check(
                    "git",
                    Level::Ok,
                    format!("{} ({version})", git.path().display()),
                    None,
                )),
                Some(_) => out.push(check(
                    "git",
                    Level::Fail,
                    format!(
                        "{} is {version}; the reference-transaction hook needs 2.29 or newer",
                        git.path().display()
                    ),
                    Some("install a newer git".into()),
                )),
                None => out.push(check(
                    "git",
                    Level::Fail,
                    format!("{} did not report a version", git.path().display()),
                    Some("set WARD_REAL_GIT to a working git".into()),
                )),
            }
        }
        Err(e) => out.push(check("git", Level::Fail, e.message.clone(), e.hint.clone())),
    }

    let repo = Repo::discover();
    match &repo {
        None => out.push(check(
            "repository",
            Level::Warn,
            "not in a git repository: hook checks skipped",
            None,
        )),
        Some(repo) => {
            let mut problems = crate::hooks::install::health(repo);
            // Hooks that git does not run because core.hooksPath points
            // elsewhere are not fixed by installing again here; installing
            // into that directory is the user's call (`install --force`).
            let elsewhere = crate::hooks::install::hooks_run_elsewhere(repo).is_some();
            if fix && !problems.is_empty() && !elsewhere {
                let reinstalled = me.as_ref().and_then(|me| {
                    std::process::Command::new(me)
                        .args(["install", "--force"])
                        .current_dir(repo.workdir().unwrap_or(repo.git_dir()))
                        .output()
                        .ok()
                });
                if reinstalled.is_some_and(|o| o.status.success()) {
                    problems = crate::hooks::install::health(repo);
                }
            }
            if problems.is_empty() {
                out.push(check(
                    "hooks",
                    Level::Ok,
                    "installed and current (or never installed here)",
                    None,
                ));
            } else {
                let hint = if elsewhere {
                    "unset core.hooksPath where it is set (`git config --global --unset core.hooksPath` for the global config), or install into its directory with `git ward install --force`"
                } else {
                    "run `git ward doctor --fix` (or `git ward install`)"
                };
                out.push(check(
                    "hooks",
                    Level::Fail,
                    problems.join("; "),
                    Some(hint.into()),
                ));
            }
            match repo.hooks_path() {
                Some((path, scope)) => out.push(check(
                    "hooksPath",
                    Level::Warn,
                    format!("core.hooksPath = {path} (in the {scope} config)"),
                    Some("git-ward installs into the directory it names; make sure no other tool owns it".into()),
                )),
                None => out.push(check("hooksPath", Level::Ok, "core.hooksPath not set", None)),
            }
        }
    }

    match facts::load_policy(repo.as_ref(), false) {
        Ok(policy) => {
            let layers: std::collections::BTreeSet<String> =
                policy.origins().values().map(|l| l.to_string()).collect();
            out.push(check(
                "policy",
                Level::Ok,
                format!(
                    "valid ({})",
                    layers.into_iter().collect::<Vec<_>>().join(", ")
                ),
                None,
            ))
        }
        Err(e) => out.push(check(
            "policy",
            Level::Fail,
            e.message.clone(),
            e.hint.clone(),
        )),
    }

    if let Some(repo) = &repo {
        let dir = crate::audit::dir(repo.common_dir());
        let writable = std::fs::create_dir_all(&dir).is_ok()
            && std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(".doctor"))
                .is_ok();
        let _ = std::fs::remove_file(dir.join(".doctor"));
        out.push(if writable {
            check(
                "audit",
                Level::Ok,
                format!("{} is writable", dir.display()),
                None,
            )
        } else {
            check(
                "audit",
                Level::Warn,
                format!(
                    "{} is not writable: git still works, nothing is logged",
                    dir.display()
                ),
                Some("fix the directory's permissions".into()),
            )
        });
    }
    out
}

/// Runs `git ward doctor`.
pub fn run(args: DoctorArgs) -> Result<u8> {
    let report = checks(args.fix);
    // A failed check is an error of the installation: status E, exit 3.
    let failed = report.iter().any(|c| c.level == Level::Fail);
    let code = if failed { exit::INTERNAL } else { exit::OK };
    if args.json {
        let value = serde_json::json!({ "status": exit::status(code), "checks": report });
        crate::output::outln!("{value}");
    } else {
        for c in &report {
            let level = match c.level {
                Level::Ok => "ok  ",
                Level::Warn => "warn",
                Level::Fail => "FAIL",
            };
            crate::output::outln!("{level} {:<11}{}", c.name, c.detail);
            if let (Some(hint), false) = (&c.hint, c.level == Level::Ok) {
                crate::output::outln!("     {:<11}hint: {hint}", "");
            }
        }
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions_parse() {
        assert_eq!(parse_git_version("git version 2.47.3\n"), Some((2, 47)));
        assert_eq!(parse_git_version("git version 2.39.5"), Some((2, 39)));
        assert_eq!(
            parse_git_version("git version 2.28.0.windows.1"),
            Some((2, 28))
        );
        assert!(parse_git_version("git version 2.28.0").unwrap() < MIN_GIT);
        assert_eq!(parse_git_version("nonsense"), None);
    }
}
