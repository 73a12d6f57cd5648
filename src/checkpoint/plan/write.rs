//! The restore's writes. Files come back as `git checkout` writes them:
//! one `checkout-index` of a temporary index holding just them writes them
//! into a scratch directory in the git dir (filters and end-of-line
//! conversion apply by path, modes as git sets them), and each is renamed
//! from there into place: none is read back or written twice, none is
//! held in memory, and a killed restore leaves every file old or new.
//! Where no conversion can apply, and for the bytes on disk a checkpoint
//! kept besides its tree ([`crate::checkpoint::bytes`]), files are
//! written from their blobs, each made in its own directory
//! ([`super::fresh`]); symlinks from their blobs too.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{Entry, Failure, Plan, Status};
use crate::checkpoint::{in_tree, Ctx};
use crate::error::{IoContext, Result};

/// Carries out `entries` of `plan` (all of them; filter first for a
/// selection), and sets the recorded bits of its private directories
/// above the files it writes. Returns the paths that could not be
/// restored, the plan's refused ones first.
pub fn apply(ctx: &Ctx, entries: &[&Entry], plan: &Plan) -> Result<Vec<Failure>> {
    let mut failures = plan.refused.clone();
    let tmp_dir = ctx.git_dir.join("ward").join("tmp");
    std::fs::create_dir_all(&tmp_dir).at("create the directory", &tmp_dir)?;

    // Removals first: a directory may have to make room for a file.
    for e in entries.iter().filter(|e| e.status == Status::Remove) {
        let full = in_tree(&ctx.workdir, &e.raw);
        if let Err(reason) = check_leading(&ctx.workdir, &e.raw) {
            failures.push(Failure {
                path: e.path.clone(),
                reason,
            });
            continue;
        }
        match std::fs::remove_file(&full) {
            Ok(()) => prune_empty_parents(&ctx.workdir, &e.raw),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => failures.push(Failure {
                path: e.path.clone(),
                reason: err.to_string(),
            }),
        }
    }

    let writes: Vec<&&Entry> = entries
        .iter()
        .filter(|e| matches!(e.status, Status::Restore | Status::Missing))
        .collect();
    if writes.is_empty() {
        return Ok(failures);
    }
    // A symlink's blob is its target; the bytes a checkpoint kept are
    // written as they are; every other file as a checkout writes it.
    let verbatim = |e: &Entry| e.mode == "120000" || e.as_on_disk;
    let files: Vec<&Entry> = writes
        .iter()
        .filter(|e| e.mode != "160000" && !verbatim(e))
        .map(|e| **e)
        .collect();
    let mut as_stored: Vec<&Entry> = writes.iter().filter(|e| verbatim(e)).map(|e| **e).collect();
    // Where no conversion can apply, a checkout writes the blob as it is.
    let (files, mut unconverted) = match files.is_empty() {
        true => (files, Vec::new()),
        false => super::fresh::parted(ctx, files),
    };
    as_stored.append(&mut unconverted);
    let scratch = Scratch::checkout(ctx, &tmp_dir, &files)?;
    let mut names = super::fresh::Names::new(&tmp_dir);
    let mut stored: std::collections::HashMap<&str, Option<Vec<u8>>> = as_stored
        .iter()
        .map(|e| e.path.as_str())
        .zip(read_blobs(ctx, &as_stored)?)
        .collect();
    for (n, e) in writes.iter().enumerate() {
        if e.mode == "160000" {
            failures.push(Failure {
                path: e.path.clone(),
                reason: "a submodule: check it out with `git submodule update`".into(),
            });
            continue;
        }
        let source = match stored.remove(e.path.as_str()) {
            Some(content) => content.map(Source::Bytes),
            None => scratch.source(ctx, e),
        };
        let Some(source) = source else {
            failures.push(Failure {
                path: e.path.clone(),
                reason: format!("object {} is missing", e.blob),
            });
            continue;
        };
        if let Err(reason) = write_one(ctx, (&tmp_dir, &mut names), n, e, source) {
            failures.push(Failure {
                path: e.path.clone(),
                reason,
            });
        }
    }
    drop((scratch, names));
    set_dir_modes(ctx, &plan.private_dirs, &writes);
    Ok(failures)
}

/// Where a file's new content is: a file of the scratch checkout, renamed
/// into place, or bytes, written to a temporary file first.
enum Source {
    Scratch(PathBuf),
    Bytes(Vec<u8>),
}

/// The scratch directory `checkout-index` writes into (readable by its
/// owner only, so that a private file is never readable by others on the
/// way); removed when dropped, or by the next restore's sweep if killed.
struct Scratch {
    dir: Option<PathBuf>,
}

