//! Writing to stdout and stderr without panicking.
//!
//! `print!` and `eprint!` panic when the write fails, which a reader that
//! goes away causes (`git ward audit | head -1`: a broken pipe). git-ward's
//! output is a report of work already done (or a denial already decided
//! and logged), so a failed write is dropped: the command's work and exit
//! code stand. SIGPIPE stays ignored, so that a child git closing its
//! stdin early never kills git-ward half way through a restore.

use std::fmt;
use std::io::Write;

/// Writes to stdout; a failure is dropped.
pub fn write_out(args: fmt::Arguments<'_>) {
    let _ = std::io::stdout().lock().write_fmt(args);
}

/// Writes to stderr; a failure is dropped.
pub fn write_err(args: fmt::Arguments<'_>) {
    let _ = std::io::stderr().lock().write_fmt(args);
}

/// `print!` that cannot panic.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_out(format_args!($($arg)*)) };
}

/// `println!` that cannot panic.
macro_rules! outln {
    () => { $crate::output::write_out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::write_out(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `eprint!` that cannot panic.
macro_rules! err {
    ($($arg:tt)*) => { $crate::output::write_err(format_args!($($arg)*)) };
}

/// `eprintln!` that cannot panic.
macro_rules! errln {
    ($($arg:tt)*) => { $crate::output::write_err(format_args!("{}\n", format_args!($($arg)*))) };
}

pub(crate) use {err, errln, out, outln};

/// A colour for a word people scan for (`ok`, `FAIL`, `deny`).
#[derive(Clone, Copy, Debug)]
pub enum Colour {
    Green,
    Yellow,
    Red,
}

/// Whether stdout gets colour: a terminal, and neither `NO_COLOR` (any
/// value but empty) nor `CLICOLOR=0` says no. Programs reading a pipe
/// never see escape codes.
pub fn colour_stdout() -> bool {
    use std::io::IsTerminal;
    let no_color = std::env::var_os(crate::env::NO_COLOR).is_some_and(|v| !v.is_empty());
    let clicolor_off = std::env::var_os(crate::env::CLICOLOR).is_some_and(|v| v == "0");
    !no_color && !clicolor_off && std::io::stdout().is_terminal()
}

/// `text` in `colour` when `on`, else as it is.
pub fn paint(on: bool, colour: Colour, text: &str) -> String {
    if !on {
        return text.to_string();
    }
    let code = match colour {
        Colour::Green => 32,
        Colour::Yellow => 33,
        Colour::Red => 31,
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// The one printer of errors: `ward: ...` then `hint: ...`, on stderr.
pub fn report(err: &crate::error::Error) {
    err!("{}", err.render());
}

/// Prints a decision's denial of a git command on stderr ([`crate::error::Error::render_denial`]).
pub fn report_denial(err: &crate::error::Error) {
    err!("{}", err.render_denial());
}
