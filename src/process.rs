//! What Rust's own start-up did that git-ward relies on, without the rest.
//!
//! The binary's `main` is C's (`#![no_main]` in `main.rs`): Rust's start-up
//! also places a guard for the main thread's stack, and glibc finds that
//! stack by reading and parsing `/proc/self/maps`: a third of a hook run's
//! instructions and five system calls, on every git call and up to eight
//! times per commit. What is lost: a stack overflow ends in a plain
//! SIGSEGV instead of a message, and a panic names the thread `<unnamed>`.

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