impl Scratch {
    /// Checks out `entries` into a new scratch directory: a temporary index
    /// holding just them, one `checkout-index --prefix`. (`cat-file --batch
    /// --filters` cannot be used: it reports the unconverted size.)
    fn checkout(ctx: &Ctx, tmp_dir: &Path, entries: &[&Entry]) -> Result<Scratch> {
        crate::checkpoint::snapshot::sweep(tmp_dir, "checkout-");
        if entries.is_empty() {
            return Ok(Scratch { dir: None });
        }
        let dir = tmp_dir.join(format!("checkout-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .at("create the directory", &dir)?;
        let scratch = Scratch {
            dir: Some(dir.clone()),
        };
        let index = dir.join("index");
        let mut info = Vec::new();
        for e in entries {
            info.extend_from_slice(format!("{} {}\t", e.mode, e.blob).as_bytes());
            info.extend_from_slice(&e.raw);
            info.push(0);
        }
        let env: &[(&str, &OsStr)] = &[("GIT_INDEX_FILE", index.as_os_str())];
        ctx.git
            .output_with(["update-index", "-z", "--index-info"], env, Some(&info))?;
        let mut arg = std::ffi::OsString::from("--prefix=");
        arg.push(dir.join("files"));
        arg.push("/");
        let args = [
            OsStr::new("checkout-index"),
            OsStr::new("-a"),
            OsStr::new("-f"),
            &arg,
        ];
        ctx.git.output_with(args, env, None)?;
        Ok(scratch)
    }

    /// Where `e`'s content is: its file in the scratch directory, or, where
    /// the checkout could not write it there (its path too long), its blob
    /// as a checkout writes it at its path.
    fn source(&self, ctx: &Ctx, e: &Entry) -> Option<Source> {
        if let Some(dir) = &self.dir {
            let file = in_tree(&dir.join("files"), &e.raw);
            if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
                return Some(Source::Scratch(file));
            }
        }
        filtered(ctx, e).map(Source::Bytes)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Sets the recorded permission bits of the directories ([`Plan::private_dirs`])
/// above the files written, where they are directories now.
fn set_dir_modes(ctx: &Ctx, dirs: &[(u32, Vec<u8>)], written: &[&&Entry]) {
    for (mode, dir) in dirs {
        let above = written.iter().any(|e| {
            e.raw
                .strip_prefix(dir.as_slice())
                .is_some_and(|r| r.starts_with(b"/"))
        });
        let full = in_tree(&ctx.workdir, dir);
        if above && std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::set_permissions(&full, std::fs::Permissions::from_mode(*mode));
        }
    }
}

/// Writes one file: checked, made ready in its directory or the git dir,
/// renamed into place.
fn write_one(
    ctx: &Ctx,
    (tmp_dir, names): (&Path, &mut super::fresh::Names),
    n: usize,
    e: &Entry,
    source: Source,
) -> std::result::Result<(), String> {
    check_leading(&ctx.workdir, &e.raw)?;
    let full = in_tree(&ctx.workdir, &e.raw);
    let existing = std::fs::symlink_metadata(&full).ok();
    if e.status == Status::Missing && existing.is_some() {
        return Err(
            "a file that is not in the snapshot (ignored or too large) is in the way; left alone"
                .into(),
        );
    }
    if existing.as_ref().is_some_and(|m| m.is_dir()) {
        return Err("a directory is in the way; left alone".into());
    }
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|err| format!("cannot create its directory: {err}"))?;
    }
    let (ready, content) = match source {
        Source::Scratch(file) => {
            if let Some(mode) = e.private {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode))
                    .map_err(|err| err.to_string())?;
            }
            (file, None)
        }
        Source::Bytes(content) => {
            let fresh = (e.mode != "120000")
                .then(|| {
                    full.parent()
                        .and_then(|dir| names.make(dir, n, e, &content))
                })
                .flatten();
            let tmp = match fresh {
                Some(name) => name,
                None => {
                    let tmp = tmp_dir.join(format!("{}-{n}", std::process::id()));
                    write_tmp(&tmp, e, &content)?;
                    tmp
                }
            };
            (tmp, Some(content))
        }
    };
    if let Err(err) = std::fs::rename(&ready, &full) {
        let in_place = (err.raw_os_error() == Some(libc::EXDEV))
            .then(|| content.or_else(|| std::fs::read(&ready).ok()))
            .flatten();
        let _ = std::fs::remove_file(&ready);
        // The git dir lives on another filesystem: write in place.
        return match in_place {
            Some(content) => write_in_place(&full, e, &content),
            None => Err(err.to_string()),
        };
    }
    Ok(())
}

