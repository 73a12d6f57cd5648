//! The acts several faces share, below the faces: what the shim, the
//! tool's commands and the MCP server carry out the same way once
//! `decide` has answered.

pub mod switch;
