//! TestRepo: a temp repository, a hermetic git environment, fixed dates,
//! and helpers that run git (plain or through the shim) and git-ward.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The git under test: `WARD_TEST_GIT`, else the first `git` on PATH.
pub fn real_git() -> PathBuf {
    if let Some(p) = std::env::var_os("WARD_TEST_GIT") {
        return PathBuf::from(p);
    }
    which::which("git").expect("git on PATH")
}

/// Copies git-ward to `to` and waits until the copy runs: a child another
/// test thread forks while the copy is open for writing holds it open for
/// a moment, and running it then fails with ETXTBSY ("text file busy").
pub fn copy_ward_bin(to: &Path) {
    std::fs::copy(ward_bin(), to).expect("copy git-ward");
    for _ in 0..100 {
        match Command::new(to)
            .arg("--version")
            .env("WARD_REAL_GIT", real_git())
            .output()
        {
            Err(e) if e.raw_os_error() == Some(26) => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            _ => return,
        }
    }
}

/// Someone else clones `remote` (as `other`, beside the repository),
/// commits and pushes `main` there; the new commit's id.
pub fn upstream_moves(repo: &TestRepo, remote: &Path) -> String {
    let other = sibling(repo, "other");
    repo.git([
        "clone",
        "-q",
        remote.to_str().unwrap(),
        other.to_str().unwrap(),
    ])
    .ok();
    repo.git_in(&other, ["commit", "-q", "--allow-empty", "-m", "upstream"])
        .ok();
    repo.git_in(&other, ["push", "-q", "origin", "main"]).ok();
    let id = repo.git_in(&other, ["rev-parse", "HEAD"]).ok().stdout;
    id.trim().to_string()
}

/// The id of a process that ran and is gone (for a lock or a temporary
/// file a killed run left).
pub fn gone_pid() -> u32 {
    let mut child = Command::new("true").spawn().expect("run true");
    let pid = child.id();
    child.wait().expect("wait for true");
    pid
}

/// The git-ward binary built for these tests.
pub fn ward_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-ward"))
}

/// A finished command, with its output as text.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub output: Output,
}

impl Run {
    pub fn from(output: Output) -> Run {
        Run {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            output,
        }
    }

