//! prepare-commit-msg and commit-msg: the contract footer.
//!
//! An agent's commit gets `commit.footer` (default `Contract: {contract}`,
//! a git trailer) appended to its message, once, where git reads trailers:
//! the trailer block that ends the message, as `git interpret-trailers`
//! finds it. Both hooks run for most commits, and `--amend`, `commit -c`,
//! cherry-picks and rewording rebases bring messages that already carry it;
//! a squash joins messages that each do, and the earlier copies, paragraphs
//! of trailers inside the message, are taken out (a footer line within a
//! paragraph of prose never is). prepare-commit-msg is the one that
//! `--no-verify` does not skip; commit-msg catches the message after an
//! editor. A message with no text yet (an editor is about to open) is left
//! alone until commit-msg. Comment lines (`core.commentChar`, `#` by
//! default) and everything from the scissors line on stay after the footer.
//!
//! git aborts a commit whose message is its template left as it was
//! (`commit.template`), a check it makes after both hooks. A message that no
//! editor will change any more (commit-msg, or prepare-commit-msg when git
//! says no editor comes) and that git is about to drop that way gets no
//! footer, and loses the one put in before the editor, so that git still
//! aborts. Where the command line may change that check, or no commit-msg
//! follows the editor, the footer stays: every commit made carries it.

use std::path::PathBuf;

use super::message::{is_trailer, trailer_block, Message};
use super::quick::Quick;
use super::template::{plain_commit, unedited};
use super::Dirs;
use crate::decide::Actor;
use crate::env;
use crate::error::{exit, IoContext, Result};
use crate::facts;

pub fn run(name: &str, args: &[String]) -> Result<u8> {
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
    let config = Config::read(&dirs);
    // git tells its hooks that no editor will open with `GIT_EDITOR=:`.
    let editor = std::env::var_os("GIT_EDITOR").is_none_or(|e| e != ":");
    let last = name == "commit-msg" || !editor;
    if let Some(new) = config.message(&text, &footer, last, editor) {
        std::fs::write(file, new).at("write", file)?;
    }
    Ok(exit::OK)
}

/// The settings of git's that shape a commit message.
struct Config {
    /// `core.commentChar` (`#` unless set; `auto` counts as `#`).
    comment: char,
    /// `commit.template`, as a path.
    template: Option<PathBuf>,
    /// `commit.cleanup`.
    cleanup: Option<String>,
}

impl Config {
    /// The settings from the environment's pairs (`git -c`), else the
    /// config files, which are only parsed when one of them mentions one.
    fn read(dirs: &Dirs) -> Config {
        let home = env::var(env::HOME).map(PathBuf::from);
        let xdg = env::var(env::XDG_CONFIG_HOME)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        let files = [
            Some(dirs.common_dir.join("config")),
            home.as_ref().map(|h| h.join(".gitconfig")),
            xdg.map(|x| x.join("git").join("config")),
        ];
        let mentioned = files.iter().flatten().any(|f| {
            std::fs::read_to_string(f).is_ok_and(|t| {
                let t = t.to_ascii_lowercase();
                ["commentchar", "template", "cleanup"]
                    .iter()
                    .any(|k| t.contains(k))
            })
        });
        let repo = if mentioned {
            facts::Repo::from_dirs(dirs)
        } else {
            None
        };
        let pairs = facts::env_config();
        let value = |key: &str| {
            let from_env = pairs.iter().rev().find(|(k, _)| k == key);
            match from_env {
                Some((_, v)) => Some(v.clone()),
                None => repo.as_ref()?.config_values(key).pop(),
            }
        };
        let comment = match value("core.commentchar") {
            Some(v) if v != "auto" => v.chars().next().unwrap_or('#'),
            _ => '#',
        };
        let template = value("commit.template").map(|v| match v.strip_prefix("~/") {
            Some(rest) => home.unwrap_or_default().join(rest),
            None => PathBuf::from(v),
        });
        Config {
            comment,
            template,
            cleanup: value("commit.cleanup"),
        }
    }

    /// What to write for `text`: `None` to leave it. With the footer, unless
    /// the message is `last` (no editor will change it) and git is about to
    /// drop it as its template left as it was: then without the footer.
    fn message(&self, text: &str, footer: &str, last: bool, editor: bool) -> Option<String> {
        if last && self.template.is_some() {
            let bare = without_footer(text, footer, self.comment);
            if self.drops_unedited(bare.as_deref().unwrap_or(text), editor) {
                return bare;
            }
        }
        with_footer(text, footer, self.comment)
    }

    /// Will git abort this final message as its template unedited? Only
    /// when the cleanup is known (`commit.cleanup` unset, `default` or
    /// `strip`) and the command line is a `git commit` that leaves the
    /// check alone.
    fn drops_unedited(&self, text: &str, editor: bool) -> bool {
        let strip = match self.cleanup.as_deref() {
            None | Some("default") => editor,
            Some("strip") => true,
            Some(_) => return false,
        };
        let Some(template) = self
            .template
            .as_ref()
            .and_then(|t| std::fs::read_to_string(t).ok())
        else {
            return false;
        };
        unedited(text, &template, self.comment, strip) && plain_commit(&super::parent_argv())
    }
}

