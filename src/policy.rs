//! The policy: serde types, layered loading with origins, globs compiled once.
//!
//! Layers, lowest first, each overriding keys of the one before:
//!
//! 1. built in: the project's top-level `policy.toml`, compiled in;
//! 2. system: `/etc/git-ward/policy.toml` (`WARD_SYSTEM_POLICY` moves it, for tests);
//! 3. user: `$XDG_CONFIG_HOME/git-ward/policy.toml` (default `~/.config/...`);
//! 4. team: `.ward/policy.toml` from the *committed* tree of the first
//!    protected branch that exists locally, never the working copy;
//! 5. local: `<git-common-dir>/ward/policy.toml`;
//! 6. `WARD_POLICY=<file>`, for human actors only.
//!
//! Each layer is checked on its own first: bytes that are not UTF-8,
//! unknown keys, wrong types and values serde accepts but the policy does
//! not (a size, a duration, a glob) are each reported with file, line,
//! column and key. Then it is
//! merged key by key into a TOML table that remembers which layer set each
//! key. This module reads files but never runs git; the team layer's blob
//! is handed in by the caller.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::error::{printable, Error, Result};
use crate::patterns::Patterns;

/// The built-in policy, the project's own `policy.toml`.
pub const BUILT_IN: &str = include_str!("../policy.toml");

/// Whom the rules bind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Actors {
    #[default]
    Agents,
    Everyone,
}

/// `capabilities.ensure_working_branch`: on, off, or granted to contract globs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Capability {
    All(bool),
    Contracts(Vec<String>),
}

impl Default for Capability {
    fn default() -> Self {
        Capability::All(true)
    }
}

/// `commands.unknown`: how unknown subcommands count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownAs {
    #[default]
    Mutating,
    Read,
}

/// `server.agent_commits_to_protected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerAgentCommits {
    #[default]
    ViaMerge,
    Deny,
    Allow,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Enforce {
    pub actors: Actors,
    pub agent_env: Vec<String>,
    pub allow_no_verify: bool,
    pub drift: DriftAction,
}

