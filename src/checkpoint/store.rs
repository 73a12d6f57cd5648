//! Where checkpoints live: ids, trailers, listing and retention.
//!
//! Each checkpoint is a ref `refs/ward/checkpoints/<id>` in the common git
//! dir, so ids are unique across the worktrees of a repository: a new id
//! is claimed with `update-ref <ref> <commit> ""`, which fails if another
//! process took it first. Commits the checkpoint must keep reachable
//! (dropped stashes, a deleted branch's tip) get refs under
//! `refs/ward/kept/<id>/`.
//!
//! The trailers, in the order [`Checkpoint::message`] writes them, each
//! `Ward-<key>: <value>` on one line: `Id`, `Type`, `Created`, `Branch`,
//! `Head`, `Contract`, `Turn`, `Tests`, `Trace`, `Worktree` (the git dir),
//! `Workdir` (the top of the working tree), `Command`, `Pinned`, `Index`
//! (the staged tree), `Files` (the counts), then one line per item:
//! `Skipped`, `Conflicted` (a path), `Stash` (`<commit> <message>`, newest
//! first), `Ref` (`<name> <commit>`), `Merge-Head` (a commit `MERGE_HEAD`
//! named), `Merge-State` (the commit holding a merge in progress, see
//! [`super::merge`]), `Mode` (`<octal bits> <path>`, an untracked file
//! or directory others may not read), `Skip-Worktree`, `Intent-To-Add`
//! and `Assume-Unchanged` (a path whose index entry has that mark). Paths
//! in `Mode` and the marks are in git's C-style quoting when
//! they need it ([`super::cquote`]), so every name comes back exact.

use std::path::Path;

use serde::Serialize;

use super::cquote::{quote_text, unquote_text};
use super::Ctx;
use crate::error::{Error, Result};

/// The namespace of checkpoint refs.
pub const PREFIX: &str = "refs/ward/checkpoints/";
/// Refs that keep a checkpoint's extra commits reachable.
pub const KEPT: &str = "refs/ward/kept/";

/// Why a checkpoint was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Manual,
    PreDestructive,
    PreRollback,
    Turn,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Manual => "manual",
            Kind::PreDestructive => "pre-destructive",
            Kind::PreRollback => "pre-rollback",
            Kind::Turn => "turn",
        }
    }

    fn parse(text: &str) -> Kind {
        match text {
            "pre-destructive" => Kind::PreDestructive,
            "pre-rollback" => Kind::PreRollback,
            "turn" => Kind::Turn,
            _ => Kind::Manual,
        }
    }
}

/// File counts of a checkpoint's tree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Paths in the tree.
    pub files: u64,
    /// Untracked (not ignored) files included.
    pub untracked: u64,
    /// Allow-listed ignored files included.
    pub ignored: u64,
    /// Untracked files left out for their size.
    pub skipped: u64,
}

/// One checkpoint, as read back from its commit.
#[derive(Clone, Debug, Serialize)]
pub struct Checkpoint {
    pub id: String,
    pub commit: String,
    /// The working tree's tree.
    pub tree: String,
    /// The staged tree (the index).
    pub index_tree: Option<String>,
    pub created: String,
    #[serde(rename = "type")]
    pub kind: Kind,
    pub description: String,
    pub branch: Option<String>,
    pub head: Option<String>,
    pub contract: Option<String>,
    pub turn: Option<u32>,
    pub tests: Option<String>,
    pub trace_id: Option<String>,
    pub worktree: Option<String>,
    /// The top of the working tree it was taken of.
    pub workdir: Option<String>,
    pub command: Option<String>,
    pub pinned: bool,
    pub counts: Counts,
    /// Untracked files left out for their size.
    pub skipped: Vec<String>,
    /// Paths whose staged state was a conflict (the `ours` side was kept).
    pub conflicted: Vec<String>,
    /// Stash commits at the time, newest first: (commit, message).
    pub stashes: Vec<(String, String)>,
    /// Refs the command named, with their values then.
    pub refs: Vec<(String, String)>,
    /// The commits a merge in progress was merging (`MERGE_HEAD`).
    pub merge_heads: Vec<String>,
    /// The commit recording that merge (see [`super::merge`]).
    pub merge_state: Option<String>,
    /// Untracked files and directories that others may not read, with
    /// their permission bits: restored with them, not as a checkout would
    /// make them (a `.env` of mode 600 must not come back 644).
    #[serde(serialize_with = "modes_as_text")]
    pub modes: Vec<(u32, Vec<u8>)>,
    /// Index entries marked skip-worktree whose files the checkpoint took
    /// from disk: marked again when its index is restored.
    #[serde(serialize_with = "paths_as_text")]
    pub skip_worktree: Vec<Vec<u8>>,
    /// Index entries added with `--intent-to-add`, which no staged tree
    /// holds: added so again when its index is restored.
    #[serde(serialize_with = "paths_as_text")]
    pub intent_to_add: Vec<Vec<u8>>,
    /// Index entries marked assume-unchanged (a local edit kept out of
    /// commits): marked again when its index is restored.
    #[serde(serialize_with = "paths_as_text")]
    pub assume_unchanged: Vec<Vec<u8>>,
}

