//! What a git command line means to git-ward: the output of `classify`,
//! the input of `decide`. Plain data, no I/O.

use serde::Serialize;

/// Whether a command can change the repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Only reads (`status`, `log`, `branch` with no arguments, `config --get`).
    Read,
    /// Changes refs, the index, the working tree or config.
    Mutating,
    /// Not known to git-ward (`lfs`, `!shell` aliases); treated as mutating
    /// unless policy `commands.unknown` says otherwise.
    Unknown,
}

/// A ref the command names and writes, or the current branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum RefTarget {
    /// Whatever branch HEAD points at when the command runs (`reset`, `rebase`).
    Current,
    /// A full ref name: `refs/heads/main`, `refs/tags/v1.0`.
    Named(String),
    /// Refs the command line cannot name: every branch (`filter-branch --all`,
    /// `rebase --update-refs`, a wildcard fetch into `refs/heads/*`) or whatever
    /// stdin says (`update-ref --stdin`, `fast-import`). `decide` treats it as
    /// touching a protected ref.
    All,
}

/// How a ref is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RefOp {
    /// Created where it did not exist (`branch x`, `tag v1`, `checkout -b x`).
    Create,
    /// Moved or rewritten (`reset`, `branch -f`, `rebase`, `update-ref`).
    Update,
    /// Deleted (`branch -D`, `tag -d`, `update-ref -d`), or the old name of a rename.
    Delete,
}

/// One ref write the command line makes visible.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RefWrite {
    pub target: RefTarget,
    pub op: RefOp,
    /// For a create: the start point as written (`origin/main`), if given.
    pub start: Option<String>,
}

/// One destination of a push.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PushDest {
    /// The remote ref as written or implied (`main`, `refs/heads/release/1`);
    /// `None` when git decides from config (`git push` with no refspec).
    pub dst: Option<String>,
    /// The source side (`HEAD`, `feat`); empty for a deletion.
    pub src: String,
    /// `+refspec`.
    pub force: bool,
    /// `:dst` or `--delete`.
    pub delete: bool,
}

/// A push, as far as its command line tells.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Push {
    pub remote: Option<String>,
    pub dests: Vec<PushDest>,
    /// Any force flag: `--force`, `-f`, `--force-with-lease`, `--force-if-includes`, `--mirror`.
    pub force: bool,
    pub all: bool,
    pub mirror: bool,
    pub tags: bool,
    pub delete: bool,
    /// The configuration that chose what a push with no refspec sends, where
    /// that is not the current branch alone (`remote.origin.mirror`,
    /// `push.default=matching`, `remote.origin.push`): named in denials.
    pub configured_by: Option<String>,
}

/// What a `checkout`/`switch` moves HEAD to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "name")]
pub enum CheckoutTarget {
    /// A plain local branch name (`main`, `feature/x`).
    Local(String),
    /// A remote-tracking ref (`origin/main`, `remotes/x`, `refs/remotes/...`).
    Remote(String),
    /// A revision expression (`HEAD~`, `@{-1}`, a name with `..`, `-`, a leading `/`).
    Special(String),
    /// A new branch (`-b`, `-c`, `--orphan`) with its start point; both checked separately.
    New(String),
    /// `--detach`: HEAD detached at a revision.
    Detach(String),
}

/// A remote added, removed or renamed (`git remote add|remove|rename`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum RemoteChange {
    Add(String),
    Remove(String),
    /// From, to.
    Rename(String, String),
}

