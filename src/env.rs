//! Every environment variable git-ward reads or sets, declared once.
//!
//! What an agent may set, and what it may not. An agent's environment is
//! its own to choose, so every variable below that *moves* something
//! git-ward trusts (a policy layer, the real git, git-ward's state or its
//! audit log) is a knob for tests and for people, read through [`knob`]:
//! inert wherever the environment marks an agent ([`agent_marked`]). Those
//! are `WARD_POLICY` (also judged against the policy's `enforce.agent_env`),
//! `WARD_SYSTEM_POLICY` and `WARD_REAL_GIT`. An agent may set the others:
//! `WARD_AGENT` and `WARD_CONTRACT` only make it more of an agent,
//! `WARD_TRACE_ID`/`WARD_VIA` label audit lines, `WARD_LOG` filters
//! diagnostics, `WARD_SHIM_SEEN` only names shims to skip, `WARD_HOOK_DIR`
//! is set by the hook scripts themselves. The user layer follows `HOME` and
//! `XDG_CONFIG_HOME` (SECURITY.md says what that leaves open); git's own
//! variables are judged as part of the command's context (`facts`).

/// Marks the actor as an agent when set to anything but `0` or empty.
/// The shim exports `WARD_AGENT=1` to the real git so the hooks know.
pub const WARD_AGENT: &str = "WARD_AGENT";
/// The contract id of the agent's task; overrides the per-worktree file.
pub const WARD_CONTRACT: &str = "WARD_CONTRACT";
/// The session `git ward run` started: its id, carried by every audit line
/// the session's commands write.
pub const WARD_SESSION: &str = "WARD_SESSION";
/// One id per agent command, shared by the hooks its git runs.
pub const WARD_TRACE_ID: &str = "WARD_TRACE_ID";
/// The face that started the command (`shim`, `tool`), for the hooks' audit lines.
pub const WARD_VIA: &str = "WARD_VIA";
/// Set by git-ward's `/bin/sh` hook scripts: the hooks directory, where a hook that
/// was there before `git ward install` is kept and chained.
pub const WARD_HOOK_DIR: &str = "WARD_HOOK_DIR";
/// A policy file layered last; honoured for human actors only.
pub const WARD_POLICY: &str = "WARD_POLICY";
/// The real git the shim runs, instead of a PATH search; a knob, inert for agents.
pub const WARD_REAL_GIT: &str = "WARD_REAL_GIT";
/// `PID;dev:ino;...`: shims this process has been, so copies never exec each other in a loop.
pub const WARD_SHIM_SEEN: &str = "WARD_SHIM_SEEN";
/// Diagnostics filter for stderr (`WARD_LOG=debug`); quiet when unset.
pub const WARD_LOG: &str = "WARD_LOG";
/// Set to anything but empty: no colour, even on a terminal (no-color.org).
pub const NO_COLOR: &str = "NO_COLOR";
/// `0`: no colour, even on a terminal.
pub const CLICOLOR: &str = "CLICOLOR";
/// Where the system policy layer lives (default `/etc/git-ward/policy.toml`);
/// a knob for tests, inert for agents.
pub const WARD_SYSTEM_POLICY: &str = "WARD_SYSTEM_POLICY";
/// The number of the descriptor git-ward hands the git processes it
/// starts for itself ([`crate::git::own`]); a hook believes it only when
/// the git-ward above it holds the same pipe ([`crate::facts::starter`]).
pub const WARD_OWN_FD: &str = "WARD_OWN_FD";
/// Set by pre-commit while it runs the hook it kept as `<name>.legacy`:
/// git-ward running so does not start pre-commit's own hook again.
pub const PRE_COMMIT_RUNNING_LEGACY: &str = "PRE_COMMIT_RUNNING_LEGACY";
/// lefthook's switch: `0` or `false` and its hooks exit at once.
pub const LEFTHOOK: &str = "LEFTHOOK";
/// The program lefthook's hooks run instead of the lefthook they find.
pub const LEFTHOOK_BIN: &str = "LEFTHOOK_BIN";
/// The configuration file lefthook reads instead of the repository's.
pub const LEFTHOOK_CONFIG: &str = "LEFTHOOK_CONFIG";
/// Tags and command names lefthook leaves out, separated by commas.
pub const LEFTHOOK_EXCLUDE: &str = "LEFTHOOK_EXCLUDE";
/// husky's switch: `0` and its hook scripts exit at once.
pub const HUSKY: &str = "HUSKY";
/// The user config directory (`~/.config` when unset).
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";
/// The user data directory (`~/.local/share` when unset): the shim directory lives there.
pub const XDG_DATA_HOME: &str = "XDG_DATA_HOME";
/// The harness an agent runs in, for the `{agent}` of `commit.assisted_by`.
pub const WARD_AGENT_NAME: &str = "WARD_AGENT_NAME";
/// The model an agent runs, for the `{model}` of `commit.assisted_by`.
pub const WARD_AGENT_MODEL: &str = "WARD_AGENT_MODEL";
/// The user's home directory.
pub const HOME: &str = "HOME";
/// Codex's configuration directory (`~/.codex` when unset), for
/// `install --harness codex --user`.
pub const CODEX_HOME: &str = "CODEX_HOME";
/// GitHub Copilot CLI's configuration directory (`~/.copilot` when
/// unset), for `install --harness copilot --user`.
pub const COPILOT_HOME: &str = "COPILOT_HOME";

