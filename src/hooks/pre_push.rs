//! pre-push: every line of the push, not only the first.
//!
//! git passes `<local ref> <local id> <remote ref> <remote id>` per ref;
//! the local side may be an expression with spaces, so each line is split
//! from the right. A zero local id (`(delete)`) is a deletion. Whether a
//! line rewrites history is found by ancestry, whatever flag made it.

use std::time::SystemTime;

use super::{conclude, is_zero, record};
use crate::decide::refs::{decide_push_update, PushUpdate};
use crate::decide::Actor;
use crate::error::{exit, Result};
use crate::facts::ref_changes::is_ancestor;
use crate::facts::settings_cache::Quick;
use crate::facts::Dirs;
use crate::facts::{self, Repo};

/// Parses one input line into the remote ref's update (ancestry not yet known).
pub fn parse_line(line: &str) -> Option<PushUpdate> {
    let mut it = line.rsplitn(4, ' ');
    let remote_id = it.next()?;
    let remote_ref = it.next()?;
    let local_id = it.next()?;
    let local_ref = it.next()?;
    let delete = is_zero(local_id) || local_ref == "(delete)";
    Some(PushUpdate {
        refname: remote_ref.to_string(),
        old: (!is_zero(remote_id)).then(|| remote_id.to_string()),
        new: (!delete).then(|| local_id.to_string()),
        fast_forward: true,
    })
}

pub fn run(args: &[String], stdin: &[u8]) -> Result<u8> {
    let started = SystemTime::now();
    let text = String::from_utf8_lossy(stdin);
    let lines = || text.lines().filter(|l| !l.trim().is_empty());
    // git sends four fields a line; anything else is not git's, and what
    // it would push cannot be judged: refused (fail closed).
    if let Some(bad) = lines().find(|l| parse_line(l).is_none()) {
        return Err(crate::error::Error::internal(format!(
            "pre-push cannot read the line '{}': not `<local ref> <local id> <remote ref> <remote id>`",
            crate::error::printable(bad)
        ))
        .with_hint("run the push with git itself, which gives the hook its lines"));
    }
    let mut updates: Vec<PushUpdate> = lines().filter_map(parse_line).collect();
    if updates.is_empty() {
        return Ok(exit::OK);
    }
    let Some(dirs) = Dirs::find() else {
        return Ok(exit::OK);
    };
    let loaded = Quick::load(&dirs)?;
    let actor = loaded.quick.actor();
    if !loaded.quick.binds(actor) && updates.iter().all(|u| u.new.is_some()) {
        return Ok(exit::OK);
    }
    let repo = Repo::from_dirs(&dirs);
    let policy = match loaded.policy {
        Some(p) => p,
        None => facts::load_policy(repo.as_ref(), false)?,
    };
    // git names the remote as the push did (a URL for a push to one).
    let remote = args.first().map_or("origin", String::as_str);
    let contract = facts::contract(repo.as_ref()).ok().flatten().map(|c| c.0);
    for update in &mut updates {
        if let (Some(old), Some(new)) = (&update.old, &update.new) {
            if actor == Actor::Agent && !policy.force_allowed(&update.refname) {
                update.fast_forward = is_ancestor(old, new);
            }
        }
        let decision = decide_push_update(&policy, actor, update, remote, contract.as_deref());
        if decision.denial().is_some() {
            let contract = contract.clone();
            let mut rec = record("pre-push", actor, contract, started);
            rec.operation = "git.push".into();
            rec.refname = Some(update.refname.clone());
            rec.old = update.old.clone();
            rec.new = update.new.clone();
            rec.actions_taken = args.iter().map(|a| format!("remote {a}")).take(1).collect();
            return Ok(conclude(Some(&dirs), rec, &decision, true));
        }
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_from_the_right() {
        let z = "0000000000000000000000000000000000000000";
        let a = "1111111111111111111111111111111111111111";
        let u = parse_line(&format!("HEAD {a} refs/heads/main {z}")).unwrap();
        assert_eq!(
            (u.refname.as_str(), u.old, u.new.as_deref()),
            ("refs/heads/main", None, Some(a))
        );
        let d = parse_line(&format!("(delete) {z} refs/heads/main {a}")).unwrap();
        assert_eq!((d.old.as_deref(), d.new), (Some(a), None));
        let s = parse_line(&format!("HEAD~1 with space {a} refs/heads/x {a}")).unwrap();
        assert_eq!(s.refname, "refs/heads/x");
        assert!(parse_line("garbage").is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any line: no panic; a parsed line's ref is its third field from the right.
        #[test]
        fn any_line_parses_without_panic(line in "\\PC{0,200}") {
            if let Some(u) = parse_line(&line) {
                proptest::prop_assert!(!u.refname.contains(' '));
            }
        }
    }

    #[test]
    fn missing_fields_and_crlf_are_no_line() {
        let a = "1".repeat(40);
        assert!(parse_line("").is_none());
        assert!(parse_line(&format!("HEAD {a} refs/heads/main")).is_none());
        // git never sends CR; a CRLF line keeps its CR in the remote id, not the ref.
        let u = parse_line(&format!("HEAD {a} refs/heads/main {a}\r")).unwrap();
        assert_eq!(u.refname, "refs/heads/main");
    }
}