/// Everything `decide` needs to know about one git command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Action {
    /// The subcommand after alias resolution (`commit`), empty for `git` alone.
    pub command: String,
    /// The alias used, if any (`ci`).
    pub alias: Option<String>,
    /// That alias was defined for this command alone (`-c alias.x=...`,
    /// the environment's config pairs), not in a config file: a policy
    /// that names the alias (`commands.read`) meant the file's.
    pub alias_given: bool,
    pub effect: Effect,
    /// Makes new commits on the current branch (commit, merge, cherry-pick, revert, am, ...).
    /// `add` counts here too (the first write of an agent's work).
    pub creates_commits: bool,
    /// Refs named on the command line that it writes.
    pub refs: Vec<RefWrite>,
    /// Why the command can destroy uncommitted or unreferenced work, if it can.
    pub destructive: Option<String>,
    /// Sets index entries back to a commit's without touching the files
    /// (`reset` without a mode or with `--mixed`, `restore --staged`,
    /// `read-tree`): a version that is staged and changed since on disk
    /// is then in no file, commit or ref. Not in the rules' destructive list;
    /// checkpointed first when such a version is there.
    pub unstages: bool,
    /// The pathspecs a destructive or unstaging command is limited to, as written
    /// (`checkout -- a.txt`, `restore src/`, `clean -f tmp/`); `None` for
    /// the whole tree, or when the command line does not say plainly
    /// (`-p`, `--pathspec-from-file`).
    pub paths: Option<Vec<String>>,
    /// Writes paths from a tree-ish other than the index (`checkout <tree>
    /// -- <paths>`, `restore --source`): files the index does not track
    /// are overwritten too.
    pub from_tree: bool,
    /// How the command line switches hooks off, if it does.
    pub hooks_off: Option<String>,
    pub push: Option<Push>,
    pub checkout: Option<CheckoutTarget>,
    /// The worktree `worktree remove` names, as written (`../wt`, or the
    /// end of its path); git resolves it against the directory it runs in.
    pub removes_worktree: Option<String>,
    /// The worktree `worktree move` names, as written.
    pub moves_worktree: Option<String>,
    /// `worktree prune` (not `--dry-run`): deletes the records of worktrees
    /// whose `.git` file is gone.
    pub prunes_worktrees: bool,
    /// `clean -ff`: nested repositories (untracked directories with a
    /// `.git`) are deleted too, their history with them; `Some(true)` when
    /// ignored ones are (`-x`, `-X`).
    pub removes_repositories: Option<bool>,
    /// The command discards work inside submodules' working trees
    /// (`submodule deinit --force`, `submodule update --force`, a
    /// destructive `reset`, `checkout`, `switch`, `restore` or `read-tree`
    /// that recurses into submodules, by option or `submodule.recurse`),
    /// which a checkpoint of the superproject cannot hold; `Some(true)`
    /// when their untracked files go too (`deinit`).
    pub reaches_submodules: Option<bool>,
    /// Files the command writes over whatever is there, outside git's own
    /// bookkeeping (`diff --output=<file>`, `archive -o`, `mailinfo <msg>
    /// <patch>`), as written: relative to where the command runs.
    pub writes_files: Vec<String>,
    /// Writes files the command line does not name, wherever its input
    /// says (`apply --unsafe-paths`): why, as a clause.
    pub writes_anywhere: Option<String>,
    /// Directories the command makes a repository or working tree in, as
    /// written: `init [<dir>]` (`.` alone), `clone <repo> [<dir>]`, their
    /// `--separate-git-dir`, `worktree add <path>`.
    pub new_trees: Vec<String>,
    /// The template directory `init --template=<dir>` names: its files are
    /// copied into a git directory that lacks them, an existing one too.
    pub templates: Option<String>,
    /// What `remote add|remove|rename` does to a remote: an agent's added
    /// remote is recorded as its own (protected branches never sync from
    /// it), and the record follows a rename or goes with a removal.
    pub remote_change: Option<RemoteChange>,
    /// Syncing from a remote (`fetch`, `pull`, `merge --ff-only` of
    /// remote-tracking refs).
    pub syncs: bool,
    /// A `fetch` that prunes: `--prune` or `--prune-tags`, or else the
    /// config that turns them on for its remote (`remote.<name>.prune`,
    /// `fetch.prune` and their `pruneTags`). The shim runs it as written,
    /// not as one ref transaction (see `shim/fetch.rs`).
    pub fetch_prunes: bool,
    /// A `merge` that may fast-forward, of one revision a fast-forward to
    /// which is syncing: the current branch's upstream (`@{upstream}` for
    /// a bare `git merge`) or a remote-tracking branch of its name
    /// (`origin/main` on `main`). Syncing if it is a fast-forward, which
    /// [`crate::decide::Facts::fast_forward`] says; making commits if not.
    pub ff_target: Option<String>,
    /// A `pull` that merges or rebases into the current branch (not
    /// `--ff-only`): on a protected branch it is run fast-forward only.
    pub pull_integrates: bool,
    /// Config the command sets that says where a branch syncs from
    /// (`remote.<name>.url`, `url.<base>.insteadof`, `branch.<name>.merge`
    /// and `.remote`), as keys: by `git config`, `-c`, the environment,
    /// `remote add|set-url|rename`, `branch -u`, `push -u`.
    pub repoints: Vec<String>,
    /// False for commands that need no repository (`--version`, `clone`, `init`, `config --global`).
    pub needs_repo: bool,
    /// `refs migrate --ref-format=files`: the way out of a reftable
    /// repository, where git-ward reads refs only through git.
    pub migrates_to_files: bool,
}

