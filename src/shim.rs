//! The shim face: `git` on an agent's PATH is a link to git-ward.
//!
//! git's argv passes to the real git untouched (no reordering, no
//! re-quoting, non-UTF-8 bytes kept, stdio inherited). Read-only commands
//! `exec` the real git: no child, no wait. Mutating ones run it as a child,
//! with signals forwarded, so the end time and exit status reach the audit
//! log; the child's status (or signal) passes through unchanged.

use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Instant, SystemTime};

use crate::act::switch::{checkpoint_before_switch, checkpoint_failed, switch_to};
use crate::action::{Action, RefOp, RefTarget};
use crate::assess::{assess, Assessment};
use crate::audit::{self, Record};
use crate::classify::{GitArgs, Globals};
use crate::decide::{Head, Verdict};
use crate::env;
use crate::error::{exit, Error};
use crate::facts::settings_cache::Quick;
use crate::facts::Dirs;
use crate::facts::{self, Repo};
use crate::git::{self, Git};
use crate::output::{report, report_denial};

mod fetch;

/// Runs the shim for git's argv; never returns for exec'd commands.
pub fn main(args: Vec<OsString>) -> u8 {
    // Whatever came through the shim is an agent's: marked before anything
    // reads a knob (`env::knob`), so that none moves what the shim trusts.
    env::mark_shim();
    let real = match Git::locate() {
        Ok(git) => git,
        Err(err) => {
            report(&err);
            return err.exit_code();
        }
    };
    let started = SystemTime::now();
    let clock = Instant::now();
    let pre = crate::classify::parse_globals(&args);
    // `--version` and the like, `git` alone, and `git ward ...` (git-ward's
    // own tool, whose commands apply the rules themselves) go straight to git.
    if pre.globals.informational || pre.rest.first().is_none_or(|c| c == "ward") {
        return exec(&real, &args, None, None);
    }
    if let Some(code) = fast_read(&real, &args, &pre, started) {
        return code;
    }
    let a = assess(&args, true);
    tracing::debug!(
        us = clock.elapsed().as_micros() as u64,
        decision = a.decision.word(),
        "assessed"
    );
    let Some(repo) = a.repo.as_ref().filter(|_| a.action.needs_repo) else {
        return outside(&real, &a, &args, started, clock);
    };
    let mut call = Call::start(&a, repo, &args, started, clock);
    if let Ok(policy) = &a.policy {
        handle_drift(repo, policy, &mut call.record);
    }
    let git_here = internal_git(&real, repo, &call.trace_id, call.contract.as_deref());
    if a.tier() > 0 && !matches!(a.decision.verdict, Verdict::Deny(_)) {
        // Before the switch and the checkpoint, whose git runs the hooks too.
        for warning in hook_health(repo) {
            crate::output::errln!("ward: {warning}");
            call.record.actions_taken.push(warning);
        }
    }
    if let Err(code) = carry_out(&a, &git_here, &mut call) {
        return code;
    }
    if let Err(code) = checkpoint_first(&a, &git_here, repo, &pre.globals, &mut call) {
        return code;
    }
    if a.tier() == 0 {
        return read(&real, &args, call);
    }
    mutate(&real, &a, repo, args, pre.rest.len(), call)
}

/// One command on the full road: its trace, contract and audit line.
struct Call {
    trace_id: String,
    contract: Option<String>,
    record: Record,
    audit_dir: std::path::PathBuf,
    log_reads: bool,
    clock: Instant,
}

impl Call {
    fn start(
        a: &Assessment,
        repo: &Repo,
        args: &[OsString],
        started: SystemTime,
        clock: Instant,
    ) -> Call {
        let trace_id = env::var(env::WARD_TRACE_ID).unwrap_or_else(audit::new_trace_id);
        // Without facts (a policy that cannot be read), the contract and HEAD
        // are still read for the audit line and git's environment.
        let contract = match &a.facts {
            Some(f) => f.contract.clone(),
            None => facts::contract(Some(repo)).ok().flatten().map(|c| c.0),
        };
        let mut record = base_record(a, repo, args, &trace_id, started);
        record.contract_id = contract.clone();
        Call {
            trace_id,
            contract,
            record,
            audit_dir: audit::dir(repo.common_dir()),
            log_reads: a.policy.as_ref().map_or(true, |p| p.settings.audit.reads),
            clock,
        }
    }
}

