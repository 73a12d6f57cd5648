//! The one doorway to the real git.
//!
//! Every git process git-ward starts goes through [`Git`]: it owns the
//! resolved path of the real git (never a PATH lookup once resolved, so the
//! shim cannot call itself), the working directory, the environment, the
//! locale for output we parse, and a timeout (`timeouts.git_seconds`).

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::env;
use crate::error::{exit, Error, Result};

mod dialog;
pub mod own;
mod wait;
pub use dialog::{Dialog, Ending};

/// Variables that point git at one particular repository or index. A child
/// we start for our own purposes must not inherit them from a hook's
/// environment, or it would read the wrong index (git passes relative paths).
const REPO_POINTERS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
];

/// Variables that carry config to git for one command. A command's own
/// config reaches only the real git that runs the command: git-ward's own
/// calls (a checkpoint's `status` and `hash-object`, a restore's
/// `checkout-index`) never see an agent's `core.excludesFile`, clean
/// filter or `core.attributesFile`, or the files it names as global and
/// system config, so what they record is what is on disk. (`GIT_CONFIG_KEY_n`
/// and `GIT_CONFIG_VALUE_n` are read only up to `GIT_CONFIG_COUNT`.)
const CONFIG_FROM_ENV: &[&str] = &[
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
];

/// Settings git-ward's own calls run with, whatever the config files say:
/// no attributes file outside the repository, so that no global attribute
/// can put a filter or an end-of-line conversion between the bytes on
/// disk and the bytes a checkpoint records or a restore writes.
const OWN_SETTINGS: &[(&str, &str)] = &[("core.attributesFile", "/dev/null")];

/// How to run the real git.
#[derive(Clone, Debug)]
pub struct Git {
    path: PathBuf,
    cwd: Option<PathBuf>,
    envs: Vec<(OsString, OsString)>,
    removes: Vec<OsString>,
    timeout: Duration,
}

