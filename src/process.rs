//! What Rust's own start-up did that git-ward relies on, without the rest.
//!
//! The binary's `main` is C's (`#![no_main]` in `main.rs`): Rust's start-up
//! also places a guard for the main thread's stack, and glibc finds that
//! stack by reading and parsing `/proc/self/maps`: a third of a hook run's
//! instructions and five system calls, on every git call and up to eight
//! times per commit. What is lost: a stack overflow ends in a plain
//! SIGSEGV instead of a message, and a panic names the thread `<unnamed>`.
//! The command line is kept from C's `main` ([`keep_args`], [`args`]):
//! only glibc hands it to Rust's standard library before `main`; with
//! musl, `std::env::args` is empty without Rust's start-up.

use std::ffi::{c_char, c_int, CStr, OsString};
use std::os::unix::ffi::OsStringExt;
use std::sync::OnceLock;

static ARGS: OnceLock<Vec<OsString>> = OnceLock::new();

/// Keeps the command line C's `main` was given.
///
/// # Safety
///
/// `argv` must hold `argc` pointers to NUL-terminated strings, as C's
/// `main` receives them.
pub unsafe fn keep_args(argc: c_int, argv: *const *const c_char) {
    let _ = ARGS.set(collect_args(argc, argv));
}

/// The strings of a C `argv`, as bytes (not UTF-8 necessarily), up to
/// `argc` or the first null pointer.
///
/// # Safety
///
/// As for [`keep_args`].
unsafe fn collect_args(argc: c_int, argv: *const *const c_char) -> Vec<OsString> {
    let n = usize::try_from(argc).unwrap_or(0);
    if argv.is_null() {
        return Vec::new();
    }
    (0..n)
        .map(|i| *argv.add(i))
        .take_while(|arg| !arg.is_null())
        .map(|arg| OsString::from_vec(CStr::from_ptr(arg).to_bytes().to_vec()))
        .collect()
}

/// The command line: as C's `main` got it, else (a test, or a binary with
/// Rust's own `main`) as the standard library has it.
pub fn args() -> Vec<OsString> {
    ARGS.get()
        .cloned()
        .unwrap_or_else(|| std::env::args_os().collect())
}

/// The tool's arguments after the program's name, as text (for an audit line).
pub fn tool_argv() -> Vec<String> {
    args()
        .into_iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// Run first: standard descriptors that are closed are opened on
/// `/dev/null` (else the first file git-ward opens would take fd 1 or 2, and
/// a report meant for the terminal would land in, say, the audit log), and
/// SIGPIPE is ignored, so a reader that goes away is a write error (see
/// [`crate::output`]), never death half way through a restore. Children
/// get SIGPIPE back at its default: `std::process::Command` resets it.
pub fn start() {
    // SAFETY: poll(2), fcntl(2), open(2) and signal(2) on plain integers and
    // a stack array; nothing else runs yet.
    unsafe {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        let polled = loop {
            let n = libc::poll(fds.as_mut_ptr(), 3, 0);
            if n != -1 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                break n != -1;
            }
        };
        for pfd in fds {
            let closed = if polled {
                pfd.revents & libc::POLLNVAL != 0
            } else {
                libc::fcntl(pfd.fd, libc::F_GETFD) == -1
            };
            if closed && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) != pfd.fd {
                libc::abort();
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn a_c_argv_is_kept_byte_for_byte() {
        let words = [&b"git"[..], b"commit", b"-m", b"\xfe\xff", b""];
        let owned: Vec<CString> = words.iter().map(|w| CString::new(*w).unwrap()).collect();
        let mut argv: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        argv.push(std::ptr::null());
        // SAFETY: `argv` holds NUL-terminated strings that outlive the call.
        let got = unsafe { collect_args(5, argv.as_ptr()) };
        let got: Vec<&[u8]> = got.iter().map(|a| a.as_bytes()).collect();
        assert_eq!(got, words);
        // A count past the terminating null stops at it; none at all is empty.
        // SAFETY: as above; the null pointer ends the walk.
        assert_eq!(unsafe { collect_args(9, argv.as_ptr()) }.len(), 5);
        // SAFETY: a null `argv` is read as no arguments.
        assert!(unsafe { collect_args(3, std::ptr::null()) }.is_empty());
        // SAFETY: a negative count reads nothing.
        assert!(unsafe { collect_args(-1, argv.as_ptr()) }.is_empty());
    }
}
