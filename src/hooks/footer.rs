//! prepare-commit-msg, commit-msg and applypatch-msg: the contract footer.
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
//! editor. `git am` runs neither: applypatch-msg, which it runs with the
//! message of each mail before committing it, puts the footer there (`am
//! --no-verify` skips it, and is refused for agents like `commit
//! --no-verify`). A message with no text yet (an editor is about to open) is left
//! alone until commit-msg. Comment lines (`core.commentChar`, `#` by
//! default) and everything from the scissors line on stay after the footer.
//!
//! Every commit made carries it, a message that is `commit.template` left
//! as it was too: git aborts such a commit only after both hooks ran, and
//! by then the footer makes it an edited one, so an agent's unedited
//! template is committed where git would abort.

use super::message::{is_footer, is_trailer, trailer_block, Message};
use crate::decide::Actor;
use crate::env;
use crate::error::{exit, IoContext, Result};
use crate::facts;
use crate::facts::settings_cache::Quick;
use crate::facts::Dirs;

pub fn run(name: &str, args: &[String]) -> Result<u8> {
    let Some(file) = args.first() else {
        return Ok(exit::OK);
    };
    let Some(dirs) = Dirs::find() else {
        return Ok(exit::OK);
    };
    let quick = Quick::load(&dirs)?.quick;
    if quick.actor() != Actor::Agent {
        return Ok(exit::OK);
    }
    let contract = facts::contract_at(Some(&dirs.git_dir))?.map(|(c, _)| c);
    let commit = &quick.commit;
    if contract.is_none() && !commit.attributes() {
        return Ok(exit::OK);
    }
    let footer = contract.map(|c| quick.footer.replace("{contract}", &c));
    let (agent, model) = super::attribution::agent_and_model(commit);
    // The contract footer, then the attribution the policy asks for.
    let edit = |text: &str, comment: char| {
        let with = footer
            .as_deref()
            .and_then(|f| with_footer(text, f, comment));
        let now = with.as_deref().unwrap_or(text);
        super::attribution::attributed(now, commit, &agent, &model, comment).or(with)
    };
    let Ok(bytes) = std::fs::read(file) else {
        return Ok(exit::OK);
    };
    // Where git keeps `#` lines (`commit -m "#42 fix"`), they are text.
    // `commit.cleanup` from `-c` and the environment, else from the files
    // (parsed only when one mentions it).
    let configured = || {
        let given = facts::env_config()
            .into_iter()
            .rev()
            .find(|(k, _)| k == "commit.cleanup")
            .map(|(_, v)| v);
        given.or_else(|| {
            mentioned(&dirs, "cleanup")
                .then(|| facts::Repo::from_dirs(&dirs)?.config_string("commit.cleanup"))
                .flatten()
        })
    };
    // `git am` keeps the mail's `#` lines: applypatch-msg's message is text.
    let comment = if name != "applypatch-msg" && strips_comments(&super::parent_argv(), configured)
    {
        comment_char(&dirs)
    } else {
        '\0'
    };
    // A message in another encoding (`i18n.commitEncoding`, or bytes that
    // are simply not UTF-8) gets the footer too: its bytes are kept as
    // they are around it.
    let new = match String::from_utf8(bytes) {
        Ok(text) => {
            let new = edit(&text, comment);
            let signed = super::attribution::signed_off(new.as_deref().unwrap_or(&text), comment);
            if let Some(err) =
                crate::decide::attribution::sign_off(&commit.signed_off_by, Actor::Agent, signed)
            {
                return Err(err);
            }
            new.map(String::into_bytes)
        }
        Err(e) => match (escaped(e.as_bytes()), &footer) {
            (Some(text), _) => edit(&text, comment).map(|t| unescaped(&t)),
            (None, Some(footer)) => {
                Some([e.as_bytes(), format!("\n\n{footer}\n").as_bytes()].concat())
            }
            (None, None) => None,
        },
    };
    if let Some(new) = new {
        std::fs::write(file, new).at("write", file)?;
    }
    Ok(exit::OK)
}

/// Where bytes that are not UTF-8 stand in [`escaped`] text: one char of
/// this private-use block per byte (U+F780 for 0x80 ...).
const ESCAPE: u32 = 0xF700;

/// Text for bytes that are not all UTF-8, that [`unescaped`] turns back
/// into exactly them: each byte outside a UTF-8 sequence becomes a char
/// of a private-use block. `None` when the text itself uses that block.
fn escaped(bytes: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                break;
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let n = e.error_len().unwrap_or(bad.len());
                out.extend(
                    bad[..n]
                        .iter()
                        .filter_map(|b| char::from_u32(ESCAPE + u32::from(*b))),
                );
                rest = &bad[n..];
            }
        }
    }
    let used = |c: char| (ESCAPE + 0x80..=ESCAPE + 0xFF).contains(&u32::from(c));
    let original = String::from_utf8_lossy(bytes);
    (!original.chars().any(used)).then_some(out)
}

