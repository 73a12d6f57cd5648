//! `git ward drift`: guarded refs that moved with no hook of git-ward's,
//! and putting them back (`--restore`, also `git ward undo --drift`) or
//! taking their values as known (`--accept`).
//!
//! Also what the shim and the hooks do on finding drift ([`notice`]): a
//! warning on stderr and, the first time, an audit line with the decision
//! `drift`; and, with `enforce.drift = "restore"`, [`restore`] before an
//! agent's command runs.

use std::path::Path;
use std::time::SystemTime;

use crate::audit::{self, Record};
use crate::error::{exit, Error, Result};
use crate::facts::drift::{self, Found, Moved};
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::policy::Policy;

/// Arguments of `git ward drift`.
#[derive(Debug, Default, clap::Args)]
pub struct DriftArgs {
    /// Put every drifted ref back to the value git-ward last saw.
    #[arg(long, conflicts_with = "accept")]
    pub restore: bool,
    /// Take the drifted refs' current values as known.
    #[arg(long)]
    pub accept: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward drift`: lists drift (exit 1 when there is some), or
/// restores or accepts it.
pub fn run(args: DriftArgs) -> super::Outcome {
    let result = (|| {
        let repo = Repo::discover().ok_or_else(|| {
            Error::invalid("not in a git repository", "run it inside the repository")
        })?;
        let policy = facts::load_policy(Some(&repo), false)?;
        let found = scan(&repo, &policy);
        notice(repo.common_dir(), &found, "tool", false);
        if args.accept {
            super::tool_step(crate::decide::ToolStep::AcceptDrift, "ward.drift")?;
            drift::accept(repo.common_dir(), &mut |r| policy.is_protected(r))
                .map_err(|e| Error::internal(format!("cannot remember the refs: {e}")))?;
            return Ok(outcome(&found.moved, "accepted", exit::OK));
        }
        if args.restore {
            let restored = restore(&repo, &found.moved)?;
            return Ok(outcome(&restored, "restored", exit::OK));
        }
        let code = if found.moved.is_empty() {
            exit::OK
        } else {
            exit::DENIED
        };
        Ok(outcome(&found.moved, "moved with no hook", code))
    })();
    if let Ok((_, text, _)) = &result {
        if !args.json {
            crate::output::out!("{text}");
        }
    }
    super::Outcome::coded(args.json, result.map(|(value, _, code)| (value, code)))
}

fn outcome(moved: &[Moved], what: &str, code: u8) -> (serde_json::Value, String, u8) {
    let mut text = String::new();
    if moved.is_empty() {
        text.push_str("no guarded ref moved with git-ward's hooks off\n");
    }
    for m in moved {
        text += &format!("{what}: {}\n", m.describe());
    }
    if code != exit::OK {
        text.push_str("hint: `git ward drift --restore` puts them back; `git ward drift --accept` keeps them\n");
    }
    (
        serde_json::json!({"drift": moved, "action": what}),
        text,
        code,
    )
}

/// A full look for drift (what doctor and `git ward drift` read).
pub fn scan(repo: &Repo, policy: &Policy) -> Found {
    drift::check(repo.common_dir(), &mut |r| policy.is_protected(r))
}

/// Reports drift found by `source` (`shim`, a hook's name, `tool`): an audit
/// line per newly found move, and, when `warn`, a warning on stderr per move.
pub fn notice(common: &Path, found: &Found, source: &str, warn: bool) {
    if warn {
        for m in &found.moved {
            crate::output::errln!(
                "ward: warning: {} moved with git-ward's hooks off (drift); `git ward drift` says more",
                m.describe()
            );
        }
    }
    if found.new.is_empty() {
        return;
    }
    let now = audit::rfc3339(SystemTime::now());
    let lines: Vec<Record> = found
        .new
        .iter()
        .map(|m| Record {
            timestamp: now.clone(),
            started_at: now.clone(),
            trace_id: crate::hooks::trace_id(),
            source: source.into(),
            actor: "unknown".into(),
            operation: "ward.drift".into(),
            argv: Vec::new(),
            tier: 1,
            decision: "drift".into(),
            refname: Some(m.refname.clone()),
            old: Some(m.old.clone().unwrap_or_else(|| audit::ZERO_ID.into())),
            new: Some(m.new.clone().unwrap_or_else(|| audit::ZERO_ID.into())),
            ..Record::default()
        })
        .collect();
    audit::append(&audit::dir(common), &lines);
    drift::note(common, &found.new);
}

/// Puts each drifted ref back to the value git-ward last saw, if it still
/// holds the value it drifted to; returns those put back. git runs with
/// its hooks off for this one write: the value is the one the hooks last
/// allowed, and an agent's actor would otherwise be refused moving it.
pub fn restore(repo: &Repo, moved: &[Moved]) -> Result<Vec<Moved>> {
    let git = Git::locate()?
        .detached_from_env()
        .env("GIT_DIR", repo.git_dir())
        .in_dir(repo.workdir().unwrap_or(repo.git_dir()));
    let zero = audit::ZERO_ID;
    let mut done = Vec::new();
    for m in moved {
        let args: Vec<String> = match (&m.old, &m.new) {
            (Some(old), new) => vec![
                "update-ref".into(),
                m.refname.clone(),
                old.clone(),
                new.clone().unwrap_or_else(|| zero.into()),
            ],
            (None, Some(new)) => vec![
                "update-ref".into(),
                "-d".into(),
                m.refname.clone(),
                new.clone(),
            ],
            (None, None) => continue,
        };
        let mut full = vec!["-c".to_string(), "core.hooksPath=/dev/null".to_string()];
        full.extend(args);
        let out = git.output(&full)?;
        if !out.status.success() {
            return Err(Error::internal(format!(
                "cannot put {} back: {}",
                m.refname,
                String::from_utf8_lossy(&out.stderr).trim()
            ))
            .with_hint("it moved again meanwhile: run `git ward drift` to see it now"));
        }
        drift::remember(repo.common_dir(), &[(m.refname.clone(), m.old.clone())]);
        done.push(m.clone());
    }
    let now = audit::rfc3339(SystemTime::now());
    let lines: Vec<Record> = done
        .iter()
        .map(|m| Record {
            timestamp: now.clone(),
            started_at: now.clone(),
            trace_id: crate::hooks::trace_id(),
            source: "tool".into(),
            actor: "unknown".into(),
            operation: "ward.drift".into(),
            tier: 1,
            decision: "drift".into(),
            actions_taken: vec!["restored".into()],
            refname: Some(m.refname.clone()),
            old: Some(m.new.clone().unwrap_or_else(|| zero.into())),
            new: Some(m.old.clone().unwrap_or_else(|| zero.into())),
            ..Record::default()
        })
        .collect();
    if !lines.is_empty() {
        audit::append(&audit::dir(repo.common_dir()), &lines);
    }
    Ok(done)
}
