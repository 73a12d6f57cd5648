//! `git ward checkpoint`, `git ward checkpoint show` and `git ward checkpoints`.

use super::Outcome;
use serde_json::json;

use crate::audit::{self, Record};
use crate::checkpoint::snapshot::Options;
use crate::checkpoint::store::{self, short, Checkpoint, Kind};
use crate::checkpoint::{tool_repo, Ctx};
use crate::error::{Error, Result};

/// Snapshot the working tree: tracked files as they are on disk, untracked
/// files that are not ignored, allow-listed ignored files and the index.
/// Touches neither HEAD, the index, the stash nor the working tree.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CheckpointArgs {
    #[command(subcommand)]
    pub command: Option<CheckpointCommand>,
    /// A description of the checkpoint.
    #[arg(short = 'm', long = "message", value_name = "MSG")]
    pub message: Option<String>,
    /// Keep it whatever `checkpoint.keep` says.
    #[arg(long)]
    pub pin: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Subcommands of `git ward checkpoint`.
#[derive(Debug, clap::Subcommand)]
pub enum CheckpointCommand {
    /// Show one checkpoint's metadata.
    Show(ShowArgs),
}

/// Show a checkpoint.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The checkpoint id (`chk-local-3`).
    pub id: String,
    /// Also show what it holds beyond its HEAD, as a diff.
    #[arg(long)]
    pub diff: bool,
    /// Open it as a local branch `snapshot/<id>` for inspection.
    #[arg(long)]
    pub branch: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// List the checkpoints: id, created, type, description, branch, HEAD,
