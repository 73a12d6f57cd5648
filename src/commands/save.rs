//! `git ward save`.

use crate::error::Result;

/// Arguments of `git ward save`.
#[derive(Debug, clap::Args)]
pub struct SaveArgs {}

/// Runs `git ward save`.
pub fn run(_args: SaveArgs) -> Result<u8> {
    Err(crate::cli::unavailable("save"))
}
