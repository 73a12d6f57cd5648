//! Integration tests: real git, temp repositories, hermetic environment.
//! One test binary (faster to link); one module per area.

mod common;
mod explain;
mod mcp;
mod shim;
mod workflow;
