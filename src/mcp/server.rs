//! The MCP methods: `initialize`, `ping`, `tools/list`, `tools/call`.
//!
//! A tool's own failure (denied, invalid argument, git said no) is a tool
//! result with `isError: true`, so the agent reads the code and hint; only a
//! malformed message, an unknown method or an unknown tool is a JSON-RPC error.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::bound::{bound_json, bound_text};
use super::call::{max_output_at, Ctx, ToolError, ToolResult};
use super::jsonrpc::{self, code, Frame, Incoming, RpcError};
use super::tools::{self, Tool, TOOLS};

/// The handshake versions this server speaks, oldest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// What the server tells a client about itself at `initialize`.
const INSTRUCTIONS: &str = "git-ward runs git for you under the repository's rules. \
Start with git_status. Commit finished work with save (on a protected branch it moves you to your agent branch, \
or is denied with a code and a hint saying what to do). Take checkpoint_create before risky changes; \
rollback and undo show a plan first and apply only with confirm: true. \
A refused call returns isError with a code like EN-GIT-D-003 and a hint: follow the hint.";

/// The server's state: where it works and what was negotiated.
pub struct Server {
    dir: PathBuf,
    /// The repositories served (see [`super::call::repository_of`]).
    served: Vec<PathBuf>,
    version: Option<&'static str>,
}

impl Server {
    /// A server working on the repository at or above `dir` by default,
    /// serving the repositories `served` and no other.
    pub fn new(dir: PathBuf, served: Vec<PathBuf>) -> Self {
        Server {
            dir,
            served,
            version: None,
        }
    }

    /// Answers one line of input; `None` when nothing is to be sent back.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<Value> {
        match jsonrpc::parse_line(line) {
            Frame::One(message) => self.handle(message),
            Frame::Batch(messages) => {
                let replies: Vec<Value> = messages
                    .into_iter()
                    .filter_map(|m| self.handle(m))
                    .collect();
                (!replies.is_empty()).then_some(Value::Array(replies))
            }
        }
    }

    fn handle(&mut self, message: Result<Incoming, Value>) -> Option<Value> {
        let (id, method, params) = match message {
            Err(reply) => return Some(reply),
            Ok(Incoming::Request { id, method, params }) => (id, method, params),
            Ok(Incoming::Notification { .. } | Incoming::Response) => return None,
        };
        let answer = catch_unwind(AssertUnwindSafe(|| self.request(&method, &params)))
            .unwrap_or_else(|_| {
                Err(RpcError::new(
                    code::INTERNAL_ERROR,
                    format!("internal error while handling {method}; the server is still running"),
                ))
            });
        Some(match answer {
            Ok(result) => jsonrpc::response(id, result),
            Err(err) => jsonrpc::error_response(id, &err),
        })
    }

    fn request(&mut self, method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
        match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(list()),
            "tools/call" => self.call(params),
            _ => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {method}"),
            )),
        }
    }

    fn initialize(&mut self, params: &Map<String, Value>) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let version = PROTOCOL_VERSIONS
            .iter()
            .copied()
            .find(|v| Some(*v) == asked)
            .unwrap_or(PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.len() - 1]);
        self.version = Some(version);
        json!({
            "protocolVersion": version,
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": {
                "name": "git-ward",
                "title": "git-ward",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": INSTRUCTIONS,
        })
    }

    fn call(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::invalid_params("tools/call needs \"name\", a string"))?;
        let tool = tools::find(name).ok_or_else(|| {
            let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
            // The name as asked, quoted no longer than any tool's could be.
            let shown: String = name.chars().take(64).collect();
            let more = if shown.len() < name.len() { "…" } else { "" };
            RpcError::invalid_params(format!(
                "unknown tool: {shown}{more} (tools: {})",
                names.join(", ")
            ))
        })?;
        let empty = Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(map)) => map,
            Some(_) => return Err(RpcError::invalid_params("\"arguments\" must be an object")),
        };
        let (result, max) = self.run(tool, args);
        Ok(self.render(result, max))
    }

    /// Runs the tool; with its result, the bound on its output.
    fn run(&self, tool: &Tool, args: &Map<String, Value>) -> (ToolResult, usize) {
        let mut ctx = match Ctx::new(tool.name, tool.read_only, args, &self.dir, &self.served) {
            Ok(ctx) => ctx,
            Err(err) => return (Err(err), max_output_at(&self.dir)),
        };
        let props = tools::properties(tool.name);
        let result = match args.keys().find(|k| !props.contains_key(k.as_str())) {
            Some(unknown) => {
                let known: Vec<&str> = props.keys().map(String::as_str).collect();
                Err(ToolError::invalid(
                    "invalid_argument",
                    format!("{} has no argument '{unknown}'", tool.name),
                    format!("its arguments are: {}", known.join(", ")),
                ))
            }
            None => (tool.run)(&mut ctx),
        };
        let max = ctx.max_output();
        ctx.close(&result);
        (result, max)
    }

    /// A tool result as MCP wants it: text content, plus structured content
    /// for clients that negotiated a version that has it, each cut to `max`
    /// bytes (see [`super::bound`]).
    fn render(&self, result: ToolResult, max: usize) -> Value {
        let structured_ok = self.version.is_none_or(|v| v >= "2025-06-18");
        let (text, structured, is_error) = match result {
            Ok(out) => {
                let out = out.bound(max);
                (out.text, out.structured, false)
            }
            Err(mut err) => {
                err.hint = err.hint.map(|h| super::hints::name_tools(&h));
                (
                    bound_text(err.text(), max, ""),
                    bound_json(err.to_json(), max, ""),
                    true,
                )
            }
        };
        let mut v = json!({
            "content": [{ "type": "text", "text": text }],
            "isError": is_error,
        });
        if let (Some(s), true) = (structured, structured_ok) {
            v["structuredContent"] = s;
        }
        v
    }
}

/// The `tools/list` result.
fn list() -> Value {
    json!({ "tools": TOOLS.iter().map(tools::definition).collect::<Vec<_>>() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(server: &mut Server, line: &str) -> Value {
        server.handle_line(line.as_bytes()).expect("a reply")
    }

    #[test]
    fn handshake_list_and_errors() {
        let mut s = Server::new(std::env::temp_dir(), Vec::new());
        let init = ask(
            &mut s,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        );
        assert_eq!(init["result"]["protocolVersion"], "2025-03-26");
        assert!(s
            .handle_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .is_none());
        let list = ask(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
        assert_eq!(
            list["result"]["tools"].as_array().unwrap().len(),
            TOOLS.len()
        );
        let unknown = ask(&mut s, r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#);
        assert_eq!(unknown["error"]["code"], -32601);
        let no_tool = ask(
            &mut s,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm_rf"}}"#,
        );
        assert_eq!(no_tool["error"]["code"], -32602);
        // A name of any length is quoted short.
        let long = "x".repeat(100_000);
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"{long}"}}}}"#
        );
        let message = ask(&mut s, &call)["error"]["message"].to_string();
        assert!(message.len() < 400 && message.contains("x…"), "{message}");
        let bad_arg = ask(
            &mut s,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"git_log","arguments":{"max_cnt":3}}}"#,
        );
        assert_eq!(bad_arg["result"]["isError"], true);
        assert!(bad_arg["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("max_count"));
        let newer = ask(
            &mut s,
            r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#,
        );
        assert_eq!(newer["result"]["protocolVersion"], "2025-11-25");
    }
}