/// Paths in JSON, as text (bytes that are not UTF-8 shown as U+FFFD).
fn paths_as_text<S: serde::Serializer>(
    paths: &[Vec<u8>],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(paths.iter().map(|p| String::from_utf8_lossy(p)))
}

/// [`Checkpoint::modes`] in JSON: `[bits, path]` pairs, the path as text.
fn modes_as_text<S: serde::Serializer>(
    modes: &[(u32, Vec<u8>)],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.collect_seq(modes.iter().map(|(m, p)| (m, String::from_utf8_lossy(p))))
}

impl Checkpoint {
    /// The commit message: the description, a blank line, the trailers.
    pub fn message(&self) -> String {
        let mut m = format!("{}\n\n", one_line(&self.description));
        let mut t = |k: &str, v: &str| m.push_str(&format!("Ward-{k}: {}\n", one_line(v)));
        t("Id", &self.id);
        t("Type", self.kind.as_str());
        t("Created", &self.created);
        if let Some(b) = &self.branch {
            t("Branch", b);
        }
        if let Some(h) = &self.head {
            t("Head", h);
        }
        if let Some(c) = &self.contract {
            t("Contract", c);
        }
        if let Some(n) = self.turn {
            t("Turn", &n.to_string());
        }
        if let Some(s) = &self.tests {
            t("Tests", s);
        }
        if let Some(tr) = &self.trace_id {
            t("Trace", tr);
        }
        if let Some(w) = &self.worktree {
            t("Worktree", w);
        }
        if let Some(w) = &self.workdir {
            t("Workdir", w);
        }
        if let Some(c) = &self.command {
            t("Command", c);
        }
        if self.pinned {
            t("Pinned", "true");
        }
        if let Some(i) = &self.index_tree {
            t("Index", i);
        }
        let c = &self.counts;
        t(
            "Files",
            &format!(
                "files={} untracked={} ignored={} skipped={}",
                c.files, c.untracked, c.ignored, c.skipped
            ),
        );
        for p in &self.skipped {
            t("Skipped", p);
        }
        for p in &self.conflicted {
            t("Conflicted", p);
        }
        for (sha, msg) in &self.stashes {
            t("Stash", &format!("{sha} {msg}"));
        }
        for (name, sha) in &self.refs {
            t("Ref", &format!("{name} {sha}"));
        }
        for h in &self.merge_heads {
            t("Merge-Head", h);
        }
        if let Some(s) = &self.merge_state {
            t("Merge-State", s);
        }
        for (mode, path) in &self.modes {
            t("Mode", &format!("{mode:o} {}", quote_text(path)));
        }
        for path in &self.skip_worktree {
            t("Skip-Worktree", &quote_text(path));
        }
        for path in &self.intent_to_add {
            t("Intent-To-Add", &quote_text(path));
        }
        for path in &self.assume_unchanged {
            t("Assume-Unchanged", &quote_text(path));
        }
        m
    }

