//! A git process to converse with: requests on its stdin, answers read
//! from its stdout as they come (`fast-import`'s `ls` and `get-mark`).

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

use super::Git;
use crate::error::{Error, Result};

/// A running git child with piped stdin and stdout, killed when the
/// doorway's timeout passes before [`Dialog::finish`].
pub struct Dialog {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    /// Dropped or sent to when the child is done: stops the watchdog.
    done: Option<mpsc::Sender<()>>,
    what: String,
}

/// How a dialog ended: the exit status, the rest of stdout, stderr.
pub struct Ending {
    pub success: bool,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Dialog {
    /// Starts `git <args>` with extra environment.
    pub(super) fn start(git: &Git, args: &[&str], envs: &[(&str, &OsStr)]) -> Result<Dialog> {
        let mut cmd = git.command(args);
        for (key, value) in envs {
            cmd.env(key, value);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let what = format!("git {}", args.join(" "));
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::internal(format!("cannot run {}: {e}", git.path().display())))?;
        let (stdin, stdout, mut err) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err(Error::internal(format!("{what}: no pipes"))),
            };
        // Drained aside, so a chatty child never blocks on a full pipe.
        let stderr = std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.read_to_end(&mut buf);
            buf
        });
        let (done, wait) = mpsc::channel::<()>();
        let pid = child.id();
        let timeout = git.timeout;
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(timeout) {
                // SAFETY: kill(2) on a pid we spawned; `finish` has not reaped it.
                unsafe {
                    libc::kill(pid as libc::pid_t, libc::SIGKILL);
                }
            }
        });
        Ok(Dialog {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            stderr: Some(stderr),
            done: Some(done),
            what,
        })
    }

    /// Writes `data` to the child's stdin and flushes it.
    pub fn send(&mut self, data: &[u8]) -> Result<()> {
        let written = match self.stdin.as_mut() {
            Some(pipe) => pipe.write_all(data).and_then(|()| pipe.flush()),
            None => return Err(self.broken("stdin closed")),
        };
        written.map_err(|e| self.broken(&e.to_string()))
    }

    /// Reads one line of the child's answer, without its newline.
    pub fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(n) if n > 0 => Ok(line.trim_end_matches('\n').to_string()),
            Ok(_) => Err(self.broken("no answer")),
            Err(e) => Err(self.broken(&e.to_string())),
        }
    }

    /// Writes `data` as the rest of the child's input (from a thread of
    /// its own, so a child that answers as it reads never blocks on a full
    /// pipe), then finishes.
    pub fn finish_with(mut self, data: Vec<u8>) -> Result<Ending> {
        if let Some(mut pipe) = self.stdin.take() {
            std::thread::spawn(move || {
                let _ = pipe.write_all(&data);
            });
        }
        self.finish()
    }

    /// Closes stdin, reads what is left, waits for the child.
    pub fn finish(mut self) -> Result<Ending> {
        drop(self.stdin.take());
        let mut stdout = Vec::new();
        let _ = self.stdout.read_to_end(&mut stdout);
        let status = self.child.wait();
        drop(self.done.take());
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let status =
            status.map_err(|e| Error::internal(format!("{} failed to run: {e}", self.what)))?;
        Ok(Ending {
            success: status.success(),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).trim().to_string(),
        })
    }

    fn broken(&self, why: &str) -> Error {
        Error::internal(format!("{} stopped answering: {why}", self.what))
    }
}

impl Drop for Dialog {
    fn drop(&mut self) {
        if self.done.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
