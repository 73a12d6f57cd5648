//! pre-receive's input: its stdin lines (`<old> <new> <ref>`), and the
//! `git cat-file --batch` output it reads the pushed commits from.
//!
//! The first input byte chooses which. Beyond not panicking: a line read
//! joins back into itself; the batch reader returns no more commits than
//! the output has lines, and no id or parent spans a line.
#![no_main]

use git_ward::fuzzing::{pre_receive_batch, pre_receive_line};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let text = String::from_utf8_lossy(data);
        for line in text.lines() {
            if let Some((old, new, refname)) = pre_receive_line(line) {
                assert_eq!(format!("{old} {new} {refname}"), line);
            }
        }
    } else {
        let commits = pre_receive_batch(data);
        let records = data.iter().filter(|b| **b == b'\n').count();
        assert!(commits.len() <= records);
        for (id, commit) in &commits {
            assert!(!id.contains(' ') && !id.contains('\n'));
            if let Some(parent) = &commit.first_parent {
                assert!(!parent.contains('\n'));
            }
        }
    }
});