/// Outside a repository, or a command that needs none: git's business,
/// but for a write into a git directory or onto a policy file (`config
/// --file`, `diff --no-index --output`), and for a command in a repository
/// git-ward cannot read (SHA-256), which is refused as without facts.
fn outside(
    real: &Git,
    a: &Assessment,
    args: &[OsString],
    started: SystemTime,
    clock: Instant,
) -> u8 {
    let guarded = a.facts.as_ref().is_some_and(|f| f.writes_guarded.is_some());
    let Verdict::Deny(err) = &a.decision.verdict else {
        return exec(real, args, None, None);
    };
    if !(guarded || a.action.needs_repo) {
        return exec(real, args, None, None);
    }
    report_denial(err);
    // Inside a repository (`git init` over it, `clone . .git/x`), its
    // audit log records the refusal.
    let Some(repo) = a.repo.as_ref() else {
        return exit::DENIED;
    };
    let trace_id = env::var(env::WARD_TRACE_ID).unwrap_or_else(audit::new_trace_id);
    let mut record = base_record(a, repo, args, &trace_id, started);
    record.contract_id = a.facts.as_ref().and_then(|f| f.contract.clone());
    record.denial_code = Some(err.code.as_str().to_string());
    finish(
        &audit::dir(repo.common_dir()),
        record,
        clock,
        exit::DENIED as i32,
    )
}

/// The verdict: a denial ends the command (its exit code as `Err`); a
/// switch moves the agent onto its branch first, with its checkpoint.
fn carry_out(a: &Assessment, git_here: &Git, call: &mut Call) -> Result<(), u8> {
    match &a.decision.verdict {
        Verdict::Deny(err) => {
            report_denial(err);
            call.record.denial_code = Some(err.code.as_str().to_string());
            let record = std::mem::take(&mut call.record);
            Err(finish(
                &call.audit_dir,
                record,
                call.clock,
                exit::DENIED as i32,
            ))
        }
        Verdict::Switch(branch) => {
            let failed = |call: &mut Call, err: &Error| {
                let record = std::mem::take(&mut call.record);
                unrun(&call.audit_dir, record, call.clock, err)
            };
            match checkpoint_before_switch(git_here, a, branch, &call.trace_id) {
                Ok(Some(id)) => call.record.actions_taken.push(format!("checkpoint {id}")),
                Ok(None) => {}
                Err(err) => return Err(failed(call, &err)),
            }
            if let Err(err) = switch_to(git_here, a, branch) {
                return Err(failed(call, &err));
            }
            let from = a
                .facts
                .as_ref()
                .and_then(|f| f.head.as_ref())
                .and_then(Head::branch)
                .unwrap_or("HEAD");
            crate::output::errln!("ward: on protected '{from}'; switched to '{branch}'");
            call.record
                .actions_taken
                .push(format!("switched to {branch}"));
            Ok(())
        }
        Verdict::Allow => Ok(()),
    }
}

