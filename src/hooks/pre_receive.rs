//! pre-receive (`git ward install --server`): the rules on the server.
//!
//! For everyone who pushes: no deletion and no non-fast-forward of a
//! protected ref, and commits carrying the contract footer (agent-made)
//! reach a protected ref only as `server.agent_commits_to_protected` says:
//! through a merge commit without the footer (`via-merge`: no footer on the
//! new first-parent line), never (`deny`), or freely (`allow`). Also no
//! replacement refs (`refs/replace/`: they change what every branch holds),
//! and no team policy that is invalid or that takes over from the branch
//! it comes from now.
//!
//! The pushed objects are still in git's quarantine; the git calls here
//! inherit the environment that points at it. They read with replacement
//! refs off: a pushed or planted `refs/replace/` must not change what is
//! judged. A symbolic ref on the server (`trunk` pointing at `main`) is
//! judged as the ref git writes through it.

use std::collections::HashMap;
use std::time::SystemTime;

use super::{conclude, is_object_id, is_zero, record};
use crate::decide::refs::{decide_receive, footer_contract, footer_in, PushUpdate, ReceiveFacts};
use crate::error::{exit, Error, Result};
use crate::facts::refstore::{RefStore, Value};
use crate::facts::Dirs;
use crate::facts::{self, Repo};
use crate::git::Git;
use crate::policy::{Layer, Policy};

