//! The pre-tool command-line splitter (`pretool/shell.rs`): a POSIX shell
//! line in, the git calls it runs out.
//!
//! Beyond not panicking: a git call read plainly (no variables, no
//! environment, no directory change, the line readable) quotes back into a
//! line that splits into the same call.
#![no_main]

use git_ward::pretool::{quote, shell};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let line = shell::split(text);
    if line.unreadable.is_some() {
        return;
    }
    for call in &line.git {
        if call.opaque || !call.env.is_empty() || !call.dirs.is_empty() {
            continue;
        }
        let words: Vec<String> = std::iter::once(&call.program)
            .chain(&call.args)
            .map(|w| quote(w))
            .collect();
        let again = shell::split(&words.join(" "));
        assert_eq!(again.git.len(), 1, "{words:?} from {text:?}: {again:?}");
        assert_eq!(again.git[0].program, call.program);
        assert_eq!(again.git[0].args, call.args, "from {text:?}");
    }
});
