//! A commit message's paragraphs and trailers as git reads them (the
//! footer hooks' reader).
//!
//! The first input byte picks the comment character. Beyond not
//! panicking: the message renders back byte for byte; paragraphs lie in
//! the text, in order; dropping the footer's copies and appending it once
//! leaves a copy in the text read again.
#![no_main]

use git_ward::fuzzing::{is_footer, trailer_block, Message};
use libfuzzer_sys::fuzz_target;

const FOOTER: &str = "Contract: c1";

fuzz_target!(|data: &[u8]| {
    let Some((&comment, data)) = data.split_first() else {
        return;
    };
    let comment = match comment % 3 {
        0 => '#',
        1 => ';',
        _ => '%',
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let message = Message::parse(text, comment);
    assert_eq!(message.render(&[], None), text);
    let mut last = None;
    for (p, lines) in message.paragraphs.iter().enumerate() {
        assert!(!lines.is_empty());
        assert!(lines.windows(2).all(|w| w[0] < w[1]));
        assert!(last < lines.first().copied());
        last = lines.last().copied();
        let _ = trailer_block(&message.lines_of(p));
    }
    let n = message.paragraphs.len();
    let copies = message.copies(FOOTER, 0..n);
    let rendered = message.render(&copies, Some((FOOTER, false)));
    let again = Message::parse(&rendered, comment);
    let found = (0..again.paragraphs.len())
        .flat_map(|p| again.lines_of(p))
        .filter(|l| is_footer(l, FOOTER))
        .count();
    assert!(found >= 1, "the footer is not in {rendered:?}");
});
