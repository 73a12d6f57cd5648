//! Fills [`Facts`] through gix: the only reads before deciding.
//!
//! Opening the repository follows git: `GIT_DIR`/`GIT_WORK_TREE` from the
//! environment, then `-C`, `--git-dir` and `--work-tree` from the command
//! line, then discovery upwards from the working directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::classify::{normalize_key, Globals};
use crate::decide::{Actor, Facts, Head};
use crate::env;
use crate::error::{Error, Result};
use crate::policy::{self, Layer, Policy};
use crate::team_cache;

/// An open repository and the directory git would run in.
pub struct Repo {
    pub repo: gix::Repository,
    /// The user's and the system's config files, parsed on first use
    /// (aliases and `core.hooksPath` both read them).
    user_config: std::cell::OnceCell<Vec<gix::config::File>>,
}

impl Repo {
    fn new(repo: gix::Repository) -> Repo {
        Repo {
            repo,
            user_config: std::cell::OnceCell::new(),
        }
    }

    /// The repository a git command line with these globals would use, if any.
    ///
    /// Opened with the repository's own config only: the system and user
    /// config files are read on demand ([`Repo::aliases`]), since most
    /// commands never need them and this runs on every shim call.
    pub fn for_globals(globals: &Globals) -> Option<Repo> {
        let cwd = effective_cwd(globals);
        // Object-store slots as the packs on disk need: with a fixed few, an
        // object in a pack beyond them is not found (the team layer was
        // skipped so in a repository with more than four packs).
        let options = || gix::open::Options::isolated().open_path_as_is(true);
        let repo = if let Some(git_dir) = &globals.git_dir {
            let git_dir = cwd.join(git_dir);
            gix::open_opts(git_dir, options()).ok()?
        } else {
            let trust = gix::sec::trust::Mapping {
                full: options(),
                reduced: options(),
            };
            gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
                &cwd,
                Default::default(),
                trust,
            )
            .ok()?
            .to_thread_local()
        };
        Some(Repo::new(repo))
    }

    /// The repository of the current directory (tool and hook faces).
    pub fn discover() -> Option<Repo> {
        Repo::for_globals(&Globals::default())
    }

    /// The repository at exactly this directory or above it.
    pub fn at(dir: &Path) -> Option<Repo> {
        gix::ThreadSafeRepository::discover_with_environment_overrides(dir)
            .ok()
            .map(|r| Repo::new(r.to_thread_local()))
    }

    /// This worktree's own git dir (`.git`, or `.git/worktrees/x`).
    pub fn git_dir(&self) -> &Path {
        self.repo.git_dir()
    }

    /// The git dir shared by all worktrees.
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// The working tree's top directory, if not bare.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// Where HEAD is.
    pub fn head(&self) -> Option<Head> {
        let head = self.repo.head().ok()?;
        let short = |name: &gix::refs::FullNameRef| name.shorten().to_string();
        Some(match &head.kind {
            gix::head::Kind::Symbolic(r) => Head::Branch(short(r.name.as_ref())),
            gix::head::Kind::Unborn(name) => Head::Unborn(short(name.as_ref())),
            gix::head::Kind::Detached { .. } => Head::Detached,
        })
    }

    /// The object id a full ref name points at, peeled to its target.
    pub fn ref_id(&self, name: &str) -> Option<String> {
        let mut r = self.repo.try_find_reference(name).ok()??;
        r.peel_to_id().ok().map(|id| id.to_string())
    }

    /// The object a ref names, following symbolic refs but not peeling
    /// tags: an annotated tag gives its tag object, which is what keeps it.
    pub fn ref_target(&self, name: &str) -> Option<String> {
        let mut r = self.repo.try_find_reference(name).ok()??;
        r.follow_to_object().ok().map(|id| id.to_string())
    }

    /// All `alias.*` values from the system, user and repository config, the
    /// later overriding the earlier, as git reads them.
    pub fn aliases(&self) -> HashMap<String, String> {
        let mut out = HashMap::new();
        let mut collect = |file: &gix::config::File| {
            if let Some(sections) = file.sections_by_name("alias") {
                for section in sections {
                    for name in section.value_names() {
                        if let Some(value) = section.value(name.as_str()) {
                            out.insert(name.to_string().to_ascii_lowercase(), value.to_string());
                        }
                    }
                }
            }
        };
        for file in self.user_configs() {
            collect(file);
        }
        collect(self.repo.config_snapshot().plumbing());
        out
    }

    /// [`user_config_files`], parsed once for this repository's facts, with
    /// their `include.path` and `includeIf` files (`gitdir:`, `gitdir/i:`
    /// and `onbranch:` conditions, for this repository) as git reads them.
    /// A file whose includes cannot all be followed keeps what was read.
    fn user_configs(&self) -> &[gix::config::File] {
        self.user_config.get_or_init(|| {
            let home = env::var(env::HOME).map(PathBuf::from);
            let branch = self.repo.head_name().ok().flatten();
            let interpolate = gix::config::path::interpolate::Context {
                home_dir: home.as_deref(),
                ..Default::default()
            };
            let conditional = gix::config::file::includes::conditional::Context {
                git_dir: Some(self.repo.git_dir()),
                branch_name: branch.as_ref().map(|b| b.as_ref()),
            };
            let options = gix::config::file::init::Options {
                includes: gix::config::file::includes::Options::follow(interpolate, conditional),
                lossy: false,
                ignore_io_errors: true,
            };
            user_config_files()
                .into_iter()
                .filter_map(|(path, source)| {
                    let mut file = gix::config::File::from_path_no_includes(path, source).ok()?;
                    if let Err(err) = file.resolve_includes(options) {
                        tracing::debug!("config includes: {err}");
                    }
                    Some(file)
                })
                .collect()
        })
    }

    /// `core.hooksPath` as git reads it: the repository's own config first,
    /// then the user's and the system's (git-ward opens repositories
    /// without those), with the scope that set it.
    pub fn hooks_path(&self) -> Option<(String, &'static str)> {
        if let Some(value) = self.config_string("core.hooksPath") {
            return Some((value, "repository"));
        }
        // The last file that sets it wins.
        self.user_configs().iter().rev().find_map(|file| {
            let value = file.raw_value("core.hooksPath").ok()?;
            let scope = if file.meta().source == gix::config::Source::System {
                "system"
            } else {
                "global"
            };
            Some((value.to_string(), scope))
        })
    }

    /// The names of the configured remotes (`origin`), from `remote.<name>.*` sections.
    pub fn remotes(&self) -> Vec<String> {
        self.repo
            .remote_names()
            .into_iter()
            .map(|n| n.to_string())
            .collect()
    }

    /// Does a local branch of this short name exist?
    pub fn is_local_branch(&self, name: &str) -> bool {
        matches!(
            self.repo
                .try_find_reference(format!("refs/heads/{name}").as_str()),
            Ok(Some(_))
        )
    }

    /// A config value as a string.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.repo
            .config_snapshot()
            .string(key)
            .map(|v| v.to_string())
    }

    /// Where `git push` with no refspec sends the current branch: its
    /// upstream's name (`branch.<b>.merge`) or, failing that, its own name.
    pub fn default_push_dst(&self, head: &Head) -> Option<String> {
        let branch = head.branch()?;
        Some(
            self.config_string(&format!("branch.{branch}.merge"))
                .unwrap_or_else(|| format!("refs/heads/{branch}")),
        )
    }

    /// Does this repository keep its refs in the reftable backend? gix reads
    /// refs from files only: there, `HEAD` names `refs/heads/.invalid` and
    /// no branch is found.
    pub fn reftable(&self) -> bool {
        uses_reftable(self.common_dir())
    }

    /// Fails when the refs cannot be read in process (reftable): the facts
    /// a decision needs (the current branch, the branches that exist) would
    /// be wrong, and checkpoints could not be listed or claimed.
    pub fn refs_readable(&self) -> Result<()> {
        if !self.reftable() {
            return Ok(());
        }
        Err(Error::invalid(
            "this repository keeps its refs in reftable, which git-ward reads only through its hooks: it cannot check out, switch or checkpoint here",
            "convert it to the files backend (`git refs migrate --ref-format=files`, git 2.46 or newer), or let a person run this command",
        ))
    }

    /// The text of `.ward/policy.toml` committed on the first protected
    /// branch that exists locally, with that branch's name. Committed as
    /// anything but a file (a directory, a symlink), it is an error: the
    /// team layer is never skipped in silence.
    pub fn team_policy(&self, protected: &[String]) -> Result<Option<(String, String)>> {
        if self.reftable() {
            return self.team_policy_via_git(protected);
        }
        for pattern in literal_branches(protected) {
            let full = format!("refs/heads/{pattern}");
            let Ok(Some(mut r)) = self.repo.try_find_reference(full.as_str()) else {
                continue;
            };
            // What the branch points at fixes the answer: remembered per id.
            let id = r.target().try_id().map(|id| id.to_string());
            if let Some(known) = id
                .as_deref()
                .and_then(|id| team_cache::read(self.common_dir(), pattern, id))
            {
                return Ok(known.map(|text| (pattern.clone(), text)));
            }
            // The branch exists: what it holds decides, so an object that
            // cannot be read is an error, never a layer skipped in silence.
            let unreadable = |e: &dyn std::fmt::Display| team_policy_unreadable(pattern, e);
            let commit = r.peel_to_commit().map_err(|e| unreadable(&e))?;
            let tree = commit.tree().map_err(|e| unreadable(&e))?;
            let text = match tree
                .lookup_entry_by_path(TEAM_POLICY)
                .map_err(|e| unreadable(&e))?
            {
                None => None,
                Some(entry) if !entry.mode().is_blob() => {
                    return Err(team_policy_not_a_file(pattern));
                }
                Some(entry) => {
                    let object = entry.object().map_err(|e| unreadable(&e))?;
                    Some(String::from_utf8_lossy(&object.data).into_owned())
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
    fn team_policy_via_git(&self, protected: &[String]) -> Result<Option<(String, String)>> {
        let git = crate::git::Git::locate()?
            .detached_from_env()
            .env("GIT_DIR", self.common_dir());
        for pattern in literal_branches(protected) {
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
            // `<mode> <type> <id>\t<path>`, or nothing when it is not there.
            let listed = git.run(["ls-tree", &id, "--", TEAM_POLICY])?;
            let Some((meta, _)) = listed.split_once('\t') else {
                return Ok(None);
            };
            let mut fields = meta.split(' ');
            let (mode, blob) = (fields.next().unwrap_or(""), fields.nth(1).unwrap_or(""));
            if !matches!(mode, "100644" | "100755") {
                return Err(team_policy_not_a_file(pattern));
            }
            let text = git.output(["cat-file", "blob", blob])?;
            if !text.status.success() {
                return Err(team_policy_unreadable(pattern, &"its blob cannot be read"));
            }
            return Ok(Some((
                pattern.clone(),
                String::from_utf8_lossy(&text.stdout).into_owned(),
            )));
        }
        Ok(None)
    }

    /// The contract file of this worktree.
    pub fn contract_file(&self) -> PathBuf {
        self.git_dir().join("ward").join("contract")
    }
}

/// The system and user config files git reads, in order, as git finds them
/// (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_GLOBAL`, XDG, HOME),
/// without asking a git process where its installation keeps them.
fn user_config_files() -> Vec<(PathBuf, gix::config::Source)> {
    use gix::config::Source;
    let mut out = Vec::new();
    if !env::truthy("GIT_CONFIG_NOSYSTEM") {
        let system = env::var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| "/etc/gitconfig".into());
        out.push((PathBuf::from(system), Source::System));
    }
    if let Some(global) = env::var("GIT_CONFIG_GLOBAL") {
        out.push((PathBuf::from(global), Source::User));
    } else {
        let xdg = env::var(env::XDG_CONFIG_HOME)
            .map(PathBuf::from)
            .or_else(|| env::var(env::HOME).map(|h| PathBuf::from(h).join(".config")));
        if let Some(xdg) = xdg {
            out.push((xdg.join("git/config"), Source::Git));
        }
        if let Some(home) = env::var(env::HOME) {
            out.push((PathBuf::from(home).join(".gitconfig"), Source::User));
        }
    }
    out
}

/// The branch the HEAD file in `git_dir` names (`HEAD` when detached): one
/// small read, for audit lines written after git has run.
pub fn head_branch_file(git_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    Some(match text.trim().strip_prefix("ref: ") {
        Some(r) => r.strip_prefix("refs/heads/").unwrap_or(r).to_string(),
        None => "HEAD".to_string(),
    })
}

/// The protected patterns that name one branch (no tag, no wildcard): where
/// the team layer may be committed.
pub fn literal_branches(protected: &[String]) -> impl Iterator<Item = &String> {
    protected
        .iter()
        .filter(|p| !p.starts_with("tags/") && !p.contains(['*', '?', '[']))
}

/// Where the team layer lives in a protected branch's committed tree.
const TEAM_POLICY: &str = ".ward/policy.toml";

/// The error for a team policy committed as something other than a file.
fn team_policy_unreadable(branch: &str, why: &dyn std::fmt::Display) -> Error {
    Error::internal(format!(
        "cannot read the team policy ({TEAM_POLICY}) on '{branch}': {why}"
    ))
    .with_hint(format!(
        "check the repository (`git fsck`); `git show {branch}:{TEAM_POLICY}` should print it"
    ))
}

fn team_policy_not_a_file(branch: &str) -> Error {
    Error::invalid(
        format!("{TEAM_POLICY} committed on '{branch}' is not a file (a directory or a symlink)"),
        format!("commit the team policy on '{branch}' as a regular file, or remove it from there"),
    )
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

/// Is this environment an agent's (SPEC section 2)? `via_shim` is the first test.
pub fn actor(policy: &Policy, via_shim: bool) -> Actor {
    actor_for_env(&policy.settings.enforce.agent_env, via_shim)
}

/// [`actor`] given the policy's `enforce.agent_env` list alone (the hooks'
/// cached settings carry just that).
pub fn actor_for_env(agent_env: &[String], via_shim: bool) -> Actor {
    if via_shim
        || env::truthy(env::WARD_AGENT)
        || env::var_os(env::WARD_CONTRACT).is_some()
        || agent_env.iter().any(|v| env::truthy(v))
    {
        Actor::Agent
    } else {
        Actor::Human
    }
}

/// Is a contract id valid? 1 to 100 of `[A-Za-z0-9._-]`, starting with a
/// letter or digit; also a valid branch name component for git (no `..`,
/// no trailing `.` or `.lock`).
pub fn valid_contract(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 100
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.contains("..")
        && !id.ends_with('.')
        && !id.ends_with(".lock")
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

/// Where the contract came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContractSource {
    Env,
    File(PathBuf),
}

/// The active contract: `WARD_CONTRACT`, else the worktree's contract file.
pub fn contract(repo: Option<&Repo>) -> Result<Option<(String, ContractSource)>> {
    if let Some(raw) = env::var_os(env::WARD_CONTRACT) {
        // Not UTF-8 is not a valid id either: an error, never "no contract".
        let id = raw.to_string_lossy().into_owned();
        return if valid_contract(&id) {
            Ok(Some((id, ContractSource::Env)))
        } else {
            Err(invalid_contract(&id))
        };
    }
    let Some(repo) = repo else { return Ok(None) };
    let path = repo.contract_file();
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let id = text.trim();
            if id.is_empty() {
                Ok(None)
            } else if valid_contract(id) {
                Ok(Some((id.to_string(), ContractSource::File(path))))
            } else {
                Err(invalid_contract(id))
            }
        }
        Err(_) => Ok(None),
    }
}

/// Config pairs the environment carries to git: `GIT_CONFIG_COUNT` with
/// `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, and `GIT_CONFIG_PARAMETERS`.
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

/// Loads the layered policy (SPEC section 5). `repo` gives the team and local
/// layers; `WARD_POLICY` applies only when the actor so far is a human.
pub fn load_policy(repo: Option<&Repo>, via_shim: bool) -> Result<Policy> {
    let clock = std::time::Instant::now();
    let mut policy = Policy::built_in();
    tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy: built-in");
    let system = policy::system_path();
    policy.add_file(&system, Layer::System(system.clone()))?;
    if let Some(user) = policy::user_path() {
        policy.add_file(&user, Layer::User(user.clone()))?;
    }
    if let Some(repo) = repo {
        if let Some((branch, text)) = repo.team_policy(policy.protected_patterns())? {
            policy.add_layer(&text, Layer::Team(branch))?;
        }
        tracing::debug!(us = clock.elapsed().as_micros() as u64, "policy: team");
        let local = policy::local_path(repo.common_dir());
        policy.add_file(&local, Layer::Local(local.clone()))?;
    }
    if let Some(path) = env::var(env::WARD_POLICY) {
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

/// Everything `decide` needs, for a command run in `repo` (if any).
pub fn gather(policy: &Policy, repo: Option<&Repo>, via_shim: bool) -> Result<Facts> {
    gather_at(policy, repo, repo.and_then(Repo::head), via_shim)
}

/// [`gather`], with HEAD already read.
pub fn gather_at(
    policy: &Policy,
    repo: Option<&Repo>,
    head: Option<Head>,
    via_shim: bool,
) -> Result<Facts> {
    let contract = contract(repo)?.map(|(id, _)| id);
    let env_hooks_off = env_config()
        .into_iter()
        .find(|(k, _)| k == "core.hookspath")
        .map(|(_, v)| format!("core.hooksPath={v} from the environment"));
    let default_push_dst = match (repo, &head) {
        (Some(repo), Some(head)) => repo.default_push_dst(head),
        _ => None,
    };
    Ok(Facts {
        actor: actor(policy, via_shim),
        contract,
        head,
        env_hooks_off,
        default_push_dst,
    })
}

#[cfg(test)]
mod tests {
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
