//! The stash list: recorded by checkpoints, put back in order by undo.
//!
//! `git stash store` only pushes on top, so an entry dropped from the
//! middle of the list comes back by lifting the entries above its place
//! aside (their commits and messages are known), storing it, and storing
//! them again: the list ends as it was, ids, messages and positions alike.
//! Every entry lifted aside is kept reachable by a checkpoint (the one
//! recorded, or undo's safety checkpoint) before the list changes.

use super::Ctx;

/// One stash entry: (commit, reflog message).
pub type Entry = (String, String);

/// The stash entries, newest first.
pub fn list(ctx: &Ctx) -> Vec<Entry> {
    let Ok(out) = ctx.git.run([
        "log",
        "-g",
        "--no-decorate",
        "--format=%H %gs",
        "refs/stash",
        "--",
    ]) else {
        return Vec::new();
    };
    out.lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(sha, msg)| (sha.to_string(), msg.to_string()))
        .collect()
}

/// The list undo leaves: entries made since the checkpoint stay on top,
/// then every recorded entry in its recorded order.
pub fn wanted(recorded: &[Entry], current: &[Entry]) -> Vec<Entry> {
    let recorded_ids: Vec<&str> = recorded.iter().map(|(s, _)| s.as_str()).collect();
    current
        .iter()
        .filter(|(sha, _)| !recorded_ids.contains(&sha.as_str()))
        .chain(recorded)
        .cloned()
        .collect()
}

/// The recorded entries missing now, each with the position (`stash@{n}`)
/// it takes back.
pub fn missing(recorded: &[Entry], current: &[Entry]) -> Vec<(usize, Entry)> {
    wanted(recorded, current)
        .into_iter()
        .enumerate()
        .filter(|(_, e)| !current.iter().any(|(sha, _)| sha == &e.0))
        .collect()
}

/// How to get from `current` to `wanted`: how many entries to drop from
/// the top, then which to store, oldest first. The bottom the two lists
/// share stays as it is.
fn steps(current: &[Entry], wanted: &[Entry]) -> (usize, Vec<Entry>) {
    let shared = current
        .iter()
        .rev()
        .zip(wanted.iter().rev())
        .take_while(|(a, b)| a.0 == b.0)
        .count();
    let store = wanted[..wanted.len() - shared]
        .iter()
        .rev()
        .cloned()
        .collect();
    (current.len() - shared, store)
}

/// Rebuilds the stash list as [`wanted`] says. Returns what failed.
pub fn restore(ctx: &Ctx, recorded: &[Entry]) -> Vec<String> {
    let current = list(ctx);
    let wanted = wanted(recorded, &current);
    let mut failures = Vec::new();
    // `refs/stash` away from the newest entry of its reflog (`reflog
    // delete stash@{0}` leaves it so): a store of the commit it names
    // would log nothing. The list is rebuilt whole.
    let top = ctx
        .git
        .output(["rev-parse", "-q", "--verify", "refs/stash"])
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string());
    if top.is_some() && top.as_deref() != current.first().map(|(sha, _)| sha.as_str()) {
        if let Err(err) = ctx.git.run(["update-ref", "-d", "refs/stash"]) {
            failures.push(format!("stash: {}", err.message));
            return failures;
        }
        return store_all(ctx, wanted.iter().rev(), failures);
    }
    let (drops, stores) = steps(&current, &wanted);
    for _ in 0..drops {
        if let Err(err) = ctx.git.run(["stash", "drop", "-q", "stash@{0}"]) {
            failures.push(format!("stash: {}", err.message));
            return failures;
        }
    }
    store_all(ctx, stores.iter(), failures)
}

/// Stores `entries` in turn (oldest first); returns `failures` with what failed.
fn store_all<'e>(
    ctx: &Ctx,
    entries: impl Iterator<Item = &'e Entry>,
    mut failures: Vec<String>,
) -> Vec<String> {
    for (sha, msg) in entries {
        if let Err(err) = ctx.git.run(["stash", "store", "-m", msg, sha]) {
            failures.push(format!(
                "stash {}: {}",
                super::store::short(sha),
                err.message
            ));
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(ids: &str) -> Vec<Entry> {
        ids.chars()
            .map(|c| (c.to_string(), format!("m{c}")))
            .collect()
    }

    #[test]
    fn a_middle_entry_goes_back_in_place() {
        let (recorded, current) = (e("abc"), e("ac"));
        assert_eq!(wanted(&recorded, &current), e("abc"));
        assert_eq!(missing(&recorded, &current), vec![(1, e("b")[0].clone())]);
        assert_eq!(steps(&current, &e("abc")), (1, e("ba")));
        // Made since: stays on top.
        let current = e("xac");
        assert_eq!(wanted(&recorded, &current), e("xabc"));
        assert_eq!(steps(&current, &e("xabc")), (2, e("bax")));
        // Nothing lost, nothing moves.
        assert_eq!(steps(&e("ab"), &e("ab")), (0, Vec::new()));
        // All dropped.
        assert_eq!(steps(&[], &e("ab")), (0, e("ba")));
    }
}
