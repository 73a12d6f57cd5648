//! Tables for people: each column as wide as its widest cell, two spaces
//! between columns, the last one unpadded. Widths are what a terminal
//! shows (unicode-width: a CJK character takes two columns, a combining
//! mark none), not bytes or chars. Pure: text in, text out.

use unicode_width::UnicodeWidthStr;

/// Rows of cells under a header.
pub struct Table {
    rows: Vec<Vec<String>>,
    right: Vec<usize>,
}

impl Table {
    /// A table with this header row (pass an empty slice for none).
    pub fn new(header: &[&str]) -> Table {
        let rows = if header.is_empty() {
            Vec::new()
        } else {
            vec![header.iter().map(|h| h.to_string()).collect()]
        };
        Table {
            rows,
            right: Vec::new(),
        }
    }

    /// Aligns column `col` (from 0) to the right, as numbers are.
    pub fn right(mut self, col: usize) -> Table {
        self.right.push(col);
        self
    }

    /// Adds a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as lines of text, each ending in a newline.
    pub fn render(&self) -> String {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let width = |col: usize| {
            self.rows
                .iter()
                .filter_map(|r| r.get(col))
                .map(|c| c.width())
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..columns).map(width).collect();
        let mut out = String::new();
        for row in &self.rows {
            let cells: Vec<&str> = row.iter().map(String::as_str).collect();
            row_line(&mut out, &cells, &widths, &self.right);
        }
        out
    }
}

/// Appends one row as [`Table::render`] lays it out: each cell padded to
/// its column's width in `widths` (on the left for the columns in
/// `right`), two spaces between, the last cell unpadded, no trailing
/// space, a newline.
pub fn row_line(out: &mut String, row: &[&str], widths: &[usize], right: &[usize]) {
    let start = out.len();
    for (col, cell) in row.iter().enumerate() {
        if col > 0 {
            out.push_str("  ");
        }
        let pad = widths[col] - cell.width();
        let last = col + 1 == row.len();
        if right.contains(&col) {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(cell);
        } else {
            out.push_str(cell);
            if !last {
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
    }
    let kept = out[start..].trim_end().len();
    out.truncate(start + kept);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn columns_fit_their_widest_cell() {
        let mut t = Table::new(&["ID", "BRANCH", "FILES", "WHAT"]).right(2);
        t.row(vec![
            "chk-1".into(),
            "agent/a-long-branch-name".into(),
            "3".into(),
            "x".into(),
        ]);
        t.row(vec![
            "chk-10".into(),
            "b".into(),
            "120".into(),
            "y z".into(),
        ]);
        assert_eq!(
            t.render(),
            "ID      BRANCH                    FILES  WHAT\n\
             chk-1   agent/a-long-branch-name      3  x\n\
             chk-10  b                           120  y z\n"
        );
        assert_eq!(Table::new(&[]).render(), "");
    }

    #[test]
    fn wide_characters_take_the_columns_a_terminal_gives_them() {
        let mut t = Table::new(&["BRANCH", "FILES"]).right(1);
        t.row(vec!["agent/修正".into(), "3".into()]);
        t.row(vec!["agent/fix-a".into(), "12".into()]);
        // `修正` is four columns wide: both rows end at the same column.
        assert_eq!(
            t.render(),
            "BRANCH       FILES\n\
             agent/修正       3\n\
             agent/fix-a     12\n"
        );
    }
}
