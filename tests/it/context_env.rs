//! State outside the command line that git reads for one command,
//! beyond config and repository pointers: where git writes
//! its traces, and which directory a named git directory takes as its
//! working tree. Through the shim, judged by the files after.

use crate::common::TestRepo;

const C1: (&str, &str) = ("WARD_CONTRACT", "c1");

fn agent_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(["switch", "-q", "-c", "agent/c1"]).ok();
    repo.ward(["install"]).ok();
    repo
}

#[test]
fn a_trace_into_the_git_directory_is_refused_even_for_a_read() {
    let repo = agent_repo();
    let config = repo.dir.join(".git/config");
    let before = std::fs::read(&config).unwrap();
    for var in ["GIT_TRACE", "GIT_TRACE_PERFORMANCE", "GIT_TRACE2_EVENT"] {
        repo.shim_env(["status", "-s"], &[(var, config.to_str().unwrap()), C1])
            .code(1)
            .stderr_has("EN-GIT-D-004")
            .stderr_has(var.split('_').next().unwrap());
        assert_eq!(std::fs::read(&config).unwrap(), before, "{var}");
    }
    // A trace elsewhere is the agent's own business.
    let elsewhere = repo.path("trace.log");
    repo.shim_env(
        ["status", "-s"],
        &[("GIT_TRACE", elsewhere.to_str().unwrap()), C1],
    )
    .ok();
    assert!(std::fs::read(&elsewhere).is_ok_and(|t| !t.is_empty()));
}

#[test]
fn a_git_dir_named_from_another_directory_checkpoints_the_files_git_writes_there() {
    let repo = agent_repo();
    let other = repo.path("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("README"), "another project\n").unwrap();
    let git_dir = repo.dir.join(".git");
    // git takes the directory it runs in as the working tree's top.
    repo.shim_in(
        &other,
        ["reset", "-q", "--hard"],
        &[("GIT_DIR", git_dir.to_str().unwrap()), C1],
    )
    .ok();
    assert_eq!(
        std::fs::read_to_string(other.join("README")).unwrap(),
        "hello\n"
    );
    repo.ward_env(
        ["undo", "--yes"],
        &[("GIT_WORK_TREE", other.to_str().unwrap())],
    )
    .ok();
    assert_eq!(
        std::fs::read_to_string(other.join("README")).unwrap(),
        "another project\n"
    );
}
