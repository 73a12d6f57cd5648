//! reference-transaction: the backstop, and the ref journal.
//!
//! git runs it for every ref transaction, with the state as its argument
//! and one `<old> <new> <ref>` line per ref on stdin.
//!
//! - `preparing`, `prepared`: deny any write of a protected ref that the
//!   rules forbid, whatever command made it. The old value on stdin is not
//!   trusted (it is zero whenever the caller gave none, which is also how
//!   `branch -D` and `update-ref -d` delete): the ref is read here.
//! - `committed`: append each ref that really changed to the audit log as a
//!   journal line (`ref`, `old`, `new`), which `git ward undo` reads. The old
//!   values were captured in `prepared`, where the refs still hold them, and
//!   carried over in `<git-common-dir>/ward/tx/<git pid>-<input hash>` (the
//!   hook script looks for it there before starting git-ward at all).
//! - `aborted`: drop that file. Any other state: nothing.
//!
//! Journal lines are written for agents, and for any command that carries a
//! trace id (`WARD_TRACE_ID`: the shim's commands and git-ward's own, such
//! as `git ward undo`, so that undo is undoable). A human's plain git
//! commands are not journaled. A journal failure is reported, never fatal.

use std::path::PathBuf;
use std::time::SystemTime;

use super::{conclude, is_zero, record};
use crate::audit::{self, Record};
use crate::decide::pointers::decide_store;
use crate::decide::refs::{decide_transaction, in_git_dir_root, shadowed_branch, RefChange};
use crate::decide::{Actor, Decision};
use crate::env;
use crate::error::{exit, Result};
use crate::facts::ref_changes;
pub use crate::facts::ref_changes::Line;
use crate::facts::refstore::{RefStore, Value};
use crate::facts::settings_cache::{Loaded, Quick};
use crate::facts::Dirs;

/// The carry-over file's first line names the actor (no ref starts with `#`).
const ACTOR: &str = "#actor";

/// The input's lines of refs worth a look ([`journaled`]).
pub fn parse(stdin: &[u8]) -> Vec<Line> {
    String::from_utf8_lossy(stdin)
        .lines()
        .filter_map(|l| {
            let mut it = l.splitn(3, ' ');
            let (old, new, refname) = (it.next()?, it.next()?, it.next()?);
            Some(Line {
                old: old.to_string(),
                new: new.to_string(),
                refname: refname.to_string(),
            })
        })
        .filter(|l| journaled(&l.refname))
        .collect()
}

/// Refs worth a look: `HEAD` and everything under `refs/` but git-ward's own
/// `refs/ward/*`; not the pseudo-refs (`ORIG_HEAD`, `AUTO_MERGE`, `FETCH_HEAD` ...).
fn journaled(refname: &str) -> bool {
    refname == "HEAD"
        || (refname.starts_with("refs/") && !refname.starts_with("refs/ward/"))
        || in_git_dir_root(refname)
}

/// Refs the rules can protect, names that stand for them (top-level ones,
/// `refs/<name>`, tags: [`shadowed_branch`]), remote-tracking refs
/// (protected branches sync to them) and replacement refs (they change
/// what protected branches read as).
fn policed(refname: &str) -> bool {
    refname.starts_with("refs/heads/")
        || refname.starts_with("refs/remotes/")
        || refname.starts_with("refs/replace/")
        || shadowed_branch(refname).is_some()
        || in_git_dir_root(refname)
}

pub fn run(args: &[String], stdin: &[u8]) -> Result<u8> {
    let state = args.first().map(String::as_str).unwrap_or("");
    match state {
        "preparing" | "prepared" => gate(state, stdin),
        "committed" => {
            // The repository found once for the three observers.
            if let Some(dirs) = Dirs::find() {
                super::ward_refs::keep_displaced(&dirs, stdin);
                journal(&dirs, stdin);
                watch_drift(&dirs, stdin);
            }
            Ok(exit::OK)
        }
        "aborted" => {
            if let Some(dirs) = Dirs::find() {
                let files = [
                    tx_file(&dirs, stdin),
                    super::ward_refs::displaced_file(&dirs, stdin),
                ];
                for path in files.into_iter().flatten() {
                    let _ = std::fs::remove_file(path);
                }
            }
            Ok(exit::OK)
        }
        _ => Ok(exit::OK),
    }
}

