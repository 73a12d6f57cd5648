//! What every hook run needs from the policy, cached under
//! `<git-common-dir>/ward/hook-cache.json`.
//!
//! Loading the full policy means parsing TOML, compiling globs and opening
//! the repository to read the team layer from a commit: fine once, too much
//! eight times per commit. The cache holds the few settings the early exits
//! need (whom the rules bind, the agent variables, the protected patterns,
//! the footer) with a fingerprint of every layer's source: the system, user
//! and local files' [`stamp`] (inode, size, mtime and ctime; a symbolic
//! link's target too), and the value of each branch the team layer could be
//! read from. Any change there, a different binary, or `WARD_POLICY` in the
//! environment, and the hook loads the policy in full. The cache only ever
//! lets a hook skip work; denials are decided on the full policy.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::refstore::{stamp, write_stamp, RefStore, Value};
use super::Dirs;
use crate::decide::Actor;
use crate::env;
use crate::error::Result;
use crate::facts::{self, Repo};
use crate::patterns::Patterns;
use crate::policy::{self, short_name, Actors, Layer, Policy};

/// The cached settings.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Quick {
    fingerprint: String,
    /// Branches the team layer may come from, in order (from the layers below it).
    team_candidates: Vec<String>,
    pub actors: Actors,
    pub agent_env: Vec<String>,
    pub protected: Vec<String>,
    pub footer: String,
    /// The rest of `[commit]`: attribution (`assisted_by`, `strip_trailers` ...).
    #[serde(default)]
    pub commit: crate::policy::CommitPolicy,
    /// Commands the policy reclassifies (`commands.read` and `commands.mutating`):
    /// the shim's read-only fast path leaves these to the full decision.
    #[serde(default)]
    pub reclassified: Vec<String>,
    /// `audit.reads`: whether the shim logs read-only commands.
    #[serde(default)]
    pub audit_reads: bool,
    #[serde(skip)]
    globs: Option<Patterns>,
}

/// The quick settings, and the full policy when it had to be loaded anyway.
pub struct Loaded {
    pub quick: Quick,
    pub policy: Option<Policy>,
}

impl Loaded {
    /// The full policy: `loaded` (a [`Loaded::policy`]), else loaded now.
    pub fn full_policy(loaded: Option<Policy>, dirs: &Dirs) -> Result<Policy> {
        match loaded {
            Some(p) => Ok(p),
            None => {
                let repo = crate::facts::Repo::from_dirs(dirs);
                crate::facts::load_policy(repo.as_ref(), false)
            }
        }
    }
}

/// The cache's format: part of the fingerprint, so a cache written with
/// other fields is rebuilt rather than read with defaults. Bump it when
/// [`Quick`] changes.
const FORMAT: u32 = 3;

fn cache_path(dirs: &Dirs) -> PathBuf {
    dirs.common_dir.join("ward").join("hook-cache.json")
}

impl Quick {
    /// Reads the cache if it is current, else loads the policy and rewrites it.
    pub fn load(dirs: &Dirs) -> Result<Loaded> {
        let cacheable = env::var_os(env::WARD_POLICY).is_none()
            && !crate::facts::uses_reftable(&dirs.common_dir);
        if cacheable {
            if let Ok(text) =
                crate::state_file::read_bounded(&cache_path(dirs), crate::state_file::MAX_READ)
            {
                if let Ok(quick) = serde_json::from_slice::<Quick>(&text) {
                    if quick.fingerprint == fingerprint(dirs, &quick.team_candidates) {
                        return Ok(Loaded {
                            quick,
                            policy: None,
                        });
                    }
                }
            }
        }
        let repo = Repo::from_dirs(dirs);
        let policy = facts::load_policy(repo.as_ref(), false)?;
        let team_candidates = team_candidates()?;
        let quick = Quick {
            fingerprint: fingerprint(dirs, &team_candidates),
            team_candidates,
            actors: policy.settings.enforce.actors,
            agent_env: policy.settings.enforce.agent_env.clone(),
            protected: policy.settings.branches.protected.clone(),
            footer: policy.settings.commit.footer.clone(),
            commit: policy.settings.commit.clone(),
            reclassified: [
                &policy.settings.commands.read,
                &policy.settings.commands.mutating,
            ]
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
            audit_reads: policy.settings.audit.reads,
            globs: None,
        };
        if cacheable {
            write_cache(dirs, &quick);
        }
        Ok(Loaded {
            quick,
            policy: Some(policy),
        })
    }

