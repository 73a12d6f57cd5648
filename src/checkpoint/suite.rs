//! A turn's test command, run so that nothing of it outlives the turn.
//!
//! The command runs with `sh -c` in a process group of its own, which
//! `turns.test_timeout` kills whole. The group is killed too when the shell
//! ends (a server it started in the background would keep running, and
//! keep the turn's output pipe open, so a caller reading it would wait for
//! ever), and when git-ward is told to stop (SIGINT, SIGTERM, SIGHUP): the
//! terminal's Ctrl-C reaches git-ward's group, not the tests', so without
//! this they would go on writing to the working tree. The shell is reaped
//! only after its group is killed: until then the group's id cannot name
//! another process's group.

use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use crate::error::{Error, IoContext, Result};

/// The signals that stop the tests, then git-ward.
const STOPPING: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The tests' process group while it may be killed (0 when none).
static GROUP: AtomicI32 = AtomicI32::new(0);
/// The signal that told git-ward to stop (0 when none came).
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);

extern "C" fn stop(sig: libc::c_int) {
    STOPPED_BY.store(sig, Ordering::SeqCst);
    kill_group(GROUP.load(Ordering::SeqCst));
}

/// Runs `cmd` with a time limit; whether it passed. Its output passes
/// through (to stderr with `json`, so stdout stays one JSON object). When
/// a signal stopped git-ward meanwhile, git-ward dies of it here, the tests
/// killed first.
pub fn run(cmd: &str, limit: Duration, json: bool) -> Result<bool> {
    // Caught before the tests start: a signal in between would leave them running.
    let previous = catch_stopping();
    let mut child = match spawn(cmd, json) {
        Ok(child) => child,
        Err(err) => {
            restore(&previous);
            return Err(err);
        }
    };
    let group = child.id() as libc::pid_t;
    GROUP.store(group, Ordering::SeqCst);
    let start = Instant::now();
    let timed_out = loop {
        if ended(group) || STOPPED_BY.load(Ordering::SeqCst) != 0 {
            break false;
        }
        if start.elapsed() > limit {
            break true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_group(group);
    GROUP.store(0, Ordering::SeqCst);
    let status = reap(&mut child);
    restore(&previous);
    let sig = STOPPED_BY.load(Ordering::SeqCst);
    if sig != 0 {
        crate::output::errln!("ward: interrupted: the tests were stopped and no turn was recorded");
        die_of(sig);
    }
    if timed_out {
        crate::output::errln!(
            "ward: the tests ran longer than turns.test_timeout ({}s): counted as failing",
            limit.as_secs()
        );
        return Ok(false);
    }
    Ok(status?.success())
}

/// Starts `sh -c cmd` in a process group of its own, stdin closed.
fn spawn(cmd: &str, json: bool) -> Result<Child> {
    let mut command = Command::new("sh");
    command.arg("-c").arg(cmd).stdin(Stdio::null());
    if json {
        // SAFETY: dup2 in the child before exec; async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                if libc::dup2(2, 1) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    command.process_group(0);
    command
        .spawn()
        .map_err(|e| Error::internal(format!("cannot run the tests: {e}")))
}

/// Has the shell `pid` ended? It is left a zombie, not reaped (`WNOWAIT`).
fn ended(pid: libc::pid_t) -> bool {
    // SAFETY: waitid(2) on our own child, into a zeroed siginfo_t.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) == 0 {
            return info.si_pid() != 0;
        }
        // Interrupted by a signal: asked again. Anything else: the wait that
        // reaps it says what.
        std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
    }
}

/// Kills process group `group`, if one is named (async-signal-safe).
fn kill_group(group: libc::pid_t) {
    if group > 0 {
        // SAFETY: kill(2) on the process group the tests run in.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

/// Reaps the shell; its status.
fn reap(child: &mut Child) -> Result<std::process::ExitStatus> {
    loop {
        match child.wait() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other.doing("wait for the tests"),
        }
    }
}

/// Installs [`stop`] for each of [`STOPPING`] that is not ignored (a
/// `nohup` keeps SIGHUP ignored); the dispositions it replaced.
fn catch_stopping() -> Vec<(libc::c_int, libc::sighandler_t)> {
    STOPPED_BY.store(0, Ordering::SeqCst);
    let mut previous = Vec::new();
    for sig in STOPPING {
        // SAFETY: installing a handler that only stores to atomics and calls kill(2).
        let old = unsafe { libc::signal(sig, stop as *const () as libc::sighandler_t) };
        if old == libc::SIG_IGN {
            // SAFETY: putting back the ignored disposition just replaced.
            unsafe {
                libc::signal(sig, libc::SIG_IGN);
            }
        } else if old != libc::SIG_ERR {
            previous.push((sig, old));
        }
    }
    previous
}

/// Puts back the dispositions [`catch_stopping`] replaced.
fn restore(previous: &[(libc::c_int, libc::sighandler_t)]) {
    for &(sig, old) in previous {
        // SAFETY: restoring a disposition that was in place before.
        unsafe {
            libc::signal(sig, old);
        }
    }
}

/// Dies of `sig`, so the caller sees git-ward stopped as it asked.
fn die_of(sig: libc::c_int) -> ! {
    // SAFETY: the default disposition, then the signal raised on ourselves.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
    std::process::exit(128 + sig);
}
