//! A checkpoint taken: by the direct recipe of [`super::direct`] wherever
//! it records exactly what the index recipe of [`super::snapshot`] would,
//! by that one elsewhere.

use super::direct::{Stake, Taken};
use super::index_scan::Seed;
use super::snapshot::{self, Options};
use super::store::Checkpoint;
use super::Ctx;
use crate::error::Result;

/// Snapshots and stores a checkpoint. Returns it, as stored.
pub fn checkpoint(ctx: &Ctx, opts: Options) -> Result<Checkpoint> {
    match super::direct::checkpoint(ctx, &opts, None, None)? {
        Taken::Made(cp) => Ok(*cp),
        Taken::Nothing | Taken::Aside => by_index(ctx, opts),
    }
}

/// [`checkpoint`] from the stat pass of `seed`; with `stake`, stored only
/// if something is at stake (where the direct recipe steps aside,
/// `at_stake`, git's own look, says). `None` when nothing was.
pub fn checkpoint_if(
    ctx: &Ctx,
    opts: Options,
    seed: Seed,
    stake: Option<Stake>,
    at_stake: impl FnOnce() -> Result<bool>,
) -> Result<Option<Checkpoint>> {
    match super::direct::checkpoint(ctx, &opts, Some(seed), stake)? {
        Taken::Made(cp) => Ok(Some(*cp)),
        Taken::Nothing => Ok(None),
        Taken::Aside if stake.is_some() && !at_stake()? => Ok(None),
        Taken::Aside => by_index(ctx, opts).map(Some),
    }
}

/// The index recipe, stored.
fn by_index(ctx: &Ctx, opts: Options) -> Result<Checkpoint> {
    let cp = snapshot::store(ctx, &snapshot::trees(ctx)?, opts)?;
    super::bytes::record(ctx, &cp)?;
    Ok(cp)
}
