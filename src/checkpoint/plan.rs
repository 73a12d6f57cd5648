//! The restoration plan, and the restore that carries it out.
//!
//! The plan compares two trees: the present (a snapshot of the working
//! tree taken with the same recipe as a checkpoint, which is also the
//! safety checkpoint) and the target. `diff-tree` names exactly the paths
//! whose content differs, so only those are written: unchanged files keep
//! their bytes and mtimes. Each file is written in the git dir first and
//! renamed into place ([`write`]), so a killed rollback leaves every file
//! either old or new, never half written. Files not in the present snapshot
//! (ignored ones, untracked ones too large to keep) are never touched; the
//! plan names the files the checkpoint left out for their size, so that
//! one the command deleted is reported lost, not as restored.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use super::Ctx;
use crate::error::{Error, Result};

mod write;

pub use write::apply;
use write::check_leading;

/// What a rollback does to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// Changed since: the checkpoint's content is written back.
    Restore,
    /// Created since (and not ignored): removed.
    Remove,
    /// Deleted since: it comes back.
    Missing,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Restore => "RESTORE",
            Status::Remove => "REMOVE",
            Status::Missing => "MISSING",
        }
    }
}

/// One path of the plan.
#[derive(Clone, Debug, Serialize)]
pub struct Entry {
    pub path: String,
    pub status: Status,
    #[serde(skip)]
    pub raw: Vec<u8>,
    /// Mode and blob in the target (for RESTORE and MISSING).
    #[serde(skip)]
    pub mode: String,
    #[serde(skip)]
    pub blob: String,
    /// The permission bits to write it with, where the checkpoint recorded
    /// them (a file others could not read: [`Plan::keep_modes`]).
    #[serde(skip)]
    pub private: Option<u32>,
    /// `blob` holds the bytes that were on disk, written as they are, not
    /// as a checkout would ([`Plan::keep_bytes`]).
    #[serde(skip)]
    pub as_on_disk: bool,
}

/// Every path that differs, and how many do not.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Plan {
    pub entries: Vec<Entry>,
    pub unchanged: u64,
    /// Listed only when asked (`--verbose`).
    pub unchanged_paths: Vec<String>,
    /// Created since but ignored (allow-listed): left alone.
    pub kept_ignored: Vec<String>,
    /// Not in the checkpoint, and ignored by its `.gitignore` files (not by
    /// the present's): left out as ignored then, so left alone
    /// ([`super::ignored`]).
    pub ignored_there: Vec<String>,
    /// Not in the checkpoint, and inside a nested repository (a directory
    /// with a `.git` of its own), whose files a checkpoint never holds:
    /// another repository's, left alone.
    pub in_nested: Vec<String>,
    /// Files the checkpoint left out for their size: never written.
    pub left_out: Vec<LeftOut>,
    /// Directories others could not read when the checkpoint was taken,
    /// with their permission bits: set again once the files are written.
    #[serde(skip)]
    pub private_dirs: Vec<(u32, Vec<u8>)>,
    /// Paths of the checkpoint's tree or trailers that git would not take
    /// as a path in the working tree ([`super::verify_path`]): never
    /// written, and counted as not restored.
    pub refused: Vec<Failure>,
}

/// A file too large for the checkpoint (`checkpoint.max_file_size`).
#[derive(Clone, Debug, Serialize)]
pub struct LeftOut {
    pub path: String,
    /// Its size then, as the checkpoint names it (`17.0 MiB`).
    pub size: String,
    /// No longer there: nothing can bring it back.
    pub gone: bool,
}

/// The files `skipped` (a checkpoint's `path (size)` items) names, at or
/// under `paths` (all when empty), each looked for in `workdir`.
pub fn left_out(workdir: &Path, skipped: &[String], paths: &[PathBuf]) -> Vec<LeftOut> {
    skipped
        .iter()
        .map(|item| {
            item.strip_suffix(')')
                .and_then(|i| i.rsplit_once(" ("))
                .unwrap_or((item, ""))
        })
        // Named as the trailers hold them: quoted where they must be.
        .map(|(path, size)| (path, super::cquote::unquote_text(path), size))
        .filter(|(_, raw, _)| {
            let raw = Path::new(std::ffi::OsStr::from_bytes(raw));
            paths.is_empty() || paths.iter().any(|p| raw.starts_with(p))
        })
        .map(|(path, raw, size)| LeftOut {
            path: path.to_string(),
            size: size.to_string(),
            gone: std::fs::symlink_metadata(super::in_tree(workdir, &raw)).is_err(),
        })
        .collect()
}

