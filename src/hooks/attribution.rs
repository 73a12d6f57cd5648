//! Attribution on agent commits (policy `[commit]`): the trailers harnesses
//! add that the policy strips, the `Assisted-by:` trailer, and whether the
//! message carries `Signed-off-by`. Pure text; commit-msg and
//! prepare-commit-msg apply it after the contract footer.

use super::message::{trailer_block, Message};
use crate::env;
use crate::policy::CommitPolicy;

/// Variables that name the harness an agent runs in, for `{agent}`.
const HARNESSES: &[(&str, &str)] = &[
    ("CLAUDECODE", "claude-code"),
    ("CODEX_SANDBOX", "codex"),
    ("GEMINI_CLI", "gemini-cli"),
    ("CURSOR_AGENT", "cursor"),
    ("OPENHANDS", "openhands"),
    ("GOOSE_SESSION", "goose"),
];

/// Variables harnesses set to the model they run, for `{model}`.
const MODELS: &[&str] = &["ANTHROPIC_MODEL", "GEMINI_MODEL", "OPENAI_MODEL"];

/// `{agent}` and `{model}`: `WARD_AGENT_NAME` and `WARD_AGENT_MODEL`, else
/// what the harness's own variables say, else `agent` and `commit.model`.
pub fn agent_and_model(policy: &CommitPolicy) -> (String, String) {
    let agent = env::var(env::WARD_AGENT_NAME)
        .or_else(|| {
            HARNESSES
                .iter()
                .find(|(var, _)| env::present(var))
                .map(|(_, name)| name.to_string())
        })
        .unwrap_or_else(|| "agent".into());
    let model = env::var(env::WARD_AGENT_MODEL)
        .or_else(|| MODELS.iter().find_map(|v| env::var(v)))
        .unwrap_or_else(|| policy.model.clone());
    (agent, model)
}

/// The `Assisted-by` line for `template`; an unknown model leaves `:{model}` out.
pub fn fill(template: &str, agent: &str, model: &str) -> String {
    let template = if model.is_empty() {
        template.replace(":{model}", "").replace("{model}", "")
    } else {
        template.replace("{model}", model)
    };
    template.replace("{agent}", agent)
}

/// The message with the policy's attribution applied; `None` when unchanged.
pub fn attributed(
    text: &str,
    policy: &CommitPolicy,
    agent: &str,
    model: &str,
    comment: char,
) -> Option<String> {
    let mut out = None::<String>;
    if !policy.strip_trailers.is_empty() {
        let m = Message::parse(text, comment);
        if let Some(last) = last_trailers(&m) {
            let drop: Vec<usize> = m.paragraphs[last]
                .iter()
                .zip(m.lines_of(last))
                .filter(|(_, line)| has_key(line, &policy.strip_trailers))
                .map(|(&i, _)| i)
                .collect();
            if !drop.is_empty() {
                out = Some(m.render(&drop, None));
            }
        }
    }
    if !policy.assisted_by.is_empty() {
        let line = fill(&policy.assisted_by, agent, model);
        let now = out.as_deref().unwrap_or(text);
        if let Some(with) = super::footer::with_footer(now, &line, comment) {
            out = Some(with);
        }
    }
    out
}

/// Whether the message's trailers carry a `Signed-off-by`.
pub fn signed_off(text: &str, comment: char) -> bool {
    let m = Message::parse(text, comment);
    last_trailers(&m).is_some_and(|last| {
        m.lines_of(last)
            .iter()
            .any(|l| has_key(l, &["Signed-off-by".to_string()]))
    })
}

/// The last paragraph, when git reads it as the trailer block.
fn last_trailers(m: &Message) -> Option<usize> {
    let last = m.paragraphs.len().checked_sub(1)?;
    (last > 0 && trailer_block(&m.lines_of(last))).then_some(last)
}

/// A trailer line whose key is one of `keys` (any case).
fn has_key(line: &str, keys: &[String]) -> bool {
    line.split_once(':')
        .is_some_and(|(k, _)| keys.iter().any(|want| want.eq_ignore_ascii_case(k.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(assisted: &str, strip: &[&str]) -> CommitPolicy {
        CommitPolicy {
            assisted_by: assisted.into(),
            strip_trailers: strip.iter().map(|s| s.to_string()).collect(),
            ..CommitPolicy::default()
        }
    }

    #[test]
    fn harness_trailers_go_and_assisted_by_comes_once() {
        let msg = "Fix it\n\nBody.\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nClaude-Session: abc\nContract: t1\n";
        let p = policy(
            "Assisted-by: {agent}:{model}",
            &["co-authored-by", "Claude-Session"],
        );
        let out = attributed(msg, &p, "claude-code", "claude-opus-4", '#').unwrap();
        assert_eq!(
            out,
            "Fix it\n\nBody.\n\nContract: t1\nAssisted-by: claude-code:claude-opus-4\n"
        );
        assert_eq!(
            attributed(&out, &p, "claude-code", "claude-opus-4", '#'),
            None
        );
        // Nothing to do with the defaults.
        assert_eq!(
            attributed(msg, &CommitPolicy::default(), "a", "m", '#'),
            None
        );
        // A trailer-looking line in the body is not a trailer.
        let body = "Fix\n\nCo-Authored-By: in prose\n\nMore prose.\n";
        assert_eq!(
            attributed(body, &policy("", &["Co-Authored-By"]), "a", "", '#'),
            None
        );
    }

    #[test]
    fn an_unknown_model_is_left_out() {
        assert_eq!(
            fill("Assisted-by: {agent}:{model}", "codex", ""),
            "Assisted-by: codex"
        );
        assert_eq!(
            fill("Assisted-by: {agent}:{model}", "codex", "gpt-5"),
            "Assisted-by: codex:gpt-5"
        );
    }

    #[test]
    fn a_sign_off_is_found_in_the_trailers_only() {
        assert!(signed_off("Fix\n\nSigned-off-by: A <a@b>\n", '#'));
        assert!(!signed_off(
            "Fix\n\nSigned-off-by: A <a@b>\n\nMore prose.\n",
            '#'
        ));
        assert!(!signed_off("Signed-off-by: A <a@b>\n", '#'));
    }
}
