//! Files written from their blobs as they are, where no conversion can
//! apply, each made in the directory it goes to. A checkout's file is a
//! new inode in its own directory; one made under `.git/ward` puts every
//! new inode of a restore in one place, where the last restore's were
//! freed (slow on a filesystem that skips recently freed inodes one by
//! one). Each file is made unnamed in its own directory (`O_TMPFILE`,
//! gone if the process dies), named in a scratch directory of the git
//! dir, then renamed into place: a killed restore leaves nothing in the
//! working tree.

use std::ffi::{CString, OsStr};
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::Entry;
use crate::checkpoint::Ctx;

/// `files` parted into those git's conversion may change on checkout (as
/// `checkout-index` runs for a restore) and those a checkout writes as
/// their blobs hold them. All may change under `core.autocrlf` (other
/// than false), `attr.tree`, `GIT_ATTR_SOURCE`, or where a
/// `.gitattributes` is among them; none without a source of attributes
/// (the working tree's above them, the git dir's, the system's); else
/// those `git check-attr` gives a conversion attribute.
pub(super) fn parted<'a>(ctx: &Ctx, files: Vec<&'a Entry>) -> (Vec<&'a Entry>, Vec<&'a Entry>) {
    let is_attributes = |p: &[u8]| p == b".gitattributes" || p.ends_with(b"/.gitattributes");
    if files.iter().any(|e| is_attributes(&e.raw))
        || crate::env::present("GIT_ATTR_SOURCE")
        || settings_convert(ctx)
    {
        return (files, Vec::new());
    }
    if !attributes_above(ctx, &files) {
        return (Vec::new(), files);
    }
    match with_attributes(ctx, &files) {
        Some(converted) => files
            .into_iter()
            .partition(|e| converted.contains(e.raw.as_slice())),
        None => (files, Vec::new()),
    }
}

/// Is there a source of attributes for any of `files`: the git dir's,
/// the system's, a `.gitattributes` in the working tree above one?
fn attributes_above(ctx: &Ctx, files: &[&Entry]) -> bool {
    use crate::checkpoint::attributes;
    let mut seen = std::collections::HashSet::new();
    attributes::outside_the_tree(ctx)
        || files
            .iter()
            .any(|e| attributes::above(ctx, &e.raw, &mut seen))
        || (!files.is_empty() && attributes::at(ctx, b""))
}

/// The paths of `files` with an attribute that converts on checkout set
/// to anything but unspecified or unset, from one `git check-attr`
/// (`None` where it fails).
fn with_attributes(ctx: &Ctx, files: &[&Entry]) -> Option<std::collections::HashSet<Vec<u8>>> {
    let mut input = Vec::new();
    for e in files {
        input.extend_from_slice(&e.raw);
        input.push(0);
    }
    let args = [
        "check-attr",
        "-z",
        "--stdin",
        "text",
        "eol",
        "crlf",
        "filter",
        "ident",
        "working-tree-encoding",
    ];
    let out = ctx.git.output_with(args, &[], Some(&input)).ok()?;
    if !out.status.success() {
        return None;
    }
    // `<path> NUL <attribute> NUL <value> NUL`, per path and attribute.
    let fields: Vec<&[u8]> = out.stdout.split(|b| *b == 0).collect();
    Some(
        fields
            .chunks_exact(3)
            .filter(|f| f[2] != b"unspecified" && f[2] != b"unset")
            .map(|f| f[0].to_vec())
            .collect(),
    )
}

/// Does the configuration git-ward's gits run with set `core.autocrlf`
/// (other than false) or `attr.tree`? Asked of git, which sees every
/// layer, the environment's too; an error counts as yes.
fn settings_convert(ctx: &Ctx) -> bool {
    let args = ["config", "--get-regexp", r"^(core\.autocrlf|attr\.tree)$"];
    let Ok(out) = ctx.git.output(args) else {
        return true;
    };
    match out.status.code() {
        Some(1) => false,
        Some(0) => String::from_utf8_lossy(&out.stdout).lines().any(|l| {
            let off = ["false", "no", "off", "0"];
            match l.split_once(' ') {
                Some(("core.autocrlf", v)) => !off.iter().any(|o| v.eq_ignore_ascii_case(o)),
                _ => true,
            }
        }),
        _ => true,
    }
}

/// The scratch directory fresh files are named in before they are renamed
/// into place (its owner's only); removed when dropped, or by the next
/// restore's sweep if killed.
pub(super) struct Names {
    dir: PathBuf,
    made: bool,
    /// Once a file could not be made or named so, the rest are not tried.
    unavailable: bool,
}

impl Names {
    pub(super) fn new(tmp_dir: &Path) -> Names {
        crate::checkpoint::snapshot::sweep(tmp_dir, "fresh-");
        Names {
            dir: tmp_dir.join(format!("fresh-{}", std::process::id())),
            made: false,
            unavailable: false,
        }
    }

    /// Makes `e`'s file with `content` in `dir` (where it goes), named
    /// `n` here; its name, or `None` where the filesystem or the system
    /// cannot (then the caller writes it otherwise).
    pub(super) fn make(
        &mut self,
        dir: &Path,
        n: usize,
        e: &Entry,
        content: &[u8],
    ) -> Option<PathBuf> {
        if self.unavailable {
            return None;
        }
        let made = self.try_make(dir, n, e, content);
        self.unavailable = made.is_none();
        made
    }

    fn try_make(&mut self, dir: &Path, n: usize, e: &Entry, content: &[u8]) -> Option<PathBuf> {
        if !self.made {
            let _ = std::fs::remove_dir_all(&self.dir);
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(&self.dir)
                .ok()?;
            self.made = true;
        }
        // As git creates a file: 0777 for an executable, else 0666, less
        // the umask; a private one its owner's only until given its bits.
        let mode = match (e.private, e.mode.as_str()) {
            (Some(_), _) => 0o600,
            (None, "100755") => 0o777,
            _ => 0o666,
        };
        let fd = tmpfile(dir, mode)?;
        let mut file = std::fs::File::from(fd);
        file.write_all(content).ok()?;
        if let Some(bits) = e.private {
            file.set_permissions(std::fs::Permissions::from_mode(bits))
                .ok()?;
        }
        let name = self.dir.join(n.to_string());
        link(&file, &name)?;
        Some(name)
    }
}

impl Drop for Names {
    fn drop(&mut self) {
        if self.made {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// An unnamed file in `dir` (`O_TMPFILE`): freed if the process dies.
fn tmpfile(dir: &Path, mode: libc::mode_t) -> Option<OwnedFd> {
    let dir = CString::new(dir.as_os_str().as_bytes()).ok()?;
    let flags = libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC;
    // SAFETY: `dir` is a valid C string; the result is checked.
    let fd = unsafe { libc::open(dir.as_ptr(), flags, mode) };
    // SAFETY: a descriptor `open` just returned, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Names an unnamed file at `to`, through `/proc/self/fd` (linking the
/// descriptor itself takes a privilege).
fn link(file: &std::fs::File, to: &Path) -> Option<()> {
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    let to = CString::new(OsStr::as_bytes(to.as_os_str())).ok()?;
    // SAFETY: valid C strings; the result is checked.
    let done = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    (done == 0).then_some(())
}
