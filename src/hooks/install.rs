//! `git ward install` and `git ward uninstall`.

use crate::error::Result;

/// Arguments of `git ward install`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {}

/// Arguments of `git ward uninstall`.
#[derive(Debug, clap::Args)]
pub struct UninstallArgs {}

/// Runs `git ward install`.
pub fn run_install(_args: InstallArgs) -> Result<u8> {
    Err(crate::cli::unavailable("install"))
}

/// Runs `git ward uninstall`.
pub fn run_uninstall(_args: UninstallArgs) -> Result<u8> {
    Err(crate::cli::unavailable("uninstall"))
}

/// Warnings about this repository's git-ward hooks: installed once, but now
/// missing or overwritten by another hook manager. Empty when all is well
/// or when git-ward was never installed here. Cheap: a few small file reads.
pub fn health(repo: &crate::facts::Repo) -> Vec<String> {
    let _ = repo;
    Vec::new()
}