/// The bytes [`escaped`] text stands for.
fn unescaped(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c).checked_sub(ESCAPE) {
            Some(b @ 0x80..=0xFF) => out.push(b as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Will git take comment lines out of the message? For a `git commit` or
/// `git merge` (`argv`, the parent's command line): as its `--cleanup`
/// says, else as `commit.cleanup` (`configured`, read only then) says,
/// else only when an editor opens (`-e`, or no `-m`, `-F`, `-C`): with a
/// message given, the default cleanup keeps `#` lines (`commit -m "#42
/// fix"`). Anything else (a pick, an alias): yes.
fn strips_comments(argv: &[String], configured: impl FnOnce() -> Option<String>) -> bool {
    let Some(at) = argv.iter().position(|a| a == "commit" || a == "merge") else {
        return true;
    };
    let (mut cleanup, mut message, mut edit) = (None, false, None);
    let mut words = argv[at + 1..].iter().map(String::as_str);
    while let Some(word) = words.next() {
        match word {
            "--" => break,
            "--message" | "--file" | "--reuse-message" => {
                message = true;
                words.next();
            }
            "--edit" => edit = Some(true),
            "--no-edit" => edit = Some(false),
            "--cleanup" => cleanup = words.next(),
            _ if word.starts_with("--cleanup=") => cleanup = word.get(10..),
            _ if ["--message=", "--file=", "--reuse-message="]
                .iter()
                .any(|p| word.starts_with(p)) =>
            {
                message = true
            }
            _ if word.starts_with("--") => {}
            _ if word.starts_with('-') => {
                // Bundled short flags: `-qm msg`, `-mmsg`, `-e`.
                for (i, c) in word.char_indices().skip(1) {
                    match c {
                        'e' => edit = Some(true),
                        'm' | 'F' | 'C' | 'c' | 't' => {
                            message |= c != 'c' && c != 't';
                            if c == 'c' || c == 't' {
                                edit = Some(true);
                            }
                            if i + 1 == word.len() {
                                words.next();
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let configured = match cleanup {
        Some(_) => None,
        None => configured(),
    };
    match cleanup.or(configured.as_deref()) {
        Some("verbatim" | "whitespace") => false,
        Some("strip" | "scissors") => true,
        _ => edit.unwrap_or(!message),
    }
}

/// Does a config file git reads here (the repository's, the user's)
/// mention `word` (lower case) at all? Parsing them is left to when one does.
fn mentioned(dirs: &Dirs, word: &str) -> bool {
    let home = env::var(env::HOME).map(std::path::PathBuf::from);
    let xdg = env::var(env::XDG_CONFIG_HOME)
        .map(std::path::PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let files = [
        Some(dirs.common_dir.join("config")),
        home.map(|h| h.join(".gitconfig")),
        xdg.map(|x| x.join("git").join("config")),
    ];
    files
        .iter()
        .flatten()
        .any(|f| std::fs::read_to_string(f).is_ok_and(|t| t.to_ascii_lowercase().contains(word)))
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
    if !mentioned(dirs, "commentchar") {
        return '#';
    }
    facts::Repo::from_dirs(dirs)
        .and_then(|r| r.config_string("core.commentChar"))
        .map_or('#', |v| pick(&v))
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
    // The seed's form (`[Contract: c1]`) as a paragraph of its own just
    // above a trailer block is where `git ward save` puts it, keeping its
    // trailers last (where git reads them): it stays there.
    if !trailer && last >= 2 && trailer_block(&m.lines_of(last)) {
        let above = m.lines_of(last - 1);
        if above.len() == 1 && is_footer(above[0], footer) {
            let copies = m.copies(footer, 1..last - 1);
            return (!copies.is_empty()).then(|| m.render(&copies, None));
        }
    }
    // Where git reads a trailer: a last paragraph, past the title, that it
    // reads as trailers. Any other footer stands as the last paragraph.
    let block = !trailer || (last > 0 && trailer_block(&m.lines_of(last)));
    let present = block && m.lines_of(last).iter().any(|l| is_footer(l, footer));
    let copies = m.copies(footer, 1..last);
    if present && copies.is_empty() {
        return None;
    }
    let append = (!present).then_some((footer, trailer && block));
    Some(m.render(&copies, append))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_stripped_as_git_would_strip_them() {
        let argv = |line: &str| -> Vec<String> { line.split(' ').map(String::from).collect() };
        for (line, strips) in [
            ("git commit", true),
            ("git commit -m #42", false),
            ("git commit -qm #42", false),
            ("git commit -m#42", false),
            ("git commit --message=#42", false),
            ("git commit -F -", false),
            ("git commit -m #42 -e", true),
            ("git commit -m #42 --cleanup=strip", true),
            ("git commit --cleanup=verbatim", false),
            ("git commit --cleanup whitespace", false),
            ("git commit -C HEAD", false),
            ("git commit -c HEAD", true),
            ("git commit --amend", true),
            ("git commit --amend --no-edit", false),
            ("git -c x=y commit -m m", false),
            ("git merge topic", true),
            ("git merge -m #5 topic", false),
            ("git cherry-pick x", true),
        ] {
            assert_eq!(strips_comments(&argv(line), || None), strips, "{line}");
        }
        // `commit.cleanup` where the command line says nothing.
        let verbatim = || Some("verbatim".to_string());
        assert!(!strips_comments(&argv("git commit"), verbatim));
        assert!(strips_comments(
            &argv("git commit --cleanup=strip"),
            verbatim
        ));
    }

    /// Bytes that are not UTF-8 come back as they were, the footer added.
    #[test]
    fn a_message_that_is_not_utf8_gets_the_footer_and_keeps_its_bytes() {
        let raw = b"fix caf\xe9 \xff\xfe\n\nbody \xc3\n";
        let text = escaped(raw).unwrap();
        assert_eq!(unescaped(&text), raw);
        let new = unescaped(&with_footer(&text, F, '#').unwrap());
        assert_eq!(new, b"fix caf\xe9 \xff\xfe\n\nbody \xc3\n\nContract: c1\n");
    }

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
            // git reads a trailer's key in any case, blanks around the `:`.
            ("s\n\ncontract: c1\n", None),
            ("s\n\nCONTRACT:c1\n", None),
            ("s\n\nContract :\tc1\n", None),
            ("s\n\nContract: c2\n", Some("s\n\nContract: c2\nContract: c1\n")),
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
