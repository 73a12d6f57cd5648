//! From the subcommand's words to an [`Action`]: the dispatch, and the
//! commands whose effect only depends on a subcommand word
//! (`remote show` reads, `remote add` writes).

use super::options::parse;
use super::{config, history, names, output, refs, remote, tables, worktree, Context};
use crate::action::{Action, Effect, Push, RefOp, RefTarget, RefWrite};

/// Classifies the words after alias resolution (`commit -m x`).
pub(super) fn classify_words(words: &[String], ctx: &Context, informational: bool) -> Action {
    let Some(first) = words.first() else {
        // `git` alone prints help, as do `--exec-path`, `--html-path` ...
        return outside_repo(Action::read(""));
    };
    let command = match first.as_str() {
        "--help" | "-h" => "help",
        "--version" | "-v" => "version",
        c => c,
    };
    let args = &words[1..];
    if !names::is_command(command) {
        // `lfs`, `ward`, typos: git runs `git-<name>` from PATH or fails.
        return Action {
            effect: Effect::Unknown,
            ..Action::mutating(command)
        };
    }
    // `git commit --help` is `git help commit`; `git commit -h` prints usage.
    let asks_help =
        args.first().is_some_and(|a| a == "--help") || (args.len() == 1 && args[0] == "-h");
    if command == "help" || command == "version" || informational || asks_help {
        return outside_repo(Action::read(command));
    }
    let mut a = if names::is_read(command) {
        Action::read(command)
    } else {
        Action::mutating(command)
    };
    match command {
        "clone" | "init" | "init-db" => worktree::new_repository(command, args, &mut a),
        "commit" => history::commit(args, &mut a),
        "merge" => history::merge(args, ctx, &mut a),
        "rebase" => history::rebase(args, ctx, &mut a),
        "cherry-pick" | "revert" => history::cherry_pick(args, &mut a),
        "am" => history::am(args, &mut a),
        "reset" => history::reset(args, ctx, &mut a),
        "filter-branch" => history::filter_branch(args, ctx, &mut a),
        "add" | "stage" | "rm" | "mv" => history::stage(args, &mut a),
        "apply" => history::apply(args, &mut a),
        "checkout" => worktree::checkout(args, ctx, &mut a),
        "switch" => worktree::switch(args, ctx, &mut a),
        "restore" => worktree::restore(args, &mut a),
        "clean" => worktree::clean(args, &mut a),
        "stash" => worktree::stash(args, &mut a),
        "worktree" => worktree::worktree(args, ctx, &mut a),
        "branch" => refs::branch(args, ctx, &mut a),
        "tag" => refs::tag(args, ctx, &mut a),
        "update-ref" => refs::update_ref(args, &mut a),
        "replace" => refs::replace(args, &mut a),
        "symbolic-ref" => refs::symbolic_ref(args, &mut a),
        "refs" => refs::refs(args, &mut a),
        "config" => config::config(args, &mut a),
        "push" => remote::push(args, ctx, &mut a),
        "fetch" | "pull" => remote::fetch(args, ctx, &mut a),
        "checkout-index" => {
            if parse(args, tables::CHECKOUT_INDEX, false).flag("force") {
                a.destructive = Some("checkout-index --force overwrites working tree files".into());
            }
        }
        "read-tree" => {
            let p = parse(args, tables::READ_TREE, false);
            if p.flag("u") && !p.flag("dry-run") {
                // `-m -u` with one tree, or `--reset -u`: staged versions
                // and the files they were written from go back to the tree's.
                a.destructive = Some("read-tree -u discards uncommitted changes".into());
                // Another tree's files land over untracked ones in their way.
                a.from_tree = p.args.iter().any(|t| !matches!(t.as_str(), "HEAD" | "@"));
            } else if !p.flag("dry-run") {
                a.unstages = true;
            }
        }
        "update-index" => {
            // Options that set index entries back or replace them, leaving
            // the files: a version only the index holds would be lost. Its
            // options are read in order and some take several words, so
            // any word that spells one counts, for the whole tree.
            let replaces = |w: &String| {
                matches!(
                    w.split('=').next(),
                    Some("--force-remove" | "--cacheinfo" | "--index-info" | "--unresolve")
                )
            };
            a.unstages = args.iter().any(replaces);
        }
        "submodule" => submodule(args, &mut a),
        "reflog" | "prune" | "gc" | "maintenance" => {
            by_subcommand(command, args, &mut a);
            history::expiry(command, args, ctx, &mut a);
            if command == "reflog" {
                refs::reflog_updateref(args, ctx, &mut a);
            }
        }
        "fast-import" => {
            // Its stream on stdin can write any ref.
            a.refs.push(every_ref());
        }
        "send-pack" | "http-push" => {
            // Refspecs in their own syntax, on their own terms: read as a push of everything.
            a.push = Some(Push {
                all: true,
                ..Push::default()
            });
        }
        _ => by_subcommand(command, args, &mut a),
    }
    output::mark(&mut a, output::written_files(command, args));
    if a.hooks_off.is_none() {
        a.hooks_off = commits_unseen(command, args);
    }
    if let Some(why) = runs_commands(command, args) {
        if a.effect == Effect::Read {
            a.effect = Effect::Mutating;
        }
        a.destructive.get_or_insert(why);
    }
    if a.destructive.is_some()
        && matches!(
            command,
            "reset" | "checkout" | "switch" | "restore" | "read-tree"
        )
        && recurses_into_submodules(args, ctx)
    {
        a.reaches_submodules = Some(false);
    }
    a
}

