//! Hints in the words of the tools: a refusal or failure whose hint names
//! a `git ward` command the server has a tool for names that tool instead
//! (`undo` with `confirm: true`, not `git ward undo --yes`). Commands with
//! no tool (`git ward contract start`, `drift`) are a person's to run and
//! stay as they are.

/// `hint` with each backquoted `git ward <command> ...` that has a tool
/// replaced by the tool's name and arguments.
pub fn name_tools(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    let mut rest = hint;
    while let Some(start) = rest.find('`') {
        let Some(len) = rest[start + 1..].find('`') else {
            break;
        };
        let quoted = &rest[start + 1..start + 1 + len];
        out.push_str(&rest[..start]);
        match tool_for(quoted) {
            Some(tool) => out.push_str(&tool),
            None => {
                out.push('`');
                out.push_str(quoted);
                out.push('`');
            }
        }
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// The tool call that does what `command` (`git ward undo --yes`) does.
fn tool_for(command: &str) -> Option<String> {
    let words: Vec<&str> = command.strip_prefix("git ward ")?.split(' ').collect();
    let yes = words.contains(&"--yes") || words.contains(&"-y");
    let tool = match words[0] {
        "undo" if yes => "the undo tool with confirm: true".to_string(),
        "undo" => "the undo tool".to_string(),
        "rollback" if yes => {
            "the rollback tool with the checkpoint_id and confirm: true".to_string()
        }
        "rollback" => "the rollback tool with the checkpoint_id".to_string(),
        "checkpoints" => "the checkpoint_list tool".to_string(),
        "checkpoint" if words.len() == 1 || words[1].starts_with('-') => {
            "the checkpoint_create tool".to_string()
        }
        "save" => "the save tool".to_string(),
        "explain" => "the explain tool".to_string(),
        _ => return None,
    };
    Some(tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_with_a_tool_become_the_tool() {
        assert_eq!(
            name_tools("nothing changed: run `git ward undo --yes` to proceed"),
            "nothing changed: run the undo tool with confirm: true to proceed"
        );
        assert_eq!(
            name_tools("list them with `git ward checkpoints`, then `git ward rollback <id>`"),
            "list them with the checkpoint_list tool, then the rollback tool with the checkpoint_id"
        );
        assert_eq!(
            name_tools("save first (`git ward save -m msg`)"),
            "save first (the save tool)"
        );
    }

    #[test]
    fn commands_without_a_tool_stay() {
        for hint in [
            "start one: `git ward contract start <id>`",
            "`git ward drift --restore` puts them back",
            "push without force (`git push origin agent/x`)",
            "an unclosed `quote",
            "",
        ] {
            assert_eq!(name_tools(hint), hint);
        }
    }
}
