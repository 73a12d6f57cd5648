//! The team layer: `.ward/policy.toml` as committed on the first protected
//! branch that exists locally, read from the object store (or through git
//! for reftable and for pushed commits still in quarantine), never the
//! working copy; anything there but a readable file is an error.

use super::{literal_branches, Repo};
use crate::error::{Error, Result};
use crate::team_cache;

/// Where the team layer lives in a protected branch's committed tree.
const TEAM_POLICY: &str = ".ward/policy.toml";

impl Repo {
    /// The bytes of `.ward/policy.toml` committed on the first protected
    /// branch that exists locally, with that branch's name. Committed as
    /// anything but a file (a directory, a symlink), it is an error: the
    /// team layer is never skipped in silence.
    pub fn team_policy(&self, protected: &[String]) -> Result<Option<(String, Vec<u8>)>> {
        if self.reftable() {
            return self.team_policy_via_git(protected);
        }
        for pattern in &literal_branches(protected) {
            let full = format!("refs/heads/{pattern}");
            let Ok(Some(r)) = self.refs.try_find(full.as_str()) else {
                continue;
            };
            // What the branch points at fixes the answer: remembered per id.
            let id = r.target.try_id().map(|id| id.to_string());
            if let Some(known) = id
                .as_deref()
                .and_then(|id| team_cache::read(self.common_dir(), pattern, id))
            {
                return Ok(known.map(|text| (pattern.clone(), text)));
            }
            // The branch exists: what it holds decides, so an object that
            // cannot be read is an error, never a layer skipped in silence.
            let unreadable = |e: &dyn std::fmt::Display| team_policy_unreadable(pattern, e);
            let mut r = match self.gix()?.try_find_reference(full.as_str()) {
                Ok(Some(r)) => r,
                Ok(None) => return Err(unreadable(&"the branch vanished while being read")),
                Err(e) => return Err(unreadable(&e)),
            };
            let commit = r.peel_to_commit().map_err(|e| unreadable(&e))?;
            let tree = commit.tree().map_err(|e| unreadable(&e))?;
            let text = match tree
                .lookup_entry_by_path(TEAM_POLICY)
                .map_err(|e| unreadable(&e))?
            {
                None => None,
                Some(entry) if !entry.mode().is_blob() => {
                    let kind = not_a_file(entry.mode()).unwrap_or_default();
                    return Err(team_policy_not_a_file(pattern, kind));
                }
                Some(entry) => {
                    let object = entry.object().map_err(|e| unreadable(&e))?;
                    Some(object.detach().data)
                }
            };
            if let Some(id) = &id {
                team_cache::write(self.common_dir(), pattern, id, text.as_deref());
            }
            return Ok(text.map(|text| (pattern.clone(), text)));
        }
        Ok(None)
    }

    /// [`Repo::team_policy`] through the real git, for reftable repositories.
    fn team_policy_via_git(&self, protected: &[String]) -> Result<Option<(String, Vec<u8>)>> {
        let git = crate::git::Git::locate()?
            .detached_from_env()
            .env("GIT_DIR", self.common_dir());
        for pattern in &literal_branches(protected) {
            let full = format!("refs/heads/{pattern}");
            // Whether the branch exists (reftable needs git 2.45, which has
            // `show-ref --exists`); then what it holds must be readable.
            if !git
                .output(["show-ref", "--exists", &full])?
                .status
                .success()
            {
                continue;
            }
            let commit = format!("{full}^{{commit}}");
            let found = git.output(["rev-parse", "--verify", "-q", &commit])?;
            if !found.status.success() {
                return Err(team_policy_unreadable(
                    pattern,
                    &"its commit cannot be read",
                ));
            }
            let id = String::from_utf8_lossy(&found.stdout).trim().to_string();
            let text = team_policy_at(&git, &id, pattern)?;
            return Ok(text.map(|text| (pattern.clone(), text)));
        }
        Ok(None)
    }
}

/// What a commit's tree holds at a path.
#[derive(Debug)]
pub enum Committed {
    /// Nothing.
    Missing,
    /// Something other than a regular file: what (`a symbolic link`).
    NotAFile(&'static str),
    /// A regular file whose blob git cannot read.
    Unreadable,
    /// A regular file's bytes.
    File(Vec<u8>),
}

/// What `commit` holds at `path` (from the top of its tree), as `git`
/// reads it: pre-receive reads pushed commits this way (they are still in
/// git's quarantine, which only git's own environment names).
pub fn committed_file(git: &crate::git::Git, commit: &str, path: &str) -> Result<Committed> {
    // `<mode> <type> <id>\t<path>`, or nothing when it is not there.
    let listed = git.run(["ls-tree", "--full-tree", commit, "--", path])?;
    let Some((meta, _)) = listed.split_once('\t') else {
        return Ok(Committed::Missing);
    };
    let blob = meta.split(' ').nth(2).unwrap_or("");
    let kind = gix::objs::tree::EntryMode::from_bytes(meta.as_bytes())
        .map_or(Some("an entry of an unknown mode"), not_a_file);
    if let Some(kind) = kind {
        return Ok(Committed::NotAFile(kind));
    }
    let out = git.output(["cat-file", "blob", blob])?;
    Ok(if out.status.success() {
        Committed::File(out.stdout)
    } else {
        Committed::Unreadable
    })
}

/// What a tree entry is when it is not a regular file; `None` when it is.
fn not_a_file(mode: gix::objs::tree::EntryMode) -> Option<&'static str> {
    use gix::objs::tree::EntryKind;
    match mode.kind() {
        EntryKind::Blob | EntryKind::BlobExecutable => None,
        EntryKind::Link => Some("a symbolic link"),
        EntryKind::Tree => Some("a directory"),
        EntryKind::Commit => Some("a submodule"),
    }
}

/// The team policy file in `commit`'s tree as `git` reads it (see
/// [`committed_file`]): its bytes, `None` when there is none, an error when
/// it is not a file or cannot be read. `branch` names it in the error.
pub fn team_policy_at(
    git: &crate::git::Git,
    commit: &str,
    branch: &str,
) -> Result<Option<Vec<u8>>> {
    match committed_file(git, commit, TEAM_POLICY)? {
        Committed::Missing => Ok(None),
        Committed::NotAFile(kind) => Err(team_policy_not_a_file(branch, kind)),
        Committed::Unreadable => Err(team_policy_unreadable(branch, &"its blob cannot be read")),
        Committed::File(bytes) => Ok(Some(bytes)),
    }
}

/// The error for a team policy whose objects cannot be read.
fn team_policy_unreadable(branch: &str, why: &dyn std::fmt::Display) -> Error {
    Error::internal(format!(
        "cannot read the team policy ({TEAM_POLICY}) on '{branch}': {why}"
    ))
    .with_hint(format!(
        "check the repository (`git fsck`); `git show {branch}:{TEAM_POLICY}` should print it"
    ))
}

/// The error for a team policy committed as something other than a file
/// (`kind` says what): a policy that cannot be read, so fail closed.
fn team_policy_not_a_file(branch: &str, kind: &str) -> Error {
    let err = Error::internal(format!(
        "{TEAM_POLICY} committed on '{branch}' is not a file but {kind}"
    ))
    .with_hint(format!(
        "commit the team policy on '{branch}' as a regular file, or remove it from there"
    ));
    super::team_layer_broken(err, branch)
}
