//! The audit log: one JSON object per line under `<git-common-dir>/ward/audit/`.
//!
//! Written through tracing-appender's *synchronous* rolling file appender
//! (daily files `audit.YYYY-MM-DD.jsonl`, the date in UTC), one `write` of
//! one whole line per record on a file opened with `O_APPEND`, so many
//! processes can append at once without torn or lost lines. A process killed in the
//! middle of a write may still leave a partial last line: the next writer
//! starts on a new line, and readers skip any line that is not a record
//! (an empty one too). A failure to log never blocks git: it is reported
//! once on stderr and swallowed.

use std::fs::File;
use std::io::Write;
use std::ops::ControlFlow;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The value a journal line gives a ref that does not exist (before a
/// creation, after a deletion), as git's reference-transaction hook does.
pub const ZERO_ID: &str = "0000000000000000000000000000000000000000";

/// The values of `decision`, what `--decision` takes.
pub const DECISIONS: [&str; 5] = ["allow", "deny", "autoswitch", "checkpoint", "drift"];

/// The action of a journal line: the ref change (`ref`, `old`, `new`)
/// that a command made, recorded after git made it. Its decision is
/// `allow`; a line recording a check of a ref update (a hook's, in state
/// `prepared`) carries the ref too, but not this action.
pub const JOURNALED: &str = "journal";

/// One audit line.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// When the operation ended (RFC 3339, UTC).
    pub timestamp: String,
    pub started_at: String,
    pub duration_ms: u64,
    pub trace_id: String,
    /// `shim`, a hook name (`reference-transaction`), `tool`, `mcp`.
    pub source: String,
    /// `agent` or `human`.
    pub actor: String,
    pub contract_id: Option<String>,
    /// `git.commit`, `ward.checkpoint`.
    pub operation: String,
    pub argv: Vec<String>,
    /// 0 read-only, 1 state-changing.
    pub tier: u8,
    /// allow, deny, autoswitch, checkpoint ([`DECISIONS`]); `drift` for a
    /// guarded ref found moved with no hook (`ref`, `old`, `new`).
    pub decision: String,
    pub branch_before: Option<String>,
    pub branch_after: Option<String>,
    pub actions_taken: Vec<String>,
    pub denial_code: Option<String>,
    pub exit_code: Option<i32>,
    pub worktree: Option<String>,
    /// The `git ward run` session the command ran in (`WARD_SESSION`).
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none", default)]
    pub refname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub new: Option<String>,
}

impl Record {
    /// A journal line for the change of `refname` from `old` to `new`;
    /// the caller fills in who and when.
    pub fn journal(refname: String, old: String, new: String) -> Record {
        Record {
            tier: 1,
            decision: "allow".into(),
            actions_taken: vec![JOURNALED.into()],
            refname: Some(refname),
            old: Some(old),
            new: Some(new),
            ..Record::default()
        }
    }

    /// Is this a journal line (a ref change a command made)?
    pub fn is_journal(&self) -> bool {
        self.refname.is_some() && self.actions_taken.iter().any(|a| a == JOURNALED)
    }

    /// A line as an older git-ward wrote it, read as one written now: its
    /// journal lines had the decision `journal`.
    fn upgraded(mut self) -> Record {
        if self.decision == JOURNALED {
            self.decision = "allow".into();
            self.actions_taken = vec![JOURNALED.into()];
        }
        self
    }
}

