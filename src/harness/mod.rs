//! `git ward install --harness NAME` and `uninstall --harness NAME`: a
//! harness's configuration, written and put back.
//!
//! Install merges git-ward's entries into the files [`targets`] names,
//! structurally (JSON with its keys in their order; a TOML table appended,
//! the rest of the file as it was), and only where they are missing, so a
//! second install changes nothing. Before a file is first changed, its
//! bytes (or its absence) are recorded in `<git-common-dir>/ward/harness.json`
//! (user scope: `$XDG_DATA_HOME/git-ward/harness.json`), with the bytes
//! written. Uninstall puts back the original bytes when the file is still
//! what git-ward wrote; when it was edited since, it takes out git-ward's
//! entries only and keeps the edits.

pub mod ordered;
pub mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, IoContext, Result};
use crate::pretool::Harness;
use ordered::Json;
use targets::{Edit, Target};

/// What was in one file before git-ward changed it, and what it wrote.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct FileRecord {
    harness: String,
    /// The file's text before (`None`: there was no file).
    original: Option<String>,
    written: String,
    /// Directories made for it, deepest last, removed again when empty.
    created_dirs: Vec<PathBuf>,
}

type Records = BTreeMap<PathBuf, FileRecord>;

/// Where a scope's files and its record are.
struct Place {
    base: PathBuf,
    store: PathBuf,
    user: bool,
}

fn place(user: bool) -> Result<Place> {
    if user {
        let home = crate::env::var(crate::env::HOME)
            .map(PathBuf::from)
            .ok_or_else(|| {
                Error::invalid(
                    "HOME is not set",
                    "set HOME, or install for the project (--project)",
                )
            })?;
        let data = crate::env::var(crate::env::XDG_DATA_HOME)
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".local/share"));
        return Ok(Place {
            base: home,
            store: data.join("git-ward").join("harness.json"),
            user,
        });
    }
    let repo = crate::facts::Repo::discover().ok_or_else(|| {
        Error::invalid(
            "not in a git repository",
            "run it in the project's repository, or install for the user (--user)",
        )
    })?;
    let base = repo.workdir().map(Path::to_path_buf).ok_or_else(|| {
        Error::invalid(
            "a bare repository has no project files",
            "run it in a working tree, or pass --user",
        )
    })?;
    Ok(Place {
        base,
        store: repo.common_dir().join("ward").join("harness.json"),
        user,
    })
}

fn load(store: &Path) -> Records {
    std::fs::read(store)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

fn save(store: &Path, records: &Records) -> Result<()> {
    let text = serde_json::to_vec_pretty(records).unwrap_or_default();
    crate::state_file::replace(store, &text).at("write", store)
}

/// A file's text, `None` when there is none.
fn read_text(path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            Error::invalid(
                format!("{} is not UTF-8 text", path.display()),
                "a harness's settings are JSON or TOML text: fix the file, or move it away",
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).at("read", path),
    }
}

fn scope_word(user: bool) -> &'static str {
    if user {
        "user"
    } else {
        "project"
    }
}

/// The scope's place, its record, and the harness's files there.
fn prepare(harness: Harness, user: bool) -> Result<(Place, Records, Vec<Target>)> {
    let place = place(user)?;
    let binary = crate::hooks::install::own_path()?;
    let records = load(&place.store);
    let shim = crate::facts::install_record::default_shim_dir();
    let targets = targets::targets(harness, &place.base, place.user, &binary, shim.as_deref());
    Ok((place, records, targets))
}