/// The message with `footer` in it once, or `None` when it is there already
/// (and nowhere else) or the message has no text yet. A trailer-shaped
/// footer joins the trailer block when there is one; anything else gets a
/// paragraph of its own. Copies of it that stand in paragraphs of trailers
/// before the last paragraph (what a squash leaves) are taken out.
pub fn with_footer(text: &str, footer: &str, comment: char) -> Option<String> {
    let m = Message::parse(text, comment);
    let last = m.paragraphs.len().checked_sub(1)?;
    let trailer = is_trailer(footer);
    // Where git reads a trailer: a last paragraph, past the title, that it
    // reads as trailers. Any other footer stands as the last paragraph.
    let block = !trailer || (last > 0 && trailer_block(&m.lines_of(last)));
    let present = block && m.lines_of(last).iter().any(|l| l.trim() == footer);
    let copies = m.copies(footer, 1..last);
    if present && copies.is_empty() {
        return None;
    }
    let append = (!present).then_some((footer, trailer && block));
    Some(m.render(&copies, append))
}

/// The message without the footer lines of its paragraphs of trailers
/// past the title, or `None` when there are none.
fn without_footer(text: &str, footer: &str, comment: char) -> Option<String> {
    let m = Message::parse(text, comment);
    let copies = m.copies(footer, 1..m.paragraphs.len());
    (!copies.is_empty()).then(|| m.render(&copies, None))
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

    /// The trailer block is the last paragraph as git reads it, and a copy
    /// elsewhere counts only as a paragraph of trailers, which goes.
    #[test]
    fn the_trailer_block_decides_and_squashed_copies_go() {
        let cases = [
            // A squash: both messages carried it.
            (
                "first\n\nContract: c1\n\nextra\n\nContract: c1\n",
                Some("first\n\nextra\n\nContract: c1\n"),
            ),
            (
                "first\n\nSigned-off-by: A\nContract: c1\n\nextra\n\nSigned-off-by: A\nContract: c1\n",
                Some("first\n\nSigned-off-by: A\n\nextra\n\nSigned-off-by: A\nContract: c1\n"),
            ),
            // The squash as the hook sees it, comments between the messages.
            (
                "# This is a combination of 2 commits.\n# This is the 1st commit message:\n\nfirst\n\nContract: c1\n\n# This is the commit message #2:\n\nextra\n\nContract: c1\n\n# Please enter the commit message\n",
                Some("# This is a combination of 2 commits.\n# This is the 1st commit message:\n\nfirst\n\n# This is the commit message #2:\n\nextra\n\nContract: c1\n\n# Please enter the commit message\n"),
            ),
            // The agent's own line, in a paragraph that is not the last.
            (
                "Implement parser\n\nContract: c1\n\nFollow-up work.\n",
                Some("Implement parser\n\nFollow-up work.\n\nContract: c1\n"),
            ),
            // Within prose it stays, and the trailer is still added.
            (
                "s\n\nsee\nContract: c1\nbelow\n",
                Some("s\n\nsee\nContract: c1\nbelow\n\nContract: c1\n"),
            ),
            // The title is never a trailer, and never touched.
            ("Contract: c1\n\nbody\n", Some("Contract: c1\n\nbody\n\nContract: c1\n")),
            // git's own trailer makes a quarter of trailers a block.
            (
                "s\n\nSigned-off-by: A\nnote one\nnote two\nnote three\n",
                Some("s\n\nSigned-off-by: A\nnote one\nnote two\nnote three\nContract: c1\n"),
            ),
            (
                "s\n\nSigned-off-by: A\nn1\nn2\nn3\nn4\n",
                Some("s\n\nSigned-off-by: A\nn1\nn2\nn3\nn4\n\nContract: c1\n"),
            ),
            ("s\n\nKey : v\n", Some("s\n\nKey : v\nContract: c1\n")),
            ("s\n\nKey: v\n  more\n", Some("s\n\nKey: v\n  more\nContract: c1\n")),
            ("s\n\n  more\nKey: v\n", Some("s\n\n  more\nKey: v\n\nContract: c1\n")),
            ("s\n\nContract: c1\n\nKey: v\n", Some("s\n\nKey: v\nContract: c1\n")),
            ("s\n\nKey: v\nContract: c1\nSigned-off-by: A\n", None),
        ];
        for (input, want) in cases {
            assert_eq!(with_footer(input, F, '#').as_deref(), want, "{input:?}");
        }
        assert_eq!(
            with_footer(
                "s\n\n[Contract: c1]\n\nmore\n\n[Contract: c1]\n",
                "[Contract: c1]",
                '#'
            )
            .as_deref(),
            Some("s\n\nmore\n\n[Contract: c1]\n")
        );
    }

    const STATUS: &str =
        "\n# Please enter the commit message for your changes.\n#\n# On branch x\n";

    #[test]
    fn the_footer_put_in_before_the_editor_goes_from_an_unedited_template() {
        let before = format!("Template subject\n\nContract: c1\n\n# describe the change\n{STATUS}");
        assert_eq!(
            without_footer(&before, F, '#'),
            Some(format!(
                "Template subject\n\n# describe the change\n{STATUS}"
            ))
        );
        let signed = "Template subject\n\nSigned-off-by: A\nContract: c1\n";
        assert_eq!(
            without_footer(signed, F, '#').as_deref(),
            Some("Template subject\n\nSigned-off-by: A\n")
        );
        assert_eq!(
            without_footer("Contract: c1\n\nwords Contract: c1\n", F, '#'),
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
