//! The checks a layer passes: each bad file, value or byte reported at its
//! file, line, column and key.

use std::path::PathBuf;

use super::*;

/// The error a user layer at `path` holding `text` is refused with.
fn refused(text: &str, path: &str) -> crate::error::Error {
    Policy::built_in()
        .with_layer(text, Layer::User(PathBuf::from(path)))
        .unwrap_err()
}

#[test]
fn bad_files_name_file_line_column_and_key() {
    let rows: [(&str, &str, &[&str]); 5] = [
        (
            "[branches]\nprotected = [\"main\"]\nbogus = 1\n",
            "/u/policy.toml",
            &["/u/policy.toml:3:1", "bogus"],
        ),
        (
            "[checkout]\nlocal_only = \"yes\"\n",
            "/u/p.toml",
            &["/u/p.toml:2:", "local_only"],
        ),
        ("[enforce\n", "/u/p.toml", &["/u/p.toml:1:"]),
        ("[enforce]\nactors = \"robots\"\n", "/u/p.toml", &["actors"]),
        (
            "[checkpoint]\nmax_file_size = \"huge\"\n",
            "/u/p.toml",
            &["checkpoint.max_file_size"],
        ),
    ];
    for (text, path, named) in rows {
        let err = refused(text, path);
        for part in named {
            assert!(err.message.contains(part), "{text:?}: {}", err.message);
        }
    }
    assert!(
        refused("[checkpoint]\nmax_file_size = \"huge\"\n", "/u/p.toml")
            .hint
            .is_some()
    );
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
    for text in [
        // A key the TOML parser rejects, echoed back in the message.
        "[branches]\nprotected = [\"main\"]\n\"bad\u{1b}[31mkey\" = 1\n",
        // A value git-ward rejects, quoted in the message.
        "[checkpoint]\nmax_file_size = \"\\u001b[2J\"\n",
        // A glob pattern that does not compile.
        "[branches]\nprotected = [\"[\\u001b\"]\n",
    ] {
        let err = refused(text, "/u/p.toml");
        let shown = format!("{} {}", err.message, err.hint.unwrap_or_default());
        assert!(!shown.contains('\u{1b}'), "{shown:?}");
        assert!(shown.contains("\\u{1b}"), "{shown:?}");
    }
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
