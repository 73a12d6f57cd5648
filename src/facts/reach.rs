//! Fills [`Reach`]: for a command that writes refs its command line does
//! not name, the ones it would write as git computes them (a push's local
//! refs against the remote-tracking refs that say what the remote has),
//! and which of git-ward's hooks will see them. Read only for such a
//! command, and only when the policy protects some ref.

use crate::action::{Action, RefTarget};
use crate::decide::{Facts, Reach};
use crate::policy::Policy;

use super::Repo;

/// What `action` reaches beyond its command line, in `repo`.
pub fn reach(policy: &Policy, repo: &Repo, action: &Action, facts: &Facts) -> Reach {
    let push = action.push.as_ref().filter(|p| p.all || p.tags || p.mirror);
    let unnamed_refs = action.refs.iter().any(|w| w.target == RefTarget::All);
    if (push.is_none() && !unnamed_refs) || !policy.protects_anything() {
        return Reach::default();
    }
    let mut reach = Reach {
        hooks: seeing_hooks(repo, action, facts),
        ..Reach::default()
    };
    if let Some(push) = push.filter(|p| !p.mirror && !reach.judged_by("pre-push")) {
        let remote = push.remote.as_deref().unwrap_or("origin");
        let configured = facts.remotes.iter().any(|r| r == remote);
        let mut prefixes = Vec::new();
        if push.all {
            prefixes.push("refs/heads/");
        }
        if push.tags {
            prefixes.push("refs/tags/");
        }
        for prefix in prefixes {
            for name in repo.ref_names(prefix).unwrap_or_default() {
                if !policy.is_protected(&name) {
                    continue;
                }
                // Tags have no remote-tracking refs: what the remote has is
                // not known here.
                let there = name
                    .strip_prefix("refs/heads/")
                    .filter(|_| configured)
                    .and_then(|b| repo.ref_target(&format!("refs/remotes/{remote}/{b}")));
                let changes = there.map(|there| repo.ref_target(&name).as_ref() != Some(&there));
                reach.pushed.push((name, changes));
            }
        }
    }
    reach
}

/// git-ward's hooks that git will run for this command: installed, all of
/// them healthy (none missing, replaced, or skipped by `core.hooksPath`,
/// none starting a binary that is gone), and not switched off by the
/// command line or the environment.
fn seeing_hooks(repo: &Repo, action: &Action, facts: &Facts) -> Vec<String> {
    use super::install_record::{manifest_of, ours, run_elsewhere};
    if action.hooks_off.is_some() || facts.env_hooks_off.is_some() {
        return Vec::new();
    }
    let Some(manifest) = manifest_of(repo) else {
        return Vec::new();
    };
    let healthy = |name: &String| {
        let path = manifest.hooks_dir.join(name);
        match ours(&path) {
            Some(Some(program)) => program.is_file(),
            Some(None) => std::fs::metadata(&path).is_ok_and(|m| m.is_file()),
            None => false,
        }
    };
    if run_elsewhere(repo, &manifest).is_some() || !manifest.hooks.iter().all(healthy) {
        return Vec::new();
    }
    manifest
        .hooks
        .iter()
        .filter(|h| crate::hook_table::sees_refs(h))
        .cloned()
        .collect()
}