    /// Reads a checkpoint back from its commit's message. The trailers
    /// follow the first blank line; without one the description was empty
    /// (git drops a message's leading blank lines), and all are trailers.
    pub fn parse(commit: &str, tree: &str, message: &str) -> Option<Checkpoint> {
        let message = message.trim_end_matches('\n');
        let (description, trailers) = match message.split_once("\n\n") {
            Some((first, rest)) => (first.lines().next().unwrap_or(""), rest),
            None => ("", message),
        };
        let mut cp = Checkpoint::new(String::new(), Kind::Manual, description.to_string());
        cp.commit = commit.to_string();
        cp.tree = tree.to_string();
        for line in trailers.lines() {
            let Some((key, value)) = line.strip_prefix("Ward-").and_then(|l| l.split_once(": "))
            else {
                continue;
            };
            let v = value.to_string();
            match key {
                "Id" => cp.id = v,
                "Type" => cp.kind = Kind::parse(value),
                "Created" => cp.created = v,
                "Branch" => cp.branch = Some(v),
                "Head" => cp.head = Some(v),
                "Contract" => cp.contract = Some(v),
                "Turn" => cp.turn = value.parse().ok(),
                "Tests" => cp.tests = Some(v),
                "Trace" => cp.trace_id = Some(v),
                "Worktree" => cp.worktree = Some(v),
                "Workdir" => cp.workdir = Some(v),
                "Command" => cp.command = Some(v),
                "Pinned" => cp.pinned = value == "true",
                "Index" => cp.index_tree = Some(v),
                "Files" => cp.counts = parse_counts(value),
                "Skipped" => cp.skipped.push(v),
                "Conflicted" => cp.conflicted.push(v),
                "Stash" => {
                    let (sha, msg) = value.split_once(' ').unwrap_or((value, ""));
                    cp.stashes.push((sha.to_string(), msg.to_string()));
                }
                "Merge-Head" => cp.merge_heads.push(v),
                "Merge-State" => cp.merge_state = Some(v),
                "Skip-Worktree" => cp.skip_worktree.push(unquote_text(value)),
                "Intent-To-Add" => cp.intent_to_add.push(unquote_text(value)),
                "Assume-Unchanged" => cp.assume_unchanged.push(unquote_text(value)),
                "Mode" => {
                    let parsed = value
                        .split_once(' ')
                        .and_then(|(m, path)| Some((u32::from_str_radix(m, 8).ok()?, path)));
                    if let Some((mode, path)) = parsed {
                        // Permission bits only: never set-user-id,
                        // set-group-id or sticky, whatever a trailer says.
                        cp.modes.push((mode & 0o777, unquote_text(path)));
                    }
                }
                "Ref" => {
                    if let Some((name, sha)) = value.split_once(' ') {
                        cp.refs.push((name.to_string(), sha.to_string()));
                    }
                }
                _ => {}
            }
        }
        (!cp.id.is_empty()).then_some(cp)
    }

    /// A blank checkpoint of this kind.
    pub fn new(id: String, kind: Kind, description: String) -> Checkpoint {
        Checkpoint {
            id,
            commit: String::new(),
            tree: String::new(),
            index_tree: None,
            created: String::new(),
            kind,
            description,
            branch: None,
            head: None,
            contract: None,
            turn: None,
            tests: None,
            trace_id: None,
            worktree: None,
            workdir: None,
            command: None,
            pinned: false,
            counts: Counts::default(),
            skipped: Vec::new(),
            skip_worktree: Vec::new(),
            intent_to_add: Vec::new(),
            assume_unchanged: Vec::new(),
            conflicted: Vec::new(),
            stashes: Vec::new(),
            refs: Vec::new(),
            merge_heads: Vec::new(),
            merge_state: None,
            modes: Vec::new(),
        }
    }

    /// The sequence number in the id (`chk-local-7` is 7).
    pub fn number(&self) -> u64 {
        id_number(&self.id).unwrap_or(0)
    }

