//! `git_checkout`: local branches only, with the seed's rules and messages.
//!
//! The name is classified (local, remote-tracking, revision expression),
//! and `decide`'s checkout rule (EN-GIT-D-006) refuses all but a local
//! branch; the refusal reaches the agent as `invalid_branch` with the code
//! and hint. Git's own refusal is `checkout_failed`, a slow git
//! `checkout_timeout` (`timeouts.git_seconds`).

use serde_json::json;

use crate::action::{Action, CheckoutTarget};
use crate::error::Error;

use super::call::{Ctx, Output, ToolError, ToolResult};
use super::git_tools::{run, timeout_or};

/// `git_checkout`: switch to a local branch, by its plain name only.
pub fn checkout(ctx: &mut Ctx) -> ToolResult {
    let name = ctx.required_str("branch_name")?;
    if name.trim().is_empty() || name.chars().any(|c| c.is_control() || c == ' ') {
        return Err(invalid_branch(name, "is not a branch name"));
    }
    let repo = crate::facts::Repo::at(&ctx.dir);
    let repo_remotes = repo.as_ref().map(|r| r.remotes()).unwrap_or_default();
    let local = repo.as_ref().is_some_and(|r| r.is_local_branch(name));
    // Anything else git would resolve (`origin/main` without a configured
    // `origin`, a tag) is a revision, as the shim reads it.
    let other = !local && repo.as_ref().is_some_and(|r| r.ref_target(name).is_some());
    let target = checkout_target(name, &repo_remotes, local, other);
    let action = Action {
        checkout: Some(target),
        ..Action::mutating("checkout")
    };
    let g = ctx
        .govern("git.checkout", &["checkout", name], Some(action))
        .map_err(|e| match e.kind {
            "denied" if e.code == "EN-GIT-D-006" => ToolError {
                kind: "invalid_branch",
                ..e
            },
            _ => e,
        })?;
    if !local {
        return Err(invalid_branch(name, "is not a local branch"));
    }
    // An ignored file the policy keeps, in the way: saved first (decide).
    let checkpoint = match (&g.a.repo, g.a.decision.checkpoint) {
        (Some(repo), true) => crate::checkpoint::before_destructive(
            &g.git,
            repo,
            g.a.policy.as_ref().ok().map(|p| &p.settings),
            &crate::checkpoint::Pending {
                action: &g.a.action,
                cwd: &g.dir,
                paths: None,
                keep_ignored: g.a.facts.as_ref().map_or(&[], |f| &f.ignored_in_the_way),
            },
            g.contract.as_deref(),
            &g.trace_id,
        )
        .map_err(|e| ToolError::new("checkout_failed", &e))?,
        _ => None,
    };
    if let Some(id) = &checkpoint {
        // Named in the audit line, as the shim's are: undo starts from it.
        ctx.note(format!("checkpoint {id}"));
    }
    let out = g
        .git
        .output(["checkout", "--quiet", name, "--"])
        .map_err(|e| timeout_or("checkout_timeout", "checkout_failed", &e))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(ToolError::new(
            "checkout_failed",
            &Error::internal(format!("git checkout {name} failed: {}", said.trim())).with_hint(
                "save or checkpoint your changes first (save, checkpoint_create), then retry",
            ),
        ));
    }
    let hash = run(&g, &["rev-parse", "HEAD"])?;
    let mut result = json!({ "branch": name, "commit_hash": hash.trim() });
    if let Some(id) = checkpoint {
        result["checkpoint"] = id.into();
    }
    Ok(Output::json(super::results::conform::<
        super::results::Checkout,
    >(result)?))
}

/// What a checkout name is, as the classifier sees it: a plain local name,
/// a remote-tracking ref, or a revision expression (or, with `is_revision`,
/// another ref git resolves it to).
pub fn checkout_target(
    name: &str,
    remotes: &[String],
    is_local: bool,
    is_revision: bool,
) -> CheckoutTarget {
    let special = name.contains("..")
        || name.contains(['~', '^', ':', '\\', '*', '?', '['])
        || name.contains("@{")
        || name.starts_with(['-', '/'])
        || name.ends_with(['/', '.'])
        || name == "@"
        || name == "HEAD"
        || (name.starts_with("refs/") && !name.starts_with("refs/remotes/"));
    if special {
        return CheckoutTarget::Special(name.to_string());
    }
    let remote = name.starts_with("remotes/")
        || name.starts_with("refs/remotes/")
        || (!is_local
            && name
                .split_once('/')
                .is_some_and(|(r, _)| remotes.iter().any(|x| x == r)));
    if remote {
        CheckoutTarget::Remote(name.to_string())
    } else if is_revision {
        CheckoutTarget::Special(name.to_string())
    } else {
        CheckoutTarget::Local(name.to_string())
    }
}

fn invalid_branch(name: &str, why: &str) -> ToolError {
    ToolError::invalid(
        "invalid_branch",
        format!("'{name}' {why}"),
        "pass the plain name of a local branch (see git_status for the current one); to work from a remote ref, create a local branch from it first",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkout_names_are_classified_like_the_seed() {
        let remotes = vec!["origin".to_string()];
        let t = |n: &str, local: bool| checkout_target(n, &remotes, local, false);
        assert_eq!(
            t("feature/x", true),
            CheckoutTarget::Local("feature/x".into())
        );
        assert_eq!(t("main", false), CheckoutTarget::Local("main".into()));
        for remote in [
            "origin/main",
            "remotes/origin/main",
            "refs/remotes/origin/main",
        ] {
            assert_eq!(
                t(remote, false),
                CheckoutTarget::Remote(remote.into()),
                "{remote}"
            );
        }
        assert_eq!(
            t("origin/main", true),
            CheckoutTarget::Local("origin/main".into())
        );
        // A ref of another remote, or a tag: what git would check out.
        assert_eq!(
            checkout_target("upstream/main", &remotes, false, true),
            CheckoutTarget::Special("upstream/main".into())
        );
        for special in [
            "a..b",
            "HEAD~1",
            "main^",
            "@{-1}",
            "-f",
            "/etc",
            "HEAD",
            "refs/heads/x",
        ] {
            assert_eq!(
                t(special, false),
                CheckoutTarget::Special(special.into()),
                "{special}"
            );
        }
    }
}