impl Git {
    /// A doorway to the git at `path`, with the default timeout.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Git {
            path: path.into(),
            cwd: None,
            envs: Vec::new(),
            removes: Vec::new(),
            timeout: Duration::from_secs(10),
        }
    }

    /// The real git: `WARD_REAL_GIT`, else the first `git` on PATH that is not us.
    pub fn locate() -> Result<Self> {
        real_git_path().map(Git::new)
    }

    /// The path of the git this doorway runs.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs in `dir`.
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets the timeout for calls that wait (`output`, `run`).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Adds a variable to every child's environment.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// Sets a variable for every child, or removes it where `value` is `None`.
    pub fn env_or_unset(mut self, key: &str, value: Option<&OsStr>) -> Self {
        match value {
            Some(value) => self.envs.push((key.into(), value.to_owned())),
            None => self.removes.push(key.into()),
        }
        self
    }

    /// A `Command` for `git <args>` in the command's own context: this
    /// process's environment as it is (config from it too) and its
    /// directory, for asking git what it will do for the command that runs
    /// next. Only `LC_ALL=C`, for the answer is parsed.
    pub fn as_the_command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(&self.path);
        cmd.args(args)
            .env("LC_ALL", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        cmd
    }

    /// Clears the variables that pin a repository (`GIT_DIR`, `GIT_INDEX_FILE`, ...),
    /// for calls that locate the repository from the working directory.
    pub fn detached_from_env(mut self) -> Self {
        self.removes
            .extend(REPO_POINTERS.iter().map(OsString::from));
        self
    }

    /// A `Command` for `git <args>`, with our directory and environment.
    /// `LC_ALL=C` because callers parse the output; no prompts, since a
    /// hidden child cannot answer them.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut cmd = Command::new(&self.path);
        cmd.args(args);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        for key in &self.removes {
            cmd.env_remove(key);
        }
        for key in CONFIG_FROM_ENV {
            cmd.env_remove(key);
        }
        cmd.env("GIT_CONFIG_COUNT", OWN_SETTINGS.len().to_string());
        for (n, (key, value)) in OWN_SETTINGS.iter().enumerate() {
            cmd.env(format!("GIT_CONFIG_KEY_{n}"), key)
                .env(format!("GIT_CONFIG_VALUE_{n}"), value);
        }
        cmd.env("LC_ALL", "C").env("GIT_TERMINAL_PROMPT", "0");
        for (key, value) in &self.envs {
            cmd.env(key, value);
        }
        own::mark(&mut cmd);
        cmd
    }

    /// Runs `git <args>` with `stdin`, waits at most the timeout, returns the raw output.
    pub fn output_with<I, S>(
        &self,
        args: I,
        envs: &[(&str, &OsStr)],
        stdin: Option<&[u8]>,
    ) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let mut cmd = self.command(&args);
        for (key, value) in envs {
            cmd.env(key, value);
        }
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| self.spawn_error(&e))?;
        if let (Some(data), Some(mut pipe)) = (stdin, child.stdin.take()) {
            let data = data.to_vec();
            // A writer thread: a large input must not deadlock against a full stdout pipe.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&data);
            });
        }
        match wait::output_within(child, self.timeout) {
            Ok(Some(out)) => Ok(out),
            Ok(None) => Err(Error::internal(format!(
                "git {} timed out after {}s",
                display_args(&args),
                self.timeout.as_secs()
            ))
            .with_hint("raise `timeouts.git_seconds` in the policy if this repository is slow")
            .of_kind(crate::error::Kind::TimedOut)),
            Err(e) => Err(Error::internal(format!("git failed to run: {e}"))),
        }
    }

    /// Why git could not be started: the directory it was to run in, when
    /// that is not one (a `--work-tree` or `GIT_WORK_TREE` that does not
    /// exist), else git itself.
    fn spawn_error(&self, e: &std::io::Error) -> Error {
        match self.cwd.as_ref().filter(|dir| !dir.is_dir()) {
            Some(dir) => Error::invalid(
                format!("the working tree {} is not a directory", dir.display()),
                "check --work-tree, GIT_WORK_TREE and core.worktree",
            ),
            None => Error::internal(format!("cannot run {}: {e}", self.path.display())),
        }
    }

    /// Runs `git <args>`, waits at most the timeout, returns the raw output.
    pub fn output<I, S>(&self, args: I) -> Result<Output>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.output_with(args, &[], None)
    }

    /// Runs `git <args>`; on success returns stdout without the trailing newline,
    /// on failure an error carrying git's stderr.
    pub fn run<I, S>(&self, args: I) -> Result<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = self.output(&args)?;
        checked(&args, out)
    }

    /// Runs `git <args>` that prints one path (`rev-parse --git-path`): the
    /// path as git wrote it, bytes and all (it need not be UTF-8), without
    /// the trailing newline; on failure an error carrying git's stderr.
    pub fn run_path<I, S>(&self, args: I) -> Result<PathBuf>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = self.output(&args)?;
        if !out.status.success() {
            return checked(&args, out).map(PathBuf::from);
        }
        let mut bytes = out.stdout;
        while bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        Ok(PathBuf::from(OsString::from_vec(bytes)))
    }

    /// Starts `git <args>` for a conversation: requests written to its
    /// stdin, answers read from its stdout while it runs.
    pub fn dialog(&self, args: &[&str], envs: &[(&str, &OsStr)]) -> Result<Dialog> {
        Dialog::start(self, args, envs)
    }

    /// Like [`Git::run`] with extra environment and stdin.
    pub fn run_with<I, S>(
        &self,
        args: I,
        envs: &[(&str, &OsStr)],
        stdin: Option<&[u8]>,
    ) -> Result<String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let args: Vec<OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let out = self.output_with(&args, envs, stdin)?;
        checked(&args, out)
    }
}

/// Turns a finished git call into its stdout, or an error with its stderr.
fn checked(args: &[OsString], out: Output) -> Result<String> {
    if out.status.success() {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        while text.ends_with('\n') {
            text.pop();
        }
        Ok(text)
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let err = Error::internal(format!(
            "git {} failed: {}",
            display_args(args),
            stderr.trim()
        ));
        Err(match damage(&stderr) {
            true => err.with_hint(
                "git itself cannot read this repository: `git status` and `git fsck` show what is damaged; repair it (or work in a fresh clone), then retry",
            ),
            false => err,
        })
    }
}

/// Does git's complaint say the repository is damaged (a HEAD, index, ref
/// or object it cannot read), rather than that one command went wrong?
fn damage(stderr: &str) -> bool {
    const SIGNS: &[&str] = &[
        "index file corrupt",
        "index file smaller than expected",
        "bad index file",
        "bad object",
        "corrupt",
        "unable to read",
        "invalid HEAD",
        "bad default revision",
        "not a git repository",
        "broken link",
        "appears to be broken",
        "missing object",
        "unknown index entry format",
    ];
    let lower = stderr.to_ascii_lowercase();
    SIGNS
        .iter()
        .any(|s| lower.contains(&s.to_ascii_lowercase()))
}

