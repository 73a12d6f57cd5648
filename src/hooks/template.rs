//! git's check that a commit message is not its template left as it was
//! (`commit.template`): git aborts such a commit after both message hooks
//! ran, so the footer hook must know when git is about to.

use super::message::before_scissors;

/// git's `template_untouched`: does the message, its comment lines and
/// extra blank lines gone, start with the template cleaned up alike, with
/// nothing after it but blank lines and sign-offs? That is the whole check
/// when git strips comment lines (`strip`: an editor opened). Otherwise
/// `GIT_EDITOR=:` meant no editor (comment lines stay) or one that changes
/// nothing (they go, and git's status came in): the message must also hold
/// every comment line of the template.
pub(super) fn unedited(text: &str, template: &str, comment: char, strip: bool) -> bool {
    if template.is_empty() {
        return false;
    }
    let text = before_scissors(text, comment);
    let message = stripspace(text, Some(comment));
    let stripped = stripspace(template, Some(comment));
    let rest = message.strip_prefix(stripped.as_str()).unwrap_or(&message);
    let nothing_after = rest
        .lines()
        .all(|l| l.trim().is_empty() || l.starts_with("Signed-off-by: "));
    nothing_after
        && (strip
            || template
                .lines()
                .filter(|l| l.starts_with(comment))
                .all(|c| text.lines().any(|l| l == c)))
}

/// git's `strbuf_stripspace`: trailing whitespace off every line, comment
/// lines out when `comment` is given, no blank lines first or last, and
/// one where there were several.
pub(super) fn stripspace(text: &str, comment: Option<char>) -> String {
    let mut out = String::new();
    let mut gap = false;
    for line in text.lines() {
        if comment.is_some_and(|c| line.starts_with(c)) {
            continue;
        }
        let line = line.trim_end();
        if line.is_empty() {
            gap = !out.is_empty();
            continue;
        }
        if gap {
            out.push('\n');
            gap = false;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Is the git that ran this hook a `git commit` whose command line leaves
/// the template check as the config sets it? A word that may be
/// `--allow-empty-message`, `--cleanup` or `--template`/`-t` (abbreviated,
/// negated or bundled) says no, and so does any other command (an alias
/// may hide them).
pub(super) fn plain_commit(argv: &[String]) -> bool {
    if super::parent_operation(argv) != "git.commit" {
        return false;
    }
    // Each long option, and the shortest abbreviation git takes for it.
    const LONG: [(&str, usize); 3] = [
        ("allow-empty-message", "allow-empty-".len()),
        ("cleanup", 1),
        ("template", 2),
    ];
    let may_change = |word: &String| match word.strip_prefix("--") {
        Some(long) => {
            let name = long.split('=').next().unwrap_or_default();
            let name = name.strip_prefix("no-").unwrap_or(name);
            LONG.iter()
                .any(|(opt, min)| name.len() >= *min && opt.starts_with(name))
        }
        None => word.starts_with('-') && word.contains('t'),
    };
    !argv
        .iter()
        .skip_while(|w| *w != "commit")
        .skip(1)
        .any(may_change)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "Template subject\n\n# describe the change\n";
    const STATUS: &str =
        "\n# Please enter the commit message for your changes.\n#\n# On branch x\n";

    #[test]
    fn an_unedited_template_is_known_as_git_knows_it() {
        let untouched = format!("{TEMPLATE}{STATUS}");
        assert!(unedited(&untouched, TEMPLATE, '#', true));
        // `GIT_EDITOR=:`: no editor, or one that changes nothing.
        assert!(unedited(&untouched, TEMPLATE, '#', false));
        assert!(unedited(TEMPLATE, TEMPLATE, '#', false));
        let signed = format!(
            "Template subject\n\nSigned-off-by: A <a@b>\n\n# describe the change\n{STATUS}"
        );
        assert!(unedited(&signed, TEMPLATE, '#', true));
        assert!(unedited(&signed, TEMPLATE, '#', false));
        let verbose = format!(
            "{untouched}# ------------------------ >8 ------------------------\ndiff --git a b\n"
        );
        assert!(unedited(&verbose, TEMPLATE, '#', true));
        // Edited, or only the template's text without its comments and no editor.
        assert!(!unedited(
            &format!("Mine\n\n{untouched}"),
            TEMPLATE,
            '#',
            true
        ));
        assert!(!unedited(
            &format!("{untouched}\nmore\n"),
            TEMPLATE,
            '#',
            true
        ));
        assert!(!unedited("Template subject\n", TEMPLATE, '#', false));
        assert!(!unedited("Template subject\n", "", '#', true));
        assert_eq!(stripspace("\n a  \n\n\n# c\nb\n\n", Some('#')), " a\n\nb\n");
        assert_eq!(stripspace("a\n# c\n", None), "a\n# c\n");
    }

    #[test]
    fn only_a_plain_commit_leaves_the_template_check_to_the_config() {
        let words = |line: &str| -> Vec<String> { line.split(' ').map(String::from).collect() };
        for plain in [
            "git commit --allow-empty",
            "/usr/bin/git -c a.b=c commit -s -m msg",
            "git commit --trailer x=y --no-verify -qam fix",
        ] {
            assert!(plain_commit(&words(plain)), "{plain}");
        }
        for not in [
            "git commit --allow-empty-message",
            "git commit --allow-empty-",
            "git commit --no-allow-empty-message",
            "git commit --cleanup=strip",
            "git commit --cl verbatim",
            "git commit -t file",
            "git commit -qt file",
            "git commit --templ=file",
            "git ci",
            "git merge x",
        ] {
            assert!(!plain_commit(&words(not)), "{not}");
        }
    }
}
