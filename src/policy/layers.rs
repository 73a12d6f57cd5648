//! Layered loading: the built-in settings, each layer checked and merged
//! key by key with the layer that set it remembered, and the layers' paths.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::check::{bad_value, check_values, layer_error, layer_text};
use super::*;
use crate::error::{Error, Result};

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

/// The embedded `policy.toml` as values. Parsing its 3 KB of commented
/// TOML was 165,000 instructions (and the parser's code paged in) on every
/// command that loads the policy; a unit test checks that these are the
/// values the file holds, so the file stays the one to read and edit.
pub(super) fn built_in_settings() -> Settings {
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
    pub(super) fn merged_table(&self) -> toml::Table {
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
