//! Slugs in the directory: reserved (first free of base, base-2, ...), found, settled,
//! made pending again, found stale and released.

use serde_json::json;

use super::*;
use crate::store::slugs::{self, Found, Pending, Reserved};

/// Reserves the slug of the scenario's card (after another account's `ada-lovelace`).
pub(super) fn reserved(db: &mut Db, acc: i64, now: i64) -> Reserved {
    db.in_dir(|db| {
        let stmt = slugs::reserve_sql("ada-lovelace", acc, "SHARD_A", now);
        let first: Reserved = one("slugs::reserve_sql", db.exec("slugs::reserve_sql", &stmt));
        assert_eq!(first.slug, "ada-lovelace");
        let second: Reserved = one("slugs::reserve_sql", db.exec("slugs::reserve_sql", &stmt));
        assert_eq!(second.slug, "ada-lovelace-2", "a taken name gets -2");
        assert!(second.card_id > first.card_id);
        db.exec(
            "slugs::release_sql",
            &slugs::release_sql(first.card_id, acc),
        );
        second
    })
}

/// The card exists: its slug is found, settled, made pending, found stale and released.
pub(super) fn settled_and_released(db: &mut Db, acc: i64, r: &Reserved, now: i64) {
    db.in_dir(|db| {
        let rows = db.exec("slugs::find_sql", &slugs::find_sql(&r.slug));
        let found: Found = one("slugs::find_sql", rows);
        assert_eq!(
            (
                found.card_id,
                found.shard.as_str(),
                found.data_region.as_str()
            ),
            (r.card_id, "SHARD_A", "wnam")
        );
        let stale = |db: &mut Db, before: i64| {
            decode::<Pending>(
                "slugs::stale_sql",
                db.exec("slugs::stale_sql", &slugs::stale_sql(before, 10)),
            )
        };
        assert_eq!(stale(db, now + 1).len(), 1, "pending until settled");
        // Settled in bulk: the other id is no row's; a row pending since after `before`
        // (made pending again by a delete meanwhile) is left alone.
        let [live, gone] = slugs::settle_stale_sql(&format!("[{}]", r.card_id), "[999999]", now);
        db.batch("slugs::settle_stale_sql", &[live, gone]);
        assert_eq!(
            stale(db, now + 1).len(),
            1,
            "reserved at `now`: not before it"
        );
        let [live, gone] =
            slugs::settle_stale_sql(&format!("[{}]", r.card_id), "[999999]", now + 1);
        db.batch("slugs::settle_stale_sql", &[live, gone]);
        assert!(stale(db, now + 1).is_empty());
        assert_eq!(
            db.exec("slugs::find_sql", &slugs::find_sql(&r.slug)).len(),
            1,
            "live"
        );
        db.exec(
            "slugs::unsettle_sql",
            &slugs::unsettle_sql(r.card_id, acc, now + 5),
        );
        assert!(stale(db, now + 5).is_empty(), "pending since now + 5");
        assert_eq!(stale(db, now + 6)[0].card_id, r.card_id);
        // Pending and not in its shard: released by the sweeper's batch.
        let [live, gone] = slugs::settle_stale_sql("[]", &format!("[{}]", r.card_id), now + 6);
        db.batch("slugs::settle_stale_sql", &[live, gone]);
        assert!(stale(db, now + 6).is_empty());
        db.exec("slugs::release_sql", &slugs::release_sql(r.card_id, acc));
        let rows = db.exec("slugs::find_sql", &slugs::find_sql(&r.slug));
        assert_eq!(rows, Vec::<Value>::new());
        let _ = json!({});
    });
}
