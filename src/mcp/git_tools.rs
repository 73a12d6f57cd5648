//! The git tools: status, log, show, diff, checkout.
//!
//! Each builds the exact git command line it will run, asks the rules about
//! it ([`Ctx::govern`]), runs it through the doorway, and says how to ask
//! for less should the output be cut to the bound.

use serde_json::json;

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
    let mut v = super::status::parse_status(&raw);
    v["contract"] = json!(g.contract);
    let v = super::results::conform::<super::results::Status>(v)?;
    Ok(Output::json(v).narrow(
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
    // Revisions end here: a name that is also a path stays a revision.
    argv.push("--".into());
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let g = ctx.govern("git.log", &argv, None)?;
    if rev.is_none() {
        if let Some(Head::Unborn(b)) = g.a.facts.as_ref().and_then(|f| f.head.clone()) {
            return Ok(Output::git(format!("no commits yet on '{b}'")));
        }
    } else if let Some(r) = rev {
        verify_rev(&g, "ref", r)?;
    }
    let out = run(&g, &argv)?;
    Ok(Output::git(out).narrow("pass a smaller max_count, or oneline: true"))
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
    argv.extend([rev, "--"]);
    let g = ctx.govern("git.show", &argv, None)?;
    verify_rev(&g, "commit_ref", rev)?;
    let out = run(&g, &argv)?;
    Ok(Output::git(out)
        .narrow("pass stat_only: true, then git_diff with file_path for the files you need"))
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
        if leaves_the_top(p) {
            return Err(ToolError::invalid(
                "invalid_argument",
                "file_path is outside the repository",
                "pass a path relative to the repository's top, without leading `/` or `..` above it",
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
        v.push("--".into());
        v.extend(path.map(String::from));
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
    Ok(Output::git(out)
        .narrow("pass file_path for one file, or stat_only: true for the list of files"))
}

/// Does a path, read from the repository's top, name a place outside it
/// (absolute, or `..` above the top)?
fn leaves_the_top(path: &str) -> bool {
    if path.starts_with('/') {
        return true;
    }
    let mut depth: usize = 0;
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return true,
            },
            _ => depth += 1,
        }
    }
    false
}

/// Refuses revisions that could be read as options or carry odd bytes.
pub(super) fn check_rev(arg: &str, rev: &str) -> Result<(), ToolError> {
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
pub(super) fn verify_rev(g: &Governed, arg: &str, rev: &str) -> Result<(), ToolError> {
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
pub(super) fn run(g: &Governed, argv: &[&str]) -> Result<String, ToolError> {
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
pub(super) fn timeout_or(
    timeout_kind: &'static str,
    other: &'static str,
    err: &Error,
) -> ToolError {
    if err.kind == crate::error::Kind::TimedOut {
        ToolError::new(timeout_kind, err)
    } else {
        ToolError::new(other, err)
    }
}