    /// Asserts exit 0 and returns self.
    #[track_caller]
    pub fn ok(self) -> Run {
        assert_eq!(
            self.code,
            Some(0),
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts this exit code and returns self.
    #[track_caller]
    pub fn code(self, code: i32) -> Run {
        assert_eq!(
            self.code,
            Some(code),
            "expected exit {code}\nstdout: {}\nstderr: {}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts stderr contains `text`.
    #[track_caller]
    pub fn stderr_has(self, text: &str) -> Run {
        assert!(
            self.stderr.contains(text),
            "stderr lacks {text:?}:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts stderr does not contain `text`.
    #[track_caller]
    pub fn stderr_lacks(self, text: &str) -> Run {
        assert!(
            !self.stderr.contains(text),
            "stderr has {text:?}:\n{}",
            self.stderr
        );
        self
    }

    /// Asserts stdout contains `text`.
    #[track_caller]
    pub fn stdout_has(self, text: &str) -> Run {
        assert!(
            self.stdout.contains(text),
            "stdout lacks {text:?}:\n{}",
            self.stdout
        );
        self
    }
}

/// A temporary repository with a hermetic environment.
pub struct TestRepo {
    pub tmp: tempfile::TempDir,
    /// The working tree.
    pub dir: PathBuf,
    /// The temp HOME.
    pub home: PathBuf,
    /// A directory holding `git -> git-ward`, for shim runs.
    pub shim_dir: PathBuf,
    /// Extra environment for every command.
    pub env: Vec<(String, String)>,
    tick: std::cell::Cell<u32>,
}

impl TestRepo {
    /// `git init -b main` in a fresh temp dir; no commit yet.
    pub fn empty() -> TestRepo {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("repo");
        let home = tmp.path().join("home");
        let shim_dir = tmp.path().join("shim");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&shim_dir).unwrap();
        std::os::unix::fs::symlink(ward_bin(), shim_dir.join("git")).unwrap();
        let repo = TestRepo {
            tmp,
            dir,
            home,
            shim_dir,
            env: Vec::new(),
            tick: std::cell::Cell::new(0),
        };
        repo.git(["init", "-q", "-b", "main"]).ok();
        repo
    }

    /// A repository on `main` with one commit (`README`).
    pub fn new() -> TestRepo {
        let repo = TestRepo::empty();
        repo.write("README", "hello\n");
        repo.git(["add", "README"]).ok();
        repo.git(["commit", "-q", "-m", "initial"]).ok();
        repo
    }

    /// Adds an environment variable for every later command.
    pub fn with_env(mut self, key: &str, value: &str) -> TestRepo {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// The hermetic environment applied to a command.
    /// A git at work in the repository until its stdin is closed (`git
    /// hash-object --stdin` waiting for input): its locks count as live.
    pub fn live_git(&self) -> std::process::Child {
        let mut cmd = Command::new(real_git());
        self.hermetic(&mut cmd);
        cmd.args(["hash-object", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("start a git that waits")
    }

    pub fn hermetic(&self, cmd: &mut Command) {
        let t = self.tick.get() + 1;
        self.tick.set(t);
        let date = format!("2026-01-01T00:{:02}:{:02}Z", (t / 60) % 60, t % 60);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.com")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.com")
            .env("GIT_AUTHOR_DATE", &date)
            .env("GIT_COMMITTER_DATE", &date)
            .env("TZ", "UTC")
            .env("LC_ALL", "C")
            .env(
                "WARD_SYSTEM_POLICY",
                self.tmp.path().join("no-system-policy.toml"),
            )
            .current_dir(&self.dir);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
    }

    /// Runs the real git (not the shim) as a human.
    pub fn git<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.git_env(args, &[])
    }

    /// Runs the real git with extra environment (e.g. `WARD_AGENT=1`).
    pub fn git_env<I, S>(&self, args: I, env: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(real_git());
        self.hermetic(&mut cmd);
        cmd.args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        Run::from(cmd.output().expect("run git"))
    }

    /// Runs `git` through the shim (shim dir first on PATH, real git pinned).
    pub fn shim<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.shim_env(args, &[])
    }

    /// Runs `git` through the shim with extra environment.
    pub fn shim_env<I, S>(&self, args: I, env: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.shim_command(args);
        cmd.envs(env.iter().copied()).stdin(Stdio::null());
        Run::from(cmd.output().expect("run shim"))
    }

    /// Runs `git` through the shim from `dir` (a subdirectory, say).
    pub fn shim_in<I, S>(&self, dir: &Path, args: I, env: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.shim_command(args);
        cmd.current_dir(dir)
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        Run::from(cmd.output().expect("run shim"))
    }

    /// Runs the real git (not the shim) from `dir`, as a human.
    pub fn git_in<I, S>(&self, dir: &Path, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(real_git());
        self.hermetic(&mut cmd);
        cmd.current_dir(dir).args(args).stdin(Stdio::null());
        Run::from(cmd.output().expect("run git"))
    }

    /// The shim's `Command`, for tests that need stdin or signals.
    pub fn shim_command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(self.shim_dir.join("git"));
        self.hermetic(&mut cmd);
        let path = format!(
            "{}:{}:{}",
            self.shim_dir.display(),
            real_git().parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("WARD_REAL_GIT", real_git())
            .args(args);
        cmd
    }

    /// Runs `git-ward <args>` (the tool face).
    pub fn ward<I, S>(&self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.ward_env(args, &[])
    }

    /// Runs `git-ward <args>` with extra environment.
    pub fn ward_env<I, S>(&self, args: I, env: &[(&str, &str)]) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.ward_command(args);
        cmd.envs(env.iter().copied()).stdin(Stdio::null());
        Run::from(cmd.output().expect("run git-ward"))
    }

    /// The tool's `Command`, for tests that need stdin or odd environment.
    pub fn ward_command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(ward_bin());
        self.hermetic(&mut cmd);
        let path = format!(
            "{}:{}",
            real_git().parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("WARD_REAL_GIT", real_git())
            .args(args);
        cmd
    }

    /// Writes a file in the working tree (parents created).
    pub fn write(&self, rel: &str, text: &str) -> &TestRepo {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
        self
    }

    /// Reads a file of the working tree.
    pub fn read(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join(rel)).ok()
    }

    /// Commits everything with `message` (as a human, real git).
    pub fn commit(&self, message: &str) -> &TestRepo {
        self.git(["add", "-A"]).ok();
        self.git(["commit", "-q", "--allow-empty", "-m", message])
            .ok();
        self
    }

    /// The value of a ref, or `None`.
    pub fn rev(&self, name: &str) -> Option<String> {
        let r = self.git(["rev-parse", "--verify", "-q", name]);
        (r.code == Some(0)).then(|| r.stdout.trim().to_string())
    }

    /// The current branch (`HEAD` when detached).
    pub fn branch(&self) -> String {
        self.git(["rev-parse", "--abbrev-ref", "HEAD"])
            .stdout
            .trim()
            .to_string()
    }

    /// Writes a local policy layer (`<common-dir>/ward/policy.toml`).
    pub fn local_policy(&self, text: &str) -> &TestRepo {
        let dir = self.dir.join(".git/ward");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("policy.toml"), text).unwrap();
        self
    }

    /// The path of a file under the temp root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
}

/// Runs `cmd` with `input` on stdin, its output captured.
pub fn fed(mut cmd: Command, input: &str) -> Run {
    use std::io::Write;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("run the command");
    // A command that ends (or is refused) before it reads all of its input
    // closes the pipe: what it did is in its exit status and output.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "write stdin: {e}");
    }
    Run::from(child.wait_with_output().unwrap())
}

impl TestRepo {
    /// An empty bare repository at `at` (a remote to push to); returns `at`.
    pub fn bare_at(&self, at: PathBuf) -> PathBuf {
        self.git(["init", "-q", "--bare", at.to_str().unwrap()])
            .ok();
        at
    }