    /// The JSON of `git ward checkpoints --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

fn parse_counts(text: &str) -> Counts {
    let mut c = Counts::default();
    for part in text.split_whitespace() {
        let Some((k, v)) = part.split_once('=') else {
            continue;
        };
        let v = v.parse().unwrap_or(0);
        match k {
            "files" => c.files = v,
            "untracked" => c.untracked = v,
            "ignored" => c.ignored = v,
            "skipped" => c.skipped = v,
            _ => {}
        }
    }
    c
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// The id prefix for a contract: `chk-<contract>-` or `chk-local-`.
pub fn id_prefix(contract: Option<&str>) -> String {
    format!("chk-{}-", contract.unwrap_or("local"))
}

/// The number at the end of an id, if it is one of ours.
pub fn id_number(id: &str) -> Option<u64> {
    let rest = id.strip_prefix("chk-")?;
    let (_, n) = rest.rsplit_once('-')?;
    n.parse().ok()
}

/// Is `id` shaped like a checkpoint id (so it can be put in a ref name)?
/// Every id git-ward makes is: `chk-`, `local` or a valid contract id (up
/// to 100 characters), `-`, a number.
pub fn valid_id(id: &str) -> bool {
    let Some((contract, n)) = id.strip_prefix("chk-").and_then(|r| r.rsplit_once('-')) else {
        return false;
    };
    crate::facts::valid_contract(contract)
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
        && n.parse::<u64>().is_ok()
}

/// The error for an id that names no checkpoint.
pub fn unknown_id(id: &str) -> Error {
    Error::invalid(
        format!("no checkpoint '{id}'"),
        "list them with `git ward checkpoints`",
    )
}

/// The names (ids) of all checkpoint refs, read in-process.
pub fn ids(ctx: &Ctx) -> Vec<String> {
    let names = ctx.repo.ref_names(PREFIX).unwrap_or_default();
    names
        .iter()
        .filter_map(|name| name.strip_prefix(PREFIX).map(str::to_string))
        .collect()
}

/// The largest number git-ward gives a checkpoint. A larger one in a ref
/// or a state file was written by hand (`chk-local-18446744073709551615`):
/// it is left out when the next number is chosen, so it can neither make
/// the count overflow nor stop checkpoints from being taken.
pub const MAX_NUMBER: u64 = 999_999_999_999;

/// The next free number for ids with this prefix: one past the highest
/// taken, or, once that reaches [`MAX_NUMBER`], the lowest free one.
pub fn next_number(ids: &[String], prefix: &str) -> u64 {
    let taken: std::collections::BTreeSet<u64> = ids
        .iter()
        .filter_map(|id| id.strip_prefix(prefix))
        .filter_map(|n| n.parse::<u64>().ok())
        .filter(|n| *n <= MAX_NUMBER)
        .collect();
    match taken.last() {
        None => 1,
        Some(&highest) if highest < MAX_NUMBER => highest + 1,
        Some(_) => (1..).find(|n| !taken.contains(n)).unwrap_or(1),
    }
}

/// Where the next number for an id prefix is remembered: a hint that
/// saves listing every checkpoint ref (the `update-ref` that claims an id
/// stays the arbiter).
fn seq_file(ctx: &Ctx, prefix: &str) -> std::path::PathBuf {
    ctx.common_dir
        .join("ward")
        .join("seq")
        .join(prefix.trim_end_matches('-'))
}

/// The remembered next number for `prefix`, if any (one out of range is
/// none: the refs are listed instead).
pub fn read_seq(ctx: &Ctx, prefix: &str) -> Option<u64> {
    crate::state_file::read_text(&seq_file(ctx, prefix))
        .ok()?
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=MAX_NUMBER).contains(n))
}

/// Remembers the next number for `prefix` (best effort).
pub fn write_seq(ctx: &Ctx, prefix: &str, n: u64) {
    let _ = crate::state_file::replace(&seq_file(ctx, prefix), format!("{n}\n").as_bytes());
}

