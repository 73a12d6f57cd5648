//! The hooks face: one file per hook, plus `install.rs` (the hook files).
//!
//! git runs a hook for every commit, ref update and push, up to eight times
//! per commit, so each hook exits as early as its answer is known: states
//! that need nothing, lines that touch no policed ref, and human actors
//! leave before the policy is loaded or the repository opened. What every
//! run needs from the policy is kept in a small cache
//! (`facts/settings_cache.rs`).
//!
//! After git-ward's own check passes, a hook that was there before
//! `git ward install` (kept as `<name>.ward-orig`) runs with the same
//! arguments and the same stdin, and its status is the hook's status.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::audit::{self, Record};
use crate::decide::{Actor, Decision};
use crate::env;
use crate::error::{exit, Error, Result};
pub(crate) use crate::facts::starter::{argv_of, parent_argv, parent_operation};
use crate::facts::Dirs;
pub use crate::git::{is_object_id, is_zero};

mod attribution;
mod chain;
mod footer;
pub mod install;
pub mod managers;
pub(crate) mod message;
mod pre_commit;
pub(crate) mod pre_push;
pub(crate) mod pre_receive;
pub(crate) mod reference_transaction;
mod ward_refs;

/// The hook a file of git-ward's named `file` is: its name, or the name it
/// starts with when another hook manager renamed it aside (`pre-commit.legacy`,
/// `pre-push.old`, `commit-msg.ward-orig`, `pre-commit~`). `None` for a
/// name git-ward cannot map, which [`run`] refuses.
pub fn hook_named(file: &str) -> Option<&'static str> {
    crate::hook_table::names().find(|hook| {
        file.strip_prefix(hook)
            .is_some_and(|rest| rest.is_empty() || !rest.starts_with(|c: char| c.is_alphanumeric()))
    })
}

/// Runs hook `name`, started as the file `file` (its name, or the name a
/// hook manager renamed it to) from the hooks directory `dir`, with git's
/// arguments; returns the hook's exit code. A name that is no hook of
/// git-ward's is refused: a gate never fails open by being renamed.
pub fn run(name: &str, file: &str, dir: Option<&Path>, args: &[OsString]) -> Result<u8> {
    if !crate::hook_table::known(name) {
        return Err(Error::internal(format!(
            "this git-ward hook was started as `{file}`, which names no hook git-ward knows: it refuses rather than check nothing"
        ))
        .with_hint("give the file its hook's name (pre-commit, pre-push, ...), or run `git ward install` to write the hooks again")
        .with_exit(exit::DENIED));
    }
    // Only a hook receive-pack runs can run inside it: no /proc read for
    // the others.
    if name == "pre-receive" || (crate::hook_table::received(name) && inside_receive_pack()) {
        env::mark_receiving();
    }
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let chained = dir
        .and_then(|dir| chained_hook(dir, name))
        .filter(|path| path.file_name().is_none_or(|f| f != file))
        .filter(|_| !chain::inside_own_chain(name));
    let stdin = if crate::hook_table::reads_stdin(name) {
        let mut buf = Vec::new();
        // A closed or unreadable stdin is an empty one.
        let _ = std::io::stdin().read_to_end(&mut buf);
        buf
    } else {
        Vec::new()
    };
    let ours = match name {
        "reference-transaction" => reference_transaction::run(&args, &stdin),
        "pre-commit" => pre_commit::run(),
        "prepare-commit-msg" | "commit-msg" | "applypatch-msg" => footer::run(name, &args),
        "pre-push" => pre_push::run(&args, &stdin),
        "pre-receive" => pre_receive::run(&stdin),
        _ => Ok(exit::OK),
    };
    match ours {
        Ok(exit::OK) => {}
        other => return other,
    }
    match (chained, dir) {
        (Some(path), Some(dir)) => run_chained(&path, &dir.join(name), &args, &stdin),
        _ => Ok(exit::OK),
    }
}

/// The hook git-ward moved aside when it installed itself, when git would
/// run it: a file it may execute. git skips a hook that is not executable
/// or a link that points nowhere, and so does git-ward.
/// Not when git-ward runs as pre-commit's `<name>.legacy` and the hook
/// kept is pre-commit's own (installed again over git-ward's): pre-commit
/// is running its hooks already, and refuses to start them twice.
fn chained_hook(dir: &Path, name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(install::chained_name(name));
    let meta = std::fs::metadata(&path).ok()?;
    if !(meta.is_file() && meta.permissions().mode() & 0o111 != 0) {
        return None;
    }
    let as_legacy = std::env::var_os(crate::env::PRE_COMMIT_RUNNING_LEGACY).is_some();
    if as_legacy
        && crate::facts::gates::head_text(&path)
            .is_some_and(|t| t.contains(managers::PRE_COMMIT_MARK))
    {
        return None;
    }
    Some(path)
}