/// With `core.excludesFile` given for this one command, an untracked file
/// git would refuse to overwrite is an ignored one it overwrites: a
/// command that writes another commit's files over the working tree is
/// destructive by consequence, untracked files in its way at stake.
pub fn overwrites_ignored(a: &mut Action) {
    const WRITERS: &[&str] = &[
        "checkout",
        "switch",
        "merge",
        "pull",
        "rebase",
        "cherry-pick",
        "revert",
        "am",
        "stash",
        "read-tree",
        "reset",
        "restore",
        "checkout-index",
    ];
    if a.effect == Effect::Read || !WRITERS.contains(&a.command.as_str()) {
        return;
    }
    a.destructive.get_or_insert_with(|| {
        format!(
            "{} with core.excludesFile given for it overwrites untracked files it takes as ignored",
            a.command
        )
    });
    a.from_tree = true;
}

/// Does the command make commits that no commit-msg hook sees, so that
/// an agent's carry no contract footer, which the
/// server's pre-receive judges agent commits by? As a clause for the
/// refusal: `git commit` makes them with the footer.
fn commits_unseen(command: &str, args: &[String]) -> Option<String> {
    let options = || args.iter().take_while(|a| *a != "--");
    let makes = match command {
        "commit-tree" | "fast-import" => true,
        "replace" => options().any(|w| w == "--edit" || w == "--graft"),
        "hash-object" => {
            let words: Vec<&String> = options().collect();
            let writes = words.iter().any(|w| *w == "-w");
            let commit = words.windows(2).any(|p| p[0] == "-t" && p[1] == "commit")
                || words.iter().any(|w| *w == "-tcommit");
            writes && commit
        }
        _ => false,
    };
    makes.then(|| {
        format!("{command} makes commits that no commit-msg hook sees, so without the contract footer; make them with `git commit`")
    })
}

/// Does the command line run a command of its own (`difftool -x <cmd>`,
/// `bisect run <cmd>`, `submodule foreach <cmd>`)? Its git commands reach
/// the real git, past the shim: checkpointed first, as a `!shell` alias is.
fn runs_commands(command: &str, args: &[String]) -> Option<String> {
    let options = || args.iter().take_while(|a| *a != "--");
    let runs = match command {
        "difftool" => options().any(|a| {
            let name = a.split('=').next().unwrap_or_default();
            a.starts_with("-x") || (name.len() > 4 && "--extcmd".starts_with(name))
        }),
        "bisect" => args.first().is_some_and(|s| s == "run"),
        "submodule" => args
            .iter()
            .find(|w| !w.starts_with('-'))
            .is_some_and(|s| s == "foreach"),
        _ => false,
    };
    runs.then(|| format!("{command} runs a command whose git commands git-ward cannot see"))
}

