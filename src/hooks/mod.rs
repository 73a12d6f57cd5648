//! The hooks face: one file per hook, plus `install.rs`.

use std::ffi::OsString;

use crate::error::Result;

pub mod install;

/// The hooks git-ward installs (and answers to as `argv[0]`).
pub const HOOK_NAMES: &[&str] = &[
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "pre-push",
    "reference-transaction",
    "pre-receive",
];

/// Runs hook `name` with git's arguments; returns the hook's exit code.
pub fn run(name: &str, _args: &[OsString]) -> Result<u8> {
    let _ = name;
    Ok(0)
}
