//! `git ward audit`: query the audit log.

use super::Outcome;
use std::fmt::Write as _;
use std::io::Write;
use std::ops::ControlFlow;
use std::time::SystemTime;
use unicode_width::UnicodeWidthStr;

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
/// log); a failure is one JSON object with its `status` and code. The log
/// is read line by line and filtered as it is read: JSON lines are written
/// as they match, and the table keeps only its rows' cells (its columns
/// are as wide as their widest cell). A reader that goes away
/// (`git ward audit | head`) ends the reading.
pub fn run(args: AuditArgs) -> Outcome {
    let query = match Query::new(&args) {
        Ok(query) => query,
        Err(err) => return Outcome::report(args.json, Err(err)),
    };
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    // A failed write is dropped (`crate::output`): the reading stops there.
    let _ = match args.json {
        true => json_lines(&query, &mut out),
        false => Rows::of(&query).write(&mut out),
    }
    .and_then(|()| out.flush());
    Outcome::Done(Ok(crate::error::exit::OK))
}

/// The log and the filters of a query.
struct Query<'a> {
    args: &'a AuditArgs,
    dir: std::path::PathBuf,
    since: Option<SystemTime>,
}

impl Query<'_> {
    /// Checks the options and finds the log.
    fn new(args: &AuditArgs) -> Result<Query<'_>> {
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
        Ok(Query {
            args,
            dir: audit::dir(repo.common_dir()),
            since,
        })
    }

    /// Does this line pass the filters?
    fn keeps(&self, r: &audit::Record) -> bool {
        let args = self.args;
        args.contract
            .as_ref()
            .is_none_or(|c| r.contract_id.as_ref() == Some(c))
            && args.decision.as_ref().is_none_or(|d| &r.decision == d)
            && args
                .session
                .as_ref()
                .is_none_or(|s| r.session_id.as_ref() == Some(s))
            && self
                .since
                .is_none_or(|s| audit::parse_rfc3339(&r.timestamp).is_some_and(|t| t >= s))
    }

    /// Calls `each` with the lines that pass the filters, oldest first, as
    /// they are read; an error from `each` stops the reading and is returned.
    fn each(
        &self,
        mut each: impl FnMut(audit::Record) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut failed = Ok(());
        audit::each_record(&self.dir, self.since, |r| {
            if !self.keeps(&r) {
                return ControlFlow::Continue(());
            }
            match each(r) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Err(e);
                    ControlFlow::Break(())
                }
            }
        });
        failed
    }
}

/// Writes the matching lines as JSON lines, as they are read.
fn json_lines(query: &Query, out: &mut impl Write) -> std::io::Result<()> {
    let mut line = Vec::with_capacity(1024);
    query.each(|record| {
        line.clear();
        if serde_json::to_writer(&mut line, &record).is_err() {
            line.clear();
        }
        line.push(b'\n');
        out.write_all(&line)
    })
}

/// The table's header.
const HEADER: [&str; 7] = [
    "TIME", "SOURCE", "DECISION", "ACTOR", "CONTRACT", "CODE", "COMMAND",
];

/// The table for people, one line each: the cells of its rows in one
/// text, each cell's end in `ends` (seven a row), and each column's width
/// so far.
struct Rows {
    text: String,
    ends: Vec<usize>,
    widths: [usize; 7],
}

impl Rows {
    /// The rows of the lines that pass the query's filters.
    fn of(query: &Query) -> Rows {
        let mut rows = Rows {
            text: String::new(),
            ends: Vec::new(),
            widths: HEADER.map(|h| h.width()),
        };
        let _ = query.each(|r| {
            rows.push(&r);
            Ok(())
        });
        rows
    }

    /// Adds a line's row: its time, source, decision, actor, contract,
    /// denial code and command (a journal line: the ref and its change).
    fn push(&mut self, r: &audit::Record) {
        self.cell(0, &r.timestamp);
        self.cell(1, &r.source);
        self.cell(2, &r.decision);
        self.cell(3, &r.actor);
        self.cell(4, r.contract_id.as_deref().unwrap_or("-"));
        self.cell(5, r.denial_code.as_deref().unwrap_or("-"));
        let start = self.text.len();
        match &r.refname {
            Some(refname) => {
                let _ = write!(
                    self.text,
                    "{refname} {} -> {}",
                    short(r.old.as_deref()),
                    short(r.new.as_deref())
                );
            }
            None => {
                for (i, arg) in r.argv.iter().enumerate() {
                    if i > 0 {
                        self.text.push(' ');
                    }
                    self.text.push_str(arg);
                }
            }
        }
        self.ended(6, start);
    }

    /// Adds a cell of column `col`.
    fn cell(&mut self, col: usize, text: &str) {
        let start = self.text.len();
        self.text.push_str(text);
        self.ended(col, start);
    }

    /// Ends the cell of column `col` begun at `start` in the text.
    fn ended(&mut self, col: usize, start: usize) {
        self.widths[col] = self.widths[col].max(self.text[start..].width());
        self.ends.push(self.text.len());
    }

    /// Writes the table: nothing when it has no rows, else the header and
    /// the rows.
    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        if self.ends.is_empty() {
            return Ok(());
        }
        let mut line = String::new();
        crate::table::row_line(&mut line, &HEADER, &self.widths, &[]);
        out.write_all(line.as_bytes())?;
        let mut start = 0;
        for ends in self.ends.chunks(7) {
            let mut cells = [""; 7];
            for (cell, &end) in cells.iter_mut().zip(ends) {
                *cell = &self.text[start..end];
                start = end;
            }
            line.clear();
            crate::table::row_line(&mut line, &cells, &self.widths, &[]);
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }
}

/// A commit id cut to 10 characters; a symbolic value (`ref:refs/heads/x`) whole.
fn short(oid: Option<&str>) -> &str {
    match oid {
        None => "-",
        Some(o) if o.starts_with("ref:") => o,
        Some(o) => o.get(..10).unwrap_or(o),
    }
}
