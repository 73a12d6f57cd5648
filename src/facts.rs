//! Fills [`Facts`]: the only reads before deciding (the repository itself
//! in `facts/repo.rs`).
//!
//! Opening the repository follows git: `GIT_DIR`/`GIT_WORK_TREE` from the
//! environment, then `-C`, `--git-dir` and `--work-tree` from the command
//! line, then discovery upwards from the working directory.

use std::path::{Path, PathBuf};

use crate::classify::{normalize_key, Globals};
use crate::decide::Actor;
use crate::env;
use crate::error::{Error, Result};
use crate::policy::{self, Layer, Policy};

pub mod context;
mod dirs;
pub mod discover;
pub mod drift;
pub mod gates;
mod gather;
pub mod ignored;
pub mod install_record;
pub mod lease;
pub mod pointers;
mod reach;
pub mod ref_changes;
pub mod refstore;
mod repo;
pub use crate::patterns::literal_branches;
pub use crate::policy::{valid_contract, MAX_CONTRACT_LEN};
pub mod settings_cache;
pub mod stale_locks;
pub mod starter;
pub mod tracking;
pub mod worktrees;
pub(crate) use dirs::path_in_file;
pub use dirs::Dirs;
pub use gather::{gather, gather_at, gather_in_hook, Asked};
pub use reach::reach;
pub use repo::{committed_file, team_policy_at, Committed, Repo, UNREADABLE_HINT};

/// The branch the HEAD file in `git_dir` names (`HEAD` when detached): one
/// small read, for audit lines written after git has run.
pub fn head_branch_file(git_dir: &Path) -> Option<String> {
    let text = crate::state_file::read_text(&git_dir.join("HEAD")).ok()?;
    Some(match text.trim().strip_prefix("ref: ") {
        Some(r) => r.strip_prefix("refs/heads/").unwrap_or(r).to_string(),
        None => "HEAD".to_string(),
    })
}

/// Does the repository whose common git dir is `common` use reftable?
pub fn uses_reftable(common: &Path) -> bool {
    common.join("reftable").is_dir()
}

/// The directory git would start in after `-C` options.
pub fn effective_cwd(globals: &Globals) -> PathBuf {
    let mut cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    for dir in &globals.chdir {
        if !dir.as_os_str().is_empty() {
            cwd = cwd.join(dir);
        }
    }
    cwd
}

/// [`effective_cwd`] as a physical path, as git's `getcwd()` after its
/// `chdir()`s gives it: where git's discovery walks up from.
pub fn physical_cwd(globals: &Globals) -> Option<PathBuf> {
    if globals.chdir.is_empty() {
        std::env::current_dir().ok() // getcwd: physical already
    } else {
        effective_cwd(globals).canonicalize().ok()
    }
}

/// Is this environment an agent's? `via_shim` is the first test.
pub fn actor(policy: &Policy, via_shim: bool) -> Actor {
    actor_for_env(&policy.settings.enforce.agent_env, via_shim)
}

/// [`actor`] given the policy's `enforce.agent_env` list alone (the hooks'
/// cached settings carry just that). A listed variable counts when it is
/// set, whatever its value (`CLAUDECODE=0` too), and so does `WARD_CONTRACT`
/// (set but empty: an agent with no contract); `WARD_AGENT` keeps its own
/// rule, `0` or empty is no, even where the list names it.
pub fn actor_for_env(agent_env: &[String], via_shim: bool) -> Actor {
    if via_shim
        || env::truthy(env::WARD_AGENT)
        || env::present(env::WARD_CONTRACT)
        || agent_env
            .iter()
            .any(|v| v != env::WARD_AGENT && env::present(v))
    {
        Actor::Agent
    } else {
        Actor::Human
    }
}

/// The error for an invalid contract id.
pub fn invalid_contract(id: &str) -> Error {
    // Shown escaped and cut short: the id may be anything, of any length.
    let mut shown: String = id.chars().take(60).flat_map(char::escape_default).collect();
    if id.chars().count() > 60 {
        shown.push_str("...");
    }
    Error::invalid(
        format!("invalid contract id '{shown}'"),
        "a contract id is 1 to 100 characters of [A-Za-z0-9._-], starting with a letter or digit, without `..` or a trailing `.`/`.lock`",
    )
}

