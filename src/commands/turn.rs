//! `git ward turn`: the context-pollution guard.
//!
//! Each turn of an agent runs the tests and takes a `turn` checkpoint with
//! their status. When the last `turns.pollution_threshold` turns all
//! failed, the agent has likely drifted: with rollback-on-pollution on, the
//! working tree goes back to the newest passing turn (safety checkpoint
//! first).

use super::Outcome;
use std::time::Duration;

use serde_json::json;

use super::ask::Out;
use crate::checkpoint::rollback;
use crate::checkpoint::snapshot::Options;
use crate::checkpoint::store::{self, Checkpoint, Kind};
use crate::checkpoint::{tool_repo, Ctx};
use crate::error::{exit, Error, Result};

/// Run the tests, take a `turn` checkpoint with their status, and roll back
/// to the newest passing turn when the last `turns.pollution_threshold`
/// turns failed and rollback-on-pollution is on.
#[derive(Debug, clap::Args)]
pub struct TurnArgs {
    /// The test command, run with `sh -c` (its output passes through).
    #[arg(long, value_name = "CMD")]
    pub tests: String,
    /// Roll back on pollution even if `turns.rollback_on_pollution` is off.
    #[arg(long)]
    pub rollback_on_pollution: bool,
    /// Print the result as JSON (the tests' output goes to stderr).
    #[arg(long)]
    pub json: bool,
}

/// Runs `git ward turn`.
pub fn run(args: TurnArgs) -> Outcome {
    let json = args.json;
    Outcome::coded(json, turn(args))
}

fn turn(args: TurnArgs) -> Result<(serde_json::Value, u8)> {
    // `sh -c ''` passes: an empty command (an unset variable) would record
    // a passing turn that ran no test.
    if args.tests.trim().is_empty() {
        return Err(Error::invalid(
            "the test command is empty",
            "name the command that runs the tests: `git ward turn --tests 'cargo test'`",
        ));
    }
    let out = Out { json: args.json };
    let repo = tool_repo()?;
    let ctx = Ctx::for_tool(&repo)?;
    let limit = crate::policy::parse_duration(&ctx.settings.turns.test_timeout)
        .unwrap_or(Duration::from_secs(30 * 60));
    let started = std::time::SystemTime::now();
    let passed = crate::checkpoint::suite::run(&args.tests, limit, args.json)?;
    let status = if passed { "pass" } else { "fail" };

    let mine = |c: &&Checkpoint| {
        c.kind == Kind::Turn
            && c.contract == ctx.contract
            && c.worktree.as_deref() == Some(&ctx.git_dir.display().to_string())
    };
    let before: Vec<Checkpoint> = store::list(&ctx)?.iter().filter(mine).cloned().collect();
    let n = next_turn(&before);
    let mut opts = Options::new(Kind::Turn);
    opts.description = format!("turn {n}: tests {status}");
    opts.turn = Some(n);
    opts.tests = Some(status.to_string());
    let cp = crate::checkpoint::take::checkpoint(&ctx, opts)?;
    super::checkpoint::record(
        &ctx,
        "ward.turn",
        started,
        vec![format!("checkpoint {}", cp.id), format!("tests {status}")],
    );
    out.say(&format!("Turn {n}: tests {status}; checkpoint {}\n", cp.id));
    let mut value = json!({ "turn": n, "tests": status, "checkpoint": cp.id });

    let threshold = ctx.settings.turns.pollution_threshold.max(1) as usize;
    let mut turns = before;
    turns.push(cp);
    let polluted = turns.len() >= threshold
        && turns[turns.len() - threshold..]
            .iter()
            .all(|c| c.tests.as_deref() == Some("fail"));
    value["polluted"] = polluted.into();
    if !polluted {
        return Ok((value, exit::OK));
    }
    out.say(&format!(
        "The last {threshold} turns failed: the context looks polluted.\n"
    ));
    if !(args.rollback_on_pollution || ctx.settings.turns.rollback_on_pollution) {
        out.say(
            "Roll back with --rollback-on-pollution (or policy turns.rollback_on_pollution).\n",
        );
        return Ok((value, exit::OK));
    }
    let Some(good) = newest_passing(&turns) else {
        out.say("No passing turn to roll back to: nothing changed.\n");
        value["rolled_back_to"] = serde_json::Value::Null;
        return Ok((value, exit::OK));
    };
    roll_back(&ctx, &out, good, value)
}

/// Rolls the working tree back to the passing turn `good`, after a safety
/// checkpoint, and reports it as `git ward rollback` does: the safety
/// checkpoint named first, each path that could not be restored with its
/// reason, then an error (exit 3) if any could not.
fn roll_back(
    ctx: &Ctx,
    out: &Out,
    good: &Checkpoint,
    mut value: serde_json::Value,
) -> Result<(serde_json::Value, u8)> {
    let prepared = rollback::prepare(ctx, good, &[], false)?;
    let safety = rollback::take_safety(
        ctx,
        &prepared.present,
        &format!("before rollback to {} (pollution)", good.id),
        Some(&good.id),
    )?;
    out.say(&rollback::safety_line(&safety));
    let entries: Vec<_> = prepared.plan.entries.iter().collect();
    let failures = crate::checkpoint::plan::apply(ctx, &entries, &prepared.plan)?;
    out.say(&format!(
        "Rolled back to {} (turn {}, tests pass)\n",
        good.id,
        good.turn.unwrap_or(0)
    ));
    out.say(&rollback::summary(&entries, &failures));
    super::checkpoint::record(
        ctx,
        "ward.rollback",
        std::time::SystemTime::now(),
        vec![
            format!("safety checkpoint {safety}"),
            format!("rollback to {} on pollution", good.id),
        ],
    );
    value["rolled_back_to"] = good.id.clone().into();
    value["safety_checkpoint"] = safety.into();
    value["restored"] = (entries.len() + prepared.plan.refused.len())
        .saturating_sub(failures.len())
        .into();
    value["failures"] = serde_json::to_value(&failures).unwrap_or_default();
    if failures.is_empty() {
        Ok((value, exit::OK))
    } else {
        Ok(out.failed(value, failures.len(), "rollback on pollution"))
    }
}

/// The newest turn whose tests passed, the one a rollback restores from.
fn newest_passing(turns: &[Checkpoint]) -> Option<&Checkpoint> {
    turns
        .iter()
        .rev()
        .find(|c| c.tests.as_deref() == Some("pass"))
}

/// The largest turn number git-ward writes. A larger `Ward-Turn` trailer
/// was written by hand: it is left out when the next number is chosen, so
/// it cannot make the count overflow.
const MAX_TURN: u32 = 999_999_999;

/// The number of the turn after `before`.
fn next_turn(before: &[Checkpoint]) -> u32 {
    before
        .iter()
        .filter_map(|c| c.turn)
        .filter(|n| *n < MAX_TURN)
        .max()
        .unwrap_or(0)
        + 1
}
