//! Integration tests: real git, temp repositories, hermetic environment.
//! One test binary (faster to link); one module per area.

mod audit;
mod checkpoint;
mod checkpoint_content;
mod clean_check;
mod common;
mod context_config;
mod context_hooks;
mod context_knobs;
mod explain;
mod fleets;
mod fleets_many;
mod help;
mod hooks;
mod hooks_footer;
mod hooks_server;
mod mcp;
mod output;
mod policy;
mod pretool;
mod readme;
mod reftable;
mod repo_open;
mod robust;
mod rollback;
mod security_limits;
mod shim;
mod tools;
mod tracking;
mod undo;
mod undo_state;
mod workflow;
mod worktrees;
mod written_files;
