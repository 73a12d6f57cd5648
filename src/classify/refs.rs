//! Commands that write refs by name: branch, tag, update-ref, symbolic-ref.

use super::commands::every_ref;
use super::names::branch_ref;
use super::options::parse;
use super::{tables, Context};
use crate::action::{Action, CheckoutTarget, Effect, RefOp, RefTarget, RefWrite};

fn write(target: RefTarget, op: RefOp, start: Option<&String>) -> RefWrite {
    RefWrite {
        target,
        op,
        start: start.cloned(),
    }
}

/// `branch`: lists without names (or with `--list`, `-a`, `-r`, `-v`,
/// `--contains` and the other filters, `--show-current`); `-d` deletes each
/// name (`-D`, `-d -f` and `--delete --force` whatever is unmerged:
/// destructive); `-m`/`-M [old] new` deletes old (the current branch when
/// omitted) and creates new (an update when forced, since it may replace
/// one: destructive when `new` exists, whose reflog git replaces with
/// old's); `-c`/`-C` copy likewise without the delete; `x [start]` creates,
/// `-f x [start]` moves. With `-r` a deletion names remote-tracking refs.
pub(super) fn branch(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::BRANCH, false);
    let force = p.flag("force");
    let names = &p.args;
    if p.flag("delete") || p.flag("D") {
        let remotes = p.flag("remotes");
        for name in names {
            let full = if remotes {
                format!("refs/remotes/{name}")
            } else {
                branch_ref(name)
            };
            a.refs
                .push(write(RefTarget::Named(full), RefOp::Delete, None));
        }
        if (p.flag("D") || force) && !remotes {
            a.destructive = Some("branch -D deletes a branch whatever its unmerged commits".into());
        }
        return;
    }
    let rename = p.flag("move") || p.flag("M");
    if rename || p.flag("copy") || p.flag("C") {
        let forced = force || p.flag("M") || p.flag("C");
        let (old, new) = match names.as_slice() {
            [new] => (RefTarget::Current, new),
            [old, new] => (RefTarget::Named(branch_ref(old)), new),
            _ => return,
        };
        let replaces = match &old {
            RefTarget::Named(old) => old != &branch_ref(new),
            _ => ctx.current_branch != Some(new.as_str()),
        };
        if forced && replaces && (ctx.is_local_branch)(new) {
            a.destructive =
                Some("branch -M/-C replaces an existing branch, and its reflog with it".into());
        }
        if rename {
            a.refs.push(write(old, RefOp::Delete, None));
        }
        let op = if forced { RefOp::Update } else { RefOp::Create };
        a.refs
            .push(write(RefTarget::Named(branch_ref(new)), op, None));
        return;
    }
    if p.given("set-upstream-to") {
        // Says where the branch syncs from.
        if let Some(branch) = names.first().map(String::as_str).or(ctx.current_branch) {
            a.repoints.push(format!("branch.{branch}.merge"));
        }
        return;
    }
    if p.flag("unset-upstream") || p.flag("edit-description") {
        return;
    }
    let filters = [
        "list",
        "show-current",
        "contains",
        "no-contains",
        "with",
        "without",
        "merged",
        "no-merged",
        "points-at",
    ];
    if names.is_empty() || filters.iter().any(|f| p.given(f)) {
        a.effect = Effect::Read;
        return;
    }
    if p.flag("remotes") || p.flag("all") {
        // git refuses a branch name with -a/-r outside --list.
        return;
    }
    let op = if force { RefOp::Update } else { RefOp::Create };
    a.refs.push(write(
        RefTarget::Named(branch_ref(&names[0])),
        op,
        names.get(1),
    ));
}