/// The git command an operation name stands for, as a denial names it:
/// `git.commit` is `commit`.
pub fn command_word(operation: &str) -> &str {
    operation.strip_prefix("git.").unwrap_or(operation)
}

impl Action {
    /// The command as a denial names it (`commit`; `git` when none).
    pub fn word(&self) -> &str {
        if self.command.is_empty() {
            "git"
        } else {
            &self.command
        }
    }

    /// `git.commit`, as the audit log names operations.
    pub fn operation(&self) -> String {
        if self.command.is_empty() {
            "git".to_string()
        } else {
            format!("git.{}", self.command)
        }
    }

    /// Can the command replace or delete ignored files without being
    /// destructive? Writing another commit's files into the working tree
    /// (a checkout of another commit, a merge, a pick), git refuses to
    /// overwrite changes and untracked files, but replaces ignored files in
    /// the way without a word (so do `stash apply`/`branch`, which write a
    /// stash's files, and `bisect`, which checks out commits);
    /// `worktree remove` refuses a worktree with
    /// changes or untracked files, but deletes its ignored files with it;
    /// `sparse-checkout` deletes a directory it takes out of the working
    /// tree when all it holds besides is ignored.
    pub fn may_drop_ignored(&self) -> bool {
        self.effect != Effect::Read
            && self.destructive.is_none()
            && (self.checkout.is_some()
                || self.removes_worktree.is_some()
                || matches!(
                    self.command.as_str(),
                    "merge"
                        | "pull"
                        | "cherry-pick"
                        | "revert"
                        | "am"
                        | "stash"
                        | "bisect"
                        | "sparse-checkout"
                ))
    }

    /// The commit a checkout moves to, as git resolves it from the command
    /// line; `None` when it is not known before the command runs.
    pub fn incoming(&self) -> Option<String> {
        Some(match self.checkout.as_ref()? {
            CheckoutTarget::Local(name) => format!("refs/heads/{name}"),
            CheckoutTarget::Special(name) if name == "-" => "@{-1}".into(),
            CheckoutTarget::Remote(name) | CheckoutTarget::Special(name) => name.clone(),
            CheckoutTarget::Detach(rev) => rev.clone(),
            // A new branch starts where its ref write says, else at HEAD.
            CheckoutTarget::New(_) => self
                .refs
                .iter()
                .find_map(|w| w.start.clone())
                .unwrap_or_else(|| "HEAD".into()),
        })
    }

    /// 0 for read-only, 1 for state-changing.
    pub fn tier(&self) -> u8 {
        match self.effect {
            Effect::Read => 0,
            _ => 1,
        }
    }

    /// A read-only action of the given command (a helper for tables).
    pub fn read(command: &str) -> Self {
        Action {
            command: command.to_string(),
            alias: None,
            alias_given: false,
            effect: Effect::Read,
            creates_commits: false,
            refs: Vec::new(),
            destructive: None,
            unstages: false,
            paths: None,
            from_tree: false,
            hooks_off: None,
            push: None,
            checkout: None,
            removes_worktree: None,
            moves_worktree: None,
            prunes_worktrees: false,
            removes_repositories: None,
            reaches_submodules: None,
            writes_files: Vec::new(),
            writes_anywhere: None,
            new_trees: Vec::new(),
            templates: None,
            remote_change: None,
            syncs: false,
            fetch_prunes: false,
            ff_target: None,
            pull_integrates: false,
            repoints: Vec::new(),
            needs_repo: true,
            migrates_to_files: false,
        }
    }

    /// A mutating action of the given command with nothing else set.
    pub fn mutating(command: &str) -> Self {
        Action {
            effect: Effect::Mutating,
            ..Action::read(command)
        }
    }
}