/// The session id in the environment (`git ward run` sets it), when it is
/// one: 1 to 100 characters of `[A-Za-z0-9._-]`.
pub fn session() -> &'static Option<String> {
    static SESSION: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    SESSION.get_or_init(|| {
        crate::env::var(crate::env::WARD_SESSION).filter(|id| {
            id.len() <= 100
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
    })
}

/// The audit directory of a repository.
pub fn dir(common_dir: &Path) -> PathBuf {
    common_dir.join("ward").join("audit")
}

/// Appends records to the log in `dir`. Failures are reported once, never
/// returned: once per command, so a hook under a git that git-ward's shim,
/// tool or MCP server started (`WARD_VIA`) leaves the saying to that face,
/// which writes its own line to the same log when the command ends.
pub fn append(dir: &Path, records: &[Record]) {
    if let Err(e) = try_append(dir, records) {
        if under_a_face(records) {
            return;
        }
        report_once(&format!(
            "ward: warning: cannot write the audit log in {}: {e}",
            dir.display()
        ));
    }
}

/// Records a hook writes while git-ward's shim, tool or MCP server ran
/// the git that runs it.
fn under_a_face(records: &[Record]) -> bool {
    crate::env::var(crate::env::WARD_VIA).is_some()
        && records
            .iter()
            .all(|r| !matches!(r.source.as_str(), "shim" | "tool" | "mcp"))
}

fn try_append(dir: &Path, records: &[Record]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    // The file the appender opens: today's, by UTC date.
    let today = dir.join(format!("audit.{}.jsonl", &rfc3339(SystemTime::now())[..10]));
    let mut after_partial = !settled_line_end(&today)?;
    let mut appender = tracing_appender::rolling::RollingFileAppender::builder()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("audit")
        .filename_suffix("jsonl")
        .build(dir)
        .map_err(std::io::Error::other)?;
    let mut line = Vec::with_capacity(512);
    for record in records {
        if std::mem::take(&mut after_partial) {
            // A writer died in the middle of its line: not glued to it.
            line.push(b'\n');
        }
        match (&record.session_id, session()) {
            (None, Some(id)) => {
                let record = Record {
                    session_id: Some(id.clone()),
                    ..record.clone()
                };
                serde_json::to_writer(&mut line, &record)
            }
            _ => serde_json::to_writer(&mut line, record),
        }
        .map_err(std::io::Error::other)?;
        line.push(b'\n');
        // One write per line: O_APPEND makes it land whole.
        let written = appender.write(&line)?;
        if written != line.len() {
            return Err(std::io::Error::other("short write to the audit log"));
        }
        line.clear();
    }
    appender.flush()
}

/// [`ends_a_line`], asked again for up to about 20 ms while the answer is
/// no: another process's long line may still be landing (a reader can see
/// part of an append in progress), and a newline written before it ends
/// would leave an empty line. Only a line a writer left unfinished (it
/// died) stays so.
fn settled_line_end(path: &Path) -> std::io::Result<bool> {
    settled_within(path, 20)
}

/// [`settled_line_end`] asking up to `tries` times, a millisecond apart.
fn settled_within(path: &Path, tries: u32) -> std::io::Result<bool> {
    for _ in 0..tries {
        if ends_a_line(path)? {
            return Ok(true);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    ends_a_line(path)
}

/// Is the log at `path` missing, empty, or ending in a newline? Four system
/// calls (`stat`, open, a one-byte `pread`, close). Writers that race past
/// a partial line each start a new one, which leaves at worst an empty
/// line. Unreadable: yes. Not a regular file (a FIFO, which an append
/// would wait on forever; a device): an error.
fn ends_a_line(path: &Path) -> std::io::Result<bool> {
    let (file, meta) = match open_regular(path) {
        Ok(Some(opened)) => opened,
        Ok(None) => {
            return Err(std::io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )))
        }
        Err(_) => return Ok(true),
    };
    let mut last = [b'\n'];
    if meta.len() == 0 || file.read_at(&mut last, meta.len() - 1).is_err() {
        return Ok(true);
    }
    Ok(last[0] == b'\n')
}

/// Opens a log file for reading, if it is a regular file (`None`: it is
/// not), without waiting: a FIFO put in its place after the look would
/// wait for a writer, so the open file is looked at again.
fn open_regular(path: &Path) -> std::io::Result<Option<(File, std::fs::Metadata)>> {
    use std::os::unix::fs::OpenOptionsExt;
    if !std::fs::metadata(path)?.is_file() {
        return Ok(None);
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    Ok(meta.is_file().then_some((file, meta)))
}

fn report_once(message: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static REPORTED: AtomicBool = AtomicBool::new(false);
    if !REPORTED.swap(true, Ordering::Relaxed) {
        crate::output::errln!("{message}");
    }
}

/// The log's files in `dir`, oldest first (their names carry the date).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("audit"))
        })
        .collect();
    files.sort();
    files
}

