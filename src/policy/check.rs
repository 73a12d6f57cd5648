//! The checks a layer passes before it is merged: UTF-8 text, TOML that
//! fits the types, and values serde accepts but the policy does not (a
//! size, a duration, a glob), each reported with file, line, column and key.

use super::{short_name, Capability, Settings};
use crate::error::{printable, Error, Result};
use crate::patterns::Patterns;

/// A value its type accepts but the policy does not.
#[derive(Debug)]
pub(super) struct BadValue {
    /// The dotted key, `checkpoint.max_file_size`.
    key: String,
    /// The item of a list that is wrong, when one is.
    item: Option<usize>,
    why: String,
}

/// Checks what serde cannot: sizes, durations, globs, the footer.
pub(super) fn check_values(
    settings: &Settings,
    table: &toml::Table,
) -> std::result::Result<(), BadValue> {
    let has = |section: &str, key: &str| {
        table
            .get(section)
            .and_then(|s| s.as_table())
            .is_some_and(|s| s.contains_key(key))
    };
    let bad = |key: &str, why: String| {
        Err(BadValue {
            key: key.to_string(),
            item: None,
            why,
        })
    };
    if has("checkpoint", "max_file_size")
        && parse_size(&settings.checkpoint.max_file_size).is_none()
    {
        return bad(
            "checkpoint.max_file_size",
            format!(
                "'{}' is not a size like 16MiB",
                settings.checkpoint.max_file_size
            ),
        );
    }
    if has("turns", "test_timeout") {
        let timeout = &settings.turns.test_timeout;
        match parse_duration(timeout) {
            None => {
                return bad(
                    "turns.test_timeout",
                    format!("'{timeout}' is not a duration like 30m"),
                )
            }
            // No test finishes in no time: every turn would fail.
            Some(limit) if limit.is_zero() => {
                return bad(
                    "turns.test_timeout",
                    format!("'{timeout}' leaves the tests no time; give them at least 1s"),
                )
            }
            Some(_) => {}
        }
    }
    for (section, key, value) in [
        ("checkpoint", "keep", u64::from(settings.checkpoint.keep)),
        (
            "turns",
            "pollution_threshold",
            u64::from(settings.turns.pollution_threshold),
        ),
        ("timeouts", "git_seconds", settings.timeouts.git_seconds),
    ] {
        if has(section, key) && value == 0 {
            return bad(
                &format!("{section}.{key}"),
                "must be at least 1".to_string(),
            );
        }
    }
    if has("branches", "agent_prefix") {
        if let Err(why) = check_agent_prefix(&settings.branches.agent_prefix) {
            return bad("branches.agent_prefix", why);
        }
    }
    if has("commit", "footer") && !settings.commit.footer.contains("{contract}") {
        return bad("commit.footer", "must contain {contract}".to_string());
    }
    // The hooks find a footer already there by its line: one of several
    // lines would be appended again by each hook.
    if has("commit", "footer") && settings.commit.footer.contains(['\n', '\r']) {
        return bad("commit.footer", "must be one line".to_string());
    }
    // git keeps no NUL (or other control character) in a commit message.
    if has("commit", "footer") && settings.commit.footer.chars().any(char::is_control) {
        return bad(
            "commit.footer",
            "must hold no control characters".to_string(),
        );
    }
    if has("commit", "signed_off_by")
        && !matches!(settings.commit.signed_off_by.as_str(), "allow" | "refuse")
    {
        return bad(
            "commit.signed_off_by",
            format!(
                "'{}' is neither \"allow\" nor \"refuse\"",
                settings.commit.signed_off_by
            ),
        );
    }
    if has("commit", "assisted_by") && settings.commit.assisted_by.chars().any(char::is_control) {
        return bad(
            "commit.assisted_by",
            "must be one line, without control characters".to_string(),
        );
    }
    let contract_globs = match &settings.capabilities.ensure_working_branch {
        Capability::Contracts(globs) => Some(globs),
        Capability::All(_) => None,
    };
    for (section, key, globs) in [
        ("branches", "protected", Some(&settings.branches.protected)),
        ("push", "force_allowed", Some(&settings.push.force_allowed)),
        ("capabilities", "ensure_working_branch", contract_globs),
    ] {
        let Some(globs) = globs.filter(|_| has(section, key)) else {
            continue;
        };
        // A full ref name is never a short name: it would protect nothing.
        if section != "capabilities" {
            if let Some(i) = globs.iter().position(|g| g.starts_with("refs/")) {
                let hint = short_name(&globs[i])
                    .filter(|short| !short.is_empty())
                    .map(|short| format!(" (write '{short}')"))
                    .unwrap_or_default();
                return Err(BadValue {
                    key: format!("{section}.{key}"),
                    item: Some(i),
                    why: format!(
                        "'{}' is a full ref name, but patterns match short names, `main` for refs/heads/main, `tags/v1` for refs/tags/v1{hint}",
                        globs[i]
                    ),
                });
            }
        }
        if let Err(why) = compile(globs) {
            return Err(BadValue {
                key: format!("{section}.{key}"),
                // The first pattern that fails on its own, if one does.
                item: globs
                    .iter()
                    .position(|g| compile(std::slice::from_ref(g)).is_err()),
                why,
            });
        }
    }
    Ok(())
}

