//! `git ward explain -- <git args>`: what would happen and why, without doing it.

use std::ffi::OsString;

use crate::assess::{assess, Assessment};
use crate::decide::{ToolStep, Verdict};
use crate::error::{exit, Result};

/// Print the classification, the facts, the decision, the rule and the policy
/// layer that decided, for a git command line. Runs nothing.
#[derive(Debug, clap::Args)]
pub struct ExplainArgs {
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Explain as the shim sees it (the actor is an agent).
    #[arg(long)]
    pub as_agent: bool,
    /// The git command line, after `--` (`git` itself may lead it or not).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
    pub args: Vec<OsString>,
}

/// Runs `git ward explain`. Exit 0 whatever the decision: explaining is not refusing.
pub fn run(mut args: ExplainArgs) -> Result<u8> {
    // `git ward explain -- git push` reads as `git push`: git has no
    // command named `git`, so a leading `git` can only be the program.
    if args.args.len() > 1 && args.args[0] == "git" {
        args.args.remove(0);
    }
    let mut a = assess(&args.args, args.as_agent);
    if a.action.command == "ward" {
        if let Some(tool) = ward_step(&args.args, args.as_agent) {
            a = tool;
        }
    }
    let layer = a
        .decision
        .key
        .and_then(|key| a.policy.as_ref().ok().map(|p| p.origin(key).to_string()));
    // A move onto an agent branch that exists (here or on a remote) is
    // checkpointed first, so that undo can put the work back.
    let switch_checkpoint = match &a.decision.verdict {
        Verdict::Switch(b) => crate::act::switch::branch_source(&a, b).is_some(),
        _ => false,
    };
    let (verdict, code, hint, switch_to) = match &a.decision.verdict {
        Verdict::Allow => ("allow", None, None, None),
        Verdict::Deny(e) => ("deny", Some(e.code.as_str()), e.hint.clone(), None),
        Verdict::Switch(b) => ("autoswitch", None, None, Some(b.clone())),
    };
    if args.json {
        let value = serde_json::json!({
            "status": "S",
            "argv": args.args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>(),
            "action": a.action,
            "operation": a.action.operation(),
            "tier": a.tier(),
            "facts": a.facts,
            "decision": a.decision.word(),
            "verdict": verdict,
            "code": code,
            "message": a.decision.denial().map(|e| e.message.clone()),
            "hint": hint,
            "switch_to": switch_to,
            "checkpoint": a.decision.checkpoint,
            "checkpoint_before_switch": switch_checkpoint,
            "checkpoint_if_staged": a.decision.save_staged,
            "rule": a.decision.rule,
            "policy_key": a.decision.key,
            "policy_layer": layer,
            "policy_error": a.policy.as_ref().err().map(|e| e.message.clone()),
            "attribution": attribution(&a).map(|(value, _)| value),
        });
        crate::output::outln!("{value}");
        return Ok(exit::OK);
    }
    let mut out = String::new();
    let line = |out: &mut String, k: &str, v: String| out.push_str(&format!("{k:<12}{v}\n"));
    line(&mut out, "command:", a.action.operation());
    // As the policy's `commands` overrides leave it, as the tier is.
    let effect = match &a.policy {
        Ok(policy) => crate::decide::effective_effect(policy, &a.action),
        Err(_) => a.action.effect,
    };
    line(
        &mut out,
        "effect:",
        format!("{effect:?} (tier {})", a.tier()).to_lowercase(),
    );
    if let Some(alias) = &a.action.alias {
        line(&mut out, "alias:", alias.clone());
    }
    if let Some(why) = &a.action.destructive {
        line(&mut out, "destroys:", why.clone());
    }
    if let Some(f) = &a.facts {
        line(&mut out, "actor:", format!("{:?}", f.actor).to_lowercase());
        line(
            &mut out,
            "contract:",
            f.contract.clone().unwrap_or_else(|| "none".into()),
        );
        let head = match &f.head {
            None => "not in a repository".to_string(),
            Some(h) => h
                .branch()
                .map_or("detached HEAD".to_string(), str::to_string),
        };
        line(&mut out, "branch:", head);
    }
    if let Some((_, text)) = attribution(&a) {
        line(&mut out, "attribution:", text);
    }
    let colour = match a.decision.verdict {
        Verdict::Deny(_) => crate::output::Colour::Red,
        Verdict::Allow if !a.decision.checkpoint => crate::output::Colour::Green,
        _ => crate::output::Colour::Yellow,
    };
    let word = a.decision.word();
    line(
        &mut out,
        "decision:",
        crate::output::paint(crate::output::colour_stdout(), colour, word),
    );
    line(&mut out, "rule:", a.decision.rule.clone());
    if let Some(key) = a.decision.key {
        line(
            &mut out,
            "policy:",
            format!("{key} ({})", layer.unwrap_or_else(|| "-".into())),
        );
    }
    // A pre-destructive checkpoint is skipped where nothing is there to lose.
    const IF_ANY: &str = "checkpoint (if anything is there to lose)";
    let before = if switch_checkpoint {
        "checkpoint, then "
    } else {
        ""
    };
    match &a.decision.verdict {
        Verdict::Deny(e) => out.push_str(&e.render_denial()),
        Verdict::Switch(b) if a.decision.checkpoint => out.push_str(&format!(
            "would {before}switch to '{b}', {IF_ANY}, then run the command\n"
        )),
        Verdict::Switch(b) => out.push_str(&format!(
            "would {before}switch to '{b}', then run the command\n"
        )),
        Verdict::Allow if a.decision.checkpoint => {
            out.push_str(&format!("would {IF_ANY}, then run the command\n"))
        }
        Verdict::Allow if a.decision.save_staged => out.push_str(
            "would checkpoint staged versions the working tree no longer holds (if any), then run the command\n",
        ),
        Verdict::Allow => out.push_str("would run the command\n"),
    }
    crate::output::out!("{out}");
    Ok(exit::OK)
}