/// The checkpoint the decision asks for before the command runs, said in
/// one line; a checkpoint that fails ends the command unrun.
fn checkpoint_first(
    a: &Assessment,
    git_here: &Git,
    repo: &Repo,
    globals: &Globals,
    call: &mut Call,
) -> Result<(), u8> {
    if !(a.decision.checkpoint || a.decision.save_staged) {
        return Ok(());
    }
    let taken = crate::checkpoint::before_destructive(
        git_here,
        repo,
        a.policy.as_ref().ok().map(|p| &p.settings),
        &crate::checkpoint::Pending {
            action: &a.action,
            cwd: &facts::effective_cwd(globals),
            paths: pathspecs_as_written(globals, &a.action),
            keep_ignored: a.facts.as_ref().map_or(&[], |f| &f.ignored_in_the_way),
        },
        call.contract.as_deref(),
        &call.trace_id,
    );
    match taken {
        Ok(Some(id)) => {
            if call.record.decision == "allow" {
                // Unstaging: checkpointed, then allowed.
                call.record.decision = "checkpoint".into();
            }
            call.record.actions_taken.push(format!("checkpoint {id}"));
            crate::output::errln!(
                "ward: checkpoint {id} saved your changes; undo with git ward undo --yes"
            );
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(err) => {
            let err = checkpoint_failed(&a.action, err);
            let record = std::mem::take(&mut call.record);
            Err(unrun(&call.audit_dir, record, call.clock, &err))
        }
    }
}

/// A read: logged (git's own exit is not known after the exec: the line
/// ends here), then the real git in this process.
fn read(real: &Git, args: &[OsString], mut call: Call) -> u8 {
    if call.log_reads {
        call.record.exit_code = None;
        call.record.duration_ms = call.clock.elapsed().as_millis() as u64;
        call.record.timestamp = audit::rfc3339(SystemTime::now());
        audit::append(&call.audit_dir, &[call.record]);
    }
    tracing::debug!(us = call.clock.elapsed().as_micros() as u64, "logged; exec");
    exec(real, args, Some(&call.trace_id), call.contract.as_deref())
}

/// A mutating command: the real git as a child (a fetch as one
/// transaction, a pull on a protected branch fast-forward only), then what
/// no hook records (remote changes, branch renames), and its end.
fn mutate(
    real: &Git,
    a: &Assessment,
    repo: &Repo,
    args: Vec<OsString>,
    rest: usize,
    mut call: Call,
) -> u8 {
    let branch_refs = branch_writes(repo, &a.action);
    let args = match a.decision.fast_forward_only {
        true => {
            call.record
                .actions_taken
                .push("run fast-forward only".into());
            fast_forward_only(args, rest)
        }
        false => args,
    };
    let (trace_id, contract) = (call.trace_id.as_str(), call.contract.as_deref());
    let status = match (a.action.command == "fetch" && !a.action.fetch_prunes)
        .then(|| fetch::atomic(&args, rest))
        .flatten()
    {
        Some(atomic) => run_fetch(real, &atomic, &args, trace_id, contract),
        None => run_child(real, &args, trace_id, contract),
    };
    if a.decision.fast_forward_only && !status.as_ref().is_ok_and(|s| s.success()) {
        if let Some((note, hint)) = pull_would_merge(repo, a) {
            crate::output::errln!("ward: {note}");
            crate::output::errln!("hint: {hint}");
        }
    }
    if let (Some(change), Ok(s)) = (&a.action.remote_change, &status) {
        if s.success() {
            record_remote_change(repo, change);
        }
    }
    journal_branch_writes(repo, &call.audit_dir, &call.record, branch_refs);
    call.record.branch_after = facts::head_branch_file(repo.git_dir());
    finish_status(&call.audit_dir, call.record, call.clock, status)
}

/// After a `pull` on a protected branch that did not fast-forward: when
/// the branch has commits its upstream lacks (so the pull would have
/// merged there), why, and how to merge on a branch of one's own instead,
/// naming the upstream (a new branch has none). `None` when the pull
/// failed for another reason, or the upstream is not known.
fn pull_would_merge(repo: &Repo, a: &Assessment) -> Option<(String, String)> {
    let facts = a.facts.as_ref()?;
    let branch = facts.head.as_ref()?.branch()?;
    let remote = repo
        .config_values(&format!("branch.{branch}.remote"))
        .pop()?;
    let merge = repo
        .config_values(&format!("branch.{branch}.merge"))
        .pop()?;
    let from = merge.strip_prefix("refs/heads/")?;
    let tracking = format!("refs/remotes/{remote}/{from}");
    if repo.ref_target(&tracking).is_none() || repo.fast_forwards(&tracking) {
        return None;
    }
    let policy = a.policy.as_ref().ok()?;
    let go = match facts.contract.as_deref() {
        Some(c) => {
            let own = format!("{}{c}", policy.settings.branches.agent_prefix);
            match facts::agent_branch_exists(policy, repo, Some(c)) {
                true => format!("`git switch {own}`"),
                false => format!("`git switch -c {own}`"),
            }
        }
        None => "`git switch -c <name>`".to_string(),
    };
    Some((
        format!("'{branch}' has commits that '{remote}/{from}' lacks; on a protected branch a pull only fast-forwards (pull.ff=only)"),
        format!("merge on a branch of your own: {go}, then `git pull --no-rebase {remote} {from}`"),
    ))
}

/// Keeps the record of the agent's remotes ([`crate::state_file::agent_remotes`])
/// after a `remote add|remove|rename` git carried out: a remote an agent
/// adds is its own (protected branches never sync from it); the mark
/// follows a rename and goes with a removal.
fn record_remote_change(repo: &Repo, change: &crate::action::RemoteChange) {
    use crate::action::RemoteChange;
    let result = crate::state_file::change_agent_remotes(repo.common_dir(), |names| match change {
        RemoteChange::Add(name) => names.push(name.clone()),
        RemoteChange::Remove(name) => names.retain(|n| n != name),
        RemoteChange::Rename(old, new) => {
            for n in names.iter_mut().filter(|n| *n == old) {
                n.clone_from(new);
            }
        }
    });
    if let Err(e) = result {
        crate::output::errln!("ward: warning: cannot keep the record of the agent's remotes: {e}");
    }
}

/// Guarded refs that moved with the hooks off: reported (a warning, and an
/// audit line the first time); with `enforce.drift = "restore"`, put back
/// before the agent's command runs. (`"refuse"` is decide's: the command
/// was refused already when it changes anything.)
fn handle_drift(repo: &Repo, policy: &crate::policy::Policy, record: &mut Record) {
    let found = crate::commands::drift::scan(repo, policy);
    if found.moved.is_empty() {
        return;
    }
    crate::commands::drift::notice(repo.common_dir(), &found, "shim", true);
    if policy.settings.enforce.drift != crate::policy::DriftAction::Restore {
        return;
    }
    match crate::commands::drift::restore(repo, &found.moved) {
        Ok(done) => {
            for m in done {
                let line = format!("restored {} (enforce.drift = \"restore\")", m.refname);
                crate::output::errln!("ward: {line}");
                record.actions_taken.push(line);
            }
        }
        Err(err) => crate::output::errln!("ward: warning: {}", err.message),
    }
}

/// What is wrong with this repository's git-ward hooks, after pointing
/// the hooks whose binary is gone at this one (the PATH fallback,
/// `hooks::install::repoint`); nothing to read further when all is well.
fn hook_health(repo: &Repo) -> Vec<String> {
    let mut warnings = crate::hooks::install::health(repo);
    if warnings.is_empty() {
        return warnings;
    }
    let mut said = Vec::new();
    match crate::hooks::install::repoint(repo) {
        Ok(Some((old, new))) => {
            said.push(format!(
                "note: git-ward's hooks started {}, which is gone; they now start {}",
                old.display(),
                new.display()
            ));
            warnings = crate::hooks::install::health(repo);
        }
        Ok(None) => {}
        Err(err) => said.push(format!(
            "warning: could not point the hooks at this git-ward: {}",
            err.message
        )),
    }
    said.extend(warnings.into_iter().map(|w| format!("warning: {w}")));
    said
}

/// The branches a `branch` command writes by name, with their values
/// before it runs. With the files backend git writes the new name of a
/// rename or copy (`-m`, `-M`, `-c`, `-C`) outside a ref transaction, so
/// the reference-transaction hook never journals it, and undo would leave
/// it (or, over a branch it replaced, call it moved since); a copy never
/// reaches the hook at all. So the shim, which knows the names, records them.
fn branch_writes(repo: &Repo, action: &Action) -> Vec<(String, Option<String>)> {
    if action.command != "branch" {
        return Vec::new();
    }
    action
        .refs
        .iter()
        .filter(|w| w.op != RefOp::Delete)
        .filter_map(|w| match &w.target {
            RefTarget::Named(name) => Some((name.clone(), repo.ref_target(name))),
            _ => None,
        })
        .collect()
}

/// Journals each of `before`'s refs that the command changed, under its
/// trace. Where the hook journaled the same change the line is the same
/// move, which undo counts once.
fn journal_branch_writes(
    repo: &Repo,
    audit_dir: &std::path::Path,
    record: &Record,
    before: Vec<(String, Option<String>)>,
) {
    let lines: Vec<Record> = before
        .into_iter()
        .filter_map(|(name, old)| {
            let new = repo.ref_target(&name);
            (new != old).then(|| Record {
                timestamp: audit::rfc3339(SystemTime::now()),
                trace_id: record.trace_id.clone(),
                source: "shim".into(),
                actor: record.actor.clone(),
                contract_id: record.contract_id.clone(),
                operation: record.operation.clone(),
                worktree: record.worktree.clone(),
                ..Record::journal(
                    name,
                    old.unwrap_or_else(|| audit::ZERO_ID.into()),
                    new.unwrap_or_else(|| audit::ZERO_ID.into()),
                )
            })
        })
        .collect();
    if !lines.is_empty() {
        audit::append(audit_dir, &lines);
    }
}

/// The read-only fast path, for the commonest case: a command that only
/// reads whatever its arguments (`status`, `log`, `diff`, `rev-parse` ...,
/// but not with `--output=<file>`),
/// run anywhere in a working tree (after any `-C`) or with `GIT_DIR`, with
/// no `--git-dir`, `--work-tree` or `--bare` and no configuration on the
/// command line or in the environment (which could switch hooks off). The
/// full road would allow it; this reaches the same answer without opening
/// the repository or parsing the policy: the cached settings of
/// `facts::settings_cache` say whether the policy reclassifies the command and
/// whether reads are logged. Anything else returns `None`: the full road.
fn fast_read(real: &Git, args: &[OsString], pre: &GitArgs, started: SystemTime) -> Option<u8> {
    let command = pre.rest.first()?.to_str()?;
    let g = &pre.globals;
    let plain = g.plain() && !g.bare && !g.informational;
    if !plain
        || !crate::classify::always_reads(command)
        || crate::classify::may_write_file(command, &pre.rest[1..])
        || !facts::env_config().is_empty()
        || std::env::var_os("GIT_INDEX_FILE").is_some()
        || !facts::trace_files().is_empty()
    {
        return None;
    }
    let dirs = fast_dirs(g)?;
    let mut quick = Quick::load(&dirs).ok()?.quick;
    if quick.reclassified.iter().any(|c| c == command) {
        return None;
    }
    // Drift (a few stats while nothing moved) is the full road's to report.
    let drift = facts::drift::check(&dirs.common_dir, &mut |r| quick.is_protected(r));
    if !drift.moved.is_empty() {
        crate::commands::drift::notice(&dirs.common_dir, &drift, "shim", false);
        return None;
    }
    let contract = match env::var(env::WARD_CONTRACT) {
        Some(id) => Some(id),
        None => crate::state_file::read_text(&dirs.git_dir.join("ward").join("contract"))
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty()),
    };
    if contract
        .as_deref()
        .is_some_and(|c| !facts::valid_contract(c))
    {
        return None; // the full road reports it
    }
    let trace_id = env::var(env::WARD_TRACE_ID).unwrap_or_else(audit::new_trace_id);
    if quick.audit_reads {
        let record = Record {
            timestamp: audit::rfc3339(SystemTime::now()),
            started_at: audit::rfc3339(started),
            trace_id: trace_id.clone(),
            source: "shim".into(),
            actor: "agent".into(),
            contract_id: contract.clone(),
            operation: format!("git.{command}"),
            argv: args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            tier: 0,
            decision: "allow".into(),
            branch_before: facts::head_branch_file(&dirs.git_dir),
            worktree: dirs.work_tree.as_ref().map(|w| w.display().to_string()),
            ..Record::default()
        };
        audit::append(&dirs.audit_dir(), &[record]);
    }
    tracing::debug!("read-only fast path; exec");
    Some(exec(real, args, Some(&trace_id), contract.as_deref()))
}

