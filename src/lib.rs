//! git-ward: makes git safe for AI coding agents.
//!
//! The library behind the `git-ward` binary; its modules are public so that
//! benchmarks can measure each step of the road on its own.
//!
//! One binary, three faces, one road through the program:
//!
//! ```text
//! argv ─▶ invocation (which face: shim, hook, tool)        invocation.rs
//!      ─▶ classify (git argv or hook stdin ─▶ Action)      classify.rs   pure
//!      ─▶ facts (branch, contract, actor ...)              facts.rs      reads the repo
//!      ─▶ decide(&Policy, &Action, &Facts) ─▶ Decision     decide.rs     pure
//!      ─▶ act (deny / switch / checkpoint / run real git)  shim.rs, hooks/, checkpoint/
//!      ─▶ audit (one JSON line)                            audit.rs
//! ```
//!
//! `ARCHITECTURE.md` says which file holds which step and what may import what.

pub mod act;
pub mod action;
pub mod assess;
pub mod audit;
pub mod checkpoint;
pub mod classify;
pub mod cli;
pub mod commands;
pub mod decide;
pub mod env;
pub mod error;
pub mod facts;
pub mod git;
pub mod harness;
pub mod hook_table;
pub mod hooks;
pub mod invocation;
pub mod mcp;
pub mod output;
pub mod patterns;
pub mod policy;
pub mod pretool;
pub mod process;
pub mod shim;
pub mod state_file;
pub mod table;
pub mod team_cache;

/// The parsers the fuzz targets (`fuzz/`) drive that are not public
/// elsewhere: re-exported as they are, for nothing else to use.
#[doc(hidden)]
pub mod fuzzing {
    pub use crate::hooks::message::{is_footer, is_trailer, trailer_block, Message};
    pub use crate::hooks::pre_push::parse_line as pre_push_line;
    pub use crate::hooks::pre_receive::{
        parse_batch as pre_receive_batch, parse_line as pre_receive_line,
    };
    pub use crate::hooks::reference_transaction::parse as reference_transaction_lines;
    pub use crate::mcp::jsonrpc::{
        parse_line as mcp_line, read_line as mcp_read_line, response as mcp_response, Frame,
        Incoming, Line as McpLine,
    };
}
