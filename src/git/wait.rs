//! A git child's output and exit, waited for at most a limit, with the
//! child handle kept until it is reaped: a timeout kills the process we
//! started, never a pid the kernel has since given to another.
//!
//! On Linux one `poll` watches stdout, stderr and a pidfd of the child (no
//! thread); elsewhere a thread reads stderr while this one reads stdout and
//! `try_wait` is asked between reads.

use std::io::{self, Read};
use std::process::{Child, ExitStatus, Output};
use std::time::{Duration, Instant};

/// Reads `child`'s stdout and stderr to their end and reaps it, all within
/// `limit`. `Ok(None)`: the limit passed; the child was killed and reaped
/// (a process it started that still holds a pipe is left to end alone).
pub fn output_within(mut child: Child, limit: Duration) -> io::Result<Option<Output>> {
    // A limit past what an `Instant` can hold (`Duration::MAX`: no
    // limit) is ten years away.
    let deadline = Instant::now()
        .checked_add(limit)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(10 * 365 * 24 * 3600));
    let result = collect(&mut child, deadline);
    if !matches!(result, Ok(Some(_))) {
        let _ = child.kill();
        let _ = child.wait();
    }
    result
}

#[cfg(target_os = "linux")]
fn collect(child: &mut Child, deadline: Instant) -> io::Result<Option<Output>> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::process::{pidfd_open, Pid, PidfdFlags};
    use std::os::fd::AsFd;

    let Ok(pidfd) = pidfd_open(Pid::from_child(child), PidfdFlags::empty()) else {
        // A kernel before 5.3: the portable way.
        return portable::collect(child, deadline);
    };
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut status: Option<ExitStatus> = None;
    let mut buf = vec![0u8; 64 * 1024];
    while out_pipe.is_some() || err_pipe.is_some() || status.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        let timeout = Timespec {
            tv_sec: left.as_secs() as _,
            tv_nsec: left.subsec_nanos() as _,
        };
        let watch = PollFlags::IN | PollFlags::HUP;
        let mut fds = Vec::with_capacity(3);
        if let Some(p) = &out_pipe {
            fds.push(PollFd::new(p, watch));
        }
        if let Some(p) = &err_pipe {
            fds.push(PollFd::new(p, watch));
        }
        if status.is_none() {
            fds.push(PollFd::from_borrowed_fd(pidfd.as_fd(), PollFlags::IN));
        }
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
        drop(fds);
        let mut i = 0;
        if out_pipe.is_some() {
            if ready[i] {
                read_some(&mut out_pipe, &mut stdout, &mut buf)?;
            }
            i += 1;
        }
        if err_pipe.is_some() {
            if ready[i] {
                read_some(&mut err_pipe, &mut stderr, &mut buf)?;
            }
            i += 1;
        }
        if status.is_none() && ready[i] {
            status = Some(child.wait()?);
        }
    }
    Ok(status.map(|status| Output {
        status,
        stdout,
        stderr,
    }))
}

/// One read of a ready pipe into `sink`; at its end the pipe is closed.
#[cfg(target_os = "linux")]
fn read_some<R: Read>(pipe: &mut Option<R>, sink: &mut Vec<u8>, buf: &mut [u8]) -> io::Result<()> {
    let Some(reader) = pipe.as_mut() else {
        return Ok(());
    };
    match reader.read(buf) {
        Ok(0) => *pipe = None,
        Ok(n) => sink.extend_from_slice(&buf[..n]),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
        Err(e) => return Err(e),
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn collect(child: &mut Child, deadline: Instant) -> io::Result<Option<Output>> {
    portable::collect(child, deadline)
}

mod portable {
    use super::*;
    use std::sync::mpsc;

    /// Both pipes read by threads; `try_wait` asked with growing pauses.
    pub fn collect(child: &mut Child, deadline: Instant) -> io::Result<Option<Output>> {
        let (tx, rx) = mpsc::channel();
        for (which, pipe) in [
            (
                0,
                child
                    .stdout
                    .take()
                    .map(|p| Box::new(p) as Box<dyn Read + Send>),
            ),
            (
                1,
                child
                    .stderr
                    .take()
                    .map(|p| Box::new(p) as Box<dyn Read + Send>),
            ),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut bytes);
                }
                let _ = tx.send((which, bytes));
            });
        }
        let mut pause = Duration::from_micros(50);
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            std::thread::sleep(pause.min(left));
            pause = (pause * 2).min(Duration::from_millis(10));
        };
        let (mut stdout, mut stderr) = (None, None);
        while stdout.is_none() || stderr.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((0, bytes)) => stdout = Some(bytes),
                Ok((_, bytes)) => stderr = Some(bytes),
                Err(_) => return Ok(None),
            }
        }
        Ok(Some(Output {
            status,
            stdout: stdout.unwrap_or_default(),
            stderr: stderr.unwrap_or_default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn sh(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn output_and_status_come_back_whole() {
        // More than a pipe holds on each side, so neither can wait for the other.
        let child = sh("head -c 300000 /dev/zero; head -c 200000 /dev/zero >&2; exit 3");
        let out = output_within(child, Duration::from_secs(20))
            .unwrap()
            .unwrap();
        assert_eq!(out.stdout.len(), 300_000);
        assert_eq!(out.stderr.len(), 200_000);
        assert_eq!(out.status.code(), Some(3));
        let both = portable::collect(
            &mut sh("printf out; printf err >&2"),
            Instant::now() + Duration::from_secs(20),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (&both.stdout[..], &both.stderr[..]),
            (&b"out"[..], &b"err"[..])
        );
    }

    #[test]
    fn a_limit_past_the_clock_is_no_limit() {
        let out = output_within(sh("printf ok"), Duration::MAX)
            .unwrap()
            .unwrap();
        assert_eq!(out.stdout, b"ok");
    }

    #[test]
    fn a_child_past_the_limit_is_killed_and_reaped() {
        let child = sh("exec sleep 30");
        let pid = child.id();
        let started = Instant::now();
        let out = output_within(child, Duration::from_millis(200)).unwrap();
        assert!(out.is_none());
        assert!(started.elapsed() < Duration::from_secs(10));
        // Reaped: no process of that pid is ours any more (a zombie would still be).
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(
            !stat.contains(&format!("({})", "sleep")),
            "still there: {stat}"
        );
    }
}
