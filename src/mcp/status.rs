//! `git status --porcelain=v2 --branch -z`, read into the JSON that
//! `git_status` returns.

use serde_json::{json, Value};

/// Turns `git status --porcelain=v2 --branch -z` into JSON.
pub fn parse_status(raw: &str) -> Value {
    let mut branch = Value::Null;
    let mut commit = Value::Null;
    let mut upstream = Value::Null;
    let (mut ahead, mut behind) = (Value::Null, Value::Null);
    let (mut staged, mut unstaged, mut untracked, mut conflicts) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut fields = raw.split('\0').filter(|f| !f.is_empty());
    while let Some(field) = fields.next() {
        if let Some(h) = field.strip_prefix("# ") {
            let (key, val) = h.split_once(' ').unwrap_or((h, ""));
            match key {
                "branch.oid" if val != "(initial)" => commit = json!(val),
                "branch.head" if val != "(detached)" => branch = json!(val),
                "branch.upstream" => upstream = json!(val),
                "branch.ab" => {
                    let mut it = val.split(' ');
                    ahead = json!(it
                        .next()
                        .and_then(|a| a.trim_start_matches('+').parse::<u64>().ok()));
                    behind = json!(it
                        .next()
                        .and_then(|b| b.trim_start_matches('-').parse::<u64>().ok()));
                }
                _ => {}
            }
            continue;
        }
        let kind = field.as_bytes()[0];
        let (xy, path, from) = match kind {
            b'1' => (field.get(2..4), field.splitn(9, ' ').nth(8), None),
            b'2' => (field.get(2..4), field.splitn(10, ' ').nth(9), fields.next()),
            b'u' => {
                if let Some(p) = field.splitn(11, ' ').nth(10) {
                    conflicts.push(json!(p));
                }
                continue;
            }
            b'?' => {
                untracked.push(json!(&field[2..]));
                continue;
            }
            _ => continue,
        };
        let (Some(xy), Some(path)) = (xy, path) else {
            continue;
        };
        let (x, y) = (&xy[..1], &xy[1..]);
        if x != "." {
            let mut e = json!({ "status": x, "path": path });
            if let Some(f) = from {
                e["from"] = json!(f);
            }
            staged.push(e);
        }
        if y != "." {
            unstaged.push(json!({ "status": y, "path": path }));
        }
    }
    let clean =
        staged.is_empty() && unstaged.is_empty() && untracked.is_empty() && conflicts.is_empty();
    json!({
        "branch": branch,
        "detached": branch.is_null(),
        "commit": commit,
        "upstream": upstream,
        "ahead": ahead,
        "behind": behind,
        "clean": clean,
        "staged": staged,
        "unstaged": unstaged,
        "untracked": untracked,
        "conflicts": conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_v2_parses_into_lists() {
        let raw = "# branch.oid 1111\0# branch.head main\0# branch.upstream origin/main\0# branch.ab +2 -1\0\
                   1 M. N... 100644 100644 100644 aaa bbb staged file.txt\0\
                   1 .M N... 100644 100644 100644 aaa bbb work.txt\0\
                   2 R. N... 100644 100644 100644 aaa bbb R100 new name.txt\0old.txt\0\
                   u UU N... 100644 100644 100644 100644 a b c both.txt\0\
                   ? notes/\0";
        let v = parse_status(raw);
        assert_eq!(v["branch"], "main");
        assert_eq!(v["upstream"], "origin/main");
        assert_eq!(
            (v["ahead"].as_u64(), v["behind"].as_u64()),
            (Some(2), Some(1))
        );
        assert_eq!(
            v["staged"],
            json!([{"status": "M", "path": "staged file.txt"}, {"status": "R", "path": "new name.txt", "from": "old.txt"}])
        );
        assert_eq!(v["unstaged"], json!([{"status": "M", "path": "work.txt"}]));
        assert_eq!(v["untracked"], json!(["notes/"]));
        assert_eq!(v["conflicts"], json!(["both.txt"]));
        assert_eq!(v["clean"], false);
        let v = parse_status("# branch.oid (initial)\0# branch.head (detached)\0");
        assert_eq!(
            (v["detached"].as_bool(), v["clean"].as_bool()),
            (Some(true), Some(true))
        );
    }
}
