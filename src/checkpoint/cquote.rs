//! Paths in git's C-style quoting (as `ls-files` prints them with
//! `core.quotePath`), both ways: a path that needs it is written between
//! double quotes with `\"`, `\\`, `\n`, `\t` and octal escapes; any other
//! is written as it is. fast-import and `hash-object --stdin-paths` read
//! it; a checkpoint's trailers hold paths in it, so that a newline or a
//! byte that is not UTF-8 survives the commit message exactly.

/// A byte that makes a path need quoting: a control character, a double
/// quote, a backslash.
fn special(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == b'"' || b == b'\\'
}

/// Writes `path` quoted; `high` escapes every byte above 0x7f too.
fn quoted(path: &[u8], high: bool) -> Vec<u8> {
    let mut out = vec![b'"'];
    for &b in path {
        match b {
            b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b if special(b) || (high && b > 0x7f) => {
                out.extend_from_slice(format!("\\{b:03o}").as_bytes())
            }
            b => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// A path as fast-import and `hash-object --stdin-paths` read it: quoted
/// when it needs to be, else as it is.
pub fn quote(path: &[u8]) -> Vec<u8> {
    if path.iter().any(|b| special(*b)) {
        quoted(path, false)
    } else {
        path.to_vec()
    }
}

/// A path as text for a checkpoint's trailers: as it is when it is UTF-8
/// without a special byte (so ordinary names read as they always did),
/// else quoted with every byte above 0x7f escaped (so the text is ASCII).
pub fn quote_text(path: &[u8]) -> String {
    match std::str::from_utf8(path) {
        Ok(text) if !path.iter().any(|b| special(*b)) => text.to_string(),
        _ => String::from_utf8_lossy(&quoted(path, true)).into_owned(),
    }
}

/// The path [`quote_text`] wrote. Text that is not a well-formed quoted
/// path (a checkpoint written before paths were quoted) is the path's
/// bytes as they are.
pub fn unquote_text(text: &str) -> Vec<u8> {
    unquote(text.as_bytes()).unwrap_or_else(|| text.as_bytes().to_vec())
}

/// A quoted path's bytes; `None` when `text` is not one.
fn unquote(text: &[u8]) -> Option<Vec<u8>> {
    let inner = text.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    let mut out = Vec::with_capacity(inner.len());
    let mut bytes = inner.iter().copied();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => return None,
            b'\\' => {
                let e = bytes.next()?;
                out.push(match e {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 0x0b,
                    b'f' => 0x0c,
                    b'r' => b'\r',
                    b'"' | b'\\' => e,
                    b'0'..=b'3' => {
                        let mut n = u32::from(e - b'0');
                        for _ in 0..2 {
                            let d = bytes.next().filter(u8::is_ascii_digit)?;
                            n = n * 8 + u32::from(d.checked_sub(b'0').filter(|d| *d < 8)?);
                        }
                        u8::try_from(n).ok()?
                    }
                    _ => return None,
                });
            }
            b => out.push(b),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_only_when_they_must_be() {
        assert_eq!(quote(b"a b/c.txt"), b"a b/c.txt");
        assert_eq!(quote(b"a\nb"), b"\"a\\nb\"");
        assert_eq!(quote(b"\"q\\"), b"\"\\\"q\\\\\"");
        assert_eq!(quote(b"caf\xc3\xa9"), b"caf\xc3\xa9");
        assert_eq!(quote(b"\x01\xff"), b"\"\\001\xff\"");
    }

    #[test]
    fn trailer_text_is_exact_and_reversible() {
        let cases: [(&[u8], &str); 6] = [
            (b"a b/c.txt", "a b/c.txt"),
            (b"caf\xc3\xa9", "café"),
            (b"secret\nkey", "\"secret\\nkey\""),
            (b"keys\xfe/k", "\"keys\\376/k\""),
            (b"tab\there\r", "\"tab\\there\\015\""),
            (b"\"q\\\"", "\"\\\"q\\\\\\\"\""),
        ];
        for (path, text) in cases {
            assert_eq!(quote_text(path), text);
            assert_eq!(unquote_text(text), path);
        }
        // Written before paths were quoted: read as they are.
        assert_eq!(unquote_text("a \u{fffd}"), "a \u{fffd}".as_bytes());
        assert_eq!(unquote_text("\"open"), b"\"open");
        assert_eq!(unquote_text("\"a\"b\""), b"\"a\"b\"");
        assert_eq!(unquote_text("\"bad \\q\""), b"\"bad \\q\"");
    }

    proptest::proptest! {
        #[test]
        fn any_path_comes_back(path in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            let text = quote_text(&path);
            proptest::prop_assert!(!text.contains('\n'));
            proptest::prop_assert_eq!(unquote_text(&text), path);
        }
    }
}
