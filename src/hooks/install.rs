//! The hook files of `git ward install` and `git ward uninstall` (whose
//! command faces are `commands/install.rs`).
//!
//! Each hook is a two-line file whose first line starts git-ward by an
//! absolute path (`own_path`: its link on PATH, else its own path;
//! `#!/path/to/git-ward hook`): the
//! kernel runs git-ward directly, with no shell, and when that path is gone
//! git cannot start the hook and fails closed (the commit or ref update is
//! refused, and `git ward doctor` says why) until the shim, found on PATH,
//! points the hooks at itself ([`repoint`]). Where the path cannot stand in
//! a `#!` line (blanks, or too long for older kernels), the hook is a small
//! `/bin/sh` script instead, which also finds `git-ward` on PATH and fails
//! closed with a message. Not a link: git silently skips a hook whose link
//! points nowhere, which would fail open (`--link` still offers it; the
//! measurements are in BENCHMARKS.md). A hook that was
//! there before is moved aside to `<name>.ward-orig` in the same directory
//! (so its own relative paths keep working) and git-ward runs it after its
//! own check, with the same arguments and stdin. `uninstall` removes only
//! git-ward's scripts and renames every original back, byte for byte.
//! What was installed is noted in `<git-common-dir>/ward/install.json`,
//! which [`health`] reads to notice hooks that went missing.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, IoContext, Result};
pub(crate) use crate::facts::install_record::same_file;
use crate::facts::install_record::{
    manifest_of, manifest_path, own_hooks_dir, read_manifest, resolved, run_elsewhere, Manifest,
};
use crate::facts::install_record::{ours, MARKER};
use crate::git::Git;
use crate::hook_table::{self, Side};

/// What happened to one hook.
#[derive(Debug, Serialize)]
pub struct HookReport {
    pub name: String,
    /// installed, updated, unchanged, chained (installed, keeping the original),
    /// removed, restored, left (not git-ward's), absent.
    pub action: String,
}

/// The name a foreign hook is kept under.
pub fn chained_name(name: &str) -> String {
    format!("{name}.ward-orig")
}

/// git in the repository at `cwd`, and whether it is bare. Outside a
/// repository: an invalid argument, as for the tool's other commands.
fn repository_git(cwd: &Path) -> Result<(Git, bool)> {
    let git = Git::locate()?.in_dir(cwd);
    let out = git.output(["rev-parse", "--is-bare-repository"])?;
    if !out.status.success() {
        return Err(Error::invalid(
            "not in a git repository",
            "run it inside the repository (a bare one for `--server`)",
        ));
    }
    let bare = String::from_utf8_lossy(&out.stdout).trim() == "true";
    Ok((git, bare))
}

