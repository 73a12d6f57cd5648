//! `git ward init`.

use crate::error::Result;

/// Arguments of `git ward init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {}

/// Runs `git ward init`.
pub fn run(_args: InitArgs) -> Result<u8> {
    Err(crate::cli::unavailable("init"))
}
