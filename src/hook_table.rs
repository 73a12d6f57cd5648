//! The hooks git-ward installs, in one table: which side of a push each
//! runs on, whether git hands it input on stdin, whether it is a gate (it
//! refuses what the rules forbid when the shim is skipped; the footer hooks
//! only add a line), and whether it sees each ref a command writes. Every
//! list of hook names is drawn from it. Pure data.

/// Where a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// A working repository's hooks.
    Client,
    /// A bare repository's, run by `receive-pack`.
    Server,
}

/// One hook git-ward installs.
pub struct Hook {
    pub name: &'static str,
    pub side: Side,
    /// git writes its input on stdin (replayed to a chained hook).
    pub stdin: bool,
    /// It refuses: another manager replacing it switches a rule off.
    pub gate: bool,
    /// It sees every ref a command writes, named or not (`push --all`,
    /// `update-ref --stdin`).
    pub sees_refs: bool,
    /// `receive-pack` runs it, for a push the repository receives (the
    /// others only a working repository's commands run).
    pub received: bool,
}

/// Every hook, the client ones first, in the order `install` reports them.
pub const HOOKS: &[Hook] = &[
    hook("pre-commit", Side::Client, false, true, false, false),
    hook(
        "prepare-commit-msg",
        Side::Client,
        false,
        false,
        false,
        false,
    ),
    hook("commit-msg", Side::Client, false, false, false, false),
    hook("applypatch-msg", Side::Client, false, false, false, false),
    hook("pre-push", Side::Client, true, true, true, false),
    hook(
        "reference-transaction",
        Side::Client,
        true,
        true,
        true,
        true,
    ),
    hook("pre-receive", Side::Server, true, false, false, true),
];

const fn hook(
    name: &'static str,
    side: Side,
    stdin: bool,
    gate: bool,
    sees_refs: bool,
    received: bool,
) -> Hook {
    Hook {
        name,
        side,
        stdin,
        gate,
        sees_refs,
        received,
    }
}

/// Every hook's name (what git-ward answers to as a hook).
pub fn names() -> impl Iterator<Item = &'static str> + Clone {
    HOOKS.iter().map(|h| h.name)
}

/// The names of the hooks of one side.
pub fn on(side: Side) -> impl Iterator<Item = &'static str> + Clone {
    HOOKS.iter().filter(move |h| h.side == side).map(|h| h.name)
}

/// The names of the gates.
pub fn gates() -> impl Iterator<Item = &'static str> + Clone {
    HOOKS.iter().filter(|h| h.gate).map(|h| h.name)
}

fn find(name: &str) -> Option<&'static Hook> {
    HOOKS.iter().find(|h| h.name == name)
}

/// Is `name` a hook git-ward installs?
pub fn known(name: &str) -> bool {
    find(name).is_some()
}

/// Does git hand hook `name` its input on stdin?
pub fn reads_stdin(name: &str) -> bool {
    find(name).is_some_and(|h| h.stdin)
}

/// Is hook `name` a gate?
pub fn is_gate(name: &str) -> bool {
    find(name).is_some_and(|h| h.gate)
}

/// Can `receive-pack` run hook `name`?
pub fn received(name: &str) -> bool {
    find(name).is_some_and(|h| h.received)
}

/// Does hook `name` see every ref a command writes?
pub fn sees_refs(name: &str) -> bool {
    find(name).is_some_and(|h| h.sees_refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_drawn_from_the_table() {
        let client: Vec<_> = on(Side::Client).collect();
        assert_eq!(client.len(), 6);
        assert_eq!(on(Side::Server).collect::<Vec<_>>(), ["pre-receive"]);
        assert_eq!(
            gates().collect::<Vec<_>>(),
            ["pre-commit", "pre-push", "reference-transaction"]
        );
        assert!(reads_stdin("pre-receive") && !reads_stdin("commit-msg"));
        assert!(sees_refs("pre-push") && !sees_refs("pre-commit"));
        assert!(received("reference-transaction") && !received("pre-push"));
        assert!(known("applypatch-msg") && !known("post-commit") && !is_gate("commit-msg"));
    }
}