/// How many paths a plan lists one a line before it counts them instead.
pub const SCREEN: usize = 40;

impl Plan {
    pub fn count(&self, status: Status) -> usize {
        self.entries.iter().filter(|e| e.status == status).count()
    }

    /// Files written (RESTORE and MISSING).
    pub fn modifies(&self) -> usize {
        self.count(Status::Restore) + self.count(Status::Missing)
    }

    /// Files removed.
    pub fn removes(&self) -> usize {
        self.count(Status::Remove)
    }

    /// The plan as text, one path a line; UNCHANGED as a count unless
    /// listed. A plan longer than a screen ([`SCREEN`]) is a count per
    /// action instead, unless `verbose` (JSON always has every path).
    pub fn render(&self, verbose: bool) -> String {
        let mut t = String::new();
        if verbose || self.entries.len() <= SCREEN {
            for e in &self.entries {
                t.push_str(&format!("  {:<9} {}\n", e.status.word(), e.path));
            }
        } else {
            for status in [Status::Restore, Status::Missing, Status::Remove] {
                let n = self.count(status);
                if n > 0 {
                    t.push_str(&format!("  {:<9} {n} file{}\n", status.word(), plural(n)));
                }
            }
            t.push_str("  (--verbose lists every path)\n");
        }
        for p in &self.unchanged_paths {
            t.push_str(&format!("  {:<9} {p}\n", "UNCHANGED"));
        }
        if self.unchanged_paths.is_empty() && self.unchanged > 0 {
            t.push_str(&format!(
                "  UNCHANGED {} file{} (--verbose lists them)\n",
                self.unchanged,
                plural(self.unchanged as usize)
            ));
        }
        for p in &self.kept_ignored {
            t.push_str(&format!(
                "  {:<9} {p} (ignored, created since: left alone)\n",
                "KEEP"
            ));
        }
        for p in &self.ignored_there {
            t.push_str(&format!(
                "  {:<9} {p} (ignored where the checkpoint was taken: left alone)\n",
                "KEEP"
            ));
        }
        for p in &self.in_nested {
            t.push_str(&format!(
                "  {:<9} {p} (inside a nested repository: left alone)\n",
                "KEEP"
            ));
        }
        for f in &self.refused {
            t.push_str(&format!(
                "  {:<9} {} ({}): not written\n",
                "REFUSED", f.path, f.reason
            ));
        }
        for f in &self.left_out {
            let (word, fate) = if f.gone {
                ("LOST", "it cannot be brought back")
            } else {
                ("LEFT OUT", "left as it is")
            };
            t.push_str(&format!(
                "  {word:<9} {} ({}): not in the checkpoint (larger than checkpoint.max_file_size); {fate}\n",
                f.path, f.size
            ));
        }
        t
    }

    /// The sentence naming the files the checkpoint left out that are
    /// gone, if there are any.
    pub fn lost(&self) -> Option<String> {
        let gone: Vec<&str> = self
            .left_out
            .iter()
            .filter(|f| f.gone)
            .map(|f| f.path.as_str())
            .collect();
        let verb = if gone.len() == 1 { "was" } else { "were" };
        (!gone.is_empty()).then(|| {
            format!(
                "{} {verb} left out of the checkpoint (larger than checkpoint.max_file_size) and cannot be brought back",
                gone.join(", ")
            )
        })
    }

    /// `This will modify N files and remove M files`.
    pub fn warning(&self) -> String {
        format!(
            "This will modify {} file{} and remove {} file{}",
            self.modifies(),
            plural(self.modifies()),
            self.removes(),
            plural(self.removes())
        )
    }
}

pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Moves the files to remove that `target`'s `.gitignore` files ignore
/// to [`Plan::ignored_there`]. Asked only when a `.gitignore` differs
/// between the two trees, or the plan is limited to paths (and so may not
/// show one that does).
fn leave_ignored_there(ctx: &Ctx, plan: &mut Plan, target: &str, limited: bool) -> Result<()> {
    let rules_differ = plan
        .entries
        .iter()
        .any(|e| e.path == ".gitignore" || e.path.ends_with("/.gitignore"));
    let removed: Vec<&[u8]> = plan
        .entries
        .iter()
        .filter(|e| e.status == Status::Remove)
        .map(|e| e.raw.as_slice())
        .collect();
    if removed.is_empty() || !(rules_differ || limited) {
        return Ok(());
    }
    let tmp_dir = ctx.git_dir.join("ward").join("tmp");
    let there = super::ignored::by_tree(ctx, &tmp_dir, target, &removed)?;
    if there.is_empty() {
        return Ok(());
    }
    let (left, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut plan.entries)
        .into_iter()
        .partition(|e| e.status == Status::Remove && there.contains(&e.raw));
    plan.entries = kept;
    plan.ignored_there = left.into_iter().map(|e| e.path).collect();
    Ok(())
}

