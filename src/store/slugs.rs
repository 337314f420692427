//! Card slugs in the directory (regions.md 1 and 6): the routing rows that lead a card
//! page to its card's shard.
//!
//! A slug is reserved by its name's object (`durable::names`), near its writer, and
//! retired there when its card goes; its routing row is written here after createCard has
//! answered, under a keyed hash of the slug ([`route_sql`]), so the directory holds no
//! slug in clear, an EU account's included. A card page that finds no row asks the object
//! (`ops::cards::find_named`), which writes the row then.

use worker::Result;

use super::row::impl_row;
use super::{run, select_first, Stmt};
use crate::db::Directory;

/// What the directory holds of a slug: a keyed hash (regions.md 6).
pub fn route_key(pepper: &str, slug: &str) -> String {
    crate::domain::slug::keyed(pepper, "slug", slug)
}

/// The routing row of a made card, under its slug's key. A row of the key left by a card
/// whose delete did not finish gives way (the name's object gave the slug again).
pub fn route_sql(key: &str, card_id: i64, account_id: i64, shard: &str, now: i64) -> Stmt {
    Stmt::new(
        "INSERT INTO slugs (card_id, slug, account_id, shard, state, reserved_at) \
         VALUES (?1, ?2, ?3, ?4, 'live', ?5) \
         ON CONFLICT (slug) DO UPDATE SET card_id = excluded.card_id, \
           account_id = excluded.account_id, shard = excluded.shard",
        vec![
            card_id.into(),
            key.into(),
            account_id.into(),
            shard.into(),
            now.into(),
        ],
    )
}

pub async fn route(
    db: &Directory,
    key: &str,
    card_id: i64,
    account_id: i64,
    shard: &str,
    now: i64,
) -> Result<()> {
    run(db, route_sql(key, card_id, account_id, shard, now)).await
}

pub fn release_sql(card_id: i64, account_id: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM slugs WHERE card_id = ?1 AND account_id = ?2",
        vec![card_id.into(), account_id.into()],
    )
}

/// The card is gone: its routing row goes (its name's object keeps the slug retired).
pub async fn release(db: &Directory, card_id: i64, account_id: i64) -> Result<()> {
    run(db, release_sql(card_id, account_id)).await
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

/// `key`: the slug's keyed hash ([`route_key`]). A row filed under the slug itself is
/// found too: the yardstick's seed files its cards so (bench/peer_checkout.py), as the
/// directory did before regions.md 6.
pub fn find_sql(slug: &str, key: &str) -> Stmt {
    Stmt::new(
        "SELECT s.card_id, s.account_id, s.shard, a.data_region \
         FROM slugs s JOIN accounts a ON a.id = s.account_id WHERE s.slug IN (?1, ?2)",
        vec![slug.into(), key.into()],
    )
}

pub async fn find(db: &Directory, slug: &str, key: &str) -> Result<Option<Found>> {
    select_first(db, find_sql(slug, key)).await
}
