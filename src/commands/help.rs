//! `git ward completions <shell>` and `git ward man <dir>`: shell
//! completions and man pages, both generated from the tool's clap
//! definitions, so that they list exactly the commands and options the
//! parser takes.

use std::path::PathBuf;

use serde_json::json;

use crate::error::{Error, IoContext, Result};

/// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
///
/// bash: `git-ward completions bash > ~/.local/share/bash-completion/completions/git-ward`;
/// zsh: `git-ward completions zsh > ~/.zfunc/_git-ward` (with `~/.zfunc` in `fpath`);
/// fish: `git-ward completions fish > ~/.config/fish/completions/git-ward.fish`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: clap_complete::Shell,
}

/// Write man pages (`git-ward.1`, one `git-ward-<command>.1` per command)
/// into a directory: what `./install` runs to put them where `man` and
/// `git ward --help` find them.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// The directory to write the pages into (for example `~/.local/share/man/man1`).
    pub dir: PathBuf,
}

/// The completion script, as text for `cli` to print.
/// `cli` hands in its clap definition (`tool`).
pub fn completions(
    args: CompletionsArgs,
    mut tool: clap::Command,
) -> Result<(serde_json::Value, String)> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut tool, "git-ward", &mut script);
    let script = String::from_utf8(script)
        .map_err(|_| Error::internal("the completion script is not UTF-8"))?;
    Ok((
        json!({ "shell": args.shell.to_string(), "script": script }),
        script,
    ))
}

/// Writes the man pages; says where.
pub fn man(args: ManArgs, tool: clap::Command) -> Result<(serde_json::Value, String)> {
    std::fs::create_dir_all(&args.dir).at("create", &args.dir)?;
    clap_mangen::generate_to(tool, &args.dir).at("write man pages into", &args.dir)?;
    let mut pages: Vec<String> = std::fs::read_dir(&args.dir)
        .at("read", &args.dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("git-ward") && n.ends_with(".1"))
        .collect();
    pages.sort();
    let text = format!("{} man pages in {}\n", pages.len(), args.dir.display());
    Ok((json!({ "dir": args.dir, "pages": pages }), text))
}