/// Where git runs the hooks of the repository `git` is in, as git says
/// now, and its common git directory; unless `force`, refused where
/// `core.hooksPath` or the directory's place makes it no safe home for
/// them. Paths are read as git writes them, bytes and all.
fn hooks_dir(git: &Git, force: bool) -> Result<(PathBuf, PathBuf)> {
    let common = git.run_path(["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
    let dir = git.run_path(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])?;
    // Never a directory made up: the hooks go where the repository is.
    if !common.is_dir() {
        return Err(Error::internal(format!(
            "git names {} as this repository's git directory, and it is not a directory",
            common.display()
        )));
    }
    let out = git.output(["config", "--show-scope", "--get", "core.hooksPath"])?;
    // husky's directory: git runs the hooks from there whatever git-ward
    // does, and husky rewrites only the hooks it knows (not
    // reference-transaction); its scripts are where the rest goes
    // (`managers::advice`).
    let husky = super::managers::is_husky_dir(&dir);
    if out.status.success() && !force && !husky {
        let text = String::from_utf8_lossy(&out.stdout);
        let (scope, value) = text.trim().split_once('\t').unwrap_or(("", text.trim()));
        let why = if !(value.starts_with('/') || value.starts_with('~')) {
            Some(format!("core.hooksPath = {value} is relative: git resolves it in each working tree, and a tree an agent edits can change it"))
        } else if !matches!(scope, "local" | "worktree") {
            Some(format!("core.hooksPath = {value} is set in the {scope} config: installing there would change the hooks of every repository that uses it"))
        } else if !dir.starts_with(&common) {
            Some(format!("core.hooksPath = {value} is outside this repository's git directory and may be shared with other repositories"))
        } else {
            None
        };
        if let Some(why) = why {
            // Unset where it is set (`git config --global --unset ...`).
            let unset = match scope {
                "global" | "system" | "worktree" => {
                    format!("git config --{scope} --unset core.hooksPath")
                }
                _ => "git config --unset core.hooksPath".to_string(),
            };
            return Err(Error::invalid(
                format!("not installing: {why}"),
                format!("unset it (`{unset}`) and install again, or pass --force to install into it anyway"),
            ));
        }
    }
    if let (false, false, Some((why, fix))) = (force, husky, in_working_tree(git, &dir, &common)) {
        return Err(Error::invalid(
            format!("not installing: {why}"),
            format!("make {} a directory of its own, outside the working tree, and install again, or pass --force to install into it anyway", fix.display()),
        ));
    }
    Ok((dir, common))
}

/// Why the hooks directory `dir` is no place for git-ward's hooks: it
/// resolves, through links, inside a working tree of the repository,
/// where an agent's allowed `git clean` or `git checkout` can delete or
/// replace them (the git directory, though inside the top of one, is no
/// part of it). `None` when it lies elsewhere; else why, and the path to
/// make a directory of its own (git names `dir` with links resolved: the
/// link is most often `<git-common-dir>/hooks`).
fn in_working_tree(git: &Git, dir: &Path, common: &Path) -> Option<(String, PathBuf)> {
    let real = resolved(dir);
    if real.starts_with(resolved(common)) {
        return None;
    }
    let tops = crate::facts::worktrees::Existing::read(git).tops;
    let top = tops.iter().find(|top| real.starts_with(resolved(top)))?;
    let default = common.join("hooks");
    let (link, fix) = match std::fs::read_link(&default) {
        Ok(target) if resolved(&default) == real => (
            format!("{} is a link to {}: ", default.display(), target.display()),
            default,
        ),
        _ => (String::new(), dir.to_path_buf()),
    };
    let why = format!(
        "{link}git runs the hooks from {}, inside the working tree {}, where an agent's `git clean` or `git checkout` can delete or replace them",
        real.display(),
        top.display()
    );
    Some((why, fix))
}

/// Where git runs the hooks of the repository at `cwd`, and, when that is
/// no place for git-ward's ([`in_working_tree`]), why and what to fix, for
/// `git ward doctor`.
pub fn hooks_place(cwd: &Path) -> Result<(PathBuf, Option<(String, PathBuf)>)> {
    let (git, _) = repository_git(cwd)?;
    let (dir, common) = hooks_dir(&git, true)?;
    let why = in_working_tree(&git, &dir, &common);
    Ok((dir, why))
}

/// Installs the hooks in the repository at `cwd` (`server`: pre-receive only).
pub fn install(
    cwd: &Path,
    server: bool,
    force: bool,
    form: Form,
) -> Result<(PathBuf, Vec<HookReport>)> {
    let (git, bare) = repository_git(cwd)?;
    if bare && !server {
        return Err(Error::invalid(
            "this is a bare repository: its hooks are the server's",
            "run `git ward install --server` to install pre-receive",
        ));
    }
    let (dir, common) = hooks_dir(&git, force)?;
    let binary = own_path()?;
    std::fs::create_dir_all(&dir).at("create the directory", &dir)?;
    let side = if server { Side::Server } else { Side::Client };
    let names: Vec<&str> = hook_table::on(side).collect();
    let mut reports = Vec::new();
    // lefthook moves git-ward's hooks aside on its next sync: its own
    // config runs git-ward's gates from then on.
    let top = (!server)
        .then(|| git.run_path(["rev-parse", "--show-toplevel"]).ok())
        .flatten();
    if let Some(file) = top.as_deref().and_then(|top| {
        let exclude = common.join("info").join("exclude");
        super::managers::wire_lefthook(top, &binary, &exclude)
    }) {
        reports.push(HookReport {
            name: file.display().to_string(),
            action: "runs git-ward's gates (lefthook)".to_string(),
        });
    }
    for name in names.iter().copied() {
        let shortcut = dir == common.join("hooks");
        let one = Place {
            dir: &dir,
            top: top.as_deref(),
        };
        reports.push(install_one(one, name, &binary, force, form, shortcut)?);
    }
    let mut manifest = read_manifest(&common).unwrap_or_default();
    manifest.hooks_dir = dir.clone();
    manifest.binary = binary;
    for name in names {
        if !manifest.hooks.iter().any(|h| h == name) {
            manifest.hooks.push(name.to_string());
        }
    }
    write_manifest(&common, &manifest)?;
    crate::facts::context::record_config_home(&common);
    if !server {
        // The guarded refs as they are now: drift is measured from here.
        let repo = crate::facts::Repo::discover();
        if let Ok(policy) = crate::facts::load_policy(repo.as_ref(), false) {
            crate::facts::drift::check(&common, &mut |r| policy.is_protected(r));
        }
    }
    Ok((dir, reports))
}

/// The path hooks and the shim name git-ward by: the `git-ward` found on
/// PATH when it is this very binary, else this binary's own path. A
/// package manager keeps the binary in a versioned directory and a link to
/// it on PATH (Homebrew's `Cellar`, a Nix profile); the link outlives an
/// upgrade, the versioned path does not, and a hook naming a path that is
/// gone refuses every commit until the next install.
pub(crate) fn own_path() -> Result<PathBuf> {
    let real = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Error::internal(format!("cannot find git-ward's own path: {e}")))?;
    let on_path = which::which("git-ward")
        .ok()
        .filter(|p| p.is_absolute() && same_file(p, &real));
    Ok(on_path.unwrap_or(real))
}