/// What an agent's commit is given and refused by policy `[commit]`, for
/// a command that makes commits: JSON and one line of text.
fn attribution(a: &Assessment) -> Option<(serde_json::Value, String)> {
    let c = &a.policy.as_ref().ok()?.settings.commit;
    if !a.action.creates_commits {
        return None;
    }
    let value = serde_json::json!({
        "footer": c.footer,
        "assisted_by": c.assisted_by,
        "strip_trailers": c.strip_trailers,
        "signed_off_by": c.signed_off_by,
    });
    let assisted = match c.assisted_by.as_str() {
        "" => "no Assisted-by".to_string(),
        t => format!("'{t}'"),
    };
    let strip = match c.strip_trailers.as_slice() {
        [] => "keeps every trailer".to_string(),
        keys => format!("strips {}", keys.join(", ")),
    };
    let text = format!(
        "'{}', {assisted}, {strip}, Signed-off-by: {}",
        c.footer, c.signed_off_by
    );
    Some((value, text))
}

/// `git ward <step>` as the tool decides it: `save` is a commit through the
/// same rules (`git ward save` assesses `git commit`); `uninstall`,
/// `install --link` and `rollback --no-safety` as
/// [`crate::decide::decide_tool`] says. `None` for the other steps, which
/// the rules let through.
fn ward_step(argv: &[OsString], as_agent: bool) -> Option<Assessment> {
    let at = argv.iter().position(|w| w == "ward")?;
    let rest: Vec<&str> = argv[at + 1..].iter().filter_map(|w| w.to_str()).collect();
    let step = match rest.first().copied()? {
        "save" => {
            let mut commit: Vec<OsString> = argv[..at].to_vec();
            commit.extend(["commit", "--allow-empty", "-F", "-"].map(OsString::from));
            let mut a = assess(&commit, as_agent);
            super::save::as_commit(&mut a);
            return Some(a);
        }
        "uninstall" => ToolStep::Uninstall,
        "install" if rest.contains(&"--link") => ToolStep::LinkHooks,
        "rollback" if rest.contains(&"--no-safety") => ToolStep::RollbackWithoutSafety,
        _ => return None,
    };
    let mut a = assess(argv, as_agent);
    let policy = a
        .policy
        .as_ref()
        .map_or_else(|_| crate::policy::Policy::built_in(), Clone::clone);
    let actor = crate::facts::actor(&policy, as_agent);
    a.decision = crate::decide::decide_tool(&policy, actor, step);
    Some(a)
}