/// The error for an invalid id in the contract file: the file is named,
/// and the hint says how to replace or clear it.
pub fn invalid_in_file(id: &str, path: &Path) -> Error {
    let err = invalid_contract(id);
    Error::invalid(
        format!("{} in {}", err.message, path.display()),
        "start a valid one with `git ward contract start --force <id>`, or clear it with `git ward contract end`",
    )
}

/// Where the contract came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractSource {
    Env,
    File(PathBuf),
}

/// The active contract: `WARD_CONTRACT`, else the worktree's contract file.
pub fn contract(repo: Option<&Repo>) -> Result<Option<(String, ContractSource)>> {
    contract_at(repo.map(Repo::git_dir))
}

/// [`contract`], for the worktree whose git directory is `git_dir` (the
/// hooks know it without opening the repository).
pub fn contract_at(git_dir: Option<&Path>) -> Result<Option<(String, ContractSource)>> {
    if let Some(raw) = env::var_os(env::WARD_CONTRACT) {
        // Not UTF-8 is not a valid id either: an error, never "no contract".
        let id = raw.to_string_lossy().into_owned();
        return if valid_contract(&id) {
            Ok(Some((id, ContractSource::Env)))
        } else {
            Err(invalid_contract(&id))
        };
    }
    let Some(git_dir) = git_dir else {
        return Ok(None);
    };
    let path = git_dir.join("ward").join("contract");
    let Ok(bytes) = crate::state_file::read_bounded(&path, crate::state_file::MAX_READ) else {
        return Ok(None);
    };
    // Not UTF-8 is not a valid id either.
    let text = String::from_utf8_lossy(&bytes);
    match text.trim() {
        "" => Ok(None),
        id if valid_contract(id) => Ok(Some((id.to_string(), ContractSource::File(path)))),
        id => Err(invalid_in_file(id, &path)),
    }
}

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

/// A broken team layer stops every change in the repository, the commit
/// that would fix it on its branch included: the hint says how a person
/// gets that one commit through.
fn team_layer_broken(err: Error, branch: &str) -> Error {
    let hint = format!(
        "{}; until then git-ward refuses every change here, so a person commits the fix on '{branch}' with the hooks off for that one commit: `git -c core.hooksPath=/dev/null commit`",
        err.hint.as_deref().unwrap_or("fix .ward/policy.toml")
    );
    err.with_hint(hint)
}

/// Loads the layered policy. `repo` gives the team and local
/// layers; `WARD_POLICY` applies only when the actor so far is a human.
pub fn load_policy(repo: Option<&Repo>, via_shim: bool) -> Result<Policy> {
    let clock = std::time::Instant::now();
    let mut policy = below_team()?;
    tracing::debug!(
        us = clock.elapsed().as_micros() as u64,
        "policy: below team"
    );
    if let Some(repo) = repo {
        if let Some((branch, bytes)) = repo.team_policy(policy.protected_patterns())? {
            policy
                .add_layer_bytes(&bytes, Layer::Team(branch.clone()))
                .map_err(|e| team_layer_broken(e, &branch))?;
        }
        tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy: team");
        let local = policy::local_path(repo.common_dir());
        policy.add_file(&local, Layer::Local(local.clone()))?;
    }
    if let Some(path) = env::var_os(env::WARD_POLICY).filter(|_| !env::receiving()) {
        if actor(&policy, via_shim) == Actor::Human {
            let path = PathBuf::from(path);
            if !path.exists() {
                return Err(Error::internal(format!(
                    "WARD_POLICY names {}, which does not exist",
                    path.display()
                ))
                .with_hint("unset WARD_POLICY or point it at a policy file"));
            }
            policy.add_file(&path, Layer::Env(path.clone()))?;
        }
    }
    Ok(policy)
}

