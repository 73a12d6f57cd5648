//! Moving an agent onto its branch before its command runs: the checkpoint
//! that makes the move undoable, then the move itself. The shim, `save`
//! and `explain` all move the same way.

use crate::assess::Assessment;
use crate::decide::Head;
use crate::error::Error;
use crate::git::Git;

/// The refusal of a command whose checkpoint could not be taken; a
/// denial (work no checkpoint can hold) stays one.
pub fn checkpoint_failed(action: &crate::action::Action, err: Error) -> Error {
    if err.is_denial() {
        return err;
    }
    Error::internal(format!(
        "could not checkpoint before {}: {}",
        action.operation(),
        err.message
    ))
    .with_hint(match err.hint {
        // A refusal that says what to do (work a checkpoint cannot hold).
        Some(hint) => format!("nothing was run; {hint}"),
        None => "nothing was run; fix the cause, or take a checkpoint by hand (`git ward checkpoint`) and retry".into(),
    })
}

/// Takes the checkpoint that makes the move to `branch` undoable, when
/// the branch exists (locally or on a remote): the move changes files no
/// journal line records. An error means nothing may run.
pub fn checkpoint_before_switch(
    git: &Git,
    a: &Assessment,
    branch: &str,
    trace_id: &str,
) -> Result<Option<String>, Error> {
    let Some(repo) = a
        .repo
        .as_ref()
        .filter(|_| branch_source(a, branch).is_some())
    else {
        return Ok(None);
    };
    let contract = a.facts.as_ref().and_then(|f| f.contract.as_deref());
    crate::checkpoint::before_switch(
        git,
        repo,
        a.policy.as_ref().ok().map(|p| &p.settings),
        &a.action,
        branch,
        contract,
        trace_id,
    )
    .map_err(|err| checkpoint_failed(&a.action, err))
}

/// Where an agent branch that exists already is: the local branch, or
/// (none here) a remote's, from an earlier session in another clone.
pub enum Source {
    Local,
    /// `<remote>/<branch>`: of the one remote that has it, else of `origin`.
    Remote(String),
}

/// Where `branch` exists, if it does.
pub fn branch_source(a: &Assessment, branch: &str) -> Option<Source> {
    let repo = a.repo.as_ref()?;
    if repo.ref_target(&format!("refs/heads/{branch}")).is_some() {
        return Some(Source::Local);
    }
    let remotes: Vec<String> = repo
        .remotes()
        .into_iter()
        .filter(|r| {
            repo.ref_target(&format!("refs/remotes/{r}/{branch}"))
                .is_some()
        })
        .collect();
    let remote = match remotes.as_slice() {
        [one] => one,
        more => more.iter().find(|r| *r == "origin")?,
    };
    Some(Source::Remote(format!("{remote}/{branch}")))
}

/// Moves to `branch` before the command runs: creates it at HEAD, or checks
/// out the existing one carrying the working tree and the index (made from
/// a remote's, tracking it, where only a remote has it). If carrying the
/// changes would conflict, git refuses and nothing is lost: we deny.
pub fn switch_to(git: &Git, a: &Assessment, branch: &str) -> Result<(), Error> {
    let unborn = matches!(
        a.facts.as_ref().and_then(|f| f.head.as_ref()),
        Some(Head::Unborn(_))
    );
    let out = match branch_source(a, branch) {
        Some(Source::Local) => git.output(["checkout", "--quiet", branch])?,
        // On an unborn branch too: the staged files come along.
        Some(Source::Remote(start)) => {
            git.output(["checkout", "--quiet", "--track", "-b", branch, &start])?
        }
        None if unborn => git.output(["symbolic-ref", "HEAD", &format!("refs/heads/{branch}")])?,
        // Its own branch: no upstream from `branch.autoSetupMerge`
        // (`inherit` would give it the protected branch's).
        None => git.output(["checkout", "--quiet", "--no-track", "-b", branch])?,
    };
    if out.status.success() {
        return Ok(());
    }
    Err(crate::decide::switch_refused(
        branch,
        &String::from_utf8_lossy(&out.stderr),
    ))
}