/// `enforce.drift`: what an agent's command meets when a guarded ref moved
/// with no hook of git-ward's ([`crate::facts::drift`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftAction {
    /// A warning on stderr and an audit line; the command runs.
    #[default]
    Warn,
    /// The agent's mutating commands are refused (EN-GIT-D-004) until a
    /// person restores the refs or accepts them (`git ward drift`).
    Refuse,
    /// The refs are put back to the values git-ward last saw, before the
    /// agent's next command runs.
    Restore,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Branches {
    pub protected: Vec<String>,
    pub agent_prefix: String,
    pub sync_from_upstream: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Capabilities {
    pub ensure_working_branch: Capability,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Commands {
    pub read: Vec<String>,
    pub mutating: Vec<String>,
    pub unknown: UnknownAs,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Checkout {
    pub local_only: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PushPolicy {
    pub force_allowed: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CommitPolicy {
    pub footer: String,
    /// The `Assisted-by:` trailer of agent commits, empty for none.
    pub assisted_by: String,
    /// The `{model}` of `assisted_by` when the harness does not say.
    pub model: String,
    /// Trailer keys agent commits lose (`Co-Authored-By`, any case).
    pub strip_trailers: Vec<String>,
    /// `allow` or `refuse` an agent's commit that carries `Signed-off-by`.
    pub signed_off_by: String,
}

impl CommitPolicy {
    /// Whether the policy asks anything of a commit besides the footer.
    pub fn attributes(&self) -> bool {
        !self.assisted_by.is_empty()
            || !self.strip_trailers.is_empty()
            || self.signed_off_by == "refuse"
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckpointPolicy {
    pub before_destructive: bool,
    pub include_ignored: Vec<String>,
    pub max_file_size: String,
    pub keep: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Turns {
    pub pollution_threshold: u32,
    pub rollback_on_pollution: bool,
    pub test_timeout: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditPolicy {
    pub reads: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Timeouts {
    pub git_seconds: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Server {
    pub agent_commits_to_protected: ServerAgentCommits,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Init {
    pub ignore: Vec<String>,
    pub user_name: String,
    pub user_email: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Mcp {
    pub max_output_bytes: u64,
}

/// The settings, one field per section of `policy.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub enforce: Enforce,
    pub branches: Branches,
    pub capabilities: Capabilities,
    pub commands: Commands,
    pub checkout: Checkout,
    pub push: PushPolicy,
    pub commit: CommitPolicy,
    pub checkpoint: CheckpointPolicy,
    pub turns: Turns,
    pub audit: AuditPolicy,
    pub timeouts: Timeouts,
    pub server: Server,
    pub init: Init,
    pub mcp: Mcp,
}

/// Where a value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    BuiltIn,
    System(PathBuf),
    User(PathBuf),
    /// `.ward/policy.toml` committed on this branch.
    Team(String),
    Local(PathBuf),
    Env(PathBuf),
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::BuiltIn => write!(f, "built-in"),
            Layer::System(p) => write!(f, "system ({})", p.display()),
            Layer::User(p) => write!(f, "user ({})", p.display()),
            Layer::Team(branch) => write!(f, "team (.ward/policy.toml on {branch})"),
            Layer::Local(p) => write!(f, "local ({})", p.display()),
            Layer::Env(p) => write!(f, "WARD_POLICY ({})", p.display()),
        }
    }
}

/// The effective policy: settings, the layers above the built-in one (for
/// origins, computed on demand), and globs compiled on first use. With no
/// layer but the built-in one, the embedded file is parsed once, straight
/// into [`Settings`]: that is the common case on every git call.
#[derive(Clone, Debug)]
pub struct Policy {
    pub settings: Settings,
    /// The checked tables of the layers above the built-in one, lowest first.
    layers: Vec<(Layer, toml::Table)>,
    /// The built-in table with every layer merged in; `None` until a layer is added.
    merged: Option<toml::Table>,
    protected: OnceLock<Patterns>,
    force_allowed: OnceLock<Patterns>,
    capability_globs: OnceLock<Patterns>,
}

/// Parses and checks one layer's text; `source` names it in errors.
pub fn parse_layer(text: &str, source: &str) -> Result<toml::Table> {
    let table: toml::Table = toml::from_str(text).map_err(|e| layer_error(text, source, &e))?;
    let settings: Settings = match table.clone().try_into() {
        Ok(settings) => settings,
        // Parse again for the error's position: only on the failing path.
        Err(first) => {
            return Err(match toml::from_str::<Settings>(text) {
                Err(e) => layer_error(text, source, &e),
                Ok(_) => layer_error(text, source, &first),
            })
        }
    };
    check_values(&settings, &table).map_err(|bad| bad_value(text, source, &bad))?;
    Ok(table)
}

/// A value its type accepts but the policy does not.
#[derive(Debug)]
struct BadValue {
    /// The dotted key, `checkpoint.max_file_size`.
    key: String,
    /// The item of a list that is wrong, when one is.
    item: Option<usize>,
    why: String,
}

/// Checks what serde cannot: sizes, durations, globs, the footer.
fn check_values(settings: &Settings, table: &toml::Table) -> std::result::Result<(), BadValue> {
    let has = |section: &str, key: &str| {
        table
            .get(section)
            .and_then(|s| s.as_table())
            .is_some_and(|s| s.contains_key(key))
    };
    let bad = |key: &str, why: String| {
        Err(BadValue {
            key: key.to_string(),
            item: None,
            why,
        })
    };
    if has("checkpoint", "max_file_size")
        && parse_size(&settings.checkpoint.max_file_size).is_none()
    {
        return bad(
            "checkpoint.max_file_size",
            format!(
                "'{}' is not a size like 16MiB",
                settings.checkpoint.max_file_size
            ),
        );
    }
    if has("turns", "test_timeout") {
        let timeout = &settings.turns.test_timeout;
        match parse_duration(timeout) {
            None => {
                return bad(
                    "turns.test_timeout",
                    format!("'{timeout}' is not a duration like 30m"),
                )
            }
            // No test finishes in no time: every turn would fail.
            Some(limit) if limit.is_zero() => {
                return bad(
                    "turns.test_timeout",
                    format!("'{timeout}' leaves the tests no time; give them at least 1s"),
                )
            }
            Some(_) => {}
        }
    }
    for (section, key, value) in [
        ("checkpoint", "keep", u64::from(settings.checkpoint.keep)),
        (
            "turns",
            "pollution_threshold",
            u64::from(settings.turns.pollution_threshold),
        ),
        ("timeouts", "git_seconds", settings.timeouts.git_seconds),
    ] {
        if has(section, key) && value == 0 {
            return bad(
                &format!("{section}.{key}"),
                "must be at least 1".to_string(),
            );
        }
    }
    if has("branches", "agent_prefix") {
        if let Err(why) = check_agent_prefix(&settings.branches.agent_prefix) {
            return bad("branches.agent_prefix", why);
        }
    }
    if has("commit", "footer") && !settings.commit.footer.contains("{contract}") {
        return bad("commit.footer", "must contain {contract}".to_string());
    }
    // The hooks find a footer already there by its line: one of several
    // lines would be appended again by each hook.
    if has("commit", "footer") && settings.commit.footer.contains(['\n', '\r']) {
        return bad("commit.footer", "must be one line".to_string());
    }
    // git keeps no NUL (or other control character) in a commit message.
    if has("commit", "footer") && settings.commit.footer.chars().any(char::is_control) {
        return bad(
            "commit.footer",
            "must hold no control characters".to_string(),
        );
    }
    if has("commit", "signed_off_by")
        && !matches!(settings.commit.signed_off_by.as_str(), "allow" | "refuse")
    {
        return bad(
            "commit.signed_off_by",
            format!(
                "'{}' is neither \"allow\" nor \"refuse\"",
                settings.commit.signed_off_by
            ),
        );
    }
    if has("commit", "assisted_by") && settings.commit.assisted_by.chars().any(char::is_control) {
        return bad(
            "commit.assisted_by",
            "must be one line, without control characters".to_string(),
        );
    }
    let contract_globs = match &settings.capabilities.ensure_working_branch {
        Capability::Contracts(globs) => Some(globs),
        Capability::All(_) => None,
    };
    for (section, key, globs) in [
        ("branches", "protected", Some(&settings.branches.protected)),
        ("push", "force_allowed", Some(&settings.push.force_allowed)),
        ("capabilities", "ensure_working_branch", contract_globs),
    ] {
        let Some(globs) = globs.filter(|_| has(section, key)) else {
            continue;
        };
        // A full ref name is never a short name: it would protect nothing.
        if section != "capabilities" {
            if let Some(i) = globs.iter().position(|g| g.starts_with("refs/")) {
                let hint = short_name(&globs[i])
                    .filter(|short| !short.is_empty())
                    .map(|short| format!(" (write '{short}')"))
                    .unwrap_or_default();
                return Err(BadValue {
                    key: format!("{section}.{key}"),
                    item: Some(i),
                    why: format!(
                        "'{}' is a full ref name, but patterns match short names, `main` for refs/heads/main, `tags/v1` for refs/tags/v1{hint}",
                        globs[i]
                    ),
                });
            }
        }
        if let Err(why) = compile(globs) {
            return Err(BadValue {
                key: format!("{section}.{key}"),
                // The first pattern that fails on its own, if one does.
                item: globs
                    .iter()
                    .position(|g| compile(std::slice::from_ref(g)).is_err()),
                why,
            });
        }
    }
    Ok(())
}

/// An agent branch is `<agent_prefix><contract>`: with any valid contract
/// id after it, the prefix must make a branch name git accepts (`git
/// branch` refuses one that starts with `-` too).
fn check_agent_prefix(prefix: &str) -> std::result::Result<(), String> {
    let branch = format!("{prefix}c1");
    let full = format!("refs/heads/{branch}");
    let valid = gix::validate::reference::name(full.as_str().into()).is_ok()
        && !branch.starts_with('-')
        && !prefix.contains("@{");
    if valid {
        Ok(())
    } else {
        Err(format!(
            "'{prefix}<contract>' is not a branch name git accepts (try \"agent/\")"
        ))
    }
}

/// Renders a [`BadValue`] as `source:line:column: key `k`: why`, the
/// position that of the value (or of the list's item) in `text`.
fn bad_value(text: &str, source: &str, bad: &BadValue) -> Error {
    let at = value_start(text, &bad.key, bad.item)
        .map(|offset| {
            let (line, col) = line_col(text, offset);
            format!(":{line}:{col}")
        })
        .unwrap_or_default();
    let key = &bad.key;
    // Values come from the file: shown with control characters escaped.
    Error::internal(printable(&format!(
        "invalid policy {source}{at}: key `{key}`: {}",
        bad.why
    )))
    .with_hint(printable(&format!(
        "fix `{key}` in {source}; `git ward policy check` validates a file"
    )))
}

/// Where the value of a dotted `section.key` (or its list item) starts in
/// `text`, as a byte offset.
fn value_start(text: &str, key: &str, item: Option<usize>) -> Option<usize> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let (section, name) = key.split_once('.')?;
    let value = doc.get_ref().get(section)?.get_ref().get(name)?;
    let value = match item {
        Some(i) => value.get_ref().get(i).unwrap_or(value),
        None => value,
    };
    Some(value.span().start)
}

/// The 1-based line and column (in characters) of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Renders a TOML error as `source:line:column: key `k`: message`.
fn layer_error(text: &str, source: &str, err: &toml::de::Error) -> Error {
    located_error(
        text,
        source,
        err.span().map(|s| s.start),
        err.message().trim(),
    )
}

/// A layer's bytes as its text: bytes that are not UTF-8 make it an
/// invalid policy, reported at the first of them.
pub fn layer_text<'a>(bytes: &'a [u8], source: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let valid = e.valid_up_to();
        let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
        let why = format!("not UTF-8 text (byte 0x{:02x})", bytes[valid]);
        located_error(text, source, Some(valid), &why)
    })
}

/// Renders an error at byte `at` of `text` as `source:line:column: key
/// `k`: message`, the key read from the start of that line.
fn located_error(text: &str, source: &str, at: Option<usize>, message: &str) -> Error {
    let (line, col, key) = match at {
        Some(at) => {
            let (line, col) = line_col(text, at);
            let line_text = text.lines().nth(line - 1).unwrap_or("");
            let key = line_text
                .split_once('=')
                .map(|(k, _)| k.trim().to_string())
                .unwrap_or_else(|| line_text.trim().to_string());
            (line, col, key)
        }
        None => (0, 0, String::new()),
    };
    // The key and the message quote the file: control characters escaped.
    Error::internal(printable(&format!(
        "invalid policy {source}:{line}:{col}: key `{key}`: {message}"
    )))
    .with_hint(printable(&format!(
        "fix {source} at line {line}; `git ward policy check {source}` validates it"
    )))
}

fn compile(globs: &[String]) -> std::result::Result<Patterns, String> {
    Patterns::new(globs)
}

/// The embedded `policy.toml` as values. Parsing its 3 KB of commented
/// TOML was 165,000 instructions (and the parser's code paged in) on every
/// command that loads the policy; a unit test checks that these are the
/// values the file holds, so the file stays the one to read and edit.
fn built_in_settings() -> Settings {
    let strings = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    Settings {
        enforce: Enforce {
            actors: Actors::Agents,
            agent_env: strings(crate::env::AGENT_MARKERS),
            allow_no_verify: false,
            drift: DriftAction::Warn,
        },
        branches: Branches {
            protected: strings(&["main", "master", "release/*", "tags/*"]),
            agent_prefix: "agent/".into(),
            sync_from_upstream: true,
        },
        capabilities: Capabilities {
            ensure_working_branch: Capability::All(true),
        },
        commands: Commands {
            read: Vec::new(),
            mutating: Vec::new(),
            unknown: UnknownAs::Mutating,
        },
        checkout: Checkout { local_only: true },
        push: PushPolicy {
            force_allowed: strings(&["agent/*"]),
        },
        commit: CommitPolicy {
            footer: "Contract: {contract}".into(),
            assisted_by: String::new(),
            model: String::new(),
            strip_trailers: Vec::new(),
            signed_off_by: "allow".into(),
        },
        checkpoint: CheckpointPolicy {
            before_destructive: true,
            include_ignored: Vec::new(),
            max_file_size: "16MiB".into(),
            keep: 200,
        },
        turns: Turns {
            pollution_threshold: 2,
            rollback_on_pollution: false,
            test_timeout: "30m".into(),
        },
        audit: AuditPolicy { reads: true },
        timeouts: Timeouts { git_seconds: 10 },
        server: Server {
            agent_commits_to_protected: ServerAgentCommits::ViaMerge,
        },
        init: Init {
            ignore: strings(&["*.db", "*.log", "__pycache__/", ".DS_Store"]),
            user_name: "agent".into(),
            user_email: "agent@workspace.local".into(),
        },
        mcp: Mcp {
            max_output_bytes: 65536,
        },
    }
}

/// The embedded file as a table, parsed once per process, when a layer
/// needs merging or origins are asked for.
fn built_in_table() -> &'static toml::Table {
    static TABLE: OnceLock<toml::Table> = OnceLock::new();
    TABLE.get_or_init(|| toml::from_str(BUILT_IN).unwrap_or_default())
}

/// Merges `layer` into `base`, key by key; a table merges into a table.
fn merge(base: &mut toml::Table, layer: toml::Table) {
    for (key, value) in layer {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(into)), toml::Value::Table(from)) => merge(into, from),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Does `table` set the dotted `key` (or a table above it)?
fn sets(table: &toml::Table, key: &str) -> bool {
    let mut current = table;
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        match current.get(part) {
            Some(toml::Value::Table(t)) if parts.peek().is_some() => current = t,
            Some(_) => return true,
            None => return false,
        }
    }
    false
}

fn leaf_origins(
    table: &toml::Table,
    prefix: &str,
    origin: &Layer,
    out: &mut BTreeMap<String, Layer>,
) {
    for (key, value) in table {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            toml::Value::Table(t) => leaf_origins(t, &path, origin, out),
            _ => {
                out.insert(path, origin.clone());
            }
        }
    }
}

impl Policy {
    /// The built-in policy alone: `built_in_settings`, no TOML parsed.
    pub fn built_in() -> Self {
        Policy {
            settings: built_in_settings(),
            layers: Vec::new(),
            merged: None,
            protected: OnceLock::new(),
            force_allowed: OnceLock::new(),
            capability_globs: OnceLock::new(),
        }
    }

    /// The built-in table with every layer merged on top.
    fn merged_table(&self) -> toml::Table {
        self.merged
            .clone()
            .unwrap_or_else(|| built_in_table().clone())
    }

    /// This policy with one more layer on top.
    pub fn with_layer(mut self, text: &str, origin: Layer) -> Result<Self> {
        self.add_layer(text, origin)?;
        Ok(self)
    }

    /// Puts one more layer on top from its file's bytes (see [`layer_text`]).
    pub fn add_layer_bytes(&mut self, bytes: &[u8], origin: Layer) -> Result<()> {
        let text = layer_text(bytes, &origin_source(&origin))?;
        self.add_layer(text, origin)
    }

    /// Puts one more layer on top, in place.
    pub fn add_layer(&mut self, text: &str, origin: Layer) -> Result<()> {
        let layer = parse_layer(text, &origin_source(&origin))?;
        let mut merged = self.merged_table();
        merge(&mut merged, layer.clone());
        self.layers.push((origin, layer));
        self.settings = merged.clone().try_into().map_err(|e: toml::de::Error| {
            Error::internal(format!("invalid policy: {}", e.message()))
        })?;
        self.merged = Some(merged);
        self.protected = OnceLock::new();
        self.force_allowed = OnceLock::new();
        self.capability_globs = OnceLock::new();
        Ok(())
    }

    /// The layer that set a dotted key (`branches.protected`) last.
    pub fn origin(&self, key: &str) -> Layer {
        self.layers
            .iter()
            .rev()
            .find(|(_, table)| sets(table, key))
            .map_or(Layer::BuiltIn, |(layer, _)| layer.clone())
    }

    /// Every leaf key of the effective policy, with the layer that set it last.
    pub fn origins(&self) -> BTreeMap<String, Layer> {
        let mut out = BTreeMap::new();
        leaf_origins(built_in_table(), "", &Layer::BuiltIn, &mut out);
        for (layer, table) in &self.layers {
            leaf_origins(table, "", layer, &mut out);
        }
        out
    }

    /// This policy with the file at `path` on top, if the file exists.
    pub fn with_file(mut self, path: &Path, origin: Layer) -> Result<Self> {
        self.add_file(path, origin)?;
        Ok(self)
    }

    /// Puts the file at `path` on top, in place, if anything is there: a
    /// path that names nothing at all is no layer; one that cannot be read
    /// (a symbolic link whose target is gone among them) is an error, so
    /// that a broken layer refuses instead of vanishing.
    pub fn add_file(&mut self, path: &Path, origin: Layer) -> Result<()> {
        let err = match crate::state_file::read_bounded(path, crate::state_file::MAX_READ) {
            Ok(bytes) => return self.add_layer_bytes(&bytes, origin),
            Err(e) => e,
        };
        let unreadable = |why: &dyn fmt::Display, hint: &str| {
            Err(
                Error::internal(format!("cannot read policy {}: {why}", path.display()))
                    .with_hint(hint),
            )
        };
        if err.kind() != std::io::ErrorKind::NotFound {
            return unreadable(&err, "make the file readable or remove it");
        }
        match std::fs::read_link(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Ok(target) => unreadable(
                &format!(
                    "it is a symbolic link to {}, which does not exist",
                    target.display()
                ),
                "point the link at a policy file or remove it",
            ),
            // Something is there after all (it came while being read).
            Err(_) => unreadable(&err, "make the file readable or remove it"),
        }
    }

    fn globs<'a>(cell: &'a OnceLock<Patterns>, patterns: &[String]) -> &'a Patterns {
        // Patterns were checked when their layer was read.
        cell.get_or_init(|| Patterns::lenient(patterns))
    }

    /// Is this full ref (`refs/heads/main`, `refs/tags/v1`) or short branch name protected?
    pub fn is_protected(&self, refname: &str) -> bool {
        match short_name(refname) {
            Some(short) => Self::globs(&self.protected, &self.settings.branches.protected)
                .is_match(short.as_ref()),
            None => false,
        }
    }

    /// Does the policy protect any ref at all? With `branches.protected`
    /// empty, a command that writes refs it does not name reaches nothing
    /// protected.
    pub fn protects_anything(&self) -> bool {
        !self.settings.branches.protected.is_empty()
    }

    /// May an agent force-push to every ref (`push.force_allowed` has `*`
    /// or `**`)? A mirror push forces refs of any name.
    pub fn force_allowed_everywhere(&self) -> bool {
        self.settings
            .push
            .force_allowed
            .iter()
            .any(|p| p == "*" || p == "**")
    }

    /// May an agent force-push to this ref?
    pub fn force_allowed(&self, refname: &str) -> bool {
        short_name(refname).is_some_and(|short| {
            Self::globs(&self.force_allowed, &self.settings.push.force_allowed)
                .is_match(short.as_ref())
        })
    }

    /// Does `contract` hold `ensure_working_branch`? `None` contract: is it on at all?
    pub fn capability(&self, contract: Option<&str>) -> CapabilityFor {
        match (&self.settings.capabilities.ensure_working_branch, contract) {
            (Capability::All(false), _) => CapabilityFor::Off,
            (Capability::All(true), _) => CapabilityFor::On,
            (Capability::Contracts(globs), _) if globs.is_empty() => CapabilityFor::Off,
            // Granted to some contracts only: with none, the agent holds
            // no contract it names (EN-GIT-D-002, whatever the contract).
            (Capability::Contracts(_), None) => CapabilityFor::OtherContracts,
            (Capability::Contracts(globs), Some(id)) => {
                if Self::globs(&self.capability_globs, globs).is_match(id) {
                    CapabilityFor::On
                } else {
                    CapabilityFor::OtherContracts
                }
            }
        }
    }

    /// The protected patterns, in order (for finding the team layer's branch).
    /// The branch the team layer was read from, if it was.
    pub fn team_branch(&self) -> Option<&str> {
        self.layers.iter().find_map(|(layer, _)| match layer {
            Layer::Team(branch) => Some(branch.as_str()),
            _ => None,
        })
    }

    pub fn protected_patterns(&self) -> &[String] {
        &self.settings.branches.protected
    }

    /// The effective policy as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.merged_table()).unwrap_or_default()
    }
}

