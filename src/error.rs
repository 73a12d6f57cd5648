//! Error kinds, denial codes, exit codes and the one printer that renders them.
//!
//! Every failure a user can see goes through [`Error`]: a code that programs
//! can match on, a one-line message, and a hint that says what to type
//! instead. `main` turns the error into an exit status in one place
//! ([`Error::exit_code`]); nothing else calls `std::process::exit`.

use std::fmt;

/// The denial and error codes (docs/rules.md). `D` denied, `I` invalid, `E` error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Code {
    /// A write to a protected ref, or commits on it without the capability.
    #[serde(rename = "EN-GIT-D-001")]
    D001,
    /// The capability is granted, but to other contracts only.
    #[serde(rename = "EN-GIT-D-002")]
    D002,
    /// The capability is granted, but no contract is active.
    #[serde(rename = "EN-GIT-D-003")]
    D003,
    /// An agent switching hooks off.
    #[serde(rename = "EN-GIT-D-004")]
    D004,
    /// A force push outside `push.force_allowed`, or deleting a protected remote ref.
    #[serde(rename = "EN-GIT-D-005")]
    D005,
    /// An agent checking out something other than a local branch.
    #[serde(rename = "EN-GIT-D-006")]
    D006,
    /// An agent changing, removing or moving a worktree another session
    /// holds the live lease of.
    #[serde(rename = "EN-GIT-D-007")]
    D007,
    /// A command that would destroy work no checkpoint can hold (nested
    /// repositories, submodules' uncommitted work, ignored files).
    #[serde(rename = "EN-GIT-D-008")]
    D008,
    /// An agent's commit carrying `Signed-off-by` where `commit.signed_off_by` refuses it.
    #[serde(rename = "EN-GIT-D-009")]
    D009,
    /// An invalid argument to a git-ward command.
    #[serde(rename = "EN-GIT-I-001")]
    I001,
    /// The policy cannot be read, or another internal failure.
    #[serde(rename = "EN-GIT-E-001")]
    E001,
}

impl Code {
    /// The code as printed: `EN-GIT-D-001`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::D001 => "EN-GIT-D-001",
            Code::D002 => "EN-GIT-D-002",
            Code::D003 => "EN-GIT-D-003",
            Code::D004 => "EN-GIT-D-004",
            Code::D005 => "EN-GIT-D-005",
            Code::D006 => "EN-GIT-D-006",
            Code::D007 => "EN-GIT-D-007",
            Code::D008 => "EN-GIT-D-008",
            Code::D009 => "EN-GIT-D-009",
            Code::I001 => "EN-GIT-I-001",
            Code::E001 => "EN-GIT-E-001",
        }
    }

    /// The `--json` status letter: D denied, I invalid, E error.
    pub fn status(self) -> &'static str {
        match self {
            Code::I001 => "I",
            Code::E001 => "E",
            _ => "D",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Exit codes, written down once.
pub mod exit {
    /// Success.
    pub const OK: u8 = 0;
    /// git-ward refused (git's own convention for a refused operation).
    pub const DENIED: u8 = 1;
    /// Invalid usage or argument; also an undo or rollback with no
    /// terminal to confirm it and no `--yes` (it says what to run).
    pub const INVALID: u8 = 2;
    /// Internal error: policy unreadable, a git call failed, I/O.
    pub const INTERNAL: u8 = 3;
    /// The shim found no real git to run (the shell's "command not found").
    pub const NO_GIT: u8 = 127;

    /// The `--json` status letter of an exit code: S (success), D (denied),
    /// I (invalid) or E (error).
    pub fn status(code: u8) -> &'static str {
        match code {
            OK => "S",
            DENIED => "D",
            INVALID => "I",
            _ => "E",
        }
    }
}

/// A failure with a code, a message and a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
    pub hint: Option<String>,
    /// Overrides the exit code the code implies (e.g. 127 for no real git).
    pub exit: Option<u8>,
    /// What went wrong, where a caller answers kinds differently.
    pub kind: Kind,
}

