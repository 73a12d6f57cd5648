//! Files a checkpoint's own ignore rules leave out.
//!
//! A checkpoint holds no ignored file (but those `checkpoint.include_ignored`
//! keeps). When the `.gitignore` files differ between the present and the
//! checkpoint (`reset --hard` past the commit that added `.env` to them, a
//! `checkout -f` to a branch without the entry), a file the present does
//! not ignore may be one the checkpoint left out as ignored: there before
//! the command, not created since. The restore leaves such a file alone,
//! as it leaves every ignored file: it is ignored again once the
//! checkpoint's `.gitignore` files are back.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::Path;

use super::Ctx;
use crate::error::{IoContext, Result};

/// Which of `paths` (from the top of the working tree) the `.gitignore`
/// files of `tree` ignore, with the repository's other exclude sources
/// (`info/exclude`, `core.excludesFile`): git's own answer
/// (`check-ignore --no-index`), in a scratch directory under `tmp_dir`
/// that holds only those `.gitignore` files.
pub fn by_tree(ctx: &Ctx, tmp_dir: &Path, tree: &str, paths: &[&[u8]]) -> Result<HashSet<Vec<u8>>> {
    if paths.is_empty() {
        return Ok(HashSet::new());
    }
    let listing = ctx
        .git
        .output(["ls-tree", "-r", "-z", "--full-tree", tree])?;
    let mut info = Vec::new();
    for item in listing.stdout.split(|b| *b == 0) {
        // "<mode> blob <id>\t<path>"; a `.gitignore` git reads (not a link).
        let Some(tab) = item.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let (meta, path) = (&item[..tab], &item[tab + 1..]);
        let name = path.rsplit(|b| *b == b'/').next().unwrap_or(path);
        if name == b".gitignore" && meta.starts_with(b"100") {
            let mut f = meta.split(|b| *b == b' ');
            let (mode, id) = (f.next().unwrap_or_default(), f.nth(1).unwrap_or_default());
            info.extend_from_slice(mode);
            info.push(b' ');
            info.extend_from_slice(id);
            info.push(b'\t');
            info.extend_from_slice(path);
            info.push(0);
        }
    }
    let scratch = tmp_dir.join(format!("ignore-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let files = scratch.join("files");
    std::fs::create_dir_all(&files).at("create the directory", &files)?;
    let result = (|| -> Result<HashSet<Vec<u8>>> {
        if !info.is_empty() {
            let index = scratch.join("index");
            let env: &[(&str, &OsStr)] = &[("GIT_INDEX_FILE", index.as_os_str())];
            ctx.git
                .output_with(["update-index", "-z", "--index-info"], env, Some(&info))?;
            let mut prefix = std::ffi::OsString::from("--prefix=");
            prefix.push(files.as_os_str());
            prefix.push("/");
            let args = [OsStr::new("checkout-index"), OsStr::new("-a"), &prefix];
            ctx.git.output_with(args, env, None)?;
        }
        let mut input = Vec::new();
        for p in paths {
            input.extend_from_slice(p);
            input.push(0);
        }
        let args = ["check-ignore", "--no-index", "-z", "--stdin"];
        let env: &[(&str, &OsStr)] = &[("GIT_WORK_TREE", files.as_os_str())];
        let out = ctx
            .git
            .clone()
            .in_dir(&files)
            .output_with(args, env, Some(&input))?;
        // 0: some are ignored, 1: none; anything else is no answer, and
        // then nothing counts as ignored (the plan stays as it was).
        Ok(match out.status.code() {
            Some(0) => out
                .stdout
                .split(|b| *b == 0)
                .filter(|p| !p.is_empty())
                .map(<[u8]>::to_vec)
                .collect(),
            _ => HashSet::new(),
        })
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}
