//! Whether the gate hooks git will run are still git-ward's.
//!
//! Another hook manager installed after git-ward replaces its hook files in
//! its normal operation (lefthook keeps ours as `<name>.old` and never runs
//! it; husky points `core.hooksPath` at its own directory): from then on
//! the hooks check nothing, and nothing says so. The install record names
//! the hooks git-ward installed; for each gate among them, the file git
//! runs now is read: git-ward's own (its marker line, or a link to a
//! `git-ward*` file), or a manager's hook that runs git-ward (see
//! [`runs_git_ward`]). Anything else is a gate switched off.
//!
//! Cheap: for each gate a `stat`, and the file's first bytes only when it
//! is not the one last seen to be git-ward's (`<git-common-dir>/ward/gates.seen`,
//! the files' stamps with their ctime, which no writer chooses; a cache
//! that only ever skips reading, kept only when every gate is git-ward's
//! own file).

use std::path::Path;

use super::Repo;

pub(crate) use super::install_record::{ours, runs_hooks_from};

/// How much of a foreign hook is read to tell what it runs.
const HEAD_BYTES: usize = 16 * 1024;

/// The first bytes of a regular file (or what a link names), as text.
pub(crate) fn head_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut buf)
        .ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// The hooks the install record names (`<git-common-dir>/ward/install.json`):
/// none where git-ward was never installed here, or was uninstalled.
pub fn recorded_hooks(common_dir: &Path) -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Record {
        hooks: Vec<String>,
    }
    let path = common_dir.join("ward").join("install.json");
    crate::state_file::read_bounded(&path, crate::state_file::MAX_READ)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok())
        .map_or_else(Vec::new, |r| r.hooks)
}

/// The first gate hook git-ward installed here that git would no longer
/// run as git-ward's, as a clause for a refusal (`git runs
/// /r/.git/hooks/pre-push, which is not git-ward's and does not run it`).
/// `None` where all are git-ward's or run it, or git-ward was never installed.
pub fn replaced(repo: &Repo) -> Option<String> {
    let recorded = recorded_hooks(repo.common_dir());
    let gates: Vec<&str> = crate::hook_table::gates()
        .filter(|g| recorded.iter().any(|r| r == g))
        .collect();
    if gates.is_empty() {
        return None;
    }
    let dir = runs_hooks_from(repo)?;
    let seen_path = repo.common_dir().join("ward").join("gates.seen");
    let stamps: Vec<String> = gates
        .iter()
        .map(|g| {
            format!(
                "{} {}",
                dir.join(g).display(),
                super::refstore::stamp(&dir.join(g))
            )
        })
        .collect();
    let seen = stamps.join("\n");
    if std::fs::read_to_string(&seen_path).is_ok_and(|s| s == seen) {
        return None;
    }
    let mut all_ours = true;
    for gate in &gates {
        let path = dir.join(gate);
        if std::fs::symlink_metadata(&path).is_err() {
            return Some(format!(
                "git would run no {gate} hook: {} is gone",
                path.display()
            ));
        }
        if ours(&path).is_some() {
            continue;
        }
        all_ours = false;
        if !runs_git_ward(repo, &dir, gate) {
            return Some(format!(
                "git runs {}, which is not git-ward's and does not run it",
                path.display()
            ));
        }
    }
    // Remembered only when git runs git-ward's own files: a manager's hook
    // depends on files besides (its config), which are read each time.
    if all_ours {
        let _ = crate::state_file::replace(&seen_path, seen.as_bytes());
    }
    None
}

/// Does the foreign hook `<dir>/<name>` run git-ward's check for `name`?
/// - it names git-ward itself (`git-ward hook pre-commit "$@"` in a script);
/// - pre-commit's hook, which runs `<name>.legacy` when it is there, and
///   that is git-ward's;
/// - husky's (`core.hooksPath = .husky/_`), whose script `.husky/<name>`
///   names git-ward;
/// - lefthook's, whose config (`lefthook.yml` and the other names it
///   reads) names `git-ward hook <name>`.
fn runs_git_ward(repo: &Repo, dir: &Path, name: &str) -> bool {
    runs_git_ward_at(repo.workdir().unwrap_or(repo.git_dir()), dir, name)
}

/// [`runs_git_ward`] for the working tree `top` (where lefthook's config lies).
pub(crate) fn runs_git_ward_at(top: &Path, dir: &Path, name: &str) -> bool {
    let Some(text) = head_text(&dir.join(name)) else {
        return false;
    };
    if names_git_ward(&text, name) {
        return true;
    }
    if text.contains("File generated by pre-commit") {
        return ours(&dir.join(format!("{name}.legacy"))).is_some();
    }
    if dir.file_name().is_some_and(|d| d == "_")
        && dir.parent().is_some_and(|p| p.ends_with(".husky"))
    {
        let script = dir.parent().map(|p| p.join(name));
        return script
            .and_then(|s| head_text(&s))
            .is_some_and(|t| names_git_ward(&t, name));
    }
    if text.contains("lefthook") {
        return LEFTHOOK_CONFIGS
            .iter()
            .filter_map(|file| head_text(&top.join(file)))
            .any(|t| names_git_ward(&t, name));
    }
    false
}

