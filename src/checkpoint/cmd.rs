//! `git ward checkpoint` and `git ward checkpoints`.

use crate::error::Result;

/// Arguments of `git ward checkpoint`.
#[derive(Debug, clap::Args)]
pub struct CheckpointArgs {}

/// Arguments of `git ward checkpoints`.
#[derive(Debug, clap::Args)]
pub struct CheckpointsArgs {}

/// Runs `git ward checkpoint`.
pub fn run_checkpoint(_args: CheckpointArgs) -> Result<u8> {
    Err(crate::cli::unavailable("checkpoint"))
}

/// Runs `git ward checkpoints`.
pub fn run_list(_args: CheckpointsArgs) -> Result<u8> {
    Err(crate::cli::unavailable("checkpoints"))
}