/// contract, test status, file counts.
#[derive(Debug, clap::Args)]
pub struct CheckpointsArgs {
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward checkpoint`.
pub fn run_checkpoint(args: CheckpointArgs) -> Outcome {
    if let Some(CheckpointCommand::Show(show_args)) = args.command {
        let json = show_args.json;
        return Outcome::report(json, show(show_args));
    }
    Outcome::report(args.json, create(args.message, args.pin))
}

fn create(message: Option<String>, pin: bool) -> Result<(serde_json::Value, String)> {
    let repo = tool_repo()?;
    let ctx = Ctx::for_tool(&repo)?;
    let mut opts = Options::new(Kind::Manual);
    if let Some(m) = message {
        opts.description = m;
    }
    opts.pinned = pin;
    let started = std::time::SystemTime::now();
    let cp = crate::checkpoint::take::checkpoint(&ctx, opts)?;
    record(
        &ctx,
        "ward.checkpoint",
        started,
        vec![format!("checkpoint {}", cp.id)],
    );
    let mut text = format!(
        "Created checkpoint {} ({} files, {} untracked, {} ignored kept)\n",
        cp.id, cp.counts.files, cp.counts.untracked, cp.counts.ignored
    );
    for s in &cp.skipped {
        text.push_str(&format!(
            "left out (larger than checkpoint.max_file_size): {s}\n"
        ));
    }
    Ok((json!({ "checkpoint": cp.to_json() }), text))
}

fn show(args: ShowArgs) -> Result<(serde_json::Value, String)> {
    let repo = tool_repo()?;
    // `--branch` writes a branch: under the rules, which need the policy.
    let ctx = if args.branch {
        Ctx::for_tool(&repo)?
    } else {
        Ctx::for_reading(&repo)?
    };
    let cp = store::find(&ctx, &args.id)?;
    let mut text = describe(&cp);
    let mut value = json!({ "checkpoint": cp.to_json() });
    if args.diff {
        let base = cp.head.clone().unwrap_or_else(|| EMPTY_TREE.to_string());
        let diff = ctx.git.run([
            "diff",
            "--no-ext-diff",
            "--no-color",
            "--stat",
            "--patch",
            &base,
            &cp.commit,
            "--",
        ])?;
        text.push('\n');
        text.push_str(&diff);
        text.push('\n');
        value["diff"] = diff.into();
    }
    if args.branch {
        let name = format!("snapshot/{}", cp.id);
        if let Some(taken) = clashing_branch(&repo, &name) {
            return Err(Error::invalid(
                format!("branch '{taken}' already exists, so '{name}' cannot be created"),
                format!(
                    "inspect it with `git log {taken}`, or delete it with `git branch -D {taken}`"
                ),
            ));
        }
        if let Some(err) = branch_denial(&ctx, &name, &cp.commit) {
            return Err(err);
        }
        ctx.git.run(["branch", &name, &cp.commit])?;
        text.push_str(&format!("Created branch {name} at {}\n", short(&cp.commit)));
        value["branch"] = name.into();
    }
    Ok((value, text))
}

/// The branch that keeps branch `name` from being created: `name` itself,
/// a branch named as one of its directories, or one inside it.
fn clashing_branch(repo: &crate::facts::Repo, name: &str) -> Option<String> {
    let exists = |branch: &str| repo.ref_target(&format!("refs/heads/{branch}")).is_some();
    let mut dirs = name.match_indices('/').map(|(i, _)| &name[..i]);
    if let Some(dir) = dirs.find(|d| exists(d)) {
        return Some(dir.to_string());
    }
    if exists(name) {
        return Some(name.to_string());
    }
    let inside = repo.ref_names(&format!("refs/heads/{name}/"))?;
    inside
        .first()
        .and_then(|r| r.strip_prefix("refs/heads/"))
        .map(str::to_string)
}

/// `decide`'s refusal, if any, of `git branch <name> <commit>` by whoever
/// runs git-ward (an agent may not create a protected branch): asked before
/// the branch is written, so a refusal is reported as one (status D, exit
/// 1, the rule's hint), not as git failing in the hook. Audited.
fn branch_denial(ctx: &Ctx, name: &str, commit: &str) -> Option<Error> {
    let started = std::time::SystemTime::now();
    let args = ["branch", name, commit].map(std::ffi::OsString::from);
    let err = crate::assess::assess(&args, false)
        .decision
        .denial()?
        .clone();
    let mut line = tool_record(ctx, "ward.checkpoint.show", started, Vec::new());
    line.decision = "deny".into();
    line.denial_code = Some(err.code.as_str().to_string());
    line.exit_code = Some(err.exit_code().into());
    audit::append(&ctx.audit_dir(), &[line]);
    Some(err)
}

/// The empty tree's id (SHA-1).
pub const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

fn describe(cp: &Checkpoint) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let mut t = format!("checkpoint {}\n", cp.id);
    t.push_str(&format!("Commit:      {}\n", cp.commit));
    t.push_str(&format!("Created:     {}\n", cp.created));
    t.push_str(&format!("Type:        {}\n", cp.kind.as_str()));
    t.push_str(&format!("Description: {}\n", cp.description));
    t.push_str(&format!("Branch:      {}\n", opt(&cp.branch)));
    t.push_str(&format!("HEAD:        {}\n", opt(&cp.head)));
    t.push_str(&format!("Contract:    {}\n", opt(&cp.contract)));
    t.push_str(&format!("Worktree:    {}\n", opt(&cp.workdir)));
    if let Some(n) = cp.turn {
        t.push_str(&format!("Turn:        {n}\n"));
    }
    t.push_str(&format!("Tests:       {}\n", opt(&cp.tests)));
    t.push_str(&format!(
        "Files:       {} ({} untracked, {} ignored, {} left out)\n",
        cp.counts.files, cp.counts.untracked, cp.counts.ignored, cp.counts.skipped
    ));
    if cp.pinned {
        t.push_str("Pinned:      yes\n");
    }
    for s in &cp.skipped {
        t.push_str(&format!("Left out:    {s}\n"));
    }
    for h in &cp.merge_heads {
        t.push_str(&format!("Merging:     {h}\n"));
    }
    if let Some(s) = &cp.merge_state {
        t.push_str(&format!(
            "Merge state: {s} (MERGE_HEAD, MERGE_MSG, conflict stages)\n"
        ));
    }
    for c in &cp.conflicted {
        t.push_str(&format!("Conflicted:  {c} (staged side: ours)\n"));
    }
    t
}

/// Runs `git ward checkpoints`.
pub fn run_list(args: CheckpointsArgs) -> Outcome {
    Outcome::report(args.json, list())
}

fn list() -> Result<(serde_json::Value, String)> {
    let repo = tool_repo()?;
    let ctx = Ctx::for_reading(&repo)?;
    let all = store::list(&ctx)?;
    let mut text = String::new();
    if all.is_empty() {
        text.push_str("no checkpoints yet (take one with `git ward checkpoint`)\n");
    } else {
        let mut table = crate::table::Table::new(&[
            "ID",
            "CREATED",
            "TYPE",
            "BRANCH",
            "HEAD",
            "CONTRACT",
            "TESTS",
            "FILES",
            "DESCRIPTION",
        ])
        .right(7);
        for c in all.iter().rev() {
            table.row(vec![
                c.id.clone(),
                c.created.clone(),
                c.kind.as_str().to_string(),
                c.branch.clone().unwrap_or_else(|| "-".into()),
                c.head.as_deref().map(short).unwrap_or("-").to_string(),
                c.contract.clone().unwrap_or_else(|| "-".into()),
                c.tests.clone().unwrap_or_else(|| "-".into()),
                c.counts.files.to_string(),
                format!(
                    "{}{}",
                    c.description,
                    if c.pinned { " [pinned]" } else { "" }
                ),
            ]);
        }
        text.push_str(&table.render());
    }
    let items: Vec<serde_json::Value> = all.iter().rev().map(Checkpoint::to_json).collect();
    Ok((json!({ "checkpoints": items }), text))
}

/// Appends the tool's audit line for a checkpoint command.
pub fn record(ctx: &Ctx, operation: &str, started: std::time::SystemTime, actions: Vec<String>) {
    audit::append(
        &ctx.audit_dir(),
        &[tool_record(ctx, operation, started, actions)],
    );
}

/// The audit line [`record`] writes.
pub fn tool_record(
    ctx: &Ctx,
    operation: &str,
    started: std::time::SystemTime,
    actions: Vec<String>,
) -> Record {
    Record {
        timestamp: audit::rfc3339(std::time::SystemTime::now()),
        started_at: audit::rfc3339(started),
        duration_ms: started.elapsed().map(|d| d.as_millis() as u64).unwrap_or(0),
        trace_id: ctx.trace_id.clone(),
        source: "tool".into(),
        actor: ctx.actor.as_str().into(),
        contract_id: ctx.contract.clone(),
        operation: operation.into(),
        argv: crate::process::tool_argv(),
        tier: 1,
        decision: "allow".into(),
        actions_taken: actions,
        exit_code: Some(0),
        worktree: Some(ctx.workdir.display().to_string()),
        ..Record::default()
    }
}
