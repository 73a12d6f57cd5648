//! An agent's fetch as one ref transaction.
//!
//! git before 2.50 updates each ref a fetch brings in a transaction of its
//! own, so the reference-transaction hook starts twice per ref (`prepared`,
//! `committed`): fetching 10,000 tags starts git-ward 20,000 times. With
//! `--atomic` (git 2.31 and later) git makes one transaction of them all,
//! and the hook sees every ref at once, in `prepared`, before any moves:
//! the rule that protected refs move only to their upstream's value holds
//! as before. (git 2.50 batches a plain fetch itself.)
//!
//! `--atomic` changes one thing an agent could see: where git would update
//! some refs and reject others (a tag that moved on the remote, a
//! non-forced refspec that is no fast-forward), it updates none. So the
//! atomic run's stderr is held back; when it failed on a rejected ref, or
//! git does not know `--atomic`, the fetch runs again as the agent wrote
//! it (the objects are there already), and that run is what the agent sees.

use std::ffi::OsString;
use std::process::ExitStatus;

/// Options after which the shim leaves a fetch as written: it is atomic
/// already, fetches from several remotes (each in a git of its own), reads
/// its refspecs from stdin, changes nothing, asks for help, or prunes.
///
/// A fetch that prunes runs as written whether the command line or the
/// config says so (`fetch.prune`, `remote.<name>.prune` and their
/// `pruneTags`, which the classifier reads as [`crate::action::Action::fetch_prunes`]):
/// git's own fetch prunes first and then updates, so a remote branch `a`
/// replaced by `a/b` comes in; an atomic one deletes `a` and creates `a/b`
/// in one transaction, which the files backend cannot do (a D/F conflict:
/// git 2.39 fails, 2.47 aborts), and no ref moves at all. Such a fetch
/// starts the reference-transaction hook once per ref, as anyone's does.
const AS_WRITTEN: &[&str] = &[
    "--atomic",
    "--prune",
    "--prune-tags",
    "-p",
    "-P",
    "--no-atomic",
    "--dry-run",
    "--all",
    "--multiple",
    "--stdin",
    "-h",
    "--help",
];

/// git's words for a ref update it rejected, in a fetch's stderr (`LC_ALL=C`
/// is not forced on the agent's git: English or not, a failed atomic run
/// with none of these is also run again when git's status says usage).
const REJECTED: &[&str] = &["[rejected]", "would clobber", "non-fast-forward", "atomic"];

/// The agent's `fetch ...` (its words after git's global options) with
/// `--atomic`, when that keeps git's behaviour; `None` to run it as written.
pub fn atomic(args: &[OsString], rest: usize) -> Option<Vec<OsString>> {
    let at = args.len().checked_sub(rest)?;
    if args.get(at).is_none_or(|w| w != "fetch") {
        return None;
    }
    let words = &args[at + 1..];
    let as_written = words.iter().take_while(|w| *w != "--").any(|w| {
        let w = w.to_string_lossy();
        AS_WRITTEN
            .iter()
            .any(|o| w == *o || w.starts_with(&format!("{o}=")))
    });
    if as_written {
        return None;
    }
    let mut out = args.to_vec();
    out.insert(at + 1, "--atomic".into());
    Some(out)
}

/// Should the fetch run again as written, after the atomic run ended with
/// `status` and `stderr`?
pub fn again(status: &ExitStatus, stderr: &[u8]) -> bool {
    if status.success() || status.code().is_none() {
        return false;
    }
    let text = String::from_utf8_lossy(stderr);
    status.code() == Some(129) || REJECTED.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_plain_fetch_is_made_atomic_after_the_subcommand() {
        let args = argv(&[
            "-C",
            "r",
            "fetch",
            "-q",
            "origin",
            "refs/tags/*:refs/tags/*",
        ]);
        assert_eq!(
            atomic(&args, 4),
            Some(argv(&[
                "-C",
                "r",
                "fetch",
                "--atomic",
                "-q",
                "origin",
                "refs/tags/*:refs/tags/*"
            ]))
        );
    }

    #[test]
    fn some_fetches_run_as_written() {
        for words in [
            &["fetch", "--atomic"][..],
            &["fetch", "--dry-run", "origin"],
            &["fetch", "--all"],
            &["fetch", "--multiple", "a", "b"],
            &["fetch", "--stdin", "origin"],
            &["fetch", "--prune", "origin"],
            &["fetch", "-p", "origin"],
            &["fetch", "--prune-tags", "origin"],
            &["pull"],
        ] {
            let args = argv(words);
            assert_eq!(atomic(&args, args.len()), None, "{words:?}");
        }
        // After `--`, words are refspecs, not options.
        let args = argv(&["fetch", "origin", "--", "--all"]);
        assert!(atomic(&args, args.len()).is_some());
    }
}
