//! JSON-RPC 2.0 framing for MCP's stdio transport: one message per line.
//!
//! Reading turns a line into [`Incoming`] or, when the line is not a valid
//! message, into the error response to send back; the server keeps serving
//! either way. Writing is one line of JSON per message.

use serde_json::{json, Map, Value};

/// JSON-RPC's reserved error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a JSON-RPC 2.0 message.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method exists; its params are wrong.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed while handling a valid request.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// A protocol-level error: a code, a message, and optional data.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(code::INVALID_PARAMS, message)
    }
}

/// One well-formed message from the client.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// Expects a response with the same id.
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    /// Expects nothing back.
    Notification { method: String },
    /// A response to a request of ours (the server sends none, so it is ignored).
    Response,
}

/// What a line holds: one message, a batch, or the error to answer with.
#[derive(Debug, PartialEq)]
pub enum Frame {
    One(Result<Incoming, Value>),
    Batch(Vec<Result<Incoming, Value>>),
}

/// The longest line read as a message. A longer one is read past and
/// answered with an error, so that no input (`/dev/zero`, a runaway
/// client) makes the server hold all of it in memory.
pub const MAX_LINE: usize = 16 << 20;

/// What reading one line of input gave.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The input is closed.
    End,
    /// A line of at most `max` bytes is in the buffer.
    Read,
    /// The line was longer than `max` bytes; it was dropped.
    TooLong,
}

/// Reads the next line into `buf` (emptied first), at most `max` bytes.
pub fn read_line(
    input: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    use std::io::{BufRead, Read};
    buf.clear();
    let n = input.by_ref().take(max as u64).read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(Line::End);
    }
    if n < max || buf.ends_with(b"\n") {
        return Ok(Line::Read);
    }
    buf.clear();
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                break;
            }
            None => {
                let len = chunk.len();
                input.consume(len);
            }
        }
    }
    Ok(Line::TooLong)
}

/// The answer to a line longer than [`MAX_LINE`].
pub fn too_long() -> Value {
    error_response(
        Value::Null,
        &RpcError::new(
            code::INVALID_REQUEST,
            format!("invalid request: a message is at most {MAX_LINE} bytes"),
        ),
    )
}

/// Parses one line of input.
pub fn parse_line(line: &[u8]) -> Frame {
    match serde_json::from_slice::<Value>(line) {
        Err(e) => Frame::One(Err(error_response(
            Value::Null,
            &RpcError::new(code::PARSE_ERROR, format!("parse error: {e}")),
        ))),
        Ok(Value::Array(items)) if items.is_empty() => Frame::One(Err(error_response(
            Value::Null,
            &RpcError::new(code::INVALID_REQUEST, "invalid request: empty batch"),
        ))),
        Ok(Value::Array(items)) => Frame::Batch(items.into_iter().map(parse_message).collect()),
        Ok(value) => Frame::One(parse_message(value)),
    }
}

/// Checks one JSON value against JSON-RPC 2.0.
fn parse_message(value: Value) -> Result<Incoming, Value> {
    let Value::Object(mut obj) = value else {
        return Err(invalid(Value::Null, "a message must be a JSON object"));
    };
    let id = obj.remove("id");
    let id_ok = matches!(id, None | Some(Value::String(_)) | Some(Value::Number(_)));
    let reply_id = if id_ok {
        id.clone().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(invalid(reply_id, "\"jsonrpc\" must be \"2.0\""));
    }
    if !id_ok {
        return Err(invalid(Value::Null, "\"id\" must be a string or a number"));
    }
    let Some(method) = obj.get("method") else {
        if obj.contains_key("result") || obj.contains_key("error") {
            return Ok(Incoming::Response);
        }
        return Err(invalid(reply_id, "\"method\" is missing"));
    };
    let Some(method) = method.as_str().map(str::to_string) else {
        return Err(invalid(reply_id, "\"method\" must be a string"));
    };
    let params = match obj.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return match id {
                Some(id) => Err(error_response(
                    id,
                    &RpcError::invalid_params("\"params\" must be an object"),
                )),
                None => Ok(Incoming::Notification { method }),
            }
        }
    };
    Ok(match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method },
    })
}

fn invalid(id: Value, why: &str) -> Value {
    error_response(
        id,
        &RpcError::new(code::INVALID_REQUEST, format!("invalid request: {why}")),
    )
}

/// `{"jsonrpc": "2.0", "id": ..., "result": ...}`.
pub fn response(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// `{"jsonrpc": "2.0", "id": ..., "error": {"code": ..., "message": ...}}`.
pub fn error_response(id: Value, err: &RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": err.code, "message": err.message },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Result<Incoming, Value> {
        match parse_line(line.as_bytes()) {
            Frame::One(r) => r,
            Frame::Batch(_) => panic!("batch"),
        }
    }

    fn err_code(r: Result<Incoming, Value>) -> (i64, Value) {
        let v = r.unwrap_err();
        (v["error"]["code"].as_i64().unwrap(), v["id"].clone())
    }

    #[test]
    fn a_line_longer_than_the_bound_is_read_past_and_reported() {
        let mut input = std::io::Cursor::new(b"12345678\n{}\n123456789abc\nxy".to_vec());
        let mut buf = Vec::new();
        let mut next = || {
            let line = read_line(&mut input, &mut buf, 9).unwrap();
            (line, String::from_utf8(buf.clone()).unwrap())
        };
        assert_eq!(next(), (Line::Read, "12345678\n".into()));
        assert_eq!(next(), (Line::Read, "{}\n".into()));
        assert_eq!(next(), (Line::TooLong, String::new()));
        assert_eq!(next(), (Line::Read, "xy".into()));
        assert_eq!(next(), (Line::End, String::new()));
    }

    #[test]
    fn requests_and_notifications() {
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#),
            Ok(Incoming::Request {
                id: json!(7),
                method: "ping".into(),
                params: Map::new()
            })
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Incoming::Notification {
                method: "notifications/initialized".into()
            })
        );
        assert_eq!(
            one(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#),
            Ok(Incoming::Response)
        );
    }

    #[test]
    fn malformed_lines_get_the_right_error() {
        assert_eq!(err_code(one("{not json")), (-32700, Value::Null));
        assert_eq!(err_code(one("42")), (-32600, Value::Null));
        assert_eq!(
            err_code(one(r#"{"id":1,"method":"x"}"#)),
            (-32600, json!(1))
        );
        assert_eq!(
            err_code(one(r#"{"jsonrpc":"2.0","id":2}"#)),
            (-32600, json!(2))
        );
        assert_eq!(
            err_code(one(r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#)),
            (-32600, Value::Null)
        );
        assert_eq!(
            err_code(one(r#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}"#)),
            (-32602, json!(3))
        );
        assert_eq!(err_code(one("[]")), (-32600, Value::Null));
        assert!(matches!(
            parse_line(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5]"#),
            Frame::Batch(v) if v.len() == 2 && v[0].is_ok() && v[1].is_err()
        ));
        assert_eq!(err_code(one("\u{FFFD}\u{0}")), (-32700, Value::Null));
    }
}