/// The repository git will use, found without opening it: with `GIT_DIR`
/// exported, that git dir, and the working directory as the top of the
/// working tree (as git takes it); else discovered upwards from where `-C`
/// leads. `None` when in doubt.
fn fast_dirs(g: &Globals) -> Option<Dirs> {
    if env::var("GIT_DIR").is_some() {
        // `-C` then `GIT_DIR` relative to the new directory: the full road.
        return g.chdir.is_empty().then(Dirs::find).flatten();
    }
    Dirs::discover(&facts::physical_cwd(g)?)
}

/// A doorway for git-ward's own calls in this repository, carrying the trace.
fn internal_git(real: &Git, repo: &Repo, trace_id: &str, contract: Option<&str>) -> Git {
    let mut g = facts::context::in_person_home(real.clone(), repo.common_dir())
        .detached_from_env()
        .env("GIT_DIR", repo.git_dir())
        .env(env::WARD_AGENT, "1")
        .env(env::WARD_TRACE_ID, trace_id)
        .env(env::WARD_VIA, "shim");
    if let Some(w) = repo.workdir() {
        g = g.in_dir(w).env("GIT_WORK_TREE", w);
    }
    if let Some(c) = contract {
        g = g.env(env::WARD_CONTRACT, c);
    }
    g
}

