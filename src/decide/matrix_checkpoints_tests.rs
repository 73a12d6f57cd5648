//! The decision matrix of what runs after a checkpoint: destructive and
//! unstaging commands, ignored files in the way; unknown and overridden
//! commands; an agent branch protected too.

use super::matrix_support::*;
use super::*;

#[test]
fn the_matrix_of_checkpoints() {
    let Policies {
        default,
        no_checkpoint,
        keep_env,
        keep_env_off,
        read_override,
        agent_protected,
        read_alias,
        unknown_read,
        ..
    } = policies();

    let rows: Vec<(&str, &Policy, Action, Facts, Want)> = vec![
        // Destructive commands are checkpointed, then allowed.
        (
            "reset --hard on feature",
            &default,
            destructive("reset"),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "clean -fd on main",
            &default,
            destructive("clean"),
            agent("main", None),
            Want::Checkpoint,
        ),
        // Destructive and commit-making on main: switched, then checkpointed.
        (
            "rm -f on main, contract",
            &default,
            making_commits(destructive("rm")),
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        (
            "stash pop on main, contract",
            &default,
            making_commits(destructive("stash")),
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        (
            "stash pop on main, contract, checkpoints off",
            &no_checkpoint,
            making_commits(destructive("stash")),
            agent("main", Some("c1")),
            Want::Switch("agent/c1"),
        ),
        (
            "rm -f on main, no contract",
            &default,
            making_commits(destructive("rm")),
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        (
            "merge on main, ignored files kept",
            &keep_env,
            commit_like("merge"),
            agent("main", Some("c1")),
            Want::SwitchCheckpoint("agent/c1"),
        ),
        // Unstaging: a staged version only the index holds is checkpointed.
        (
            "reset (mixed) on main",
            &default,
            unstaging(Action::mutating("reset")),
            agent("main", None),
            Want::SaveStaged,
        ),
        (
            "restore --staged, checkpoints off",
            &no_checkpoint,
            unstaging(Action::mutating("restore")),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "mixed reset that moves main is denied",
            &default,
            unstaging(moves_current("reset", None)),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // Ignored files the policy keeps, in the way of incoming files.
        (
            "switch, ignored files kept",
            &keep_env,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "merge, ignored files kept",
            &keep_env,
            Action::mutating("merge"),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "worktree remove, ignored files kept",
            &keep_env,
            worktree_remove(),
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "worktree remove, no ignored files kept",
            &default,
            worktree_remove(),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "switch, no ignored files kept",
            &default,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "switch, ignored files kept, checkpoints off",
            &keep_env_off,
            checkout(CheckoutTarget::Local("other".into())),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "commit, ignored files kept",
            &keep_env,
            commit(),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "destructive, checkpoints off",
            &no_checkpoint,
            destructive("clean"),
            agent("feat", None),
            Want::Allow,
        ),
        (
            "destructive on main that moves main is denied",
            &default,
            Action {
                destructive: Some("reset --hard".into()),
                ..moves_current("reset", None)
            },
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // Unknown and overridden commands.
        (
            "unknown is mutating: on main, no contract",
            &default,
            unknown_lfs(),
            agent("main", None),
            Want::Deny(Code::D003),
        ),
        (
            "commands.read override",
            &read_override,
            unknown_lfs(),
            agent("main", None),
            Want::Allow,
        ),
        // The agent branch protected too: nowhere to move.
        (
            "commit on main, the agent branch protected",
            &agent_protected,
            commit(),
            agent("main", Some("c1")),
            Want::Deny(Code::D001),
        ),
        // An alias the policy calls read-only, as the config files define it.
        (
            "commands.read names a file's alias",
            &read_alias,
            Action {
                alias: Some("lg".into()),
                ..destructive("reset")
            },
            agent("feat", None),
            Want::Allow,
        ),
        (
            "commands.read names an alias defined for the command alone",
            &read_alias,
            Action {
                alias: Some("lg".into()),
                alias_given: true,
                ..destructive("reset")
            },
            agent("feat", None),
            Want::Checkpoint,
        ),
        (
            "commands.unknown = read",
            &unknown_read,
            unknown_lfs(),
            agent("main", None),
            Want::Allow,
        ),
    ];
    check(rows);
}
