//! The repository a command works in, and what git-ward reads of it before
//! deciding: where it is, HEAD and other refs, its config (the team layer
//! it reads is in `team_layer.rs`).
//!
//! Opening a `gix::Repository` builds gix's whole configuration cache,
//! about 300,000 instructions, more than half of what a commit through the
//! shim costs otherwise, and a decision needs none of it. So [`Repo`] is
//! found the way the shim's read path finds it ([`Dirs::discover`], which
//! declines whatever git might resolve differently) and holds the
//! repository's config file and gix's ref store, both cheap to set up; a
//! commit's tree is read from gix's object store alone
//! ([`Repo::commit_tree`]), and the full gix repository is opened on first
//! use ([`Repo::gix`]): the team layer when its cache misses, a blob a
//! checkpoint reads. Where the light way declines (`GIT_DIR` and the like
//! in the environment, `--git-dir` or `-c` on the command line, a
//! repository with extensions or `core.precomposeUnicode`), gix opens the
//! repository as git would and the same reads go through it.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::config_includes::{follow_includes, user_config_files, Includes};
use super::{effective_cwd, physical_cwd, uses_reftable};
use crate::classify::Globals;
use crate::decide::Head;
use crate::env;
use crate::error::{Error, Result};
use crate::facts::Dirs;

/// How many symbolic refs are followed before giving up (git's limit).
const MAX_SYMREF_DEPTH: usize = 5;

/// An open repository and what has been read of it.
pub struct Repo {
    git_dir: PathBuf,
    common_dir: PathBuf,
    workdir: Option<PathBuf>,
    object_hash: gix::hash::Kind,
    /// The repository's own config (`<common-dir>/config`) with the files
    /// it includes, without the user's and system's.
    config: gix::config::File,
    pub(super) refs: gix::RefStore,
    /// The full gix repository, opened on first use.
    full: OnceCell<Option<gix::Repository>>,
    /// gix's object store alone, for [`Repo::commit_tree`] when the full
    /// repository is not open.
    objects: OnceCell<Option<gix::odb::Handle>>,
    /// The user's and the system's config files, parsed on first use
    /// (aliases and `core.hooksPath` both read them).
    user_config: OnceCell<Vec<gix::config::File>>,
}

/// What to do in a repository git-ward cannot read.
pub const UNREADABLE_HINT: &str =
    "git-ward reads SHA-1 repositories of the files or reftable backend; let a person run this command here";

/// How gix opens repositories here: the repository's config only (the
/// user's and system's are read on demand), the path as given, and
/// object-store slots as the packs on disk need (with a fixed few, an
/// object in a pack beyond them is not found).
fn options() -> gix::open::Options {
    gix::open::Options::isolated().open_path_as_is(true)
}