fn display_args(args: &[OsString]) -> String {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Is `dir` the exec path the real git was built with (`git --exec-path`
/// with no `GIT_EXEC_PATH` to override it)? No when git cannot say.
pub fn is_own_exec_path(dir: &OsStr) -> bool {
    let own = Git::locate().ok().and_then(|mut git| {
        git.removes.push("GIT_EXEC_PATH".into());
        git.run(["--exec-path"]).ok()
    });
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    own.is_some_and(|own| {
        canonical(Path::new(&own)).is_some_and(|own| canonical(Path::new(dir)) == Some(own))
    })
}

/// The real git's path: `WARD_REAL_GIT` if set (for a person, never an
/// agent), else the first `git` on PATH that is not this executable nor a
/// shim already passed through in this process (the `WARD_SHIM_SEEN`
/// marker, keyed by PID, which `exec` keeps).
pub fn real_git_path() -> Result<PathBuf> {
    if let Some(path) = env::knob(env::WARD_REAL_GIT) {
        return Ok(PathBuf::from(path));
    }
    let me = std::env::current_exe().ok().and_then(|p| identity(&p));
    let seen = seen_shims();
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join("git");
        let Some(id) = identity(&candidate) else {
            continue;
        };
        if Some(id) == me || seen.contains(&id) {
            continue;
        }
        return Ok(candidate);
    }
    Err(Error::internal("no real git found on PATH")
        .with_hint("install git, or set WARD_REAL_GIT to its absolute path")
        .with_exit(exit::NO_GIT))
}

/// (device, inode) of an executable file, following links.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.mode() & 0o111 == 0 {
        return None;
    }
    Some((meta.dev(), meta.ino()))
}

/// Shims this process has already been (a copy of git-ward exec'd another copy).
fn seen_shims() -> Vec<(u64, u64)> {
    let Some(marker) = std::env::var_os(env::WARD_SHIM_SEEN) else {
        return Vec::new();
    };
    let marker = String::from_utf8_lossy(marker.as_bytes()).into_owned();
    let mut parts = marker.split(';');
    let pid_matches = parts.next().and_then(|p| p.parse::<u32>().ok()) == Some(std::process::id());
    if !pid_matches {
        return Vec::new();
    }
    parts
        .filter_map(|p| {
            let (dev, ino) = p.split_once(':')?;
            Some((dev.parse().ok()?, ino.parse().ok()?))
        })
        .collect()
}

/// The marker value to export before `exec`ing the real git: our PID and
/// every shim identity seen so far, ours included.
pub fn shim_seen_marker() -> OsString {
    let mut seen = seen_shims();
    if let Some(me) = std::env::current_exe().ok().and_then(|p| identity(&p)) {
        seen.push(me);
    }
    let mut text = std::process::id().to_string();
    for (dev, ino) in seen {
        text.push_str(&format!(";{dev}:{ino}"));
    }
    text.into()
}

/// Is `value` a full object id (SHA-1 or SHA-256 hex)? Ids read from a
/// hook's input are checked before they reach a git command line, where
/// one starting with `-` would be taken for an option.
pub fn is_object_id(value: &str) -> bool {
    matches!(value.len(), 40 | 64) && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Is `value` git's all-zero object id (any hash length)?
pub fn is_zero(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| b == b'0')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    fn failed(stderr: &str) -> Error {
        let out = Output {
            status: std::process::ExitStatus::from_raw(128 << 8),
            stdout: Vec::new(),
            stderr: stderr.as_bytes().to_vec(),
        };
        checked(&[OsString::from("write-tree")], out).unwrap_err()
    }

    #[test]
    fn a_damaged_repository_gets_a_hint_and_a_failed_command_its_message() {
        for damaged in [
            "fatal: index file corrupt",
            "fatal: /r/.git/index: index file smaller than expected",
            "error: bad signature 0x00000000\nfatal: index file corrupt",
            "fatal: bad object HEAD",
            "fatal: your current branch appears to be broken",
            "fatal: not a git repository (or any of the parent directories): .git",
        ] {
            let err = failed(damaged);
            let hint = err.hint.unwrap_or_default();
            assert!(hint.contains("git fsck"), "{damaged}: {hint}");
            assert!(
                err.message.contains(damaged.lines().last().unwrap()),
                "{damaged}"
            );
        }
        assert_eq!(
            failed("fatal: pathspec 'x' did not match any files").hint,
            None
        );
    }

    #[test]
    fn object_ids_from_hook_input_are_full_hex() {
        assert!(is_object_id(&"a".repeat(40)));
        assert!(is_object_id(&"0123456789abcdef".repeat(4)));
        for bad in ["", "--all", "-x", &"a".repeat(39), &"g".repeat(40), "HEAD"] {
            assert!(!is_object_id(bad), "{bad}");
        }
    }
}