fn base_record(
    a: &Assessment,
    repo: &Repo,
    args: &[OsString],
    trace_id: &str,
    started: SystemTime,
) -> Record {
    let facts = a.facts.as_ref();
    Record {
        started_at: audit::rfc3339(started),
        trace_id: trace_id.to_string(),
        source: "shim".into(),
        actor: "agent".into(),
        operation: a.action.operation(),
        argv: args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        tier: a.tier(),
        decision: a.decision.word().into(),
        branch_before: match facts {
            Some(f) => f.head.clone(),
            None => repo.head(),
        }
        .map(|h| h.branch().unwrap_or("HEAD").to_string()),
        worktree: repo.workdir().map(|w| w.display().to_string()),
        ..Record::default()
    }
}

/// Reports `err`, for which the command was not run, and ends its audit
/// line as refused, with the error's exit code.
fn unrun(dir: &std::path::Path, mut record: Record, clock: Instant, err: &Error) -> u8 {
    match err.is_denial() {
        true => report_denial(err),
        false => report(err),
    }
    record.decision = "deny".into();
    record.denial_code = Some(err.code.as_str().to_string());
    finish(dir, record, clock, err.exit_code() as i32)
}

fn finish(dir: &std::path::Path, mut record: Record, clock: Instant, code: i32) -> u8 {
    record.exit_code = Some(code);
    record.duration_ms = clock.elapsed().as_millis() as u64;
    record.timestamp = audit::rfc3339(SystemTime::now());
    audit::append(dir, &[record]);
    code.clamp(0, 255) as u8
}