impl Repo {
    /// The repository a git command line with these globals would use, if any.
    pub fn for_globals(globals: &Globals) -> Option<Repo> {
        let plain = globals.plain() && !globals.bare && env::var_os("GIT_NAMESPACE").is_none();
        if let Some(repo) = plain
            .then(|| physical_cwd(globals))
            .flatten()
            .and_then(|start| Repo::found_from(&start))
        {
            return Some(repo);
        }
        let cwd = effective_cwd(globals);
        let repo = if let Some(git_dir) = &globals.git_dir {
            gix::open_opts(cwd.join(git_dir), options()).ok()?
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
        let mut repo = Repo::from_gix(repo);
        // The working tree git is told of (`--work-tree`, else
        // `GIT_WORK_TREE`), whatever directory the git dir was found from:
        // a checkpoint is of the files the command will touch.
        let told = globals
            .work_tree
            .clone()
            .or_else(|| env::var_os("GIT_WORK_TREE").map(PathBuf::from));
        if let Some(tree) = told {
            let tree = cwd.join(tree);
            repo.workdir = Some(tree.canonicalize().unwrap_or(tree));
        } else if repo.workdir.is_some()
            && (globals.git_dir.is_some() || env::var_os("GIT_DIR").is_some())
            && repo.config.string("core.worktree").is_none()
        {
            // A git directory named with no working tree and no
            // `core.worktree`: git takes the directory it runs in as the
            // working tree's top, wherever that is.
            repo.workdir = Some(cwd.canonicalize().unwrap_or(cwd));
        }
        Some(repo)
    }

    /// Why there is a repository where git would find one for these
    /// globals, but it cannot be read here ([`Repo::for_globals`] gave
    /// none): a SHA-256 repository, an extension gix does not know. Then
    /// nothing git-ward decides there can rest on facts, and it says so.
    pub fn why_unreadable(globals: &Globals) -> Option<String> {
        let cwd = effective_cwd(globals);
        let dir = match globals
            .git_dir
            .clone()
            .or_else(|| env::var_os("GIT_DIR").map(PathBuf::from))
        {
            Some(dir) => cwd.join(dir),
            None => Dirs::discover(&physical_cwd(globals)?)?.git_dir,
        };
        let err = gix::open_opts(&dir, options()).err()?;
        let format = gix::config::File::from_path_no_includes(
            dir.join("config"),
            gix::config::Source::Local,
        )
        .ok()
        .and_then(|c| c.string("extensions.objectFormat").map(|v| v.to_string()))
        .filter(|f| !f.eq_ignore_ascii_case("sha1"));
        let why = match format {
            Some(format) => format!("it stores {format} objects, which git-ward cannot read"),
            None => {
                let mut why = err.to_string();
                let mut source = std::error::Error::source(&err);
                while let Some(e) = source {
                    why = format!("{why}: {e}");
                    source = e.source();
                }
                why
            }
        };
        Some(format!(
            "cannot read the repository at {}: {why}",
            dir.display()
        ))
    }

    /// The repository of the current directory for one of the tool's
    /// commands: not in one is an invalid argument (with `hint`, where to
    /// run it); in one git-ward cannot read, an error saying why.
    pub fn for_tool(hint: &str) -> Result<Repo> {
        if let Some(repo) = Repo::discover() {
            return Ok(repo);
        }
        Err(match Repo::why_unreadable(&Globals::default()) {
            Some(why) => Error::internal(why).with_hint(UNREADABLE_HINT),
            None => Error::invalid("not in a git repository", hint),
        })
    }

    /// The repository of the current directory (tool and hook faces).
    pub fn discover() -> Option<Repo> {
        Repo::for_globals(&Globals::default())
    }

    /// The repository at exactly this directory or above it.
    pub fn at(dir: &Path) -> Option<Repo> {
        if let Some(repo) = dir.canonicalize().ok().and_then(|d| Repo::found_from(&d)) {
            return Some(repo);
        }
        gix::ThreadSafeRepository::discover_with_environment_overrides(dir)
            .ok()
            .map(|r| Repo::from_gix(r.to_thread_local()))
    }

    /// The repository git finds walking up from `start` (a physical path),
    /// without gix's configuration cache; `None` where the walk declines.
    fn found_from(start: &Path) -> Option<Repo> {
        Repo::from_dirs(&Dirs::discover(start)?)
    }

    /// The repository of directories already found (a hook's, say), without
    /// gix's configuration cache; `None` where gix must open it (a config
    /// that is not readable, extensions, `core.precomposeUnicode`), or
    /// where even gix cannot.
    pub fn from_dirs(dirs: &Dirs) -> Option<Repo> {
        let path = dirs.common_dir.join("config");
        let config = match gix::config::File::from_path_no_includes(
            path.clone(),
            gix::config::Source::Local,
        ) {
            Ok(config) => config,
            // No config file: git reads none, and accepts the repository.
            Err(_) if !path.exists() => gix::config::File::new(gix::config::file::Metadata::from(
                gix::config::Source::Local,
            )),
            Err(_) => return Repo::open_full(dirs),
        };
        let light = config.sections_by_name("extensions").is_none()
            && !config
                .boolean("core.precomposeUnicode")
                .map_or(true, |v| v.unwrap_or(false));
        if !light {
            return Repo::open_full(dirs);
        }
        let object_hash = gix::hash::Kind::Sha1;
        let refs = if dirs.git_dir == dirs.common_dir {
            gix::RefStore::at(dirs.git_dir.clone(), object_hash)
        } else {
            gix::RefStore::for_linked_worktree(
                dirs.git_dir.clone(),
                dirs.common_dir.clone(),
                object_hash,
            )
        };
        let mut config = config;
        follow_includes(&mut config, &dirs.git_dir, &refs);
        Some(Repo {
            git_dir: dirs.git_dir.clone(),
            common_dir: dirs.common_dir.clone(),
            workdir: dirs.work_tree.clone(),
            object_hash,
            config,
            refs,
            full: OnceCell::new(),
            objects: OnceCell::new(),
            user_config: OnceCell::new(),
        })
    }

    /// [`Repo::from_dirs`] where gix must open the repository: at the git
    /// dir found, keeping the working tree as found.
    fn open_full(dirs: &Dirs) -> Option<Repo> {
        let repo = gix::open_opts(&dirs.git_dir, options()).ok()?;
        let mut repo = Repo::from_gix(repo);
        repo.workdir = dirs.work_tree.clone();
        Some(repo)
    }

    /// A repository gix has opened.
    fn from_gix(repo: gix::Repository) -> Repo {
        let mut config = repo.config_snapshot().plumbing().clone();
        follow_includes(&mut config, repo.git_dir(), &repo.refs);
        Repo {
            git_dir: repo.git_dir().to_path_buf(),
            common_dir: repo.common_dir().to_path_buf(),
            workdir: repo.workdir().map(Path::to_path_buf),
            object_hash: repo.object_hash(),
            config,
            refs: repo.refs.clone(),
            full: OnceCell::from(Some(repo)),
            objects: OnceCell::new(),
            user_config: OnceCell::new(),
        }
    }

    /// The full gix repository, opened on first use: what the lighter
    /// reads above do not cover (the team layer's trees and blobs, a blob
    /// a checkpoint reads).
    pub fn gix(&self) -> Result<&gix::Repository> {
        self.full
            .get_or_init(|| gix::open_opts(&self.git_dir, options()).ok())
            .as_ref()
            .ok_or_else(|| {
                Error::internal(format!(
                    "cannot open the repository at {}",
                    self.git_dir.display()
                ))
                .with_hint("check it with `git fsck`; git-ward reads objects through it")
            })
    }

    /// The tree of a commit (or of the commit a tag names), read from the
    /// object store without opening the whole repository where nothing
    /// else is needed: no replacement refs (`refs/replace/`), no object
    /// directories from the environment.
    pub fn commit_tree(&self, commit: &str) -> Option<String> {
        use gix::objs::Find;
        let mut id = gix::ObjectId::from_hex(commit.as_bytes()).ok()?;
        let mut buf = Vec::new();
        for _ in 0..=MAX_SYMREF_DEPTH {
            let data = match self.light_objects() {
                Some(odb) => odb.try_find(&id, &mut buf),
                None => self.gix().ok()?.objects.try_find(&id, &mut buf),
            }
            .ok()??;
            match data.kind {
                gix::object::Kind::Commit => {
                    let tree =
                        gix::objs::CommitRefIter::from_bytes(data.data, self.object_hash).tree_id();
                    return tree.ok().map(|t| t.to_string());
                }
                gix::object::Kind::Tag => {
                    id = gix::objs::TagRefIter::from_bytes(data.data, self.object_hash)
                        .target_id()
                        .ok()?;
                }
                _ => return None,
            }
        }
        None
    }

    /// The object store alone, where reading it so gives what the whole
    /// repository would; `None` where the full repository must read.
    fn light_objects(&self) -> Option<&gix::odb::Handle> {
        if self.full.get().is_some() {
            return None;
        }
        self.objects
            .get_or_init(|| {
                let env_dirs = ["GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"]
                    .iter()
                    .any(|v| env::var_os(v).is_some());
                if env_dirs || self.has_replacements() {
                    return None;
                }
                gix::odb::at(self.common_dir.join("objects"), self.object_hash).ok()
            })
            .as_ref()
    }

    /// Does any ref under `refs/replace/` exist (or can that not be told)?
    fn has_replacements(&self) -> bool {
        self.ref_names("refs/replace/")
            .is_none_or(|names| !names.is_empty())
    }

    /// The full names of the refs under `prefix` (ending in `/`), loose and
    /// packed, sorted; `None` when they cannot be read.
    pub fn ref_names(&self, prefix: &str) -> Option<Vec<String>> {
        let platform = self.refs.iter().ok()?;
        let prefix = <&gix::path::RelativePath>::try_from(prefix).ok()?;
        platform
            .prefixed(prefix)
            .ok()?
            .map(|r| r.ok().map(|r| r.name.as_bstr().to_string()))
            .collect()
    }

    /// Is the full gix repository open? (For tests of what a road opens.)
    pub fn gix_opened(&self) -> bool {
        self.full.get().is_some()
    }

    /// This worktree's own git dir (`.git`, or `.git/worktrees/x`).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The git dir shared by all worktrees.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The working tree's top directory, if not bare.
    pub fn workdir(&self) -> Option<&Path> {
        self.workdir.as_deref()
    }

    /// The kind of object ids the repository uses.
    pub fn object_hash(&self) -> gix::hash::Kind {
        self.object_hash
    }

    /// The repository's own config file.
    pub fn config(&self) -> &gix::config::File {
        &self.config
    }

    /// Where HEAD is: the branch a commit writes, so a branch that is a
    /// symbolic ref to another (`foo -> main`) is read as the one it names.
    pub fn head(&self) -> Option<Head> {
        let head = self.refs.try_find("HEAD").ok()??;
        let gix::refs::Target::Symbolic(mut name) = head.target else {
            return Some(Head::Detached);
        };
        for _ in 0..=MAX_SYMREF_DEPTH {
            match self.refs.try_find(name.as_ref()) {
                Ok(Some(r)) => match r.target {
                    gix::refs::Target::Symbolic(next) => name = next,
                    gix::refs::Target::Object(_) => {
                        return Some(Head::Branch(name.as_ref().shorten().to_string()))
                    }
                },
                Ok(None) => return Some(Head::Unborn(name.as_ref().shorten().to_string())),
                Err(_) => return None,
            }
        }
        None
    }

    /// The object a ref names (a full name, or a short one found by git's
    /// search order), following symbolic refs but not peeling tags: an
    /// annotated tag gives its tag object, which is what keeps it. `HEAD`,
    /// branches and checkpoints name commits. Reads refs only.
    pub fn ref_target(&self, name: &str) -> Option<String> {
        let mut r = self.refs.try_find(name).ok()??;
        for _ in 0..=MAX_SYMREF_DEPTH {
            match r.target {
                gix::refs::Target::Object(id) => return Some(id.to_string()),
                gix::refs::Target::Symbolic(next) => {
                    r = self.refs.try_find(next.as_ref()).ok()??;
                }
            }
        }
        None
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
        collect(&self.config);
        out
    }

    /// [`user_config_files`], parsed once for this repository's facts, with
    /// their `include.path` and `includeIf` files (`gitdir:`, `gitdir/i:`
    /// and `onbranch:` conditions, for this repository) as git reads them.
    /// A file whose includes cannot all be followed keeps what was read.
    fn user_configs(&self) -> &[gix::config::File] {
        self.user_config.get_or_init(|| {
            let includes = Includes::of(&self.git_dir, &self.refs);
            user_config_files()
                .into_iter()
                .filter_map(|(path, source)| {
                    // Only a regular file of a reasonable size (never `/dev/zero`).
                    let regular = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
                    if regular.len() > crate::state_file::MAX_READ {
                        return None;
                    }
                    let mut file = gix::config::File::from_path_no_includes(path, source).ok()?;
                    includes.follow(&mut file);
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

    /// The names of the configured remotes (`origin`), from
    /// `remote.<name>.*` sections, sorted, each once.
    pub fn remotes(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .config
            .sections_by_name("remote")
            .into_iter()
            .flatten()
            .filter_map(|s| s.header().subsection_name().map(|n| n.to_string()))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Does a local branch of this short name exist?
    pub fn is_local_branch(&self, name: &str) -> bool {
        matches!(
            self.refs.try_find(format!("refs/heads/{name}").as_str()),
            Ok(Some(_))
        )
    }

    /// A config value as a string.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.config.string(key).map(|v| v.to_string())
    }

    /// Every value of a config key, in the order git reads the files
    /// (system, user, the repository's own, each with what it includes).
    /// A key with no value (or an empty one: gix tells them apart only
    /// for booleans) reads `true`.
    pub fn config_values(&self, key: &str) -> Vec<String> {
        let mut out = Vec::new();
        for file in self
            .user_configs()
            .iter()
            .chain(std::iter::once(&self.config))
        {
            for value in file.strings(key).unwrap_or_default() {
                let value = value.to_string();
                out.push(if value.is_empty() {
                    "true".to_string()
                } else {
                    value
                });
            }
        }
        out
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
        // Not a bad argument: what git-ward cannot read (EN-GIT-E-001, as
        // in a SHA-256 repository).
        Err(Error::internal(
            "this repository keeps its refs in reftable, which git-ward reads only through its hooks: it cannot check out, switch or checkpoint here",
        )
        .with_hint(
            "convert it to the files backend (`git refs migrate --ref-format=files`, git 2.46 or newer), or let a person run this command",
        ))
    }

    /// Is HEAD an ancestor of `revision` (or the same commit), so that
    /// merging it fast-forwards, and does `revision` name a remote-tracking
    /// ref that is not symbolic? Asked of the real git (`merge-base
    /// --is-ancestor`, which knows grafts, replacements and shallow
    /// history); no on any failure, an unborn HEAD among them.
    pub fn fast_forwards(&self, revision: &str) -> bool {
        let Ok(git) = crate::git::Git::locate() else {
            return false;
        };
        let git = git.detached_from_env().env("GIT_DIR", self.git_dir());
        let ok = |args: &[&str]| git.output(args).ok().filter(|o| o.status.success());
        // The ref it names must be a remote-tracking ref of its own, not
        // one made to point at another (a symbolic ref).
        // (No `--end-of-options`: rev-parse prints it back; `revision` is
        // a remote-tracking name or `@{upstream}`, never an option.)
        let named = ok(&["rev-parse", "--symbolic-full-name", revision])
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        named.starts_with("refs/remotes/")
            && ok(&["symbolic-ref", "-q", &named]).is_none()
            && ok(&[
                "merge-base",
                "--is-ancestor",
                "HEAD",
                "--end-of-options",
                revision,
            ])
            .is_some()
    }

    /// The merge, cherry-pick or revert in progress in this worktree, if any.
    pub fn in_progress(&self) -> Option<&'static str> {
        [
            ("MERGE_HEAD", "merge"),
            ("CHERRY_PICK_HEAD", "cherry-pick"),
            ("REVERT_HEAD", "revert"),
        ]
        .into_iter()
        .find(|(file, _)| self.git_dir.join(file).exists())
        .map(|(_, what)| what)
    }

    /// The branches the repository's other worktrees have checked out,
    /// with their tops, from their HEAD files (no git run).
    pub fn branches_elsewhere(&self) -> Vec<(String, String)> {
        let branch_of = |admin: &Path| {
            let head = std::fs::read_to_string(admin.join("HEAD")).ok()?;
            let name = head.trim().strip_prefix("ref: refs/heads/")?.to_string();
            Some(name)
        };
        let mut out = Vec::new();
        if self.git_dir != self.common_dir {
            if let (Some(b), Some(top)) = (branch_of(&self.common_dir), self.common_dir.parent()) {
                out.push((b, top.display().to_string()));
            }
        }
        let Ok(entries) = std::fs::read_dir(self.common_dir.join("worktrees")) else {
            return out;
        };
        for admin in entries.flatten().map(|e| e.path()) {
            if admin == self.git_dir {
                continue;
            }
            let top = std::fs::read_to_string(admin.join("gitdir"))
                .ok()
                .map(|g| g.trim().trim_end_matches("/.git").to_string());
            if let (Some(b), Some(top)) = (branch_of(&admin), top) {
                out.push((b, top));
            }
        }
        out
    }

    /// The contract file of this worktree.
    pub fn contract_file(&self) -> PathBuf {
        self.git_dir().join("ward").join("contract")
    }
}