/// Kinds of failure a caller tells apart (never by the message's text).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Kind {
    /// Anything else.
    #[default]
    Failed,
    /// A git child ran out of time (`timeouts.git_seconds`) and was killed.
    TimedOut,
}

impl Error {
    /// A denial: exit 1.
    pub fn denied(code: Code, message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            hint: Some(hint.into()),
            exit: None,
            kind: Kind::Failed,
        }
    }

    /// An invalid argument to a git-ward command: exit 2.
    pub fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error {
            code: Code::I001,
            message: message.into(),
            hint: Some(hint.into()),
            exit: None,
            kind: Kind::Failed,
        }
    }

    /// Is this a refusal (a denial code, exit 1)?
    pub fn is_denial(&self) -> bool {
        self.code.status() == "D"
    }

    /// The same error, of `kind`.
    pub fn of_kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// An internal failure: exit 3.
    pub fn internal(message: impl Into<String>) -> Self {
        Error {
            code: Code::E001,
            message: message.into(),
            hint: None,
            exit: None,
            kind: Kind::Failed,
        }
    }

    /// Adds or replaces the hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Forces a particular exit code.
    pub fn with_exit(mut self, code: u8) -> Self {
        self.exit = Some(code);
        self
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        if let Some(code) = self.exit {
            return code;
        }
        match self.code {
            Code::I001 => exit::INVALID,
            Code::E001 => exit::INTERNAL,
            _ => exit::DENIED,
        }
    }

    /// The first line as printed: `ward: denied [CODE] message` or `ward: message`.
    pub fn headline(&self) -> String {
        match self.code.status() {
            "D" => format!("ward: denied [{}] {}", self.code, self.message),
            "I" => format!("ward: invalid [{}] {}", self.code, self.message),
            _ => format!("ward: error [{}] {}", self.code, self.message),
        }
    }

    /// The whole rendering: headline, then `hint: ...`.
    pub fn render(&self) -> String {
        self.with_hint_line(self.headline())
    }

    /// As the refusal of a git command (the shim's and the hooks'
    /// decisions): the rules' one line, `ward: denied [CODE] message`, whatever
    /// the code's class (an invalid policy or contract id refuses the
    /// command too), then the hint.
    pub fn render_denial(&self) -> String {
        self.with_hint_line(format!("ward: denied [{}] {}", self.code, self.message))
    }

    fn with_hint_line(&self, headline: String) -> String {
        format!("{headline}\nhint: {}\n", self.hint_or_default())
    }

    /// The hint, or where none was given the one for its code's class:
    /// every error says what to do next.
    pub fn hint_or_default(&self) -> &str {
        match (&self.hint, self.code.status()) {
            (Some(hint), _) => hint,
            (None, "I") => "see the command's usage with --help",
            (None, "D") => "see why with `git ward explain -- <the git command>`",
            (None, _) => {
                "run `git ward doctor` to see what is wrong with the repository or the installation"
            }
        }
    }

    /// The `--json` form: `{"status": "D", "code": ..., "message": ..., "hint": ...}`,
    /// its status the code's class (`EN-GIT-E-001` is `E`, whatever the
    /// exit code).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "status": self.code.status(),
            "code": self.code.as_str(),
            "message": self.message,
            "hint": self.hint_or_default(),
        })
    }
}

/// `text` with its control characters escaped (`\u{1b}`), for a message
/// that quotes what a file holds: a terminal shows such text as it is
/// instead of obeying the escape sequences in it.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for Error {}

