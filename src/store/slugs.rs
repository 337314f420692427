//! Card slugs in the directory (regions.md 1): unique across every shard, and the way a
//! card page finds its card's shard. A row is also where the card's id comes from.
//!
//! A crash between the directory and the shard must leave neither a card without its slug
//! nor a slug that blocks a name for ever. So a row is 'pending' whenever the shard may
//! disagree with it: createCard reserves it pending; deleteCard makes it pending before
//! the card goes and releases it after. The sweeper ([`stale`]) settles rows left pending
//! longer than a request can run by looking at their shards, in bulk: card there, live;
//! not there, released. createCard leaves its row to the sweeper rather than settling it
//! itself: one D1 call less per create (bench/README.md), and nothing reads the state but
//! the sweeper (a card page finds a pending slug's card as well as a live one's).
//!
//! A deleted card's slug is retired, not freed (regions.md 1): for [`RETIRED_MS`] no other
//! account takes it, and the account that deleted it gets it back. A name that was only
//! reserved (a create that failed) was never published, and is simply released.

use worker::Result;

use super::row::impl_row;
use super::{batch, run, select, select_first, Stmt};
use crate::db::Directory;

/// How long a deleted card's slug stays retired: 365 days.
pub const RETIRED_MS: i64 = 365 * 24 * 3_600_000;

/// A reserved slug and the id of the card it is for.
#[derive(Debug, Clone)]
pub struct Reserved {
    pub card_id: i64,
    pub slug: String,
}
impl_row!(Reserved { card_id, slug });

/// The first free slug of `base`, `base-2`, ... reserved for a new card of the account, in
/// one statement (so concurrent creates in any shard never share one): not in use, and
/// not retired by another account in the last [`RETIRED_MS`]; then the account's own
/// retirement of it, if it had one, is over.
pub fn reserve_sql(base: &str, account_id: i64, shard: &str, now: i64) -> [Stmt; 2] {
    let candidate = "CASE WHEN n.i = 1 THEN ?1 ELSE ?1 || '-' || n.i END";
    [
        Stmt::new(
            format!(
                "INSERT INTO slugs (slug, account_id, shard, state, reserved_at) \
                 SELECT (WITH RECURSIVE n(i) AS \
                         (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 1000000) \
                     SELECT {candidate} FROM n \
                     WHERE NOT EXISTS (SELECT 1 FROM slugs s WHERE s.slug = {candidate}) \
                       AND NOT EXISTS (SELECT 1 FROM retired_slugs r \
                           WHERE r.slug = {candidate} AND r.account_id != ?2 \
                             AND r.retired_at > ?5) \
                     LIMIT 1), ?2, ?3, 'pending', ?4 \
                 RETURNING card_id, slug"
            ),
            vec![
                base.into(),
                account_id.into(),
                shard.into(),
                now.into(),
                (now - RETIRED_MS).into(),
            ],
        ),
        Stmt::new(
            "DELETE FROM retired_slugs \
             WHERE slug = (SELECT slug FROM slugs WHERE card_id = last_insert_rowid()) \
               AND changes() > 0",
            vec![],
        ),
    ]
}

pub async fn reserve(
    db: &Directory,
    base: &str,
    account_id: i64,
    shard: &str,
    now: i64,
) -> Result<Option<Reserved>> {
    let results = batch(db, reserve_sql(base, account_id, shard, now).into()).await?;
    Ok(super::rows_of(&results, 0)?.into_iter().next())
}

/// Of `card_ids` (a JSON array), the rows still pending since before `before`: found in
/// their shard, they go live (a delete that did not happen); not found, they are retired
/// when a delete made them pending (the card was published), else released (a create
/// that never made its card). The `reserved_at` condition leaves alone a row a delete made
/// pending again meanwhile (its own retirement follows).
pub fn settle_stale_sql(live: &str, gone: &str, before: i64, now: i64) -> [Stmt; 3] {
    let pending = "state = 'pending' AND reserved_at < ?2";
    [
        Stmt::new(
            format!(
                "UPDATE slugs SET state = 'live', deleting_at = NULL \
                 WHERE card_id IN (SELECT value FROM json_each(?1)) AND {pending}"
            ),
            vec![live.into(), before.into()],
        ),
        Stmt::new(
            format!(
                "INSERT OR REPLACE INTO retired_slugs (slug, account_id, retired_at) \
                 SELECT slug, account_id, ?3 FROM slugs \
                 WHERE card_id IN (SELECT value FROM json_each(?1)) AND {pending} \
                   AND deleting_at IS NOT NULL"
            ),
            vec![gone.into(), before.into(), now.into()],
        ),
        Stmt::new(
            format!(
                "DELETE FROM slugs \
                 WHERE card_id IN (SELECT value FROM json_each(?1)) AND {pending}"
            ),
            vec![gone.into(), before.into()],
        ),
    ]
}

