//! Tokens: create, list, look up, touch, the hashes of an account, revoke.

use serde_json::json;

use super::*;
use crate::domain::token::{Scope, Scopes};
use crate::store::tokens;
use crate::store::tokens::{AuthRow, TokenRow};

/// Creates a token of the account; its id.
pub(super) fn created(db: &mut Db, acc: i64, now: i64) -> i64 {
    // Tokens.
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
    let results = db.batch("tokens::revoke_sql", &tokens::revoke_sql(token_id, now));
    assert_eq!(results[0], vec![json!({"token_hash": "hash-1"})]);
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    assert!(rows.is_empty(), "a revoked token is not found");
}
