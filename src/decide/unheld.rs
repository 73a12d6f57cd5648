//! Work no checkpoint can hold, refused (EN-GIT-D-008): the facts that
//! `checkpoint/unheld.rs` finds before a destructive command runs, turned
//! into denials here, the one place that says no.
//!
//! A checkpoint holds the superproject's files: not a nested repository's
//! history or work, not what is uncommitted inside a submodule, not
//! ignored files outside `checkpoint.include_ignored`. Where a command
//! would destroy such work, it does not run.

use crate::error::{Code, Error};

/// What a command would destroy that no checkpoint can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unheld {
    /// A checkout of `tree` writes files into untracked nested
    /// repositories (`dirs`), over whatever is there.
    WritesIntoNested { tree: String, dirs: Vec<String> },
    /// `stash` deletes ignored files where tracked paths were.
    IgnoredInPlace(Vec<String>),
    /// `clean -ff` deletes nested repositories.
    NestedRepositories(Vec<String>),
    /// A command reaching into submodules (`what`) discards uncommitted
    /// work in them.
    DirtySubmodules { what: String, dirs: Vec<String> },
    /// A command removing submodules' working trees deletes ignored files
    /// in them that `checkpoint.include_ignored` keeps.
    KeptInSubmodules(Vec<String>),
}

/// The denial of a command that would destroy `unheld` (exit 1).
pub fn decide_unheld(unheld: &Unheld) -> Error {
    let (message, hint) = match unheld {
        Unheld::WritesIntoNested { tree, dirs } => (
            format!(
                "{tree} has files in {}, a nested repository, which git would overwrite and no checkpoint can hold",
                dirs.join(", ")
            ),
            format!(
                "move {} out of the working tree (or commit it as a submodule) first, or let a person run this command",
                dirs.first().map_or("it", String::as_str)
            ),
        ),
        Unheld::IgnoredInPlace(files) => (
            format!(
                "stash would delete ignored files where tracked paths were, which neither the stash nor a checkpoint holds: {}",
                files.join(", ")
            ),
            "move them aside (or restore the tracked paths) first, or let a person run this command".to_string(),
        ),
        Unheld::NestedRepositories(dirs) => {
            let one = dirs.len() == 1;
            (
                format!(
                    "clean -ff would delete {} nested repositor{} with {} history, which no checkpoint can hold: {}",
                    dirs.len(),
                    if one { "y" } else { "ies" },
                    if one { "its" } else { "their" },
                    dirs.join(", ")
                ),
                "move it out of the working tree (or commit it as a submodule) first, use a single -f, which leaves nested repositories alone, or let a person run this command".to_string(),
            )
        }
        Unheld::DirtySubmodules { what, dirs } => (
            format!(
                "{what}: uncommitted work in submodule{} {}, which no checkpoint can hold",
                if dirs.len() == 1 { "" } else { "s" },
                dirs.join(", ")
            ),
            format!(
                "commit or stash it inside the submodule first (`git -C {} stash -u`), or let a person run this command",
                dirs.first().map_or(".", String::as_str)
            ),
        ),
        Unheld::KeptInSubmodules(files) => (
            format!(
                "ignored files that checkpoint.include_ignored keeps are in a submodule this removes, and no checkpoint holds a submodule's files: {}",
                files.join(", ")
            ),
            "move them out of the submodule first, or let a person run this command".to_string(),
        ),
    };
    Error::denied(Code::D008, message, format!("nothing was run; {hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_no_checkpoint_holds_is_denied_with_a_way_out() {
        let rows = [
            (
                Unheld::NestedRepositories(vec!["vendor/lib/".into()]),
                "1 nested repository with its history",
            ),
            (
                Unheld::DirtySubmodules {
                    what: "reset --hard".into(),
                    dirs: vec!["sub".into()],
                },
                "uncommitted work in submodule sub,",
            ),
            (
                Unheld::WritesIntoNested {
                    tree: "agent/other".into(),
                    dirs: vec!["nested/".into()],
                },
                "nested/, a nested repository",
            ),
            (Unheld::IgnoredInPlace(vec!["d/x.log".into()]), "d/x.log"),
            (
                Unheld::KeptInSubmodules(vec!["sub/.env".into()]),
                "sub/.env",
            ),
        ];
        for (unheld, says) in rows {
            let err = decide_unheld(&unheld);
            assert_eq!(err.code, Code::D008);
            assert_eq!(err.exit_code(), crate::error::exit::DENIED);
            assert!(err.message.contains(says), "{}", err.message);
            let hint = err.hint.unwrap_or_default();
            assert!(hint.starts_with("nothing was run; "), "{hint}");
        }
    }
}
