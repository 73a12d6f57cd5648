//! reference-transaction's stdin: `<old> <new> <ref>` lines.
//!
//! Beyond not panicking: every line kept is one of the input's lines, its
//! old and new values hold no blank, and git-ward's own refs are left out.
#![no_main]

use git_ward::fuzzing::reference_transaction_lines;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = reference_transaction_lines(data);
    assert!(lines.len() <= text.lines().count());
    for line in &lines {
        assert!(!line.old.contains(' ') && !line.new.contains(' '));
        let whole = format!("{} {} {}", line.old, line.new, line.refname);
        assert!(
            text.lines().any(|l| l == whole),
            "{whole:?} is not an input line"
        );
        assert!(!line.refname.starts_with("refs/ward/"));
    }
});
