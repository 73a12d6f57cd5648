//! The repository as git-ward reads it without opening gix's configuration
//! (`Repo::for_globals` on a plain command line) against the same reads
//! through a repository gix opened (a command line with `-c`, which takes
//! gix's road), in every layout git makes: from the top and from a
//! subdirectory, a linked worktree, a `.git` file, a bare repository,
//! packed refs, an unborn and a detached HEAD, a repository with
//! extensions.

use std::path::{Path, PathBuf};

use git_ward::classify::Globals;
use git_ward::decide::Head;
use git_ward::facts::Repo;

use crate::common::{sibling, TestRepo};

/// What a decision reads of a repository.
#[derive(Debug, PartialEq)]
struct Seen {
    git_dir: PathBuf,
    common_dir: PathBuf,
    workdir: Option<PathBuf>,
    head: Option<Head>,
    targets: Vec<Option<String>>,
    branches: Vec<bool>,
    remotes: Vec<String>,
    merge: Option<String>,
    alias: Option<String>,
}

const NAMES: &[&str] = &[
    "HEAD",
    "main",
    "refs/heads/main",
    "feature",
    "v1",
    "refs/tags/v1",
    "origin/main",
    "nothing",
];

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

fn seen(repo: &Repo) -> Seen {
    Seen {
        git_dir: canonical(repo.git_dir()),
        common_dir: canonical(repo.common_dir()),
        workdir: repo.workdir().map(canonical),
        head: repo.head(),
        targets: NAMES.iter().map(|n| repo.ref_target(n)).collect(),
        branches: ["main", "feature", "nothing"]
            .iter()
            .map(|b| repo.is_local_branch(b))
            .collect(),
        remotes: repo.remotes(),
        merge: repo.config_string("branch.main.merge"),
        alias: repo.aliases().get("co").cloned(),
    }
}

/// The same reads through gix's own API, on a repository gix opened.
fn seen_by_gix(repo: &gix::Repository) -> Seen {
    let head = repo.head().ok().map(|h| match h.kind {
        gix::head::Kind::Symbolic(r) => Head::Branch(r.name.shorten().to_string()),
        gix::head::Kind::Unborn(name) => Head::Unborn(name.shorten().to_string()),
        gix::head::Kind::Detached { .. } => Head::Detached,
    });
    let target = |name: &str| {
        let mut r = repo.try_find_reference(name).ok()??;
        r.follow_to_object().ok().map(|id| id.to_string())
    };
    let config = repo.config_snapshot();
    Seen {
        git_dir: canonical(repo.git_dir()),
        common_dir: canonical(repo.common_dir()),
        workdir: repo.workdir().map(canonical),
        head,
        targets: NAMES.iter().map(|n| target(n)).collect(),
        branches: ["main", "feature", "nothing"]
            .iter()
            .map(|b| {
                matches!(
                    repo.try_find_reference(format!("refs/heads/{b}").as_str()),
                    Ok(Some(_))
                )
            })
            .collect(),
        remotes: repo.remote_names().iter().map(|n| n.to_string()).collect(),
        merge: config.string("branch.main.merge").map(|v| v.to_string()),
        alias: config.string("alias.co").map(|v| v.to_string()),
    }
}

/// Opens from `dir` both ways and compares what each reads with what gix
/// itself reads; returns what the light road saw and whether it opened gix
/// on the way.
fn both(dir: &Path) -> (Seen, bool) {
    let plain = Globals {
        chdir: vec![dir.to_path_buf()],
        ..Globals::default()
    };
    let full = Globals {
        config: vec![("x.y".into(), "z".into())],
        ..plain.clone()
    };
    let light = Repo::for_globals(&plain).expect("a repository, the light road");
    let opened = Repo::for_globals(&full).expect("a repository, through gix");
    assert!(
        opened.gix_opened(),
        "-c on the command line takes gix's road"
    );
    let seen_light = seen(&light);
    let was_opened = light.gix_opened();
    assert_eq!(seen_light, seen(&opened), "from {}", dir.display());
    assert_eq!(
        seen_light,
        seen_by_gix(opened.gix().unwrap()),
        "from {}",
        dir.display()
    );
    (seen_light, was_opened)
}

/// A repository with a remote-tracking ref, an annotated tag, a second
/// branch, an alias and an upstream.
fn populated() -> TestRepo {
    let repo = TestRepo::new();
    std::fs::create_dir_all(repo.dir.join("sub/deeper")).unwrap();
    repo.git(["tag", "-a", "-m", "one", "v1"]).ok();
    repo.git(["branch", "feature"]).ok();
    repo.git(["config", "remote.origin.url", "/nowhere"]).ok();
    repo.git(["config", "remote.backup.url", "/elsewhere"]).ok();
    repo.git(["config", "branch.main.merge", "refs/heads/trunk"])
        .ok();
    repo.git(["config", "alias.co", "checkout"]).ok();
    repo.git(["update-ref", "refs/remotes/origin/main", "HEAD"])
        .ok();
    repo
}