/// The hook file for `name`: the `#!` form where git-ward's path allows it,
/// else the `/bin/sh` `script`.
pub fn hook_file(name: &str, binary: &Path, shortcut: bool) -> String {
    match shebang(binary) {
        Some(line) => format!(
            "{line}\n{MARKER} `git ward uninstall` removes it and restores any hook it replaced.\n"
        ),
        None => script(name, binary, shortcut),
    }
}

/// `#!<binary> hook`, when the kernel would read it back whole: no blank or
/// control character in the path (the kernel splits the line at the first
/// blank), and short enough for the 128-byte limit of kernels before 5.1.
fn shebang(binary: &Path) -> Option<String> {
    let path = binary.to_str()?;
    let line = format!("#!{path} hook");
    let plain = !path.chars().any(|c| c.is_whitespace() || c.is_control());
    (plain && line.len() < 128).then_some(line)
}

/// The `/bin/sh` hook script for `name`.
///
/// `shortcut` (in the default hooks directory `<git-common-dir>/hooks`,
/// with no chained hook) lets the shell answer where nothing can need
/// git-ward, which saves starting it for most runs: reference-transaction's
/// `committed` and `aborted` states when `prepared` left no carry-over file
/// for this git process in `<git-common-dir>/ward/tx/<pid>-*`, and the
/// footer hooks when no contract is active (no `WARD_CONTRACT`, and no
/// contract file in the main worktree's `.git/ward/contract`; elsewhere,
/// git-ward looks).
fn script(name: &str, binary: &Path, shortcut: bool) -> String {
    let quoted = format!("'{}'", binary.display().to_string().replace('\'', "'\\''"));
    let shortcut = match (shortcut, name) {
        (true, "reference-transaction") => {
            "case $1 in committed|aborted) for f in \"${0%/*}/../ward/tx/$PPID\"-*; do [ -e \"$f\" ] && break; exit 0; done;; esac\n"
        }
        (true, "prepare-commit-msg" | "commit-msg" | "applypatch-msg") => {
            "[ -z \"$WARD_CONTRACT\" ] && [ -z \"${GIT_DIR+x}\" ] && [ -d .git ] && [ ! -e .git/ward/contract ] && exit 0\n"
        }
        _ => "",
    };
    format!(
        "#!/bin/sh\n\
         {MARKER} `git ward uninstall` removes it and restores any hook it replaced.\n\
         {shortcut}\
         w={quoted}\n\
         [ -x \"$w\" ] || w=$(command -v git-ward) || {{ echo \"ward: error: git-ward is missing ({quoted} and on PATH); {name} refuses until it is back\" >&2; echo \"hint: reinstall git-ward, or remove this hook ($0)\" >&2; exit 1; }}\n\
         WARD_HOOK_DIR=\"${{0%/*}}\" exec \"$w\" hook {name} \"$@\"\n"
    )
}

