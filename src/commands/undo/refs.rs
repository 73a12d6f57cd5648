//! Undo's refs: which the command moved (its journal, else its
//! checkpoint's record, only refs an agent may move), what becomes of each
//! and of HEAD, and moving them back.

use crate::checkpoint::store::{short, Checkpoint};
use crate::checkpoint::undo::head::{head_step, switch_head, HeadStep};
use crate::checkpoint::undo::{
    agents_refs, current, ref_steps, refs_from_checkpoint, LeftAlone, RefMove, RefStep, Undoable,
    ZERO,
};
use crate::checkpoint::Ctx;
use crate::commands::ask::Out;
use crate::error::Result;

/// What undo does to refs and HEAD.
pub struct RefPlan {
    /// One step per ref the command moved.
    pub steps: Vec<RefStep>,
    /// Refs a checkpoint's record names that no undo may move.
    pub refused: Vec<LeftAlone>,
    /// HEAD back on the branch the command left, when that holds.
    pub head: Option<HeadStep>,
}

/// What moving the refs back did.
#[derive(Default)]
pub struct Moved {
    pub journal: Vec<RefMove>,
    pub failures: Vec<String>,
    pub head_moved: bool,
}

impl RefPlan {
    /// Reads the refs `last` moved and says what becomes of each.
    pub fn read(ctx: &Ctx, out: &Out, last: &Undoable, cp: Option<&Checkpoint>) -> Result<Self> {
        let (moves, refused) = if last.refs.is_empty() {
            from_checkpoint(ctx, out, cp)?
        } else {
            (last.refs.clone(), Vec::new())
        };
        let steps = ref_steps(ctx, &moves);
        for s in &steps {
            out.say(&step_line(s));
        }
        let head = head_step(ctx, last, cp, &steps);
        if let Some(h) = &head {
            out.say(&head_line(h));
        }
        let head = head.filter(|h| h.action == "switch-back");
        Ok(RefPlan {
            steps,
            refused,
            head,
        })
    }

    /// The steps that move a ref.
    pub fn moves(&self) -> impl Iterator<Item = &RefStep> {
        self.steps.iter().filter(|s| s.action == "move-back")
    }

    /// Nothing to move: no ref and not HEAD.
    pub fn is_empty(&self) -> bool {
        self.moves().next().is_none() && self.head.is_none()
    }

    /// Refs the command moved that have moved again since (left alone).
    pub fn moved_since(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.action, "moved-since" | "checked-out"))
            .count()
    }

    /// HEAD first (a branch the undo deletes may be the one it names), then
    /// each ref, each only from the value the command left.
    pub fn apply(&self, ctx: &Ctx) -> Result<Moved> {
        let mut moved = Moved::default();
        if let Some(h) = &self.head {
            match switch_head(ctx, h)? {
                Ok(()) => moved.head_moved = true,
                Err(failure) => moved.failures.push(failure),
            }
        }
        for s in self.moves() {
            let o = ctx.git.output(move_back_args(ctx, s))?;
            if o.status.success() {
                moved.journal.push(RefMove {
                    name: s.name.clone(),
                    old: s.from.clone(),
                    new: s.to.clone(),
                });
            } else {
                moved.failures.push(format!(
                    "{}: {}",
                    s.name,
                    String::from_utf8_lossy(&o.stderr).trim()
                ));
            }
        }
        Ok(moved)
    }
}

/// With no ref journal for the command: the refs its checkpoint recorded,
/// only those an agent may move itself, each refused one named.
fn from_checkpoint(
    ctx: &Ctx,
    out: &Out,
    cp: Option<&Checkpoint>,
) -> Result<(Vec<RefMove>, Vec<LeftAlone>)> {
    let recorded = cp
        .map(|cp| refs_from_checkpoint(ctx, cp))
        .unwrap_or_default();
    let (moves, refused) = agents_refs(ctx, recorded)?;
    if !moves.is_empty() || !refused.is_empty() {
        out.say("  (no ref journal for this command: its refs come from its checkpoint's record, and only those an agent may move itself)\n");
    }
    for (name, why) in &refused {
        out.say(&format!("  REF       {name} left alone: {why}\n"));
    }
    Ok((moves, refused))
}

/// git's arguments that put `s` back: the ref itself, never the one it
/// names (a branch a command made a symbolic ref goes back to being a
/// branch), checked against the value the command left (a symbolic ref by
/// the value it resolves to).
fn move_back_args(ctx: &Ctx, s: &RefStep) -> Vec<String> {
    let from = match s.from.strip_prefix("ref:") {
        Some(_) => current(ctx, &s.name).unwrap_or_default(),
        None => s.from.clone(),
    };
    let words: Vec<&str> = match s.to.strip_prefix("ref:") {
        Some(target) => vec!["symbolic-ref", "-m", "ward: undo", &s.name, target],
        None => {
            let mut args = vec!["update-ref", "--no-deref", "-m", "ward: undo"];
            if s.to == ZERO {
                args.extend(["-d", &s.name, &from]);
            } else if s.from == ZERO {
                args.extend([s.name.as_str(), &s.to, ""]);
            } else {
                args.extend([s.name.as_str(), &s.to, &from]);
            }
            args
        }
    };
    words.into_iter().map(String::from).collect()
}

/// The plan's line for one ref.
fn step_line(s: &RefStep) -> String {
    match s.action {
        "move-back" if s.to == ZERO => {
            format!("  REF       {} delete (created by the command)\n", s.name)
        }
        "move-back" if s.from == ZERO => {
            format!("  REF       {} recreate at {}\n", s.name, short(&s.to))
        }
        "move-back" => format!(
            "  REF       {} {} -> {}\n",
            s.name,
            short(&s.from),
            short(&s.to)
        ),
        "moved-since" => format!(
            "  REF       {} moved since (now {}, the command left {}): left alone\n",
            s.name,
            s.now.as_deref().map(short).unwrap_or("deleted"),
            short(&s.from)
        ),
        "checked-out" => format!(
            "  REF       {} is checked out in {}: left alone (`git worktree remove` it first to undo this too)\n",
            s.name,
            s.worktree.as_deref().unwrap_or("another worktree")
        ),
        _ => format!("  REF       {} already at {}\n", s.name, short(&s.to)),
    }
}

/// The plan's line for HEAD.
fn head_line(h: &HeadStep) -> String {
    match h.action {
        "switch-back" if h.by_git => format!(
            "  HEAD      back on {} (the command left it on {}): git switches back, its files with it, carrying uncommitted changes as a checkout does\n",
            h.to, h.from
        ),
        "switch-back" => format!(
            "  HEAD      back on {} (the command left it on {})\n",
            h.to, h.from
        ),
        "gone" => format!(
            "  HEAD      stays on {}: {} no longer exists\n",
            h.from, h.to
        ),
        _ => format!(
            "  HEAD      on {} since (the command left it on {}): left alone\n",
            h.now, h.from
        ),
    }
}
