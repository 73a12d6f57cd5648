//! git-ward's mark on the git processes it starts for itself.
//!
//! Its hooks must tell git-ward's own ref writes (checkpoints under
//! `refs/ward/`) from an agent's, and nothing in a command line or an
//! environment can do that: both can be copied. What cannot be copied is
//! an open file: each git-ward process makes one pipe, close-on-exec, and
//! hands its read end to the git processes it starts itself (only to
//! those: the descriptor is made inheritable in the child alone, between
//! `fork` and `exec`), naming its number in `WARD_OWN_FD`. A hook then
//! checks ([`crate::facts::starter`]) that the descriptor it inherited is
//! a pipe that the git-ward process above it holds, close-on-exec: no
//! agent's git can hold that pipe, since git-ward passes it to no other
//! child (not to the agent's git the shim runs, not to a test command).

use std::os::fd::RawFd;
use std::process::Command;
use std::sync::OnceLock;

/// The read end of this process's pipe, made on first use.
fn token() -> Option<RawFd> {
    static PIPE: OnceLock<Option<RawFd>> = OnceLock::new();
    *PIPE.get_or_init(|| {
        let mut fds: [libc::c_int; 2] = [-1; 2];
        // SAFETY: pipe2 writes two descriptors into `fds`; both stay open
        // for the life of the process, on purpose.
        let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == 0;
        made.then_some(fds[0])
    })
}

/// Marks `cmd`, a git git-ward starts for itself, as git-ward's own.
pub fn mark(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    let Some(fd) = token() else { return };
    cmd.env(crate::env::WARD_OWN_FD, fd.to_string());
    // SAFETY: between fork and exec, only fcntl(2), which is
    // async-signal-safe; it clears close-on-exec in the child alone.
    unsafe {
        cmd.pre_exec(move || {
            if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