/// Moves the files to remove that stand inside a nested repository to
/// [`Plan::in_nested`]: a directory below the top with a `.git` of its own
/// (a superproject that tracks paths in it sees its files as its own
/// untracked ones).
fn leave_nested(workdir: &Path, plan: &mut Plan) {
    let mut nested: std::collections::HashMap<Vec<u8>, bool> = Default::default();
    let mut is_nested = |dir: &[u8]| {
        *nested.entry(dir.to_vec()).or_insert_with(|| {
            let git = [dir, b"/.git"].concat();
            std::fs::symlink_metadata(super::in_tree(workdir, &git)).is_ok()
        })
    };
    let inside = |raw: &[u8], is_nested: &mut dyn FnMut(&[u8]) -> bool| {
        let mut end = raw.len();
        while let Some(slash) = raw[..end].iter().rposition(|b| *b == b'/') {
            if is_nested(&raw[..slash]) {
                return true;
            }
            end = slash;
        }
        false
    };
    let (left, kept): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut plan.entries)
        .into_iter()
        .partition(|e| e.status == Status::Remove && inside(&e.raw, &mut is_nested));
    plan.entries = kept;
    plan.in_nested = left.into_iter().map(|e| e.path).collect();
}

/// Computes the plan from `present` to `target` (trees). `paths` limits it
/// (worktree-relative; empty for everything). `ignored` lists the
/// allow-listed ignored files of the present snapshot, never removed.
/// `target_files` is the number of files in the target tree, when known.
pub fn compute(
    ctx: &Ctx,
    present: &str,
    target: &str,
    paths: &[PathBuf],
    ignored: &[String],
    target_files: Option<u64>,
    verbose: bool,
) -> Result<Plan> {
    let mut args: Vec<&OsStr> = [
        "--literal-pathspecs",
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        present,
        target,
        "--",
    ]
    .map(OsStr::new)
    .to_vec();
    args.extend(paths.iter().map(|p| p.as_os_str()));
    let out = ctx.git.output(&args)?;
    if !out.status.success() {
        return Err(Error::internal(format!(
            "git diff-tree failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let ignored: HashSet<&str> = ignored.iter().map(String::as_str).collect();
    let mut plan = Plan::default();
    let mut fields = out.stdout.split(|b| *b == 0);
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let Some(raw) = fields.next() else { break };
        // ":<mode1> <mode2> <sha1> <sha2> <status>"
        let meta = String::from_utf8_lossy(meta);
        let mut f = meta.trim_start_matches(':').split(' ');
        let (_m1, m2, _s1, s2, st) = (
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
        );
        let path = String::from_utf8_lossy(raw).into_owned();
        if let Some(why) = super::verify_path::refusal(raw) {
            plan.refused.push(Failure {
                path,
                reason: format!("the checkpoint holds {why}"),
            });
            continue;
        }
        let status = match st {
            "A" => Status::Missing,
            "D" if ignored.contains(path.as_str()) => {
                plan.kept_ignored.push(path);
                continue;
            }
            "D" => Status::Remove,
            _ => Status::Restore,
        };
        plan.entries.push(Entry {
            path,
            status,
            raw: raw.to_vec(),
            mode: m2.to_string(),
            blob: s2.to_string(),
            private: None,
            as_on_disk: false,
        });
    }
    leave_ignored_there(ctx, &mut plan, target, !paths.is_empty())?;
    leave_nested(&ctx.workdir, &mut plan);
    let changed_in_target = (plan.modifies()) as u64;
    if verbose || !paths.is_empty() || target_files.is_none() {
        let mut args: Vec<&OsStr> = [
            "--literal-pathspecs",
            "ls-tree",
            "-r",
            "-z",
            "--name-only",
            "--full-tree",
            target,
            "--",
        ]
        .map(OsStr::new)
        .to_vec();
        args.extend(paths.iter().map(|p| p.as_os_str()));
        let out = ctx.git.run(&args)?;
        let changed: HashSet<&str> = plan.entries.iter().map(|e| e.path.as_str()).collect();
        let same: Vec<String> = out
            .split('\0')
            .filter(|p| !p.is_empty() && !changed.contains(p))
            .map(str::to_string)
            .collect();
        plan.unchanged = same.len() as u64;
        if verbose {
            plan.unchanged_paths = same;
        }
    } else {
        plan.unchanged = target_files.unwrap_or(0).saturating_sub(changed_in_target);
    }
    Ok(plan)
}

/// A path that could not be restored, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub path: String,
    pub reason: String,
}

impl Plan {
    /// Takes the permission bits a checkpoint recorded ([`Checkpoint::modes`]):
    /// its files are written with them, its directories set to them.
    /// A `Ward-Mode` path git would not take is refused, never set.
    /// Writes the files whose bytes on disk the checkpoint kept besides
    /// its tree ([`super::bytes`]) as those bytes.
    pub fn keep_bytes(&mut self, kept: &std::collections::HashMap<Vec<u8>, String>) {
        for e in &mut self.entries {
            let writes = matches!(e.status, Status::Restore | Status::Missing);
            if let Some(blob) = kept.get(&e.raw).filter(|_| writes) {
                e.blob = blob.clone();
                e.as_on_disk = true;
            }
        }
    }

    pub fn keep_modes(&mut self, modes: &[(u32, Vec<u8>)]) {
        let (modes, bad): (Vec<_>, Vec<_>) = modes
            .iter()
            .cloned()
            .partition(|(_, p)| super::verify_path::refusal(p).is_none());
        for (_, p) in bad {
            let why = super::verify_path::refusal(&p).unwrap_or_default();
            self.refused.push(Failure {
                path: String::from_utf8_lossy(&p).into_owned(),
                reason: format!("its Ward-Mode trailer names {why}"),
            });
        }
        let files: std::collections::HashMap<&[u8], u32> =
            modes.iter().map(|(m, p)| (p.as_slice(), *m)).collect();
        for e in &mut self.entries {
            e.private = files.get(e.raw.as_slice()).copied();
        }
        let written: HashSet<&[u8]> = self.entries.iter().map(|e| e.raw.as_slice()).collect();
        self.private_dirs = modes
            .iter()
            .filter(|(_, p)| !written.contains(p.as_slice()))
            .cloned()
            .collect();
    }
}

/// Resolves `--files` arguments to worktree-relative paths. Anything
/// outside the working tree (through `..`, an absolute path, or a
/// symlinked directory) is refused before anything changes. An empty
/// result means the whole tree.
pub fn resolve_paths(workdir: &Path, cwd: &Path, args: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for arg in args {
        let refuse = |why: &str| {
            Error::invalid(
                format!("refusing path '{}': {why}", arg.display()),
                "name files inside the working tree, without symlinked directories on the way",
            )
        };
        if arg.as_os_str().is_empty() {
            // Most often an unset shell variable: it must not mean "all".
            return Err(Error::invalid(
                "refusing an empty path",
                "name files inside the working tree; `.` names all of it",
            ));
        }
        let p = arg.as_path();
        let abs = if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        };
        let lexical = normalize(&abs).ok_or_else(|| refuse("it leaves the filesystem root"))?;
        let rel = lexical
            .strip_prefix(workdir)
            .map_err(|_| refuse("it is outside the working tree"))?
            .to_path_buf();
        if rel
            .components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".git")
        {
            return Err(refuse("it is inside the git directory"));
        }
        // `..` after a symlink goes where the link points, not back up: the
        // real path of what exists must be the lexical one.
        if real_path(&abs, p).is_some_and(|real| real != lexical) {
            return Err(refuse("it goes through a symlinked directory"));
        }
        check_leading(workdir, rel.as_os_str().as_bytes())
            .map_err(|_| refuse("it goes through a symlinked directory"))?;
        if rel.as_os_str().is_empty() {
            return Ok(Vec::new());
        }
        out.push(rel);
    }
    Ok(out)
}

