//! Names git-ward accepts must be names git accepts: every contract id that
//! validates makes a branch (`agent/<id>`, and `<id>` alone) that
//! `git check-ref-format --branch` takes. Our rules may be stricter than
//! git's, never looser.

use std::process::Command;

use proptest::prelude::*;

use crate::facts::valid_contract;

fn git_accepts_branch(name: &str) -> bool {
    Command::new("git")
        .args(["check-ref-format", "--branch", name])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Ids built from the allowed alphabet with the characters git cares about
/// (`.`, `-`, `_`), and now and then one it refuses.
fn candidate_id() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[A-Za-z0-9._-]{1,24}",
        1 => "[A-Za-z0-9]{0,4}(\\.\\.|\\.lock|@\\{|~|\\^|:|\\?|\\*|\\[|\\\\| |/|\\.)[A-Za-z0-9.]{0,4}",
        1 => "[a-z0-9]{1,3}\\.{1,2}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn accepted_contract_ids_make_branches_git_accepts(id in candidate_id()) {
        prop_assume!(valid_contract(&id));
        prop_assert!(git_accepts_branch(&format!("agent/{id}")), "agent/{id}");
        prop_assert!(git_accepts_branch(&id), "{id}");
    }
}
