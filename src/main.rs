//! git-ward: makes git safe for AI coding agents.
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

mod action;
mod assess;
mod audit;
mod checkpoint;
mod classify;
mod cli;
mod commands;
mod decide;
mod env;
mod error;
mod facts;
mod git;
mod hooks;
mod invocation;
mod mcp;
mod policy;
mod shim;

fn main() -> std::process::ExitCode {
    invocation::main()
}
