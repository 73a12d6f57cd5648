//! `git ward run`: a command (an agent) as a guarded session.
//!
//! The shim goes first on its PATH, `WARD_CONTRACT` and `WARD_SESSION` into
//! its environment, the hooks are checked; with `--worktree` it runs in the
//! contract's own lane. Its worktree carries a lease while it runs. Its
//! exit status (or signal) is `run`'s; a summary follows on stderr.

mod hold;
pub mod lane;
pub mod summary;

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use crate::decide::{decide_tool, ToolStep};
use crate::error::{Error, Result};
use crate::facts::lease::Lease;
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::output::errln;

/// Run COMMAND as an agent session: the shim first on its PATH,
/// WARD_CONTRACT set, hooks checked; with --worktree, in the contract's
/// own linked worktree on <agent_prefix><contract> (made on first use,
/// reused after; by default at <repository>/../<name>.lanes/<contract>).
/// Its exit status (or signal) passes through; a summary follows on stderr.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The contract (default: WARD_CONTRACT, else this worktree's contract).
    #[arg(long, value_name = "ID")]
    pub contract: Option<String>,
    /// Run in the contract's own linked worktree (at DIR when it is made).
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub worktree: Option<Option<PathBuf>>,
    /// Where a new lane starts (default: the current HEAD).
    #[arg(long, value_name = "REF", requires = "worktree")]
    pub from: Option<String>,
    /// The summary as one JSON object (on stderr, after the command).
    #[arg(long)]
    pub json: bool,
    /// The command to run, after `--`.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    pub command: Vec<OsString>,
}

/// The contract of the session: `--contract`, else the environment's,
/// else the worktree's file; none is EN-GIT-I-001.
fn contract_of(args: &RunArgs, repo: &Repo) -> Result<String> {
    if let Some(id) = &args.contract {
        return match facts::valid_contract(id) {
            true => Ok(id.clone()),
            false => Err(facts::invalid_contract(id)),
        };
    }
    facts::contract(Some(repo))?.map(|c| c.0).ok_or_else(|| {
        Error::invalid(
            "a session needs a contract, and none is given",
            "pass one: `git ward run --contract <id> -- <command>` (or set WARD_CONTRACT)",
        )
    })
}

/// The shim directory (made if missing) and what was done, when anything was.
fn shim_dir() -> Result<(PathBuf, Option<String>)> {
    let (value, _) = super::install::install_shim(None, false)?;
    let dir = PathBuf::from(value["shim_dir"].as_str().unwrap_or_default());
    let action = value["action"].as_str().unwrap_or_default();
    let note = (action != "unchanged").then(|| format!("shim {action} in {}", dir.display()));
    Ok((dir, note))
}

/// Installs the hooks where they are missing or not git-ward's any more.
fn check_hooks(repo: &Repo, cwd: &Path) -> Vec<String> {
    let installed = !crate::facts::install_record::installed_hooks(repo).is_empty();
    if installed && crate::hooks::install::health(repo).is_empty() {
        return Vec::new();
    }
    let form = crate::hooks::install::Form::File;
    match crate::hooks::install::install(cwd, false, false, form) {
        Ok((dir, _)) => vec![format!("hooks installed in {}", dir.display())],
        Err(err) => vec![format!(
            "warning: hooks not installed: {} ({})",
            err.message,
            err.hint.unwrap_or_default()
        )],
    }
}

/// PATH with the shim directory first (and nowhere else), and git-ward's
/// own directory last where it is missing, so that `git ward ...` finds
/// `git-ward` even when `run` was started by its path.
fn path_with(shim: &Path) -> OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::iter::once(shim.to_path_buf())
        .chain(std::env::split_paths(&rest).filter(|p| p != shim))
        .collect();
    let own = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    if let Some(own) = own.filter(|o| !dirs.contains(o)) {
        dirs.push(own);
    }
    std::env::join_paths(dirs).unwrap_or(rest)
}

/// Runs `git ward run`; `cli` prints the summary.
pub fn run(args: RunArgs) -> super::Outcome {
    let json = args.json;
    super::Outcome::Ended {
        json,
        result: session(args),
    }
}

