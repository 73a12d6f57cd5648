//! Undo's files: the working tree, index, merge state and stash entries
//! from the checkpoint taken before the command, in the worktree it is of
//! (one the command removed comes back first).

use crate::checkpoint::plan::{self, Entry, Failure, Plan};
use crate::checkpoint::rollback::{self, Prepared};
use crate::checkpoint::snapshot::Trees;
use crate::checkpoint::store::{short, Checkpoint};
use crate::checkpoint::worktree::{self, Gone};
use crate::checkpoint::{merge, snapshot, stash, Ctx};
use crate::commands::ask::Out;
use crate::error::Result;

/// What undo does to files. `here` in its methods is the worktree the
/// checkpoint is of ([`elsewhere`]), `ctx` the one undo runs in.
pub struct FilePlan {
    /// The worktree the command removed, to make again.
    gone: Option<Gone>,
    prepared: Option<Prepared>,
    /// The tree as it is now, for the safety checkpoint.
    pub present: Trees,
    merge_changes: bool,
    pub index_changes: bool,
    recorded_stashes: Vec<stash::Entry>,
    pub lost_stashes: Vec<(usize, stash::Entry)>,
    empty: Plan,
}

impl FilePlan {
    /// The plan from the working tree as it is to `cp`; `gone` is the
    /// worktree the command removed, if it did.
    pub fn read(
        ctx: &Ctx,
        here: &Ctx,
        cp: Option<&Checkpoint>,
        gone: Option<Gone>,
        verbose: bool,
    ) -> Result<Self> {
        let prepared = match (cp, &gone) {
            (Some(cp), Some(g)) => Some(g.prepare(ctx, cp)?),
            (Some(cp), None) => Some(rollback::prepare(here, cp, &[], verbose)?),
            _ => None,
        };
        let present = match &prepared {
            Some(p) => p.present.clone(),
            None => snapshot::trees(ctx)?,
        };
        let merge_changes = match (cp, &gone) {
            (Some(cp), Some(_)) => !cp.merge_heads.is_empty(),
            (Some(cp), None) => merge::changes(here, cp),
            _ => false,
        };
        let index_changes = merge_changes
            || gone.is_some()
            || cp.is_some_and(|cp| rollback::index_differs(cp, &present));
        let recorded_stashes = cp.map(|cp| cp.stashes.clone()).unwrap_or_default();
        let lost_stashes = stash::missing(&recorded_stashes, &stash::list(ctx));
        Ok(FilePlan {
            gone,
            prepared,
            present,
            merge_changes,
            index_changes,
            recorded_stashes,
            lost_stashes,
            empty: Plan::default(),
        })
    }

    pub fn plan(&self) -> &Plan {
        self.prepared.as_ref().map_or(&self.empty, |p| &p.plan)
    }

    /// Nothing to write: no path, index or stash entry.
    pub fn is_empty(&self) -> bool {
        self.plan().entries.is_empty() && !self.index_changes && self.lost_stashes.is_empty()
    }

    /// Says the plan: the worktree to make again, each path, the index,
    /// the merge state, the stash entries, and what cannot come back.
    pub fn say(&self, out: &Out, here: &Ctx, cp: Option<&Checkpoint>, verbose: bool) {
        if let Some(g) = &self.gone {
            out.say(&g.plan_line());
        }
        if let Some(p) = &self.prepared {
            out.say(&p.plan.render(verbose));
        }
        if self.index_changes {
            out.say("  INDEX     the staged state will be set to the checkpoint's\n");
        }
        if let Some(cp) = cp.filter(|_| self.merge_changes) {
            out.say(&merge::plan_line(here, cp));
        }
        for (n, (sha, msg)) in &self.lost_stashes {
            out.say(&format!(
                "  STASH     {} {msg} comes back as stash@{{{n}}}\n",
                short(sha)
            ));
        }
        out.say(&self.plan().warning());
    }

    /// Writes `selected` (the worktree made again first, where the command
    /// removed it), then the index and the stash entries. Returns the paths
    /// not restored, and the stash entries not put back.
    pub fn apply(
        &self,
        ctx: &Ctx,
        here: &Ctx,
        cp: Option<&Checkpoint>,
        selected: &[&Entry],
    ) -> Result<(Vec<Failure>, Vec<String>)> {
        let (made, made_ctx);
        let target = match &self.gone {
            Some(g) => {
                made = g.recreate(ctx)?;
                made_ctx = ctx.sibling(&made)?;
                &made_ctx
            }
            None => here,
        };
        let failures = plan::apply(target, selected, self.plan())?;
        if let (true, Some(cp)) = (self.index_changes, cp) {
            rollback::set_index(target, cp)?;
        }
        let stash_failures = if self.lost_stashes.is_empty() {
            Vec::new()
        } else {
            stash::restore(ctx, &self.recorded_stashes)
        };
        Ok((failures, stash_failures))
    }
}

/// Where `cp`'s files are restored: the command removed its worktree
/// (`Gone`, made again when undo applies), or it is another worktree that
/// still exists (its repository), or this one (neither).
pub fn elsewhere(
    ctx: &Ctx,
    cp: Option<&Checkpoint>,
) -> Result<(Option<Gone>, Option<crate::facts::Repo>)> {
    let gone = cp.map(|cp| worktree::gone(ctx, cp)).transpose()?.flatten();
    let there = match (cp, &gone) {
        (Some(cp), None) => worktree::open_elsewhere(ctx, cp),
        _ => None,
    };
    Ok((gone, there))
}
