//! `git ward turn`.

use crate::error::Result;

/// Arguments of `git ward turn`.
#[derive(Debug, clap::Args)]
pub struct TurnArgs {}

/// Runs `git ward turn`.
pub fn run(_args: TurnArgs) -> Result<u8> {
    Err(crate::cli::unavailable("turn"))
}