/// An agent branch is `<agent_prefix><contract>`: with any valid contract
/// id after it, the prefix must make a branch name git accepts (`git
/// branch` refuses one that starts with `-` too).
fn check_agent_prefix(prefix: &str) -> std::result::Result<(), String> {
    let branch = format!("{prefix}c1");
    let full = format!("refs/heads/{branch}");
    let valid = gix::validate::reference::name(full.as_str().into()).is_ok()
        && !branch.starts_with('-')
        && !prefix.contains("@{");
    if valid {
        Ok(())
    } else {
        Err(format!(
            "'{prefix}<contract>' is not a branch name git accepts (try \"agent/\")"
        ))
    }
}

/// Renders a [`BadValue`] as `source:line:column: key `k`: why`, the
/// position that of the value (or of the list's item) in `text`.
pub(super) fn bad_value(text: &str, source: &str, bad: &BadValue) -> Error {
    let at = value_start(text, &bad.key, bad.item)
        .map(|offset| {
            let (line, col) = line_col(text, offset);
            format!(":{line}:{col}")
        })
        .unwrap_or_default();
    let key = &bad.key;
    // Values come from the file: shown with control characters escaped.
    Error::internal(printable(&format!(
        "invalid policy {source}{at}: key `{key}`: {}",
        bad.why
    )))
    .with_hint(printable(&format!(
        "fix `{key}` in {source}; `git ward policy check` validates a file"
    )))
}

/// Where the value of a dotted `section.key` (or its list item) starts in
/// `text`, as a byte offset.
fn value_start(text: &str, key: &str, item: Option<usize>) -> Option<usize> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let (section, name) = key.split_once('.')?;
    let value = doc.get_ref().get(section)?.get_ref().get(name)?;
    let value = match item {
        Some(i) => value.get_ref().get(i).unwrap_or(value),
        None => value,
    };
    Some(value.span().start)
}

/// The 1-based line and column (in characters) of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Renders a TOML error as `source:line:column: key `k`: message`.
pub(super) fn layer_error(text: &str, source: &str, err: &toml::de::Error) -> Error {
    located_error(
        text,
        source,
        err.span().map(|s| s.start),
        err.message().trim(),
    )
}

/// A layer's bytes as its text: bytes that are not UTF-8 make it an
/// invalid policy, reported at the first of them.
pub fn layer_text<'a>(bytes: &'a [u8], source: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let why = format!("not UTF-8 text (byte 0x{:02x})", bytes[valid]);
        located_error(text, source, Some(valid), &why)
    })
}

/// Renders an error at byte `at` of `text` as `source:line:column: key
/// `k`: message`, the key read from the start of that line.
fn located_error(text: &str, source: &str, at: Option<usize>, message: &str) -> Error {
    let (line, col, key) = match at {
        Some(at) => {
            let (line, col) = line_col(text, at);
            let line_text = text.lines().nth(line - 1).unwrap_or("");
            let key = line_text
                .split_once('=')
                .map(|(k, _)| k.trim().to_string())
                .unwrap_or_else(|| line_text.trim().to_string());
            (line, col, key)
        }
        None => (0, 0, String::new()),
    };
    // The key and the message quote the file: control characters escaped.
    Error::internal(printable(&format!(
        "invalid policy {source}:{line}:{col}: key `{key}`: {message}"
    )))
    .with_hint(printable(&format!(
        "fix {source} at line {line}; `git ward policy check {source}` validates it"
    )))
}

fn compile(globs: &[String]) -> std::result::Result<Patterns, String> {
    Patterns::new(globs)
}

/// A number and the unit after it (`16MiB` -> 16, `MiB`), blanks trimmed.
fn number_and_unit(text: &str) -> Option<(u64, &str)> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    Some((num.parse().ok()?, unit.trim()))
}

/// Parses `16MiB`, `512k`, `1GB`, `100` (bytes).
pub fn parse_size(text: &str) -> Option<u64> {
    let (num, unit) = number_and_unit(text)?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    num.checked_mul(mult)
}

/// Parses `30m`, `90s`, `2h`, `1d`, `45` (seconds).
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let (num, unit) = number_and_unit(text)?;
    let secs = match unit {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return None,
    };
    Some(std::time::Duration::from_secs(num.checked_mul(secs)?))
}