fn finish_status(
    dir: &std::path::Path,
    record: Record,
    clock: Instant,
    status: std::io::Result<std::process::ExitStatus>,
) -> u8 {
    match status {
        Ok(status) => {
            if let Some(sig) = status.signal() {
                // Logged as the shell would report it, then die of the same signal.
                let code = finish(dir, record, clock, 128 + sig);
                reraise(sig);
                code
            } else {
                finish(dir, record, clock, status.code().unwrap_or(1))
            }
        }
        Err(e) => {
            let err = Error::internal(format!("cannot run the real git: {e}"));
            report(&err);
            finish(dir, record, clock, exit::INTERNAL as i32)
        }
    }
}

/// The pathspecs a destructive command is limited to, if git will read
/// them as a look from the same directory reads them: not when global
/// options or `-c` settings could change their meaning, nor when one was
/// not UTF-8 (the classifier's text of it is not what git reads).
fn pathspecs_as_written<'a>(g: &Globals, action: &'a Action) -> Option<&'a [String]> {
    action.paths.as_deref().filter(|paths| {
        g.plain()
            && !g.pathspec_magic
            && !paths
                .iter()
                .any(|p| p.contains(char::REPLACEMENT_CHARACTER))
    })
}

/// The variables git-ward hands the real git: the hop marker always; for an
/// agent's command its trace, and the contract.
fn child_env(trace_id: Option<&str>, contract: Option<&str>) -> Vec<(&'static str, OsString)> {
    let mut vars = vec![(env::WARD_SHIM_SEEN, git::shim_seen_marker())];
    if let Some(trace) = trace_id {
        vars.push((env::WARD_TRACE_ID, trace.into()));
        vars.push((env::WARD_VIA, "shim".into()));
    }
    vars.push((env::WARD_AGENT, "1".into()));
    if let Some(c) = contract {
        vars.push((env::WARD_CONTRACT, c.into()));
    }
    vars
}

/// Puts the variables for git into this process's own environment, which
/// `exec` and `spawn` pass on as it is: `Command::env` would first copy
/// every variable into a map (85,000 instructions, a third of a read's).
/// Called only where git-ward itself reads none of them any more; one
/// thread.
fn export(trace_id: Option<&str>, contract: Option<&str>) {
    // The agent's git is not git-ward's own ([`crate::git::own`]).
    std::env::remove_var(env::WARD_OWN_FD);
    for (name, value) in child_env(trace_id, contract) {
        std::env::set_var(name, value);
    }
}

