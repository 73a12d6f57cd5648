//! Files a command writes outside git's own bookkeeping, over whatever is
//! there: `--output=<file>`, which every command with diff or log options
//! takes (`diff`, `log`, `show`, `rev-list`, `blame`, `stash list` ...),
//! `archive -o`, `format-patch -o <dir>`, `bundle create <file>`,
//! `merge-file`, which writes its result into its first file, `mailinfo
//! <msg> <patch>`, `mailsplit -o<dir>`, `read-tree --index-output=<file>`,
//! `fast-export`/`fast-import --export-marks=<file>`, `index-pack -o
//! <file>`, `checkout-index --prefix=<path>`, `credential-store --file`
//! and `credential-cache --socket` (and `config --file` when it writes:
//! see `config.rs`). Positional files are read as git's option parser
//! reads them: after `--` too.
//!
//! Such a command is no longer read-only: it can overwrite uncommitted
//! work, or a file in the git directory (hooks, config, git-ward's own
//! policy).

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use crate::action::{Action, Effect};

/// The files (or, for `format-patch -o`, `mailsplit -o` and
/// `checkout-index --prefix`, the directory or prefix) `command` writes,
/// as written on its command line.
///
/// Options are looked at up to a bare `--`; `--output` is matched whole
/// (git takes no abbreviation of it here). A value that happens to read
/// `--output` (`log --grep --output`) is taken as the option: the reading
/// that guards more.
pub(super) fn written_files(command: &str, args: &[String]) -> Vec<String> {
    let options = args.iter().take_while(|a| *a != "--");
    let mut out = Vec::new();
    let mut words = options.clone();
    let short_o = matches!(
        command,
        "archive" | "format-patch" | "mailsplit" | "index-pack"
    );
    // Options of these commands that name a file they write.
    let long: &[&str] = match command {
        "credential-store" => &["--file"],
        "credential-cache" => &["--socket"],
        "format-patch" => &["--output", "--output-directory"],
        "read-tree" => &["--index-output"],
        "fast-export" => &["--output", "--export-marks"],
        "fast-import" => &["--export-marks", "--export-pack-edges"],
        "checkout-index" => &["--prefix"],
        _ => &["--output"],
    };
    // Where git's option parser takes an unambiguous abbreviation.
    let abbreviates = matches!(
        command,
        "format-patch" | "read-tree" | "fast-export" | "checkout-index"
    );
    let names = |word: &str| {
        long.iter()
            .any(|l| *l == word || (abbreviates && word.len() > 4 && l.starts_with(word)))
    };
    while let Some(word) = words.next() {
        if let Some((name, value)) = word.split_once('=').filter(|(n, _)| n.starts_with("--")) {
            if names(name) {
                out.push(value.to_string());
            }
        } else if word.starts_with("--") && names(word) {
            out.extend(words.next().cloned());
        } else if short_o && word.starts_with("-o") && !word.starts_with("--") {
            match &word[2..] {
                "" => out.extend(words.next().cloned()),
                rest => out.push(rest.to_string()),
            }
        }
    }
    out.retain(|f| !f.is_empty());
    match command {
        "bundle" => {
            let plain = positional(args, &[]);
            if plain.first().is_some_and(|s| *s == "create") {
                out.extend(plain.get(1).map(|f| f.to_string()));
            }
        }
        "merge-file" => {
            let to_stdout = |a: &String| matches!(a.as_str(), "-p" | "--stdout" | "--object-id");
            if !options.clone().any(to_stdout) {
                // `-L <label>` takes the next word.
                let plain = positional(args, &["-L", "--diff-algorithm"]);
                out.extend(plain.first().map(|f| f.to_string()));
            }
        }
        // `mailinfo [<options>] <msg> <patch>`: its options are all flags
        // or `--opt=value`.
        "mailinfo" => out.extend(
            positional(args, &[])
                .into_iter()
                .take(2)
                .map(str::to_string),
        ),
        // `credential-cache--daemon [--debug] <socket>`: makes the socket there.
        "credential-cache--daemon" => {
            out.extend(positional(args, &[]).first().map(|f| f.to_string()));
        }
        _ => {}
    }
    out
}

/// The words that are not options, as git's option parser reads them:
/// every word after `--` or `--end-of-options`; before, those that do not
/// start with `-` and are not the value of an option in `takes_value`.
fn positional<'a>(args: &'a [String], takes_value: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--" | "--end-of-options" => {
                out.extend(words.by_ref().map(String::as_str));
            }
            w if takes_value.contains(&w) => {
                words.next();
            }
            w if w.starts_with('-') && w != "-" => {}
            w => out.push(w),
        }
    }
    out
}

/// Marks `a` as writing `files`: a mutating, destructive command (what is
/// at those paths is lost), unless its effect is unknown anyway.
pub(super) fn mark(a: &mut Action, files: Vec<String>) {
    let Some(first) = files.first() else { return };
    if a.effect == Effect::Read {
        a.effect = Effect::Mutating;
    }
    a.destructive
        .get_or_insert_with(|| format!("{} writes '{first}' over what is there", a.command));
    a.writes_files.extend(files);
}

/// Can this command line write a file that `written_files` would name?
/// For the shim's read-only fast path, which must not take one: a quick
/// look at the raw words, erring toward "yes".
pub fn may_write_file(command: &str, args: &[OsString]) -> bool {
    let short_o = matches!(command, "archive" | "format-patch" | "mailsplit");
    matches!(
        command,
        "bundle"
            | "merge-file"
            | "mailinfo"
            | "credential-store"
            | "credential-cache"
            | "credential-cache--daemon"
            | "difftool"
    ) || args.iter().take_while(|a| *a != "--").any(|a| {
        let a = a.as_bytes();
        a.starts_with(b"--output")
            || a.starts_with(b"--export-")
            || (short_o && a.starts_with(b"-o"))
    })
}
