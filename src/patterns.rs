//! Branch and contract patterns: globs in which `*` crosses `/`, matched
//! cheaply.
//!
//! Building a `GlobSet` costs some 150,000 instructions (it compiles an
//! Aho-Corasick automaton): a sixth of a mutating command's work in the
//! shim, and most of an agent's hook run. The patterns a policy holds are
//! nearly always a plain name (`main`) or a name and one final `*`
//! (`release/*`, `agent/*`): those are matched as strings, exactly as the
//! glob matches them, and a `GlobSet` is built only for the others.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Compiled patterns.
#[derive(Clone, Debug, Default)]
pub struct Patterns {
    exact: Vec<String>,
    prefixes: Vec<String>,
    others: Option<GlobSet>,
}

/// What makes a pattern more than a plain name, for globset.
/// The characters that make a pattern a glob.
pub const META: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

impl Patterns {
    /// Compiles `patterns`; the error names the first that is not a glob.
    pub fn new(patterns: &[String]) -> Result<Patterns, String> {
        Self::build(patterns, true)
    }

    /// Compiles the patterns that are globs and leaves out any other (for
    /// patterns checked before, where losing all of them to one bad one
    /// would protect nothing).
    pub fn lenient(patterns: &[String]) -> Patterns {
        Self::build(patterns, false).unwrap_or_default()
    }

    fn build(patterns: &[String], strict: bool) -> Result<Patterns, String> {
        let mut compiled = Patterns::default();
        let mut others = GlobSetBuilder::new();
        let mut any_other = false;
        for pattern in patterns {
            if !pattern.contains(META) {
                compiled.exact.push(pattern.clone());
            } else if let Some(prefix) = pattern.strip_suffix('*').filter(|p| !p.contains(META)) {
                compiled.prefixes.push(prefix.to_string());
            } else {
                match Glob::new(pattern) {
                    Ok(glob) => {
                        others.add(glob);
                        any_other = true;
                    }
                    Err(e) if strict => return Err(format!("bad pattern '{pattern}': {e}")),
                    Err(_) => {}
                }
            }
        }
        if any_other {
            compiled.others = Some(others.build().map_err(|e| e.to_string())?);
        }
        Ok(compiled)
    }

    /// Does any pattern match `name`?
    pub fn is_match(&self, name: &str) -> bool {
        self.exact.iter().any(|e| e == name)
            || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
            || self.others.as_ref().is_some_and(|g| g.is_match(name))
    }
}

/// The branches the protected patterns name one by one, in order: where
/// the team layer may be committed. A plain name is one (not a tag); so is
/// each name of one brace group of plain names (`{main,develop}` names
/// `main` and `develop`, never a branch of that literal name, which anyone
/// could make); a pattern with any other glob in it names none.
pub fn literal_branches(protected: &[String]) -> Vec<String> {
    use crate::patterns::META;
    let mut out: Vec<String> = Vec::new();
    for p in protected.iter().filter(|p| !p.starts_with("tags/")) {
        if !p.contains(META) {
            out.push(p.clone());
            continue;
        }
        let Some((prefix, rest)) = p.split_once('{') else {
            continue;
        };
        let Some((group, suffix)) = rest.split_once('}') else {
            continue;
        };
        if [prefix, group, suffix]
            .iter()
            .any(|s| s.replace(',', "").contains(META))
        {
            continue;
        }
        out.extend(
            group
                .split(',')
                .map(|alt| format!("{prefix}{alt}{suffix}"))
                .filter(|b| !b.is_empty() && !b.starts_with("tags/")),
        );
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn globset(patterns: &[String]) -> Option<GlobSet> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            b.add(Glob::new(p).ok()?);
        }
        b.build().ok()
    }

    #[test]
    fn plain_names_and_final_stars_match_as_the_glob_does() {
        let p = Patterns::new(&["main".into(), "release/*".into()]).unwrap();
        assert!(p.is_match("main"));
        assert!(!p.is_match("mainx"));
        assert!(p.is_match("release/1/2"), "* crosses /");
        assert!(p.is_match("release/"));
        assert!(!p.is_match("releases/1"));
        assert!(Patterns::new(&["[".into()]).is_err());
        let kept = Patterns::lenient(&["[".into(), "main".into(), "v{1,2}".into()]);
        assert!(kept.is_match("main") && kept.is_match("v2"));
        assert!(!Patterns::default().is_match("main"));
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_globset(
            patterns in proptest::collection::vec("[ab/*?.\\-\\[\\]{},!]{0,6}", 0..4),
            names in proptest::collection::vec("[ab/.\\-]{0,6}", 1..6),
        ) {
            let ours = Patterns::new(&patterns);
            match globset(&patterns) {
                None => proptest::prop_assert!(ours.is_err()),
                Some(set) => {
                    let ours = ours.unwrap();
                    for name in &names {
                        proptest::prop_assert_eq!(ours.is_match(name), set.is_match(name), "{:?} {:?}", patterns, name);
                    }
                }
            }
        }
    }
}
