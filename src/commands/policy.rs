//! `git ward policy show [--origin]` and `git ward policy check [FILE]`.

use super::Outcome;
use std::path::PathBuf;

use crate::error::Result;
use crate::facts::{self, Committed, Repo};
use crate::policy::{Layer, Policy};

/// Show or check the policy.
#[derive(Debug, clap::Subcommand)]
pub enum PolicyCommand {
    /// Print the effective policy.
    Show {
        /// Say which layer set each value.
        #[arg(long)]
        origin: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Validate a policy file (default: the working copy's `.ward/policy.toml`).
    Check {
        file: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `git ward policy ...`.
pub fn run(cmd: PolicyCommand) -> Outcome {
    match cmd {
        PolicyCommand::Show { origin, json } => {
            let repo = Repo::discover();
            let result = facts::load_policy(repo.as_ref(), false).map(|policy| {
                let origins: serde_json::Map<String, serde_json::Value> = policy
                    .origins()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string().into()))
                    .collect();
                let value = serde_json::json!({ "policy": policy.settings, "origins": origins });
                let text = if origin {
                    policy
                        .origins()
                        .iter()
                        .map(|(k, layer)| format!("{k} = {}    # {layer}\n", value_of(&policy, k)))
                        .collect()
                } else {
                    policy.to_toml()
                };
                (value, text)
            });
            Outcome::report(json, result)
        }
        PolicyCommand::Check { file, json } => {
            let repo = Repo::discover();
            let working_copy = file.is_none();
            let path = match file {
                Some(p) => p,
                None => repo
                    .as_ref()
                    .and_then(|r| r.workdir().map(|w| w.join(".ward/policy.toml")))
                    .unwrap_or_else(|| PathBuf::from(".ward/policy.toml")),
            };
            // A file that cannot be read is an invalid argument (I, exit 2); one
            // that reads but is not a valid policy is what the rules call an invalid
            // policy (EN-GIT-E-001: status E, exit 3), as everywhere else.
            let result = read(&path)
                .and_then(|bytes| {
                    Policy::built_in().add_layer_bytes(&bytes, Layer::Local(path.clone()))
                })
                .map(|_| {
                    let warning = repo
                        .as_ref()
                        .filter(|_| working_copy)
                        .and_then(unread_team_file);
                    let mut msg = format!("{}: valid", path.display());
                    if let Some((warning, hint)) = &warning {
                        msg.push_str(&format!("\nwarning: {warning}\nhint: {hint}"));
                    }
                    let warning = warning.map(|(w, h)| format!("{w}; {h}"));
                    let value =
                        serde_json::json!({ "file": path, "valid": true, "warning": warning });
                    (value, msg)
                });
            Outcome::report(json, result)
        }
    }
}

/// Why the working copy's `.ward/policy.toml` is not the team layer, and
/// what to do, when it is not: the layer is read only from the first
/// protected branch (by the layers below it) that exists, so a team whose
/// branch is `trunk` gets no team layer until `trunk` is protected below
/// it or the file is committed to one that is. `None` when there is no
/// such file, or a team layer was read.
pub fn unread_team_file(repo: &Repo) -> Option<(String, String)> {
    let path = repo.workdir()?.join(".ward/policy.toml");
    if !path.is_file() {
        return None;
    }
    let policy = facts::load_policy(Some(repo), false).ok()?;
    if policy.team_branch().is_some() {
        return None;
    }
    let branches = facts::literal_branches(policy.protected_patterns());
    let list = branches
        .iter()
        .map(|b| format!("'{b}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let existing = branches.iter().find(|b| repo.is_local_branch(b));
    let why = match existing {
        Some(b) => format!(
            ".ward/policy.toml is not read: the team layer comes from the committed tree of '{b}', which has no such file"
        ),
        None => format!(
            ".ward/policy.toml is not read: the team layer comes from a branch the layers below protect ({list}), and none exists here"
        ),
    };
    let hint = match existing {
        Some(b) => format!("commit it to '{b}' (through review)"),
        None => "commit it to one of them, or protect your main branch in the user or local layer (`branches.protected` in `$XDG_CONFIG_HOME/git-ward/policy.toml` or `<git-common-dir>/ward/policy.toml`)".to_string(),
    };
    Some((why, hint))
}

/// The bytes of the policy file to check: a file, or a committed one named
/// as `<revision>:<path>` (`main:.ward/policy.toml`, how an error in the
/// team layer names it) when no such file exists.
fn read(path: &std::path::Path) -> Result<Vec<u8>> {
    let unreadable = |e: &dyn std::fmt::Display| {
        crate::error::Error::invalid(
            format!("cannot read {}: {e}", path.display()),
            "name a policy file (`git ward policy check path/to/policy.toml`) or a committed one (`git ward policy check main:.ward/policy.toml`)",
        )
    };
    let err = match crate::state_file::read_bounded(path, crate::state_file::MAX_READ) {
        Ok(bytes) => return Ok(bytes),
        Err(e) => e,
    };
    let spec = path.to_string_lossy();
    let committed =
        err.kind() == std::io::ErrorKind::NotFound && spec.contains(':') && !spec.starts_with('-');
    if !committed {
        return Err(unreadable(&err));
    }
    let (revision, file) = split_revision(&spec);
    let git = crate::git::Git::locate()?;
    match facts::committed_file(&git, revision, file).map_err(|e| unreadable(&e.message))? {
        Committed::File(bytes) => Ok(bytes),
        Committed::Missing => Err(unreadable(&format!("{revision} has no {file}"))),
        Committed::NotAFile(kind) => Err(unreadable(&format!("not a file but {kind}"))),
        Committed::Unreadable => Err(unreadable(&"its blob cannot be read")),
    }
}

/// `<revision>:<path>` split as git splits it: at the first `:` outside
/// braces (`main^{/fix: x}:p` is the path `p`).
fn split_revision(spec: &str) -> (&str, &str) {
    let mut depth = 0usize;
    for (i, c) in spec.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return (&spec[..i], &spec[i + 1..]),
            _ => {}
        }
    }
    (spec, "")
}

/// A value of the effective policy as TOML text, by dotted key.
fn value_of(policy: &Policy, key: &str) -> String {
    let table: toml::Table = toml::from_str(&policy.to_toml()).unwrap_or_default();
    let mut value = toml::Value::Table(table);
    for part in key.split('.') {
        match value.get(part) {
            Some(v) => value = v.clone(),
            None => return String::new(),
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_committed_name_splits_at_the_first_colon_outside_braces() {
        for (spec, revision, file) in [
            ("main:.ward/policy.toml", "main", ".ward/policy.toml"),
            ("main^{/fix: x}:a:b", "main^{/fix: x}", "a:b"),
            ("HEAD~1:p", "HEAD~1", "p"),
            ("no-colon", "no-colon", ""),
        ] {
            assert_eq!(super::split_revision(spec), (revision, file), "{spec}");
        }
    }
}
