//! `git ward demo`.

use crate::error::Result;

/// Arguments of `git ward demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {}

/// Runs `git ward demo`.
pub fn run(_args: DemoArgs) -> Result<u8> {
    Err(crate::cli::unavailable("demo"))
}
