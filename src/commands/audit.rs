//! `git ward audit`: query the audit log.

use std::time::SystemTime;

use crate::audit;
use crate::error::{exit, Error, Result};
use crate::facts::Repo;
use crate::policy::parse_duration;

/// Query the audit log of this repository: a table for people, JSON lines for programs.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Only lines of this contract.
    #[arg(long)]
    pub contract: Option<String>,
    /// Only lines with this decision (allow, deny, autoswitch, checkpoint, journal).
    #[arg(long)]
    pub decision: Option<String>,
    /// Only lines newer than this (`90s`, `30m`, `1h`, `2d`).
    #[arg(long)]
    pub since: Option<String>,
    /// Print JSON lines.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward audit`.
pub fn run(args: AuditArgs) -> Result<u8> {
    let repo = Repo::discover().ok_or_else(|| {
        Error::invalid(
            "not in a git repository",
            "run `git ward audit` inside the repository whose log you want",
        )
    })?;
    let since = match &args.since {
        Some(text) => {
            let d = parse_duration(text).ok_or_else(|| {
                Error::invalid(
                    format!("'{text}' is not a duration"),
                    "use a number with s, m, h or d: `--since 1h`",
                )
            })?;
            // Longer ago than the clock reaches: every line is newer.
            SystemTime::now().checked_sub(d)
        }
        None => None,
    };
    let records = audit::read_all(&audit::dir(repo.common_dir()));
    let kept = records.into_iter().filter(|r| {
        args.contract
            .as_ref()
            .is_none_or(|c| r.contract_id.as_ref() == Some(c))
            && args.decision.as_ref().is_none_or(|d| &r.decision == d)
            && since.is_none_or(|s| audit::parse_rfc3339(&r.timestamp).is_some_and(|t| t >= s))
    });
    let mut out = String::new();
    for r in kept {
        if args.json {
            out.push_str(&serde_json::to_string(&r).unwrap_or_default());
        } else {
            let what = match &r.refname {
                Some(refname) => format!(
                    "{refname} {} -> {}",
                    short(r.old.as_deref()),
                    short(r.new.as_deref())
                ),
                None => r.argv.join(" "),
            };
            out.push_str(&format!(
                "{}  {:<22} {:<10} {:<6} {:<12} {:<14} {}",
                r.timestamp,
                r.source,
                r.decision,
                r.actor,
                r.contract_id.as_deref().unwrap_or("-"),
                r.denial_code.as_deref().unwrap_or("-"),
                what
            ));
        }
        out.push('\n');
    }
    crate::output::out!("{out}");
    Ok(exit::OK)
}

fn short(oid: Option<&str>) -> &str {
    oid.map_or("-", |o| o.get(..10).unwrap_or(o))
}
