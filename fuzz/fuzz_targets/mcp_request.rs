//! The MCP server's request reader: lines of at most a bound read from
//! stdin, each parsed as a JSON-RPC 2.0 message or batch.
//!
//! The first input byte sets the line bound. Beyond not panicking: no line
//! read is longer than the bound; every rejected message is answered with a
//! JSON-RPC error response; a request's answer serializes.
#![no_main]

use std::io::BufReader;

use git_ward::fuzzing::{mcp_line, mcp_read_line, mcp_response, Frame, Incoming, McpLine};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fn check(one: &Result<Incoming, Value>) {
    match one {
        Err(answer) => {
            assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
            assert!(answer["error"]["code"].is_i64(), "{answer}");
        }
        Ok(Incoming::Request { id, .. }) => {
            let answer = mcp_response(id.clone(), json!({}));
            assert_eq!(&answer["id"], id);
            serde_json::to_vec(&answer).expect("an answer serializes");
        }
        Ok(_) => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&bound, data)) = data.split_first() else {
        return;
    };
    let max = usize::from(bound).max(1);
    // A small buffer, so that long lines cross refills.
    let mut input = BufReader::with_capacity(7, data);
    let mut buf = Vec::new();
    let mut lines = 0;
    loop {
        match mcp_read_line(&mut input, &mut buf, max).expect("reading a slice") {
            McpLine::End => break,
            McpLine::TooLong => assert!(buf.is_empty()),
            McpLine::Read => {
                assert!(buf.len() <= max);
                match mcp_line(&buf) {
                    Frame::One(one) => check(&one),
                    Frame::Batch(all) => all.iter().for_each(check),
                }
            }
        }
        lines += 1;
        assert!(lines <= data.len(), "more lines than bytes");
    }
});
