//! Output bounds (`mcp.max_output_bytes`): text is cut at a line end with a
//! note saying how to narrow the request; JSON keeps its shape and loses
//! the tail of its longest lists (then of its longest strings), with a
//! record of what was cut.
//!
//! What is counted is the text content an agent is handed, in UTF-8 bytes,
//! the note on what was cut included. A JSON result's text is its compact
//! serialization and its `structuredContent` the same value, so both fit;
//! an error's `structuredContent` (kind, code, message, hint) is bounded on
//! its own the same way, and left out when no JSON of its shape fits.

use std::io;

use serde_json::{Map, Value};

/// The shortest note, for a bound with no room for the counts.
const SHORT_NOTE: &str = "[truncated]";

/// Strings this long or shorter are never shortened (ids, hashes, codes).
const KEEP_STRING: usize = 64;

/// Cuts `text` to at most `max` bytes, note included, at a line end when
/// one is near and never inside a character, and appends a note saying how
/// much was left out and how to narrow.
///
/// The note is the longest that fits: with the advice, then the counts
/// alone, then `[truncated]`. A bound under those 11 bytes has room for no
/// note and for no text that could pass for the whole: the output is then
/// the first `max` bytes of `[truncated]` (nothing at all for 0).
pub fn bound_text(mut text: String, max: usize, narrow: &str) -> String {
    let total = text.len();
    if total <= max {
        return text;
    }
    let forms = if narrow.is_empty() { 1..3 } else { 0..3 };
    for form in forms {
        // Sized with the total in place of the shown count, which is never longer.
        let Some(room) = max.checked_sub(note(form, total, total, narrow).len()) else {
            continue;
        };
        // One byte of the room goes to the line break before the note.
        let mut cut = floor_char(&text, room.saturating_sub(1));
        if let Some(nl) = text[..cut].rfind('\n') {
            if nl > cut / 2 {
                cut = nl;
            }
        }
        text.truncate(cut);
        if cut > 0 {
            text.push('\n');
        }
        text.push_str(&note(form, cut, total, narrow));
        return text;
    }
    SHORT_NOTE[..max].to_string()
}

/// The note after a cut: with the advice (form 0), with the counts alone
/// (1), or [`SHORT_NOTE`] (2).
fn note(form: u8, shown: usize, total: usize, narrow: &str) -> String {
    match form {
        0 => format!("[output truncated: {shown} bytes of {total} shown; {narrow}]"),
        1 => format!("[output truncated: {shown} bytes of {total} shown]"),
        _ => SHORT_NOTE.to_string(),
    }
}

/// Shortens `value` until its JSON, with a `truncated` record of what was
/// cut, fits `max` bytes: first the longest list (in the object or in an
/// object within it) is halved, then, with no list left to cut, the longest
/// string over 64 bytes. `None` when even that cannot make it fit.
pub fn bound_json(mut value: Value, max: usize, narrow: &str) -> Option<Value> {
    if json_len(&value) <= max {
        return Some(value);
    }
    let mut lists: Map<String, Value> = Map::new();
    let mut strings: Vec<String> = Vec::new();
    loop {
        let mut record = Map::new();
        if !lists.is_empty() {
            record.insert("total_entries".into(), lists.clone().into());
        }
        if !strings.is_empty() {
            record.insert("shortened".into(), strings.clone().into());
        }
        if !narrow.is_empty() {
            record.insert("note".into(), narrow.into());
        }
        value
            .as_object_mut()?
            .insert("truncated".into(), record.into());
        if json_len(&value) <= max {
            return Some(value);
        }
        value.as_object_mut()?.remove("truncated");
        let list_len = |v: &Value| v.as_array().map(Vec::len).filter(|n| *n > 0);
        let long_string = |v: &Value| v.as_str().map(str::len).filter(|n| *n > KEEP_STRING);
        if let Some(path) = longest(&value, &list_len) {
            if let Some(Value::Array(list)) = member(&mut value, &path) {
                lists.entry(path.join(".")).or_insert(list.len().into());
                list.truncate(list.len() / 2);
            }
        } else if let Some(path) = longest(&value, &long_string) {
            if let Some(Value::String(s)) = member(&mut value, &path) {
                s.truncate(floor_char(s, s.len() / 2));
                s.push('…');
            }
            let path = path.join(".");
            if !strings.contains(&path) {
                strings.push(path);
            }
        } else {
            return None;
        }
    }
}

