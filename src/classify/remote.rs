//! Commands that talk to a remote: push, fetch, pull.

use super::commands::every_ref;
use super::options::{parse, Parsed};
use super::{tables, Context};
use crate::action::{Action, Effect, Push, PushDest, RefOp, RefTarget, RefWrite, RemoteChange};

/// `push [<options>] [<repository> [<refspec>...]]`.
///
/// - Every force spelling counts: `-f`, `--force`, bundled (`-fu`),
///   abbreviated (`--forc`), `--force-with-lease[=...]`,
///   `--force-if-includes`, `--mirror`, and `+refspec` per destination.
///   `--force=<anything>` makes git refuse the line (`--force` takes no
///   value); it is read as the force push it asks for (the rules list it).
/// - `<src>` alone pushes to the same name; `HEAD` (or `@`) alone to the
///   current branch's name; `:dst` and `--delete`/`-d <dst>` delete;
///   `tag <name>` is `refs/tags/<name>`; a source that is a tag (and not a
///   branch) pushes under `refs/tags/`; a `^negative` refspec writes
///   nothing. A wildcard refspec writes refs it does not name: read as
///   `--tags` for `refs/tags/*`, else `--all`; so is `:` (matching).
/// - `--follow-tags` (or `push.followTags`) adds only the annotated tags
///   that what is pushed reaches: not read as `--tags`; the pre-push hook
///   judges each tag git sends, as for the config key.
/// - `-n`/`--dry-run` writes nothing: read-only (the pre-push hook still runs).
/// - `--no-verify` skips the pre-push hook.
/// - `--repo=<r>` names the remote only when no `<repository>` is given.
/// - With no refspec, what git's config says is pushed ([`configured`]).
pub(super) fn push(args: &[String], ctx: &Context, a: &mut Action) {
    let p = parse(args, tables::PUSH, false);
    let mut push = Push {
        remote: p
            .args
            .first()
            .cloned()
            .or_else(|| p.value("repo").map(str::to_string)),
        mirror: p.flag("mirror"),
        all: p.flag("all") || p.flag("branches"),
        tags: p.flag("tags"),
        delete: p.flag("delete") || p.flag("prune"),
        ..Push::default()
    };
    push.force =
        push.mirror || p.flag("force") || p.flag("force-with-lease") || p.flag("force-if-includes");
    if p.flag("no-verify") {
        a.hooks_off = Some("push --no-verify skips the pre-push hook".into());
    }
    if p.flag("dry-run") {
        a.effect = Effect::Read;
    }
    let deleting = p.flag("delete");
    let mut specs = p.args.iter().skip(1);
    while let Some(spec) = specs.next() {
        let spec = if spec == "tag" {
            match specs.next() {
                Some(name) => format!("refs/tags/{name}"),
                None => break,
            }
        } else {
            spec.clone()
        };
        if deleting {
            push.dests.push(PushDest {
                dst: Some(deleted_ref(spec, push.remote.as_deref(), ctx)),
                src: String::new(),
                force: false,
                delete: true,
            });
            continue;
        }
        refspec(&spec, ctx, &mut push);
    }
    configured(ctx, &mut push, p.args.len() <= 1 && !deleting);
    if p.flag("set-upstream") {
        // Each local branch pushed gets the destination as its upstream.
        for dest in &push.dests {
            let src = match dest.src.as_str() {
                "HEAD" | "@" | "" => ctx.current_branch.unwrap_or_default(),
                src => src.strip_prefix("refs/heads/").unwrap_or(src),
            };
            if !src.is_empty() && !src.starts_with("refs/") {
                a.repoints.push(format!("branch.{src}.merge"));
            }
        }
    }
    a.push = Some(push);
}

/// One refspec of a push, from the command line or `remote.<name>.push`.
fn refspec(spec: &str, ctx: &Context, push: &mut Push) {
    let (force, body) = match spec.strip_prefix('+') {
        Some(body) => (true, body),
        None => (false, spec),
    };
    if body.starts_with('^') {
        return;
    }
    if body == ":" {
        // Matching: every branch that exists on both sides.
        push.all = true;
        push.force |= force;
        return;
    }
    let (src, dst) = match body.split_once(':') {
        Some((src, dst)) if !dst.is_empty() => (src, dst.to_string()),
        _ => (src_of(body), same_name(src_of(body), ctx)),
    };
    if dst.contains('*') {
        if dst.starts_with("refs/ward/") {
            // git-ward's own namespace: named, so that `decide` sees it.
            push.dests.push(PushDest {
                dst: Some(dst.clone()),
                src: src.to_string(),
                force,
                delete: false,
            });
        }
        if dst.starts_with("refs/tags/") {
            push.tags = true;
        } else {
            push.all = true;
        }
        push.force |= force;
        return;
    }
    if dst.is_empty() {
        // `HEAD` while detached: git refuses.
        return;
    }
    let dst = if src.is_empty() {
        deleted_ref(dst, push.remote.as_deref(), ctx)
    } else if !dst.starts_with("refs/") && is_tag(src, ctx) {
        format!("refs/tags/{dst}")
    } else {
        dst
    };
    push.dests.push(PushDest {
        dst: Some(dst),
        src: src.to_string(),
        force,
        delete: src.is_empty(),
    });
}