/// The policy a server hook judges by (pre-receive, and any hook that
/// runs inside `receive-pack`): the layers that belong to the server
/// alone: built in, system (its fixed path), the team layer, the bare
/// repository's local layer. Nothing a pusher's environment names: over
/// a local path or `file://` remote, `receive-pack` and its hooks inherit
/// the pusher's environment, so no user layer (`XDG_CONFIG_HOME`, `HOME`),
/// no `WARD_POLICY`, no `WARD_SYSTEM_POLICY`.
pub fn load_server_policy(repo: Option<&Repo>) -> Result<Policy> {
    let mut policy = Policy::built_in();
    let system = PathBuf::from(policy::SYSTEM_PATH);
    policy.add_file(&system, Layer::System(system.clone()))?;
    if let Some(repo) = repo {
        if let Some((branch, bytes)) = repo.team_policy(policy.protected_patterns())? {
            policy
                .add_layer_bytes(&bytes, Layer::Team(branch.clone()))
                .map_err(|e| team_layer_broken(e, &branch))?;
        }
        let local = policy::local_path(repo.common_dir());
        policy.add_file(&local, Layer::Local(local.clone()))?;
    }
    Ok(policy)
}

/// The layers below the team layer (built in, system, user): the ones
/// that say which branches the team layer may come from.
pub fn below_team() -> Result<Policy> {
    let system = policy::system_path();
    let policy = built_in_system_user(&system)?;
    if system == Path::new(policy::SYSTEM_PATH) {
        return Ok(policy);
    }
    // `WARD_SYSTEM_POLICY` moved the system layer: not where the real
    // layers' `enforce.agent_env` finds an agent.
    let real = built_in_system_user(Path::new(policy::SYSTEM_PATH))?;
    Ok(match actor(&real, false) {
        Actor::Agent => real,
        Actor::Human => policy,
    })
}

fn built_in_system_user(system: &Path) -> Result<Policy> {
    let mut policy = Policy::built_in();
    policy.add_file(system, Layer::System(system.to_path_buf()))?;
    if let Some(user) = policy::user_path() {
        policy.add_file(&user, Layer::User(user.clone()))?;
    }
    Ok(policy)
}