/// Runs `git ward install --harness`.
pub fn install(harness: Harness, user: bool) -> Result<(serde_json::Value, String)> {
    let (place, mut records, targets) = prepare(harness, user)?;
    let mut done = Vec::new();
    for target in targets {
        let current = read_text(&target.file)?;
        let action = match merged(&target, current.as_deref())? {
            None => "unchanged",
            Some(text) => {
                let first = !records.contains_key(&target.file);
                if first {
                    let created_dirs = missing_dirs(&target.file, &place.base);
                    records.insert(
                        target.file.clone(),
                        FileRecord {
                            harness: harness.as_str().into(),
                            original: current.clone(),
                            written: text.clone(),
                            created_dirs,
                        },
                    );
                } else if let Some(record) = records.get_mut(&target.file) {
                    record.written = text.clone();
                }
                // The record first: a file changed without one could not be put back.
                save(&place.store, &records)?;
                crate::state_file::replace(&target.file, text.as_bytes())
                    .at("write", &target.file)?;
                if current.is_some() {
                    "updated"
                } else {
                    "created"
                }
            }
        };
        done.push((target.file, action));
    }
    Ok(report(harness, user, &done))
}

/// Runs `git ward uninstall --harness`.
pub fn uninstall(harness: Harness, user: bool) -> Result<(serde_json::Value, String)> {
    let (place, mut records, targets) = prepare(harness, user)?;
    let mut done = Vec::new();
    for target in targets {
        let current = read_text(&target.file)?;
        let record = records
            .get(&target.file)
            .filter(|r| r.harness == harness.as_str())
            .cloned();
        let action = match (record, current) {
            (Some(record), current) if current.as_deref() == Some(record.written.as_str()) => {
                match &record.original {
                    Some(original) => crate::state_file::replace(&target.file, original.as_bytes())
                        .at("write", &target.file)?,
                    None => std::fs::remove_file(&target.file).at("remove", &target.file)?,
                }
                for dir in record.created_dirs.iter().rev() {
                    let _ = std::fs::remove_dir(dir);
                }
                "restored"
            }
            (_, None) => "absent",
            (_, Some(text)) => match without_ours(&target, &text)? {
                Some(kept) => {
                    crate::state_file::replace(&target.file, kept.as_bytes())
                        .at("write", &target.file)?;
                    "edited since: git-ward's entries removed, the rest kept"
                }
                None => "not git-ward's: left",
            },
        };
        if records.remove(&target.file).is_some() {
            save(&place.store, &records)?;
        }
        done.push((target.file, action));
    }
    Ok(report(harness, user, &done))
}

/// The harnesses set up here (every file holding git-ward's entries), by scope.
pub fn set_up() -> Vec<(Harness, &'static str)> {
    let Ok(binary) = crate::hooks::install::own_path() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for user in [false, true] {
        let Ok(place) = place(user) else {
            continue;
        };
        let shim = crate::facts::install_record::default_shim_dir();
        for harness in Harness::ALL {
            let all = targets::targets(harness, &place.base, user, &binary, shim.as_deref())
                .iter()
                .all(|t| {
                    let current = read_text(&t.file).ok().flatten();
                    current.is_some() && matches!(merged(t, current.as_deref()), Ok(None))
                });
            if all {
                out.push((harness, scope_word(user)));
            }
        }
    }
    out
}

fn report(harness: Harness, user: bool, done: &[(PathBuf, &str)]) -> (serde_json::Value, String) {
    let text = done
        .iter()
        .map(|(file, action)| format!("{action:<10} {}\n", file.display()))
        .collect::<String>();
    let files: Vec<_> = done
        .iter()
        .map(|(file, action)| serde_json::json!({"path": file.to_string_lossy(), "action": action}))
        .collect();
    (
        serde_json::json!({"harness": harness.as_str(), "scope": scope_word(user), "files": files}),
        text,
    )
}

