//! The bytes on disk, where git's conversion would change them: a
//! checkpoint's trees hold files as `git add` would
//! (clean filters, `text`/`eol`/`text=auto`, `ident`,
//! `working-tree-encoding`, `core.autocrlf` applied by path), and a
//! restore writes them as `git checkout` would. Where that round trip
//! changes a file (a CRLF file under `text=auto`, a lossy clean filter,
//! an expanded `$Id$`), the bytes that were on disk are kept besides: a
//! tree of them at the files' paths, in a commit reachable from
//! `refs/ward/kept/<id>/bytes`, and a restore writes those bytes back as
//! they were.
//!
//! The direct recipe hashes its files both ways at once; the index recipe
//! hashes again, without filters, the files that differ from the index. A
//! checkpoint whose files all round-trip keeps nothing more.

use std::collections::HashMap;
use std::ffi::OsStr;

use super::store::Checkpoint;
use super::Ctx;
use crate::error::Result;

/// The leaf under `refs/ward/kept/<id>/`.
const LEAF: &str = "bytes";

/// Keeps the bytes on disk of `cp`'s files that its tree holds otherwise.
pub fn record(ctx: &Ctx, cp: &Checkpoint) -> Result<()> {
    let from = cp.index_tree.as_deref().unwrap_or(cp.tree.as_str());
    let files = changed_files(ctx, from, &cp.tree)?;
    if files.is_empty() {
        return Ok(());
    }
    let mut stdin = Vec::new();
    for (_, path) in &files {
        stdin.extend_from_slice(&super::cquote::quote(path));
        stdin.push(b'\n');
    }
    let out = ctx.git.output_with(
        ["hash-object", "-w", "--no-filters", "--stdin-paths"],
        &[],
        Some(&stdin),
    )?;
    let raw: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    if !out.status.success() || raw.len() != files.len() {
        // A file changed since the scan: its checkpoint blob is all there is.
        return Ok(());
    }
    let (clean, paths): (Vec<String>, Vec<Vec<u8>>) = files.into_iter().unzip();
    keep(ctx, &cp.id, &paths, &clean, &raw)
}

/// Keeps, for checkpoint `id`, the bytes on disk (`raw`, blobs already
/// written) of the files at `paths` whose checkpoint blobs (`clean`)
/// differ from them; nothing where none does.
pub fn keep(
    ctx: &Ctx,
    id: &str,
    paths: &[Vec<u8>],
    clean: &[String],
    raw: &[String],
) -> Result<()> {
    let mut info = Vec::new();
    for ((path, clean), raw) in paths.iter().zip(clean).zip(raw) {
        if raw != clean {
            info.extend_from_slice(format!("100644 {raw}\t").as_bytes());
            info.extend_from_slice(path);
            info.push(0);
        }
    }
    if info.is_empty() {
        return Ok(());
    }
    let index = ctx
        .git_dir
        .join("ward")
        .join(format!("bytes-index-{}", std::process::id()));
    let env: &[(&str, &OsStr)] = &[("GIT_INDEX_FILE", index.as_os_str())];
    let tree = (|| {
        ctx.git
            .run_with(["update-index", "-z", "--index-info"], env, Some(&info))?;
        ctx.git.run_with(["write-tree"], env, None)
    })();
    let _ = std::fs::remove_file(&index);
    let commit = super::snapshot::commit_tree(ctx, &tree?, &[], "ward: bytes on disk\n")?;
    super::lost::keep_as(ctx, id, LEAF, "bytes on disk", &[commit])
}

/// The bytes on disk `id` kept, by path: their blobs.
pub fn kept(ctx: &Ctx, id: &str) -> HashMap<Vec<u8>, String> {
    let name = format!("{}{id}/{LEAF}^1^{{tree}}", super::store::KEPT);
    let Ok(out) = ctx.git.output(["ls-tree", "-r", "-z", &name]) else {
        return HashMap::new();
    };
    if !out.status.success() {
        return HashMap::new();
    }
    out.stdout
        .split(|b| *b == 0)
        .filter_map(|line| {
            // "<mode> blob <id>\t<path>"
            let tab = line.iter().position(|b| *b == b'\t')?;
            let meta = std::str::from_utf8(&line[..tab]).ok()?;
            let blob = meta.split(' ').nth(2)?;
            Some((line[tab + 1..].to_vec(), blob.to_string()))
        })
        .collect()
}

/// Regular files whose blob in `to` differs from `from`'s (the files a
/// checkpoint hashed from disk): blob and path.
fn changed_files(ctx: &Ctx, from: &str, to: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let out = ctx.git.output([
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--diff-filter=AMT",
        from,
        to,
    ])?;
    let mut files = Vec::new();
    let mut fields = out.stdout.split(|b| *b == 0);
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let Some(path) = fields.next() else { break };
        // ":<mode1> <mode2> <sha1> <sha2> <status>"
        let meta = String::from_utf8_lossy(meta);
        let f: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        if let [_, mode, _, blob, _] = f[..] {
            if mode == "100644" || mode == "100755" {
                files.push((blob.to_string(), path.to_vec()));
            }
        }
    }
    Ok(files)
}
