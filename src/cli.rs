//! The tool face: `git-ward <command>`, which git also runs as `git ward <command>`.
//!
//! clap derive; each command's doc comment is its help, each lives in its
//! own file with one `run`.

use std::ffi::OsString;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::commands::Outcome;
use crate::error::{exit, Result};

/// Makes git safe for AI coding agents: protected branches, sticky agent
/// branches, checkpoints before destructive commands, undo.
#[derive(Debug, Parser)]
#[command(name = "git-ward", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install git-ward's hooks in this repository (or the shim directory with --shim).
    Install(crate::commands::install::InstallArgs),
    /// Remove git-ward's hooks, restoring every original hook byte for byte.
    Uninstall(crate::commands::install::UninstallArgs),
    /// Print what a git command would do and why, without running it.
    Explain(crate::commands::explain::ExplainArgs),
    /// Show or check the layered policy.
    #[command(subcommand)]
    Policy(crate::commands::policy::PolicyCommand),
    /// Query the audit log.
    Audit(crate::commands::audit::AuditArgs),
    /// Check the installation: binary, shim, hooks, policy, git version.
    Doctor(crate::commands::doctor::DoctorArgs),
    /// Snapshot the working tree (or `checkpoint show <id>`).
    Checkpoint(crate::commands::checkpoint::CheckpointArgs),
    /// List checkpoints.
    Checkpoints(crate::commands::checkpoint::CheckpointsArgs),
    /// Restore the working tree from a checkpoint, after showing the plan.
    Rollback(crate::commands::rollback::RollbackArgs),
    /// Undo the last agent command: its working tree and the refs it moved.
    Undo(crate::commands::undo::UndoArgs),
    /// Run the tests, checkpoint the turn, roll back on pollution.
    Turn(crate::commands::turn::TurnArgs),
    /// Start, end or show the contract of this worktree.
    #[command(subcommand)]
    Contract(crate::commands::contract::ContractCommand),
    /// Create a git-versioned workspace for an agent.
    Init(crate::commands::init::InitArgs),
    /// Stage everything and commit it as one unit of work.
    Save(crate::commands::save::SaveArgs),
    /// Serve git-ward's tools over MCP on stdio.
    Mcp(crate::mcp::McpArgs),
    /// Run a command (an agent) as a guarded session, in its own lane with --worktree.
    Run(crate::commands::run::RunArgs),
    /// List the worktrees with their contract, lease and work.
    Sessions(crate::commands::sessions::SessionsArgs),
    /// Run the whole story in a throwaway repository.
    Demo(crate::commands::demo::DemoArgs),
    /// Guarded refs that moved with git-ward's hooks off: list, restore or accept.
    Drift(crate::commands::drift::DriftArgs),
    /// Print a completion script for bash, zsh or fish.
    Completions(crate::commands::help::CompletionsArgs),
    /// Write the man pages into a directory (what ./install runs).
    #[command(hide = true)]
    Man(crate::commands::help::ManArgs),
    /// Answer an agent harness's pre-tool hook (its JSON on stdin).
    Pretool(crate::commands::pretool::PretoolArgs),
    /// Run a hook (what installed hooks call).
    #[command(hide = true)]
    Hook {
        name: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

/// The tool's command line definition: [`Cli`], with every command that
/// needs a command of its own (`policy`, `contract`) listing them when
/// given none. Parsing, completions and man pages all use it.
pub fn command() -> clap::Command {
    fn groups_list_their_commands(cmd: clap::Command) -> clap::Command {
        let cmd = if cmd.is_subcommand_required_set() {
            cmd.arg_required_else_help(true)
        } else {
            cmd
        };
        cmd.mut_subcommands(groups_list_their_commands)
    }
    groups_list_their_commands(Cli::command())
}

/// Parses the tool's argv and runs the command. Returns the exit code.
pub fn run(argv: Vec<OsString>) -> Result<u8> {
    let json = asks_for_json(&argv);
    let parsed = command()
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // `--help`, `--version`: what was asked for, on stdout.
            let _ = e.print();
            return Ok(exit::OK);
        }
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // `git ward`, `git ward policy`: the commands there are, on
            // stderr with exit 2, as clap and git do.
            let _ = e.print();
            return Ok(exit::INVALID);
        }
        Err(e) => {
            // clap's first paragraph, on one line: what is wrong; its
            // suggestion ("a similar subcommand exists") as the hint; then
            // its usage line.
            let text = e.render().to_string();
            let what: Vec<&str> = text
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .map(str::trim)
                .collect();
            let what = what.join(" ");
            let tips: Vec<&str> = text
                .lines()
                .filter_map(|l| l.trim().strip_prefix("tip: "))
                .collect();
            let hint = if tips.is_empty() {
                "see the command's usage with --help".to_string()
            } else {
                tips.join("; ")
            };
            let err =
                crate::error::Error::invalid(what.strip_prefix("error: ").unwrap_or(&what), hint);
            if json {
                crate::output::outln!("{}", err.to_json());
            } else {
                let usage: Vec<&str> = text
                    .lines()
                    .skip_while(|l| !l.starts_with("Usage:"))
                    .take_while(|l| !l.trim().is_empty())
                    .collect();
                crate::output::errln!("{}", err.render().trim_end());
                if !usage.is_empty() {
                    crate::output::errln!("\n{}", usage.join("\n"));
                }
            }
            return Ok(exit::INVALID);
        }
    };
    print(dispatch(cli.command))
}