/// Runs the chained hook with the same arguments and stdin; its status is
/// ours. A shell script is run by the name git gave the hook (`as`), as
/// `$0`: hook managers (husky) read which hook runs from it. Others run
/// from where they lie; one the kernel cannot start (no `#!` line) is run
/// by `/bin/sh`, as git does.
fn run_chained(path: &Path, as_name: &Path, args: &[String], stdin: &[u8]) -> Result<u8> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let command = |through_sh: bool| {
        let mut cmd = if through_sh {
            let mut sh = Command::new("/bin/sh");
            sh.arg("-c")
                .arg(". \"$WARD_CHAINED_HOOK\"")
                .arg(as_name)
                .env("WARD_CHAINED_HOOK", path);
            sh
        } else {
            Command::new(path)
        };
        cmd.args(args).env_remove(env::WARD_HOOK_DIR);
        cmd.stdin(if stdin.is_empty() {
            Stdio::inherit()
        } else {
            Stdio::piped()
        });
        cmd
    };
    let spawned = match command(is_sh_script(path)).spawn() {
        Err(e) if e.raw_os_error() == Some(libc::ENOEXEC) => command(true).spawn(),
        other => other,
    };
    let mut child = spawned.map_err(|e| {
        Error::internal(format!(
            "cannot run the chained hook {}: {e}",
            path.display()
        ))
        .with_hint("check its `#!` line (the program it names must exist), or remove it and run `git ward install` again")
    })?;
    if let Some(mut pipe) = child.stdin.take() {
        // The hook may exit without reading its input: a broken pipe is fine.
        let _ = pipe.write_all(stdin);
    }
    let status = child
        .wait()
        .map_err(|e| Error::internal(format!("the chained hook {} failed: {e}", path.display())))?;
    Ok(match status.code() {
        Some(code) => code.clamp(0, 255) as u8,
        None => exit::DENIED,
    })
}

/// Does the file start with a `#!` line for a POSIX shell (`sh`, `dash`)?
fn is_sh_script(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 64];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let line = head[..n].split(|b| *b == b'\n').next().unwrap_or_default();
    let Some(interpreter) = line.strip_prefix(b"#!") else {
        return false;
    };
    let words: Vec<&[u8]> = interpreter
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let shell = match words.as_slice() {
        [env, shell] if env.ends_with(b"/env") => *shell,
        [shell] => shell.rsplit(|b| *b == b'/').next().unwrap_or_default(),
        _ => return false,
    };
    matches!(shell, b"sh" | b"dash")
}

/// The trace this hook joins: `WARD_TRACE_ID` from the shim, else one id per
/// git process (derived from the parent's pid and start time), so that all
/// hooks of one `/usr/bin/git` command share it.
pub fn trace_id() -> String {
    env::var(env::WARD_TRACE_ID)
        .or_else(parent_trace_id)
        .unwrap_or_else(audit::new_trace_id)
}

fn parent_trace_id() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    let start_ticks = crate::facts::starter::start_ticks(ppid)?;
    Some(format!("g{start_ticks:x}-{ppid:x}"))
}

/// Does this hook run inside `receive-pack`, a push this repository
/// receives? Then its environment is the pusher's (over a local path or
/// `file://`), and it reads the server's policy layers alone
/// ([`env::mark_receiving`]). The nearest git above the hook says: its
/// parent, or a shell or two higher (a hook manager's script).
fn inside_receive_pack() -> bool {
    let parent = std::os::unix::process::parent_id();
    let mut pid = parent;
    for _ in 0..3 {
        let argv = match pid == parent {
            true => parent_argv(),
            false => argv_of(pid),
        };
        let program = argv
            .first()
            .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
        if program == "git" || program.starts_with("git-") {
            return parent_operation(&argv) == "git.receive-pack" || program == "git-receive-pack";
        }
        match crate::facts::starter::parent_of(pid) {
            Some(p) if p > 1 => pid = p,
            _ => return false,
        }
    }
    false
}

/// An audit record for a hook's decision.
pub fn record(hook: &str, actor: Actor, contract: Option<String>, started: SystemTime) -> Record {
    Record {
        timestamp: audit::rfc3339(SystemTime::now()),
        started_at: audit::rfc3339(started),
        duration_ms: started.elapsed().map(|d| d.as_millis() as u64).unwrap_or(0),
        trace_id: trace_id(),
        source: hook.to_string(),
        actor: actor.as_str().into(),
        contract_id: contract,
        operation: format!("git.{hook}"),
        argv: parent_argv(),
        tier: 1,
        worktree: std::env::current_dir()
            .ok()
            .map(|d| d.display().to_string()),
        ..Record::default()
    }
}

/// Carries out a hook's decision: a denial is printed in the the rules' two
/// lines and logged, and the hook exits 1; an allow is logged when `log`.
pub fn conclude(dirs: Option<&Dirs>, mut rec: Record, decision: &Decision, log: bool) -> u8 {
    rec.decision = decision.word().to_string();
    let code = match decision.denial() {
        Some(err) => {
            crate::output::report_denial(err);
            rec.denial_code = Some(err.code.as_str().to_string());
            exit::DENIED
        }
        None => exit::OK,
    };
    rec.exit_code = Some(code as i32);
    if log || code != exit::OK {
        if let Some(dirs) = dirs {
            audit::append(&dirs.audit_dir(), &[rec]);
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::parent_operation;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_dashed_builtin_names_its_operation() {
        let op = |s| parent_operation(&argv(s));
        assert_eq!(op("git-receive-pack /srv/x.git"), "git.receive-pack");
        assert_eq!(
            op("/usr/lib/git-core/git-receive-pack ."),
            "git.receive-pack"
        );
        assert_eq!(op("git -C d update-ref x y"), "git.update-ref");
        // A program named like one that is no git command is read as git.
        assert_eq!(op("git-wrapper commit"), "git.commit");
    }
}
