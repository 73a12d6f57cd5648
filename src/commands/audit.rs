//! `git ward audit`: query the audit log.

use super::Outcome;
use std::time::SystemTime;

use crate::audit;
use crate::error::{printable, Error, Result};
use crate::facts::{self, Repo};
use crate::policy::parse_duration;

/// Query the audit log of this repository: a table for people, JSON lines
/// for programs.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Only lines of this contract.
    #[arg(long)]
    pub contract: Option<String>,
    /// Only lines of this `git ward run` session (its id, as `git ward
    /// sessions` and the session's summary show it).
    #[arg(long)]
    pub session: Option<String>,
    /// Only lines with this decision: allow, deny, autoswitch or checkpoint.
    #[arg(long)]
    pub decision: Option<String>,
    /// Only lines newer than this (`90s`, `30m`, `1h`, `2d`).
    #[arg(long)]
    pub since: Option<String>,
    /// Print the matching lines as JSON lines (a failure: one object with its status).
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward audit`. With `--json`, the matching lines as JSON lines,
/// each as the log holds it (a program reads them as it would read the
/// log); a failure is one JSON object with its `status` and code.
pub fn run(args: AuditArgs) -> Outcome {
    match query(&args) {
        Ok(records) if args.json => {
            let lines: String = records
                .iter()
                .map(|record| serde_json::to_string(record).unwrap_or_default() + "\n")
                .collect();
            Outcome::report(false, Ok((serde_json::Value::Null, lines)))
        }
        Ok(records) => Outcome::report(false, Ok((serde_json::Value::Null, table(&records)))),
        Err(err) => Outcome::report(args.json, Err(err)),
    }
}

/// The lines of the log that pass the filters.
fn query(args: &AuditArgs) -> Result<Vec<audit::Record>> {
    let repo = Repo::for_tool("run `git ward audit` inside the repository whose log you want")?;
    if let Some(c) = args.contract.as_deref() {
        if !facts::valid_contract(c) {
            return Err(facts::invalid_contract(c));
        }
    }
    if let Some(d) = args.decision.as_deref() {
        if !audit::DECISIONS.contains(&d) {
            return Err(Error::invalid(
                format!("'{}' is not a decision", printable(d)),
                format!("use one of {}", audit::DECISIONS.join(", ")),
            ));
        }
    }
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
    let dir = audit::dir(repo.common_dir());
    let records = match since {
        Some(since) => audit::read_since(&dir, since),
        None => audit::read_all(&dir),
    };
    let kept: Vec<audit::Record> = records
        .into_iter()
        .filter(|r| {
            args.contract
                .as_ref()
                .is_none_or(|c| r.contract_id.as_ref() == Some(c))
                && args.decision.as_ref().is_none_or(|d| &r.decision == d)
                && args
                    .session
                    .as_ref()
                    .is_none_or(|s| r.session_id.as_ref() == Some(s))
                && since.is_none_or(|s| audit::parse_rfc3339(&r.timestamp).is_some_and(|t| t >= s))
        })
        .collect();
    Ok(kept)
}

/// The lines as a table for people, one line each.
fn table(records: &[audit::Record]) -> String {
    if records.is_empty() {
        return String::new();
    }
    let mut table = crate::table::Table::new(&[
        "TIME", "SOURCE", "DECISION", "ACTOR", "CONTRACT", "CODE", "COMMAND",
    ]);
    for r in records {
        let what = match &r.refname {
            Some(refname) => format!(
                "{refname} {} -> {}",
                short(r.old.as_deref()),
                short(r.new.as_deref())
            ),
            None => r.argv.join(" "),
        };
        table.row(vec![
            r.timestamp.clone(),
            r.source.clone(),
            r.decision.clone(),
            r.actor.clone(),
            r.contract_id.clone().unwrap_or_else(|| "-".into()),
            r.denial_code.clone().unwrap_or_else(|| "-".into()),
            what,
        ]);
    }
    table.render()
}

/// A commit id cut to 10 characters; a symbolic value (`ref:refs/heads/x`) whole.
fn short(oid: Option<&str>) -> &str {
    match oid {
        None => "-",
        Some(o) if o.starts_with("ref:") => o,
        Some(o) => o.get(..10).unwrap_or(o),
    }
}