/// The path (`["plan", "entries"]`) of the value that scores highest under
/// `score` among the members of the object `value` and of the objects
/// within it, not inside lists.
fn longest(value: &Value, score: &dyn Fn(&Value) -> Option<usize>) -> Option<Vec<String>> {
    fn best(
        value: &Value,
        score: &dyn Fn(&Value) -> Option<usize>,
    ) -> Option<(usize, Vec<String>)> {
        let mut found: Option<(usize, Vec<String>)> = None;
        for (key, m) in value.as_object()? {
            let here = score(m).map(|n| (n, Vec::new())).or_else(|| best(m, score));
            if let Some((n, mut path)) = here {
                if found.as_ref().is_none_or(|(top, _)| n > *top) {
                    path.insert(0, key.clone());
                    found = Some((n, path));
                }
            }
        }
        found
    }
    best(value, score).map(|(_, path)| path)
}

/// The member of `value` at `path`.
fn member<'v>(value: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |at, key| at.get_mut(key))
}

/// The largest index at most `at` that starts a character of `text`.
fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The length of `value`'s compact JSON, without building it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` to a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn every_bound_holds_without_splitting_a_character() {
        let text = "ab€\n".repeat(400) + &"😀".repeat(300);
        for max in 0..1300 {
            let out = bound_text(text.clone(), max, "pass file_path for one file");
            assert!(out.len() <= max, "{max}: {}", out.len());
            if max >= SHORT_NOTE.len() {
                assert!(out.ends_with(']'), "{max}: {out}");
            }
        }
        assert_eq!(bound_text(text.clone(), 5, "n"), "[trun");
        assert_eq!(bound_text(text.clone(), 12, "n"), "[truncated]");
        let counts = bound_text(text.clone(), 60, "pass file_path for one file");
        assert!(counts.ends_with("bytes of 3600 shown]"), "{counts}");
        assert!(!bound_text(text, 60, "").contains("; "));
    }

    #[test]
    fn long_lists_are_halved_until_they_fit() {
        let v = json!({ "branch": "main", "untracked": (0..500).map(|i| format!("file{i}")).collect::<Vec<_>>(), "staged": ["a"] });
        let out = bound_json(v, 2048, "commit part of the work").unwrap();
        assert!(out.to_string().len() <= 2048);
        assert_eq!(out["truncated"]["total_entries"]["untracked"], 500);
        assert_eq!(out["staged"], json!(["a"]));
        let plan = json!({ "plan": { "entries": (0..500).collect::<Vec<_>>() }, "dry_run": true });
        let out = bound_json(plan, 300, "").unwrap();
        assert!(out.to_string().len() <= 300, "{out}");
        assert_eq!(out["truncated"]["total_entries"]["plan.entries"], 500);
    }

    #[test]
    fn long_strings_are_cut_last_and_too_small_a_bound_gives_none() {
        let message = "ü".repeat(400);
        let v = json!({ "code": "EN-GIT-E-001", "message": message, "hint": null });
        for max in 0..900 {
            match bound_json(v.clone(), max, "") {
                Some(out) => {
                    assert!(out.to_string().len() <= max, "{max}: {out}");
                    assert_eq!(out["code"], "EN-GIT-E-001");
                }
                None => assert!(max < 200, "{max}"),
            }
        }
        let out = bound_json(v, 300, "").unwrap();
        assert!(out["message"].as_str().unwrap().ends_with('…'));
        assert_eq!(out["truncated"], json!({ "shortened": ["message"] }));
    }
}
