//! `git ward install` and `git ward uninstall`: the command faces of
//! `hooks/install.rs` (the hook files) and the shim directory.

use super::Outcome;
use std::path::{Path, PathBuf};

use crate::error::{Error, IoContext, Result};
use crate::hooks::install::{current_dir, install, own_path, same_file, symlink, uninstall, Form};

/// Arguments of `git ward install`.
#[derive(Debug, Default, clap::Args)]
pub struct InstallArgs {
    /// Install the server-side pre-receive hook (in a bare repository).
    #[arg(long)]
    pub server: bool,
    /// Install even where core.hooksPath is relative, global or shared, or
    /// where a hook replaced git-ward's after it was installed.
    #[arg(long)]
    pub force: bool,
    /// Create the shim directory (`git -> git-ward`) instead: in DIR, or in
    /// $XDG_DATA_HOME/git-ward/shim (~/.local/share/git-ward/shim).
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub shim: Option<Option<PathBuf>>,
    /// Make each hook a link to git-ward instead of a file naming it: git
    /// silently skips a hook whose link points nowhere, so a removed binary
    /// fails open. No faster than the default where the default starts
    /// git-ward directly (a `#!` line).
    #[arg(long)]
    pub link: bool,
    #[command(flatten)]
    pub harness: HarnessArgs,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `git ward uninstall`.
#[derive(Debug, Default, clap::Args)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub harness: HarnessArgs,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--harness NAME [--project|--user]`: an agent harness's configuration
/// (its pre-tool hook `git-ward pretool NAME` and the MCP server
/// `git-ward mcp`) instead of the hooks; uninstall puts it back.
#[derive(Debug, Default, clap::Args)]
pub struct HarnessArgs {
    /// Write (or put back) an agent harness's configuration instead.
    #[arg(long, value_enum, value_name = "NAME")]
    pub harness: Option<crate::pretool::Harness>,
    /// With --harness: the project's files, at the repository's top (the default).
    #[arg(long, requires = "harness", conflicts_with = "user")]
    pub project: bool,
    /// With --harness: the user's files, in the home directory.
    #[arg(long, requires = "harness")]
    pub user: bool,
}

/// Runs `git ward install`.
pub fn run_install(args: InstallArgs) -> Outcome {
    if let Some(harness) = args.harness.harness {
        let user = args.harness.user;
        // The shim the harness's hooks put first on PATH, or rewrite
        // commands through; the harness is set up without it too.
        let shim = install_shim(None, false);
        let result = crate::harness::install(harness, user).map(|(mut value, mut text)| {
            match shim {
                Ok((shim, _)) => value["shim_dir"] = shim["shim_dir"].clone(),
                Err(err) => {
                    let note = format!(
                        "no shim: {} ({})",
                        err.message,
                        err.hint.unwrap_or_default()
                    );
                    text.push_str(&format!("note: {note}\n"));
                    value["notes"] = serde_json::json!([note]);
                }
            }
            (value, text)
        });
        return Outcome::report(args.json, result);
    }
    if let Some(dir) = &args.shim {
        return Outcome::report(args.json, install_shim(dir.as_deref(), args.force));
    }
    let form = if args.link { Form::Link } else { Form::File };
    let allowed = match args.link {
        true => crate::commands::tool_step(crate::decide::ToolStep::LinkHooks, "ward.install"),
        false => Ok(()),
    };
    let result = allowed.and_then(|()| install(&current_dir()?, args.server, args.force, form));
    let result = result.map(|(dir, reports)| {
        let top = crate::facts::Repo::discover()
            .and_then(|r| r.workdir().map(std::path::Path::to_path_buf));
        let notes = top.map_or_else(Vec::new, |top| {
            crate::hooks::managers::advice(&top, &crate::hooks::managers::detect(&top, &dir))
        });
        let text = reports
            .iter()
            .map(|r| format!("{:<22} {}\n", r.name, r.action))
            .collect::<String>()
            + &format!("hooks directory: {}\n", dir.display())
            + &notes.iter().map(|n| format!("note: {n}\n")).collect::<String>();
        (
            serde_json::json!({"hooks_dir": dir.to_string_lossy(), "hooks": reports, "notes": notes}),
            text,
        )
    });
    Outcome::report(args.json, result)
}

/// Runs `git ward uninstall`.
pub fn run_uninstall(args: UninstallArgs) -> Outcome {
    if let Some(harness) = args.harness.harness {
        let user = args.harness.user;
        let result =
            crate::commands::tool_step(crate::decide::ToolStep::Uninstall, "ward.uninstall")
                .and_then(|()| crate::harness::uninstall(harness, user));
        return Outcome::report(args.json, result);
    }
    let result = crate::commands::tool_step(crate::decide::ToolStep::Uninstall, "ward.uninstall")
        .and_then(|()| uninstall(&current_dir()?))
        .map(|(dir, reports)| {
            let text = reports
                .iter()
                .map(|r| format!("{:<22} {}\n", r.name, r.action))
                .collect::<String>();
            (
                serde_json::json!({"hooks_dir": dir.to_string_lossy(), "hooks": reports}),
                text,
            )
        });
    Outcome::report(args.json, result)
}

/// `git ward install --shim [DIR]`: `DIR/git -> git-ward`, and the PATH line to use.
pub(crate) fn install_shim(dir: Option<&Path>, force: bool) -> Result<(serde_json::Value, String)> {
    let dir = match dir {
        Some(dir) => std::path::absolute(dir).at("resolve", dir)?,
        None => crate::facts::install_record::default_shim_dir().ok_or_else(|| {
            Error::invalid(
                "no shim directory given and neither XDG_DATA_HOME nor HOME is set",
                "pass one: `git ward install --shim DIR`",
            )
        })?,
    };
    if std::fs::metadata(&dir).is_ok_and(|m| !m.is_dir()) {
        return Err(Error::invalid(
            format!("{} is not a directory", dir.display()),
            "name a directory for the shim, or a path where one can be created",
        ));
    }
    let link = dir.join("git");
    // Not replaced even with --force: a directory is no stale shim.
    if std::fs::symlink_metadata(&link).is_ok_and(|m| m.is_dir()) {
        return Err(Error::invalid(
            format!("{} is a directory", link.display()),
            "name another directory for the shim, or move that one away",
        ));
    }
    let binary = own_path()?;
    std::fs::create_dir_all(&dir).at("create the directory", &dir)?;
    let action = match std::fs::read_link(&link) {
        Ok(target) if target == binary => "unchanged",
        // A link to this binary by another of its names (its versioned
        // path, before `own_path` preferred the one on PATH): ours to update.
        Ok(target) if same_file(&dir.join(&target), &binary) => {
            std::fs::remove_file(&link).at("remove", &link)?;
            symlink(&binary, &link)?;
            "updated"
        }
        Ok(_) | Err(_) if std::fs::symlink_metadata(&link).is_ok() => {
            if !force {
                return Err(Error::invalid(
                    format!(
                        "{} exists and is not a link to {}",
                        link.display(),
                        binary.display()
                    ),
                    "pass --force to replace it",
                ));
            }
            std::fs::remove_file(&link).at("remove", &link)?;
            symlink(&binary, &link)?;
            "updated"
        }
        _ => {
            symlink(&binary, &link)?;
            "installed"
        }
    };
    let quoted = dir.display().to_string().replace('"', "\\\"");
    let line = format!("export PATH=\"{quoted}:$PATH\"");
    let text = format!(
        "shim {action}: {} -> {}\nput it first on the agent's PATH (e.g. in the agent harness's environment):\n  {line}\n",
        link.display(),
        binary.display()
    );
    Ok((
        serde_json::json!({"shim_dir": dir.to_string_lossy(), "link": link.to_string_lossy(), "binary": binary.to_string_lossy(), "action": action, "path_line": line}),
        text,
    ))
}