/// The form of the hook files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Form {
    /// A file naming git-ward by absolute path ([`hook_file`]): fails closed.
    #[default]
    File,
    /// A link to the binary: no shell, but fails open when the binary goes.
    Link,
}

fn is_ours(path: &Path) -> bool {
    ours(path).is_some()
}

/// Is the hook at `path` exactly what `install` would write now?
fn is_current(path: &Path, content: &str, binary: &Path, form: Form) -> bool {
    match form {
        Form::Link => std::fs::read_link(path).is_ok_and(|t| t == binary),
        Form::File => {
            std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
                && std::fs::read_to_string(path).is_ok_and(|t| t == content)
        }
    }
}

/// Where a hook is installed: the hooks directory, and the working tree's
/// top (where another manager's config lies), if any.
#[derive(Clone, Copy)]
struct Place<'a> {
    dir: &'a Path,
    top: Option<&'a Path>,
}

fn install_one(
    place: Place<'_>,
    name: &str,
    binary: &Path,
    force: bool,
    form: Form,
    default_dir: bool,
) -> Result<HookReport> {
    let dir = place.dir;
    let path = dir.join(name);
    let orig = dir.join(chained_name(name));
    let exists = std::fs::symlink_metadata(&path).is_ok();
    let chains = std::fs::symlink_metadata(&orig).is_ok() || (exists && !is_ours(&path));
    let shortcut = default_dir && !chains;
    let content = hook_file(name, binary, shortcut);
    let report = |action: &str| HookReport {
        name: name.to_string(),
        action: action.to_string(),
    };
    let mut action = "installed";
    let mut linked_orig = false;
    let runs_ward = |top: &Path| {
        hook_table::is_gate(name) && crate::facts::gates::runs_git_ward_at(top, dir, name)
    };
    if exists && !is_ours(&path) && place.top.is_some_and(runs_ward) {
        // Another manager's hook that runs git-ward's check itself (from
        // its own config, which its syncs keep): left as it is.
        return Ok(report("kept (runs git-ward)"));
    }
    if exists && is_ours(&path) {
        if is_current(&path, &content, binary, form) {
            return Ok(report("unchanged"));
        }
        action = "updated";
    } else if exists {
        if std::fs::symlink_metadata(&orig).is_ok() {
            if !force {
                return Err(Error::invalid(
                    format!("{} replaced git-ward's hook, and {} (the hook git-ward kept from before) is still there", path.display(), orig.display()),
                    "pass --force to keep the new hook (it will run after git-ward's check) and set the older one aside",
                ));
            }
            let aside = dir.join(format!("{}.{}", chained_name(name), std::process::id()));
            rename(&orig, &aside)?;
        }
        // A second name for the hook that was there, which stays in place
        // until git-ward's replaces it (renamed aside, git would skip the
        // hook for a moment: a commit at that moment would go unchecked).
        linked_orig = std::fs::hard_link(&path, &orig).is_ok();
        if !linked_orig {
            rename(&path, &orig)?;
        }
        action = "chained";
    }
    // Written beside the hook and renamed over it: at every moment git finds
    // either the old hook or the new one, never none.
    let tmp = path.with_extension(format!("ward-tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp); // left by a run that was killed
    let written = match form {
        Form::File => write_executable(&tmp, &content),
        Form::Link => symlink(binary, &tmp),
    };
    if let Err(err) = written.and_then(|()| rename(&tmp, &path)) {
        let _ = std::fs::remove_file(&tmp);
        if linked_orig {
            // The hook that was there is still in place: as before.
            let _ = std::fs::remove_file(&orig);
        }
        return Err(err);
    }
    Ok(report(action))
}

pub(crate) fn current_dir() -> Result<PathBuf> {
    std::env::current_dir().doing("read the current directory")
}

fn rename(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to).at(&format!("rename {} to", from.display()), to)
}

pub(crate) fn symlink(target: &Path, link: &Path) -> Result<()> {
    std::os::unix::fs::symlink(target, link).at("create the link", link)
}

fn write_executable(path: &Path, content: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, content).at("write", path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .at("make executable", path)
}

/// Removes git-ward's hooks from the repository at `cwd`, restoring originals.
pub fn uninstall(cwd: &Path) -> Result<(PathBuf, Vec<HookReport>)> {
    let (git, _) = repository_git(cwd)?;
    let (now, common) = hooks_dir(&git, true)?;
    let tops = crate::facts::worktrees::Existing::read(&git).tops;
    let own: Vec<&Path> = std::iter::once(common.as_path())
        .chain(tops.iter().map(PathBuf::as_path))
        .collect();
    let dir = match read_manifest(&common) {
        Some(manifest) => own_hooks_dir(&manifest.hooks_dir, &now, &own),
        None => now,
    };
    let mut reports = uninstall_in(&dir)?;
    // Hooks an earlier install left where git ran them then (before
    // another manager pointed `core.hooksPath` elsewhere).
    let default = common.join("hooks");
    if !same_file(&default, &dir) {
        let found = uninstall_in(&default)?;
        reports.extend(found.into_iter().filter(|r| r.action != "left"));
    }
    if let Ok(top) = git.run_path(["rev-parse", "--show-toplevel"]) {
        let changed = super::managers::unwire_lefthook(&top)
            .and_then(|c| {
                super::managers::unexclude(&common.join("info").join("exclude")).map(|()| c)
            })
            .map_err(|e| Error::internal(format!("cannot restore lefthook's local config: {e}")))?;
        for path in changed {
            reports.push(HookReport {
                name: path.display().to_string(),
                action: "restored".to_string(),
            });
        }
    }
    let ward = common.join("ward");
    for file in [
        "install.json",
        "hook-cache.json",
        "team-policy.cache",
        "gates.seen",
        "guarded-refs",
        "guarded-refs.seen",
        "guarded-refs.lock",
    ] {
        let _ = std::fs::remove_file(ward.join(file));
    }
    Ok((dir, reports))
}

/// Removes git-ward's hooks from the hooks directory `dir`, restoring
/// originals, and git-ward's files another manager kept aside.
fn uninstall_in(dir: &Path) -> Result<Vec<HookReport>> {
    let mut reports = Vec::new();
    for name in hook_table::names() {
        let path = dir.join(name);
        let orig = dir.join(chained_name(name));
        let ours = is_ours(&path);
        let has_orig = std::fs::symlink_metadata(&orig).is_ok();
        let action = if ours {
            if has_orig {
                // One rename: git finds one hook or the other, never none.
                rename(&orig, &path)?;
                "restored"
            } else {
                std::fs::remove_file(&path).at("remove", &path)?;
                "removed"
            }
        } else if std::fs::symlink_metadata(&path).is_ok() {
            if has_orig && same_bytes(&path, &orig) {
                // Another manager wrote its hook again over git-ward's:
                // the copy kept from before is the same file.
                std::fs::remove_file(&orig).at("remove", &orig)?;
            } else if has_orig {
                crate::output::errln!(
                    "ward: warning: {} is not git-ward's; the hook git-ward kept from before stays at {}",
                    path.display(),
                    orig.display()
                );
            }
            "left"
        } else if has_orig {
            rename(&orig, &path)?;
            "restored"
        } else {
            continue;
        };
        reports.push(HookReport {
            name: name.to_string(),
            action: action.to_string(),
        });
    }
    // git-ward's hook files another manager kept aside (`pre-commit.old`,
    // `pre-commit.legacy`): none is left behind.
    for path in super::managers::stray(dir, &[]) {
        std::fs::remove_file(&path).at("remove", &path)?;
        reports.push(HookReport {
            name: path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            action: "removed".to_string(),
        });
    }
    Ok(reports)
}

/// Do the files at `a` and `b` hold the same bytes?
fn same_bytes(a: &Path, b: &Path) -> bool {
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

fn write_manifest(common: &Path, manifest: &Manifest) -> Result<()> {
    let path = manifest_path(common);
    let text =
        serde_json::to_string_pretty(manifest).map_err(|e| Error::internal(e.to_string()))? + "\n";
    if std::fs::read_to_string(&path).is_ok_and(|t| t == text) {
        return Ok(());
    }
    crate::state_file::replace(&path, text.as_bytes()).map_err(|e| {
        Error::internal(format!("cannot write {}: {e}", path.display())).with_hint(format!(
            "make {} a file git-ward can write (move away what is there), then run `git ward install` again",
            path.display()
        ))
    })
}

/// Warnings about this repository's git-ward hooks: installed once, but now
/// missing or overwritten by another hook manager. Empty when all is well
/// or when git-ward was never installed here. Cheap: a few small file reads.
pub fn health(repo: &crate::facts::Repo) -> Vec<String> {
    let Some(manifest) = manifest_of(repo) else {
        return Vec::new();
    };
    if let Some(elsewhere) = run_elsewhere(repo, &manifest) {
        return vec![elsewhere];
    }
    manifest
        .hooks
        .iter()
        .filter_map(|name| {
            let path = manifest.hooks_dir.join(name);
            if let Some(starts) = ours(&path) {
                let gone = starts_nothing(&path, starts.as_deref())?;
                Some(match starts {
                    Some(_) => format!("git-ward's {name} hook starts {}, which is gone: git refuses every command that runs it; run `git ward doctor --fix`", gone.display()),
                    None => format!("git-ward's {name} hook is a link to {}, which is gone: git skips it, and nothing is checked; run `git ward doctor --fix`", gone.display()),
                })
            } else if std::fs::symlink_metadata(&path).is_ok() {
                Some(format!("git-ward's {name} hook was replaced by another ({}); run `git ward doctor --fix`", path.display()))
            } else {
                Some(format!("git-ward's {name} hook is missing ({}); run `git ward doctor --fix`", path.display()))
            }
        })
        .collect()
}

/// The program a hook of git-ward's would start, when it is not there:
/// the `#!` line's (`program`), or a link's target.
fn starts_nothing(path: &Path, program: Option<&Path>) -> Option<PathBuf> {
    let target = match program {
        Some(program) => program.to_path_buf(),
        None => std::fs::read_link(path).ok()?,
    };
    let runs = match program {
        Some(program) => std::fs::metadata(program),
        None => std::fs::metadata(path),
    }
    .is_ok_and(|m| m.is_file());
    (!runs).then_some(target)
}

/// The hooks of git-ward's here that start a binary which is gone (moved
/// by hand, or an old version removed), pointed at the git-ward running
/// now: the shim, which PATH found as `git`. This is the hooks' PATH
/// fallback: the kernel starts a `#!` line's program with no search, so a
/// hook cannot look for git-ward itself without a shell on every run;
/// until a git-ward runs here again, git cannot start the hook and
/// refuses (fails closed). `Some((old, new))` when hooks were repointed.
pub fn repoint(repo: &crate::facts::Repo) -> Result<Option<(PathBuf, PathBuf)>> {
    let common = repo.common_dir();
    let Some(mut manifest) = manifest_of(repo) else {
        return Ok(None);
    };
    let dir = manifest.hooks_dir.clone();
    let stale: Vec<(&String, PathBuf, Form)> = manifest
        .hooks
        .iter()
        .filter_map(|name| {
            let path = dir.join(name);
            let starts = ours(&path)?;
            let gone = starts_nothing(&path, starts.as_deref())?;
            let form = if starts.is_some() {
                Form::File
            } else {
                Form::Link
            };
            Some((name, gone, form))
        })
        .collect();
    let Some((_, old, _)) = stale.first() else {
        return Ok(None);
    };
    let old = old.clone();
    let binary = own_path()?;
    for (name, _, form) in &stale {
        let place = Place {
            dir: &dir,
            top: None,
        };
        install_one(
            place,
            name,
            &binary,
            false,
            *form,
            dir == common.join("hooks"),
        )?;
    }
    manifest.binary = binary.clone();
    write_manifest(common, &manifest)?;
    Ok(Some((old, binary)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_file_starts_git_ward_itself_where_the_path_allows() {
        let text = hook_file("pre-commit", Path::new("/opt/bin/git-ward"), true);
        assert_eq!(text.lines().next(), Some("#!/opt/bin/git-ward hook"));
        assert!(text.lines().nth(1).unwrap().starts_with(MARKER));
        // Blanks split a `#!` line; long lines are cut by older kernels.
        let long = format!("/{}/git-ward", "d".repeat(120));
        for path in ["/opt/my bin/git-ward", "/opt/t\tb/git-ward", long.as_str()] {
            let text = hook_file("commit-msg", Path::new(path), false);
            assert!(text.starts_with("#!/bin/sh\n"), "{path}: {text}");
            assert!(text.contains("hook commit-msg \"$@\""), "{text}");
        }
    }
}
