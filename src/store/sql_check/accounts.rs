//! Accounts: every column the operator can set; deleting one leaves no row behind.

use serde_json::json;

use super::*;
use crate::domain::account::AccountPatch;
use crate::domain::input::Mode;
use crate::store::accounts;
use crate::store::accounts::DirectoryRow;

/// Creates the account the other tables' statements run for; its id.
pub(super) fn created(db: &mut Db, now: i64) -> i64 {
    // Accounts: every column the operator can set.
    let patch = AccountPatch::parse(
        &obj(
            json!({"name": "Acme", "plan": "enterprise", "card_limit": 2,
                    "features": {"api_access": true, "advanced_analytics": false,
                                 "white_label": null, "lead_form": true}}),
        ),
        Mode::Create,
    )
    .expect("valid account");
    let (account, acc) = db.in_dir(|db| {
        let stmt = accounts::create_sql(&patch, "wnam", "SHARD_A", now);
        let account = one::<DirectoryRow>(
            "accounts::create_sql",
            db.exec("accounts::create_sql", &stmt),
        )
        .decode();
        let id = account.id;
        (account, id)
    });
    assert_eq!(account.view().shard, Some("SHARD_A"));
    // The shard's copy, then again as an update.
    db.exec("accounts::copy_sql", &accounts::copy_sql(&account));
    db.exec("accounts::copy_sql", &accounts::copy_sql(&account));
    let rows = db.exec("accounts::in_shard_sql", &accounts::in_shard_sql(acc));
    assert_eq!(rows, vec![json!({"id": acc})]);
    db.in_dir(|db| {
        let update = AccountPatch::parse(
            &obj(json!({"name": "Acme 2", "plan": "pro", "card_limit": null,
                    "features": {"api_access": null, "advanced_analytics": true,
                                 "white_label": false, "lead_form": null}})),
            Mode::Update,
        )
        .expect("valid patch");
        let stmt = accounts::update_sql(acc, &update).expect("a patch with changes");
        let rows = db.exec("accounts::update_sql", &stmt);
        let updated = one::<DirectoryRow>("accounts::update_sql", rows).decode();
        assert_eq!(updated.name, "Acme 2");
        assert_eq!(updated.overrides.card_limit, None);
        assert!(accounts::update_sql(acc, &AccountPatch::default()).is_none());
        // Back to enterprise so the token below has API access.
        let back = AccountPatch::parse(&obj(json!({"plan": "enterprise"})), Mode::Update)
            .expect("valid patch");
        db.exec(
            "accounts::update_sql",
            &accounts::update_sql(acc, &back).expect("changes"),
        );
        let rows = db.exec("accounts::get_sql", &accounts::get_sql(acc));
        assert_eq!(one::<DirectoryRow>("accounts::get_sql", rows).id, acc);
        let rows = db.exec("accounts::per_shard_sql", &accounts::per_shard_sql());
        assert_eq!(rows, vec![json!({"shard": "SHARD_A", "n": 1})]);
        let rows = db.exec("accounts::shard_of_sql", &accounts::shard_of_sql(acc));
        assert_eq!(rows, vec![json!({"shard": "SHARD_A"})]);
    });
    acc
}

/// Deleting an account leaves none of its rows in any table, with foreign keys enforced
/// as D1 enforces them.
pub(super) fn account_goes_with_everything(db: &mut Db, acc: i64) {
    db.conn
        .execute_batch("PRAGMA foreign_keys = ON")
        .expect("pragma");
    let tables = [
        ("accounts", "id"),
        ("cards", "account_id"),
        ("leads", "account_id"),
        ("events", "account_id"),
        ("idempotency_keys", "account_id"),
        ("webhooks", "account_id"),
        ("deliveries", "account_id"),
    ];
    let count = |db: &Db, table: &str, col: &str| -> i64 {
        db.conn
            .query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE {col} = ?1"),
                [acc],
                |r| r.get(0),
            )
            .expect("count")
    };
    let before: i64 = tables.iter().map(|(t, c)| count(db, t, c)).sum();
    assert!(before > 8, "the account has rows to delete: {before}");
    db.batch("accounts::delete_data_sql", &accounts::delete_data_sql(acc));
    let results = db.in_dir(|db| db.batch("accounts::delete_sql", &accounts::delete_sql(acc)));
    assert_eq!(results.last().map(Vec::len), Some(1), "the account existed");
    for (table, col) in tables {
        assert_eq!(
            count(db, table, col),
            0,
            "{table} keeps rows of a deleted account"
        );
    }
    let again = db.in_dir(|db| db.batch("accounts::delete_sql", &accounts::delete_sql(acc)));
    assert_eq!(
        again.last().map(Vec::len),
        Some(0),
        "a second delete finds nothing"
    );
}