    /// A bare clone of this repository at `at`; returns `at`.
    pub fn bare_clone_at(&self, at: PathBuf) -> PathBuf {
        self.git(["clone", "-q", "--bare", ".", at.to_str().unwrap()])
            .ok();
        at
    }
}

/// A repository with a bare remote `origin` that has `main`.
pub fn with_remote() -> TestRepo {
    let repo = TestRepo::new();
    let remote = repo.bare_at(repo.path("remote.git"));
    repo.git(["remote", "add", "origin", remote.to_str().unwrap()])
        .ok();
    repo.git(["push", "-q", "origin", "main"]).ok();
    repo.git(["fetch", "-q", "origin"]).ok();
    repo
}

/// A ref of the bare repository `remote.git` in the test repository, `None` where it has none.
pub fn remote_rev(repo: &TestRepo, name: &str) -> Option<String> {
    let remote = repo.path("remote.git");
    let r = repo.git([
        "--git-dir",
        remote.to_str().unwrap(),
        "rev-parse",
        "--verify",
        "-q",
        name,
    ]);
    (r.code == Some(0)).then(|| r.stdout.trim().to_string())
}

/// A second directory next to the repo's (e.g. a bare remote).
pub fn sibling(repo: &TestRepo, name: &str) -> PathBuf {
    repo.tmp.path().join(name)
}

/// True if `path` exists.
pub fn exists(path: &Path) -> bool {
    path.exists()
}

impl TestRepo {
    /// A digest of everything a rollback or undo could change: every file
    /// on disk (ignored ones too) with its mode, the index's entries,
    /// HEAD, the refs outside `refs/ward/`, and the stash list.
    pub fn state(&self) -> String {
        let index = self.tmp.path().join("state-index");
        let _ = std::fs::remove_file(&index);
        let idx = index.to_str().unwrap();
        self.git_env(["add", "-A", "-f"], &[("GIT_INDEX_FILE", idx)])
            .ok();
        let tree = self
            .git_env(["write-tree"], &[("GIT_INDEX_FILE", idx)])
            .ok()
            .stdout;
        let index_bytes = self.git(["ls-files", "-s", "-z"]).stdout;
        let refs: String = self
            .git(["for-each-ref", "--format=%(refname) %(objectname)"])
            .stdout
            .lines()
            .filter(|l| !l.starts_with("refs/ward/"))
            .map(|l| format!("{l}\n"))
            .collect();
        let head = self.git(["symbolic-ref", "-q", "HEAD"]).stdout;
        let head_id = self.rev("HEAD").unwrap_or_default();
        let stash = self.git(["stash", "list", "--format=%H"]).stdout;
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        index_bytes.hash(&mut h);
        format!(
            "tree {}index {:x}\nhead {}{head_id}\n{refs}stash {stash}",
            tree,
            h.finish(),
            head
        )
    }

