//! `git ward mcp`: an MCP server on stdio.

use crate::error::Result;

/// Arguments of `git ward mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {}

/// Runs the server.
pub fn run(_args: McpArgs) -> Result<u8> {
    Err(crate::cli::unavailable("mcp"))
}
