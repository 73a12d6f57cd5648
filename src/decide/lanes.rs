//! One lane, one owner (EN-GIT-D-007): a worktree a live
//! session holds is changed only by agents of that session's contract,
//! and removed, moved or pruned by none. Reads stay allowed; a person is
//! warned, never refused.

use super::{Actor, Decision, Facts, Held};
use crate::action::{Action, Effect};
use crate::error::Code;

/// Commands that change neither HEAD, nor the index, nor the files of the
/// worktree they run in (refs elsewhere, remotes, objects, other
/// worktrees: `worktree remove|move|prune` are judged by the worktree
/// they take away).
const LEAVE_WORKTREE: &[&str] = &[
    "fetch",
    "push",
    "remote",
    "tag",
    "notes",
    "gc",
    "maintenance",
    "repack",
    "pack-refs",
    "prune",
    "commit-graph",
    "multi-pack-index",
    "bundle",
    "worktree",
];

/// The lease of another contract on the worktree `action` changes, if any.
fn held_by_other<'a>(action: &Action, facts: &'a Facts, effect: Effect) -> Option<&'a Held> {
    if effect == Effect::Read || LEAVE_WORKTREE.contains(&action.command.as_str()) {
        return None;
    }
    facts.lease_here.as_ref().filter(|h| !owns(facts, h))
}

/// Is the command the lease holder's? An agent of its contract, named by
/// the environment (`git ward run` sets WARD_CONTRACT for its command): the
/// contract file of a lane names the lane's contract for anyone in it.
fn owns(facts: &Facts, h: &Held) -> bool {
    facts.actor == Actor::Agent
        && facts.contract_from_env
        && facts.contract.as_deref() == Some(h.contract.as_str())
}

fn d007(message: String, hint: impl Into<String>) -> Decision {
    Decision {
        key: None,
        ..Decision::deny(Code::D007, message, hint, "")
    }
}

fn owner(h: &Held) -> String {
    format!("contract '{}' (pid {})", h.contract, h.pid)
}

fn hint(facts: &Facts) -> String {
    let yours = facts.contract.as_deref().unwrap_or("<id>");
    format!("work in a lane of your own: `git ward run --worktree --contract {yours} -- <command>`; read-only commands here stay allowed")
}

/// EN-GIT-D-007 for an agent's command, when it applies.
pub fn deny(action: &Action, facts: &Facts, effect: Effect) -> Option<Decision> {
    if facts.actor != Actor::Agent {
        return None;
    }
    if let Some(h) = &facts.lease_removed {
        let verb = if action.removes_worktree.is_some() {
            "remove"
        } else if action.moves_worktree.is_some() {
            "move"
        } else {
            "prune"
        };
        return Some(d007(
            format!(
                "worktree {verb} takes away {}, which a live session of {} works in",
                h.worktree,
                owner(h)
            ),
            "leave it to its session (`git ward sessions` shows it); once that ends, the worktree may go, its work checkpointed first; work in a lane of your own: `git ward run --worktree`",
        ));
    }
    let h = held_by_other(action, facts, effect)?;
    Some(d007(
        format!(
            "{} would change worktree {}, whose live session lease belongs to {}",
            action.word(),
            h.worktree,
            owner(h)
        ),
        hint(facts),
    ))
}

/// `git ward run` in a worktree a live session holds: one session per
/// worktree, whoever starts the second.
pub fn busy(h: &Held) -> Decision {
    d007(
        format!(
            "worktree {} is held by a live session of {}",
            h.worktree,
            owner(h)
        ),
        "wait for that session to end, or give this one a lane of its own: `git ward run --worktree --contract <id> -- <command>`",
    )
}

/// An agent's `git ward undo` or `rollback` in a worktree another
/// contract's live session holds.
pub fn restore_refused(h: &Held, what: &str) -> Decision {
    d007(
        format!(
            "{what} would change worktree {}, whose live session lease belongs to {}",
            h.worktree,
            owner(h)
        ),
        "undo and roll back in your own lane: `git ward run --worktree --contract <id> -- <command>`",
    )
}

/// The warning a person gets where an agent would be refused.
pub fn warning(action: &Action, facts: &Facts, effect: Effect) -> Option<String> {
    if facts.actor != Actor::Human {
        return None;
    }
    let h = facts
        .lease_removed
        .as_ref()
        .or_else(|| held_by_other(action, facts, effect))?;
    Some(format!(
        "ward: warning: worktree {} is leased by a live session of {}; its agent may lose track of what you change",
        h.worktree,
        owner(h)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::decide;
    use crate::policy::Policy;

    fn held(contract: &str) -> Option<Held> {
        Some(Held {
            contract: contract.into(),
            pid: 42,
            worktree: "/lanes/a".into(),
        })
    }

    fn code(action: &Action, facts: &Facts) -> Option<&'static str> {
        decide(&Policy::built_in(), action, facts)
            .denial()
            .map(|e| e.code.as_str())
    }

    #[test]
    fn another_contract_changes_nothing_in_a_leased_worktree() {
        let commit = Action {
            creates_commits: true,
            ..Action::mutating("commit")
        };
        let reset = Action::mutating("reset");
        let mut facts = Facts::agent_on("agent/b", Some("b"));
        facts.lease_here = held("a");
        facts.contract_from_env = true;
        // (action, contract, expected)
        let rows: [(&Action, Option<&str>, Option<&str>); 6] = [
            (&commit, Some("b"), Some("EN-GIT-D-007")),
            (&reset, None, Some("EN-GIT-D-007")),
            (&commit, Some("a"), None),
            (&Action::read("status"), Some("b"), None),
            (&Action::mutating("fetch"), Some("b"), None),
            (&Action::mutating("tag"), Some("b"), None),
        ];
        for (action, contract, want) in rows {
            facts.contract = contract.map(str::to_string);
            assert_eq!(
                code(action, &facts),
                want,
                "{} as {contract:?}",
                action.command
            );
        }
        // The lane's contract file names its contract for anyone in it.
        facts.contract_from_env = false;
        facts.contract = Some("a".into());
        assert_eq!(code(&commit, &facts), Some("EN-GIT-D-007"));
    }

    #[test]
    fn a_leased_worktree_is_neither_removed_nor_moved_nor_pruned_by_an_agent() {
        let mut facts = Facts::agent_on("agent/b", Some("a"));
        facts.lease_removed = held("a");
        let remove = Action {
            removes_worktree: Some("../a".into()),
            ..Action::mutating("worktree")
        };
        let d = decide(&Policy::built_in(), &remove, &facts);
        let err = d.denial().expect("refused");
        assert_eq!(err.code.as_str(), "EN-GIT-D-007");
        assert!(err.message.contains("worktree remove"), "{}", err.message);
        assert!(
            err.message.contains("contract 'a' (pid 42)"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_person_is_warned_never_refused() {
        let mut facts = Facts::agent_on("agent/a", Some("a"));
        facts.actor = Actor::Human;
        facts.lease_here = held("a");
        let reset = Action::mutating("reset");
        assert_eq!(code(&reset, &facts), None);
        let w = warning(&reset, &facts, Effect::Mutating).expect("warned");
        assert!(w.contains("contract 'a'"), "{w}");
        assert_eq!(warning(&Action::read("log"), &facts, Effect::Read), None);
    }
}
