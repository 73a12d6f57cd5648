//! The pre-tool hook input of each harness (JSON), and the command line
//! found in it read by the shell splitter.
//!
//! The first input byte picks the harness. Beyond not panicking: every
//! answer renders as a JSON object, and every git call found names its
//! program.
#![no_main]

use git_ward::pretool::{shell, Answer, Harness};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&which, data)) = data.split_first() else {
        return;
    };
    let harness = Harness::ALL[usize::from(which) % Harness::ALL.len()];
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let request = harness.read(&input).ok();
    if let Some(command) = request.as_ref().and_then(|r| r.command.as_deref()) {
        let line = shell::split(command);
        for call in &line.git {
            assert!(!call.program.is_empty(), "{command:?}: {line:?}");
        }
    }
    let answers = [
        Answer::NoOpinion,
        Answer::Allow,
        Answer::Deny("EN-GIT-D-001: no".into()),
        Answer::Unsure("unsure".into()),
        Answer::Rewrite {
            command: "PATH=/shim:$PATH git status".into(),
            note: "rewritten".into(),
            confirm: which % 2 == 0,
        },
        Answer::Note {
            text: "note".into(),
            allow: which % 2 == 1,
        },
        Answer::Malformed("bad".into()),
    ];
    for answer in &answers {
        let out = harness.render(request.as_ref(), answer);
        assert!(out.is_object(), "{harness:?} renders {out} for {answer:?}");
    }
});