/// Every checkpoint, oldest first (by creation time, then number). A
/// checkpoint ref whose commit is gone (a damaged repository, a prune by
/// hand) is left out with a warning, not allowed to hide all the others.
pub fn list(ctx: &Ctx) -> Result<Vec<Checkpoint>> {
    const FORMAT: &str = "--format=%(objectname) %(tree) %(contents:size)%00%(contents)";
    let out = ctx.git.output(["for-each-ref", FORMAT, PREFIX])?;
    let out = if out.status.success() {
        out.stdout
    } else {
        let present = refs_with_objects(ctx)?;
        if present.is_empty() {
            Vec::new()
        } else {
            let args = ["for-each-ref", FORMAT]
                .into_iter()
                .chain(present.iter().map(String::as_str));
            let out = ctx.git.output(args)?;
            if !out.status.success() {
                return Err(Error::internal(format!(
                    "git for-each-ref failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            out.stdout
        }
    };
    let mut all = records(&out);
    all.sort_by(|a, b| a.created.cmp(&b.created).then(a.number().cmp(&b.number())));
    Ok(all)
}

/// The checkpoints in `for-each-ref` output of `<commit> <tree> <size>\0
/// <message>\n` records: the size says where a message ends, so it may
/// hold any byte (a separator would hide the checkpoint that holds it).
fn records(mut out: &[u8]) -> Vec<Checkpoint> {
    let mut all = Vec::new();
    while let Some(nul) = out.iter().position(|&b| b == 0) {
        let head = String::from_utf8_lossy(&out[..nul]);
        let mut fields = head.split(' ');
        let (Some(commit), Some(tree), Some(Ok(size))) = (
            fields.next(),
            fields.next(),
            fields.next().map(str::parse::<usize>),
        ) else {
            break;
        };
        let rest = &out[nul + 1..];
        let Some(message) = rest.get(..size) else {
            break;
        };
        all.extend(Checkpoint::parse(
            commit,
            tree,
            &String::from_utf8_lossy(message),
        ));
        out = &rest[size..];
        out = out.strip_prefix(b"\n").unwrap_or(out);
    }
    all
}

/// The checkpoint refs whose objects exist; each other one is named in a
/// warning.
fn refs_with_objects(ctx: &Ctx) -> Result<Vec<String>> {
    let listed = ctx
        .git
        .run(["for-each-ref", "--format=%(objectname) %(refname)", PREFIX])?;
    let refs: Vec<(&str, &str)> = listed.lines().filter_map(|l| l.split_once(' ')).collect();
    let mut stdin = String::new();
    for (oid, _) in &refs {
        stdin.push_str(oid);
        stdin.push('\n');
    }
    let checked = ctx.git.run_with(
        ["cat-file", "--batch-check=%(objectname)"],
        &[],
        Some(stdin.as_bytes()),
    )?;
    let mut present = Vec::new();
    for ((oid, name), answer) in refs.iter().zip(checked.lines()) {
        if answer.ends_with(" missing") {
            crate::output::errln!(
                "ward: warning: {name} names a missing object {oid}; left out \
                 (delete it with `git update-ref -d {name}`)"
            );
        } else {
            present.push(name.to_string());
        }
    }
    Ok(present)
}

/// Finds one checkpoint by id.
pub fn find(ctx: &Ctx, id: &str) -> Result<Checkpoint> {
    if !valid_id(id) {
        return Err(Error::invalid(
            format!("invalid checkpoint id '{id}'"),
            "ids look like chk-local-3 or chk-<contract>-3; list them with `git ward checkpoints`",
        ));
    }
    let name = format!("{PREFIX}{id}");
    let out = ctx.git.output([
        "for-each-ref",
        "--format=%(objectname)%00%(tree)%00%(contents)",
        &name,
    ])?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut f = text.splitn(3, '\0');
    match (f.next(), f.next(), f.next()) {
        (Some(c), Some(t), Some(m)) if !c.is_empty() => {
            Checkpoint::parse(c, t, m).ok_or_else(|| unknown_id(id))
        }
        _ => Err(unknown_id(id)),
    }
}

pub use super::made::{changed, record_made};

/// Where this worktree's count of checkpoints is remembered: the one the
/// last retention left, plus one per checkpoint taken since. It may count
/// too many (checkpoints deleted by hand), which only brings the next
/// retention forward.
fn count_file(ctx: &Ctx) -> std::path::PathBuf {
    ctx.git_dir.join("ward").join("checkpoint-count")
}

/// Counts the checkpoint just taken in this worktree and applies retention
/// once the worktree may hold a tenth more than `keep`. Reading every
/// checkpoint's trailers costs, so the count decides when; the repository's
/// number of checkpoints stands in for it when none is remembered.
pub fn retain_if_due(ctx: &Ctx, keep: u32, spare: &[Option<&str>]) -> Result<Vec<String>> {
    let remembered = crate::state_file::read_text(&count_file(ctx))
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok());
    let count = match remembered {
        Some(n) => n.saturating_add(1),
        None => ids(ctx).len() as u64,
    };
    if count <= u64::from(keep) + u64::from(keep / 10) {
        write_count(ctx, count);
        return Ok(Vec::new());
    }
    retain(ctx, keep, spare)
}

/// Remembers this worktree's count of checkpoints (best effort).
fn write_count(ctx: &Ctx, count: u64) {
    let _ = crate::state_file::replace(&count_file(ctx), format!("{count}\n").as_bytes());
}

/// Deletes checkpoints of this worktree beyond the newest `keep`, except
/// pinned ones, those in `spare`, and per contract the newest turn and the
/// newest passing one (a pollution rollback restores from it; turn numbers
/// follow the newest). The main worktree's include those of worktrees that
/// are gone (removed, or the repository renamed): nothing else would ever
/// prune them. Returns the ids deleted.
fn retain(ctx: &Ctx, keep: u32, spare: &[Option<&str>]) -> Result<Vec<String>> {
    let here = ctx.git_dir.display().to_string();
    let heir = ctx.git_dir == ctx.common_dir;
    // A linked worktree's name (`<common>/worktrees/<name>`); `None` for the
    // main one. A recorded git dir that is gone (the repository renamed)
    // is still the worktree of that name while it exists.
    let name_of = |dir: &Path| {
        (dir.parent().and_then(Path::file_name) == Some("worktrees".as_ref()))
            .then(|| dir.file_name().map(|n| n.to_os_string()))
            .flatten()
    };
    let name_here = name_of(&ctx.git_dir);
    let mine: Vec<Checkpoint> = list(ctx)?
        .into_iter()
        .filter(|c| match c.worktree.as_deref().map(Path::new) {
            Some(w) if w == Path::new(&here) => true,
            Some(w) if !w.exists() => match name_of(w) {
                name if name == name_here => true,
                // The main worktree takes those of worktrees that are gone.
                Some(name) => heir && !ctx.common_dir.join("worktrees").join(name).exists(),
                None => false,
            },
            _ => false,
        })
        .collect();
    let turns = |pass: bool| {
        let mut newest: std::collections::BTreeMap<Option<&str>, &str> = Default::default();
        for c in mine.iter().filter(|c| c.kind == Kind::Turn) {
            if !pass || c.tests.as_deref() == Some("pass") {
                newest.insert(c.contract.as_deref(), c.id.as_str());
            }
        }
        newest.into_values().collect::<Vec<&str>>()
    };
    let (newest_turns, passing_turns) = (turns(false), turns(true));
    let excess = mine.len().saturating_sub(keep as usize);
    let doomed: Vec<&Checkpoint> = mine
        .iter()
        .take(excess)
        .filter(|c| {
            !super::made::pinned(ctx, c)
                && !spare.contains(&Some(c.id.as_str()))
                && !newest_turns.contains(&c.id.as_str())
                && !passing_turns.contains(&c.id.as_str())
        })
        .collect();
    // Counted as at most `keep`: those that stay beyond it (pinned, spared)
    // would otherwise make every next checkpoint read them all again.
    let left = ((mine.len() - doomed.len()) as u64).min(u64::from(keep));
    super::made::keep_rewritten(
        ctx,
        mine.iter().filter(|c| !doomed.iter().any(|d| d.id == c.id)),
    );
    if doomed.is_empty() {
        write_count(ctx, left);
        return Ok(Vec::new());
    }
    let deletion = |c: &Checkpoint| {
        let mut stdin = format!("delete {PREFIX}{} {}\n", c.id, c.commit);
        for name in kept_refs(ctx, &c.id) {
            stdin.push_str(&format!("delete {name}\n"));
        }
        stdin
    };
    let all: String = doomed.iter().map(|c| deletion(c)).collect();
    let delete = |stdin: &str| {
        ctx.git
            .run_with(["update-ref", "--stdin"], &[], Some(stdin.as_bytes()))
    };
    let mut deleted: Vec<String> = doomed.iter().map(|c| c.id.clone()).collect();
    if let Err(err) = delete(&all) {
        // Another run pruning at the same time may have deleted some of
        // them (one transaction fails for all): one at a time, and only a
        // checkpoint still there is a failure.
        deleted.clear();
        for c in &doomed {
            if delete(&deletion(c)).is_ok() {
                deleted.push(c.id.clone());
            } else if ctx
                .git
                .run(["rev-parse", "-q", "--verify", &format!("{PREFIX}{}", c.id)])
                .is_ok()
            {
                return Err(err);
            }
        }
    }
    for id in &deleted {
        super::made::forget(ctx, id);
    }
    write_count(ctx, left);
    Ok(deleted)
}

/// The refs under `refs/ward/kept/<id>/`.
pub fn kept_refs(ctx: &Ctx, id: &str) -> Vec<String> {
    ctx.repo
        .ref_names(&format!("{KEPT}{id}/"))
        .unwrap_or_default()
}

/// Makes sure `git log --decorate` leaves `refs/ward/` out.
pub fn exclude_decoration(ctx: &Ctx) {
    let present = ctx
        .repo
        .config()
        .strings("log.excludeDecoration")
        .is_some_and(|v| v.iter().any(|s| AsRef::<[u8]>::as_ref(s) == b"refs/ward/"));
    if !present {
        let _ = ctx.git.run([
            "config",
            "--local",
            "--add",
            "log.excludeDecoration",
            "refs/ward/",
        ]);
    }
}

/// A short commit id; a symbolic value (`ref:refs/heads/x`) whole.
pub fn short(id: &str) -> &str {
    if id.starts_with("ref:") {
        return id;
    }
    id.get(..8).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_number_per_prefix() {
        let ids: Vec<String> = ["chk-local-1", "chk-local-9", "chk-a-1-4", "chk-a-2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(next_number(&ids, &id_prefix(None)), 10);
        assert_eq!(next_number(&ids, &id_prefix(Some("a"))), 3);
        assert_eq!(next_number(&ids, &id_prefix(Some("a-1"))), 5);
        assert_eq!(next_number(&ids, &id_prefix(Some("b"))), 1);
        assert!(valid_id("chk-local-3"));
        assert!(!valid_id("chk-local-x"));
        assert!(!valid_id("../x"));
        assert!(!valid_id("chk-a/b-1"));
        assert!(!valid_id("chk-local-+1"));
        assert!(!valid_id("chk--1"));
        let longest = "c".repeat(100);
        assert!(valid_id(&format!(
            "{}{}",
            id_prefix(Some(&longest)),
            u64::MAX
        )));
        assert!(!valid_id(&format!("chk-{longest}c-1")));
    }

    #[test]
    fn numbers_out_of_range_are_not_counted() {
        let ids = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let prefix = id_prefix(None);
        let absurd = ids(&["chk-local-2", "chk-local-18446744073709551615"]);
        assert_eq!(next_number(&absurd, &prefix), 3);
        let top = format!("chk-local-{MAX_NUMBER}");
        assert_eq!(next_number(&ids(&["chk-local-1", &top]), &prefix), 2);
        assert_eq!(next_number(&ids(&["chk-local-2", &top]), &prefix), 1);
    }

    #[test]
    fn trailers_round_trip() {
        let mut c = Checkpoint::new("chk-c1-2".into(), Kind::Turn, "turn 2\nmore".into());
        c.created = "2026-01-01T00:00:00.000Z".into();
        c.branch = Some("agent/c1".into());
        c.head = Some("abc".into());
        c.contract = Some("c1".into());
        c.turn = Some(2);
        c.tests = Some("fail".into());
        c.pinned = true;
        c.index_tree = Some("def".into());
        c.counts = Counts {
            files: 3,
            untracked: 1,
            ignored: 1,
            skipped: 1,
        };
        c.skipped.push("big.bin (20 MiB)".into());
        c.stashes.push(("123".into(), "WIP on main".into()));
        c.refs.push(("refs/heads/x".into(), "456".into()));
        c.merge_heads.push("789".into());
        c.merge_state = Some("abc".into());
        c.modes.push((0o600, b".env".to_vec()));
        c.modes.push((0o700, b"secret dir".to_vec()));
        c.modes.push((0o600, b"secret\nkey".to_vec()));
        c.modes.push((0o700, b"keys\xfe".to_vec()));
        c.skip_worktree.push(b"a\nb".to_vec());
        c.skip_worktree.push(b"a b".to_vec());
        c.intent_to_add.push(b"new\xff".to_vec());
        c.assume_unchanged.push(b"config.ini".to_vec());
        let back = Checkpoint::parse("cc", "tt", &c.message()).unwrap();
        assert_eq!(back.modes, c.modes);
        // A trailer asking for set-user-id gets the permission bits only.
        let forged = c
            .message()
            .replace("Ward-Mode: 600 .env", "Ward-Mode: 4777 .env");
        let back_forged = Checkpoint::parse("cc", "tt", &forged).unwrap();
        assert_eq!(back_forged.modes[0], (0o777, b".env".to_vec()));
        assert_eq!(back.skip_worktree, c.skip_worktree);
        assert_eq!(back.intent_to_add, c.intent_to_add);
        assert_eq!(back.assume_unchanged, c.assume_unchanged);
        assert_eq!(back.description, "turn 2 more");
        assert_eq!(back.kind, Kind::Turn);
        assert_eq!(back.turn, Some(2));
        assert_eq!(back.counts, c.counts);
        assert_eq!(back.skipped, c.skipped);
        assert_eq!(back.stashes, c.stashes);
        assert_eq!(back.refs, c.refs);
        assert_eq!(back.merge_heads, c.merge_heads);
        assert_eq!(back.merge_state, c.merge_state);
        assert!(back.pinned);
        assert_eq!(back.commit, "cc");
    }

    #[test]
    fn an_empty_description_is_read_back_empty() {
        let mut c = Checkpoint::new("chk-local-1".into(), Kind::Manual, String::new());
        c.created = "2026-01-01T00:00:00.000Z".into();
        let message = c.message();
        // As written, and as `%(contents)` gives it back, its blank lines gone.
        let listed = format!("{}\n", message.trim_start_matches('\n'));
        for text in [message.as_str(), listed.as_str()] {
            let back = Checkpoint::parse("cc", "tt", text).unwrap();
            assert_eq!(back.id, "chk-local-1");
            assert_eq!(back.description, "");
            assert_eq!(back.created, c.created);
        }
        c.description = "Ward-Id: chk-local-9".into();
        let back = Checkpoint::parse("cc", "tt", &c.message()).unwrap();
        assert_eq!(
            (back.id.as_str(), back.description.as_str()),
            ("chk-local-1", "Ward-Id: chk-local-9")
        );
    }

    #[test]
    fn records_end_where_their_size_says() {
        let mut out = Vec::new();
        for (commit, description) in [("c1", &b"a\x1e\n\xff"[..]), ("c2", b"b")] {
            let mut message = description.to_vec();
            message.extend_from_slice(format!("\n\nWard-Id: chk-local-{commit}\n").as_bytes());
            out.extend_from_slice(format!("{commit} t {}\0", message.len()).as_bytes());
            out.extend_from_slice(&message);
            out.push(b'\n');
        }
        let listed: Vec<(String, String)> = records(&out)
            .into_iter()
            .map(|c| (c.commit, c.description))
            .collect();
        assert_eq!(
            listed,
            [("c1".into(), "a\x1e".into()), ("c2".into(), "b".into())]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any commit message, trailers or not: no panic.
        #[test]
        fn any_message_parses_without_panic(
            message in "((Ward-[A-Za-z-]{0,12}: )?\\PC{0,30}\n){0,12}",
        ) {
            if let Some(cp) = Checkpoint::parse("c", "t", &message) {
                let _ = (cp.number(), cp.to_json(), cp.message());
            }
        }
    }
}
