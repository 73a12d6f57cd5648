//! What the matrix tables share: the policies they run under and the
//! actions and facts their rows are built from.

use super::*;

/// Every policy a matrix row runs under, each parsed once.
pub(super) struct Policies {
    pub(super) default: Policy,
    pub(super) off: Policy,
    pub(super) others: Policy,
    pub(super) no_sync: Policy,
    pub(super) no_checkpoint: Policy,
    pub(super) keep_env: Policy,
    pub(super) keep_env_off: Policy,
    pub(super) read_override: Policy,
    pub(super) agent_protected: Policy,
    pub(super) read_alias: Policy,
    pub(super) unknown_read: Policy,
    pub(super) everyone: Policy,
    pub(super) lax_checkout: Policy,
    pub(super) no_verify_ok: Policy,
}

pub(super) fn policies() -> Policies {
    Policies {
        default: policy(""),
        off: policy("[capabilities]\nensure_working_branch = false\n"),
        others: policy("[capabilities]\nensure_working_branch = [\"team-*\"]\n"),
        no_sync: policy("[branches]\nsync_from_upstream = false\n"),
        no_checkpoint: policy("[checkpoint]\nbefore_destructive = false\n"),
        keep_env: policy("[checkpoint]\ninclude_ignored = [\".env\"]\n"),
        keep_env_off: policy(
            "[checkpoint]\ninclude_ignored = [\".env\"]\nbefore_destructive = false\n",
        ),
        read_override: policy("[commands]\nread = [\"lfs\"]\n"),
        agent_protected: policy("[branches]\nprotected = [\"main\", \"agent/*\"]\n"),
        read_alias: policy("[commands]\nread = [\"lg\"]\n"),
        unknown_read: policy("[commands]\nunknown = \"read\"\n"),
        everyone: policy("[enforce]\nactors = \"everyone\"\n"),
        lax_checkout: policy("[checkout]\nlocal_only = false\n"),
        no_verify_ok: policy("[enforce]\nallow_no_verify = true\n"),
    }
}

/// `cmd` moving the checked-out branch, from `start` if the line names it.
pub(super) fn moves_current(cmd: &str, start: Option<&str>) -> Action {
    ref_write(cmd, RefTarget::Current, RefOp::Update, start)
}

/// `cmd` writing the ref `r`.
pub(super) fn writes_ref(cmd: &str, r: &str, op: RefOp, start: Option<&str>) -> Action {
    ref_write(cmd, named(r), op, start)
}

/// `action`, making commits too.
pub(super) fn making_commits(action: Action) -> Action {
    Action {
        creates_commits: true,
        ..action
    }
}

/// `action`, syncing from upstream.
pub(super) fn syncing(action: Action) -> Action {
    Action {
        syncs: true,
        ..action
    }
}

/// `action`, unstaging.
pub(super) fn unstaging(action: Action) -> Action {
    Action {
        unstages: true,
        ..action
    }
}

/// `lfs`, a command git does not know, making commits.
pub(super) fn unknown_lfs() -> Action {
    Action {
        effect: Effect::Unknown,
        ..making_commits(Action::mutating("lfs"))
    }
}

/// `worktree remove ../wt`.
pub(super) fn worktree_remove() -> Action {
    Action {
        removes_worktree: Some("../wt".into()),
        ..Action::mutating("worktree")
    }
}

/// A commit with the hooks switched off, as `why` says.
pub(super) fn commit_hooks_off(why: &str) -> Action {
    Action {
        hooks_off: Some(why.into()),
        ..commit()
    }
}

/// `diff --output=file`.
pub(super) fn diff_output(file: &str) -> Action {
    Action {
        effect: Effect::Mutating,
        writes_files: vec![file.into()],
        destructive: Some("diff writes it".into()),
        ..Action::read("diff")
    }
}

/// A push `--mirror`, or to a mirror remote.
pub(super) fn mirror_push(push: Push) -> Action {
    Action {
        push: Some(Push {
            mirror: true,
            force: true,
            ..push
        }),
        ..Action::mutating("push")
    }
}

/// `facts`, with the update a fast-forward.
pub(super) fn fast_forward(facts: Facts) -> Facts {
    Facts {
        fast_forward: true,
        ..facts
    }
}

/// `facts`, with a gate hook another manager replaced.
pub(super) fn gate_replaced(facts: Facts) -> Facts {
    Facts {
        gates_replaced: Some("git runs /r/.git/hooks/pre-push".into()),
        ..facts
    }
}

/// `facts`, with the command writing into the git directory at `path`.
pub(super) fn writes_git_dir(path: &str, facts: Facts) -> Facts {
    Facts {
        writes_guarded: Some(format!("writes into the git directory ({path})")),
        ..facts
    }
}

/// `action`, a dry run.
pub(super) fn dry_run(action: Action) -> Action {
    Action {
        effect: Effect::Read,
        ..action
    }
}

/// `branch` re-pointing `main`'s upstream.
pub(super) fn repoint_main_upstream() -> Action {
    Action {
        repoints: vec!["branch.main.merge".into()],
        ..Action::mutating("branch")
    }
}
