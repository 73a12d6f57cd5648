//! Output bounds (`mcp.max_output_bytes`): text is cut at a line end with a
//! note saying how to narrow the request; JSON keeps its shape and loses
//! the tail of its longest lists, with a count of what was cut.

use serde_json::{json, Map, Value};

/// Cuts `text` to at most `max` bytes, at a line end when one is near,
/// and appends a note saying how much was left out and how to narrow.
pub fn bound_text(text: String, max: usize, narrow: &str) -> String {
    if text.len() <= max {
        return text;
    }
    // Sized with the total in place of the shown count, which is never longer.
    let note = format!(
        "\n[output truncated: {} bytes of {} shown; {narrow}]",
        text.len(),
        text.len()
    );
    let mut cut = max.saturating_sub(note.len()).min(text.len());
    while cut > 0 && !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(nl) = text[..cut].rfind('\n') {
        if nl > cut / 2 {
            cut = nl;
        }
    }
    let mut out = text[..cut].to_string();
    out.push_str(&format!(
        "\n[output truncated: {cut} bytes of {} shown; {narrow}]",
        text.len()
    ));
    out
}

/// Halves the longest list in `value` (top level or one level down) until
/// its JSON fits `max`, recording what was cut under `truncated`.
pub fn bound_json(mut value: Value, max: usize, narrow: &str) -> Value {
    let mut cut: Map<String, Value> = Map::new();
    while value.to_string().len() > max {
        let Some(obj) = value.as_object_mut() else {
            break;
        };
        let longest = obj
            .iter()
            .filter_map(|(k, v)| v.as_array().map(|a| (k.clone(), a.len())))
            .filter(|(_, n)| *n > 0)
            .max_by_key(|(_, n)| *n);
        let Some((key, len)) = longest else { break };
        let total = cut.get(&key).and_then(Value::as_u64).unwrap_or(len as u64);
        cut.insert(key.clone(), total.into());
        if let Some(Value::Array(list)) = obj.get_mut(&key) {
            list.truncate(len / 2);
        }
    }
    if !cut.is_empty() {
        if let Some(obj) = value.as_object_mut() {
            obj.insert(
                "truncated".into(),
                json!({ "total_entries": cut, "note": narrow }),
            );
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_with_a_note() {
        let text = "line\n".repeat(1000);
        let out = bound_text(text.clone(), 1024, "pass file_path");
        assert!(out.len() <= 1024, "{}", out.len());
        assert!(out.ends_with("of 5000 shown; pass file_path]"));
        assert_eq!(bound_text("short".into(), 1024, "x"), "short");
        let wide = "é".repeat(1000);
        assert!(bound_text(wide, 1001, "n").len() <= 1001);
    }

    #[test]
    fn long_lists_are_halved_until_they_fit() {
        let v = json!({ "branch": "main", "untracked": (0..500).map(|i| format!("file{i}")).collect::<Vec<_>>(), "staged": ["a"] });
        let out = bound_json(v, 2048, "commit part of the work");
        assert!(out.to_string().len() <= 2048);
        assert_eq!(out["truncated"]["total_entries"]["untracked"], 500);
        assert_eq!(out["staged"], json!(["a"]));
    }
}
