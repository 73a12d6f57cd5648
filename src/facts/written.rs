//! Where a command writes that governs git-ward itself: a git directory,
//! the user's or the system's policy file, reached through a file it
//! writes, a working tree it writes in, or a repository it makes.

use std::path::{Path, PathBuf};

use super::{effective_cwd, env_config, Repo};
use crate::classify::{normalize_key, Globals};
use crate::env;
use crate::policy;

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
