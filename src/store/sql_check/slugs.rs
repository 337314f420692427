//! Slugs in the directory: routing rows under a slug's keyed hash (regions.md 6), found by
//! it, given way to the slug's next card, released.

use super::*;
use crate::domain::card::Card;
use crate::store::slugs::{self, Found};

fn found(db: &mut Db, slug: &str, key: &str) -> Vec<Found> {
    decode(
        "slugs::find_sql",
        db.exec("slugs::find_sql", &slugs::find_sql(slug, key)),
    )
}

/// The card's routing row, found by its key and not by its slug; a row of the key gives
/// way to the next card of the slug; a card that goes takes its row along.
pub(super) fn routed_and_settled(db: &mut Db, acc: i64, card: &Card, now: i64) {
    db.in_dir(|db| {
        let key = slugs::route_key("pepper", &card.slug);
        assert!(!key.contains(&card.slug), "a keyed hash, not the slug");
        assert!(found(db, "not-filed", &key).is_empty());
        db.exec(
            "slugs::route_sql",
            &slugs::route_sql(&key, card.id, acc, "SHARD_A", now),
        );
        let f = found(db, "not-filed", &key);
        assert_eq!(
            f,
            vec![Found {
                card_id: card.id,
                account_id: acc,
                shard: "SHARD_A".into(),
                data_region: "wnam".into()
            }]
        );
        assert!(
            found(db, &card.slug, "k:other").is_empty(),
            "filed under its key, not its slug"
        );
        // The slug given again (a delete whose row stayed): the new card's row.
        db.exec(
            "slugs::route_sql",
            &slugs::route_sql(&key, card.id + 7, acc, "SHARD_B", now),
        );
        let f = found(db, "not-filed", &key);
        assert_eq!(
            (f.len(), f[0].card_id, f[0].shard.as_str()),
            (1, card.id + 7, "SHARD_B")
        );
        // A row filed under the slug itself (the yardstick's seed) is found by it.
        let filed = "INSERT INTO slugs (card_id, slug, account_id, shard, state, reserved_at) \
                     VALUES (5, 'seeded-card', ?1, 'SHARD_A', 'live', 0)";
        db.exec("check", &Stmt::new(filed, vec![acc.into()]));
        assert_eq!(found(db, "seeded-card", "k:none")[0].card_id, 5);
        // A card that goes loses its row.
        db.exec("slugs::release_sql", &slugs::release_sql(card.id + 7, acc));
        assert!(found(db, "not-filed", &key).is_empty());
    });
}
