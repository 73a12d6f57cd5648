//! A commit message as git's cleanup and trailer code read it: its
//! paragraphs (comment lines and the scissors tail aside), and the trailer
//! block that ends it (`git interpret-trailers`).

/// The text before the scissors line, if there is one.
fn before_scissors(text: &str, comment: char) -> &str {
    let scissors = format!("{comment} ------------------------ >8 ------------------------");
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == scissors {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// A message's lines, and its paragraphs as git's cleanup leaves them.
pub struct Message<'a> {
    lines: Vec<&'a str>,
    /// Where the text ends: trailing blank and comment lines, and the
    /// scissors line with all after it, come after.
    end: usize,
    /// Each paragraph's lines (comment lines skipped), the title first.
    pub paragraphs: Vec<Vec<usize>>,
}

impl<'a> Message<'a> {
    pub fn parse(text: &'a str, comment: char) -> Message<'a> {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut end = before_scissors(text, comment).split_inclusive('\n').count();
        let is_comment = |l: &str| l.starts_with(comment);
        while end > 0 && (blank(lines[end - 1]) || is_comment(lines[end - 1])) {
            end -= 1;
        }
        let mut paragraphs: Vec<Vec<usize>> = Vec::new();
        let mut open = false;
        for (i, line) in lines[..end].iter().enumerate() {
            if blank(line) {
                open = false;
            } else if is_comment(line) {
                continue;
            } else if let (true, Some(p)) = (open, paragraphs.last_mut()) {
                p.push(i);
            } else {
                paragraphs.push(vec![i]);
                open = true;
            }
        }
        Message {
            lines,
            end,
            paragraphs,
        }
    }

    /// A paragraph's lines, without their line ends.
    pub fn lines_of(&self, paragraph: usize) -> Vec<&'a str> {
        self.paragraphs[paragraph]
            .iter()
            .map(|&i| self.lines[i].trim_end_matches(['\n', '\r']))
            .collect()
    }

    /// The lines that are copies of `footer` in the paragraphs `range`
    /// made of trailers and the footer only, with the blank lines before
    /// a paragraph that is the footer alone.
    pub fn copies(&self, footer: &str, range: std::ops::Range<usize>) -> Vec<usize> {
        let mut out = Vec::new();
        for p in range {
            let lines = self.lines_of(p);
            let footer_line = |l: &&str| is_footer(l, footer);
            if !lines.iter().any(footer_line)
                || !lines.iter().all(|l| footer_line(l) || is_trailer(l))
            {
                continue;
            }
            let at = &self.paragraphs[p];
            out.extend(
                at.iter()
                    .zip(&lines)
                    .filter(|(_, l)| footer_line(l))
                    .map(|(i, _)| *i),
            );
            if lines.iter().all(footer_line) {
                let mut i = at[0];
                while i > 0 && blank(self.lines[i - 1]) {
                    i -= 1;
                    out.push(i);
                }
            }
        }
        out
    }

    /// The message without the lines `drop`, and with `append` (the footer,
    /// and whether it joins the last paragraph) after its text.
    pub fn render(&self, drop: &[usize], append: Option<(&str, bool)>) -> String {
        let mut out: String = (0..self.end)
            .filter(|i| !drop.contains(i))
            .map(|i| self.lines[i])
            .collect();
        let rest = self.lines[self.end..].concat();
        if let Some((footer, joins)) = append {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if !joins {
                out.push('\n');
            }
            out.push_str(footer);
            out.push('\n');
            if !rest.is_empty() && !rest.starts_with('\n') {
                out.push('\n');
            }
        }
        out.push_str(&rest);
        out
    }
}

/// Is `line` the footer as git reads it? A trailer's key in any case, its
/// separator with any blanks around it (`contract:c1` is `Contract: c1`);
/// another footer as written.
pub fn is_footer(line: &str, footer: &str) -> bool {
    let line = line.trim();
    let split = |t: &str| {
        t.split_once(':')
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
    };
    match (
        is_trailer(line) && is_trailer(footer),
        split(line),
        split(footer),
    ) {
        (true, Some((k1, v1)), Some((k2, v2))) => k1.eq_ignore_ascii_case(&k2) && v1 == v2,
        _ => line == footer,
    }
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The trailer lines git writes itself, whatever the paragraph around them.
const GIT_GENERATED: [&str; 2] = ["Signed-off-by: ", "(cherry picked from commit "];

/// Is this line a trailer to git: one it writes itself, or `Key: value`
/// (`find_separator` of git's trailer.c: letters, digits and `-`, then
/// perhaps blanks, then the `:`)?
pub fn is_trailer(line: &str) -> bool {
    if GIT_GENERATED.iter().any(|p| line.starts_with(p)) {
        return true;
    }
    let mut blanks = false;
    for (at, c) in line.char_indices() {
        match c {
            ':' => return at > 0,
            c if !blanks && (c.is_ascii_alphanumeric() || c == '-') => {}
            ' ' | '\t' if at > 0 => blanks = true,
            _ => return false,
        }
    }
    false
}

/// Is this last paragraph a trailer block to git (`find_trailer_block_start`)?
/// All its lines trailers, or, with one that git writes itself, at least a
/// quarter; lines that start with a blank continue the trailer above them,
/// and count as others where no trailer is above them.
pub fn trailer_block(lines: &[&str]) -> bool {
    let (mut trailers, mut others, mut continued, mut generated) = (0, 0, 0, false);
    for line in lines.iter().rev() {
        if is_trailer(line) {
            trailers += 1;
            continued = 0;
            generated |= GIT_GENERATED.iter().any(|p| line.starts_with(p));
        } else if line.starts_with([' ', '\t']) {
            continued += 1;
        } else {
            others += 1 + continued;
            continued = 0;
        }
    }
    others += continued;
    (generated && trailers * 3 >= others) || (trailers > 0 && others == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailers_read_as_git_reads_them() {
        for yes in [
            "Key: v",
            "Key-2: v",
            "Key :v",
            "Key\t: v",
            "Signed-off-by: A",
            "(cherry picked from commit a)",
        ] {
            assert!(is_trailer(yes), "{yes}");
        }
        for no in [
            ": v",
            " Key: v",
            "Key x: v",
            "[Contract: c1]",
            "Käy: v",
            "no colon",
        ] {
            assert!(!is_trailer(no), "{no}");
        }
    }
}
