//! Where git's attributes may come from for a file of the working tree,
//! asked before bytes are hashed or written as they are: a conversion
//! (`text`, `eol`, a filter) would change them on the way in or out.

use std::collections::HashSet;
use std::path::Path;

use super::{in_tree, Ctx};

/// Does a file of attributes exist outside the working tree: the git
/// dir's `info/attributes` (the worktree's or the common one),
/// `/etc/gitattributes`, or the system's of the git git-ward runs?
pub fn outside_the_tree(ctx: &Ctx) -> bool {
    let git_prefix = ctx.git.path().parent().and_then(Path::parent);
    let system = git_prefix.map(|p| p.join("etc/gitattributes"));
    let files = [
        ctx.git_dir.join("info/attributes"),
        ctx.common_dir.join("info/attributes"),
        Path::new("/etc/gitattributes").to_path_buf(),
    ];
    files.iter().chain(system.iter()).any(|f| f.exists())
}

/// Is there a `.gitattributes` in a directory above `path` (the top's
/// not counted), in one not in `seen` yet? Each directory looked at goes
/// into `seen`, so many paths cost one look per directory.
pub fn above<'p>(ctx: &Ctx, path: &'p [u8], seen: &mut HashSet<&'p [u8]>) -> bool {
    let mut end = path.len();
    while let Some(slash) = path[..end].iter().rposition(|b| *b == b'/') {
        end = slash;
        if !seen.insert(&path[..end]) {
            return false;
        }
        if at(ctx, &path[..end]) {
            return true;
        }
    }
    false
}

/// Is there a `.gitattributes` in directory `dir` of the working tree
/// (`""`: the top)?
pub fn at(ctx: &Ctx, dir: &[u8]) -> bool {
    let file = match dir.is_empty() {
        true => b".gitattributes".to_vec(),
        false => [dir, b"/.gitattributes"].concat(),
    };
    std::fs::symlink_metadata(in_tree(&ctx.workdir, &file)).is_ok()
}
