//! `git ward rollback`.

use crate::error::Result;

/// Arguments of `git ward rollback`.
#[derive(Debug, clap::Args)]
pub struct RollbackArgs {}

/// Runs `git ward rollback`.
pub fn run(_args: RollbackArgs) -> Result<u8> {
    Err(crate::cli::unavailable("rollback"))
}
