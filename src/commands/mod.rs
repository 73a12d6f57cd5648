//! The tool's commands that are not a face of their own: one file each.

pub mod audit;
pub mod contract;
pub mod demo;
pub mod doctor;
pub mod explain;
pub mod init;
pub mod policy;
pub mod save;
