//! A tool call's arguments, typed: each accessor checks the JSON type and
//! turns a mismatch into an `invalid_argument` error the agent can act on.

use serde_json::Value;

use super::call::{Ctx, ToolError};

impl<'a> Ctx<'a> {
    /// An optional string argument.
    pub fn str_arg(&self, name: &str) -> Result<Option<&'a str>, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(type_error(name, "a string")),
        }
    }

    /// A required string argument.
    pub fn required_str(&self, name: &str) -> Result<&'a str, ToolError> {
        self.str_arg(name)?.ok_or_else(|| {
            ToolError::invalid(
                "invalid_argument",
                format!("argument '{name}' is required"),
                format!("call {} again with '{name}'", self.tool),
            )
        })
    }

    /// An optional boolean argument with its default.
    pub fn bool_arg(&self, name: &str, default: bool) -> Result<bool, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(type_error(name, "true or false")),
        }
    }

    /// An optional integer argument in `range`, with its default.
    pub fn int_arg(&self, name: &str, default: u64, max: u64) -> Result<u64, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| type_error(name, &format!("an integer from 1 to {max}"))),
        }
    }

    /// An optional list of strings; a single string counts as a list of one.
    pub fn list_arg(&self, name: &str) -> Result<Vec<&'a str>, ToolError> {
        match self.args.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.as_str()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| type_error(name, "a list of strings"))
                })
                .collect(),
            Some(_) => Err(type_error(name, "a list of strings")),
        }
    }
}

pub(super) fn type_error(name: &str, want: &str) -> ToolError {
    ToolError::invalid(
        "invalid_argument",
        format!("argument '{name}' must be {want}"),
        "see the tool's input schema in tools/list",
    )
}