/// What the command would write in a place that governs git-ward itself,
/// said as a clause for the denial; `None` when it writes nowhere such.
///
/// Such places are a git directory (hooks, config, the local policy
/// layer, the audit log: the repository's own, and any directory named
/// `.git`, whichever repository `--git-dir` names) and the user's or the
/// system's policy file. Three ways in: a file the command writes over
/// whatever is there ([`crate::action::Action::writes_files`],
/// `diff --output=<file>`), a working tree inside a git directory
/// (`git --work-tree=.git restore ...`, `GIT_WORK_TREE`, `core.worktree`),
/// where every command that changes files writes, and a repository or
/// working tree made there ([`crate::action::Action::new_trees`]: `init`,
/// `clone`, `worktree add`); `init` over an existing repository too. Paths are resolved as
/// the kernel would open them: from the command's directory, through
/// symbolic links that exist.
pub fn writes_into_guarded(
    repo: Option<&Repo>,
    globals: &Globals,
    action: &crate::action::Action,
) -> Option<String> {
    const WRITES: &str = "writes into";
    if let Some(why) = &action.writes_anywhere {
        return Some(why.clone());
    }
    let cwd = effective_cwd(globals);
    // The working trees git may write: as named on the command line or in
    // the environment, and as found (the usual one, the parent of `.git`,
    // needs no look).
    let trees = if action.effect == crate::action::Effect::Read {
        Vec::new()
    } else {
        // The usual one is looked at too when it is itself a directory
        // named `.git` or in one (a repository made inside a git directory).
        let found = repo
            .and_then(|r| {
                r.workdir()
                    .filter(|w| Some(*w) != r.git_dir().parent() || named_dot_git(w))
            })
            .map(Path::to_path_buf);
        [
            globals.work_tree.clone(),
            env::var_os("GIT_WORK_TREE").map(PathBuf::from),
            found,
        ]
        .into_iter()
        .flatten()
        .collect()
    };
    let new_trees: Vec<PathBuf> = action
        .new_trees
        .iter()
        .map(|dir| resolve(&cwd, Path::new(dir)))
        .collect();
    // `git init` over a repository copies every template file its git
    // directory lacks into it (a `ward/policy.toml`, a loose ref that
    // shadows a packed one), with no hook: refused where a template
    // directory of the command's or the config's choosing applies. git's
    // own templates (sample hooks, `info/exclude`) change nothing there.
    if matches!(action.command.as_str(), "init" | "init-db") {
        let at = env::var_os("GIT_DIR")
            .map(|d| resolve(&cwd, Path::new(&d)))
            .or_else(|| new_trees.first().cloned());
        if let Some((at, from)) = at
            .filter(|d| is_repository(d))
            .and_then(|at| Some((at.clone(), chosen_templates(globals, action, &at)?)))
        {
            return Some(format!(
                "re-initializes the repository at {}, copying template files ({from}) into its git directory",
                at.display()
            ));
        }
    }
    const NEW_TREE: &str = "makes a repository or working tree in";
    let targets: Vec<(PathBuf, &str)> = action
        .writes_files
        .iter()
        .map(|file| (resolve(&cwd, Path::new(file)), WRITES))
        .chain(trace_files().into_iter().map(|file| (file, TRACES)))
        .chain(
            trees
                .iter()
                .map(|tree| (resolve(&cwd, tree), "has its working tree in")),
        )
        .chain(new_trees.into_iter().map(|dir| (dir, NEW_TREE)))
        .collect();
    // git reads a relative one from the top of the working tree. A
    // read-only command writes no index, but `status` refreshes it.
    let writes_index = action.effect != crate::action::Effect::Read || action.command == "status";
    let index_file = env::var_os("GIT_INDEX_FILE").filter(|_| writes_index);
    if targets.is_empty() && index_file.is_none() {
        return None;
    }
    // The guarded places, resolved once.
    let policy_files: Vec<PathBuf> = [Some(policy::system_path()), policy::user_path()]
        .into_iter()
        .flatten()
        .map(|file| resolve(Path::new("/"), &file))
        .collect();
    let git_dirs = git_dirs(repo);
    let in_git_dir = |path: &Path| in_git_dirs(path, &git_dirs);
    // An index file git is pointed at (`GIT_INDEX_FILE`), which any
    // command may write (even `status` refreshes it): in a git directory
    // only as an index of its own (`.git/index.tmp`), never over hooks,
    // config, refs or policy.
    if let Some(index) = index_file {
        let top = repo.and_then(Repo::workdir).unwrap_or(&cwd);
        let index = resolve(top, Path::new(&index));
        let own_index = git_dirs
            .iter()
            .any(|dir| index.parent() == Some(dir.as_path()))
            && index
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("index"));
        if policy_files.contains(&index) || (in_git_dir(&index) && !own_index) {
            return Some(format!(
                "has its index file (GIT_INDEX_FILE) at {}",
                index.display()
            ));
        }
    }
    targets.iter().find_map(|(target, how)| {
        let holds_policy = *how == NEW_TREE && policy_files.iter().any(|f| f.starts_with(target));
        let writes = *how == WRITES || *how == TRACES;
        if (writes && policy_files.contains(target)) || holds_policy {
            return Some(format!(
                "writes into git-ward's policy file ({})",
                target.display()
            ));
        }
        let in_bare_unread = *how == NEW_TREE && bare_and_unread(repo, target, &git_dirs);
        (in_git_dir(target) && !in_bare_unread)
            .then(|| format!("{how} the git directory ({})", target.display()))
    })
}

/// How [`writes_into_guarded`] names a trace file the environment sends
/// git's tracing to.
const TRACES: &str = "writes its trace (GIT_TRACE...) into";