/// After a transaction: its guarded refs' new values are remembered (they
/// moved with the hooks on), and any other guarded ref that moved with the
/// hooks off is reported ([`crate::facts::drift`]). An observer: never fatal.
fn watch_drift(dirs: &Dirs, stdin: &[u8]) {
    let lines = parse(stdin);
    if !lines
        .iter()
        .any(|l| policed(&l.refname) || l.refname.starts_with("refs/tags/"))
    {
        return;
    }
    let Some(watched) = crate::facts::drift::watch(&dirs.common_dir) else {
        return;
    };
    let Ok(loaded) = Quick::load(dirs) else {
        return;
    };
    let mut quick = loaded.quick;
    let mut protected = |r: &str| quick.is_protected(r);
    // A deletion is read back: pack-refs deletes the loose file of a ref
    // it has just written to packed-refs, and the ref is still there.
    let mut store = RefStore::new(dirs);
    let moves: Vec<(String, Option<String>)> = lines
        .iter()
        .filter(|l| crate::facts::drift::guarded(&l.refname, &mut protected))
        .map(|l| {
            let now = match is_zero(&l.new) {
                true => store.resolve(&l.refname),
                false => Some(l.new.clone()),
            };
            (l.refname.clone(), now)
        })
        .collect();
    // A look for drift, when this transaction moved no guarded ref and
    // touched no remote-tracking ref or tag: a fetch runs one transaction
    // per ref, and a look after each would read the refs once per ref.
    let fetch_like = lines
        .iter()
        .any(|l| l.refname.starts_with("refs/remotes/") || l.refname.starts_with("refs/tags/"));
    if !moves.is_empty() {
        watched.remember(&moves);
    } else if !fetch_like {
        let found = watched.check(&mut protected);
        crate::commands::drift::notice(&dirs.common_dir, &found, "reference-transaction", true);
    }
}

/// The carry-over file of this transaction: git's pid and a hash of the input,
/// which is the same in every state of one transaction.
pub(super) fn tx_file(dirs: &Dirs, stdin: &[u8]) -> Option<PathBuf> {
    let hash = crate::facts::settings_cache::fnv(stdin);
    let ppid = std::os::unix::process::parent_id();
    Some(
        dirs.common_dir
            .join("ward")
            .join("tx")
            .join(format!("{ppid}-{hash:016x}")),
    )
}

fn gate(state: &str, stdin: &[u8]) -> Result<u8> {
    let started = SystemTime::now();
    if let Some(code) = super::ward_refs::gate(state, stdin)? {
        return Ok(code);
    }
    let lines = parse(stdin);
    if lines.is_empty() {
        return Ok(exit::OK);
    }
    // The repository, found once for the steps that need it.
    let found = std::cell::OnceCell::new();
    let dirs = || found.get_or_init(Dirs::find).as_ref();
    if let Some(code) = store_elsewhere(dirs, started)? {
        return Ok(code);
    }
    if state == "prepared" {
        warn_leased(dirs, &lines);
    }
    let tracing = env::var(env::WARD_TRACE_ID).is_some();
    if !tracing && !lines.iter().any(|l| policed(&l.refname)) {
        return Ok(exit::OK);
    }
    let Some(dirs) = dirs() else {
        return Ok(exit::OK);
    };
    let loaded = Quick::load(dirs)?;
    let mut quick = loaded.quick;
    let actor = quick.actor();
    let bound = quick.binds(actor);
    let journaling = state == "prepared" && (actor == Actor::Agent || tracing);
    if !bound && !journaling {
        return Ok(exit::OK);
    }
    let mut store = RefStore::new(dirs);
    if bound {
        let policed_lines = lines.iter().filter(|l| policed(&l.refname));
        let mut changes = ref_changes::gather(dirs, &mut store, &mut quick, policed_lines);
        if !changes.is_empty() {
            let policy = Loaded::full_policy(loaded.policy, dirs)?;
            let argv = super::parent_argv();
            ref_changes::add_sync_facts(dirs, &mut store, &mut changes, &argv);
            let operation = super::parent_operation(&argv);
            let decision = decide_transaction(&policy, actor, &operation, &changes);
            let code = conclude_changes(dirs, actor, operation, &changes, &decision, started);
            if code != exit::OK {
                return Ok(code);
            }
        }
    }
    if journaling {
        capture(dirs, &mut store, &lines, stdin, actor);
    }
    Ok(exit::OK)
}

