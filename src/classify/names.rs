//! Which words are git commands, which commands only read, and what a
//! revision name looks like.

use super::Context;

/// The commands git 2.47 knows (`git --list-cmds=main`: builtins and the
/// programs it ships in its exec path), plus a few older or optional ones.
/// An alias can never shadow one of these; anything else is unknown.
#[rustfmt::skip]
const COMMANDS: &[&str] = &[
    "add", "am", "annotate", "apply", "archimport", "archive", "bisect", "blame", "branch",
    "bugreport", "bundle", "cat-file", "check-attr", "check-ignore", "check-mailmap",
    "check-ref-format", "checkout", "checkout--worker", "checkout-index", "cherry",
    "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph", "commit-tree",
    "config", "count-objects", "credential", "credential-cache", "credential-cache--daemon",
    "credential-store", "cvsexportcommit", "cvsimport", "cvsserver", "daemon", "describe",
    "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "difftool--helper",
    "fast-export", "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg",
    "for-each-ref", "for-each-repo", "format-patch", "fsck", "fsck-objects",
    "fsmonitor--daemon", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help", "hook",
    "http-backend", "http-fetch", "http-push", "imap-send", "index-pack", "init", "init-db",
    "instaweb", "interpret-trailers", "log", "ls-files", "ls-remote", "ls-tree", "mailinfo",
    "mailsplit", "maintenance", "merge", "merge-base", "merge-file", "merge-index",
    "merge-octopus", "merge-one-file", "merge-ours", "merge-recursive", "merge-recursive-ours",
    "merge-recursive-theirs", "merge-resolve", "merge-subtree", "merge-tree", "mergetool",
    "mktag", "mktree", "multi-pack-index", "mv", "name-rev", "notes", "p4", "pack-objects",
    "pack-redundant", "pack-refs", "patch-id", "pickaxe", "prune", "prune-packed", "pull",
    "push", "quiltimport", "range-diff", "read-tree", "rebase", "receive-pack", "reflog", "refs",
    "remote", "remote-ext", "remote-fd", "remote-ftp", "remote-ftps", "remote-http",
    "remote-https", "repack", "replace", "replay", "request-pull", "rerere", "reset", "restore",
    "rev-list", "rev-parse", "revert", "rm", "send-email", "send-pack", "sh-i18n--envsubst",
    "shell", "shortlog", "show", "show-branch", "show-index", "show-ref", "sparse-checkout",
    "stage", "stash", "status", "stripspace", "submodule", "submodule--helper", "svn", "switch",
    "symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
    "update-server-info", "upload-archive", "upload-archive--writer", "upload-pack", "var",
    "verify-commit", "verify-pack", "verify-tag", "version", "web--browse", "whatchanged",
    "worktree", "write-tree",
];

/// Commands that never write to the repository, whatever their arguments.
#[rustfmt::skip]
const READ: &[&str] = &[
    "annotate", "archive", "blame", "bugreport", "cat-file", "check-attr", "check-ignore",
    "check-mailmap", "check-ref-format", "cherry", "column", "count-objects", "credential",
    "daemon", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool",
    "fast-export", "fmt-merge-msg", "for-each-ref", "format-patch", "fsck", "fsck-objects",
    "get-tar-commit-id", "grep", "help", "imap-send", "instaweb", "log", "ls-files", "ls-remote",
    "ls-tree", "mailinfo", "mailsplit", "merge-base", "merge-tree", "name-rev", "patch-id",
    "pickaxe", "range-diff", "request-pull", "rev-list", "rev-parse", "send-email", "shortlog",
    "show", "show-branch", "show-index", "show-ref", "status", "stripspace", "upload-archive",
    "upload-pack", "var", "verify-commit", "verify-pack", "verify-tag", "version", "web--browse",
    "whatchanged",
];

/// Is this a git command (which no alias can shadow)?
pub fn is_command(word: &str) -> bool {
    COMMANDS.contains(&word)
}

/// Does this command only read, whatever its arguments?
pub fn is_read(command: &str) -> bool {
    READ.contains(&command)
}

/// `main` as a full branch ref; a full ref stays as it is.
pub(super) fn branch_ref(name: &str) -> String {
    if name.starts_with("refs/") {
        name.to_string()
    } else {
        format!("refs/heads/{name}")
    }
}

/// Names a remote-tracking ref: `origin/main` (first component a known
/// remote), `remotes/origin/main`, `refs/remotes/origin/main`.
pub(super) fn is_remote_form(name: &str, remotes: &[String]) -> bool {
    if name.starts_with("remotes/") || name.starts_with("refs/remotes/") {
        return true;
    }
    name.split_once('/')
        .is_some_and(|(remote, rest)| !rest.is_empty() && remotes.iter().any(|r| r == remote))
}

/// A revision expression rather than a plain branch name: `HEAD`, `@`,
/// `ORIG_HEAD`, `HEAD~`, `main^`, `@{-1}`, `-` (git's `@{-1}`), `a..b`,
/// `rev:path`, a name starting with `-` or `/`, a full ref under `refs/`
/// (`git checkout refs/heads/x` detaches), a full object name.
pub(super) fn is_special(name: &str) -> bool {
    name.is_empty()
        || name == "@"
        || name.starts_with('-')
        || name.starts_with('/')
        || name.starts_with("refs/")
        || name.contains("..")
        || name.contains("@{")
        || name.contains(['~', '^', ':'])
        || is_pseudo_ref(name)
        || is_full_object_name(name)
}

/// `HEAD`, `ORIG_HEAD`, `FETCH_HEAD`, `MERGE_HEAD`, `CHERRY_PICK_HEAD` ...
fn is_pseudo_ref(name: &str) -> bool {
    name.ends_with("HEAD") && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
}

/// 40 (SHA-1) or 64 (SHA-256) hex digits.
fn is_full_object_name(name: &str) -> bool {
    matches!(name.len(), 40 | 64) && name.chars().all(|c| c.is_ascii_hexdigit())
}

/// Could git read this word as a revision rather than a path? Syntax says
/// so (`HEAD~1`, `origin/main`), or the repository resolves it.
pub(super) fn looks_like_revision(word: &str, ctx: &Context) -> bool {
    (is_special(word) && !word.starts_with('-') && !word.is_empty())
        || is_remote_form(word, ctx.remotes)
        || (ctx.is_local_branch)(word)
        || (ctx.is_revision)(word)
}

/// The remote whose tracking branch `<remote>/<name>` exists, for git's
/// "checkout a branch that only exists on one remote" guess.
pub(super) fn guess_remote(name: &str, ctx: &Context) -> Option<String> {
    ctx.remotes
        .iter()
        .find(|r| (ctx.is_revision)(&format!("refs/remotes/{r}/{name}")))
        .map(|r| format!("{r}/{name}"))
}
