//! prepare-commit-msg and commit-msg: the contract footer.
//!
//! An agent's commit gets `commit.footer` (default `Contract: {contract}`,
//! a git trailer) appended to its message, once: both hooks run for most
//! commits, and `--amend`, `commit -c`, cherry-picks and rewording rebases
//! bring messages that already carry it. prepare-commit-msg is the one that
//! `--no-verify` does not skip; commit-msg catches the message after an
//! editor. A message with no text yet (an editor is about to open) is left
//! alone until commit-msg. Comment lines (`core.commentChar`, `#` by
//! default) and everything from the scissors line on stay after the footer.

use super::quick::Quick;
use super::Dirs;
use crate::decide::Actor;
use crate::env;
use crate::error::{exit, IoContext, Result};
use crate::facts;

pub fn run(_name: &str, args: &[String]) -> Result<u8> {
    let Some(file) = args.first() else {
        return Ok(exit::OK);
    };
    let Some(dirs) = Dirs::find() else {
        return Ok(exit::OK);
    };
    let Some((contract, _)) = facts::contract_at(Some(&dirs.git_dir))? else {
        return Ok(exit::OK);
    };
    let quick = Quick::load(&dirs)?.quick;
    if quick.actor() != Actor::Agent {
        return Ok(exit::OK);
    }
    let footer = quick.footer.replace("{contract}", &contract);
    let Ok(text) = std::fs::read_to_string(file) else {
        return Ok(exit::OK);
    };
    if let Some(new) = with_footer(&text, &footer, comment_char(&dirs)) {
        std::fs::write(file, new).at("write", file)?;
    }
    Ok(exit::OK)
}

/// git's `core.commentChar` (`#` unless set; `auto` counts as `#`). The
/// config files are only parsed when one of them mentions it.
fn comment_char(dirs: &Dirs) -> char {
    let pick = |v: &str| match v.chars().next() {
        Some(c) if v != "auto" => c,
        _ => '#',
    };
    if let Some((_, v)) = facts::env_config()
        .into_iter()
        .rev()
        .find(|(k, _)| k == "core.commentchar")
    {
        return pick(&v);
    }
    let home = env::var(env::HOME).map(std::path::PathBuf::from);
    let xdg = env::var(env::XDG_CONFIG_HOME)
        .map(std::path::PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let files = [
        Some(dirs.common_dir.join("config")),
        home.map(|h| h.join(".gitconfig")),
        xdg.map(|x| x.join("git").join("config")),
    ];
    let mentioned = files.iter().flatten().any(|f| {
        std::fs::read_to_string(f).is_ok_and(|t| t.to_ascii_lowercase().contains("commentchar"))
    });
    if !mentioned {
        return '#';
    }
    facts::Repo::from_dirs(dirs)
        .and_then(|r| r.config_string("core.commentChar"))
        .map_or('#', |v| pick(&v))
}

/// Is this line a trailer (`Key: value`) or one git writes in trailer blocks?
fn trailer_like(line: &str) -> bool {
    if line.starts_with("(cherry picked from commit ") {
        return true;
    }
    match line.split_once(':') {
        Some((key, _)) => {
            !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        }
        None => false,
    }
}

/// The message with `footer` appended, or `None` when it is there already
/// or the message has no text yet. A trailer-shaped footer joins the last
/// paragraph when that is a trailer block; anything else gets a paragraph.
pub fn with_footer(text: &str, footer: &str, comment: char) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let scissors = format!("{comment} ------------------------ >8 ------------------------");
    let mut end = lines
        .iter()
        .position(|l| l.trim_end() == scissors)
        .unwrap_or(lines.len());
    let is_comment = |l: &str| l.starts_with(comment);
    while end > 0 && (lines[end - 1].trim().is_empty() || is_comment(lines[end - 1])) {
        end -= 1;
    }
    let content: Vec<&str> = lines[..end]
        .iter()
        .copied()
        .filter(|l| !is_comment(l))
        .collect();
    if content.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    if content.iter().any(|l| l.trim() == footer) {
        return None;
    }
    let body = content.concat();
    let paragraphs: Vec<&str> = body
        .split("\n\n")
        .map(|p| p.trim_matches('\n'))
        .filter(|p| !p.trim().is_empty())
        .collect();
    let joins = trailer_like(footer)
        && paragraphs.len() > 1
        && paragraphs
            .last()
            .is_some_and(|p| p.lines().all(|l| trailer_like(l) || l.starts_with(' ')));
    let mut out: String = lines[..end].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !joins {
        out.push('\n');
    }
    out.push_str(footer);
    out.push('\n');
    let rest = lines[end..].concat();
    if !rest.is_empty() && !rest.starts_with('\n') {
        out.push('\n');
    }
    out.push_str(&rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: &str = "Contract: c1";

    #[test]
    fn footers_append_once_as_trailers() {
        let cases = [
            ("subject\n", Some("subject\n\nContract: c1\n")),
            ("subject", Some("subject\n\nContract: c1\n")),
            ("subject\n\nbody\n", Some("subject\n\nbody\n\nContract: c1\n")),
            (
                "subject\n\nSigned-off-by: A <a@b>\n",
                Some("subject\n\nSigned-off-by: A <a@b>\nContract: c1\n"),
            ),
            ("Fix: thing\n", Some("Fix: thing\n\nContract: c1\n")),
            ("subject\n\nContract: c1\n", None),
            ("", None),
            ("\n# Please enter the commit message\n", None),
            (
                "Merge branch 'x'\n\n# Please enter a commit message\n# Lines starting with '#'\n",
                Some("Merge branch 'x'\n\nContract: c1\n\n# Please enter a commit message\n# Lines starting with '#'\n"),
            ),
            (
                "subject\n# ------------------------ >8 ------------------------\ndiff --git a b\n",
                Some("subject\n\nContract: c1\n\n# ------------------------ >8 ------------------------\ndiff --git a b\n"),
            ),
            (
                "subject\n\n(cherry picked from commit abc)\n",
                Some("subject\n\n(cherry picked from commit abc)\nContract: c1\n"),
            ),
        ];
        for (input, want) in cases {
            assert_eq!(with_footer(input, F, '#').as_deref(), want, "{input:?}");
        }
        assert_eq!(
            with_footer("subject\n\nSigned-off-by: A\n", "[Contract: c1]", '#').as_deref(),
            Some("subject\n\nSigned-off-by: A\n\n[Contract: c1]\n")
        );
        assert_eq!(
            with_footer("s\n\n[Contract: c1]\n", "[Contract: c1]", '#'),
            None
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any message, footer and comment character: no panic, and once
        /// appended the footer is never appended again.
        #[test]
        fn any_message_takes_the_footer_once(
            text in "(\\PC|\n|#|>8| ){0,120}",
            footer in "[A-Za-z:\\[\\] -]{1,20}",
            comment in proptest::char::any(),
        ) {
            if let Some(once) = with_footer(&text, footer.trim(), comment) {
                // A footer that starts with the comment character reads as a comment.
                if !footer.trim().is_empty() && !footer.trim().starts_with(comment) {
                    proptest::prop_assert_eq!(with_footer(&once, footer.trim(), comment), None);
                }
            }
        }
    }
}