    /// The actor, as `facts::actor` would find it (without the shim).
    pub fn actor(&self) -> Actor {
        facts::actor_for_env(&self.agent_env, false)
    }

    /// Do the rules bind this actor (`decide::binds` on the cached settings)?
    pub fn binds(&self, actor: Actor) -> bool {
        actor == Actor::Agent || self.actors == Actors::Everyone
    }

    /// Is this full ref protected? Same globs, same matching as `Policy::is_protected`.
    pub fn is_protected(&mut self, refname: &str) -> bool {
        let Some(short) = short_name(refname) else {
            return false;
        };
        self.globs
            .get_or_insert_with(|| Patterns::lenient(&self.protected))
            .is_match(short.as_ref())
    }
}

/// The protected branches the team layer is read from, per the layers below it.
fn team_candidates() -> Result<Vec<String>> {
    let mut p = Policy::built_in();
    p = p.with_file(&policy::system_path(), Layer::System(policy::system_path()))?;
    if let Some(user) = policy::user_path() {
        p = p.with_file(&user, Layer::User(user.clone()))?;
    }
    Ok(facts::literal_branches(p.protected_patterns()))
}

/// Everything the effective policy depends on, as one string.
fn fingerprint(dirs: &Dirs, team_candidates: &[String]) -> String {
    use std::fmt::Write;
    let mut f = String::with_capacity(512);
    let _ = write!(
        f,
        "{FORMAT}:{}:{BUILT_IN_HASH:x}",
        env!("CARGO_PKG_VERSION")
    );
    let mut files = vec![policy::system_path(), policy::local_path(&dirs.common_dir)];
    files.extend(policy::user_path());
    for path in files {
        let _ = write!(f, "|{}=", path.display());
        write_stamp(&mut f, &path);
    }
    let store = RefStore::new(dirs);
    let packed = stamp(&dirs.common_dir.join("packed-refs"));
    for branch in team_candidates {
        let name = format!("refs/heads/{branch}");
        match store.loose(&name) {
            Some(Value::Id(id)) => {
                let _ = write!(f, "|{name}={id}");
                break;
            }
            Some(Value::Symbolic(t)) => {
                let _ = write!(f, "|{name}->{t}");
            }
            None => {
                let _ = write!(f, "|{name}:packed={packed}");
            }
        }
    }
    f
}

fn write_cache(dirs: &Dirs, quick: &Quick) {
    if let Ok(text) = serde_json::to_vec(quick) {
        let _ = crate::state_file::replace(&cache_path(dirs), &text);
    }
}

/// The built-in policy's hash, computed when git-ward is built (hashing
/// its 3 KB on every run was a tenth of a hook run's instructions).
const BUILT_IN_HASH: u64 = fnv(policy::BUILT_IN.as_bytes());

/// FNV-1a, 64 bits.
pub(crate) const fn fnv(bytes: &[u8]) -> u64 {
    fnv_more(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a, 64 bits, going on from the hash `h` of what came before.
pub(crate) const fn fnv_more(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u64).wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hashing on from a hash is hashing the bytes together; the empty
    /// input keeps FNV-1a's offset basis.
    #[test]
    fn fnv_goes_on_where_it_stopped() {
        assert_eq!(fnv_more(fnv(b"packed"), b";dir"), fnv(b"packed;dir"));
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn quick_matching_agrees_with_the_policy() {
        let p = Policy::built_in()
            .with_layer(
                "[branches]\nprotected = [\"main\", \"release/*\", \"tags/v*\", \"x?z\", \"[ab]c\"]\n",
                Layer::BuiltIn,
            )
            .unwrap();
        let mut q = Quick {
            fingerprint: String::new(),
            team_candidates: vec![],
            actors: Actors::Agents,
            agent_env: vec![],
            protected: p.settings.branches.protected.clone(),
            footer: String::new(),
            commit: Default::default(),
            reclassified: vec![],
            audit_reads: true,
            globs: None,
        };
        for name in [
            "refs/heads/main",
            "refs/heads/mainx",
            "refs/heads/release/1/2",
            "refs/tags/v1",
            "refs/tags/w1",
            "refs/heads/xyz",
            "refs/heads/ac",
            "refs/heads/cc",
            "refs/remotes/origin/main",
            "HEAD",
            "refs/ward/x",
        ] {
            assert_eq!(q.is_protected(name), p.is_protected(name), "{name}");
        }
    }
}
