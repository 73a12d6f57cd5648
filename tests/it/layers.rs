//! The map stays true: ARCHITECTURE.md's layer list against the imports.
//!
//! "What may import what" in ARCHITECTURE.md lists the modules in layers;
//! a `crate::` path (in a `use` or in code) may name a module of its own
//! layer or of one below, never one above. Alongside, the largest circle
//! of imports among source files stays small and inside one folder.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The layers as ARCHITECTURE.md numbers them: module name -> layer.
fn layers() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("## What may import what")
        .nth(1)
        .expect("ARCHITECTURE.md has a section \"What may import what\"");
    let mut layers = BTreeMap::new();
    for line in section.lines() {
        let Some((number, rest)) = line.split_once(". ") else {
            continue;
        };
        let Ok(layer) = number.trim().parse::<usize>() else {
            continue;
        };
        // The names before the dash that starts the line's comment.
        let names = rest.split(" — ").next().unwrap_or_default();
        for name in names.split('`').skip(1).step_by(2) {
            layers.insert(name.to_string(), layer);
        }
    }
    assert!(layers.len() > 10, "no layer list found: {layers:?}");
    layers
}

/// Every source file that is not a test, relative to `src/`.
fn sources() -> Vec<PathBuf> {
    let src = Path::new(ROOT).join("src");
    let mut out = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(&src).unwrap().to_path_buf();
            let name = rel.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "tests" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file: `facts/repo.rs` is `["facts", "repo"]`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The text that counts: no comments, nothing from the first test module on.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line.split(" // ").next().unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The paths a file names from `crate::` or `super::`, braces expanded
/// (`crate::a::{b, c::d}` is `a::b` and `a::c::d`), each resolved to the
/// module path it starts from.
fn paths_named(me: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
            continue;
        }
        let tail: String = take_path(&code[at..]);
        for path in expand(&tail) {
            let segs: Vec<&str> = path.split("::").map(str::trim).collect();
            let (mut base, rest) = match segs[0] {
                "crate" => (Vec::new(), &segs[1..]),
                _ => {
                    let ups = segs.iter().take_while(|s| **s == "super").count();
                    let base = me[..me.len().saturating_sub(ups)].to_vec();
                    (base, &segs[ups..])
                }
            };
            base.extend(
                rest.iter()
                    .map(|s| s.split(" as ").next().unwrap().trim().to_string()),
            );
            out.push(base);
        }
    }
    out
}

/// The path starting at `text`: words, `::` and balanced braces.
fn take_path(text: &str) -> String {
    let mut depth = 0usize;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            c if c.is_alphanumeric() || c == '_' || c == ':' => {}
            ',' | ' ' | '\n' | '*' if depth > 0 => {}
            _ => {
                if depth == 0 {
                    break;
                }
            }
        }
        end = i + c.len_utf8();
    }
    text[..end].trim_end_matches(':').to_string()
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(path: &str) -> Vec<String> {
    let Some(open) = path.find('{') else {
        return vec![path.to_string()];
    };
    let prefix = &path[..open];
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .map(str::trim)
        .filter(|i| !i.is_empty() && *i != "self" && *i != "*")
        .flat_map(|i| expand(&format!("{prefix}{i}")))
        .chain(std::iter::once(prefix.trim_end_matches("::").to_string()))
        .collect()
}

/// Each source file and the source files it imports.
fn imports() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let files = sources();
    let by_module: BTreeMap<Vec<String>, PathBuf> =
        files.iter().map(|f| (module_of(f), f.clone())).collect();
    let src = Path::new(ROOT).join("src");
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(src.join(file)).unwrap();
            let me = module_of(file);
            let named = paths_named(&me, &code(&text))
                .into_iter()
                .filter_map(|path| {
                    (0..=path.len())
                        .rev()
                        .find_map(|n| by_module.get(&path[..n]))
                        .filter(|target| *target != file)
                        .cloned()
                })
                .collect();
            (file.clone(), named)
        })
        .collect()
}

/// The top module a source file belongs to (`facts/repo.rs`: `facts`).
fn top(file: &Path) -> String {
    module_of(file)
        .first()
        .cloned()
        .unwrap_or_else(|| "lib".into())
}

#[test]
fn imports_point_down_the_layer_list() {
    let layers = layers();
    let mut offenders = Vec::new();
    for (file, targets) in imports() {
        let from = top(&file);
        if from == "lib" {
            continue;
        }
        let Some(&mine) = layers.get(&from) else {
            offenders.push(format!(
                "{}: `{from}` is missing from the layer list",
                file.display()
            ));
            continue;
        };
        for target in targets {
            let to = top(&target);
            match layers.get(&to) {
                Some(&theirs) if theirs > mine => offenders.push(format!(
                    "{} (layer {mine}) imports {} (layer {theirs})",
                    file.display(),
                    target.display()
                )),
                None => offenders.push(format!(
                    "{}: `{to}` is missing from the layer list",
                    target.display()
                )),
                _ => {}
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "imports that point up ARCHITECTURE.md's layer list:\n{}",
        offenders.join("\n")
    );
}

/// The strongly connected components of the import graph (Tarjan).
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g PathBuf) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in &self.graph[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w]));
                } else if self.stack.contains(&w) {
                    self.low.insert(v, self.low[v].min(self.index[w]));
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().position(|x| *x == v).unwrap();
                self.found.push(self.stack.drain(at..).cloned().collect());
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

#[test]
fn no_import_circle_crosses_a_folder() {
    let graph = imports();
    let mut all = circles(&graph);
    all.sort_by_key(|c| std::cmp::Reverse(c.len()));
    let largest = &all[0];
    eprintln!(
        "{} source files; the largest import circle has {} files: {largest:?}",
        graph.len(),
        largest.len()
    );
    assert!(
        largest.len() <= 6,
        "an import circle of {} files: {largest:?}",
        largest.len()
    );
    for circle in all.iter().filter(|c| c.len() > 1) {
        let folders: BTreeSet<_> = circle.iter().map(|f| f.parent()).collect();
        assert_eq!(
            folders.len(),
            1,
            "an import circle across folders: {circle:?}"
        );
    }
}

#[test]
fn the_parser_reads_braces_and_super() {
    let me = vec!["checkpoint".to_string(), "undo".to_string()];
    let named = paths_named(
        &me,
        "use crate::facts::{self, worktrees::{list, Existing}};\nlet x = super::store::short(id);",
    );
    let named: Vec<String> = named.iter().map(|p| p.join("::")).collect();
    for want in [
        "facts::worktrees::list",
        "facts::worktrees::Existing",
        "facts",
        "checkpoint::store::short",
    ] {
        assert!(named.contains(&want.to_string()), "{want}: {named:?}");
    }
}