/// What a push sends by configuration, as git's `do_push` reads it:
/// `remote.<name>.mirror` makes any push to that remote a mirror push
/// (forced, whatever the refspecs); with no refspec on the command line, `remote.<name>.push` gives them,
/// else `push.default`: `matching` (read as `--all`), `current` and
/// `simple` (the default; it pushes to the same name, or git refuses)
/// the current branch to its own name, `upstream` to
/// `branch.<name>.merge`, `nothing` nothing. The remote is the one named,
/// else `branch.<name>.pushRemote`, `remote.pushDefault`,
/// `branch.<name>.remote`, `origin`.
fn configured(ctx: &Context, push: &mut Push, no_refspec: bool) {
    let last = |key: &str| (ctx.config)(key).pop();
    let branch = ctx.current_branch;
    let remote = push
        .remote
        .clone()
        .or_else(|| branch.and_then(|b| last(&format!("branch.{b}.pushremote"))))
        .or_else(|| last("remote.pushdefault"))
        .or_else(|| branch.and_then(|b| last(&format!("branch.{b}.remote"))))
        .unwrap_or_else(|| "origin".to_string());
    // A value git cannot read as a boolean is refused by git; an empty one
    // is false to git but cannot be told from a bare key here: a mirror.
    let mirror = last(&format!("remote.{remote}.mirror")).is_some_and(|v| !super::says_false(&v));
    if mirror {
        push.mirror = true;
        push.force = true;
        push.configured_by = Some(format!("remote.{remote}.mirror"));
    }
    if !no_refspec || push.all || push.tags || push.mirror {
        return;
    }
    let specs = (ctx.config)(&format!("remote.{remote}.push"));
    if !specs.is_empty() {
        for spec in &specs {
            refspec(spec, ctx, push);
        }
        if push.all || push.tags {
            push.configured_by = Some(format!("remote.{remote}.push"));
        }
        return;
    }
    let mode = last("push.default").map(|m| m.to_ascii_lowercase());
    let dst = match mode.as_deref() {
        Some("matching") => {
            push.all = true;
            push.configured_by = Some("push.default=matching".to_string());
            None
        }
        Some("nothing") => None,
        Some("upstream" | "tracking") => branch.and_then(|b| last(&format!("branch.{b}.merge"))),
        _ => branch.map(|b| format!("refs/heads/{b}")),
    };
    if let Some(dst) = dst {
        push.dests.push(PushDest {
            dst: Some(dst),
            src: "HEAD".to_string(),
            force: false,
            delete: false,
        });
    }
}

fn src_of(body: &str) -> &str {
    body.split_once(':').map_or(body, |(src, _)| src)
}

/// The remote name a refspec without `:dst` pushes to: its own, or the
/// current branch's for `HEAD`/`@` (empty when detached).
fn same_name(src: &str, ctx: &Context) -> String {
    match src {
        "HEAD" | "@" => ctx
            .current_branch
            .map(|b| format!("refs/heads/{b}"))
            .unwrap_or_default(),
        _ => src.to_string(),
    }
}

/// The remote ref a deletion of `name` (`:v1`, `--delete v1`) removes:
/// git matches a short name against the remote's refs, so `v1` is the
/// remote's tag `v1` where it has one. Read here as a tag when this
/// repository has a tag of that name (tags are fetched) and no branch of
/// it, here or as `<remote>/<name>`; else a branch.
fn deleted_ref(name: String, remote: Option<&str>, ctx: &Context) -> String {
    if name.starts_with("refs/") || name.is_empty() {
        return name;
    }
    let tag = format!("refs/tags/{name}");
    let branch = (ctx.is_local_branch)(&name)
        || (ctx.is_revision)(&format!(
            "refs/remotes/{}/{name}",
            remote.unwrap_or("origin")
        ));
    if !branch && (ctx.is_revision)(&tag) {
        tag
    } else {
        name
    }
}