/// The capability as it applies to one contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapabilityFor {
    On,
    Off,
    OtherContracts,
}

fn origin_source(origin: &Layer) -> String {
    match origin {
        Layer::BuiltIn => "built-in policy.toml".into(),
        Layer::System(p) | Layer::User(p) | Layer::Local(p) | Layer::Env(p) => {
            p.display().to_string()
        }
        Layer::Team(branch) => format!("{branch}:.ward/policy.toml"),
    }
}

/// The short name patterns match: `refs/heads/X` is `X`, `refs/tags/X` is
/// `tags/X`; a name without `refs/` is taken as a branch. Other refs
/// (`refs/remotes/...`, `refs/ward/...`) are never protected.
pub fn short_name(refname: &str) -> Option<std::borrow::Cow<'_, str>> {
    if let Some(branch) = refname.strip_prefix("refs/heads/") {
        Some(branch.into())
    } else if let Some(tag) = refname.strip_prefix("refs/tags/") {
        Some(format!("tags/{tag}").into())
    } else if refname.starts_with("refs/") || refname.is_empty() {
        None
    } else {
        Some(refname.into())
    }
}

/// The ways to read a remote-tracking ref as `(remote, branch)`:
/// `refs/remotes/origin/main` is `origin`'s `main`; a remote's name may
/// hold a `/` itself, so `refs/remotes/a/b/c` is also `a/b`'s `c`.
pub fn tracking_readings(refname: &str) -> impl Iterator<Item = (&str, &str)> {
    let rest = refname.strip_prefix("refs/remotes/").unwrap_or("");
    rest.match_indices('/').filter_map(move |(i, _)| {
        let (remote, branch) = (&rest[..i], &rest[i + 1..]);
        (!remote.is_empty() && !branch.is_empty()).then_some((remote, branch))
    })
}