/// The files (or, for `GIT_TRACE2*`, directories) the environment sends
/// git's tracing to: each `GIT_TRACE*` variable holding an absolute path,
/// which git appends to whatever the command, a read-only one too.
pub fn trace_files() -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    std::env::vars_os()
        .filter(|(k, v)| {
            k.as_bytes().starts_with(b"GIT_TRACE") && v.as_bytes().first() == Some(&b'/')
        })
        .map(|(_, v)| PathBuf::from(v))
        .collect()
}

/// Where the template files `init` copies come from, when not git's own:
/// `--template`, `GIT_TEMPLATE_DIR`, or `init.templateDir` from `-c`, the
/// environment or the config files the repository at `at` reads.
fn chosen_templates(
    globals: &Globals,
    action: &crate::action::Action,
    at: &Path,
) -> Option<String> {
    const KEY: &str = "init.templatedir";
    if let Some(dir) = &action.templates {
        return Some(format!("--template={dir}"));
    }
    if let Some(dir) = env::var("GIT_TEMPLATE_DIR") {
        return Some(format!("GIT_TEMPLATE_DIR={dir}"));
    }
    let given = globals
        .config
        .iter()
        .chain(&globals.config_env)
        .cloned()
        .chain(env_config())
        .any(|(k, _)| normalize_key(&k) == KEY);
    if given {
        return Some("init.templateDir from -c or the environment".to_string());
    }
    Repo::at(at)?
        .config_values("init.templateDir")
        .pop()
        .map(|dir| format!("init.templateDir={dir}"))
}

/// Is `target` in the directory of a bare repository (`repo`, found from
/// where the command runs) at a path git never reads there (`sub`, not
/// `hooks`, `refs`, `worktrees`, `ward` or a ref-like `FETCH_HEAD`)? A
/// repository or working tree made there writes nothing git or git-ward
/// reads for the bare one.
fn bare_and_unread(repo: Option<&Repo>, target: &Path, git_dirs: &[PathBuf]) -> bool {
    const READ: [&str; 21] = [
        "HEAD",
        "branches",
        "commondir",
        "config",
        "config.worktree",
        "description",
        "gitdir",
        "hooks",
        "index",
        "info",
        "logs",
        "modules",
        "objects",
        "packed-refs",
        "rebase-apply",
        "rebase-merge",
        "refs",
        "reftable",
        "remotes",
        "shallow",
        "worktrees",
    ];
    if repo.is_none_or(|r| r.workdir().is_some()) || named_dot_git(target) {
        return false;
    }
    git_dirs.iter().any(|dir| {
        let Some(first) = target
            .strip_prefix(dir)
            .ok()
            .and_then(|rel| rel.components().next())
        else {
            return false;
        };
        let first = first.as_os_str().to_string_lossy();
        let ref_like = first
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == '_' || c == '-');
        !(ref_like
            || first == "ward"
            || first.starts_with("index")
            || READ.contains(&first.as_ref()))
    })
}

/// Is `path` (from `cwd`, resolved as the kernel would) in a git
/// directory: one named `.git`, or the git directory of `repo`? A
/// repository or working tree made there writes hooks, config and the
/// local policy layer.
pub fn in_a_git_dir(repo: Option<&Repo>, cwd: &Path, path: &Path) -> bool {
    in_git_dirs(&resolve(cwd, path), &git_dirs(repo))
}

/// `repo`'s git directory and common directory, resolved.
fn git_dirs(repo: Option<&Repo>) -> Vec<PathBuf> {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    repo.map_or_else(Vec::new, |r| {
        vec![canonical(r.git_dir()), canonical(r.common_dir())]
    })
}

/// Is the resolved `path` in one of `git_dirs`, or in any directory named
/// `.git` (whichever repository `--git-dir` names)?
fn in_git_dirs(path: &Path, git_dirs: &[PathBuf]) -> bool {
    named_dot_git(path) || git_dirs.iter().any(|dir| path.starts_with(dir))
}

/// Has `path` a component named `.git`?
fn named_dot_git(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == ".git")
}

