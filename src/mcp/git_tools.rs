//! The git tools: status, log, show, diff, checkout.
//!
//! Each builds the exact git command line it will run, asks the rules about
//! it ([`Ctx::govern`]), runs it through the doorway, and bounds the output.

use serde_json::{json, Value};

use crate::action::{Action, CheckoutTarget};
use crate::decide::Head;
use crate::error::Error;

use super::call::{Ctx, Governed, Output, ToolError, ToolResult};

/// `git_status`: branch, upstream, ahead/behind, staged/unstaged/untracked.
pub fn status(ctx: &mut Ctx) -> ToolResult {
    let argv = [
        "--no-optional-locks",
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
        "--untracked-files=normal",
    ];
    let g = ctx.govern("git.status", &argv, None)?;
    let raw = run(&g, &argv)?;
    let mut v = parse_status(&raw);
    v["contract"] = json!(g.contract);
    Ok(ctx.bounded_json(
        v,
        "the lists are long: commit or checkpoint part of the work, or ask git_diff about one file_path",
    ))
}

/// `git_log`: the last `max_count` commits, one line each by default.
pub fn log(ctx: &mut Ctx) -> ToolResult {
    let max = ctx.int_arg("max_count", 10, 1000)?;
    let oneline = ctx.bool_arg("oneline", true)?;
    let rev = ctx.str_arg("ref")?;
    let mut argv = vec![
        "log".to_string(),
        "--no-color".into(),
        format!("--max-count={max}"),
    ];
    argv.push(
        if oneline {
            "--oneline"
        } else {
            "--date=iso-strict"
        }
        .into(),
    );
    if let Some(r) = rev {
        check_rev("ref", r)?;
        argv.push(r.into());
    }
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let g = ctx.govern("git.log", &argv, None)?;
    if rev.is_none() {
        if let Some(Head::Unborn(b)) = g.a.facts.as_ref().and_then(|f| f.head.clone()) {
            return Ok(ctx.bounded(format!("no commits yet on '{b}'"), ""));
        }
    } else if let Some(r) = rev {
        verify_rev(&g, "ref", r)?;
    }
    let out = run(&g, &argv)?;
    Ok(ctx.bounded(out, "pass a smaller max_count, or oneline: true"))
}

/// `git_show`: a commit's message and changes (or only its stat).
pub fn show(ctx: &mut Ctx) -> ToolResult {
    let rev = ctx.str_arg("commit_ref")?.unwrap_or("HEAD");
    let stat_only = ctx.bool_arg("stat_only", false)?;
    check_rev("commit_ref", rev)?;
    let mut argv = vec!["show", "--no-color", "--no-ext-diff", "--format=fuller"];
    argv.push(if stat_only {
        "--stat"
    } else {
        "--patch-with-stat"
    });
    argv.push(rev);
    let g = ctx.govern("git.show", &argv, None)?;
    verify_rev(&g, "commit_ref", rev)?;
    let out = run(&g, &argv)?;
    Ok(ctx.bounded(
        out,
        "pass stat_only: true, then git_diff with file_path for the files you need",
    ))
}