/// The parents of `file` below `base` that are not there yet, outermost first.
fn missing_dirs(file: &Path, base: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = file
        .ancestors()
        .skip(1)
        .take_while(|d| d.starts_with(base) && *d != base && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

fn not_valid(file: &Path, what: &str, why: impl std::fmt::Display) -> Error {
    Error::invalid(
        format!("{} is not valid {what}: {why}", file.display()),
        "fix the file (or move it away), then run the command again",
    )
}

/// The file's text with git-ward's entries added; `None` when they are all there.
fn merged(target: &Target, current: Option<&str>) -> Result<Option<String>> {
    let toml = target
        .edits
        .iter()
        .any(|e| matches!(e, Edit::TomlTable { .. }));
    if toml {
        return merged_toml(target, current.unwrap_or_default());
    }
    let mut doc = match current.filter(|t| !t.trim().is_empty()) {
        Some(text) => Json::parse(text).map_err(|e| not_valid(&target.file, "JSON", e))?,
        None => target.seed.clone().unwrap_or(Json::Object(Vec::new())),
    };
    let mut changed = false;
    for edit in &target.edits {
        changed |= add(&mut doc, edit).ok_or_else(|| {
            not_valid(
                &target.file,
                "settings",
                "a key git-ward adds to holds another kind of value",
            )
        })?;
    }
    Ok(changed.then(|| doc.to_text()))
}

/// Adds one entry; `Some(changed)`, or `None` where the file's shape does not allow it.
fn add(doc: &mut Json, edit: &Edit) -> Option<bool> {
    match edit {
        Edit::JsonPush { path, item, marker } => {
            let (last, parents) = path.split_last()?;
            let mut at = doc;
            for key in parents {
                at = at.entry(key, Json::Object(Vec::new()))?;
            }
            let Json::Array(items) = at.entry(last, Json::Array(Vec::new()))? else {
                return None;
            };
            if items.iter().any(|i| i.mentions(marker)) {
                return Some(false);
            }
            items.push(item.clone());
            Some(true)
        }
        Edit::JsonKey { path, key, value } => {
            let mut at = doc;
            for k in *path {
                at = at.entry(k, Json::Object(Vec::new()))?;
            }
            if at.get(key).is_some() {
                return Some(false);
            }
            at.entry(key, value.clone())?;
            Some(true)
        }
        Edit::TomlTable { .. } => None,
    }
}

fn merged_toml(target: &Target, current: &str) -> Result<Option<String>> {
    let table: toml::Table =
        toml::from_str(current).map_err(|e| not_valid(&target.file, "TOML", e))?;
    let mut text = current.to_string();
    for edit in &target.edits {
        let Edit::TomlTable {
            dotted,
            text: block,
        } = edit
        else {
            continue;
        };
        let mut at = Some(&table);
        for key in *dotted {
            at = at.and_then(|t| t.get(*key)).and_then(toml::Value::as_table);
        }
        if at.is_none() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(block);
        }
    }
    if text == current {
        return Ok(None);
    }
    // Appended tables must leave a file that still reads (a table defined
    // inline elsewhere would not).
    toml::from_str::<toml::Table>(&text)
        .map_err(|e| not_valid(&target.file, "TOML once git-ward's table is added", e))?;
    Ok(Some(text))
}

/// The text without git-ward's entries; `None` when it holds none.
fn without_ours(target: &Target, text: &str) -> Result<Option<String>> {
    let mut kept = text.to_string();
    let mut json = None;
    for edit in &target.edits {
        match edit {
            Edit::TomlTable { text: block, .. } => kept = kept.replacen(block.as_str(), "", 1),
            Edit::JsonPush { path, marker, .. } => {
                let doc = json.get_or_insert(
                    Json::parse(text).map_err(|e| not_valid(&target.file, "JSON", e))?,
                );
                if let Some(Json::Array(items)) = walk(doc, path) {
                    items.retain(|i| !i.mentions(marker));
                }
            }
            Edit::JsonKey { path, key, .. } => {
                let doc = json.get_or_insert(
                    Json::parse(text).map_err(|e| not_valid(&target.file, "JSON", e))?,
                );
                if let Some(at) = walk(doc, path) {
                    at.remove(key);
                }
            }
        }
    }
    if let Some(doc) = json {
        if Json::parse(text).ok().as_ref() != Some(&doc) {
            kept = doc.to_text();
        }
    }
    Ok((kept != text).then_some(kept))
}

fn walk<'a>(doc: &'a mut Json, path: &[&str]) -> Option<&'a mut Json> {
    let mut at = doc;
    for key in path {
        let Json::Object(entries) = at else {
            return None;
        };
        at = &mut entries.iter_mut().find(|(k, _)| k == key)?.1;
    }
    Some(at)
}
