//! The snapshot recipes: the working tree and the index as two trees,
//! without touching either.
//!
//! A checkpoint is taken by the direct recipe of [`super::direct`] (one
//! `status`, one `hash-object`, one `fast-import`, no index written)
//! wherever it records exactly what this one would. This one, the index
//! recipe, takes the rest, and gives the trees of the present for rollback
//! and undo:
//!
//! 1. Copy the real index to a temporary index in the worktree's own git
//!    dir, keeping its mtime, so git's stat cache stays valid and the cost
//!    follows the number of changed files (and a split index finds its
//!    shared part).
//! 2. `write-tree` on the copy: the staged tree (after resolving conflicted
//!    paths to their `ours` side, since a tree cannot hold a conflict). It
//!    also fills the copy's cache of tree ids for step 4.
//! 3. `status` on the copy: one threaded scan names the files that differ
//!    from the index and the untracked ones (`ls-files -o -i` adds the
//!    ignored ones the policy's allow-list names); untracked files above
//!    `checkpoint.max_file_size` are left out and named.
//! 4. `update-index --add --remove` of exactly those paths into the copy;
//!    `write-tree`: the working tree's tree.
//! 5. `commit-tree` (the staged tree, when it is not HEAD's), then the
//!    checkpoint with parents HEAD and that commit; `update-ref` with an
//!    empty old value claims the id.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::store::{self, Checkpoint, Counts, Kind};
use super::Ctx;
use crate::decide::Head;
use crate::error::{Error, IoContext, Result};
use crate::git::Git;

/// How long to wait for another process's `index.lock` to go away.
const LOCK_WAIT: Duration = Duration::from_secs(2);
/// Identity for checkpoint commits, so they work without `user.name`.
pub(super) const IDENTITY: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "git-ward"),
    ("GIT_AUTHOR_EMAIL", "git-ward@localhost"),
    ("GIT_COMMITTER_NAME", "git-ward"),
    ("GIT_COMMITTER_EMAIL", "git-ward@localhost"),
];

/// What to record with a checkpoint.
#[derive(Clone, Debug)]
pub struct Options {
    pub kind: Kind,
    pub description: String,
    pub pinned: bool,
    /// The git operation that prompted it (`git.reset`).
    pub command: Option<String>,
    pub turn: Option<u32>,
    pub tests: Option<String>,
    /// Record the stash entries and keep them reachable.
    pub keep_stashes: bool,
    /// Refs to record and keep reachable: (full name, commit).
    pub keep_refs: Vec<(String, String)>,
    /// A checkpoint retention must not delete to make room for this one:
    /// the one a rollback or undo is about to restore from.
    pub spare: Option<String>,
}

impl Options {
    pub fn new(kind: Kind) -> Options {
        Options {
            kind,
            description: kind.as_str().to_string(),
            pinned: false,
            command: None,
            turn: None,
            tests: None,
            keep_stashes: false,
            keep_refs: Vec::new(),
            spare: None,
        }
    }
}

/// The working tree and index, as trees.
#[derive(Clone, Debug, Default)]
pub struct Trees {
    pub tree: String,
    pub index_tree: String,
    pub head: Option<String>,
    pub branch: Option<String>,
    pub counts: Counts,
    /// Untracked files left out for their size, with the size.
    pub skipped: Vec<String>,
    pub conflicted: Vec<String>,
    /// The index's conflict stages, as `ls-files -u -z` lists them.
    pub stages: Vec<u8>,
    /// Allow-listed ignored files included in the tree.
    pub ignored: Vec<String>,
    /// Untracked files and their directories that others may not read
    /// ([`Checkpoint::modes`]).
    pub modes: Vec<(u32, Vec<u8>)>,
    /// Skip-worktree entries whose files were taken from disk
    /// ([`Checkpoint::skip_worktree`]).
    pub skip_worktree: Vec<Vec<u8>>,
    /// Intent-to-add entries ([`Checkpoint::intent_to_add`]).
    pub intent_to_add: Vec<Vec<u8>>,
    /// Assume-unchanged entries ([`Checkpoint::assume_unchanged`]).
    pub assume_unchanged: Vec<Vec<u8>>,
}

