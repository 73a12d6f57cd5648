//! pre-push's stdin: `<local ref> <local id> <remote ref> <remote id>`,
//! split from the right (the local side may hold blanks).
//!
//! Beyond not panicking: a line read renders back into a line that reads
//! the same (the remote ref and ids hold no blank).
#![no_main]

use git_ward::fuzzing::pre_push_line;
use libfuzzer_sys::fuzz_target;

const ZERO: &str = "0000000000000000000000000000000000000000";

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines() {
        let Some(update) = pre_push_line(line) else {
            assert!(line.matches(' ').count() < 3, "{line:?} has four fields");
            continue;
        };
        assert!(!update.refname.contains(' '));
        let new = update.new.as_deref().unwrap_or(ZERO);
        let old = update.old.as_deref().unwrap_or(ZERO);
        let again = format!("refs/heads/x {new} {} {old}", update.refname);
        let reread = pre_push_line(&again).expect("a rendered line reads");
        assert_eq!(reread.refname, update.refname);
        assert_eq!(reread.old, update.old);
        assert_eq!(reread.new, update.new);
    }
});
