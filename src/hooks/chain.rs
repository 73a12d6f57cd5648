//! Whether this hook runs inside a chain that a git-ward hook of the same
//! name started: hook managers chain each other's hooks, and when git-ward
//! is installed on both sides (`git ward install`, then `pre-commit
//! install`, which keeps ours as `pre-commit.legacy`, then `git ward
//! install` again, which keeps pre-commit's as `pre-commit.ward-orig`),
//! each would run the other forever. The inner run of git-ward checks
//! and stops: the outer one already runs the chain.
//!
//! Read from `/proc`: the ancestors between this process and the git that
//! ran the hooks. An environment variable would do, but an agent could set
//! it on its own git and skip the chained hooks.

use std::path::Path;

/// How many ancestors are looked at before giving up (a hook manager's
/// shell, its interpreter, a wrapper: a handful).
const DEPTH: usize = 8;

/// Is an ancestor of this process, below the nearest git, a git-ward hook
/// running as `name`?
pub fn inside_own_chain(name: &str) -> bool {
    let Ok(own) = std::env::current_exe() else {
        return false;
    };
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..DEPTH {
        if pid <= 1 {
            return false;
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        let argv = super::argv_of(pid);
        if exe.as_deref() == Some(own.as_path()) {
            if running_as(&argv) == Some(name) {
                return true;
            }
        } else if is_git(exe.as_deref(), &argv) {
            return false;
        }
        match crate::facts::starter::parent_of(pid) {
            Some(parent) => pid = parent,
            None => return false,
        }
    }
    false
}

/// The hook a git-ward command line runs: `git-ward hook <name|path> ...`
/// or a hook's own path as `argv[0]` (a link to git-ward).
fn running_as(argv: &[String]) -> Option<&'static str> {
    let file = |arg: &String| {
        Path::new(arg)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
    };
    match argv {
        [_, hook, given, ..] if hook == "hook" => super::hook_named(&file(given)?),
        [first, ..] => super::hook_named(&file(first)?),
        [] => None,
    }
}

/// Is this process git itself (whose hooks these are)?
fn is_git(exe: Option<&Path>, argv: &[String]) -> bool {
    let named_git = |p: &Path| p.file_name().is_some_and(|f| f == "git");
    exe.is_some_and(named_git) || argv.first().is_some_and(|a| named_git(Path::new(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_git_ward_command_line_names_the_hook_it_runs() {
        let cases = [
            (
                argv(&["/b/git-ward", "hook", "/r/.git/hooks/pre-commit"]),
                Some("pre-commit"),
            ),
            (
                argv(&["/b/git-ward", "hook", "pre-push", "o", "u"]),
                Some("pre-push"),
            ),
            (
                argv(&["/b/git-ward", "hook", "/h/pre-commit.legacy"]),
                Some("pre-commit"),
            ),
            (
                argv(&[".git/hooks/commit-msg.old", "m"]),
                Some("commit-msg"),
            ),
            (argv(&["/b/git-ward", "run", "--", "git"]), None),
            (argv(&[]), None),
        ];
        for (line, hook) in cases {
            assert_eq!(running_as(&line), hook, "{line:?}");
        }
    }

    #[test]
    fn git_is_known_by_its_program_or_its_argv0() {
        assert!(is_git(Some(Path::new("/usr/lib/git-core/git")), &[]));
        assert!(is_git(None, &argv(&["git", "commit"])));
        assert!(!is_git(
            Some(Path::new("/usr/bin/python3")),
            &argv(&["python3"])
        ));
    }

    #[test]
    fn a_hook_git_ran_is_not_inside_a_chain() {
        // The test binary's parent is cargo or a shell, never a git-ward hook.
        assert!(!inside_own_chain("pre-commit"));
    }
}
