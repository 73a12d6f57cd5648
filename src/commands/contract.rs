//! `git ward contract start|end|show`: the contract of this worktree.

use super::Outcome;
use crate::error::{Error, IoContext, Result};
use crate::facts::{self, ContractSource, Repo};

/// Start, end or show the contract (the task id an agent works on).
#[derive(Debug, clap::Subcommand)]
pub enum ContractCommand {
    /// Make `id` the active contract of this worktree.
    Start {
        id: String,
        /// Replace an active, different contract.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// End the active contract of this worktree.
    End {
        #[arg(long)]
        json: bool,
    },
    /// Show the active contract and where it came from (env or file).
    Show {
        #[arg(long)]
        json: bool,
    },
}

fn repo() -> Result<Repo> {
    Repo::for_tool("run it inside the repository the agent works in")
}

/// Runs `git ward contract ...`.
pub fn run(cmd: ContractCommand) -> Outcome {
    match cmd {
        ContractCommand::Start { id, force, json } => Outcome::report(json, start(&id, force)),
        ContractCommand::End { json } => Outcome::report(json, end()),
        ContractCommand::Show { json } => {
            let result = repo().and_then(|repo| {
                let found = facts::contract(Some(&repo))?;
                Ok(match found {
                    Some((id, source)) => {
                        let from = match source {
                            ContractSource::Env => "env WARD_CONTRACT".to_string(),
                            ContractSource::File(p) => p.display().to_string(),
                        };
                        (
                            serde_json::json!({ "contract": id, "source": from }),
                            format!("{id} (from {from})"),
                        )
                    }
                    None => (
                        serde_json::json!({ "contract": null, "source": null }),
                        "no active contract".to_string(),
                    ),
                })
            });
            Outcome::report(json, result)
        }
    }
}

fn start(id: &str, force: bool) -> Result<(serde_json::Value, String)> {
    if !facts::valid_contract(id) {
        return Err(facts::invalid_contract(id));
    }
    let repo = repo()?;
    let path = repo.contract_file();
    let current = crate::state_file::read_text(&path)
        .ok()
        .map(|s| s.trim().to_string());
    if let Some(cur) = current.as_deref().filter(|c| !c.is_empty() && *c != id) {
        if !force {
            return Err(Error::invalid(
                format!("contract '{cur}' is active in this worktree"),
                format!("end it first (`git ward contract end`) or pass --force to replace it with '{id}'"),
            ));
        }
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).at("create the directory", parent)?;
    }
    std::fs::write(&path, format!("{id}\n")).at("write", &path)?;
    super::log(&repo, "ward.contract.start", Some(id), None);
    Ok((
        serde_json::json!({ "contract": id, "file": path }),
        format!("contract '{id}' started"),
    ))
}

fn end() -> Result<(serde_json::Value, String)> {
    let repo = repo()?;
    let path = repo.contract_file();
    let current = crate::state_file::read_text(&path)
        .ok()
        .map(|s| s.trim().to_string());
    let _ = std::fs::remove_file(&path);
    super::log(&repo, "ward.contract.end", current.as_deref(), None);
    let text = match &current {
        Some(id) => format!("contract '{id}' ended"),
        None => "no contract was active".to_string(),
    };
    Ok((serde_json::json!({ "ended": current }), text))
}
