//! pre-receive (`git ward install --server`): the rules on the server.
//!
//! For everyone who pushes: no deletion and no non-fast-forward of a
//! protected ref, and commits carrying the contract footer (agent-made)
//! reach a protected ref only as `server.agent_commits_to_protected` says:
//! through a merge commit without the footer (`via-merge`: no footer on the
//! new first-parent line), never (`deny`), or freely (`allow`). The pushed
//! objects are still in git's quarantine; the git calls here inherit the
//! environment that points at it.

use std::collections::HashMap;
use std::time::SystemTime;

use super::reference_transaction::is_ancestor;
use super::{conclude, is_zero, record, Dirs};
use crate::decide::refs::{decide_receive, footer_in, PushUpdate, ReceiveFacts};
use crate::error::{exit, Result};
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::policy::Policy;

pub fn run(stdin: &[u8]) -> Result<u8> {
    let started = SystemTime::now();
    let dirs = Dirs::find();
    let repo = dirs.as_ref().and_then(Repo::from_dirs);
    let policy = facts::load_policy(repo.as_ref(), false)?;
    let actor = facts::actor(&policy, false);
    for line in String::from_utf8_lossy(stdin).lines() {
        let mut it = line.splitn(3, ' ');
        let (Some(old), Some(new), Some(refname)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        if !policy.is_protected(refname) {
            continue;
        }
        let mut update = PushUpdate {
            refname: refname.to_string(),
            old: (!is_zero(old)).then(|| old.to_string()),
            new: (!is_zero(new)).then(|| new.to_string()),
            fast_forward: true,
        };
        if let (Some(o), Some(n)) = (&update.old, &update.new) {
            update.fast_forward = is_ancestor(o, n);
        }
        let facts = match &update.new {
            Some(n) if update.fast_forward => footer_facts(&policy, update.old.as_deref(), n)?,
            _ => ReceiveFacts::default(),
        };
        let decision = decide_receive(&policy, &update, &facts);
        if decision.denial().is_some() {
            let mut rec = record("pre-receive", actor, None, started);
            rec.operation = "git.receive".into();
            rec.refname = Some(update.refname.clone());
            rec.old = update.old.clone();
            rec.new = update.new.clone();
            return Ok(conclude(dirs.as_ref(), rec, &decision, true));
        }
    }
    Ok(exit::OK)
}

/// The new commits carrying the footer: all of them, and those on the new
/// first-parent line from `new` back to `old`.
fn footer_facts(policy: &Policy, old: Option<&str>, new: &str) -> Result<ReceiveFacts> {
    let template = &policy.settings.commit.footer;
    if !super::is_object_id(new) || old.is_some_and(|o| !super::is_object_id(o)) {
        return Err(crate::error::Error::internal(format!(
            "pre-receive got an object id that is not one: {new}"
        )));
    }
    let range = match old {
        Some(old) => vec![new.to_string(), format!("^{old}")],
        None => vec![new.to_string(), "--not".into(), "--all".into()],
    };
    let mut args = vec!["log".to_string(), "--format=%H%x01%P%x01%B%x02".to_string()];
    args.extend(range);
    let out = Git::locate()?.run(&args)?;
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    let mut facts = ReceiveFacts::default();
    for entry in out.split('\u{2}') {
        let mut parts = entry.trim_start_matches('\n').splitn(3, '\u{1}');
        let (Some(id), Some(ps), Some(body)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        parents.insert(
            id.to_string(),
            ps.split_whitespace().next().map(str::to_string),
        );
        if footer_in(body, template) {
            facts.footer_anywhere.push(id.to_string());
        }
    }
    let mut at = Some(new.to_string());
    while let Some(id) = at {
        let Some(first) = parents.get(&id) else { break };
        if facts.footer_anywhere.contains(&id) {
            facts.footer_on_first_parent.push(id.clone());
        }
        at = first.clone();
    }
    Ok(facts)
}