/// Is this source a tag rather than a branch?
fn is_tag(src: &str, ctx: &Context) -> bool {
    src.starts_with("refs/tags/")
        || (!src.is_empty()
            && !src.starts_with("refs/")
            && !(ctx.is_local_branch)(src)
            && (ctx.is_revision)(&format!("refs/tags/{src}")))
}

/// Does a fetch from `remote` (the current branch's remote, or `origin`,
/// when none is named) prune? As git reads it: `--[no-]prune` and
/// `--[no-]prune-tags`, else `remote.<name>.prune` and `.pruneTags`, else
/// `fetch.prune` and `fetch.pruneTags`.
fn fetch_prunes(p: &Parsed, ctx: &Context, remote: Option<&str>) -> bool {
    let remote = match remote {
        Some(r) => r.to_string(),
        None => ctx
            .current_branch
            .and_then(|b| (ctx.config)(&format!("branch.{b}.remote")).pop())
            .unwrap_or_else(|| "origin".to_string()),
    };
    let on = |option: &str, key: &str| match p.last_given(&[option]) {
        Some((_, negated)) => !negated,
        None => [format!("remote.{remote}.{key}"), format!("fetch.{key}")]
            .iter()
            .find_map(|k| (ctx.config)(k).pop())
            .is_some_and(|v| !super::says_false(&v)),
    };
    on("prune", "prune") || on("prune-tags", "prunetags")
}

/// `fetch` and `pull`: syncing from a remote. A refspec with a local
/// destination (`fetch origin main:main`, `+refs/heads/x:refs/heads/x`,
/// `tag v1`) writes that ref: an update (a create for a tag fetched without
/// `+`, since existing tags are kept); one with a wildcard into local
/// branches or tags writes refs it does not name ([`RefTarget::All`]).
/// So do `--force --tags` (moves tags) and `--stdin`; `--prune-tags`
/// deletes local tags (destructive; the hook judges each). `--dry-run` reads. `pull` also merges into the current branch; that is
/// syncing too (the reference-transaction hook checks a protected branch
/// only moves to its upstream); `pull --rebase` rewrites local commits
/// (destructive); `pull --no-verify` skips the merge's hooks;
/// `--set-upstream` sets the current branch's upstream ([`Action::repoints`]).
pub(super) fn fetch(args: &[String], ctx: &Context, a: &mut Action) {
    let pull = a.command == "pull";
    let table = if pull { tables::PULL } else { tables::FETCH };
    let p = parse(args, table, false);
    a.syncs = true;
    if p.flag("dry-run") {
        a.effect = Effect::Read;
        return;
    }
    if let Some(remote) = p.given("upload-pack").then(|| p.args.first()) {
        // Another upload-pack reads another repository for the remote.
        let remote = remote.map_or("origin", String::as_str);
        a.repoints.push(format!("remote.{remote}.uploadpack"));
    }
    if p.flag("set-upstream") {
        // The current branch gets what is fetched as its upstream.
        if let Some(branch) = ctx.current_branch {
            a.repoints.push(format!("branch.{branch}.merge"));
        }
    }
    if pull {
        if p.flag("rebase") && !p.value("rebase").is_some_and(super::says_false) {
            a.destructive = Some("pull --rebase rewrites local commits".into());
        }
        if p.last_given(&["ff", "ff-only"]) != Some(("ff-only", false)) {
            a.pull_integrates = true;
        }
        if p.negated("verify") {
            a.hooks_off =
                Some("pull --no-verify skips the pre-merge-commit and commit-msg hooks".into());
        }
        // `pull origin feature` on `main` brings another branch in: that
        // is making commits there (a merge, or a fast-forward onto it),
        // not syncing `main` with its own.
        if let Some(current) = ctx.current_branch {
            let another = p
                .args
                .iter()
                .skip(1)
                .filter(|s| *s != "tag")
                .map(|s| s.trim_start_matches('+'))
                .filter(|s| !s.starts_with('^'))
                .map(|s| s.split(':').next().unwrap_or_default())
                .map(|s| s.strip_prefix("refs/heads/").unwrap_or(s))
                // `HEAD` is the remote's own default branch: its sync.
                .any(|src| !matches!(src, "" | "HEAD" | "@") && src != current);
            if another {
                a.creates_commits = true;
            }
        }
    }
    // Refspecs from stdin, or tags moved by `--force --tags`: refs the
    // command line does not name.
    let tags_forced = p.flag("tags") && p.flag("force");
    if p.flag("stdin") || tags_forced {
        a.refs.push(every_ref());
    }
    // Local tags the remote lacks are deleted: the hook refuses a
    // protected one's deletion; the others come back with undo.
    if p.flag("prune-tags") {
        a.destructive
            .get_or_insert("fetch --prune-tags deletes local tags the remote lacks".into());
    }
    if p.flag("multiple") || p.flag("all") || p.flag("stdin") {
        return;
    }
    let remote = p.args.first().map(String::as_str);
    if !pull {
        a.fetch_prunes = fetch_prunes(&p, ctx, remote);
    }
    let mut specs = p.args.iter().skip(1);
    while let Some(spec) = specs.next() {
        let spec = if spec == "tag" {
            match specs.next() {
                Some(name) => format!("refs/tags/{name}:refs/tags/{name}"),
                None => break,
            }
        } else {
            spec.clone()
        };
        let (force, body) = match spec.strip_prefix('+') {
            Some(body) => (true, body),
            None => (false, spec.as_str()),
        };
        let Some((src, dst)) = body.split_once(':') else {
            continue;
        };
        if dst.is_empty() || body.starts_with('^') {
            continue;
        }
        let full = if dst.starts_with("refs/") {
            dst.to_string()
        } else {
            format!("refs/heads/{dst}")
        };
        if full.starts_with("refs/ward/") {
            // git-ward's own namespace (checkpoints): `decide` refuses an
            // agent's write there, a pattern's too.
            a.refs.push(RefWrite {
                target: RefTarget::Named(full),
                op: RefOp::Update,
                start: None,
            });
            continue;
        }
        let local = full.starts_with("refs/heads/") || full.starts_with("refs/tags/");
        if !local {
            continue;
        }
        if full.contains('*') {
            // Tags fetched without `+` are only created (git keeps the
            // tags there are), and a configured remote's branches fetched
            // under the same names are synced: the reference-transaction
            // hook judges each ref either writes. Anything else may move
            // any ref the pattern reaches.
            let same_names = remote.is_some_and(|r| ctx.remotes.iter().any(|c| c == r))
                && src == full
                && full.starts_with("refs/heads/");
            if !force && !p.flag("force") && (full.starts_with("refs/tags/") || same_names) {
                continue;
            }
            a.refs.push(every_ref());
            continue;
        }
        let op = if full.starts_with("refs/tags/") && !force {
            RefOp::Create
        } else {
            RefOp::Update
        };
        // A branch fetched from a configured remote's branch is written
        // with that branch's value: `origin/main` names it as a start
        // (`fetch origin main:main` syncs; decide judges the names, the
        // reference-transaction hook the values).
        let start = full
            .strip_prefix("refs/heads/")
            .and(remote)
            .filter(|r| ctx.remotes.iter().any(|c| c == *r))
            .and_then(|r| {
                let name = src
                    .strip_prefix("refs/heads/")
                    .or_else(|| src.strip_prefix("heads/"))
                    .or_else(|| (!src.starts_with("refs/")).then_some(src))?;
                Some(format!("{r}/{name}"))
            });
        a.refs.push(RefWrite {
            target: RefTarget::Named(full),
            op,
            start,
        });
    }
}