/// Refs moved by a git whose environment takes its objects out of the
/// repository's store ([`crate::decide::pointers`]): the conclusion, for
/// an agent's; `None` (and nothing read) where no such variable is set.
fn store_elsewhere<'d>(
    dirs: impl FnOnce() -> Option<&'d Dirs>,
    started: SystemTime,
) -> Result<Option<u8>> {
    if !crate::facts::pointers::store_pointed() {
        return Ok(None);
    }
    let Some(dirs) = dirs() else {
        return Ok(None);
    };
    let Some(why) = crate::facts::pointers::store_elsewhere(&dirs.common_dir) else {
        return Ok(None);
    };
    let actor = Quick::load(dirs)?.quick.actor();
    let operation = super::parent_operation(&super::parent_argv());
    let decision = decide_store(actor, &operation, &why);
    if decision.denial().is_none() {
        return Ok(None);
    }
    let contract = crate::facts::contract(None).ok().flatten().map(|c| c.0);
    let mut rec = record("reference-transaction", actor, contract, started);
    rec.operation = operation;
    Ok(Some(conclude(Some(dirs), rec, &decision, true)))
}

/// A person's move of HEAD or of its branch in a worktree a live session
/// holds (`reset`, `checkout`, `merge` ... by the real git): a warning, as
/// a session's lane gives people (an agent is refused, EN-GIT-D-007, by the
/// shim and by pre-commit). A commit's was said by pre-commit already.
/// Costs one failed `open` where no lease is.
fn warn_leased<'d>(dirs: impl FnOnce() -> Option<&'d Dirs>, lines: &[Line]) {
    if !lines
        .iter()
        .any(|l| l.refname == "HEAD" || l.refname.starts_with("refs/heads/"))
    {
        return;
    }
    let Some(dirs) = dirs() else {
        return;
    };
    let Some(lease) = crate::facts::lease::live(&dirs.git_dir) else {
        return;
    };
    let branch = crate::facts::head_branch_file(&dirs.git_dir).map(|b| format!("refs/heads/{b}"));
    if !lines
        .iter()
        .any(|l| l.refname == "HEAD" || Some(&l.refname) == branch.as_ref())
    {
        return;
    }
    let operation = super::parent_operation(&super::parent_argv());
    let Ok(loaded) = Quick::load(dirs) else {
        return;
    };
    if operation == "git.commit" {
        return;
    }
    let mut facts = crate::decide::Facts::agent_on("", None);
    facts.actor = loaded.quick.actor();
    facts.lease_here = Some(lease.held());
    let command = operation.strip_prefix("git.").unwrap_or("update-ref");
    let action = crate::action::Action::mutating(command);
    let effect = crate::action::Effect::Mutating;
    if let Some(w) = crate::decide::lanes::warning(&action, &facts, effect) {
        crate::output::errln!("{w}");
    }
}

/// The gate's conclusion on a transaction's changes: logged, and
/// printed when denied, naming the first change.
fn conclude_changes(
    dirs: &Dirs,
    actor: Actor,
    operation: String,
    changes: &[RefChange],
    decision: &Decision,
    started: SystemTime,
) -> u8 {
    let contract = crate::facts::contract(None).ok().flatten().map(|c| c.0);
    let mut rec = record("reference-transaction", actor, contract, started);
    rec.operation = operation;
    if let Some(c) = changes.first() {
        rec.refname = Some(c.refname.clone());
        rec.old = c.current.clone();
        rec.new = c.new.clone();
    }
    conclude(Some(dirs), rec, decision, true)
}

/// The value a journal line's `old` should hold: what the ref holds now.
fn value_now(store: &mut RefStore, refname: &str, symbolic_wanted: bool) -> Option<String> {
    if symbolic_wanted {
        if let Some(Value::Symbolic(t)) = store.raw(refname) {
            return Some(format!("ref:{t}"));
        }
    }
    store.resolve(refname)
}