/// Does `dir` hold a repository already: a `.git` in it, or a git
/// directory itself (a bare repository: `HEAD` and `objects/`)?
fn is_repository(dir: &Path) -> bool {
    dir.join(".git").symlink_metadata().is_ok()
        || (dir.join("HEAD").is_file() && dir.join("objects").is_dir())
}

/// `path` from `cwd`, one component at a time as the kernel resolves it:
/// symbolic links that exist are followed, `..` goes up from where the
/// path has got to, what does not exist yet is taken as written.
fn resolve(cwd: &Path, path: &Path) -> PathBuf {
    resolve_from(cwd, path, 0)
}

/// [`resolve`], `depth` symbolic links deep (a dangling one, which
/// `canonicalize` cannot follow, is followed here: writing through it
/// creates its target).
fn resolve_from(cwd: &Path, path: &Path, depth: usize) -> PathBuf {
    use std::path::Component;
    let mut at = if path.is_absolute() {
        PathBuf::from("/")
    } else {
        cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf())
    };
    for part in path.components() {
        match part {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                let next = at.join(name);
                at = match next.canonicalize() {
                    Ok(found) => found,
                    Err(_) => match std::fs::read_link(&next) {
                        Ok(link) if depth < 40 => resolve_from(&at, &link, depth + 1),
                        _ => next,
                    },
                };
            }
        }
    }
    at
}

/// Does the agent branch for `contract` (`<agent_prefix><contract>`) exist in `repo`?
pub fn agent_branch_exists(policy: &Policy, repo: &Repo, contract: Option<&str>) -> bool {
    contract.is_some_and(|c| {
        let prefix = &policy.settings.branches.agent_prefix;
        repo.ref_target(&format!("refs/heads/{prefix}{c}"))
            .is_some()
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_team_layer_may_come_from_each_branch_a_pattern_names() {
        let p = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            literal_branches(&p(&[
                "main",
                "release/*",
                "tags/*",
                "{dev,stage}",
                "master"
            ])),
            p(&["main", "dev", "stage", "master"])
        );
        // No branch of the literal name `{main,develop}`, nor of a glob.
        assert_eq!(
            literal_branches(&p(&["{main,develop}", "hot?ix", "[ab]x", "x\\y", "{a*,b}"])),
            p(&["main", "develop"])
        );
        assert_eq!(
            literal_branches(&p(&["pre/{a,b}/post", "{tags/x,y}"])),
            p(&["pre/a/post", "pre/b/post", "y"])
        );
    }

    use super::*;

    #[test]
    fn an_invalid_contract_id_is_shown_escaped_and_short() {
        let err = invalid_contract(&format!("a\u{1b}[31m{}", "x".repeat(500)));
        assert!(err.message.contains("a\\u{1b}[31m"), "{}", err.message);
        assert!(err.message.len() < 120, "{}", err.message);
        assert!(err.message.ends_with("...'"), "{}", err.message);
        assert_eq!(
            invalid_contract("bad id").message,
            "invalid contract id 'bad id'"
        );
    }

    #[test]
    fn contract_ids_follow_the_spec() {
        for ok in ["c1", "task-42", "A.b_c-9", &"x".repeat(100)] {
            assert!(valid_contract(ok), "{ok}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "_x",
            "a b",
            "a/b",
            "a..b",
            "x.",
            "x.lock",
            &"x".repeat(101),
            "é",
            "a:b",
            "a~1",
        ] {
            assert!(!valid_contract(bad), "{bad}");
        }
    }

    #[test]
    fn config_parameters_parse_like_git_writes_them() {
        assert_eq!(
            parse_config_parameters("'core.hooksPath=/dev/null' 'alias.x'='commit'"),
            vec![
                ("core.hookspath".to_string(), "/dev/null".to_string()),
                ("alias.x".to_string(), "commit".to_string())
            ]
        );
        assert_eq!(
            parse_config_parameters("'user.name=it'\\''s'"),
            vec![("user.name".to_string(), "it's".to_string())]
        );
    }
}
