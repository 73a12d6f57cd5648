//! `git ward doctor`.

use crate::error::Result;

/// Arguments of `git ward doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

/// Runs `git ward doctor`.
pub fn run(_args: DoctorArgs) -> Result<u8> {
    Err(crate::cli::unavailable("doctor"))
}
