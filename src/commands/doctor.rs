//! `git ward doctor`: checks the installation, one line per check.

use crate::error::{exit, Result};
use crate::facts::install_record::{self, same_file};
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::hooks::install;
use std::path::Path;

/// Check the installation: the binary, the shim first on PATH and the real
/// git behind it, the hooks, core.hooksPath, the policy, the audit log.
/// Exits 3, an error (`--json` status E), when a check fails.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Install the hooks where they are missing (never installed, too) or
    /// were overwritten by another hook manager; remove the lock files and
    /// half-made worktrees a killed git left (when no git runs in the
    /// repository).
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

/// PATH as the shell that started git-ward set it: run as `git ward`,
/// git has put its own exec path (`GIT_EXEC_PATH`) in front, which holds
/// a `git` of its own.
pub(crate) fn agents_path() -> Option<std::ffi::OsString> {
    let path = std::env::var_os("PATH")?;
    let Some(exec) = std::env::var_os("GIT_EXEC_PATH") else {
        return Some(path);
    };
    let exec = std::path::PathBuf::from(exec);
    let rest: Vec<_> = std::env::split_paths(&path)
        .skip_while(|p| *p == exec)
        .collect();
    std::env::join_paths(rest).ok().or(Some(path))
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

    let shim_hint = crate::facts::install_record::default_shim_dir().map(|d| {
        // Creating the shim is suggested only where it is not there yet.
        let create = if d.join("git").exists() {
            ""
        } else {
            " (create it with `git ward install --shim`)"
        };
        format!(
            "put the shim first on the agent's PATH: export PATH=\"{}:$PATH\"{create}",
            d.display()
        )
    });
    let cwd = std::env::current_dir().unwrap_or_default();
    match (which::which_in("git", agents_path(), cwd), &me) {
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
            if !install_record::installed_hooks(repo).is_empty() {
                // The home whose config files are the person's own (SECURITY.md).
                facts::context::record_config_home_once(repo.common_dir());
            }
            out.push(hooks_check(repo, me.as_deref(), fix));
            out.extend(locks_check(repo, fix));
            if let Some(place) = hooks_place_check() {
                out.push(place);
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

    let harnesses = crate::harness::set_up();
    out.push(check(
        "harnesses",
        Level::Ok,
        if harnesses.is_empty() {
            "no agent harness set up (`git ward install --harness NAME`)".to_string()
        } else {
            harnesses
                .iter()
                .map(|(h, scope)| format!("{} ({scope})", h.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        },
        None,
    ));

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
            ));
            if let Some((why, hint)) = repo.as_ref().and_then(super::policy::unread_team_file) {
                out.push(check("team policy", Level::Warn, why, Some(hint)));
            }
            if let Some(repo) = repo.as_ref() {
                out.extend(drift_check(repo, &policy));
                out.extend(stray_check(repo));
            }
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
        let writable = if fix {
            std::fs::create_dir_all(&dir).is_ok() && writable(&dir)
        } else {
            // A check changes nothing: the directory the log would be
            // created in, where it is not there yet.
            dir.ancestors().find(|d| d.exists()).is_some_and(writable)
        };
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

/// What a killed git left, which makes later gits refuse or `git fsck`
/// fail: its lock files, and linked worktrees `git worktree add` did not
/// finish. `--fix` deletes them (nothing when a git runs in the
/// repository: then they are live).
fn locks_check(repo: &Repo, fix: bool) -> Option<Check> {
    let common = repo.common_dir();
    let tops = super::leftovers::tops(repo);
    let locks = facts::stale_locks::left_by_killed_git(common, &tops);
    let half = facts::stale_locks::half_made_worktrees(common, &tops);
    if locks.is_empty() && half.is_empty() {
        return None;
    }
    let names: Vec<String> = locks
        .iter()
        .map(|p| p.display().to_string())
        .chain(
            half.iter()
                .map(|w| format!("the worktree {} (half made)", w.top.display())),
        )
        .collect();
    let names = names.join(", ");
    if !fix {
        return Some(check(
            "locks",
            Level::Warn,
            format!("left by a killed git (no git runs in this repository): {names}; git refuses to write, or `git fsck` fails, until they go"),
            Some("run `git ward doctor --fix`".into()),
        ));
    }
    let (_, kept) = super::leftovers::clear_locks(repo);
    let mut kept: Vec<String> = kept.iter().map(|p| p.display().to_string()).collect();
    let git = Git::locate().map(|g| g.in_dir(repo.workdir().unwrap_or(common)));
    for w in &half {
        let top = w.top.to_string_lossy();
        // Twice forced: git refuses a locked worktree otherwise.
        let removed = git.as_ref().is_ok_and(|g| {
            g.run(["worktree", "remove", "--force", "--force", &top])
                .is_ok()
        });
        if !removed {
            kept.push(format!("the worktree {top}"));
        }
    }
    Some(match kept.is_empty() {
        true => check(
            "locks",
            Level::Ok,
            format!("removed what a killed git left: {names}"),
            None,
        ),
        false => check(
            "locks",
            Level::Fail,
            format!("cannot remove what a killed git left: {}", kept.join(", ")),
            Some("remove them by hand: no git runs in this repository".into()),
        ),
    })
}

/// git-ward hook files no install record owns (another manager kept them
/// aside, or git-ward was uninstalled before that manager): they refuse
/// where they run while nothing says git-ward is installed.
fn stray_check(repo: &Repo) -> Option<Check> {
    let dir = facts::gates::runs_hooks_from(repo)?;
    let recorded = facts::gates::recorded_hooks(repo.common_dir());
    let stray = crate::hooks::managers::stray(&dir, &recorded);
    if stray.is_empty() {
        return None;
    }
    let names: Vec<String> = stray.iter().map(|p| p.display().to_string()).collect();
    Some(check(
        "stray hooks",
        Level::Warn,
        format!("git-ward hook files no install record owns: {}", names.join(", ")),
        Some("`git ward uninstall` removes them (or remove them by hand); `git ward install` if git-ward should guard this repository".into()),
    ))
}

/// Guarded refs that moved with git-ward's hooks off: fails, naming each
/// ref and the command that puts it back.
fn drift_check(repo: &Repo, policy: &crate::policy::Policy) -> Option<Check> {
    if !facts::drift::watched(repo.common_dir()) {
        return None;
    }
    let found = super::drift::scan(repo, policy);
    super::drift::notice(repo.common_dir(), &found, "tool", false);
    Some(if found.moved.is_empty() {
        check(
            "drift",
            Level::Ok,
            "no guarded ref moved with the hooks off",
            None,
        )
    } else {
        let moved: Vec<String> = found.moved.iter().map(|m| m.describe()).collect();
        check(
            "drift",
            Level::Fail,
            format!("moved with git-ward's hooks off: {}", moved.join(", ")),
            Some("put them back with `git ward drift --restore` (or `git ward undo --drift`), or keep them with `git ward drift --accept`".into()),
        )
    })
}

/// The hooks check: git-ward's hooks present and current.
///
/// In a working repository the hooks are what enforces the rules on every
/// git that runs there, the shim's or not: hooks never
/// installed, or taken out by `git ward uninstall`, fail the check as
/// missing or overwritten ones do, and `--fix` installs them (a plain
/// `git ward install`, which keeps refusing a relative or shared
/// `core.hooksPath`). A bare repository needs none of the client hooks (no
/// one commits in it), and its pre-receive hook is a team's choice
/// (`git ward install --server`): without hooks it passes, saying so; the
/// hooks it has are checked as anywhere else. Outside a repository there
/// are no hooks to check, and the repository line only warns: `./install`
/// ends with `git ward doctor` wherever it is run from.
fn hooks_check(repo: &Repo, me: Option<&Path>, fix: bool) -> Check {
    // Bare as git sees it, as `git ward install` asks.
    let bare = Git::locate()
        .and_then(|git| git.run(["rev-parse", "--is-bare-repository"]))
        .map_or(repo.workdir().is_none(), |answer| answer == "true");
    // What a plain `git ward install` would add: the client hooks, in a
    // working repository.
    let not_installed = |repo: &Repo| -> Vec<&str> {
        let installed = install_record::installed_hooks(repo);
        let wanted: Vec<&str> = if bare {
            Vec::new()
        } else {
            crate::hook_table::on(crate::hook_table::Side::Client).collect()
        };
        wanted
            .iter()
            .copied()
            .filter(|name| !installed.iter().any(|h| h == name))
            .collect()
    };
    let mut missing = not_installed(repo);
    let mut fix_failed = None;
    if fix && !missing.is_empty() {
        fix_failed = reinstall(repo, me, false, bare).err();
        missing = not_installed(repo);
    }
    let mut problems = without_hints(install::health(repo));
    // Hooks that git does not run because core.hooksPath points
    // elsewhere are not fixed by installing again here; installing
    // into that directory is the user's call (`install --force`).
    let elsewhere = install_record::hooks_run_elsewhere(repo).is_some();
    if fix && !problems.is_empty() && !elsewhere && reinstall(repo, me, true, bare).is_ok() {
        problems = without_hints(install::health(repo));
    }
    if !missing.is_empty() {
        let mut detail = if missing.len()
            == crate::hook_table::on(crate::hook_table::Side::Client).count()
        {
            "git-ward's hooks are not installed in this repository: git commands that skip the shim are not checked".to_string()
        } else {
            let (s, are) = if missing.len() == 1 {
                ("", "is")
            } else {
                ("s", "are")
            };
            format!(
                "git-ward's {} hook{s} {are} not installed",
                missing.join(", ")
            )
        };
        if let Some(why) = fix_failed {
            detail.push_str(&format!("; `git ward install` failed: {why}"));
        }
        problems.insert(0, detail);
        return check(
            "hooks",
            Level::Fail,
            problems.join("; "),
            Some("run `git ward install` (or `git ward doctor --fix`)".into()),
        );
    }
    if !problems.is_empty() {
        let hint = if elsewhere {
            "unset core.hooksPath where it is set (`git config --global --unset core.hooksPath` for the global config), or install into its directory with `git ward install --force`"
        } else if bare {
            "run `git ward doctor --fix` (or `git ward install --server`)"
        } else {
            "run `git ward doctor --fix` (or `git ward install`)"
        };
        return check("hooks", Level::Fail, problems.join("; "), Some(hint.into()));
    }
    let detail = if bare && install_record::installed_hooks(repo).is_empty() {
        "none in this bare repository (pre-receive, for pushes, is optional: `git ward install --server`)"
    } else {
        "installed and current"
    };
    check("hooks", Level::Ok, detail, None)
}

/// Where git runs the hooks: not inside a working tree, where an agent's
/// allowed `git clean` or `git checkout` deletes or replaces them (say
/// `.git/hooks` is a link to a directory of the tree). `None` when git
/// cannot say.
fn hooks_place_check() -> Option<Check> {
    let cwd = std::env::current_dir().ok()?;
    let (dir, why) = install::hooks_place(&cwd).ok()?;
    Some(match why {
        Some((why, fix)) => check(
            "hooks dir",
            Level::Warn,
            why,
            Some(format!(
                "make {} a directory of its own, outside the working tree, then run `git ward install`",
                fix.display()
            )),
        ),
        None => check("hooks dir", Level::Ok, dir.display().to_string(), None),
    })
}

/// Runs `git ward install` (with `--force`: over a hook that replaced
/// git-ward's; `--server` in a bare repository, whose hook is
/// pre-receive) in the repository; its error's first line when it fails.
fn reinstall(
    repo: &Repo,
    me: Option<&Path>,
    force: bool,
    bare: bool,
) -> std::result::Result<(), String> {
    let me = me.ok_or("cannot find git-ward's own path")?;
    let mut cmd = std::process::Command::new(me);
    cmd.arg("install")
        .current_dir(repo.workdir().unwrap_or(repo.git_dir()));
    if force {
        cmd.arg("--force");
    }
    if bare {
        cmd.arg("--server");
    }
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or_default().trim();
    Err(first.strip_prefix("ward: ").unwrap_or(first).to_string())
}

/// Can this process create files in `dir`? Asked of the kernel
/// (`access(2)`), without writing anything.
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path that lives across the call.
    unsafe { libc::access(path.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

/// The hooks' problems without the hint each one carries for the shim's
/// warnings: the check gives its hint once.
fn without_hints(problems: Vec<String>) -> Vec<String> {
    const HINT: &str = "; run `git ward doctor --fix`";
    problems
        .into_iter()
        .map(|p| p.strip_suffix(HINT).map(str::to_string).unwrap_or(p))
        .collect()
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
        use crate::output::{paint, Colour};
        let on = crate::output::colour_stdout();
        for c in &report {
            let level = match c.level {
                Level::Ok => paint(on, Colour::Green, "ok  "),
                Level::Warn => paint(on, Colour::Yellow, "warn"),
                Level::Fail => paint(on, Colour::Red, "FAIL"),
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