/// The real path of `abs` as far as it exists (its last component is not
/// followed, unless it is `.` or `..`), with the rest appended.
fn real_path(abs: &Path, arg: &Path) -> Option<PathBuf> {
    let dots = matches!(
        arg.components().next_back(),
        Some(Component::ParentDir | Component::CurDir)
    );
    let (mut probe, tail) = if dots {
        (abs.to_path_buf(), None)
    } else {
        (
            abs.parent()?.to_path_buf(),
            abs.file_name().map(|n| n.to_os_string()),
        )
    };
    let mut rest = Vec::new();
    let real = loop {
        if let Ok(real) = std::fs::canonicalize(&probe) {
            break real;
        }
        rest.push(probe.file_name()?.to_os_string());
        probe.pop();
    };
    let mut full = real;
    for r in rest.iter().rev() {
        full.push(r);
    }
    if let Some(t) = tail {
        full.push(t);
    }
    normalize(&full)
}

/// Resolves `.` and `..` without touching the filesystem; `None` above the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_worktree_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let wt = root.join("wt");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::os::unix::fs::symlink(root.join("outside"), wt.join("link")).unwrap();
        let ok = |a: &str| resolve_paths(&wt, &wt.join("src"), &[a.into()]);
        assert_eq!(ok("a.rs").unwrap(), vec![PathBuf::from("src/a.rs")]);
        assert_eq!(ok("../README").unwrap(), vec![PathBuf::from("README")]);
        assert_eq!(
            ok(wt.join("x").to_str().unwrap()).unwrap(),
            vec![PathBuf::from("x")]
        );
        let latin1 = resolve_paths(&wt, &wt, &[OsStr::from_bytes(b"r\xe9sum\xe9").into()]);
        assert_eq!(latin1.unwrap()[0].as_os_str().as_bytes(), b"r\xe9sum\xe9");
        assert!(ok("..").unwrap().is_empty(), "the top means everything");
        for bad in [
            "../../x",
            "/etc/passwd",
            "../link/x",
            "../link/../../x",
            "../.git/config",
        ] {
            assert!(ok(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_empty_path_is_refused_not_taken_for_the_whole_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let wt = std::fs::canonicalize(tmp.path()).unwrap();
        let err = resolve_paths(&wt, &wt, &["a".into(), PathBuf::new()]).unwrap_err();
        assert!(err.message.contains("empty path"), "{}", err.message);
        assert!(resolve_paths(&wt, &wt, &[".".into()]).unwrap().is_empty());
    }

    #[test]
    fn left_out_files_are_read_from_the_checkpoint_and_looked_for() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("dir")).unwrap();
        std::fs::write(tmp.path().join("dir/here.bin"), "x").unwrap();
        let skipped = [
            "a (1).bin (2.0 KiB)".to_string(),
            "dir/here.bin (3.0 MiB)".to_string(),
            "dirt.bin (1.0 MiB)".to_string(),
        ];
        let all = left_out(tmp.path(), &skipped, &[]);
        let seen: Vec<(&str, &str, bool)> = all
            .iter()
            .map(|f| (f.path.as_str(), f.size.as_str(), f.gone))
            .collect();
        assert_eq!(
            seen,
            [
                ("a (1).bin", "2.0 KiB", true),
                ("dir/here.bin", "3.0 MiB", false),
                ("dirt.bin", "1.0 MiB", true)
            ]
        );
        let under = left_out(tmp.path(), &skipped, &["dir".into()]);
        assert_eq!(under.len(), 1);
        let plan = Plan {
            left_out: all,
            ..Plan::default()
        };
        assert_eq!(
            plan.lost().as_deref(),
            Some("a (1).bin, dirt.bin were left out of the checkpoint (larger than checkpoint.max_file_size) and cannot be brought back")
        );
        assert!(plan
            .render(false)
            .contains("  LEFT OUT  dir/here.bin (3.0 MiB): "));
    }
}

#[cfg(test)]
mod screen {
    use super::{Entry, Plan, Status, SCREEN};

    #[test]
    fn a_plan_longer_than_a_screen_is_counted_unless_verbose() {
        let entry = |i: usize, status| Entry {
            path: format!("f{i}"),
            raw: format!("f{i}").into_bytes(),
            status,
            mode: String::new(),
            blob: String::new(),
            private: None,
            as_on_disk: false,
        };
        let mut plan = Plan {
            entries: (0..SCREEN + 5).map(|i| entry(i, Status::Restore)).collect(),
            ..Plan::default()
        };
        plan.entries.push(entry(99, Status::Remove));
        let short = plan.render(false);
        assert!(short.contains("  RESTORE   45 files\n"), "{short}");
        assert!(short.contains("  REMOVE    1 file\n"), "{short}");
        assert!(!short.contains("f99"), "{short}");
        assert!(plan.render(true).contains("  REMOVE    f99\n"));
        plan.entries.truncate(3);
        assert!(plan.render(false).contains("  RESTORE   f2\n"));
    }
}