/// `git_diff`: uncommitted changes, a ref against the working tree, or two refs.
pub fn diff(ctx: &mut Ctx) -> ToolResult {
    let from = ctx.str_arg("from_ref")?;
    let to = ctx.str_arg("to_ref")?;
    let path = ctx.str_arg("file_path")?;
    let stat_only = ctx.bool_arg("stat_only", false)?;
    if to.is_some() && from.is_none() {
        return Err(ToolError::invalid(
            "invalid_argument",
            "to_ref needs from_ref",
            "pass from_ref alone to compare it with the working tree, or both refs",
        ));
    }
    for (name, r) in [("from_ref", from), ("to_ref", to)] {
        if let Some(r) = r {
            check_rev(name, r)?;
        }
    }
    if let Some(p) = path {
        if p.is_empty() || p.contains('\0') {
            return Err(ToolError::invalid(
                "invalid_argument",
                "file_path is empty",
                "pass a path relative to the repository's top, or leave it out",
            ));
        }
    }
    let base = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["--literal-pathspecs", "diff", "--no-color", "--no-ext-diff"]
            .map(String::from)
            .to_vec();
        if stat_only {
            v.push("--stat".into());
        }
        v.extend(extra.iter().map(|s| s.to_string()));
        if let Some(p) = path {
            v.push("--".into());
            v.push(p.into());
        }
        v
    };
    let refs: Vec<&str> = [from, to].into_iter().flatten().collect();
    let first = base(if refs.is_empty() { &["HEAD"] } else { &refs });
    let argv: Vec<&str> = first.iter().map(String::as_str).collect();
    let g = ctx.govern("git.diff", &argv, None)?;
    for (name, r) in [("from_ref", from), ("to_ref", to)] {
        if let Some(r) = r {
            verify_rev(&g, name, r)?;
        }
    }
    let unborn = matches!(
        g.a.facts.as_ref().and_then(|f| f.head.as_ref()),
        Some(Head::Unborn(_))
    );
    let out = if refs.is_empty() && unborn {
        // No HEAD to compare with: the staged changes, then the unstaged ones.
        let staged = base(&["--cached"]);
        let unstaged = base(&[]);
        let mut text = run(&g, &staged.iter().map(String::as_str).collect::<Vec<_>>())?;
        text.push_str(&run(
            &g,
            &unstaged.iter().map(String::as_str).collect::<Vec<_>>(),
        )?);
        text
    } else {
        run(&g, &argv)?
    };
    let out = if out.is_empty() {
        "no differences".to_string()
    } else {
        out
    };
    Ok(ctx.bounded(
        out,
        "pass file_path for one file, or stat_only: true for the list of files",
    ))
}

/// `git_checkout`: switch to a local branch, by its plain name only.
pub fn checkout(ctx: &mut Ctx) -> ToolResult {
    let name = ctx.required_str("branch_name")?;
    if name.trim().is_empty() || name.chars().any(|c| c.is_control() || c == ' ') {
        return Err(invalid_branch(name, "is not a branch name"));
    }
    let repo_remotes = crate::facts::Repo::at(&ctx.dir)
        .map(|r| r.remotes())
        .unwrap_or_default();
    let local = crate::facts::Repo::at(&ctx.dir).is_some_and(|r| r.is_local_branch(name));
    let target = checkout_target(name, &repo_remotes, local);
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
    Ok(Output::json(
        json!({ "branch": name, "commit_hash": hash.trim() }),
    ))
}