/// Parses `16MiB`, `512k`, `1GB`, `100` (bytes).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let num: u64 = num.parse().ok()?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    num.checked_mul(mult)
}

/// Parses `30m`, `90s`, `2h`, `1d`, `45` (seconds).
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let num: u64 = num.parse().ok()?;
    let secs = match unit.trim() {
        "" | "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86400,
        _ => return None,
    };
    Some(std::time::Duration::from_secs(num.checked_mul(secs)?))
}

/// Layer 2's path.
/// `WARD_SYSTEM_POLICY` moves it for tests and people, never for agents.
pub fn system_path() -> PathBuf {
    crate::env::knob(crate::env::WARD_SYSTEM_POLICY)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(SYSTEM_PATH))
}

/// Layer 2's own path, which no variable moves (the server's hooks read
/// only this one).
pub const SYSTEM_PATH: &str = "/etc/git-ward/policy.toml";

/// Layer 3's path; none for a hook inside `receive-pack`, whose
/// `XDG_CONFIG_HOME` and `HOME` are the pusher's.
pub fn user_path() -> Option<PathBuf> {
    if crate::env::receiving() {
        return None;
    }
    let base = crate::env::var(crate::env::XDG_CONFIG_HOME)
        .map(PathBuf::from)
        .or_else(|| crate::env::var(crate::env::HOME).map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("git-ward").join("policy.toml"))
}

