//! `git ward mcp`: git-ward's tools for MCP clients, on stdio.
//!
//! A small synchronous JSON-RPC 2.0 server, one message per line, built on
//! serde_json alone. The official MCP SDKs for Rust need an async runtime;
//! this server answers one request at a time and needs none, so the binary's
//! other faces (the shim and the hooks, which start on every git command)
//! carry no runtime and no start-up cost for it.
//!
//! Every tool call walks the shim's road (classify, facts, decide, act,
//! audit) through `call::Ctx::govern`, so an agent gets the same answer,
//! the same denial codes and the same audit lines here as through `git`.
//!
//! Files: `jsonrpc.rs` (framing), `server.rs` (MCP methods), `tools.rs`
//! (the list and schemas), `call.rs` (one call's road), `args.rs` (typed
//! arguments), `bound.rs` (output bounds), and the tools: `git_tools.rs`
//! (status, log, show, diff, with `status.rs` reading git's porcelain),
//! `checkout.rs`, `branches.rs`, `ward_tools.rs` (save, explain, checkpoints,
//! rollback, undo); `results.rs` (each tool's result type, from which its
//! `outputSchema` is derived) and `hints.rs` (hints that name tools).

use std::io::Write;
use std::path::PathBuf;

use crate::error::{exit, Error, IoContext, Result};

mod args;
mod bound;
mod branches;
mod call;
mod checkout;
mod git_tools;
mod hints;
pub(crate) mod jsonrpc;
mod results;
mod server;
mod status;
mod tools;
mod ward_tools;

/// Serve git-ward's tools over MCP (JSON-RPC 2.0 on stdin/stdout, one
/// message per line): git status, log, show, diff, checkout, save, explain,
/// checkpoints, rollback and undo, each under the repository's rules.
///
/// The server serves the repository it was started in, or those named with
/// `--repo`, and no other: a call whose `repo_path` is in another
/// repository is refused (`repository_not_served`).
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// A repository to serve (repeatable; the first is where calls without
    /// `repo_path` go). Default: the repository of the current directory.
    #[arg(long = "repo", value_name = "DIR")]
    pub repos: Vec<PathBuf>,
}

/// Runs the server until stdin closes.
pub fn run(args: McpArgs) -> Result<u8> {
    let cwd = std::env::current_dir().doing("read the current directory")?;
    let dirs: Vec<PathBuf> = if args.repos.is_empty() {
        vec![cwd]
    } else {
        args.repos.iter().map(|d| cwd.join(d)).collect()
    };
    for dir in &dirs {
        if !dir.is_dir() {
            return Err(Error::invalid(
                format!("--repo {} is not a directory", dir.display()),
                "pass the working tree of a git repository",
            ));
        }
    }
    let served = dirs.iter().filter_map(|d| call::repository_of(d)).collect();
    let mut server = server::Server::new(dirs[0].clone(), served);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut line = Vec::new();
    loop {
        let reply = match jsonrpc::read_line(&mut input, &mut line, jsonrpc::MAX_LINE) {
            Ok(jsonrpc::Line::End) => break,
            Ok(jsonrpc::Line::TooLong) => Some(jsonrpc::too_long()),
            Ok(jsonrpc::Line::Read) if line.iter().all(u8::is_ascii_whitespace) => continue,
            Ok(jsonrpc::Line::Read) => server.handle_line(line.trim_ascii()),
            Err(e) => return Err(Error::internal(format!("cannot read stdin: {e}"))),
        };
        if let Some(reply) = reply {
            let mut out = stdout.lock();
            // The client went away: nothing more to serve.
            if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
                break;
            }
        }
    }
    Ok(exit::OK)
}