/// An I/O failure made into an [`Error`] that says what was done to which
/// path, with a hint for the causes a user can fix. There is no blanket
/// conversion from `io::Error`: "Permission denied (os error 13)" alone
/// does not say where to look.
pub trait IoContext<T> {
    /// Names what was done (`"write"`, `"create the directory"`) and the path.
    fn at(self, doing: &str, path: impl AsRef<std::path::Path>) -> Result<T>;
    /// For a failure with no path of its own (reading the answer to a prompt).
    fn doing(self, what: &str) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, doing: &str, path: impl AsRef<std::path::Path>) -> Result<T> {
        self.map_err(|err| io_error(format!("cannot {doing} {}", path.as_ref().display()), &err))
    }

    fn doing(self, what: &str) -> Result<T> {
        self.map_err(|err| io_error(format!("cannot {what}"), &err))
    }
}

fn io_error(what: String, err: &std::io::Error) -> Error {
    use std::io::ErrorKind;
    let error = Error::internal(format!("{what}: {err}"));
    // ENOSPC, EROFS, EDQUOT: kinds std names only in newer releases.
    let hint = match (err.kind(), err.raw_os_error()) {
        (ErrorKind::PermissionDenied, _) => {
            "check who owns it and its permissions (`ls -ld` on it and its directory), then retry"
        }
        (_, Some(28 | 122)) => "the disk (or your quota) is full: free some space, then retry",
        (_, Some(30)) => "the file system is mounted read-only: retry where it can be written",
        (ErrorKind::NotFound, _) => {
            "it (or a directory above it) no longer exists: check the path, then retry"
        }
        _ => return error,
    };
    error.with_hint(hint)
}

/// The result type of everything fallible in git-ward.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_the_path_and_a_way_out() {
        let denied = std::io::Error::from_raw_os_error(13);
        let err = Err::<(), _>(denied)
            .at("write", "/repo/.git/hooks/pre-commit")
            .unwrap_err();
        assert_eq!(err.code, Code::E001);
        assert_eq!(
            err.message,
            "cannot write /repo/.git/hooks/pre-commit: Permission denied (os error 13)"
        );
        assert!(err.hint.unwrap().contains("permissions"));
        let full = Err::<(), _>(std::io::Error::from_raw_os_error(28))
            .doing("read the answer")
            .unwrap_err();
        assert!(full.message.starts_with("cannot read the answer: "));
        assert!(full.hint.unwrap().contains("full"));
        let other = Err::<(), _>(std::io::Error::other("odd"))
            .at("read", "x")
            .unwrap_err();
        assert_eq!(other.hint, None);
    }

    #[test]
    fn denial_renders_two_lines_in_spec_format() {
        let err = Error::denied(
            Code::D003,
            "commit on protected branch 'main' needs an active contract",
            "run `git ward contract start <id>` or set WARD_CONTRACT, then retry",
        );
        assert_eq!(
            err.render(),
            "ward: denied [EN-GIT-D-003] commit on protected branch 'main' needs an active contract\n\
             hint: run `git ward contract start <id>` or set WARD_CONTRACT, then retry\n"
        );
        assert_eq!(err.exit_code(), exit::DENIED);
    }

    #[test]
    fn the_json_status_is_the_codes_class() {
        let status = |e: Error| e.to_json()["status"].as_str().unwrap().to_string();
        assert_eq!(status(Error::denied(Code::D001, "x", "y")), "D");
        assert_eq!(status(Error::invalid("x", "y")), "I");
        assert_eq!(status(Error::internal("x")), "E");
        assert_eq!(status(Error::internal("x").with_exit(exit::INVALID)), "E");
        assert_eq!(exit::status(exit::OK), "S");
        assert_eq!(exit::status(exit::DENIED), "D");
        assert_eq!(exit::status(exit::INVALID), "I");
        assert_eq!(exit::status(exit::INTERNAL), "E");
    }

    #[test]
    fn exit_codes_follow_the_kind() {
        assert_eq!(Error::invalid("x", "y").exit_code(), exit::INVALID);
        assert_eq!(Error::internal("x").exit_code(), exit::INTERNAL);
        assert_eq!(
            Error::internal("x").with_exit(exit::NO_GIT).exit_code(),
            127
        );
    }
}