/// Runs one command; what it ends with is printed by [`print`].
fn dispatch(command: Command) -> Outcome {
    let done = Outcome::Done;
    match command {
        Command::Install(args) => crate::commands::install::run_install(args),
        Command::Uninstall(args) => crate::commands::install::run_uninstall(args),
        Command::Explain(args) => done(crate::commands::explain::run(args)),
        Command::Policy(cmd) => crate::commands::policy::run(cmd),
        Command::Audit(args) => crate::commands::audit::run(args),
        Command::Doctor(args) => done(crate::commands::doctor::run(args)),
        Command::Checkpoint(args) => crate::commands::checkpoint::run_checkpoint(args),
        Command::Checkpoints(args) => crate::commands::checkpoint::run_list(args),
        Command::Rollback(args) => crate::commands::rollback::run(args),
        Command::Undo(args) => crate::commands::undo::run(args),
        Command::Turn(args) => crate::commands::turn::run(args),
        Command::Contract(cmd) => crate::commands::contract::run(cmd),
        Command::Init(args) => crate::commands::init::run(args),
        Command::Save(args) => crate::commands::save::run(args),
        Command::Mcp(args) => done(crate::mcp::run(args)),
        Command::Demo(args) => done(crate::commands::demo::run(args)),
        Command::Run(args) => crate::commands::run::run(args),
        Command::Drift(args) => crate::commands::drift::run(args),
        Command::Completions(args) => Outcome::Report {
            json: false,
            result: crate::commands::help::completions(args, self::command()),
        },
        Command::Man(args) => Outcome::Report {
            json: false,
            result: crate::commands::help::man(args, self::command()),
        },
        Command::Sessions(args) => crate::commands::sessions::run(args),
        Command::Pretool(args) => {
            let outcome = crate::commands::pretool::run(args);
            crate::output::out!("{}", outcome.stdout);
            done(Ok(outcome.code))
        }
        // A hook that fails refuses the git command that ran it.
        Command::Hook { name, args } => done(match crate::hooks::run(&name, &name, None, &args) {
            Err(err) => {
                crate::output::report_denial(&err);
                Ok(err.exit_code())
            }
            code => code,
        }),
    }
}

/// Does the command line ask for `--json` (before a `--`, after which the
/// words are a git command's)? Then a usage error is answered in JSON too.
fn asks_for_json(argv: &[OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// Prints what a command ended with, and returns the exit code.
fn print(outcome: Outcome) -> Result<u8> {
    match outcome {
        Outcome::Report { json, result } => finish(json, result),
        Outcome::Coded { json, result } => finish_coded(json, result),
        Outcome::Done(code) => code,
        Outcome::Ended { json, result } => ended(json, result),
    }
}

/// Prints a session's summary on stderr (stdout was its command's), and
/// ends as its command did.
fn ended(json: bool, result: Result<crate::commands::Ended>) -> Result<u8> {
    match result {
        Ok(end) => {
            match json {
                true => crate::output::errln!("{}", end.value),
                false => crate::output::errln!("{}", end.text),
            }
            if let Some(sig) = end.signal {
                crate::shim::reraise(sig);
            }
            Ok(end.code)
        }
        Err(err) if json => {
            crate::output::errln!("{}", err.to_json());
            Ok(err.exit_code())
        }
        Err(err) => Err(err),
    }
}

/// Prints a result for `--json` or people, and returns the exit code.
fn finish(json: bool, result: Result<(serde_json::Value, String)>) -> Result<u8> {
    match result {
        Ok((value, text)) => {
            if json {
                let mut value = value;
                if let Some(map) = value.as_object_mut() {
                    map.entry("status").or_insert("S".into());
                }
                crate::output::outln!("{value}");
            } else if !text.is_empty() {
                crate::output::out!("{text}");
                if !text.ends_with('\n') {
                    crate::output::outln!();
                }
            }
            Ok(exit::OK)
        }
        Err(err) if json => {
            crate::output::outln!("{}", err.to_json());
            Ok(err.exit_code())
        }
        Err(err) => Err(err),
    }
}

/// For commands that print their own text and choose their exit code:
/// prints the JSON value (with `--json`) or the error, returns the code.
fn finish_coded(json: bool, result: Result<(serde_json::Value, u8)>) -> Result<u8> {
    match result {
        Ok((mut value, code)) => {
            if json {
                if let Some(map) = value.as_object_mut() {
                    map.entry("status").or_insert(exit::status(code).into());
                }
                crate::output::outln!("{value}");
            }
            Ok(code)
        }
        Err(err) if json => {
            crate::output::outln!("{}", err.to_json());
            Ok(err.exit_code())
        }
        Err(err) => Err(err),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn clap_definition_is_consistent() {
        super::command().debug_assert();
    }
}
