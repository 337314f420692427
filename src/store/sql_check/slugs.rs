//! Slugs in the directory: reserved (first free of base, base-2, ...), found, settled,
//! made pending again by a delete, found stale, and retired (a deleted card's slug: not
//! another account's for 365 days, its own account's again) or released (never published).

use serde_json::json;

use super::*;
use crate::store::slugs::{self, Found, Pending, Reserved, RETIRED_MS};

fn reserve(db: &mut Db, base: &str, acc: i64, now: i64) -> Reserved {
    let results = db.batch(
        "slugs::reserve_sql",
        &slugs::reserve_sql(base, acc, "SHARD_A", now),
    );
    one("slugs::reserve_sql", results[0].clone())
}

/// Reserves the slug of the scenario's card (after another account's `ada-lovelace`).
pub(super) fn reserved(db: &mut Db, acc: i64, now: i64) -> Reserved {
    db.in_dir(|db| {
        let first = reserve(db, "ada-lovelace", acc, now);
        assert_eq!(first.slug, "ada-lovelace");
        let second = reserve(db, "ada-lovelace", acc, now);
        assert_eq!(second.slug, "ada-lovelace-2", "a taken name gets -2");
        assert!(second.card_id > first.card_id);
        db.exec(
            "slugs::release_sql",
            &slugs::release_sql(first.card_id, acc),
        );
        second
    })
}

/// The card exists: its slug is found, settled, made pending, found stale and retired; a
/// retired slug is another account's only after 365 days, its own account's at once.
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
        let settle = |db: &mut Db, live: &str, gone: &str, before: i64| {
            db.batch(
                "slugs::settle_stale_sql",
                &slugs::settle_stale_sql(live, gone, before, before),
            );
        };
        assert_eq!(stale(db, now + 1).len(), 1, "pending until settled");
        // Settled in bulk: the other id is no row's; a row pending since after `before`
        // (made pending again by a delete meanwhile) is left alone.
        settle(db, &format!("[{}]", r.card_id), "[999999]", now);
        assert_eq!(
            stale(db, now + 1).len(),
            1,
            "reserved at `now`: not before it"
        );
        settle(db, &format!("[{}]", r.card_id), "[999999]", now + 1);
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
        // Pending for a delete and not in its shard: retired by the sweeper's batch.
        settle(db, "[]", &format!("[{}]", r.card_id), now + 6);
        assert!(stale(db, now + 6).is_empty());
        let rows = db.exec("slugs::find_sql", &slugs::find_sql(&r.slug));
        assert_eq!(rows, Vec::<Value>::new(), "its page is gone");
        // Two more accounts of the directory: another, and one that goes.
        let account = |db: &mut Db, id: i64| {
            let sql = "INSERT INTO accounts (id, name, plan, created_at, data_region, shard) \
                       VALUES (?1, 'Other', 'pro', 0, 'wnam', 'SHARD_A')";
            db.exec("check", &Stmt::new(sql, vec![id.into()]));
        };
        let other = acc + 1000;
        account(db, other);
        account(db, acc + 2000);
        let taken = reserve(db, "ada-lovelace-2", other, now + 7);
        assert_eq!(
            taken.slug, "ada-lovelace-2-2",
            "retired: not another account's"
        );
        let back = reserve(db, "ada-lovelace-2", acc, now + 7);
        assert_eq!(back.slug, "ada-lovelace-2", "its own account's again");
        // Deleted again (directly this time): retired; a year later anyone's.
        let [retire, release] = slugs::retire_sql(back.card_id, acc, now + 8);
        db.batch("slugs::retire_sql", &[retire, release]);
        let later = now + 8 + RETIRED_MS;
        let still = reserve(db, "ada-lovelace-2", other, later - 1);
        assert_eq!(still.slug, "ada-lovelace-2-3", "365 days: not yet");
        db.exec(
            "slugs::expire_retired_sql",
            &slugs::expire_retired_sql(later + 1, 100),
        );
        let free = reserve(db, "ada-lovelace-2", other, later + 1);
        assert_eq!(free.slug, "ada-lovelace-2", "after 365 days, anyone's");
        // A create that failed is released, not retired: nobody saw that slug.
        let failed = reserve(db, "never-seen", acc, now);
        db.exec(
            "slugs::release_sql",
            &slugs::release_sql(failed.card_id, acc),
        );
        assert_eq!(reserve(db, "never-seen", other, now).slug, "never-seen");
        // An account that goes retires every slug it had.
        let gone = reserve(db, "gone-with-it", acc + 2000, now);
        db.exec(
            "slugs::retire_account_sql",
            &slugs::retire_account_sql(acc + 2000, now),
        );
        db.exec(
            "slugs::release_sql",
            &slugs::release_sql(gone.card_id, acc + 2000),
        );
        assert_eq!(
            reserve(db, "gone-with-it", other, now).slug,
            "gone-with-it-2"
        );
        let _ = json!({});
    });
}
