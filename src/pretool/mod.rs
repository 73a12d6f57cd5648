//! Agent harnesses' pre-tool hooks: their JSON in, git-ward's answer out.
//!
//! Pure: each harness's file reads its documented input (the shell command
//! and the directory it runs in) and renders an [`Answer`] in its
//! documented output; `shell.rs` finds the git invocations in the command
//! line. `commands/pretool.rs` walks the road between them.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod shell;

use serde_json::Value;

/// The harnesses git-ward answers, by the names `git ward pretool` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Harness {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Copilot,
}

impl Harness {
    pub const ALL: [Harness; 5] = [
        Harness::Claude,
        Harness::Codex,
        Harness::Gemini,
        Harness::Cursor,
        Harness::Copilot,
    ];

    /// Its name, as the audit log's `source` and the command line spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Cursor => "cursor",
            Harness::Copilot => "copilot",
        }
    }

    /// Reads the harness's hook input.
    pub fn read(self, input: &Value) -> Result<Request, String> {
        match self {
            Harness::Claude => claude::read(input),
            Harness::Codex => codex::read(input),
            Harness::Gemini => gemini::read(input),
            Harness::Cursor => cursor::read(input),
            Harness::Copilot => copilot::read(input),
        }
    }

    /// Renders an answer as the harness's hook output (always JSON on stdout, exit 0).
    pub fn render(self, request: Option<&Request>, answer: &Answer) -> Value {
        match self {
            Harness::Claude => claude::render(request, answer),
            Harness::Codex => codex::render(answer),
            Harness::Gemini => gemini::render(answer),
            Harness::Cursor => cursor::render(answer),
            Harness::Copilot => copilot::render(answer),
        }
    }

    /// Whether the harness runs a rewritten command the hook hands back.
    pub fn rewrites(self) -> bool {
        matches!(self, Harness::Claude | Harness::Gemini)
    }
}

/// What a harness asked about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// The shell command line, when the tool is the harness's shell.
    pub command: Option<String>,
    /// The directory it runs in, when the harness says.
    pub cwd: Option<String>,
    /// The tool's input object as it came, for a rewrite that keeps its other fields.
    pub tool_input: Value,
}

/// git-ward's answer about one command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Not git's business (or not all of it): the harness decides as usual.
    NoOpinion,
    /// Every command in the line is git, and git-ward lets each through.
    Allow,
    /// A git invocation is refused: the denial line and hint.
    Deny(String),
    /// The line could not be read where a git may hide: a person should look
    /// (harnesses without "ask" get a denial with the same reason).
    Unsure(String),
    /// Run this command instead (the same line with the shim first on PATH).
    /// `confirm` when the line runs more than git-ward has read.
    Rewrite {
        command: String,
        note: String,
        confirm: bool,
    },
    /// Allowed by the rules, but the shim will not see it: no checkpoint.
    /// `allow` when the line is all git and git-ward may say so.
    Note { text: String, allow: bool },
    /// The hook input could not be read: nothing decided, the reason shown.
    Malformed(String),
}

/// The text of `tool_input.command` (or another key), when it is a string.
pub fn string_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut v = value;
    for key in path {
        v = v.get(key)?;
    }
    v.as_str()
}

/// Reads the common shape `{cwd, tool_name, tool_input: {command}}` of
/// Claude Code and Codex, whose shell tool is named `Bash`.
pub fn read_tool_input(input: &Value, shell_tools: &[&str]) -> Result<Request, String> {
    let object = input
        .as_object()
        .ok_or("the hook input is not a JSON object")?;
    let tool = object
        .get("tool_name")
        .and_then(Value::as_str)
        .ok_or("the hook input has no tool_name")?;
    let tool_input = object.get("tool_input").cloned().unwrap_or(Value::Null);
    let command = if shell_tools.contains(&tool) {
        Some(command_of(&tool_input).ok_or("the shell tool's input has no command")?)
    } else {
        None
    };
    Ok(Request {
        command,
        cwd: string_at(input, &["cwd"]).map(str::to_string),
        tool_input,
    })
}

/// `command` as a string, or as an argv list (quoted back into one line).
pub fn command_of(tool_input: &Value) -> Option<String> {
    match tool_input.get("command")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(words) => {
            let words: Option<Vec<&str>> = words.iter().map(Value::as_str).collect();
            Some(
                words?
                    .iter()
                    .map(|w| quote(w))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
        _ => None,
    }
}

/// A word quoted for sh, so that it reads back as itself.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