    /// Runs `git-ward <args> --json` style commands and parses stdout.
    pub fn ward_json<I, S>(&self, args: I, env: &[(&str, &str)]) -> (Run, serde_json::Value)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let run = self.ward_env(args, env);
        let value = serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}):\nstdout: {}\nstderr: {}",
                run.stdout, run.stderr
            )
        });
        (run, value)
    }

    /// The audit lines `git ward audit --json <filters>` returns, one JSON
    /// object per line.
    pub fn audit_records(&self, filters: &[&str]) -> Vec<serde_json::Value> {
        let mut args = vec!["audit", "--json"];
        args.extend_from_slice(filters);
        let run = self.ward(args);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        run.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
            .collect()
    }

    /// Deletes the loose object `rev` names (a broken clone, say).
    pub fn lose_object(&self, rev: &str) {
        let id = self.rev(rev).expect("the object exists");
        let objects = self.dir.join(".git/objects");
        std::fs::remove_file(objects.join(&id[..2]).join(&id[2..])).expect("a loose object");
    }

    /// Runs `git-ward <args>` with `input` on stdin.
    pub fn ward_stdin<I, S>(&self, args: I, input: &str) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let real = real_git();
        let env = [("WARD_REAL_GIT", real.as_os_str())];
        self.with_stdin(Command::new(ward_bin()), &env, args, input)
    }

    /// Runs `git-ward <args>` with a terminal on stdin: a pseudo-terminal
    /// at whose other end `input` is typed, for questions asked only there.
    pub fn ward_at_terminal<I, S>(&self, args: I, input: &str) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        use std::io::Write;
        use std::os::fd::{AsRawFd, FromRawFd};
        use std::os::unix::fs::OpenOptionsExt;
        // SAFETY: posix_openpt returns a fresh descriptor (or -1), owned once here.
        let fd = unsafe { libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY) };
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        // SAFETY: `fd` is open and owned by nothing else.
        let mut terminal = unsafe { std::fs::File::from_raw_fd(fd) };
        let mut name = [0 as libc::c_char; 128];
        // SAFETY: `terminal` is an open pseudo-terminal master; `name` is
        // as long as ptsname_r is told, and it writes a NUL-terminated path.
        let name = unsafe {
            assert_eq!(libc::grantpt(terminal.as_raw_fd()), 0);
            assert_eq!(libc::unlockpt(terminal.as_raw_fd()), 0);
            assert_eq!(
                libc::ptsname_r(terminal.as_raw_fd(), name.as_mut_ptr(), name.len()),
                0
            );
            std::ffi::CStr::from_ptr(name.as_ptr())
        };
        let stdin = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOCTTY)
            .open(name.to_str().unwrap())
            .expect("open the pseudo-terminal");
        let mut cmd = self.ward_command(args);
        cmd.stdin(Stdio::from(stdin))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = cmd.spawn().expect("run git-ward");
        terminal.write_all(input.as_bytes()).unwrap();
        Run::from(child.wait_with_output().unwrap())
    }

    /// Runs the real git as a human with `input` on stdin.
    pub fn git_stdin<I, S>(&self, args: I, input: &str) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.with_stdin(Command::new(real_git()), &[], args, input)
    }

    /// Runs `git` through the shim with extra environment and `input` on stdin.
    pub fn shim_stdin<I, S>(&self, args: I, env: &[(&str, &str)], input: &str) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = self.shim_command(args);
        cmd.envs(env.iter().copied());
        fed(cmd, input)
    }

    /// Runs `cmd` hermetically, with `env` on top, `input` on stdin.
    fn with_stdin<I, S>(
        &self,
        mut cmd: Command,
        env: &[(&str, &OsStr)],
        args: I,
        input: &str,
    ) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.hermetic(&mut cmd);
        cmd.envs(env.iter().copied()).args(args);
        fed(cmd, input)
    }

    /// A file as checkpoint `id` recorded it.
    pub fn checkpoint_file(&self, id: &str, path: &str) -> String {
        let spec = format!("refs/ward/checkpoints/{id}:{path}");
        self.git(["show", spec.as_str()]).ok().stdout
    }

    /// How many checkpoints the repository holds.
    pub fn checkpoint_count(&self) -> usize {
        self.git(["for-each-ref", "refs/ward/checkpoints/"])
            .ok()
            .stdout
            .lines()
            .count()
    }

    /// A submodule `sub` committed at its second commit, a checkpoint of
    /// that, then the submodule checked out at its first: a path no
    /// rollback restores (a submodule's commit). The checkpoint's id.
    pub fn submodule_moved_since_checkpoint(&self) -> String {
        let sub = self.dir.join("sub");
        self.git(["init", "-q", sub.to_str().unwrap()]).ok();
        for m in ["A", "B"] {
            self.git_in(&sub, ["commit", "-q", "--allow-empty", "-m", m])
                .ok();
        }
        self.git(["add", "sub"]).ok();
        self.git(["commit", "-q", "-m", "sub"]).ok();
        let id = self.checkpoint("with sub at B");
        self.git_in(&sub, ["checkout", "-q", "HEAD~1"]).ok();
        id
    }

    /// Takes a checkpoint with the tool and returns its id.
    pub fn checkpoint(&self, message: &str) -> String {
        let (_, v) = self.ward_json(["checkpoint", "-m", message, "--json"], &[]);
        v["checkpoint"]["id"]
            .as_str()
            .expect("checkpoint id")
            .to_string()
    }
}
