//! Files a command writes outside git's own bookkeeping, over whatever is
//! there: `--output=<file>`, which every command with diff or log options
//! takes (`diff`, `log`, `show`, `rev-list`, `blame`, `stash list` ...),
//! `archive -o`, `format-patch -o <dir>`, `bundle create <file>`, and
//! `merge-file`, which writes its result into its first file.
//!
//! Such a command is no longer read-only: it can overwrite uncommitted
//! work, or a file in the git directory (hooks, config, git-ward's own
//! policy).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::action::{Action, Effect};

/// The file (or, for `format-patch -o`, the directory) `command` writes,
/// as written on its command line; `None` when it writes none.
///
/// Options are looked at up to a bare `--`; `--output` is matched whole
/// (git takes no abbreviation of it here). A value that happens to read
/// `--output` (`log --grep --output`) is taken as the option: the reading
/// that guards more.
pub(super) fn written_file(command: &str, args: &[String]) -> Option<String> {
    let options = args.iter().take_while(|a| *a != "--");
    let mut words = options.clone();
    while let Some(word) = words.next() {
        if let Some(file) = word.strip_prefix("--output=") {
            return Some(file.to_string());
        }
        if word == "--output" {
            return words.next().cloned();
        }
        let short_o = matches!(command, "archive" | "format-patch");
        if short_o && word.starts_with("-o") && !word.starts_with("--") {
            return match &word[2..] {
                "" => words.next().cloned(),
                rest => Some(rest.to_string()),
            };
        }
        if command == "format-patch" {
            if let Some(dir) = word.strip_prefix("--output-directory=") {
                return Some(dir.to_string());
            }
            if word == "--output-directory" {
                return words.next().cloned();
            }
        }
    }
    match command {
        "bundle" => {
            let mut plain = options.filter(|a| !a.starts_with('-'));
            (plain.next()? == "create").then(|| plain.next().cloned())?
        }
        "merge-file" => {
            let to_stdout = |a: &String| matches!(a.as_str(), "-p" | "--stdout" | "--object-id");
            if options.clone().any(to_stdout) {
                return None;
            }
            // `-L <label>` takes the next word.
            let mut words = options;
            while let Some(word) = words.next() {
                if word == "-L" {
                    words.next();
                } else if !word.starts_with('-') {
                    return Some(word.clone());
                }
            }
            None
        }
        _ => None,
    }
}

/// Marks `a` as writing `file`: a mutating, destructive command (what is at
/// that path is lost), unless its effect is unknown anyway.
pub(super) fn mark(a: &mut Action, file: String) {
    if a.effect == Effect::Read {
        a.effect = Effect::Mutating;
    }
    a.destructive
        .get_or_insert_with(|| format!("{} writes '{file}' over what is there", a.command));
    a.writes_file = Some(file);
}

/// Can this command line write a file that `written_file` would name?
/// For the shim's read-only fast path, which must not take one: a quick
/// look at the raw words, erring toward "yes".
pub fn may_write_file(command: &str, args: &[OsString]) -> bool {
    let short_o = matches!(command, "archive" | "format-patch");
    matches!(command, "bundle" | "merge-file")
        || args.iter().take_while(|a| *a != "--").any(|a| {
            let a = a.as_bytes();
            a.starts_with(b"--output") || (short_o && a.starts_with(b"-o"))
        })
}