/// `tag`: lists without a name (or with `-l`, `-n`, the filters); `-v`
/// verifies; `-d` deletes each name; `<name> [<commit>]` creates
/// `refs/tags/<name>` (`-f`: may move an existing one, an update). `-d`
/// and `-f` are destructive ([`NO_REFLOG_TAG`]); `-f` of a tag that does
/// not exist yet only creates it (protected tags may be created).
pub(super) fn tag(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::TAG, false);
    let names = &p.args;
    if p.flag("delete") {
        for name in names {
            let full = format!("refs/tags/{name}");
            a.refs
                .push(write(RefTarget::Named(full), RefOp::Delete, None));
        }
        if !names.is_empty() {
            a.destructive = Some(NO_REFLOG_TAG.into());
        }
        return;
    }
    let filters = [
        "list",
        "verify",
        "n",
        "contains",
        "no-contains",
        "with",
        "without",
        "merged",
        "no-merged",
        "points-at",
    ];
    if names.is_empty() || filters.iter().any(|f| p.given(f)) {
        a.effect = Effect::Read;
        return;
    }
    let full = format!("refs/tags/{}", names[0]);
    let op = if p.flag("force") && (ctx.is_revision)(&full) {
        a.destructive = Some(NO_REFLOG_TAG.into());
        RefOp::Update
    } else {
        RefOp::Create
    };
    a.refs.push(write(RefTarget::Named(full), op, names.get(1)));
}

/// Why deleting or moving a tag counts as destructive: a tag keeps no
/// reflog, so its old value is reachable from nowhere afterwards.
const NO_REFLOG_TAG: &str = "tag -d and tag -f drop a tag's old value, which no reflog keeps";

/// `update-ref [-d] <ref> [<new> [<old>]]`: the ref as written (`HEAD` is
/// the current branch unless `--no-deref`); an all-zero `<old>` creates.
/// `-d` is destructive, like `branch -D`: the ref's reflog goes with it.
/// `--stdin` reads its updates from stdin, which the command line does not
/// show: [`RefTarget::All`].
pub(super) fn update_ref(args: &[String], a: &mut Action) {
    let p = parse(args, tables::UPDATE_REF, false);
    if p.flag("stdin") {
        a.refs.push(every_ref());
        return;
    }
    let Some(name) = p.args.first() else { return };
    let target = if name == "HEAD" && !p.flag("no-deref") {
        RefTarget::Current
    } else {
        RefTarget::Named(name.clone())
    };
    let zero = |w: &String| !w.is_empty() && w.chars().all(|c| c == '0');
    let op = if p.flag("d") {
        a.destructive = Some("update-ref -d deletes a ref and its reflog".into());
        RefOp::Delete
    } else if p.args.get(2).is_some_and(zero) {
        RefOp::Create
    } else {
        RefOp::Update
    };
    a.refs.push(write(target, op, None));
}

/// `reflog expire|delete --updateref`: sets each ref named (`main` of
/// `main@{0}`; every ref for `expire --all`) to the value of its newest
/// entry left, which after `delete main@{0}` is the one before. git writes
/// it outside any reference transaction, so no hook sees the move and no
/// journal line records it: only the shim can judge it. `HEAD` is the
/// current branch; a short name that is no local branch may be a tag or
/// any other ref git finds by that name ([`RefTarget::All`]).
pub(super) fn reflog_updateref(args: &[String], ctx: &Context, a: &mut Action) {
    let Some((sub, rest)) = args.split_first() else {
        return;
    };
    // git's own option table: prefixes (`--upd`), negations, and the
    // value of `--expire <time>`, which names no ref.
    let p = parse(rest, tables::REFLOG_EXPIRE, false);
    if !p.flag("updateref") || p.flag("dry-run") || !matches!(sub.as_str(), "expire" | "delete") {
        return;
    }
    if p.flag("all") && sub == "expire" {
        a.refs.push(every_ref());
    }
    for name in &p.args {
        let name = name.split("@{").next().unwrap_or_default();
        let target = match name {
            "HEAD" | "@" | "" => RefTarget::Current,
            n if n.starts_with("refs/") => RefTarget::Named(n.to_string()),
            n if (ctx.is_local_branch)(n) => RefTarget::Named(format!("refs/heads/{n}")),
            _ => RefTarget::All,
        };
        if !a.refs.iter().any(|w| w.target == target) {
            a.refs.push(write(target, RefOp::Update, None));
        }
    }
}

