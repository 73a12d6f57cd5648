//! The records of `git status --porcelain=v2 -z`, as a snapshot reads them.
//!
//! Per changed path, git names the modes and ids of the entry in HEAD and
//! in the index, the mode of the file on disk, and what differs (`XY`: the
//! index against HEAD, the working tree against the index). Paths are raw
//! bytes, each record ends in NUL.

/// One record.
#[derive(Debug, PartialEq, Eq)]
pub enum Record<'a> {
    /// `1 XY sub mH mI mW hH hI path`: an ordinary changed entry.
    Changed(Entry<'a>),
    /// `u XY sub m1 m2 m3 mW h1 h2 h3 path`: a conflicted path.
    Unmerged(Unmerged<'a>),
    /// `? path`: an untracked file (a directory git will not enter ends in `/`).
    Untracked(&'a [u8]),
    /// Anything else (`2` renames, `!` ignored files, `#` headers).
    Other,
}

/// An ordinary changed entry.
#[derive(Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The index against HEAD, then the working tree against the index
    /// (`.` for unchanged, `M`, `T`, `A`, `D`).
    pub xy: [u8; 2],
    /// `N...` for a file; `S<c><m><u>` for a submodule (`C`: its commit moved).
    pub sub: &'a str,
    pub mode_index: &'a str,
    pub mode_worktree: &'a str,
    pub id_index: &'a str,
    pub path: &'a [u8],
}

/// A conflicted path: its stages 1 (base), 2 (ours), 3 (theirs); mode
/// `000000` where a stage is absent.
#[derive(Debug, PartialEq, Eq)]
pub struct Unmerged<'a> {
    pub modes: [&'a str; 3],
    pub ids: [&'a str; 3],
    pub path: &'a [u8],
}

/// The mode git writes for an absent entry.
pub const NO_MODE: &str = "000000";

/// Splits `status --porcelain=v2 -z` output into records.
pub fn parse(out: &[u8]) -> Vec<Record<'_>> {
    let mut records = Vec::new();
    let mut fields = out.split(|b| *b == 0).filter(|f| !f.is_empty());
    while let Some(rec) = fields.next() {
        let record = match rec.first() {
            Some(b'1') => changed(rec).map(Record::Changed),
            Some(b'u') => unmerged(rec).map(Record::Unmerged),
            Some(b'?') => rec.get(2..).map(Record::Untracked),
            Some(b'2') => {
                // The original path follows in a field of its own.
                fields.next();
                Some(Record::Other)
            }
            _ => Some(Record::Other),
        };
        records.push(record.unwrap_or(Record::Other));
    }
    records
}

/// The first `n` space-separated words of a record (as text), then the path.
fn words(rec: &[u8], n: usize) -> Option<(Vec<&str>, &[u8])> {
    let mut parts = rec.splitn(n + 1, |b| *b == b' ');
    let mut words = Vec::with_capacity(n);
    for _ in 0..n {
        words.push(std::str::from_utf8(parts.next()?).ok()?);
    }
    Some((words, parts.next()?))
}

fn xy(word: &str) -> Option<[u8; 2]> {
    match word.as_bytes() {
        [x, y] => Some([*x, *y]),
        _ => None,
    }
}

fn changed(rec: &[u8]) -> Option<Entry<'_>> {
    let (w, path) = words(rec, 8)?;
    Some(Entry {
        xy: xy(w[1])?,
        sub: w[2],
        mode_index: w[4],
        mode_worktree: w[5],
        id_index: w[7],
        path,
    })
}

fn unmerged(rec: &[u8]) -> Option<Unmerged<'_>> {
    let (w, path) = words(rec, 10)?;
    Some(Unmerged {
        modes: [w[3], w[4], w[5]],
        ids: [w[7], w[8], w[9]],
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "61780798228d17af2d34fce4cfbdf35556832472";
    const Z: &str = "0000000000000000000000000000000000000000";

    #[test]
    fn reads_every_kind_of_record() {
        let out = format!(
            "1 AM N... 000000 100644 100755 {Z} {A} dir/with space\0\
             u UU N... 100644 100644 100644 100644 {A} {A} {Z} conflicted\0\
             2 R. N... 100644 100644 100644 {A} {A} R100 new\0old\0\
             ? untracked\0? nested/\0"
        );
        let records = parse(out.as_bytes());
        assert_eq!(records.len(), 5);
        assert_eq!(
            records[0],
            Record::Changed(Entry {
                xy: *b"AM",
                sub: "N...",
                mode_index: "100644",
                mode_worktree: "100755",
                id_index: A,
                path: b"dir/with space",
            })
        );
        let Record::Unmerged(u) = &records[1] else {
            panic!("{:?}", records[1]);
        };
        assert_eq!(u.modes, ["100644", "100644", "100644"]);
        assert_eq!(u.ids, [A, A, Z]);
        assert_eq!(u.path, b"conflicted");
        assert_eq!(records[2], Record::Other, "a rename and its old path");
        assert_eq!(records[3], Record::Untracked(b"untracked"));
        assert_eq!(records[4], Record::Untracked(b"nested/"));
    }
}
