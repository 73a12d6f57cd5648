//! The `git-ward` binary: the shim, the hooks and the tool, one program.
//! Everything happens in the library; `ARCHITECTURE.md` draws the road.
//!
//! `main` is C's, not Rust's: see [`git_ward::process`] for why and what
//! of Rust's start-up it keeps.
#![no_main]

use std::ffi::{c_char, c_int};

#[no_mangle]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    // SAFETY: C's `main` gets `argc` strings in `argv`, NUL-terminated,
    // alive for the whole run.
    unsafe { git_ward::process::keep_args(argc, argv) };
    git_ward::process::start();
    // A panic ends as under Rust's own `main`: the message, then exit 101
    // (unwinding out of this `extern "C"` function would abort instead).
    let code = std::panic::catch_unwind(git_ward::invocation::main).unwrap_or(101);
    // `exit` flushes stdout, as returning from Rust's `main` would.
    std::process::exit(i32::from(code))
}