/// `replace`: writes `refs/replace/<object>` (`replace <object>
/// <replacement>`, `--edit`, `--graft`), or deletes one (`-d`); listing
/// (`-l`, or no arguments) reads.
pub(super) fn replace(args: &[String], a: &mut Action) {
    if args.is_empty() || args.iter().any(|w| w == "-l" || w == "--list") {
        a.effect = Effect::Read;
        return;
    }
    let delete = args
        .iter()
        .take_while(|w| *w != "--")
        .any(|w| w == "-d" || w == "--delete");
    let object = args
        .iter()
        .find(|w| !w.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let op = if delete { RefOp::Delete } else { RefOp::Create };
    a.refs.push(write(
        RefTarget::Named(format!("refs/replace/{object}")),
        op,
        None,
    ));
}

/// `symbolic-ref <name>` reads; `symbolic-ref HEAD refs/heads/x` moves HEAD
/// to another branch without touching files (read as a checkout of it);
/// `symbolic-ref <ref> <target>` repoints another ref; `-d` deletes.
/// `git refs migrate --ref-format=<format>` (`verify` reads). Into
/// reftable, git renames branches without a reference transaction, so the
/// hook never sees `branch -m x main`: for an agent, that switches the
/// backstop off. Back into files is how a reftable repository gets the
/// shim's checks again.
pub(super) fn refs(args: &[String], a: &mut Action) {
    match args.first().map(String::as_str) {
        Some("verify") => a.effect = crate::action::Effect::Read,
        Some("migrate") => match migrate_format(&args[1..]) {
            // A dry run converts into a scratch directory; either way
            // nothing leaves the files backend.
            Some("files") => a.migrates_to_files = true,
            Some(_) if migrate_dry_run(&args[1..]) => {}
            _ => {
                a.hooks_off = Some(
                    "refs migrate into reftable, where git renames branches without the reference-transaction hook"
                        .into(),
                )
            }
        },
        _ => {}
    }
}

/// The long option a word of `refs migrate` spells, as git's option
/// parser reads it: any unambiguous prefix (`--ref-f=files`), `--no-`
/// negations; with its `=value`.
fn migrate_option(word: &str) -> Option<(&'static str, bool, Option<&str>)> {
    let body = word.strip_prefix("--")?;
    let (name, value) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let (name, negated) = match name.strip_prefix("no-") {
        Some(rest) => (rest, true),
        None => (name, false),
    };
    let known = ["ref-format", "dry-run", "reflog"];
    let mut hits = known
        .iter()
        .filter(|k| !name.is_empty() && k.starts_with(name));
    match (hits.next(), hits.next()) {
        (Some(k), None) => Some((k, negated, value)),
        _ => None,
    }
}

/// The format `refs migrate` converts to: the last `--ref-format` wins.
fn migrate_format(args: &[String]) -> Option<&str> {
    let mut format = None;
    for (i, w) in args.iter().enumerate() {
        if let Some(("ref-format", false, value)) = migrate_option(w) {
            format = value.or_else(|| args.get(i + 1).map(String::as_str));
        }
    }
    format
}

/// Is the last word about it `--dry-run` (not `--no-dry-run`)?
fn migrate_dry_run(args: &[String]) -> bool {
    args.iter()
        .rev()
        .filter_map(|w| migrate_option(w))
        .find(|(k, _, _)| *k == "dry-run")
        .is_some_and(|(_, negated, _)| !negated)
}

pub(super) fn symbolic_ref(args: &[String], a: &mut Action) {
    let p = parse(args, tables::SYMBOLIC_REF, false);
    let Some(name) = p.args.first() else {
        a.effect = Effect::Read;
        return;
    };
    if p.flag("delete") {
        a.refs
            .push(write(RefTarget::Named(name.clone()), RefOp::Delete, None));
        return;
    }
    let Some(target) = p.args.get(1) else {
        a.effect = Effect::Read;
        return;
    };
    if name == "HEAD" {
        a.checkout = Some(match target.strip_prefix("refs/heads/") {
            Some(branch) => CheckoutTarget::Local(branch.to_string()),
            None => CheckoutTarget::Special(target.clone()),
        });
    } else {
        // Over an existing branch, its commit is then held by nothing but
        // the reflog: the checkpoint keeps it.
        a.destructive = Some("symbolic-ref replaces the value a ref held".into());
        a.refs
            .push(write(RefTarget::Named(name.clone()), RefOp::Update, None));
    }
}