/// Writes `content` to `tmp` as `e` is written: a symlink's target, or a
/// file with its recorded bits or git's.
fn write_tmp(tmp: &Path, e: &Entry, content: &[u8]) -> std::result::Result<(), String> {
    let _ = std::fs::remove_file(tmp);
    if e.mode == "120000" {
        return std::os::unix::fs::symlink(OsStr::from_bytes(content), tmp)
            .map_err(|err| err.to_string());
    }
    if let Some(mode) = e.private {
        // Made readable by its owner only, then given its own bits:
        // never readable by others on the way.
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(tmp)
            .map_err(|err| err.to_string())?;
        file.write_all(content).map_err(|err| err.to_string())?;
        drop(file);
        return std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(mode))
            .map_err(|err| err.to_string());
    }
    std::fs::write(tmp, content).map_err(|err| err.to_string())?;
    if e.mode == "100755" {
        let meta = std::fs::metadata(tmp).map_err(|err| err.to_string())?;
        let mode = meta.permissions().mode();
        // Execute wherever read is allowed, as git does.
        let exec = (mode & 0o444) >> 2;
        let _ = std::fs::set_permissions(tmp, std::fs::Permissions::from_mode(mode | exec));
    }
    Ok(())
}

fn write_in_place(full: &Path, e: &Entry, content: &[u8]) -> std::result::Result<(), String> {
    let _ = std::fs::remove_file(full);
    if e.mode == "120000" {
        return std::os::unix::fs::symlink(OsStr::from_bytes(content), full)
            .map_err(|err| err.to_string());
    }
    std::fs::write(full, content).map_err(|err| err.to_string())
}

/// Refuses a path whose leading directories include a symlink (writing
/// through it would land outside the working tree).
pub(super) fn check_leading(workdir: &Path, raw: &[u8]) -> std::result::Result<(), String> {
    for (slash, _) in raw.iter().enumerate().filter(|(_, b)| **b == b'/') {
        let dir = &raw[..slash];
        match std::fs::symlink_metadata(in_tree(workdir, dir)) {
            Ok(m) if m.file_type().is_symlink() => {
                let shown = workdir.join(OsStr::from_bytes(dir));
                return Err(format!("{} is a symlink; left alone", shown.display()));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

/// Removes the directories above `raw` (from the top) that its removal
/// left empty, up to the working tree's top.
fn prune_empty_parents(workdir: &Path, raw: &[u8]) {
    let mut end = raw.len();
    while let Some(slash) = raw[..end].iter().rposition(|b| *b == b'/') {
        if slash == 0 || std::fs::remove_dir(in_tree(workdir, &raw[..slash])).is_err() {
            break;
        }
        end = slash;
    }
}

/// The entries' blobs as stored, in order (`None`: missing), from one
/// `cat-file --batch`.
fn read_blobs(ctx: &Ctx, entries: &[&Entry]) -> Result<Vec<Option<Vec<u8>>>> {
    if entries.is_empty() {
        return Ok(Vec::new());
    }
    let mut input = Vec::new();
    for e in entries {
        input.extend_from_slice(e.blob.as_bytes());
        input.push(b'\n');
    }
    let out = ctx
        .git
        .output_with(["cat-file", "--batch"], &[], Some(&input))?;
    let mut answers = parse_batch(&out.stdout);
    answers.resize(entries.len(), None);
    Ok(answers)
}

/// One blob as a checkout writes it at its path, by `cat-file --filters`:
/// for a file the scratch checkout could not write (its path there too
/// long), at one process per file.
fn filtered(ctx: &Ctx, e: &Entry) -> Option<Vec<u8>> {
    let mut path = std::ffi::OsString::from("--path=");
    path.push(OsStr::from_bytes(&e.raw));
    let args = [
        OsStr::new("cat-file"),
        OsStr::new("--filters"),
        &path,
        OsStr::new(&e.blob),
    ];
    let out = ctx.git.output(args).ok()?;
    out.status.success().then_some(out.stdout)
}

/// `cat-file --batch` output: per request, its content, or `None` when missing.
fn parse_batch(data: &[u8]) -> Vec<Option<Vec<u8>>> {
    let mut answers = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let Some(nl) = data[pos..].iter().position(|b| *b == b'\n') else {
            break;
        };
        let header = String::from_utf8_lossy(&data[pos..pos + nl]).into_owned();
        pos += nl + 1;
        let mut f = header.split(' ');
        let (kind, size) = (f.nth(1).unwrap_or(""), f.next());
        if kind == "missing" || size.is_none() {
            answers.push(None);
            continue;
        }
        let size: usize = size.and_then(|s| s.parse().ok()).unwrap_or(0);
        if pos + size > data.len() {
            break;
        }
        answers.push(Some(data[pos..pos + size].to_vec()));
        pos += size + 1;
    }
    answers
}
