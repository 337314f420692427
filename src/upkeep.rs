//! Scheduled upkeep: keeps the feed, the idempotency keys and the webhook attempts within
//! their retention, so storage stays bounded (extensions.md 1, 3 and 4). Runs daily.

use worker::{Env, Result};

use crate::config;
use crate::db::{Directory, Shard};
use crate::domain::idempotency::KEEP_MS;
use crate::domain::moving::Plan;
use crate::domain::time::DAY_MS;
use crate::domain::webhook::DELIVERY_RETENTION_MS;
use crate::durable::mover::client as mover;
use crate::durable::syncer::client as syncer;
use crate::store::erasure::{self, LeadSet};
use crate::store::{events, idempotency, leads, moves, outbox, templates, webhooks};

/// The every-minute trigger, which only sweeps webhook attempts; any other runs upkeep too.
pub const SWEEP_CRON: &str = "* * * * *";

/// Every shard in turn (each bounded by its own steps).
pub async fn run(env: &Env) -> Result<()> {
    for shard in config::shards(env)? {
        run_shard(env, &Shard::primary(env, &shard)?).await?;
    }
    Ok(())
}

async fn run_shard(env: &Env, db: &Shard) -> Result<()> {
    let now = js_sys::Date::now() as i64;
    // `EVENT_RETENTION_DAYS`: at least 30 by the contract; lower values exist for tests
    // of the 410.
    let days = config::get(env).event_retention_days;
    let removed = events::prune(db, now - days * DAY_MS).await?;
    idempotency::prune(db, now - KEEP_MS).await?;
    let attempts = webhooks::prune(db, now - DELIVERY_RETENTION_MS).await?;
    worker::console_log!(
        "upkeep of {}: {removed} events and {attempts} webhook attempts past retention removed",
        db.binding()
    );
    Ok(())
}

/// Leads one erasure batch takes, and the batches one run makes: bounded, so a large
/// backlog is worked off run by run (every minute) without exceeding an invocation's
/// limits.
const RETENTION_BATCH: i64 = 200;
const RETENTION_BATCHES_PER_RUN: usize = 10;

/// Erases leads older than their account's `lead_retention_days` (extensions.md 8), each
/// with its `lead.deleted` event; the number erased. A retention day is `RETENTION_DAY_MS`
/// long, a test-only var (unset: a day), so a test can see a lead expire in seconds.
pub async fn erase_expired(env: &Env, now: i64) -> Result<usize> {
    let mut erased = 0;
    for shard in config::shards(env)? {
        erased += erase_expired_in(env, &Shard::primary(env, &shard)?, now).await?;
    }
    Ok(erased)
}

async fn erase_expired_in(env: &Env, db: &Shard, now: i64) -> Result<usize> {
    let day_ms = config::get(env).retention_day_ms;
    let mut erased = 0;
    let mut batches = 0;
    let due = erasure::expired(db, now, day_ms, RETENTION_BATCHES_PER_RUN as i64).await?;
    for account in due {
        let set = LeadSet::Expired {
            cutoff: account.cutoff(now, day_ms),
            limit: RETENTION_BATCH,
        };
        while batches < RETENTION_BATCHES_PER_RUN {
            batches += 1;
            let (n, attempts) = erasure::erase(db, account.id, set, now, None).await?;
            outbox::send(env, outbox::QUEUE, &attempts, 0).await?;
            erased += n;
            if (n as i64) < RETENTION_BATCH {
                break;
            }
        }
    }
    Ok(erased)
}

/// Batches of missing email keys one run computes: the backlog migrations/0006 leaves
/// (leads with a non-ASCII address) is worked off run by run, every minute.
const KEY_BATCHES_PER_RUN: usize = 5;

/// Keys leads that have no `email_key` yet (store::leads::fill_keys); the number keyed.
/// Matching by address does not wait for this (it keys the account's leads first); this
/// only keeps that step a no-op.
pub async fn fill_email_keys(env: &Env) -> Result<usize> {
    let mut keyed = 0;
    for shard in config::shards(env)? {
        let db = Shard::primary(env, &shard)?;
        for _ in 0..KEY_BATCHES_PER_RUN {
            let n = leads::fill_keys(&db, None).await?;
            keyed += n;
            if n == 0 {
                break;
            }
        }
    }
    Ok(keyed)
}

/// Wakes the mover of every move that has not ended (a mover keeps the plan it has and
/// goes on from where it stands): a lost alarm cannot strand a move, nor its account's
/// writes. The number woken.
pub async fn wake_moves(env: &Env) -> Result<usize> {
    let dir = Directory::primary(env)?;
    let config = config::get(env);
    let running = moves::running(&dir, 50).await?;
    for m in &running {
        let plan = Plan::new(m.id, m.account_id, &m.from_shard, &m.to_shard, &m.to_region);
        mover::start(env, &plan.paced(config)).await?;
    }
    Ok(running.len())
}

/// Wakes the syncer of every company template with cards still to bring in line (a syncer
/// goes on from the cards still behind): a lost alarm cannot leave them behind. The
/// number woken.
pub async fn wake_templates(env: &Env) -> Result<usize> {
    let mut woken = 0;
    for shard in config::shards(env)? {
        let db = Shard::primary(env, &shard)?;
        for (account, id) in templates::behind(&db).await? {
            syncer::start(env, &shard, account, id).await?;
            woken += 1;
        }
    }
    Ok(woken)
}