/// Why a hook manager that runs one of git-ward's gates here would skip
/// it for this command, from the environment the command runs in:
/// `LEFTHOOK=0` (or `false`), `LEFTHOOK_BIN` or `LEFTHOOK_CONFIG` (the
/// hooks run another program, or read another config), `LEFTHOOK_EXCLUDE`
/// naming git-ward's command, or `HUSKY=0`. As a clause for the refusal
/// of a command that switches hooks off. Reads nothing but the
/// environment unless one of them is set.
pub fn manager_env_off(repo: &Repo) -> Option<String> {
    let lefthook = lefthook_env_off();
    let husky = crate::env::var(crate::env::HUSKY)
        .filter(|v| v == "0")
        .map(|v| format!("{}={v} switches husky's hooks off", crate::env::HUSKY));
    if lefthook.is_none() && husky.is_none() {
        return None;
    }
    let recorded = recorded_hooks(repo.common_dir());
    let dir = runs_hooks_from(repo)?;
    let husky_dir = dir.file_name().is_some_and(|d| d == "_")
        && dir.parent().is_some_and(|p| p.ends_with(".husky"));
    crate::hook_table::gates()
        .filter(|g| recorded.iter().any(|r| r == g))
        .filter(|g| ours(&dir.join(g)).is_none())
        .find_map(|gate| {
            let why = match husky_dir {
                true => husky.as_ref(),
                false => lefthook
                    .as_ref()
                    .filter(|_| head_text(&dir.join(gate)).is_some_and(|t| t.contains("lefthook"))),
            }?;
            Some(format!("{why}, and they run git-ward's {gate} hook"))
        })
}

/// The lefthook variable set in the environment that makes its hooks skip
/// git-ward's command, as a clause.
fn lefthook_env_off() -> Option<String> {
    use crate::env::{var, LEFTHOOK, LEFTHOOK_BIN, LEFTHOOK_CONFIG, LEFTHOOK_EXCLUDE};
    if let Some(v) = var(LEFTHOOK).filter(|v| v == "0" || v.eq_ignore_ascii_case("false")) {
        return Some(format!("{LEFTHOOK}={v} switches lefthook's hooks off"));
    }
    for name in [LEFTHOOK_BIN, LEFTHOOK_CONFIG] {
        if let Some(v) = var(name) {
            return Some(format!(
                "{name}={v} hands lefthook's hooks to what it names"
            ));
        }
    }
    var(LEFTHOOK_EXCLUDE)
        .filter(|v| v.split(',').any(|n| n.trim() == "git-ward"))
        .map(|v| {
            format!("{LEFTHOOK_EXCLUDE}={v} leaves git-ward's command out of lefthook's hooks")
        })
}

/// The files lefthook reads its configuration from, at the top of the working tree.
pub const LEFTHOOK_CONFIGS: &[&str] = &[
    "lefthook.yml",
    "lefthook.yaml",
    ".lefthook.yml",
    ".lefthook.yaml",
    "lefthook-local.yml",
    "lefthook-local.yaml",
    ".lefthook-local.yml",
    ".lefthook-local.yaml",
];

/// Does `text` run git-ward's hook `name` (`git-ward hook <name>`, or the
/// same through git: `git ward hook <name>`), on a line that is no comment?
pub fn names_git_ward(text: &str, name: &str) -> bool {
    text.lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with('#'))
        .any(|line| {
            ["git-ward hook ", "git ward hook "].iter().any(|call| {
                line.match_indices(call).any(|(at, _)| {
                    let rest = &line[at + call.len()..];
                    let rest = rest.trim_start_matches(['"', '\'']);
                    rest.starts_with(name)
                        && !rest[name.len()..]
                            .starts_with(|c: char| c.is_alphanumeric() || c == '-')
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_runs_git_ward_names_its_hook() {
        let yes = [
            ("git-ward hook pre-commit \"$@\"", "pre-commit"),
            ("      run: git-ward hook pre-push {1} {2}", "pre-push"),
            (
                "exec /opt/bin/git-ward hook 'reference-transaction' \"$@\"",
                "reference-transaction",
            ),
            ("git ward hook pre-commit", "pre-commit"),
        ];
        for (line, hook) in yes {
            assert!(names_git_ward(line, hook), "{line}");
        }
        let no = [
            ("# git-ward hook pre-commit", "pre-commit"),
            ("git-ward hook pre-commit-x", "pre-commit"),
            ("git-ward hook pre-commit", "pre-push"),
            ("npx lint-staged", "pre-commit"),
        ];
        for (line, hook) in no {
            assert!(!names_git_ward(line, hook), "{line}");
        }
    }
}