/// `remote set-url <name>` (not `--push`) and `remote rename <old> <new>`
/// set where `<name>`'s remote-tracking refs come from: `remote.<name>.url`
/// ([`Action::repoints`]). `remote add <name>` adds one
/// ([`Action::remote_change`]), which an agent's add marks as the agent's;
/// `remote remove` and `rename` carry that mark along.
pub(super) fn remote(args: &[String], a: &mut Action) {
    let mut words = args.iter().skip_while(|w| w.starts_with('-'));
    let sub = words.next().map(String::as_str);
    let rest: Vec<&String> = words.collect();
    // Options of `remote add` that take the next word.
    let takes_value = |w: &str| matches!(w, "-t" | "--track" | "-m" | "--master");
    let mut names = Vec::new();
    let mut skip = false;
    let mut push_url = false;
    for w in &rest {
        if skip {
            skip = false;
        } else if *w == "--push" {
            push_url = true;
        } else if w.starts_with('-') {
            skip = sub == Some("add") && takes_value(w);
        } else {
            names.push(w.as_str());
        }
    }
    let name = match (sub, names.as_slice()) {
        (Some("add"), [name, ..]) => {
            a.remote_change = Some(RemoteChange::Add(name.to_string()));
            return;
        }
        (Some("remove" | "rm"), [name, ..]) => {
            a.remote_change = Some(RemoteChange::Remove(name.to_string()));
            return;
        }
        (Some("set-url"), [name, ..]) if !push_url => name,
        (Some("rename"), [old, new, ..]) => {
            a.remote_change = Some(RemoteChange::Rename(old.to_string(), new.to_string()));
            new
        }
        _ => return,
    };
    a.repoints.push(format!("remote.{name}.url"));
}
