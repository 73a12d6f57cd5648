//! Repository pointers an agent's environment sets,
//! refused where they would take what a command does out of git-ward's
//! sight (EN-GIT-D-004):
//!
//! - another object store (`GIT_OBJECT_DIRECTORY`), or stores read besides
//!   the repository's own (`GIT_ALTERNATE_OBJECT_DIRECTORIES`): the refs
//!   the command moves would name objects the repository lacks, a
//!   corrupt branch once that store is gone, which neither a checkpoint
//!   nor undo can mend. Refused for every command that changes something,
//!   by the shim and by the reference-transaction hook alike.
//! - another index (`GIT_INDEX_FILE`) that tracks files on disk the
//!   repository's own index does not, for a command that writes the
//!   working tree: it deletes or overwrites them, and to the checkpoint
//!   before it (of the repository's index) they are untracked or
//!   ignored files it need not or cannot hold. A command that writes only
//!   the index, objects or refs (`add`, `commit`, `read-tree`,
//!   `write-tree`, `update-index`) runs; so does any command with an
//!   index that tracks nothing more.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::Serialize;

use super::{Actor, Decision};
use crate::action::Action;
use crate::error::Code;

/// The pointers of a command's environment that lead away from the
/// repository's own ([`crate::facts::pointers`]); each `None` where it is
/// unset or the repository's own.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pointers {
    /// `GIT_OBJECT_DIRECTORY`.
    pub objects: Option<PathBuf>,
    /// `GIT_ALTERNATE_OBJECT_DIRECTORIES`.
    pub alternates: Option<OsString>,
    /// `GIT_INDEX_FILE`, where it tracks files on disk the repository's
    /// index does not.
    pub index: Option<PathBuf>,
}

impl Pointers {
    /// Why the command's objects are not the repository's, as a clause.
    pub fn store_elsewhere(&self) -> Option<String> {
        if let Some(dir) = &self.objects {
            return Some(format!(
                "GIT_OBJECT_DIRECTORY={} writes its objects outside the repository's store",
                dir.display()
            ));
        }
        self.alternates.as_ref().map(|list| {
            format!(
                "GIT_ALTERNATE_OBJECT_DIRECTORIES={} lets it name objects the repository's store lacks",
                list.to_string_lossy()
            )
        })
    }
}

const HINT_STORE: &str = "unset GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES: a branch must name objects the repository holds; bring another repository's commits in with `git fetch <path> <branch>`";
const HINT_INDEX: &str = "unset GIT_INDEX_FILE for commands that write files; a temporary index suits `add`, `commit`, `read-tree` without -u, `update-index` and `write-tree`";

/// An agent's command (`changes`: it is not read-only) under pointers
/// that take it out of sight: the denial.
pub fn deny(action: &Action, pointers: &Pointers, actor: Actor, changes: bool) -> Option<Decision> {
    if actor != Actor::Agent || !changes {
        return None;
    }
    if let Some(why) = pointers.store_elsewhere() {
        return Some(store_denial(action.word(), &why));
    }
    let index = pointers
        .index
        .as_ref()
        .filter(|_| writes_worktree(action))?;
    Some(Decision::deny(
        Code::D004,
        format!(
            "{} with GIT_INDEX_FILE={} would delete or overwrite files only that index tracks, which no checkpoint holds",
            action.word(),
            index.display()
        ),
        HINT_INDEX,
        "enforce.actors",
    ))
}

/// The reference-transaction hook's answer to an agent's ref update made
/// under another object store (`why`, [`Pointers::store_elsewhere`]).
pub fn decide_store(actor: Actor, operation: &str, why: &str) -> Decision {
    match actor {
        Actor::Agent => store_denial(crate::action::command_word(operation), why),
        Actor::Human => Decision::allow("a person's object store is theirs to choose"),
    }
}

fn store_denial(word: &str, why: &str) -> Decision {
    Decision::deny(
        Code::D004,
        format!("{word} moves refs while {why}"),
        HINT_STORE,
        "enforce.actors",
    )
}

/// Can the command write files of the working tree (what an index it
/// reads says is there)?
fn writes_worktree(action: &Action) -> bool {
    action.destructive.is_some()
        || action.checkout.is_some()
        || action.may_drop_ignored()
        || matches!(
            action.command.as_str(),
            "rm" | "mv"
                | "checkout"
                | "switch"
                | "restore"
                | "reset"
                | "rebase"
                | "stash"
                | "checkout-index"
                | "read-tree"
                | "apply"
                | "worktree"
        ) && !action.unstages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::Action;

    fn index() -> Pointers {
        Pointers {
            index: Some("/tmp/other-index".into()),
            ..Pointers::default()
        }
    }

    fn refused(action: &Action, pointers: &Pointers) -> bool {
        deny(action, pointers, Actor::Agent, true).is_some()
    }

    #[test]
    fn another_object_store_stops_every_change_of_an_agent() {
        let store = Pointers {
            objects: Some("/tmp/objs".into()),
            ..Pointers::default()
        };
        let alternates = Pointers {
            alternates: Some("/tmp/a:/tmp/b".into()),
            ..Pointers::default()
        };
        for p in [&store, &alternates] {
            assert!(refused(&Action::mutating("commit"), p));
            assert!(deny(&Action::mutating("commit"), p, Actor::Human, true).is_none());
            assert!(deny(&Action::mutating("commit"), p, Actor::Agent, false).is_none());
        }
    }

    #[test]
    fn another_index_stops_only_what_writes_files() {
        let hard = Action {
            destructive: Some("reset --hard".into()),
            ..Action::mutating("reset")
        };
        assert!(refused(&hard, &index()));
        assert!(refused(&Action::mutating("checkout-index"), &index()));
        assert!(refused(&Action::mutating("stash"), &index()));
        for command in ["add", "commit", "write-tree", "update-index", "push"] {
            assert!(!refused(&Action::mutating(command), &index()), "{command}");
        }
        let mixed = Action {
            unstages: true,
            ..Action::mutating("reset")
        };
        assert!(!refused(&mixed, &index()));
        assert!(!refused(&hard, &Pointers::default()));
    }
}
