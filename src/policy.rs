//! The policy: serde types, layered loading with origins, globs compiled once.
//!
//! Layers, lowest first, each overriding keys of the one before:
//!
//! 1. built in: the project's top-level `policy.toml`, compiled in;
//! 2. system: `/etc/git-ward/policy.toml` (`WARD_SYSTEM_POLICY` moves it, for tests);
//! 3. user: `$XDG_CONFIG_HOME/git-ward/policy.toml` (default `~/.config/...`);
//! 4. team: `.ward/policy.toml` from the *committed* tree of the first
//!    protected branch that exists locally, never the working copy;
//! 5. local: `<git-common-dir>/ward/policy.toml`;
//! 6. `WARD_POLICY=<file>`, for human actors only.
//!
//! Each layer is checked on its own first: bytes that are not UTF-8,
//! unknown keys, wrong types and values serde accepts but the policy does
//! not (a size, a duration, a glob) are each reported with file, line,
//! column and key. Then it is
//! merged key by key into a TOML table that remembers which layer set each
//! key. This module reads files but never runs git; the team layer's blob
//! is handed in by the caller.

mod check;
mod layers;
mod model;

use std::sync::OnceLock;

use serde::Serialize;

use crate::patterns::Patterns;

pub use check::{layer_text, parse_duration, parse_size};
pub use layers::{local_path, parse_layer, system_path, user_path, SYSTEM_PATH};
pub use model::*;

/// The built-in policy, the project's own `policy.toml`.
pub const BUILT_IN: &str = include_str!("../policy.toml");

/// The effective policy: settings, the layers above the built-in one (for
/// origins, computed on demand), and globs compiled on first use. With no
/// layer but the built-in one, the embedded file is parsed once, straight
/// into [`Settings`]: that is the common case on every git call.
#[derive(Clone, Debug)]
pub struct Policy {
    pub settings: Settings,
    /// The checked tables of the layers above the built-in one, lowest first.
    layers: Vec<(Layer, toml::Table)>,
    /// The built-in table with every layer merged in; `None` until a layer is added.
    merged: Option<toml::Table>,
    protected: OnceLock<Patterns>,
    force_allowed: OnceLock<Patterns>,
    capability_globs: OnceLock<Patterns>,
}

impl Policy {
    fn globs<'a>(cell: &'a OnceLock<Patterns>, patterns: &[String]) -> &'a Patterns {
        // Patterns were checked when their layer was read.
        cell.get_or_init(|| Patterns::lenient(patterns))
    }

    /// Is this full ref (`refs/heads/main`, `refs/tags/v1`) or short branch name protected?
    pub fn is_protected(&self, refname: &str) -> bool {
        match short_name(refname) {
            Some(short) => Self::globs(&self.protected, &self.settings.branches.protected)
                .is_match(short.as_ref()),
            None => false,
        }
    }

    /// Does the policy protect any ref at all? With `branches.protected`
    /// empty, a command that writes refs it does not name reaches nothing
    /// protected.
    pub fn protects_anything(&self) -> bool {
        !self.settings.branches.protected.is_empty()
    }

    /// May an agent force-push to every ref (`push.force_allowed` has `*`
    /// or `**`)? A mirror push forces refs of any name.
    pub fn force_allowed_everywhere(&self) -> bool {
        self.settings
            .push
            .force_allowed
            .iter()
            .any(|p| p == "*" || p == "**")
    }

    /// May an agent force-push to this ref?
    pub fn force_allowed(&self, refname: &str) -> bool {
        short_name(refname).is_some_and(|short| {
            Self::globs(&self.force_allowed, &self.settings.push.force_allowed)
                .is_match(short.as_ref())
        })
    }

    /// Does `contract` hold `ensure_working_branch`? `None` contract: is it on at all?
    pub fn capability(&self, contract: Option<&str>) -> CapabilityFor {
        match (&self.settings.capabilities.ensure_working_branch, contract) {
            (Capability::All(false), _) => CapabilityFor::Off,
            (Capability::All(true), _) => CapabilityFor::On,
            (Capability::Contracts(globs), _) if globs.is_empty() => CapabilityFor::Off,
            // Granted to some contracts only: with none, the agent holds
            // no contract it names (EN-GIT-D-002, whatever the contract).
            (Capability::Contracts(_), None) => CapabilityFor::OtherContracts,
            (Capability::Contracts(globs), Some(id)) => {
                if Self::globs(&self.capability_globs, globs).is_match(id) {
                    CapabilityFor::On
                } else {
                    CapabilityFor::OtherContracts
                }
            }
        }
    }

    /// The branch the team layer was read from, if it was.
    pub fn team_branch(&self) -> Option<&str> {
        self.layers.iter().find_map(|(layer, _)| match layer {
            Layer::Team(branch) => Some(branch.as_str()),
            _ => None,
        })
    }

    /// The protected patterns, in order (for finding the team layer's branch).
    pub fn protected_patterns(&self) -> &[String] {
        &self.settings.branches.protected
    }

    /// The effective policy as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.merged_table()).unwrap_or_default()
    }
}

/// The capability as it applies to one contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityFor {
    On,
    Off,
    OtherContracts,
}

/// The short name patterns match: `refs/heads/X` is `X`, `refs/tags/X` is
/// `tags/X`; a name without `refs/` is taken as a branch. Other refs
/// (`refs/remotes/...`, `refs/ward/...`) are never protected.
pub fn short_name(refname: &str) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(branch) = refname.strip_prefix("refs/heads/") {
        Some(branch.into())
    } else if let Some(tag) = refname.strip_prefix("refs/tags/") {
        Some(format!("tags/{tag}").into())
    } else if refname.starts_with("refs/") || refname.is_empty() {
        None
    } else {
        Some(refname.into())
    }
}

/// The ways to read a remote-tracking ref as `(remote, branch)`:
/// `refs/remotes/origin/main` is `origin`'s `main`; a remote's name may
/// hold a `/` itself, so `refs/remotes/a/b/c` is also `a/b`'s `c`.
pub fn tracking_readings(refname: &str) -> impl Iterator<Item = (&str, &str)> {
    let rest = refname.strip_prefix("refs/remotes/").unwrap_or("");
    rest.match_indices('/').filter_map(move |(i, _)| {
        let (remote, branch) = (&rest[..i], &rest[i + 1..]);
        (!remote.is_empty() && !branch.is_empty()).then_some((remote, branch))
    })
}

/// The longest contract id.
pub const MAX_CONTRACT_LEN: usize = 100;

/// Is a contract id valid? 1 to 100 of `[A-Za-z0-9._-]`, starting with a
/// letter or digit; also a valid branch name component for git (no `..`,
/// no trailing `.` or `.lock`).
pub fn valid_contract(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_CONTRACT_LEN
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.contains("..")
        && !id.ends_with('.')
        && !id.ends_with(".lock")
}

#[cfg(test)]
mod check_tests;
#[cfg(test)]
mod tests;