pub fn run(stdin: &[u8]) -> Result<u8> {
    let started = SystemTime::now();
    let dirs = Dirs::find();
    let repo = dirs.as_ref().and_then(Repo::from_dirs);
    // The server's layers only: the pusher's environment names none.
    let policy = facts::load_server_policy(repo.as_ref())?;
    let actor = facts::actor(&policy, false);
    // Every read here with replacement refs off.
    let git = Git::locate()?.env("GIT_NO_REPLACE_OBJECTS", "1");
    let mut store = dirs.as_ref().map(RefStore::new);
    let reftable = dirs
        .as_ref()
        .is_some_and(|d| facts::uses_reftable(&d.common_dir));
    for line in String::from_utf8_lossy(stdin).lines() {
        let Some((old, new, pushed)) = parse_line(line) else {
            continue;
        };
        let refname = match (reftable, store.as_mut()) {
            (true, _) => written_via_git(&git, pushed),
            (false, Some(store)) => written_ref(store, pushed),
            (false, None) => pushed.to_string(),
        };
        if !policy.is_protected(&refname) && !refname.starts_with("refs/replace/") {
            continue;
        }
        let mut update = PushUpdate {
            refname,
            old: (!is_zero(old)).then(|| old.to_string()),
            new: (!is_zero(new)).then(|| new.to_string()),
            fast_forward: true,
        };
        for id in [&update.old, &update.new].into_iter().flatten() {
            if !is_object_id(id) {
                return Err(Error::internal(format!(
                    "pre-receive got an object id that is not one: {id}"
                )));
            }
        }
        if let (Some(o), Some(n)) = (&update.old, &update.new) {
            update.fast_forward = is_ancestor(&git, o, n);
        }
        let facts = match (&update.new, repo.as_ref()) {
            (Some(n), Some(repo))
                if update.fast_forward && policy.is_protected(&update.refname) =>
            {
                let mut facts = footer_facts(&git, &policy, repo, update.old.as_deref(), n)?;
                team_facts(&git, repo, &update, n, &mut facts)?;
                facts
            }
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

/// One input line, `<old> <new> <ref>`; `None` for a line of fewer fields.
pub fn parse_line(line: &str) -> Option<(&str, &str, &str)> {
    let mut it = line.splitn(3, ' ');
    Some((it.next()?, it.next()?, it.next()?))
}

/// Is `a` an ancestor of `b`?
fn is_ancestor(git: &Git, a: &str, b: &str) -> bool {
    git.output(["merge-base", "--is-ancestor", a, b])
        .is_ok_and(|o| o.status.success())
}

/// The ref a push to `name` writes: `name`, or the ref a symbolic `name`
/// points at, followed as git follows it.
fn written_ref(store: &mut RefStore, name: &str) -> String {
    let mut at = name.to_string();
    for _ in 0..5 {
        match store.raw(&at) {
            Some(Value::Symbolic(target)) => at = target,
            _ => break,
        }
    }
    at
}

/// [`written_ref`] through the real git (reftable).
fn written_via_git(git: &Git, name: &str) -> String {
    git.output(["symbolic-ref", "-q", "--", name])
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| name.to_string())
}

/// One new commit: its first parent and its message.
#[derive(Debug)]
pub struct Commit {
    pub first_parent: Option<String>,
    pub message: String,
}

/// The commits a push brings to a protected ref: `old..new`, or for a
/// new ref those no protected ref of the server holds yet (commits that
/// wait on an agent branch there count: they reach a protected ref now).
fn new_commits(
    git: &Git,
    policy: &Policy,
    repo: &Repo,
    old: Option<&str>,
    new: &str,
) -> Result<HashMap<String, Commit>> {
    let mut args = vec!["rev-list".to_string(), new.to_string()];
    match old {
        Some(old) => args.push(format!("^{old}")),
        None => {
            let mut held = repo.ref_names("refs/heads/").unwrap_or_default();
            held.extend(repo.ref_names("refs/tags/").unwrap_or_default());
            for name in held.into_iter().filter(|r| policy.is_protected(r)) {
                args.push(format!("^{name}"));
            }
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let ids = git.run(&args)?;
    let ids: Vec<&str> = ids.lines().filter(|l| is_object_id(l)).collect();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    // `--batch`: each object as `<id> <type> <size>\n`, its bytes, `\n`,
    // so that a message may hold any byte.
    let input = ids.join("\n") + "\n";
    let out = git.output_with(["cat-file", "--batch"], &[], Some(input.as_bytes()))?;
    if !out.status.success() {
        return Err(Error::internal(
            "pre-receive cannot read the pushed commits",
        ));
    }
    let commits = parse_batch(&out.stdout);
    if commits.len() != ids.len() {
        return Err(Error::internal(
            "pre-receive cannot read every pushed commit",
        ));
    }
    Ok(commits)
}

/// The commits of `git cat-file --batch` output, by id; reading stops at
/// the first record that is not `<id> <type> <size>\n`, its bytes, `\n`.
pub fn parse_batch(out: &[u8]) -> HashMap<String, Commit> {
    let mut commits = HashMap::new();
    let mut rest = out;
    while let Some(eol) = rest.iter().position(|&b| b == b'\n') {
        let header = String::from_utf8_lossy(&rest[..eol]).into_owned();
        let mut fields = header.split(' ');
        let (Some(id), Some(kind), Some(size)) = (fields.next(), fields.next(), fields.next())
        else {
            break;
        };
        let Ok(size) = size.parse::<usize>() else {
            break;
        };
        // A size past the output (however large) ends the reading.
        let Some(body) = (eol + 1)
            .checked_add(size)
            .and_then(|end| rest.get(eol + 1..end))
        else {
            break;
        };
        rest = rest.get(eol + 2 + body.len()..).unwrap_or_default();
        if kind == "commit" {
            commits.insert(id.to_string(), parse_commit(body));
        }
    }
    commits
}

/// A raw commit's first parent and message (after the headers' blank line).
fn parse_commit(raw: &[u8]) -> Commit {
    let split = raw
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(raw.len());
    let headers = String::from_utf8_lossy(&raw[..split]);
    let first_parent = headers
        .lines()
        .find_map(|l| l.strip_prefix("parent "))
        .map(|p| p.trim().to_string());
    let message = String::from_utf8_lossy(raw.get(split + 2..).unwrap_or_default()).into_owned();
    Commit {
        first_parent,
        message,
    }
}

/// The new commits carrying the footer: all of them, and those on the new
/// first-parent line from `new` back to `old`.
fn footer_facts(
    git: &Git,
    policy: &Policy,
    repo: &Repo,
    old: Option<&str>,
    new: &str,
) -> Result<ReceiveFacts> {
    let template = &policy.settings.commit.footer;
    let commits = new_commits(git, policy, repo, old, new)?;
    let mut facts = ReceiveFacts::default();
    for (id, commit) in &commits {
        if footer_in(&commit.message, template) {
            facts.footer_anywhere.push(id.clone());
        }
    }
    facts.footer_anywhere.sort();
    let mut at = Some(new.to_string());
    while let Some(id) = at {
        let Some(commit) = commits.get(&id) else {
            break;
        };
        if facts.footer_anywhere.binary_search(&id).is_ok() {
            if facts.footer_on_first_parent.is_empty() {
                facts.contract = footer_contract(&commit.message, template).map(str::to_string);
            }
            facts.footer_on_first_parent.push(id.clone());
        }
        at = commit.first_parent.clone();
    }
    Ok(facts)
}

/// Where the team layer comes from after this push: the first branch of
/// the layers below it that exists. A push to it must leave a valid
/// policy; a push creating one ahead of it must bring the same file.
fn team_facts(
    git: &Git,
    repo: &Repo,
    update: &PushUpdate,
    new: &str,
    facts: &mut ReceiveFacts,
) -> Result<()> {
    let Some(pushed) = update.refname.strip_prefix("refs/heads/") else {
        return Ok(());
    };
    let below = facts::below_team()?;
    let branches = facts::literal_branches(below.protected_patterns());
    let Some(rank) = branches.iter().position(|b| *b == pushed) else {
        return Ok(());
    };
    let now = branches
        .iter()
        .position(|b| repo.ref_target(&format!("refs/heads/{b}")).is_some());
    let becomes_source = match now {
        Some(now) => rank <= now,
        None => true,
    };
    if !becomes_source {
        return Ok(());
    }
    let text = facts::team_policy_at(git, new, pushed)?;
    if let Some(text) = &text {
        if let Err(e) = Policy::built_in().add_layer_bytes(text, Layer::Team(pushed.to_string())) {
            facts.team_policy_invalid = Some(e.message);
            return Ok(());
        }
    }
    if let Some(now) = now.filter(|&now| rank < now && update.old.is_none()) {
        let source = &branches[now];
        let commit = format!("refs/heads/{source}");
        let current = facts::team_policy_at(git, &commit, source)?;
        if current != text {
            facts.takes_team_from = Some(source.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_batch;

    #[test]
    fn a_batch_reads_each_commit_and_stops_at_a_size_past_the_output() {
        let a = "a".repeat(40);
        let body = format!("tree {a}\nparent {a}\n\nSubject\n");
        let out = format!("{a} commit {}\n{body}\n", body.len());
        let commits = parse_batch(out.as_bytes());
        assert_eq!(commits[&a].first_parent.as_deref(), Some(a.as_str()));
        assert_eq!(commits[&a].message, "Subject\n");
        // Found by fuzzing (docs/fuzzing.md): a size that overflowed the
        // end of the record.
        let huge = format!("{a} commit {}\nx\n", usize::MAX);
        assert!(parse_batch(huge.as_bytes()).is_empty());
        assert!(parse_batch(format!("{a} commit 99\nshort\n").as_bytes()).is_empty());
    }
}