/// The session, from taking its lane and lease to what it did.
fn session(args: RunArgs) -> Result<super::Ended> {
    let repo = Repo::for_tool("run it inside the repository the agent works on")?;
    let policy = facts::load_policy(Some(&repo), false)?;
    let contract = contract_of(&args, &repo)?;
    let cwd = std::env::current_dir()
        .map_err(|e| Error::internal(format!("no working directory: {e}")))?;
    let git = Git::locate()?
        .in_dir(&cwd)
        .env(crate::env::WARD_CONTRACT, &contract);
    let (shim, shim_note) = shim_dir()?;
    let mut notes: Vec<String> = shim_note.into_iter().collect();
    notes.extend(check_hooks(&repo, &cwd));
    let (top, git_dir) = match &args.worktree {
        Some(dir) => {
            let branch = format!("{}{contract}", policy.settings.branches.agent_prefix);
            let (lane, said) = lane::ensure(
                &git,
                &repo,
                &contract,
                &branch,
                dir.as_deref(),
                args.from.as_deref(),
            )?;
            notes.extend(said);
            if !lane.created {
                notes.push(format!("lane reused: {} on {branch}", lane.top.display()));
            }
            (lane.top, lane.git_dir)
        }
        None => (cwd.clone(), repo.git_dir().to_path_buf()),
    };
    let session = format!("s-{}", crate::audit::new_trace_id());
    let started = SystemTime::now();
    let lease = Lease {
        contract: contract.clone(),
        pid: std::process::id(),
        start_time: facts::lease::own_start_time(),
        command: args
            .command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        started: crate::audit::rfc3339(started),
        session: session.clone(),
        worktree: top.display().to_string(),
    };
    let holding = match hold::take(&git_dir, lease)? {
        hold::Taken::Held(holding, stale) => {
            if let Some(old) = stale {
                notes.push(format!(
                    "took over the stale lease of contract '{}' (pid {}, started {}): its process is gone",
                    old.contract, old.pid, old.started
                ));
            }
            Some(holding)
        }
        hold::Taken::Nested => None,
        hold::Taken::Busy(owner) => {
            let actor = facts::actor(&policy, false);
            let decision = decide_tool(&policy, actor, ToolStep::Leased(&owner.held()));
            if let Some(err) = decision.denial() {
                super::log(&repo, "ward.run", Some(&contract), Some(err));
                return Err(err.clone());
            }
            None
        }
    };
    for note in &notes {
        errln!("ward: {note}");
    }
    let before = summary::Before::read(&git_dir, &contract);
    let lane_git = Git::locate()?.in_dir(&top);
    let mut child = Command::new(&args.command[0]);
    child
        .args(&args.command[1..])
        .current_dir(&top)
        .env("PATH", path_with(&shim))
        .env(crate::env::WARD_CONTRACT, &contract)
        .env(crate::env::WARD_SESSION, &session);
    // A session's reads (`git status`) take no index lock a write in
    // another session's lane would meet ("index.lock exists").
    if std::env::var_os("GIT_OPTIONAL_LOCKS").is_none() {
        child.env("GIT_OPTIONAL_LOCKS", "0");
    }
    #[cfg(target_os = "linux")]
    // SAFETY: prctl in the child before exec; a session's command gets
    // SIGHUP when `run` dies (its lease then stale), as from a closed terminal.
    unsafe {
        child.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGHUP);
            Ok(())
        });
    }
    let status = match child.spawn() {
        Ok(mut c) => {
            crate::shim::forward_signals_to(c.id());
            c.wait()
        }
        Err(e) => Err(e),
    };
    drop(holding);
    let status = status.map_err(|e| {
        Error::invalid(
            format!("cannot run {}: {e}", args.command[0].to_string_lossy()),
            "name a command on PATH, or give its path",
        )
    })?;
    let end = summary::Summary::read(
        &lane_git, &git_dir, &before, &session, &contract, &top, started,
    );
    let (code, signal) = match (status.code(), status.signal()) {
        (Some(code), _) => (code, None),
        (None, Some(sig)) => (128 + sig, Some(sig)),
        _ => (1, None),
    };
    Ok(end.ended(code, signal))
}
