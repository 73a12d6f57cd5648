//! What the restoring commands (rollback, undo, turn) say along the way and
//! ask at the terminal before they change anything.

use std::io::{BufRead, IsTerminal, Write};

use crate::checkpoint::plan::{self, Entry, Plan};
use crate::error::{exit, IoContext, Result};

/// Where text goes: stdout for people, nowhere with `--json`.
pub struct Out {
    pub json: bool,
}

impl Out {
    /// The end of a restore that left `failed` files as they were (each
    /// named above with its reason): the error line and its hint, in the
    /// JSON too; exit 3.
    pub fn failed(
        &self,
        mut value: serde_json::Value,
        failed: usize,
        what: &str,
    ) -> (serde_json::Value, u8) {
        let err = crate::error::Error::internal(format!(
            "{what}: {failed} path{} could not be restored; everything else was",
            plan::plural(failed)
        ))
        .with_hint("the reason given for each says what stood in the way; what was restored stays restored, so the same command can run again once that is fixed");
        if !self.json {
            crate::output::report(&err);
        }
        if let (Some(map), serde_json::Value::Object(e)) = (value.as_object_mut(), err.to_json()) {
            map.extend(e);
        }
        (value, exit::INTERNAL)
    }

    pub fn say(&self, text: &str) {
        if !self.json && !text.is_empty() {
            crate::output::out!("{text}");
            if !text.ends_with('\n') {
                crate::output::outln!();
            }
            let _ = std::io::stdout().flush();
        }
    }
}

/// What the question got.
#[derive(Debug)]
pub enum Confirmation<'p> {
    /// Go ahead with these entries.
    Go(Vec<&'p Entry>),
    /// Asked at the terminal; the answer was not yes.
    Declined,
    /// No terminal to ask, and no `--yes`.
    NoTerminal,
    /// `--interactive` with no terminal to ask about each file; `--yes`
    /// cannot answer those questions (each one's default is no).
    NoTerminalPerFile,
}

impl Confirmation<'_> {
    /// The line that says nothing changed, and why, when not confirmed.
    pub fn message(&self) -> Option<&'static str> {
        match self {
            Confirmation::Go(_) => None,
            Confirmation::Declined => Some("Not confirmed: nothing changed."),
            Confirmation::NoTerminal => Some(
                "Not confirmed: nothing changed. There is no terminal to ask; run again with --yes to proceed (or --dry-run to see the plan only).",
            ),
            Confirmation::NoTerminalPerFile => Some(
                "Not confirmed: nothing changed. --interactive asks about each file and there is no terminal to ask; run it at a terminal, or run again without --interactive and with --yes to restore the whole plan (or --dry-run to see the plan only).",
            ),
        }
    }

    /// Says that nothing changed and returns the report of a run not
    /// confirmed: a person who said no at the terminal gets status D, exit 1;
    /// with no terminal to ask (an agent), the command to run instead and
    /// status I, exit 2, so that a program does not take it for a denial.
    pub fn refused(&self, out: &Out, mut value: serde_json::Value) -> (serde_json::Value, u8) {
        let mut message = self.message().unwrap_or_default().to_string();
        let code = match self {
            Confirmation::NoTerminal => {
                message = format!("{message} To proceed: {}", rerun_with_yes());
                exit::INVALID
            }
            Confirmation::NoTerminalPerFile => exit::INVALID,
            _ => exit::DENIED,
        };
        out.say(&message);
        value["status"] = exit::status(code).into();
        value["message"] = message.into();
        (value, code)
    }
}

/// This command line again, with `--yes`: `git ward undo --yes`.
fn rerun_with_yes() -> String {
    let words = crate::process::tool_argv().into_iter().map(|w| {
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b));
        if plain {
            w
        } else {
            format!("'{}'", w.replace('\'', "'\\''"))
        }
    });
    let mut line = String::from("git ward");
    for word in words.chain(std::iter::once("--yes".to_string())) {
        line.push(' ');
        line.push_str(&word);
    }
    line
}

/// Asks for confirmation, at the terminal on stdin. `--interactive` reads
/// y/N/a per file from that terminal; without one it asks nothing and
/// chooses nothing, `--yes` or not (a pipe's lines are not a person's
/// answers, and `--yes` cannot say which files).
pub fn confirm<'p>(
    plan: &'p Plan,
    yes: bool,
    interactive: bool,
    what: &str,
) -> Result<Confirmation<'p>> {
    let all: Vec<&Entry> = plan.entries.iter().collect();
    if interactive {
        if !std::io::stdin().is_terminal() {
            return Ok(Confirmation::NoTerminalPerFile);
        }
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        let mut chosen = Vec::new();
        let mut rest = false;
        for e in &all {
            if rest || yes {
                chosen.push(*e);
                continue;
            }
            crate::output::err!("{} {}? [y/N/a] ", e.status.word(), e.path);
            let answer = lines.next().and_then(|l| l.ok()).unwrap_or_default();
            match answer.trim() {
                "y" | "Y" | "yes" => chosen.push(*e),
                "a" | "A" | "all" => {
                    rest = true;
                    chosen.push(*e);
                }
                _ => {}
            }
        }
        return Ok(Confirmation::Go(chosen));
    }
    if yes {
        return Ok(Confirmation::Go(all));
    }
    if !std::io::stdin().is_terminal() {
        return Ok(Confirmation::NoTerminal);
    }
    crate::output::err!("Continue with {what}? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .doing("read the answer")?;
    Ok(if is_yes(&answer) {
        Confirmation::Go(all)
    } else {
        Confirmation::Declined
    })
}

/// Is this line a yes? Anything else, an empty line too, is the default no.
fn is_yes(answer: &str) -> bool {
    matches!(answer.trim(), "y" | "Y" | "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_yes_confirms() {
        for yes in ["y\n", "Y\n", "yes\n", " y \r\n"] {
            assert!(is_yes(yes), "{yes:?}");
        }
        for no in ["", "\n", "n\n", "N\n", "no\n", "yes please\n", "ok\n"] {
            assert!(!is_yes(no), "{no:?}");
        }
    }

    #[test]
    fn only_a_missing_terminal_is_blamed_on_the_terminal() {
        let declined = Confirmation::Declined.message().unwrap();
        assert!(declined.starts_with("Not confirmed: nothing changed"));
        assert!(!declined.contains("terminal"), "{declined}");
        let alone = Confirmation::NoTerminal.message().unwrap();
        assert!(alone.contains("no terminal to ask"), "{alone}");
        assert!(alone.contains("--yes"), "{alone}");
        let per_file = Confirmation::NoTerminalPerFile.message().unwrap();
        assert!(per_file.starts_with("Not confirmed: nothing changed"));
        assert!(per_file.contains("no terminal to ask"), "{per_file}");
        assert!(per_file.contains("without --interactive and with --yes"));
        assert_eq!(Confirmation::Go(Vec::new()).message(), None);
    }
}