/// The records of one file. A line that is not a record (empty, partial,
/// not UTF-8) is skipped; the lines after it are read.
fn read_file(file: &Path) -> Vec<Record> {
    let mut records = Vec::new();
    let _ = each_in_file(file, &mut |r| {
        records.push(r);
        ControlFlow::Continue(())
    });
    records
}

/// Calls `each` with the records of one file, in order, line by line: only
/// one line is in memory at a time, however long the log. A line that is
/// not a record (empty, partial, not UTF-8) is skipped; the lines after it
/// are read. A file that is not a regular one (a FIFO, `/dev/zero`), or
/// that is gone, has no records; one that fails to read part way ends
/// there. `Break` from `each` stops the reading, and is returned.
fn each_in_file(file: &Path, each: &mut impl FnMut(Record) -> ControlFlow<()>) -> ControlFlow<()> {
    use std::io::BufRead;
    let Ok(Some((file, _))) = open_regular(file) else {
        return ControlFlow::Continue(());
    };
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return ControlFlow::Continue(()),
            Ok(_) => {}
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if let Ok(record) = serde_json::from_slice::<Record>(text) {
            each(record.upgraded())?;
        }
    }
}

/// Calls `each` with every record in `dir` written on or after `since`'s
/// day (UTC; every record without `since`), oldest file first, each file
/// in its order, as they are read: a line is in the file of the day it was
/// written, never before its own timestamp, so older files hold no line
/// from `since` on. `Break` from `each` stops the reading.
pub fn each_record(
    dir: &Path,
    since: Option<SystemTime>,
    mut each: impl FnMut(Record) -> ControlFlow<()>,
) {
    let first = since.map(|since| format!("audit.{}", &rfc3339(since)[..10]));
    for file in files(dir) {
        let old = first.as_deref().is_some_and(|first| {
            file.file_name()
                .is_some_and(|n| n.to_string_lossy().as_ref() < first)
        });
        if !old && each_in_file(&file, &mut each).is_break() {
            return;
        }
    }
}

/// Reads every record in `dir`, oldest file first.
pub fn read_all(dir: &Path) -> Vec<Record> {
    collect(dir, None)
}

/// The records written on or after `since`'s day (UTC), oldest first
/// ([`each_record`]).
pub fn read_since(dir: &Path, since: SystemTime) -> Vec<Record> {
    collect(dir, Some(since))
}

fn collect(dir: &Path, since: Option<SystemTime>) -> Vec<Record> {
    let mut records = Vec::new();
    each_record(dir, since, |r| {
        records.push(r);
        ControlFlow::Continue(())
    });
    records
}

/// The newest records, oldest first: files are read newest first until
/// `enough` says the records so far do, and then one file more (a command
/// running over midnight has lines in two files). A log of many days is
/// not read whole for a question about its last commands. `enough` is
/// asked again only once the records have doubled since it was last
/// asked, so that the asking costs no more than the reading.
pub fn read_newest(dir: &Path, mut enough: impl FnMut(&[&Record]) -> bool) -> Vec<Record> {
    let mut newest_first: Vec<Vec<Record>> = Vec::new();
    let (mut read, mut asked) = (0usize, 0usize);
    let mut one_more = false;
    for file in files(dir).iter().rev() {
        let records = read_file(file);
        read += records.len();
        newest_first.push(records);
        if one_more {
            break;
        }
        if read >= 2 * asked {
            asked = read.max(1);
            let so_far: Vec<&Record> = newest_first.iter().rev().flatten().collect();
            one_more = enough(&so_far);
        }
    }
    newest_first.into_iter().rev().flatten().collect()
}