/// In `prepared`: the real old value of every ref, for `committed`.
fn capture(dirs: &Dirs, store: &mut RefStore, lines: &[Line], stdin: &[u8], actor: Actor) {
    let Some(path) = tx_file(dirs, stdin) else {
        return;
    };
    let mut text = format!("{ACTOR}\t{}\n", actor.as_str());
    for l in lines {
        let old = value_now(store, &l.refname, l.new.starts_with("ref:"))
            .unwrap_or_else(|| zero_like(&l.new, &l.old));
        text.push_str(&format!("{}\t{}\n", l.refname, old));
    }
    write_carry_over(&path, &text, "record the ref journal");
}

/// Writes a file `prepared` leaves for `committed`; a failure is a
/// warning (`what` the file is for), never fatal.
pub(super) fn write_carry_over(path: &std::path::Path, text: &str, what: &str) {
    let result = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text));
    if let Err(e) = result {
        crate::output::errln!("ward: warning: cannot {what} in {}: {e}", path.display());
    }
}

fn zero_like(a: &str, b: &str) -> String {
    let len = [a, b]
        .iter()
        .find(|v| !v.starts_with("ref:"))
        .map_or(40, |v| v.len());
    "0".repeat(len)
}

/// In `committed`: one journal line per ref that really changed.
fn journal(dirs: &Dirs, stdin: &[u8]) {
    let Some(path) = tx_file(dirs, stdin) else {
        return;
    };
    let Ok(captured) = crate::state_file::read_text(&path) else {
        return;
    };
    let _ = std::fs::remove_file(&path);
    let mut store = RefStore::new(dirs);
    let now = SystemTime::now();
    let trace_id = super::trace_id();
    let contract = crate::facts::contract(None).ok().flatten().map(|c| c.0);
    let argv = super::parent_argv();
    let actor = captured
        .lines()
        .find_map(|c| c.strip_prefix(ACTOR)?.strip_prefix('\t'))
        .unwrap_or("agent")
        .to_string();
    // By name: a fetch of many refs has as many lines.
    let olds: std::collections::HashMap<&str, &str> = captured
        .lines()
        .filter_map(|c| c.split_once('\t'))
        .collect();
    let mut records = Vec::new();
    for l in parse(stdin) {
        let Some(old) = olds.get(l.refname.as_str()).map(|v| v.to_string()) else {
            continue;
        };
        let new = if is_zero(&l.new) {
            zero_like(&l.new, &old)
        } else {
            l.new.clone()
        };
        // Skip what did not really change: pack-refs moving a ref into
        // packed-refs, or a deletion that a later transaction completes.
        let after = value_now(&mut store, &l.refname, new.starts_with("ref:"));
        let effective = match &after {
            Some(v) => *v == new,
            None => is_zero(&new),
        };
        if old == new || !effective {
            continue;
        }
        records.push(Record {
            timestamp: audit::rfc3339(now),
            started_at: audit::rfc3339(now),
            trace_id: trace_id.clone(),
            source: "reference-transaction".into(),
            actor: actor.clone(),
            contract_id: contract.clone(),
            operation: "git.ref-update".into(),
            argv: argv.clone(),
            exit_code: Some(0),
            worktree: dirs.work_tree.as_ref().map(|w| w.display().to_string()),
            ..Record::journal(l.refname.clone(), old, new)
        });
    }
    if !records.is_empty() {
        audit::append(&dirs.audit_dir(), &records);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any bytes on stdin: no panic, and every line kept names a ref
        /// worth a look.
        #[test]
        fn any_input_parses_without_panic(
            stdin in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        ) {
            for l in parse(&stdin) {
                proptest::prop_assert!(journaled(&l.refname));
                let _ = zero_like(&l.new, &l.old);
            }
        }
    }

    #[test]
    fn odd_lines_are_skipped_or_read_whole() {
        let z = "0".repeat(40);
        let long = "f".repeat(1 << 20);
        let text = format!(
            "{z} {z}\n{z}\r\n\n  \nnothex alsonot refs/heads/main\r\n{z} {long} refs/heads/x y\n"
        );
        let mut bytes = text.into_bytes();
        bytes.push(0xff);
        let lines = parse(&bytes);
        let names: Vec<&str> = lines.iter().map(|l| l.refname.as_str()).collect();
        assert_eq!(names, ["refs/heads/main", "refs/heads/x y"]);
        assert_eq!(lines[0].new, "alsonot");
        assert_eq!(parse(b"\xff\xfe \x00 refs/heads/\xff\n").len(), 1);
    }
}