/// [`settle_stale_sql`] in one batch.
pub async fn settle_stale(
    db: &Directory,
    live: &[i64],
    gone: &[i64],
    before: i64,
    now: i64,
) -> Result<()> {
    let text = |ids: &[i64]| serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
    let stmts = settle_stale_sql(&text(live), &text(gone), before, now);
    batch(db, stmts.into()).await.map(|_| ())
}

pub fn unsettle_sql(card_id: i64, account_id: i64, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE slugs SET state = 'pending', reserved_at = ?3, deleting_at = ?3 \
         WHERE card_id = ?1 AND account_id = ?2",
        vec![card_id.into(), account_id.into(), now.into()],
    )
}

/// The card is about to go from its shard: until it is released, the sweeper decides.
pub async fn unsettle(db: &Directory, card_id: i64, account_id: i64, now: i64) -> Result<()> {
    run(db, unsettle_sql(card_id, account_id, now)).await
}

pub fn release_sql(card_id: i64, account_id: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM slugs WHERE card_id = ?1 AND account_id = ?2",
        vec![card_id.into(), account_id.into()],
    )
}

/// The card was never made in its shard: the name is free again.
pub async fn release(db: &Directory, card_id: i64, account_id: i64) -> Result<()> {
    run(db, release_sql(card_id, account_id)).await
}

/// A deleted card's slug: retired for other accounts (regions.md 1), and its row gone.
pub fn retire_sql(card_id: i64, account_id: i64, now: i64) -> [Stmt; 2] {
    [
        Stmt::new(
            "INSERT OR REPLACE INTO retired_slugs (slug, account_id, retired_at) \
             SELECT slug, account_id, ?3 FROM slugs WHERE card_id = ?1 AND account_id = ?2",
            vec![card_id.into(), account_id.into(), now.into()],
        ),
        release_sql(card_id, account_id),
    ]
}

/// The card is gone from its shard: its slug is retired.
pub async fn retire(db: &Directory, card_id: i64, account_id: i64, now: i64) -> Result<()> {
    batch(db, retire_sql(card_id, account_id, now).into())
        .await
        .map(|_| ())
}

/// Every slug of an account that is deleted, retired (its cards go with it).
pub fn retire_account_sql(account_id: i64, now: i64) -> Stmt {
    Stmt::new(
        "INSERT OR REPLACE INTO retired_slugs (slug, account_id, retired_at) \
         SELECT slug, account_id, ?2 FROM slugs WHERE account_id = ?1",
        vec![account_id.into(), now.into()],
    )
}

/// Retirements older than [`RETIRED_MS`] end: the name is free for anyone (the daily
/// upkeep, a bounded number a run).
pub fn expire_retired_sql(now: i64, limit: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM retired_slugs WHERE slug IN \
         (SELECT slug FROM retired_slugs WHERE retired_at <= ?1 LIMIT +?2)",
        vec![(now - RETIRED_MS).into(), limit.into()],
    )
}

/// Where a card page's card is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub card_id: i64,
    pub account_id: i64,
    pub shard: String,
    pub data_region: String,
}
impl_row!(Found {
    card_id,
    account_id,
    shard,
    data_region
});

pub fn find_sql(slug: &str) -> Stmt {
    Stmt::new(
        "SELECT s.card_id, s.account_id, s.shard, a.data_region \
         FROM slugs s JOIN accounts a ON a.id = s.account_id WHERE s.slug = ?1",
        vec![slug.into()],
    )
}

pub async fn find(db: &Directory, slug: &str) -> Result<Option<Found>> {
    select_first(db, find_sql(slug)).await
}

/// A row left pending: its card id, account and shard.
#[derive(Debug, Clone)]
pub struct Pending {
    pub card_id: i64,
    pub account_id: i64,
    pub shard: String,
}
impl_row!(Pending {
    card_id,
    account_id,
    shard
});

pub fn stale_sql(before: i64, limit: i64) -> Stmt {
    Stmt::new(
        "SELECT card_id, account_id, shard FROM slugs \
         WHERE state = 'pending' AND reserved_at < ?1 ORDER BY reserved_at LIMIT +?2",
        vec![before.into(), limit.into()],
    )
}

/// Rows pending since before `before`, oldest first.
pub async fn stale(db: &Directory, before: i64, limit: i64) -> Result<Vec<Pending>> {
    select(db, stale_sql(before, limit)).await
}