/// Layer 5's path, inside the common git dir.
pub fn local_path(common_dir: &Path) -> PathBuf {
    common_dir.join("ward").join("policy.toml")
}

/// The longest contract id.
pub const MAX_CONTRACT_LEN: usize = 100;

/// Is a contract id valid? 1 to 100 of `[A-Za-z0-9._-]`, starting with a
/// letter or digit; also a valid branch name component for git (no `..`,
/// no trailing `.` or `.lock`).
pub fn valid_contract(id: &str) -> bool {
    let bytes = id.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= MAX_CONTRACT_LEN
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        && !id.contains("..")
        && !id.ends_with('.')
        && !id.ends_with(".lock")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_tracking_refs_read_every_way_a_remote_name_allows() {
        fn readings(r: &str) -> Vec<(&str, &str)> {
            tracking_readings(r).collect()
        }
        assert_eq!(
            readings("refs/remotes/origin/main"),
            vec![("origin", "main")]
        );
        assert_eq!(
            readings("refs/remotes/origin/agent/main"),
            vec![("origin", "agent/main"), ("origin/agent", "main")]
        );
        assert!(readings("refs/remotes/origin").is_empty());
        assert!(readings("refs/remotes//main").is_empty());
        assert!(readings("refs/heads/main").is_empty());
    }

    #[test]
    fn the_embedded_policy_passes_every_layer_check() {
        parse_layer(BUILT_IN, "policy.toml").unwrap();
    }

    #[test]
    fn the_built_in_values_are_the_embedded_files() {
        let parsed: Settings = toml::from_str(BUILT_IN).unwrap();
        assert_eq!(built_in_settings(), parsed);
    }

    #[test]
    fn built_in_policy_has_the_spec_defaults() {
        let p = Policy::built_in();
        let s = &p.settings;
        assert_eq!(s.enforce.actors, Actors::Agents);
        assert!(s.enforce.agent_env.iter().any(|v| v == "CLAUDECODE"));
        assert!(s.enforce.agent_env.iter().any(|v| v == "WARD_AGENT"));
        assert!(!s.enforce.allow_no_verify);
        assert_eq!(
            s.branches.protected,
            ["main", "master", "release/*", "tags/*"]
        );
        assert_eq!(s.branches.agent_prefix, "agent/");
        assert!(s.branches.sync_from_upstream);
        assert_eq!(s.capabilities.ensure_working_branch, Capability::All(true));
        assert!(s.checkout.local_only);
        assert_eq!(s.push.force_allowed, ["agent/*"]);
        assert_eq!(s.commit.footer, "Contract: {contract}");
        assert!(s.checkpoint.before_destructive);
        assert_eq!(parse_size(&s.checkpoint.max_file_size), Some(16 << 20));
        assert_eq!(s.checkpoint.keep, 200);
        assert_eq!(s.turns.pollution_threshold, 2);
        assert_eq!(
            parse_duration(&s.turns.test_timeout),
            Some(std::time::Duration::from_secs(1800))
        );
        assert!(s.audit.reads);
        assert_eq!(s.timeouts.git_seconds, 10);
        assert_eq!(
            s.server.agent_commits_to_protected,
            ServerAgentCommits::ViaMerge
        );
        assert_eq!(s.init.user_name, "agent");
        assert_eq!(s.mcp.max_output_bytes, 65536);
        assert!(p.origins().values().all(|o| *o == Layer::BuiltIn));
        assert!(p.origins().contains_key("branches.protected"));
    }

    #[test]
    fn protected_patterns_match_short_names_and_star_crosses_slash() {
        let p = Policy::built_in();
        for yes in [
            "refs/heads/main",
            "main",
            "refs/heads/master",
            "refs/heads/release/1",
            "refs/heads/release/1/x",
            "refs/tags/v1.0",
        ] {
            assert!(p.is_protected(yes), "{yes}");
        }
        for no in [
            "refs/heads/feat",
            "refs/heads/agent/c1",
            "refs/remotes/origin/main",
            "refs/ward/checkpoints/x",
            "mainly",
            "refs/heads/xmain",
            "",
        ] {
            assert!(!p.is_protected(no), "{no}");
        }
        assert!(p.force_allowed("refs/heads/agent/x"));
        assert!(!p.force_allowed("refs/heads/main"));
    }

    #[test]
    fn layers_override_keys_and_remember_origin() {
        let base = Policy::built_in();
        let p = base
            .clone()
            .with_layer(
                "[branches]\nprotected = [\"trunk\"]\n",
                Layer::Local(PathBuf::from("/r/.git/ward/policy.toml")),
            )
            .unwrap();
        assert!(p.is_protected("refs/heads/trunk"));
        assert!(!p.is_protected("refs/heads/main"));
        assert_eq!(
            p.settings.branches.agent_prefix, "agent/",
            "untouched keys keep their value"
        );
        assert!(matches!(p.origin("branches.protected"), Layer::Local(_)));
        assert_eq!(p.origin("branches.agent_prefix"), Layer::BuiltIn);
    }

    #[test]
    fn bad_files_name_file_line_column_and_key() {
        let base = Policy::built_in();
        let err = base
            .clone()
            .with_layer(
                "[branches]\nprotected = [\"main\"]\nbogus = 1\n",
                Layer::User(PathBuf::from("/u/policy.toml")),
            )
            .unwrap_err();
        assert!(
            err.message.contains("/u/policy.toml:3:1"),
            "{}",
            err.message
        );
        assert!(err.message.contains("bogus"), "{}", err.message);

        let err = base
            .clone()
            .with_layer(
                "[checkout]\nlocal_only = \"yes\"\n",
                Layer::User(PathBuf::from("/u/p.toml")),
            )
            .unwrap_err();
        assert!(err.message.contains("/u/p.toml:2:"), "{}", err.message);
        assert!(err.message.contains("local_only"), "{}", err.message);

        let err = base
            .clone()
            .with_layer("[enforce\n", Layer::User(PathBuf::from("/u/p.toml")))
            .unwrap_err();
        assert!(err.message.contains("/u/p.toml:1:"), "{}", err.message);

        let err = base
            .clone()
            .with_layer(
                "[enforce]\nactors = \"robots\"\n",
                Layer::User(PathBuf::from("/u/p.toml")),
            )
            .unwrap_err();
        assert!(err.message.contains("actors"), "{}", err.message);

        let err = base
            .clone()
            .with_layer(
                "[checkpoint]\nmax_file_size = \"huge\"\n",
                Layer::User(PathBuf::from("/u/p.toml")),
            )
            .unwrap_err();
        assert!(
            err.message.contains("checkpoint.max_file_size"),
            "{}",
            err.message
        );
        assert!(err.hint.is_some());
    }

    #[test]
    fn a_layer_path_is_no_layer_only_when_nothing_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        let layer = || Layer::User(path.clone());
        let mut p = Policy::built_in();
        p.add_file(&path, layer()).unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone.toml"), &path).unwrap();
        let err = p.add_file(&path, layer()).unwrap_err();
        assert!(
            err.message.contains("gone.toml, which does not exist"),
            "{err}"
        );
        assert!(err.hint.is_some());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_invalid_policy_at_the_first_of_them() {
        let bytes = b"[branches]\nprotected = [\"\xc3\xa9t\xc3\xa9\", \"dev\xe9\"]\n";
        let err = layer_text(bytes, "p.toml").unwrap_err();
        // Line 2, column 25 in characters (each \u{e9} before it is one).
        assert_eq!(
            err.message,
            "invalid policy p.toml:2:25: key `protected`: not UTF-8 text (byte 0xe9)"
        );
        assert!(err.hint.unwrap().contains("p.toml at line 2"));
        let err = layer_text(b"\xff", "p.toml").unwrap_err();
        assert!(err.message.contains("p.toml:1:1:"), "{}", err.message);
        assert_eq!(layer_text(b"a = 1\n", "p.toml").unwrap(), "a = 1\n");
    }

    #[test]
    fn errors_quoting_the_file_escape_control_characters() {
        let base = Policy::built_in();
        for text in [
            // A key the TOML parser rejects, echoed back in the message.
            "[branches]\nprotected = [\"main\"]\n\"bad\u{1b}[31mkey\" = 1\n",
            // A value git-ward rejects, quoted in the message.
            "[checkpoint]\nmax_file_size = \"\\u001b[2J\"\n",
            // A glob pattern that does not compile.
            "[branches]\nprotected = [\"[\\u001b\"]\n",
        ] {
            let err = base
                .clone()
                .with_layer(text, Layer::User(PathBuf::from("/u/p.toml")))
                .unwrap_err();
            let shown = format!("{} {}", err.message, err.hint.unwrap_or_default());
            assert!(!shown.contains('\u{1b}'), "{shown:?}");
            assert!(shown.contains("\\u{1b}"), "{shown:?}");
        }
    }

    #[test]
    fn capability_can_be_granted_to_contract_globs() {
        let p = Policy::built_in()
            .with_layer(
                "[capabilities]\nensure_working_branch = [\"team-*\"]\n",
                Layer::BuiltIn,
            )
            .unwrap();
        assert_eq!(p.capability(Some("team-1")), CapabilityFor::On);
        assert_eq!(p.capability(Some("other")), CapabilityFor::OtherContracts);
        assert_eq!(p.capability(None), CapabilityFor::OtherContracts);
        let off = Policy::built_in()
            .with_layer(
                "[capabilities]\nensure_working_branch = false\n",
                Layer::BuiltIn,
            )
            .unwrap();
        assert_eq!(off.capability(Some("x")), CapabilityFor::Off);
    }

    #[test]
    fn agent_prefixes_that_make_branch_names_are_accepted() {
        for prefix in ["agent/", "", "bots/agent-", "a.b/"] {
            let text = format!("[branches]\nagent_prefix = \"{prefix}\"\n");
            assert!(parse_layer(&text, "p.toml").is_ok(), "{prefix:?}");
        }
        for prefix in [
            "../", "/", "a//", "x.lock/", "a:", "a~", "a\\\\", "a@{", ".a/", "-",
        ] {
            let text = format!("[branches]\nagent_prefix = \"{prefix}\"\n");
            assert!(parse_layer(&text, "p.toml").is_err(), "{prefix:?}");
        }
    }

    #[test]
    fn sizes_and_durations_parse() {
        assert_eq!(parse_size("512k"), Some(512 * 1024));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("12 parsecs"), None);
        assert_eq!(
            parse_duration("90s"),
            Some(std::time::Duration::from_secs(90))
        );
        assert_eq!(
            parse_duration("1h"),
            Some(std::time::Duration::from_secs(3600))
        );
        assert_eq!(parse_duration("soon"), None);
    }

    #[test]
    fn a_bad_value_is_reported_at_its_line_and_column_with_its_key() {
        let rows = [
            (
                "[checkpoint]\nmax_file_size = \"lots\"\n",
                "p.toml:2:17: key `checkpoint.max_file_size`: 'lots' is not a size like 16MiB",
            ),
            (
                "[turns]\ntest_timeout = \"5x\"\n",
                "p.toml:2:16: key `turns.test_timeout`: '5x' is not a duration like 30m",
            ),
            (
                "[turns]\ntest_timeout = \"0s\"\n",
                "p.toml:2:16: key `turns.test_timeout`: '0s' leaves the tests no time; give them at least 1s",
            ),
            (
                "[commit]\nfooter = \"Task\"\n",
                "p.toml:2:10: key `commit.footer`: must contain {contract}",
            ),
            (
                "[commit]\nfooter = \"Task: {contract}\\nMore\"\n",
                "p.toml:2:10: key `commit.footer`: must be one line",
            ),
            (
                "[commit]\nfooter = \"Task: {contract}\\u0000\"\n",
                "p.toml:2:10: key `commit.footer`: must hold no control characters",
            ),
            // A list: the item that is wrong.
            (
                "[branches]\nprotected = [\"main\", \"a[\"]\n",
                "p.toml:2:22: key `branches.protected`: bad pattern 'a['",
            ),
            (
                "[push]\nforce_allowed = [\n  \"agent/*\",\n  \"x{\",\n]\n",
                "p.toml:4:3: key `push.force_allowed`: bad pattern 'x{'",
            ),
            // Full ref names: patterns match short names.
            (
                "[branches]\nprotected = [\"main\", \"refs/heads/trunk\"]\n",
                "p.toml:2:22: key `branches.protected`: 'refs/heads/trunk' is a full ref name, but patterns match short names, `main` for refs/heads/main, `tags/v1` for refs/tags/v1 (write 'trunk')",
            ),
            (
                "[branches]\nprotected = [\"refs/tags/*\"]\n",
                "p.toml:2:14: key `branches.protected`: 'refs/tags/*' is a full ref name, but patterns match short names, `main` for refs/heads/main, `tags/v1` for refs/tags/v1 (write 'tags/*')",
            ),
            (
                "[push]\nforce_allowed = [\"refs/*\"]\n",
                "p.toml:2:18: key `push.force_allowed`: 'refs/*' is a full ref name",
            ),
            // Contract-id globs.
            (
                "[capabilities]\nensure_working_branch = [\"[z\"]\n",
                "p.toml:2:26: key `capabilities.ensure_working_branch`: bad pattern '[z'",
            ),
            // Counts that must be at least one.
            (
                "[checkpoint]\nkeep = 0\n",
                "p.toml:2:8: key `checkpoint.keep`: must be at least 1",
            ),
            (
                "[turns]\npollution_threshold = 0\n",
                "p.toml:2:23: key `turns.pollution_threshold`: must be at least 1",
            ),
            (
                "[timeouts]\ngit_seconds = 0\n",
                "p.toml:2:15: key `timeouts.git_seconds`: must be at least 1",
            ),
            // An agent prefix that makes no branch name.
            (
                "[branches]\nagent_prefix = \"../\"\n",
                "p.toml:2:16: key `branches.agent_prefix`: '../<contract>' is not a branch name git accepts",
            ),
            (
                "[branches]\nagent_prefix = \"-a/\"\n",
                "p.toml:2:16: key `branches.agent_prefix`",
            ),
            (
                "[branches]\nagent_prefix = \"a b/\"\n",
                "p.toml:2:16: key `branches.agent_prefix`",
            ),
            // Dotted keys and inline tables are found too.
            (
                "turns.test_timeout = \"soon\"\n",
                "p.toml:1:22: key `turns.test_timeout`",
            ),
            (
                "checkpoint = { max_file_size = \"lots\" }\n",
                "p.toml:1:32: key `checkpoint.max_file_size`",
            ),
            // Enums are checked by serde, at the value too.
            (
                "[enforce]\nactors = \"robots\"\n",
                "p.toml:2:10: key `actors`",
            ),
            (
                "[server]\nagent_commits_to_protected = \"maybe\"\n",
                "p.toml:2:30: key `agent_commits_to_protected`",
            ),
            (
                "[commands]\nunknown = \"x\"\n",
                "p.toml:2:11: key `unknown`",
            ),
        ];
        for (text, expected) in rows {
            let err = parse_layer(text, "p.toml").unwrap_err();
            let message = err.to_string();
            assert!(message.contains(expected), "{text:?}: {message}");
            let hint = err.hint.clone().unwrap_or_default();
            assert!(hint.contains("p.toml"), "{text:?}: {hint}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// TOML-ish text: a layer or an error naming the file, line and column.
        #[test]
        fn any_layer_text_is_a_layer_or_a_located_error(
            text in "([\\[\\]a-z_.]{0,12}( = )?(\"[^\"]{0,8}\"|[0-9]{1,25}|\\[|\\]|true|\\{|\\}|\\PC{0,6})?\n){0,8}",
        ) {
            if let Err(e) = Policy::built_in().with_layer(&text, Layer::BuiltIn) {
                let m = e.to_string();
                proptest::prop_assert!(m.contains("invalid policy"), "{}", m);
            }
            if let Err(e) = parse_layer(&text, "p.toml") {
                let m = e.to_string();
                proptest::prop_assert!(m.contains("p.toml:"), "{}", m);
            }
        }
    }
}