/// `submodule`: `deinit --force` removes submodule working trees with their
/// local changes, `update --force` throws those changes away; other
/// subcommands as [`by_subcommand`] reads them. Options before the
/// subcommand (`--quiet`) are skipped; a bundle of short flags with `f`
/// (`-qf`) counts as `--force`.
fn submodule(args: &[String], a: &mut Action) {
    let words: Vec<&String> = args.iter().skip_while(|w| w.starts_with('-')).collect();
    by_subcommand("submodule", &args[args.len() - words.len()..], a);
    let Some((sub, rest)) = words.split_first() else {
        return;
    };
    let force = rest
        .iter()
        .map(|w| w.as_str())
        .take_while(|w| *w != "--")
        .any(|w| {
            w == "--force"
                || (w.len() > 1
                    && w.starts_with('-')
                    && !w.starts_with("--")
                    && w[1..].chars().all(|c| c.is_ascii_alphabetic())
                    && w.contains('f'))
        });
    if sub.as_str() == "add" {
        // `add [<options>] <repository> [<path>]`: a repository and working
        // tree at the path (by default the repository's name, as `clone`).
        let mut plain = Vec::new();
        let mut words = rest.iter();
        while let Some(w) = words.next() {
            match w.as_str() {
                "--" => plain.extend(words.by_ref()),
                "-b" | "--branch" | "--name" | "--reference" | "--depth" => {
                    words.next();
                }
                w if w.starts_with('-') => {}
                _ => plain.push(*w),
            }
        }
        let path = match plain.as_slice() {
            [_, path, ..] => Some(path.to_string()),
            [repo] => Some(super::worktree::cloned_name(repo)),
            [] => None,
        };
        a.new_trees.extend(path);
        return;
    }
    let (what, untracked_too) = match sub.as_str() {
        "deinit" => (
            "submodule deinit --force removes submodule working trees with their local changes",
            true,
        ),
        "update" => (
            "submodule update --force throws away local changes in submodules",
            false,
        ),
        _ => return,
    };
    if force {
        a.destructive = Some(what.into());
        a.reaches_submodules = Some(untracked_too);
    }
}

/// Does a command that takes `--recurse-submodules` recurse: the last of
/// `--[no-]recurse-submodules` before `--`, else `submodule.recurse`?
fn recurses_into_submodules(args: &[String], ctx: &Context) -> bool {
    let given = args
        .iter()
        .take_while(|w| *w != "--")
        .filter_map(|w| match w.as_str() {
            "--no-recurse-submodules" => Some(false),
            w if w == "--recurse-submodules" || w.starts_with("--recurse-submodules=") => {
                Some(true)
            }
            _ => None,
        })
        .last();
    given.unwrap_or_else(|| {
        (ctx.config)("submodule.recurse")
            .pop()
            .is_some_and(|v| !(v.is_empty() || super::says_false(&v)))
    })
}

/// A ref write the command line cannot name (see [`RefTarget::All`]).
pub(super) fn every_ref() -> RefWrite {
    RefWrite {
        target: RefTarget::All,
        op: RefOp::Update,
        start: None,
    }
}

fn outside_repo(mut a: Action) -> Action {
    a.needs_repo = false;
    a
}

/// Commands whose subcommand word (or a flag) says whether they only read.
fn by_subcommand(command: &str, args: &[String], a: &mut Action) {
    let sub = args.first().map(String::as_str);
    let has = |flags: &[&str]| args.iter().any(|w| flags.contains(&w.as_str()));
    let reads = match command {
        // `git reflog` and `git reflog <ref>` are `reflog show`.
        "reflog" => !matches!(sub, Some("expire" | "delete" | "drop")),
        "notes" => matches!(sub, None | Some("list" | "show" | "get-ref")),
        "remote" => {
            matches!(sub, Some("show" | "get-url")) || args.iter().all(|w| w.starts_with('-'))
        }
        "submodule" => matches!(sub, None | Some("status" | "summary")),
        "bisect" => matches!(sub, Some("log" | "view" | "visualize" | "terms" | "help")),
        "sparse-checkout" => sub == Some("list"),
        "rerere" => matches!(sub, Some("status" | "diff" | "remaining")),
        "bundle" => matches!(sub, Some("create" | "verify" | "list-heads")),
        "hash-object" => !has(&["-w"]),
        "interpret-trailers" => !has(&["--in-place"]),
        "refs" => sub == Some("verify"),
        "commit-graph" | "multi-pack-index" => sub == Some("verify"),
        _ => return,
    };
    if reads {
        a.effect = Effect::Read;
    } else if command == "remote" {
        super::remote::remote(args, a);
    }
}
