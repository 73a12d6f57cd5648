//! Fetch refspecs, read the way git maps them, for the
//! reference-transaction hook: which remote branch a fetch writes a
//! remote-tracking ref from.

use super::options::parse;
use super::tables;

/// What a `git fetch` command line asks for, past `fetch`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchLine {
    /// The `<repository>` (a remote's name, a URL or a path), if given.
    pub repository: Option<String>,
    /// The refspecs after it.
    pub refspecs: Vec<String>,
    /// `--refmap` values: how the command line's refspecs map to
    /// remote-tracking refs instead of `remote.<name>.fetch`.
    pub refmap: Vec<String>,
    /// `--all` or `--multiple`: every word names a remote (or a group).
    pub multiple: bool,
    /// `--all`.
    pub all: bool,
    /// `--stdin`: refspecs the command line does not show.
    pub stdin: bool,
    /// `--upload-pack`: another program reads the remote.
    pub upload_pack: bool,
}

/// Reads a fetch command line (the words after `fetch`).
pub fn fetch_line(args: &[String]) -> FetchLine {
    let p = parse(args, tables::FETCH, false);
    let multiple = p.flag("multiple") || p.flag("all");
    let mut words = p.args.iter().cloned();
    let (repository, refspecs) = if multiple {
        (None, words.collect())
    } else {
        (words.next(), words.collect())
    };
    FetchLine {
        repository,
        refspecs,
        refmap: p.values("refmap").into_iter().map(str::to_string).collect(),
        multiple,
        all: p.flag("all"),
        stdin: p.flag("stdin"),
        upload_pack: p.given("upload-pack"),
    }
}

/// The `<repository>` a push command line names (the words after `push`):
/// its first word, or `--repo=<r>`.
pub fn push_repository(args: &[String]) -> Option<String> {
    let p = parse(args, tables::PUSH, false);
    p.args
        .first()
        .cloned()
        .or_else(|| p.value("repo").map(str::to_string))
}

/// A local destination as git's fetch completes it: `refs/...` as is,
/// `heads/`, `tags/`, `remotes/` under `refs/`, anything else a branch.
fn local_ref(name: &str) -> String {
    if name.starts_with("refs/") {
        name.to_string()
    } else if ["heads/", "tags/", "remotes/"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        format!("refs/{name}")
    } else {
        format!("refs/heads/{name}")
    }
}

/// Where a refspec writes `dst` from: `None` when it cannot write `dst`
/// (no destination, a negative refspec, another name), else the remote
/// ref it maps there (`refs/heads/main`; a source without `refs/` read as
/// a branch, as on the remote it most often is).
pub fn source_for(refspec: &str, dst: &str) -> Option<String> {
    let body = refspec.strip_prefix('+').unwrap_or(refspec);
    if body.starts_with('^') {
        return None;
    }
    let (src, to) = body.split_once(':')?;
    if to.is_empty() {
        return None;
    }
    let to = local_ref(to);
    let src = local_ref(src);
    match (to.split_once('*'), src.split_once('*')) {
        (None, _) => (to == dst).then_some(src),
        (Some((pre, post)), Some((spre, spost))) => {
            let middle = dst.strip_prefix(pre)?.strip_suffix(post)?;
            Some(format!("{spre}{middle}{spost}"))
        }
        // A pattern destination needs a pattern source (git refuses it).
        (Some(_), None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn spec_piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("+".to_string()),
            Just("^".to_string()),
            Just(":".to_string()),
            Just("*".to_string()),
            Just("/".to_string()),
            Just("refs/".to_string()),
            Just("heads/".to_string()),
            Just("remotes/".to_string()),
            Just("origin".to_string()),
            Just("main".to_string()),
            "\\PC{0,3}",
        ]
    }

    fn any_spec() -> impl Strategy<Value = String> {
        proptest::collection::vec(spec_piece(), 0..8).prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_refspecs(spec in any_spec(), dst in any_spec()) {
            let _ = source_for(&spec, &dst);
            let _ = fetch_line(&[spec, dst]);
        }
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn sources_of_a_destination() {
        let dst = "refs/remotes/origin/main";
        let table: &[(&str, Option<&str>)] = &[
            (
                "+refs/heads/*:refs/remotes/origin/*",
                Some("refs/heads/main"),
            ),
            (
                "refs/heads/agent/*:refs/remotes/origin/*",
                Some("refs/heads/agent/main"),
            ),
            ("refs/heads/*:refs/remotes/upstream/*", None),
            ("main:refs/remotes/origin/main", Some("refs/heads/main")),
            ("x:remotes/origin/main", Some("refs/heads/x")),
            (
                "refs/tags/v1:refs/remotes/origin/main",
                Some("refs/tags/v1"),
            ),
            ("main", None),
            ("main:", None),
            ("^refs/heads/main:refs/remotes/origin/main", None),
            ("main:origin/main", None),
            ("refs/heads/main:refs/remotes/origin/*", None),
            ("refs/heads/*/x:refs/remotes/origin/*/x", None),
        ];
        for (spec, want) in table {
            assert_eq!(source_for(spec, dst).as_deref(), *want, "{spec}");
        }
        assert_eq!(
            source_for(
                "refs/heads/*/x:refs/remotes/origin/*/x",
                "refs/remotes/origin/a/x"
            )
            .as_deref(),
            Some("refs/heads/a/x")
        );
    }

    #[test]
    fn fetch_lines() {
        let line = fetch_line(&words("-q --depth 1 origin main x:y --refmap=a --refmap b"));
        assert_eq!(line.repository.as_deref(), Some("origin"));
        assert_eq!(line.refspecs, words("main x:y"));
        assert_eq!(line.refmap, words("a b"));
        assert!(!line.multiple);
        let line = fetch_line(&words("--multiple origin upstream"));
        assert!(line.multiple && line.repository.is_none());
        assert_eq!(line.refspecs, words("origin upstream"));
        assert!(fetch_line(&words("--all")).all);
        assert_eq!(fetch_line(&[]).repository, None);
        assert!(fetch_line(&words("--stdin origin")).stdin);
        assert_eq!(
            push_repository(&words("-u --force origin a:b")).as_deref(),
            Some("origin")
        );
        assert_eq!(push_repository(&words("--repo=up")).as_deref(), Some("up"));
        assert_eq!(push_repository(&[]), None);
    }
}