/// A new trace id: time and pid, unique enough for one machine.
pub fn new_trace_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    format!("{:x}-{:x}", nanos as u64, std::process::id())
}

/// `SystemTime` as RFC 3339 UTC with milliseconds: `2026-11-21T22:55:40.123Z`.
pub fn rfc3339(time: SystemTime) -> String {
    // A time before 1970 or past jiff's range (year 9999) is no record's.
    let ts = jiff::Timestamp::try_from(time).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Parses what [`rfc3339`] writes: an RFC 3339 time in UTC (`Z`), with or
/// without fractions of a second. Anything else a log line may hold is `None`.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    if !text.ends_with('Z') {
        return None;
    }
    let ts: jiff::Timestamp = text.parse().ok()?;
    Some(SystemTime::from(ts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_795_301_740_123);
        let text = rfc3339(t);
        assert_eq!(text, "2026-11-21T22:55:40.123Z");
        assert_eq!(parse_rfc3339(&text), Some(t));
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            parse_rfc3339("2000-02-29T12:00:00Z")
                .map(rfc3339)
                .as_deref(),
            Some("2000-02-29T12:00:00.000Z")
        );
        assert_eq!(parse_rfc3339("garbage"), None);
        assert_eq!(parse_rfc3339("99999999999999999-01-01T00:00:00Z"), None);
    }

    #[test]
    fn records_append_as_json_lines_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let rec = Record {
            operation: "git.commit".into(),
            decision: "deny".into(),
            denial_code: Some("EN-GIT-D-003".into()),
            refname: Some("refs/heads/main".into()),
            ..Record::default()
        };
        append(dir.path(), &[rec.clone(), rec.clone()]);
        let back = read_all(dir.path());
        assert_eq!(back, vec![rec.clone(), rec]);
        let text = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let line = std::fs::read_to_string(text).unwrap();
        assert!(line
            .lines()
            .next()
            .unwrap()
            .contains("\"ref\":\"refs/heads/main\""));
    }

    /// Today's log, with a partial line at its end.
    fn torn_log(dir: &Path) -> PathBuf {
        append(dir, &[Record::default()]);
        let file = std::fs::read_dir(dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut torn = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        torn.write_all(br#"{"timestamp":"2026"#).unwrap();
        file
    }

    #[test]
    fn many_writers_never_tear_or_lose_lines() {
        let dir = tempfile::tempdir().unwrap();
        // All of them may find it partial: at worst an empty line follows.
        torn_log(dir.path());
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let dir = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        let rec = Record {
                            trace_id: format!("{t}-{i}"),
                            argv: vec!["x".repeat(300)],
                            ..Record::default()
                        };
                        append(&dir, &[rec]);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let back = read_all(dir.path());
        assert_eq!(back.len(), 1601);
        let mut ids: Vec<_> = back.iter().map(|r| r.trace_id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 1601);
    }

    #[test]
    fn a_partial_last_line_is_not_glued_to_the_next() {
        let dir = tempfile::tempdir().unwrap();
        let file = torn_log(dir.path());
        let rec = |id: &str| Record {
            trace_id: id.into(),
            ..Record::default()
        };
        append(dir.path(), &[rec("2"), rec("3")]);
        let ids: Vec<String> = read_all(dir.path())
            .into_iter()
            .map(|r| r.trace_id)
            .collect();
        assert_eq!(ids, ["", "2", "3"]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert_eq!(text.lines().nth(1), Some(r#"{"timestamp":"2026"#));
    }

    /// Another process's line still landing is waited for, not broken
    /// off with a newline of ours (which would leave an empty line).
    #[test]
    fn a_line_still_landing_is_waited_for() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, b"{\"half\":").unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(3));
                let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
                f.write_all(b"1}\n").unwrap();
            })
        };
        // A window far longer than the writer's pause, so that a loaded
        // machine that runs the writer late still lands it in the wait.
        assert!(settled_within(&path, 10_000).unwrap());
        writer.join().unwrap();
        std::fs::write(&path, b"{\"dead\":").unwrap();
        assert!(!settled_line_end(&path).unwrap());
    }

    #[test]
    fn lines_that_are_not_records_are_skipped_not_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let rec = Record {
            trace_id: "t".into(),
            ..Record::default()
        };
        let mut text = b"\n\xff\xfe not text\n{\n".to_vec();
        serde_json::to_writer(&mut text, &rec).unwrap();
        text.extend_from_slice(b"\n\n");
        std::fs::write(dir.path().join("audit.2026-01-01.jsonl"), text).unwrap();
        assert_eq!(read_all(dir.path()), vec![rec]);
    }

    /// Three days of log, one record each, named by their day.
    fn three_days(dir: &Path) {
        for day in ["2026-01-01", "2026-01-02", "2026-01-03"] {
            let rec = Record {
                timestamp: format!("{day}T12:00:00.000Z"),
                trace_id: day.into(),
                ..Record::default()
            };
            let mut line = serde_json::to_vec(&rec).unwrap();
            line.push(b'\n');
            std::fs::write(dir.join(format!("audit.{day}.jsonl")), line).unwrap();
        }
    }

    fn ids<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<&'a str> {
        records.into_iter().map(|r| r.trace_id.as_str()).collect()
    }

    #[test]
    fn the_newest_files_are_read_until_enough_and_one_more() {
        let dir = tempfile::tempdir().unwrap();
        three_days(dir.path());
        let mut asked = Vec::new();
        let got = read_newest(dir.path(), |rs| {
            asked.push(ids(rs.iter().copied()).join(","));
            rs.iter().any(|r| r.trace_id == "2026-01-03")
        });
        assert_eq!(asked, ["2026-01-03"]);
        assert_eq!(ids(&got), ["2026-01-02", "2026-01-03"]);
        // Never enough: everything, oldest first, asked as it doubles.
        let mut asked = 0;
        let got = read_newest(dir.path(), |_| {
            asked += 1;
            false
        });
        assert_eq!(ids(&got), ["2026-01-01", "2026-01-02", "2026-01-03"]);
        assert_eq!(asked, 2);
        assert!(read_newest(&dir.path().join("none"), |_| true).is_empty());
    }

    #[test]
    fn lines_since_a_time_come_from_its_day_on() {
        let dir = tempfile::tempdir().unwrap();
        three_days(dir.path());
        let noon_2nd = parse_rfc3339("2026-01-02T18:00:00Z").unwrap();
        assert_eq!(
            ids(&read_since(dir.path(), noon_2nd)),
            ["2026-01-02", "2026-01-03"]
        );
        assert_eq!(ids(&read_since(dir.path(), UNIX_EPOCH)).len(), 3);
    }

    /// Records come as they are read, oldest file first, until `each`
    /// says stop; what is not a regular file (a FIFO a reader would wait
    /// on forever) has none.
    #[test]
    fn records_come_one_by_one_until_stopped() {
        let dir = tempfile::tempdir().unwrap();
        three_days(dir.path());
        let fifo = dir.path().join("audit.2026-01-02.pipe");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs")
            .success());
        let mut seen = Vec::new();
        each_record(dir.path(), None, |r| {
            seen.push(r.trace_id);
            match seen.len() {
                2 => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        });
        assert_eq!(seen, ["2026-01-01", "2026-01-02"]);
        assert_eq!(ids(&read_all(dir.path())).len(), 3);
        assert!(read_file(&dir.path().join("audit.2026-01-09.jsonl")).is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any text, and any numbers in the shape of a timestamp: no panic.
        #[test]
        fn timestamps_from_a_log_line_never_panic(
            text in ".{0,40}",
            n in proptest::collection::vec(proptest::num::i64::ANY, 7),
        ) {
            let _ = parse_rfc3339(&text);
            let shaped = format!(
                "{}-{}-{}T{}:{}:{}.{}Z",
                n[0], n[1], n[2], n[3], n[4], n[5], n[6]
            );
            let _ = parse_rfc3339(&shaped);
        }
    }
}
