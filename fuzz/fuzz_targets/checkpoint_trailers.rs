//! A checkpoint read back from its commit message (`Ward-*` trailers).
//!
//! Beyond not panicking: a checkpoint read renders (`Checkpoint::message`)
//! into a message that reads back as the same checkpoint (a carriage
//! return in a value aside: it renders as a blank), and renders again the
//! same.
#![no_main]

use git_ward::checkpoint::store::Checkpoint;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(message) = std::str::from_utf8(data) else {
        return;
    };
    let Some(checkpoint) = Checkpoint::parse("c0ffee", "7ree", message) else {
        return;
    };
    let rendered = checkpoint.message();
    let again = Checkpoint::parse("c0ffee", "7ree", &rendered)
        .unwrap_or_else(|| panic!("the rendered message does not read:\n{rendered}"));
    assert_eq!(again.message(), rendered, "read from\n{message:?}");
    // A carriage return in a value renders as a blank (one value, one line).
    if !message.contains('\r') {
        assert_eq!(
            again.to_json(),
            checkpoint.to_json(),
            "read from\n{message:?}\nrendered as\n{rendered:?}"
        );
    }
});
