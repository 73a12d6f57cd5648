//! Which face was started: the `git` shim, a hook, or the tool.
//!
//! Decided from `argv[0]` alone, before anything else: a shim must hand
//! git's arguments on untouched, so clap never sees them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The face this process shows.
#[derive(Debug, PartialEq, Eq)]
pub enum Role {
    /// `argv[0]` is `git`: everything after it is git's.
    Shim(Vec<OsString>),
    /// A hook: its name, the file name it was started as (the name, or
    /// the name a hook manager renamed it to), the directory it was
    /// started from (where a hook it replaced is kept), and git's
    /// arguments to it.
    Hook {
        name: String,
        file: String,
        dir: Option<PathBuf>,
        args: Vec<OsString>,
    },
    /// `git-ward <command>` or `git ward <command>`.
    Tool(Vec<OsString>),
}

/// Picks the face from the full argv.
pub fn role(mut argv: Vec<OsString>) -> Role {
    let argv0 = if argv.is_empty() {
        OsString::new()
    } else {
        argv.remove(0)
    };
    let name = Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "git" {
        return Role::Shim(argv);
    }
    // A hook installed as a link to git-ward: `argv[0]` is the hook's path
    // (renamed aside by a hook manager, it still runs as the hook it was).
    if let Some(hook) = crate::hooks::hook_named(&name) {
        let dir = Path::new(&argv0).parent().map(Path::to_path_buf);
        return Role::Hook {
            name: hook.to_string(),
            file: name,
            dir,
            args: argv,
        };
    }
    // `git-ward hook <name|path> ...`: straight to the hook, without building
    // the tool's command line parser (hooks run up to eight times per
    // commit). A hook file whose first line is `#!/path/to/git-ward hook`
    // arrives here with its own path; the `/bin/sh` form passes the name and
    // its directory in WARD_HOOK_DIR. A hook file another manager renamed
    // (`pre-commit.legacy`) runs as the hook its name starts with; one
    // whose name maps to no hook is refused by `hooks::run` (fails closed).
    if argv.len() >= 2 && argv[0] == "hook" {
        let given = Path::new(&argv[1]);
        let file = given
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = crate::hooks::hook_named(&file).map_or(file.clone(), str::to_string);
        let dir = match given.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => Some(parent.to_path_buf()),
            // A path, which need not be UTF-8.
            None => std::env::var_os(crate::env::WARD_HOOK_DIR)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from),
        };
        return Role::Hook {
            name,
            file,
            dir,
            args: argv.split_off(2),
        };
    }
    let mut full = vec![argv0];
    full.extend(argv);
    Role::Tool(full)
}

/// The program: pick the face, run it, map its result to an exit code here only.
pub fn main() -> u8 {
    init_diagnostics();
    let (result, refuses_git) = match role(crate::process::args()) {
        Role::Shim(args) => return crate::shim::main(args),
        // A hook that fails refuses the git command that ran it (fail closed).
        Role::Hook {
            name,
            file,
            dir,
            args,
        } => (crate::hooks::run(&name, &file, dir.as_deref(), &args), true),
        Role::Tool(argv) => (crate::cli::run(argv), false),
    };
    match result {
        Ok(code) => code,
        Err(err) if refuses_git => {
            crate::output::report_denial(&err);
            err.exit_code()
        }
        Err(err) => {
            crate::output::report(&err);
            err.exit_code()
        }
    }
}

/// Diagnostics on stderr, filtered by `WARD_LOG` (`WARD_LOG=debug`); quiet
/// and free when unset: no subscriber is built on the shim and hook path.
fn init_diagnostics() {
    let Some(filter) = crate::env::var(crate::env::WARD_LOG) else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .without_time()
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<OsString> {
        items.iter().map(OsString::from).collect()
    }

    #[test]
    fn argv0_picks_the_face() {
        let hook = |name: &str, dir: Option<&str>, args: &[&str]| Role::Hook {
            name: name.into(),
            file: name.into(),
            dir: dir.map(PathBuf::from),
            args: argv(args),
        };
        assert_eq!(
            role(argv(&["/x/shim/git", "status"])),
            Role::Shim(argv(&["status"]))
        );
        assert_eq!(
            role(argv(&["git", "-C", "d"])),
            Role::Shim(argv(&["-C", "d"]))
        );
        assert_eq!(
            role(argv(&[".git/hooks/pre-commit"])),
            hook("pre-commit", Some(".git/hooks"), &[])
        );
        assert_eq!(
            role(argv(&["/usr/bin/git-ward", "explain"])),
            Role::Tool(argv(&["/usr/bin/git-ward", "explain"]))
        );
        assert_eq!(role(vec![]), Role::Tool(argv(&[""])));
        // A name that maps to no hook reaches `hooks::run`, which refuses it.
        assert_eq!(
            role(argv(&["/b/git-ward", "hook", "nonsense"])),
            Role::Hook {
                name: "nonsense".into(),
                file: "nonsense".into(),
                dir: None,
                args: vec![],
            }
        );
        // The kernel starts a `#!/b/git-ward hook` file with its own path.
        assert_eq!(
            role(argv(&[
                "/b/git-ward",
                "hook",
                "/r/.git/hooks/pre-push",
                "o",
                "u"
            ])),
            hook("pre-push", Some("/r/.git/hooks"), &["o", "u"])
        );
        // Renamed aside by another hook manager: still the hook it was.
        for (file, name) in [
            ("pre-push.old", "pre-push"),
            ("pre-commit.legacy", "pre-commit"),
            ("commit-msg.ward-orig", "commit-msg"),
            ("reference-transaction~", "reference-transaction"),
        ] {
            let path = format!("/r/.git/hooks/{file}");
            assert_eq!(
                role(argv(&["/b/git-ward", "hook", &path, "x"])),
                Role::Hook {
                    name: name.into(),
                    file: file.into(),
                    dir: Some("/r/.git/hooks".into()),
                    args: argv(&["x"]),
                }
            );
            assert_eq!(
                role(argv(&[&path, "x"])),
                Role::Hook {
                    name: name.into(),
                    file: file.into(),
                    dir: Some("/r/.git/hooks".into()),
                    args: argv(&["x"]),
                }
            );
        }
    }
}