/// The variables whose presence marks an agent before any policy is read:
/// the built-in `enforce.agent_env` (`policy.toml` says the same, which a
/// test of `policy.rs` checks).
pub const AGENT_MARKERS: &[&str] = &[
    "WARD_AGENT",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CODEX_SANDBOX",
    "CURSOR_AGENT",
    "GEMINI_CLI",
    "OPENHANDS",
    "GOOSE_SESSION",
];

/// Set by the shim before anything else: whatever came through it is an agent's.
static SHIM: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Marks this process as the shim ([`agent_marked`] from then on).
pub fn mark_shim() {
    SHIM.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Set by a hook running inside `receive-pack`: a push received, whose
/// environment is the pusher's (over a local path or `file://`).
static RECEIVING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Marks this process as a hook inside `receive-pack`: from then on no
/// knob is honoured and no user policy layer is read ([`receiving`]).
pub fn mark_receiving() {
    RECEIVING.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Is this a hook inside `receive-pack`, which judges by the server's
/// layers alone and honours nothing the pusher's environment names?
pub fn receiving() -> bool {
    RECEIVING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Is this process an agent's before any policy is read (with the built-in `enforce.agent_env`): the shim, or an environment
/// that marks one?
pub fn agent_marked() -> bool {
    SHIM.load(std::sync::atomic::Ordering::Relaxed)
        || truthy(WARD_AGENT)
        || present(WARD_CONTRACT)
        || AGENT_MARKERS.iter().any(|v| *v != WARD_AGENT && present(v))
}

/// A test or debugging knob that moves something git-ward trusts: its
/// value, unless the environment marks an agent (an agent's environment
/// chooses none of them) or is a pusher's ([`receiving`]).
pub fn knob(name: &str) -> Option<std::ffi::OsString> {
    var_os(name).filter(|_| !agent_marked() && !receiving())
}

/// Reads a variable as a non-empty string.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// A variable that is set and not empty, as the OS holds it (UTF-8 or not).
pub fn var_os(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// True when a variable is in the environment, whatever its value (empty too).
pub fn present(name: &str) -> bool {
    std::env::var_os(name).is_some()
}

/// True when a variable is set to anything but `0` or empty.
pub fn truthy(name: &str) -> bool {
    matches!(std::env::var_os(name), Some(v) if !v.is_empty() && v != "0")
}
