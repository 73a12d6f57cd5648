//! Contract ids, the team layer's branches, config from the environment.

use super::*;

#[test]
fn the_team_layer_may_come_from_each_branch_a_pattern_names() {
    let p = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        literal_branches(&p(&[
            "main",
            "release/*",
            "tags/*",
            "{dev,stage}",
            "master"
        ])),
        p(&["main", "dev", "stage", "master"])
    );
    // No branch of the literal name `{main,develop}`, nor of a glob.
    assert_eq!(
        literal_branches(&p(&["{main,develop}", "hot?ix", "[ab]x", "x\\y", "{a*,b}"])),
        p(&["main", "develop"])
    );
    assert_eq!(
        literal_branches(&p(&["pre/{a,b}/post", "{tags/x,y}"])),
        p(&["pre/a/post", "pre/b/post", "y"])
    );
}

#[test]
fn an_invalid_contract_id_is_shown_escaped_and_short() {
    let err = invalid_contract(&format!("a\u{1b}[31m{}", "x".repeat(500)));
    assert!(err.message.contains("a\\u{1b}[31m"), "{}", err.message);
    assert!(err.message.len() < 120, "{}", err.message);
    assert!(err.message.ends_with("...'"), "{}", err.message);
    assert_eq!(
        invalid_contract("bad id").message,
        "invalid contract id 'bad id'"
    );
}

#[test]
fn contract_ids_follow_the_spec() {
    for ok in ["c1", "task-42", "A.b_c-9", &"x".repeat(100)] {
        assert!(valid_contract(ok), "{ok}");
    }
    for bad in [
        "",
        "-x",
        ".x",
        "_x",
        "a b",
        "a/b",
        "a..b",
        "x.",
        "x.lock",
        &"x".repeat(101),
        "é",
        "a:b",
        "a~1",
    ] {
        assert!(!valid_contract(bad), "{bad}");
    }
}

#[test]
fn config_parameters_parse_like_git_writes_them() {
    assert_eq!(
        parse_config_parameters("'core.hooksPath=/dev/null' 'alias.x'='commit'"),
        vec![
            ("core.hookspath".to_string(), "/dev/null".to_string()),
            ("alias.x".to_string(), "commit".to_string())
        ]
    );
    assert_eq!(
        parse_config_parameters("'user.name=it'\\''s'"),
        vec![("user.name".to_string(), "it's".to_string())]
    );
}