/// What a checkout name is, as the classifier sees it: a plain local name,
/// a remote-tracking ref, or a revision expression.
pub fn checkout_target(name: &str, remotes: &[String], is_local: bool) -> CheckoutTarget {
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

/// Refuses revisions that could be read as options or carry odd bytes.
fn check_rev(arg: &str, rev: &str) -> Result<(), ToolError> {
    if rev.is_empty()
        || rev.len() > 256
        || rev.starts_with('-')
        || rev.chars().any(|c| c.is_control() || c.is_whitespace())
    {
        return Err(ToolError::invalid(
            "invalid_argument",
            format!("{arg} '{rev}' is not a revision"),
            "pass a branch, tag or commit id (HEAD, main, HEAD~2, 1a2b3c4)",
        ));
    }
    Ok(())
}

/// Checks that a revision names an object, for an error an agent can act on.
fn verify_rev(g: &Governed, arg: &str, rev: &str) -> Result<(), ToolError> {
    let spec = format!("{rev}^{{object}}");
    let out = g
        .git
        .output(["rev-parse", "--verify", "--quiet", spec.as_str()])
        .map_err(|e| timeout_or("git_timeout", "git_failed", &e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(ToolError::invalid(
        "unknown_ref",
        format!("{arg} '{rev}' names no commit in this repository"),
        "check the name with git_log or git_status",
    ))
}

/// Runs git; stdout as text, or a tool error with git's stderr.
fn run(g: &Governed, argv: &[&str]) -> Result<String, ToolError> {
    let out = g
        .git
        .output(argv)
        .map_err(|e| timeout_or("git_timeout", "git_failed", &e))?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(ToolError::new(
        "git_failed",
        &Error::internal(format!("git {} failed: {}", argv.join(" "), said.trim())),
    ))
}

/// A doorway error: a timeout becomes `timeout_kind`, anything else `other`.
fn timeout_or(timeout_kind: &'static str, other: &'static str, err: &Error) -> ToolError {
    if err.message.contains("timed out after") {
        ToolError::new(timeout_kind, err)
    } else {
        ToolError::new(other, err)
    }
}

/// Turns `git status --porcelain=v2 --branch -z` into JSON.
pub fn parse_status(raw: &str) -> Value {
    let mut branch = Value::Null;
    let mut commit = Value::Null;
    let mut upstream = Value::Null;
    let (mut ahead, mut behind) = (Value::Null, Value::Null);
    let (mut staged, mut unstaged, mut untracked, mut conflicts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut fields = raw.split('\0').filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if let Some(h) = field.strip_prefix("# ") {
            let (key, val) = h.split_once(' ').unwrap_or((h, ""));
            match key {
                "branch.oid" if val != "(initial)" => commit = json!(val),
                "branch.head" if val != "(detached)" => branch = json!(val),
                "branch.upstream" => upstream = json!(val),
                "branch.ab" => {
                    let mut it = val.split(' ');
                    ahead = json!(it
                        .next()
                        .and_then(|a| a.trim_start_matches('+').parse::<u64>().ok()));
                    behind = json!(it
                        .next()
                        .and_then(|b| b.trim_start_matches('-').parse::<u64>().ok()));
                }
                _ => {}
            }
            continue;
        }
        let kind = field.as_bytes()[0];
        let (xy, path, from) = match kind {
            b'1' => (field.get(2..4), field.splitn(9, ' ').nth(8), None),
            b'2' => (field.get(2..4), field.splitn(10, ' ').nth(9), fields.next()),
            b'u' => {
                if let Some(p) = field.splitn(11, ' ').nth(10) {
                    conflicts.push(json!(p));
                }
                continue;
            }
            b'?' => {
                untracked.push(json!(&field[2..]));
                continue;
            }
            _ => continue,
        };
        let (Some(xy), Some(path)) = (xy, path) else {
            continue;
        };
        let (x, y) = (&xy[..1], &xy[1..]);
        if x != "." {
            let mut e = json!({ "status": x, "path": path });
            if let Some(f) = from {
                e["from"] = json!(f);
            }
            staged.push(e);
        }
        if y != "." {
            unstaged.push(json!({ "status": y, "path": path }));
        }
    }
    let clean =
        staged.is_empty() && unstaged.is_empty() && untracked.is_empty() && conflicts.is_empty();
    json!({
        "branch": branch,
        "detached": branch.is_null(),
        "commit": commit,
        "upstream": upstream,
        "ahead": ahead,
        "behind": behind,
        "clean": clean,
        "staged": staged,
        "unstaged": unstaged,
        "untracked": untracked,
        "conflicts": conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_v2_parses_into_lists() {
        let raw = "# branch.oid 1111\0# branch.head main\0# branch.upstream origin/main\0# branch.ab +2 -1\0\
                   1 M. N... 100644 100644 100644 aaa bbb staged file.txt\0\
                   1 .M N... 100644 100644 100644 aaa bbb work.txt\0\
                   2 R. N... 100644 100644 100644 aaa bbb R100 new name.txt\0old.txt\0\
                   u UU N... 100644 100644 100644 100644 a b c both.txt\0\
                   ? notes/\0";
        let v = parse_status(raw);
        assert_eq!(v["branch"], "main");
        assert_eq!(v["upstream"], "origin/main");
        assert_eq!(
            (v["ahead"].as_u64(), v["behind"].as_u64()),
            (Some(2), Some(1))
        );
        assert_eq!(
            v["staged"],
            json!([{"status": "M", "path": "staged file.txt"}, {"status": "R", "path": "new name.txt", "from": "old.txt"}])
        );
        assert_eq!(v["unstaged"], json!([{"status": "M", "path": "work.txt"}]));
        assert_eq!(v["untracked"], json!(["notes/"]));
        assert_eq!(v["conflicts"], json!(["both.txt"]));
        assert_eq!(v["clean"], false);
        let v = parse_status("# branch.oid (initial)\0# branch.head (detached)\0");
        assert_eq!(
            (v["detached"].as_bool(), v["clean"].as_bool()),
            (Some(true), Some(true))
        );
    }

    #[test]
    fn checkout_names_are_classified_like_the_seed() {
        let remotes = vec!["origin".to_string()];
        let t = |n: &str, local: bool| checkout_target(n, &remotes, local);
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
