//! Config the environment carries to git for one command (`GIT_CONFIG_*`,
//! the config files it names), and the hooks it or a hand-made git
//! directory switches off.

use std::path::{Path, PathBuf};

use super::{install_record, Repo};
use crate::classify::normalize_key;
use crate::env;

/// Config pairs the environment carries to git for one command, as `-c`
/// does: `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`,
/// and `GIT_CONFIG_PARAMETERS`. (The files `GIT_CONFIG_GLOBAL` and
/// `GIT_CONFIG_SYSTEM` name stand in for the user's and the machine's
/// config: see [`env_file_hooks_path`].)
pub fn env_config() -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(count) = env::var("GIT_CONFIG_COUNT").and_then(|c| c.trim().parse::<usize>().ok()) {
        for n in 0..count.min(10_000) {
            if let Some(key) = env::var(&format!("GIT_CONFIG_KEY_{n}")) {
                let value = std::env::var(format!("GIT_CONFIG_VALUE_{n}")).unwrap_or_default();
                out.push((normalize_key(&key), value));
            }
        }
    }
    if let Some(params) = env::var("GIT_CONFIG_PARAMETERS") {
        out.extend(parse_config_parameters(&params));
    }
    out
}

/// The `core.hooksPath` the config files the environment names set
/// (`GIT_CONFIG_SYSTEM`, unless `GIT_CONFIG_NOSYSTEM`, and
/// `GIT_CONFIG_GLOBAL`), with their includes (every `include.path` and
/// `includeIf.<condition>.path`, whatever the condition: the value any of
/// them could give): a git told to read them runs no hook of git-ward's.
/// The value and the file, the last set.
pub fn env_file_hooks_path() -> Option<(String, PathBuf)> {
    let system = env::var("GIT_CONFIG_SYSTEM").filter(|_| !env::truthy("GIT_CONFIG_NOSYSTEM"));
    let mut found = None;
    for file in [system, env::var("GIT_CONFIG_GLOBAL")]
        .into_iter()
        .flatten()
    {
        hooks_path_in(Path::new(&file), 0, &mut found);
    }
    found
}

/// [`env_file_hooks_path`] for one file and what it includes, `depth` includes deep.
fn hooks_path_in(path: &Path, depth: usize, found: &mut Option<(String, PathBuf)>) {
    const MAX_DEPTH: usize = 10;
    let Ok(bytes) = crate::state_file::read_bounded(path, crate::state_file::MAX_READ) else {
        return;
    };
    let Ok(file) = gix::config::File::from_bytes_no_includes(
        &bytes,
        gix::config::file::Metadata::from(gix::config::Source::Env),
        Default::default(),
    ) else {
        return;
    };
    for section in file.sections() {
        let header = section.header();
        let name = header.name().to_string().to_ascii_lowercase();
        for key in section.value_names() {
            let key = key.to_ascii_lowercase();
            for value in section.values(&key) {
                let value = value.to_string();
                if name == "core" && header.subsection_name().is_none() && key == "hookspath" {
                    *found = Some((value, path.to_path_buf()));
                } else if (name == "include" || name == "includeif")
                    && key == "path"
                    && depth < MAX_DEPTH
                {
                    let included = match value.strip_prefix("~/") {
                        Some(rest) => env::var(env::HOME).map(|h| PathBuf::from(h).join(rest)),
                        None => Some(path.parent().unwrap_or(Path::new("/")).join(&value)),
                    };
                    if let Some(included) = included {
                        hooks_path_in(&included, depth + 1, found);
                    }
                }
            }
        }
    }
}

/// `core.hooksPath` that config from the environment sets for this
/// command: its pairs ([`env_config`]), or the files it names
/// ([`env_file_hooks_path`]); as a clause.
pub fn env_hooks_off() -> Option<String> {
    env_config()
        .into_iter()
        .find(|(k, _)| k == "core.hookspath")
        .map(|(_, v)| format!("core.hooksPath={v} from the environment"))
        .or_else(|| {
            env_file_hooks_path().map(|(v, file)| {
                format!(
                    "core.hooksPath={v} from {}, a config file the environment names",
                    file.display()
                )
            })
        })
}

/// Hooks switched off by a git directory made by hand: one that names the
/// repository as its `commondir` but is none of the linked worktrees' git
/// directories git keeps in `<common-dir>/worktrees/`, reached by
/// `--git-dir`, `GIT_DIR` or a `.git` file, whose own config (its
/// `config.worktree`) sends git to another hooks directory. Such a
/// directory is a config file of the command's choosing, like the ones
/// `GIT_CONFIG_GLOBAL` names. Paths are compared first; the install record
/// is read only for such a directory.
pub fn made_git_dir_hooks_off(repo: &Repo) -> Option<String> {
    // The main worktree's (most commands): no path to resolve.
    if repo.git_dir() == repo.common_dir() {
        return None;
    }
    let git_dir = std::fs::canonicalize(repo.git_dir()).ok()?;
    let common = std::fs::canonicalize(repo.common_dir()).ok()?;
    if git_dir == common || git_dir.parent() == Some(common.join("worktrees").as_path()) {
        return None;
    }
    install_record::hooks_run_elsewhere(repo)?;
    let (value, _) = repo.hooks_path()?;
    Some(format!(
        "core.hooksPath={value} read through the git directory {}, which is none of the repository's worktrees",
        git_dir.display()
    ))
}

/// Parses git's `GIT_CONFIG_PARAMETERS`: `'key=value' 'key'='value' ...`,
/// single-quoted with `'\''` for a quote.
pub fn parse_config_parameters(text: &str) -> Vec<(String, String)> {
    let mut words: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut current = String::new();
    let mut in_word = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    current.push(q);
                }
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    current.push(n);
                    in_word = true;
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
        .into_iter()
        .map(|w| crate::classify::split_config(&w))
        .collect()
}