#[test]
fn a_plain_repository_reads_alike_without_gix() {
    let repo = populated();
    for dir in [repo.dir.clone(), repo.dir.join("sub/deeper")] {
        let (seen, opened) = both(&dir);
        assert!(!opened, "the light road opened gix from {}", dir.display());
        assert_eq!(seen.head, Some(Head::Branch("main".into())));
        assert_eq!(seen.remotes, ["backup", "origin"]);
        assert_eq!(seen.alias.as_deref(), Some("checkout"));
        assert_eq!(seen.branches, [true, true, false]);
        // An annotated tag gives its tag object, not the commit.
        assert_ne!(seen.targets[4], seen.targets[0]);
        assert_eq!(seen.targets[4], repo.rev("refs/tags/v1"));
        assert_eq!(seen.targets[6], repo.rev("HEAD"));
        assert_eq!(seen.targets[7], None);
    }
}

#[test]
fn packed_refs_and_a_detached_head_read_alike() {
    let repo = populated();
    repo.git(["pack-refs", "--all"]).ok();
    assert!(!repo.dir.join(".git/refs/heads/feature").exists());
    let (seen, _) = both(&repo.dir);
    assert_eq!(seen.branches, [true, true, false]);
    assert_eq!(seen.targets[3], repo.rev("feature"));
    repo.git(["checkout", "-q", "--detach"]).ok();
    let (seen, _) = both(&repo.dir);
    assert_eq!(seen.head, Some(Head::Detached));
    assert_eq!(seen.targets[0], repo.rev("HEAD"));
}

#[test]
fn an_unborn_branch_reads_alike() {
    let repo = TestRepo::empty();
    let (seen, opened) = both(&repo.dir);
    assert!(!opened);
    assert_eq!(seen.head, Some(Head::Unborn("main".into())));
    assert_eq!(seen.targets[0], None);
}

#[test]
fn a_linked_worktree_reads_alike() {
    let repo = populated();
    let wt = sibling(&repo, "linked");
    repo.git(["worktree", "add", "-q", wt.to_str().unwrap(), "feature"])
        .ok();
    std::fs::create_dir_all(wt.join("inner")).unwrap();
    for dir in [wt.clone(), wt.join("inner")] {
        let (seen, opened) = both(&dir);
        assert!(!opened);
        assert_eq!(seen.head, Some(Head::Branch("feature".into())));
        assert_eq!(seen.workdir, Some(canonical(&wt)));
        assert_eq!(seen.common_dir, canonical(&repo.dir.join(".git")));
        assert_ne!(seen.git_dir, seen.common_dir);
    }
}

#[test]
fn a_git_file_and_a_bare_repository_read_alike() {
    let repo = populated();
    let apart = sibling(&repo, "apart");
    let git_dir = sibling(&repo, "apart.git");
    repo.git([
        "init",
        "-q",
        "-b",
        "main",
        "--separate-git-dir",
        git_dir.to_str().unwrap(),
        apart.to_str().unwrap(),
    ])
    .ok();
    assert!(apart.join(".git").is_file());
    let (seen, opened) = both(&apart);
    assert!(!opened);
    assert_eq!(seen.git_dir, canonical(&git_dir));
    assert_eq!(seen.workdir, Some(canonical(&apart)));

    let bare = repo.bare_clone_at(sibling(&repo, "bare.git"));
    let (seen, opened) = both(&bare);
    assert!(!opened);
    assert_eq!(seen.workdir, None);
    assert_eq!(seen.head, Some(Head::Branch("main".into())));
}

#[test]
fn a_repository_with_extensions_is_opened_by_gix() {
    let repo = populated();
    repo.git(["config", "extensions.worktreeConfig", "true"])
        .ok();
    let (seen, opened) = both(&repo.dir);
    assert!(opened, "extensions are gix's to read");
    assert_eq!(seen.head, Some(Head::Branch("main".into())));
}

/// The tree of a commit as git reads it (`<rev>^{tree}`).
fn tree_of(repo: &TestRepo, rev: &str) -> Option<String> {
    repo.rev(&format!("{rev}^{{tree}}"))
}

fn light(dir: &Path) -> Repo {
    Repo::for_globals(&Globals {
        chdir: vec![dir.to_path_buf()],
        ..Globals::default()
    })
    .expect("a repository")
}

#[test]
fn a_commit_tree_is_read_from_the_object_store_alone() {
    let repo = populated();
    let head = repo.rev("HEAD").unwrap();
    let tag = repo.rev("refs/tags/v1").unwrap();
    for packed in [false, true] {
        if packed {
            repo.git(["gc", "-q"]).ok();
            assert!(!repo
                .dir
                .join(".git/objects")
                .join(&head[..2])
                .join(&head[2..])
                .exists());
        }
        let r = light(&repo.dir);
        assert_eq!(r.commit_tree(&head), tree_of(&repo, "HEAD"));
        // An annotated tag gives the tree of the commit it names.
        assert_eq!(r.commit_tree(&tag), tree_of(&repo, "HEAD"));
        assert_eq!(r.commit_tree(&"0".repeat(40)), None);
        assert!(!r.gix_opened(), "the object store alone reads a commit");
    }
}

#[test]
fn a_replaced_commit_is_read_as_git_reads_it() {
    let repo = populated();
    let head = repo.rev("HEAD").unwrap();
    repo.write("other", "other\n");
    repo.git(["add", "other"]).ok();
    repo.git(["commit", "-q", "-m", "other"]).ok();
    let other = repo.rev("HEAD").unwrap();
    repo.git(["replace", &head, &other]).ok();
    let r = light(&repo.dir);
    let tree = r.commit_tree(&head);
    assert_eq!(tree, tree_of(&repo, &head));
    assert_eq!(tree, tree_of(&repo, &other));
    assert!(r.gix_opened(), "replacements are read through gix");
}
