//! Third-party programs the tests drive, installed by the tests themselves
//! inside the build directory, never into the user's environment.
//!
//! ```ignore
//! let python = tools::python();            // a venv's python, with `mcp` and `pre-commit`
//! let pre_commit = tools::bin("pre-commit");
//! let lefthook = tools::bin("lefthook");   // also "husky"
//! ```
//!
//! - Python packages go into a virtual environment made with
//!   `python3 -m venv` at `<target>/test-tools/venv`; npm packages into
//!   `<target>/test-tools/node/node_modules` (`npm install --ignore-scripts`,
//!   so that no package's install script touches a repository). pip's and
//!   npm's caches live under `<target>/test-tools/` too.
//! - Each set is installed once per build directory: a stamp file names the
//!   pinned versions below, and a changed list installs again. An exclusive
//!   `flock` on `<target>/test-tools/lock` makes test threads, test binaries
//!   and parallel `cargo test` runs wait for the one that installs.
//! - A tool that cannot be installed fails the test that needs it, with the
//!   command that failed and its output (offline, no `python3`, no `npm`):
//!   no test skips because a tool is missing.
//! - Prerequisites on the machine: `python3` (with its `venv` module) for
//!   the Python set, `npm` (Node.js) for the npm set.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// What pip installs into the venv (pinned: a new version is a change).
const PYTHON_PACKAGES: &[&str] = &["mcp==2.3.0", "pre-commit==4.7.0"];

/// What npm installs into `node_modules` (pinned likewise).
const NPM_PACKAGES: &[&str] = &["lefthook@2.2.2", "husky@9.1.7"];

/// The venv's python, with every package of [`PYTHON_PACKAGES`] importable.
pub fn python() -> PathBuf {
    python_set().join("bin/python")
}

/// The path of an installed program: `pre-commit` (from the venv),
/// `lefthook` or `husky` (from `node_modules/.bin`). Panics, naming why,
/// when the set that holds it could not be installed.
pub fn bin(name: &str) -> PathBuf {
    let path = match name {
        "pre-commit" => python_set().join("bin").join(name),
        "lefthook" | "husky" => npm_set().join("node_modules/.bin").join(name),
        other => panic!("tools::bin: no test tool named {other:?} (see tests/it/tools.rs)"),
    };
    assert!(
        path.exists(),
        "{} is missing after its install",
        path.display()
    );
    path
}

/// `<target>/test-tools`: beside cargo's own `tmp` directory for tests.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR has a parent")
        .join("test-tools")
}

fn python_set() -> &'static Path {
    static SET: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    unwrap(SET.get_or_init(|| installed("venv", PYTHON_PACKAGES, install_python)))
}

fn npm_set() -> &'static Path {
    static SET: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    unwrap(SET.get_or_init(|| installed("node", NPM_PACKAGES, install_npm)))
}

fn unwrap(set: &Result<PathBuf, String>) -> &Path {
    match set {
        Ok(dir) => dir,
        Err(why) => panic!("a test tool could not be installed: {why}"),
    }
}

/// `root()/name`, installed with `install` unless its stamp already lists
/// `packages`; under the lock, so that only one process installs.
fn installed(
    name: &str,
    packages: &[&str],
    install: fn(&Path, &[&str]) -> Result<(), String>,
) -> Result<PathBuf, String> {
    let root = root();
    std::fs::create_dir_all(&root).map_err(|e| format!("create {}: {e}", root.display()))?;
    let _lock = Lock::take(&root.join("lock"))?;
    let dir = root.join(name);
    let stamp = dir.join(".installed");
    let want = packages.join("\n") + "\n";
    if std::fs::read_to_string(&stamp).is_ok_and(|have| have == want) {
        return Ok(dir);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| format!("remove {}: {e}", dir.display()))?;
    }
    install(&dir, packages)?;
    std::fs::write(&stamp, want).map_err(|e| format!("write {}: {e}", stamp.display()))?;
    Ok(dir)
}

fn install_python(venv: &Path, packages: &[&str]) -> Result<(), String> {
    let python3 = which::which("python3")
        .map_err(|_| "python3 is not on PATH (needed for the test venv)".to_string())?;
    run(Command::new(python3).arg("-m").arg("venv").arg(venv))?;
    run(Command::new(venv.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(packages)
        .env("PIP_CACHE_DIR", root().join("pip-cache"))
        // Into the venv, whatever the user's pip configuration says.
        .env("PIP_USER", "0")
        .env_remove("PIP_TARGET")
        .env_remove("PIP_PREFIX"))
}

fn install_npm(dir: &Path, packages: &[&str]) -> Result<(), String> {
    let npm = which::which("npm").map_err(|_| {
        format!(
            "npm is not on PATH (needed to install {}; install Node.js)",
            packages.join(", ")
        )
    })?;
    std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let manifest = dir.join("package.json");
    std::fs::write(&manifest, "{\"private\": true}\n")
        .map_err(|e| format!("write {}: {e}", manifest.display()))?;
    run(Command::new(npm)
        .current_dir(dir)
        .args(["install", "--ignore-scripts", "--no-audit", "--no-fund"])
        .args(["--loglevel", "error", "--prefix"])
        .arg(dir)
        .args(packages)
        .env("npm_config_cache", root().join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .env("INIT_CWD", dir))
}

/// Runs `cmd`; an error names it, its status and its output.
fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .map_err(|e| format!("could not start {shown}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{shown} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

/// An exclusive `flock`, released when dropped (or when the process dies).
struct Lock(File);

impl Lock {
    fn take(path: &Path) -> Result<Lock, String> {
        let file = File::create(path).map_err(|e| format!("open {}: {e}", path.display()))?;
        // SAFETY: flock on a descriptor this File owns.
        while unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(format!("lock {}: {err}", path.display()));
            }
        }
        Ok(Lock(file))
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: as above; closing the file would release it too.
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

#[test]
fn every_tool_is_installed_and_runs() {
    let python = python();
    let probe = Command::new(&python)
        .args(["-c", "import mcp, pre_commit"])
        .output()
        .unwrap();
    assert!(probe.status.success(), "{probe:?}");
    assert!(python.starts_with(root()), "{}", python.display());
    for name in ["pre-commit", "lefthook"] {
        let out = Command::new(bin(name)).arg("--version").output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
    }
    // husky's command line installs into the current repository: only its path here.
    assert!(bin("husky").starts_with(root()));
}