/// Has the real git run `pull` fast-forward only: `--ff-only` right after
/// the command word (`rest` words from the end of `args`), which git
/// honours over `--no-rebase` and `pull.ff` alike (a later `--ff` or
/// `--no-ff` the agent typed still wins, as git reads them); for an alias,
/// `pull.ff=only` after the config the environment carries.
fn fast_forward_only(mut args: Vec<OsString>, rest: usize) -> Vec<OsString> {
    let at = args.len() - rest;
    if args.get(at).is_some_and(|w| w == "pull") {
        args.insert(at + 1, "--ff-only".into());
        return args;
    }
    let mut params = std::env::var_os("GIT_CONFIG_PARAMETERS").unwrap_or_default();
    if !params.is_empty() {
        params.push(" ");
    }
    params.push("'pull.ff=only'");
    std::env::set_var("GIT_CONFIG_PARAMETERS", params);
    args
}

/// Replaces this process with the real git.
fn exec(real: &Git, args: &[OsString], trace_id: Option<&str>, contract: Option<&str>) -> u8 {
    export(trace_id, contract);
    let err = Command::new(real.path()).args(args).exec();
    report(&Error::internal(format!(
        "cannot run {}: {err}",
        real.path().display()
    )));
    exit::NO_GIT
}

static CHILD: AtomicI32 = AtomicI32::new(0);
const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

extern "C" fn forward(sig: libc::c_int) {
    let pid = CHILD.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

/// Runs the real git as a child, forwarding signals, and waits for it.
fn run_child(
    real: &Git,
    args: &[OsString],
    trace_id: &str,
    contract: Option<&str>,
) -> std::io::Result<std::process::ExitStatus> {
    Ok(spawn_child(real, args, trace_id, contract, false)?.0)
}

/// An agent's fetch run as one ref transaction ([`fetch`]): its stderr
/// held back, and the fetch run again as written (`args`) where the
/// atomic run failed on a rejected ref.
fn run_fetch(
    real: &Git,
    atomic: &[OsString],
    args: &[OsString],
    trace_id: &str,
    contract: Option<&str>,
) -> std::io::Result<std::process::ExitStatus> {
    use std::io::Write;
    // The reflog says what the agent typed, as git would without `--atomic`.
    if std::env::var_os("GIT_REFLOG_ACTION").is_none() {
        let at = args.iter().zip(atomic).position(|(a, b)| a != b);
        let mut rla = OsString::from("fetch");
        for word in &args[at.unwrap_or(args.len())..] {
            rla.push(" ");
            rla.push(word);
        }
        std::env::set_var("GIT_REFLOG_ACTION", rla);
    }
    let (status, stderr) = spawn_child(real, atomic, trace_id, contract, true)?;
    if fetch::again(&status, &stderr) {
        return run_child(real, args, trace_id, contract);
    }
    let _ = std::io::stderr().write_all(&stderr);
    Ok(status)
}

/// Runs the real git as a child with signals forwarded; with `capture`,
/// its stderr is read and returned rather than passed through.
fn spawn_child(
    real: &Git,
    args: &[OsString],
    trace_id: &str,
    contract: Option<&str>,
    capture: bool,
) -> std::io::Result<(std::process::ExitStatus, Vec<u8>)> {
    use std::io::Read;
    export(Some(trace_id), contract);
    let mut cmd = Command::new(real.path());
    cmd.args(args);
    if capture {
        cmd.stderr(std::process::Stdio::piped());
    }
    let mut child = cmd.spawn()?;
    forward_signals_to(child.id());
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_end(&mut stderr);
    }
    Ok((child.wait()?, stderr))
}

/// From now on, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to this process
/// go to the child `pid` instead.
pub(crate) fn forward_signals_to(pid: u32) {
    CHILD.store(pid as i32, Ordering::SeqCst);
    for sig in FORWARDED {
        // SAFETY: installing a handler that only calls kill(2).
        unsafe {
            libc::signal(sig, forward as *const () as libc::sighandler_t);
        }
    }
}

/// Dies of `sig` as the child did, so our parent sees the same status.
pub(crate) fn reraise(sig: i32) {
    // SAFETY: restoring the default disposition and raising a signal on ourselves.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}