/// A temporary index file that removes itself (and its lock).
struct TempIndex(PathBuf);

impl TempIndex {
    fn new(git_dir: &Path) -> TempIndex {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        if n == 0 {
            sweep(git_dir, "ward-index-");
        }
        TempIndex(git_dir.join(format!("ward-index-{}-{n}", std::process::id())))
    }

    fn env(&self) -> [(&'static str, &OsStr); 1] {
        [("GIT_INDEX_FILE", self.0.as_os_str())]
    }
}

impl Drop for TempIndex {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let mut lock = self.0.clone().into_os_string();
        lock.push(".lock");
        let _ = std::fs::remove_file(lock);
    }
}

/// Removes what a git-ward process that is gone left in `dir`: the files
/// and directories named `<prefix><pid>` or `<prefix><pid>-...` whose
/// process no longer runs (a run killed before it could tidy up: a
/// temporary index, a scratch checkout). Those of live processes stay.
pub(super) fn sweep(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let digits = rest.split(['-', '.']).next().unwrap_or_default();
        let Ok(pid) = digits.parse::<libc::pid_t>() else {
            continue;
        };
        if pid <= 0 || pid_runs(pid) {
            continue;
        }
        let path = entry.path();
        let _ = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
    }
}

/// Does process `pid` run (ours or another user's)?
pub(super) fn pid_runs(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Waits briefly for `index.lock` to go away; fails loudly if it does not.
pub fn wait_for_index_lock(git_dir: &Path) -> Result<()> {
    let lock = git_dir.join("index.lock");
    let start = Instant::now();
    while lock.exists() {
        if start.elapsed() > LOCK_WAIT {
            return Err(Error::internal(format!(
                "the index is locked by another git process ({} exists)",
                lock.display()
            ))
            .with_hint(format!(
                "wait for that git command to finish; if no git process is running, remove {}",
                lock.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Ok(())
}

/// Copies the real index to `tmp`, keeping its mtime (racy-git checks
/// compare entries against the index file's own mtime).
fn copy_index(git_dir: &Path, tmp: &Path) -> Result<bool> {
    let real = git_dir.join("index");
    let meta = match std::fs::metadata(&real) {
        Ok(m) => m,
        Err(_) => return Ok(false),
    };
    std::fs::copy(&real, tmp).at("copy the index to", tmp)?;
    if let Ok(mtime) = meta.modified() {
        let f = std::fs::File::options()
            .write(true)
            .open(tmp)
            .at("open", tmp)?;
        f.set_modified(mtime).at("set the time of", tmp)?;
    }
    Ok(true)
}

/// The number of entries in an index file, from its header.
pub(super) fn index_entries(path: &Path) -> u64 {
    use std::io::Read;
    let mut head = [0u8; 12];
    match std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)) {
        Ok(()) if &head[..4] == b"DIRC" => {
            u32::from_be_bytes([head[8], head[9], head[10], head[11]]) as u64
        }
        _ => 0,
    }
}

/// Splits NUL-separated output into paths.
fn nul_paths(out: &[u8]) -> Vec<Vec<u8>> {
    out.split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// Runs git with a temporary index; stdout as bytes on success.
fn run_idx(git: &Git, idx: &TempIndex, args: &[&str], stdin: Option<&[u8]>) -> Result<Vec<u8>> {
    let out = git.output_with(with_skip_hash(args), &idx.env(), stdin)?;
    checked_bytes(args, out)
}

/// Like [`run_idx`] with more environment.
fn run_idx_env(
    ctx: &Ctx,
    idx: &TempIndex,
    args: &[&str],
    env: &[(&str, &OsStr)],
) -> Result<Vec<u8>> {
    let mut envs: Vec<(&str, &OsStr)> = idx.env().to_vec();
    envs.extend_from_slice(env);
    let out = ctx.git.output_with(with_skip_hash(args), &envs, None)?;
    checked_bytes(args, out)
}

/// Our temporary index is read and written by a few processes in a row and
/// then deleted: its checksum protects nothing, so git may skip computing
/// it (`index.skipHash`, git 2.40 and later; older gits ignore the key).
fn with_skip_hash<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["-c", "index.skipHash=true"];
    v.extend_from_slice(args);
    v
}

fn checked_bytes(args: &[&str], out: std::process::Output) -> Result<Vec<u8>> {
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(Error::internal(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// Snapshots the working tree and the index into trees.
pub fn trees(ctx: &Ctx) -> Result<Trees> {
    wait_for_index_lock(&ctx.git_dir)?;
    let idx = TempIndex::new(&ctx.git_dir);
    copy_index(&ctx.git_dir, &idx.0)?;
    let mut t = Trees {
        head: ctx.repo.ref_target("HEAD"),
        branch: match ctx.repo.head() {
            Some(Head::Branch(b)) | Some(Head::Unborn(b)) => Some(b),
            _ => None,
        },
        ..Trees::default()
    };

    // `status` believes an assume-unchanged mark and never looks at the
    // file; `checkout -- .` looks, and overwrites it. A skip-worktree file
    // on disk, which `checkout <tree> -- .` overwrites, likewise. On the
    // copy the marks go, so the scan below sees what is on disk.
    let marks = marks(ctx);
    for (paths, flag) in [
        (&marks.assumed, "--no-assume-unchanged"),
        (&marks.skipped, "--no-skip-worktree"),
    ] {
        if !paths.is_empty() {
            run_idx(
                &ctx.git,
                &idx,
                &["update-index", "-z", flag, "--stdin"],
                Some(&nul_terminated(paths)),
            )?;
        }
    }
    t.skip_worktree = marks.skipped.clone();
    t.intent_to_add = marks.intent.clone();
    t.assume_unchanged = marks.assumed.clone();

    // The staged tree first: `write-tree` also fills the copy's cache of
    // tree ids, so the working tree's `write-tree` below only rehashes the
    // directories that differ.
    (t.index_tree, t.conflicted, t.stages) = staged_tree(&ctx.git, &idx)?;

    // One scan of the working tree, as `git status` makes it (threaded
    // lstat, the stat cache of the copied index): what differs from the
    // index, and the untracked files. Not writing the refreshed copy back
    // (optional locks off) saves rewriting the whole index file.
    let status = run_idx_env(
        ctx,
        &idx,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=none",
        ],
        &[("GIT_OPTIONAL_LOCKS", OsStr::new("0"))],
    )?;
    let mut changed: Vec<Vec<u8>> = Vec::new();
    let mut deleted: Vec<u8> = Vec::new();
    let mut untracked: Vec<Vec<u8>> = Vec::new();
    for rec in nul_paths(&status) {
        if rec.len() < 4 {
            continue;
        }
        let (xy, path) = (&rec[..2], rec[3..].to_vec());
        if xy == b"??" {
            untracked.push(path);
        } else if xy[1] == b'D' {
            // Removed by name: `add` refuses a path beyond a symlink.
            deleted.extend_from_slice(&path);
            deleted.push(0);
        } else if xy[1] != b' ' || xy[0] == b'U' {
            changed.push(path);
        }
    }
    if !deleted.is_empty() {
        run_idx(
            &ctx.git,
            &idx,
            &["update-index", "-z", "--force-remove", "--stdin"],
            Some(&deleted),
        )?;
    }
    let ignored = allowed_ignored(ctx, &idx.env())?;
    let mut private = Private::default();
    let max = crate::policy::parse_size(&ctx.settings.checkpoint.max_file_size).unwrap_or(u64::MAX);
    let mut add = nul_terminated(&changed);
    for (path, is_ignored) in untracked
        .iter()
        .map(|p| (p, false))
        .chain(ignored.iter().map(|p| (p, true)))
    {
        let full = super::in_tree(&ctx.workdir, path);
        let meta = std::fs::symlink_metadata(&full).ok();
        let size = meta.as_ref().map_or(0, |m| m.len());
        let shown = String::from_utf8_lossy(path).into_owned();
        if size > max {
            let quoted = super::cquote::quote_text(path);
            t.skipped.push(format!("{quoted} ({})", human_size(size)));
            continue;
        }
        if let Some(meta) = meta.filter(|m| m.is_file()) {
            private.note(&ctx.workdir, path, meta.permissions().mode());
        }
        if is_ignored {
            t.counts.ignored += 1;
            t.ignored.push(shown);
        } else {
            t.counts.untracked += 1;
        }
        add.extend_from_slice(path);
        add.push(0);
    }
    t.counts.skipped = t.skipped.len() as u64;
    t.modes = private.modes;
    if !add.is_empty() {
        // Only the paths that differ: the rest of the copy is already right.
        // `update-index` takes them one by one (no pathspec matching, whose
        // cost grows with paths times index entries) and ignores ignore rules.
        run_idx(
            &ctx.git,
            &idx,
            &["update-index", "-z", "--add", "--remove", "--stdin"],
            Some(&add),
        )?;
    }
    t.tree = text(run_idx(&ctx.git, &idx, &["write-tree"], None)?);

    t.counts.files = index_entries(&idx.0);
    Ok(t)
}

/// Untracked files others may not read (no read bit for group or
/// others), and the directories above untracked files that others may
/// not read or enter (a `secrets/` of 700 keeps the files in it private,
/// whatever their own bits): what a checkout would make readable.
/// Everything past [`Private::MAX`] is left out.
#[derive(Default)]
pub(super) struct Private {
    pub(super) modes: Vec<(u32, Vec<u8>)>,
    dirs: std::collections::HashSet<Vec<u8>>,
}

impl Private {
    const MAX: usize = 1000;

    fn keep(&mut self, mode: u32, path: Vec<u8>) {
        if self.modes.len() < Self::MAX {
            self.modes.push((mode & 0o7777, path));
        }
    }

    pub(super) fn note(&mut self, workdir: &Path, path: &[u8], mode: u32) {
        if mode & 0o044 != 0o044 {
            self.keep(mode, path.to_vec());
        }
        // Its directories, each once.
        let mut end = path.len();
        while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
            end = slash;
            let dir = path[..end].to_vec();
            if !self.dirs.insert(dir.clone()) {
                break;
            }
            let bits = std::fs::symlink_metadata(super::in_tree(workdir, &dir))
                .map(|m| m.permissions().mode())
                .unwrap_or(0o755);
            if bits & 0o055 != 0o055 {
                self.keep(bits, dir);
            }
        }
    }
}

/// The index's [`super::clean::Marks`]; none when gix cannot read it.
pub(super) fn marks(ctx: &Ctx) -> super::clean::Marks {
    super::clean::read_index(ctx)
        .map(|index| super::clean::marks(&index, &ctx.workdir))
        .unwrap_or_default()
}

/// Paths as `-z --stdin` reads them.
pub(super) fn nul_terminated(paths: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for path in paths {
        out.extend_from_slice(path);
        out.push(0);
    }
    out
}

/// The pathspecs that match what a `.gitignore`-style pattern does: one
/// with no `/` but at its end matches at any depth (`*.env` is
/// `**/*.env`), others from the top (a leading `/` only anchors; left on,
/// git would read `/*.log` from the filesystem's root); a name matches a
/// directory and all below it too, and one ending in `/` only that.
pub(super) fn pathspecs_of(pattern: &str) -> Vec<String> {
    let dir_only = pattern.ends_with('/');
    let core = pattern.trim_start_matches('/').trim_end_matches('/');
    if core.is_empty() {
        return Vec::new();
    }
    let anchored = pattern.starts_with('/') || core.contains('/');
    let base = if anchored {
        core.to_string()
    } else {
        format!("**/{core}")
    };
    let below = format!(":(top,glob){base}/**");
    if dir_only {
        vec![below]
    } else {
        vec![format!(":(top,glob){base}"), below]
    }
}

/// The ignored files `checkpoint.include_ignored` names (none when it is
/// empty), as `ls-files` lists them against the index `envs` name.
pub(super) fn allowed_ignored(ctx: &Ctx, envs: &[(&str, &OsStr)]) -> Result<Vec<Vec<u8>>> {
    let allow: Vec<String> = ctx
        .settings
        .checkpoint
        .include_ignored
        .iter()
        .flat_map(|p| pathspecs_of(p))
        .collect();
    if allow.is_empty() {
        return Ok(Vec::new());
    }
    let mut args: Vec<String> = ["ls-files", "-z", "-o", "-i", "--exclude-standard", "--"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(allow);
    let out = ctx.git.output_with(&args, envs, None)?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Ok(nul_paths(&checked_bytes(&args, out)?))
}

/// The staged tree of an index copy. A conflicted index has no tree: each
/// conflicted path keeps its `ours` side, and is named; its stages are
/// returned as `ls-files -u -z` lists them.
fn staged_tree(git: &Git, idx: &TempIndex) -> Result<(String, Vec<String>, Vec<u8>)> {
    match run_idx(git, idx, &["write-tree"], None) {
        Ok(tree) => Ok((text(tree), Vec::new(), Vec::new())),
        Err(_) => {
            let stages = run_idx(git, idx, &["ls-files", "-u", "-z"], None)?;
            let conflicted = resolve_conflicts(git, idx, &stages)?;
            let tree = text(run_idx(git, idx, &["write-tree"], None)?);
            Ok((tree, conflicted, stages))
        }
    }
}

/// Resolves each conflicted path of the temporary index to stage 0 with
/// its `ours` side (or removes it when ours deleted it). Returns the paths.
fn resolve_conflicts(git: &Git, idx: &TempIndex, out: &[u8]) -> Result<Vec<String>> {
    let mut stages: std::collections::BTreeMap<Vec<u8>, (Option<String>, u8)> = Default::default();
    for rec in nul_paths(out) {
        // "<mode> <sha> <stage>\t<path>"
        let Some(tab) = rec.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let (meta, path) = (
            String::from_utf8_lossy(&rec[..tab]).into_owned(),
            rec[tab + 1..].to_vec(),
        );
        let mut f = meta.split(' ');
        let (mode, sha, stage) = (
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
            f.next().unwrap_or(""),
        );
        let e = stages.entry(path).or_insert((None, 0));
        if stage == "2" {
            e.0 = Some(format!("{mode} {sha}"));
        }
    }
    let mut info = Vec::new();
    let mut paths = Vec::new();
    for (path, (ours, _)) in &stages {
        // Mode 0 removes every stage; a stage-0 entry then replaces them.
        info.extend_from_slice(b"0 0000000000000000000000000000000000000000\t");
        info.extend_from_slice(path);
        info.push(0);
        if let Some(ours) = ours {
            info.extend_from_slice(ours.as_bytes());
            info.push(b'\t');
            info.extend_from_slice(path);
            info.push(0);
        }
        paths.push(super::cquote::quote_text(path));
    }
    run_idx(
        git,
        idx,
        &["update-index", "-z", "--index-info"],
        Some(&info),
    )?;
    Ok(paths)
}

pub(super) fn human_size(n: u64) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", n as f64 / 1024.0)
    }
}

/// Commits a tree with parents, as git-ward. Returns the commit id.
pub(super) fn commit_tree(
    ctx: &Ctx,
    tree: &str,
    parents: &[&str],
    message: &str,
) -> Result<String> {
    let mut args = vec!["commit-tree", "--no-gpg-sign", tree];
    for p in parents {
        args.extend(["-p", p]);
    }
    let envs: Vec<(&str, &OsStr)> = IDENTITY.iter().map(|(k, v)| (*k, OsStr::new(*v))).collect();
    ctx.git.run_with(args, &envs, Some(message.as_bytes()))
}

/// Stores snapshot trees as a checkpoint under a new id.
pub fn store(ctx: &Ctx, t: &Trees, opts: Options) -> Result<Checkpoint> {
    let mut cp = describe(ctx, t, &opts);
    let head = t.head.as_deref();
    // The staged tree stays reachable through a commit of its own, unless
    // it is HEAD's tree (nothing staged), which HEAD already keeps.
    let index_parents: Vec<&str> = head.into_iter().collect();
    let index_commit = if head_tree(ctx).as_deref() == Some(t.index_tree.as_str()) {
        None
    } else {
        Some(commit_tree(ctx, &t.index_tree, &index_parents, "index\n")?)
    };
    let mut parents: Vec<&str> = head.into_iter().collect();
    parents.extend(index_commit.as_deref());
    let merge = super::merge::record(ctx, &t.stages)?;
    if let Some(m) = merge {
        cp.merge_heads = m.heads;
        cp.merge_state = Some(m.state);
    }
    let merge_state = cp.merge_state.clone();
    parents.extend(merge_state.as_deref());

    let (prefix, n) = first_number(ctx);
    let n = claim(ctx, &mut cp, &parents, &prefix, n)?;
    finish(ctx, &cp, &prefix, n, opts.spare.as_deref())?;
    Ok(cp)
}

/// A checkpoint's record of the snapshot and the options, before its id,
/// commit and merge state are known.
pub(super) fn describe(ctx: &Ctx, t: &Trees, opts: &Options) -> Checkpoint {
    let opts = opts.clone();
    let mut cp = Checkpoint::new(String::new(), opts.kind, opts.description);
    cp.tree = t.tree.clone();
    cp.index_tree = Some(t.index_tree.clone());
    cp.created = crate::audit::rfc3339(SystemTime::now());
    cp.branch = t.branch.clone();
    cp.head = t.head.clone();
    cp.contract = ctx.contract.clone();
    cp.turn = opts.turn;
    cp.tests = opts.tests;
    cp.trace_id = Some(ctx.trace_id.clone());
    cp.worktree = Some(ctx.git_dir.display().to_string());
    cp.workdir = Some(ctx.workdir.display().to_string());
    cp.command = opts.command;
    cp.pinned = opts.pinned;
    cp.counts = t.counts.clone();
    cp.skipped = t.skipped.clone();
    cp.conflicted = t.conflicted.clone();
    cp.modes = t.modes.clone();
    cp.skip_worktree = t.skip_worktree.clone();
    cp.intent_to_add = t.intent_to_add.clone();
    cp.assume_unchanged = t.assume_unchanged.clone();
    cp.refs = opts.keep_refs;
    if opts.keep_stashes {
        cp.stashes = super::stash::list(ctx);
    }
    cp
}

/// The tree of HEAD's commit, if there is one.
pub(super) fn head_tree(ctx: &Ctx) -> Option<String> {
    let head = ctx.repo.ref_target("HEAD")?;
    ctx.repo.commit_tree(&head)
}

/// The id prefix of this context and the number to try first.
pub(super) fn first_number(ctx: &Ctx) -> (String, u64) {
    let prefix = store::id_prefix(ctx.contract.as_deref());
    let n = store::read_seq(ctx, &prefix)
        .unwrap_or_else(|| store::next_number(&store::ids(ctx), &prefix));
    (prefix, n)
}

/// How many ids a checkpoint tries before it gives up: more than the
/// processes that could plausibly take checkpoints at the same moment.
const CLAIM_ATTEMPTS: u32 = 100;

/// Commits the checkpoint's tree with `parents` and claims the first free
/// id from `n` on (`update-ref` with an empty old value). Returns the number.
pub(super) fn claim(
    ctx: &Ctx,
    cp: &mut Checkpoint,
    parents: &[&str],
    prefix: &str,
    mut n: u64,
) -> Result<u64> {
    let mut attempts = 0;
    loop {
        cp.id = format!("{prefix}{n}");
        let commit = commit_tree(ctx, &cp.tree, parents, &cp.message())?;
        let name = format!("{}{}", store::PREFIX, cp.id);
        // Recorded before the ref exists: killed between the two, the
        // checkpoint is still known as git-ward's.
        super::made::record_claiming(ctx, cp, &commit)?;
        let out = ctx
            .git
            .output(["update-ref", "-m", "ward: checkpoint", &name, &commit, ""])?;
        if out.status.success() {
            cp.commit = commit;
            return Ok(n);
        }
        super::made::claim_over(ctx, &cp.id, &commit);
        attempts += 1;
        if attempts >= CLAIM_ATTEMPTS {
            return Err(Error::internal(format!(
                "cannot create {name}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        // Another process took this id: one past the highest taken now (the
        // remembered number may be stale). Those that lost the same race
        // try the same one next, and each time round one of them takes it.
        n = store::next_number(&store::ids(ctx), prefix).max(n + 1);
    }
}

/// After the ref is claimed: the number remembered, the stashes and refs
/// kept reachable, decorations excluded, retention applied (sparing `cp`
/// and `spare`).
pub(super) fn finish(
    ctx: &Ctx,
    cp: &Checkpoint,
    prefix: &str,
    n: u64,
    spare: Option<&str>,
) -> Result<()> {
    store::record_made(ctx, cp)?;
    store::write_seq(ctx, prefix, n + 1);
    keep_reachable(ctx, cp)?;
    store::exclude_decoration(ctx);
    let keep = ctx.settings.checkpoint.keep;
    if let Err(err) = store::retain_if_due(ctx, keep, &[Some(cp.id.as_str()), spare]) {
        crate::output::errln!(
            "ward: warning: checkpoint retention failed: {}",
            err.message
        );
    }
    Ok(())
}

/// Refs under `refs/ward/kept/<id>/` for the stashes and refs a checkpoint
/// records: the stash entries, however many, under one (`stashes`).
fn keep_reachable(ctx: &Ctx, cp: &Checkpoint) -> Result<()> {
    if !cp.stashes.is_empty() {
        let commits: Vec<String> = cp.stashes.iter().map(|(sha, _)| sha.clone()).collect();
        super::lost::keep_as(ctx, &cp.id, "stashes", "stash entries kept", &commits)?;
    }
    let mut stdin = String::new();
    for (i, (_, sha)) in cp.refs.iter().enumerate() {
        stdin.push_str(&format!("update {}{}/ref-{i} {sha}\n", store::KEPT, cp.id));
    }
    if !stdin.is_empty() {
        ctx.git
            .run_with(["update-ref", "--stdin"], &[], Some(stdin.as_bytes()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pathspecs_of;

    #[test]
    fn include_ignored_patterns_read_as_in_a_gitignore() {
        let g = |p: &str| format!(":(top,glob){p}");
        let cases: [(&str, Vec<String>); 6] = [
            (".env", vec![g("**/.env"), g("**/.env/**")]),
            ("*.env", vec![g("**/*.env"), g("**/*.env/**")]),
            ("/.env", vec![g(".env"), g(".env/**")]),
            (
                "config/local.env",
                vec![g("config/local.env"), g("config/local.env/**")],
            ),
            ("secrets/", vec![g("**/secrets/**")]),
            ("/", vec![]),
        ];
        for (pattern, want) in cases {
            assert_eq!(pathspecs_of(pattern), want, "{pattern}");
        }
    }
}
