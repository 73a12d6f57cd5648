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

/// The one printer of errors: `ward: ...` then `hint: ...`, on stderr.
pub fn report(err: &crate::error::Error) {
    err!("{}", err.render());
}

/// Prints a decision's denial of a git command on stderr ([`crate::error::Error::render_denial`]).
pub fn report_denial(err: &crate::error::Error) {
    err!("{}", err.render_denial());
}
