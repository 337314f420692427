//! Tokens: create, list, look up, touch, the hashes of an account, revoke.

use serde_json::json;

use super::*;
use crate::domain::token::{Scope, Scopes};
use crate::store::tokens;
use crate::store::tokens::{AuthRow, TokenRow};

/// Creates a token of the account; its id.
pub(super) fn created(db: &mut Db, acc: i64, now: i64) -> i64 {
    db.in_dir(|db| created_in_dir(db, acc, now))
}

fn created_in_dir(db: &mut Db, acc: i64, now: i64) -> i64 {
    let scopes = Scopes::new(vec![Scope::CardsWrite, Scope::LeadsRead]);
    let rows = db.exec(
        "tokens::create_sql",
        &tokens::create_sql(acc, "crm", "hash-1", &scopes, now),
    );
    let token = one::<TokenRow>("tokens::create_sql", rows).decode();
    assert_eq!(token.scopes, scopes);
    let rows = db.exec("tokens::list_sql", &tokens::list_sql(acc));
    assert_eq!(decode::<TokenRow>("tokens::list_sql", rows).len(), 1);
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    let auth: AuthRow = one("tokens::lookup_sql", rows);
    assert_eq!(auth.principal().account_id, acc);
    assert!(auth.principal().features.api_access);
    db.exec(
        "tokens::touch_sql",
        &tokens::touch_sql(token.id, now, 60_000),
    );
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    assert_eq!(
        one::<AuthRow>("tokens::lookup_sql", rows).last_used_at,
        Some(now)
    );
    let rows = db.exec("tokens::hashes_sql", &tokens::hashes_sql(acc));
    assert_eq!(rows, vec![json!({"token_hash": "hash-1"})]);
    token.id
}

/// Revokes the token: it is found no more.
pub(super) fn revoked(db: &mut Db, token_id: i64, now: i64) {
    db.in_dir(|db| {
        let rows = db.exec("tokens::revoked_sql", &tokens::revoked_sql(token_id));
        assert_eq!(rows, vec![json!({"revoked": 0})]);
        // Only the account's own token, when an account is named (the account area).
        let other = tokens::revoke_sql(token_id, Some(-1), now);
        assert!(db.exec("tokens::revoke_sql", &other).is_empty());
        let rows = db.exec("tokens::revoked_sql", &tokens::revoked_sql(token_id));
        assert_eq!(
            rows,
            vec![json!({"revoked": 0})],
            "another account's revoke"
        );
        let rows = db.exec(
            "tokens::revoke_sql",
            &tokens::revoke_sql(token_id, None, now),
        );
        let r: tokens::Revoked = one("tokens::revoke_sql", rows);
        assert_eq!(
            (r.token_hash.as_str(), r.shard.as_str()),
            ("hash-1", "SHARD_A")
        );
        let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
        assert!(rows.is_empty(), "a revoked token is not found");
        let rows = db.exec("tokens::revoked_sql", &tokens::revoked_sql(token_id));
        assert_eq!(rows, vec![json!({"revoked": 1})]);
    });
}
