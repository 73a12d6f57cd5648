//! The git running this hook: its command line (`/proc/<ppid>/cmdline`),
//! and whether git-ward started it for itself.
//!
//! The other half of [`crate::git::own`]: the descriptor `WARD_OWN_FD`
//! names must be a pipe, and the nearest git-ward process above the hook
//! (the git's parent, or a little higher through a shell) must hold that
//! same pipe close-on-exec. An agent can copy the variable, and can hand
//! its git a pipe of its own; it cannot make a git-ward process hold that
//! pipe, nor obtain git-ward's through git. Read from `/proc`: elsewhere
//! the answer is no, and git-ward's own checkpoints are written as a
//! person's (see SECURITY.md).

use std::path::PathBuf;

/// Ancestors looked at above the git that runs the hook.
const HOPS: usize = 4;

/// Did git-ward start the git that runs this hook, for itself?
pub fn started_by_ward() -> bool {
    cfg!(target_os = "linux") && check().unwrap_or(false)
}

fn check() -> Option<bool> {
    let fd: u32 = crate::env::var(crate::env::WARD_OWN_FD)?.parse().ok()?;
    let pipe = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    if !pipe.to_string_lossy().starts_with("pipe:") {
        return Some(false);
    }
    let me = std::fs::metadata("/proc/self/exe").ok()?;
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..HOPS {
        pid = parent_of(pid)?;
        if pid <= 1 {
            return Some(false);
        }
        if is_ward(pid, &me) {
            return Some(holds_closed_on_exec(pid, &pipe));
        }
    }
    Some(false)
}

/// Field `n` (from 0) after the command name of a `/proc/<pid>/stat`
/// line, as a number: the name (field 2) is in parentheses and may hold
/// any byte, parentheses and spaces too, so the fields start after the
/// last `)`. 1 is the parent's pid, 19 the start time in clock ticks.
pub(crate) fn stat_number(stat: &[u8], n: usize) -> Option<u64> {
    let end = stat.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(&stat[end + 1..]).ok()?;
    rest.split_ascii_whitespace().nth(n)?.parse().ok()
}

/// The name (field 2, between the first `(` and the last `)`) and the
/// state (field 3: `R`, `S`, `Z` ...) of a `/proc/<pid>/stat` line.
pub(crate) fn stat_name_and_state(stat: &[u8]) -> Option<(String, char)> {
    let open = stat.iter().position(|b| *b == b'(')?;
    let end = stat.iter().rposition(|b| *b == b')')?;
    let name = String::from_utf8_lossy(stat.get(open + 1..end)?).into_owned();
    let rest = std::str::from_utf8(&stat[end + 1..]).ok()?;
    let state = rest.split_ascii_whitespace().next()?.chars().next()?;
    Some((name, state))
}

/// Field `n` of process `pid`'s stat line ([`stat_number`]).
fn stat_of(pid: u32, n: usize) -> Option<u64> {
    stat_number(
        &crate::state_file::read_proc(format!("/proc/{pid}/stat")).ok()?,
        n,
    )
}

/// A process's parent, from `/proc/<pid>/stat`.
pub(crate) fn parent_of(pid: u32) -> Option<u32> {
    u32::try_from(stat_of(pid, 1)?).ok()
}

/// When a process started, in clock ticks since boot: with its pid, a
/// name no later process has.
pub(crate) fn start_ticks(pid: u32) -> Option<u64> {
    stat_of(pid, 19)
}

/// Does process `pid` run git-ward: this very file, or a copy of it?
fn is_ward(pid: u32, me: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    let exe = PathBuf::from(format!("/proc/{pid}/exe"));
    let Ok(theirs) = std::fs::metadata(&exe) else {
        return false;
    };
    if (theirs.dev(), theirs.ino()) == (me.dev(), me.ino()) {
        return true;
    }
    theirs.len() == me.len()
        && matches!(
            (std::fs::read(&exe), std::fs::read("/proc/self/exe")),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Does process `pid` hold `pipe` on a descriptor marked close-on-exec
/// (made by it, not inherited from whoever started it)?
fn holds_closed_on_exec(pid: u32, pipe: &std::path::Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|t| t == pipe) && {
            let info = format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy());
            std::fs::read_to_string(info).is_ok_and(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("flags:"))
                    .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                    .is_some_and(|flags| flags & libc::O_CLOEXEC as u32 != 0)
            })
        }
    })
}

/// The git command line that ran this hook (the parent's argv), for audit
/// lines: read once per run, however many steps ask.
pub fn parent_argv() -> Vec<String> {
    static ARGV: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ARGV.get_or_init(|| argv_of(std::os::unix::process::parent_id()))
        .clone()
}

/// The command line of process `pid`, from `/proc` (empty when gone).
pub(crate) fn argv_of(pid: u32) -> Vec<String> {
    crate::state_file::read_proc(format!("/proc/{pid}/cmdline"))
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The git subcommand that ran this hook, as an operation (`git.commit`),
/// read from the parent's argv past git's global options.
pub fn parent_operation(argv: &[String]) -> String {
    // A dashed builtin (`git-receive-pack`, as transports start it) names
    // itself.
    let program = argv
        .first()
        .map_or("", |a| a.rsplit('/').next().unwrap_or(a));
    if let Some(builtin) = program
        .strip_prefix("git-")
        .filter(|b| crate::classify::is_command(b))
    {
        return format!("git.{builtin}");
    }
    let mut it = argv.iter().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
            | "--exec-path" => {
                it.next();
            }
            a if a.starts_with('-') => {}
            a => return format!("git.{a}"),
        }
    }
    "git".to_string()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A name may hold blanks and parentheses: it ends at the last `)`.
    #[test]
    fn a_stat_line_gives_its_name_and_state() {
        let line = b"42 (git (x) y) Z 1 42 42 0 -1";
        assert_eq!(stat_name_and_state(line), Some(("git (x) y".into(), 'Z')));
        assert_eq!(stat_number(line, 1), Some(1));
        assert_eq!(stat_name_and_state(b"42 git S 1"), None);
    }

    #[test]
    fn parents_are_read_past_odd_names() {
        assert_eq!(
            parent_of(std::process::id()),
            Some(std::os::unix::process::parent_id())
        );
        assert_eq!(parent_of(u32::MAX), None);
    }

    #[test]
    fn only_a_pipe_made_here_close_on_exec_counts() {
        let mut fds = [-1; 2];
        // SAFETY: pipe2/pipe write two descriptors into `fds`.
        assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
        let me = std::process::id();
        let link = |fd: i32| std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        assert!(holds_closed_on_exec(me, &link(fds[0])));
        let mut open = [-1; 2];
        // SAFETY: as above.
        assert_eq!(unsafe { libc::pipe(open.as_mut_ptr()) }, 0);
        assert!(!holds_closed_on_exec(me, &link(open[0])));
        for fd in fds.into_iter().chain(open) {
            // SAFETY: closing descriptors this test made.
            unsafe { libc::close(fd) };
        }
    }
}
