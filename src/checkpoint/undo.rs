//! `git ward undo`.

use crate::error::Result;

/// Arguments of `git ward undo`.
#[derive(Debug, clap::Args)]
pub struct UndoArgs {}

/// Runs `git ward undo`.
pub fn run(_args: UndoArgs) -> Result<u8> {
    Err(crate::cli::unavailable("undo"))
}
