//! API tokens, stored as SHA-256 hashes only.

use serde::{Deserialize, Serialize};
use worker::{D1Database, Result};

use super::{all, first, int, stmt, text};

#[derive(Debug, Deserialize)]
pub struct TokenRow {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

/// What authentication needs, in one indexed lookup: the token and its account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuthRow {
    pub token_id: i64,
    pub account_id: i64,
    pub scopes: String,
    pub last_used_at: Option<i64>,
    pub plan: String,
    pub card_limit: Option<i64>,
    pub api_access: Option<i64>,
    pub advanced_analytics: Option<i64>,
    pub white_label: Option<i64>,
    pub lead_form: Option<i64>,
}

pub async fn create(
    db: &D1Database,
    account_id: i64,
    name: &str,
    hash: &str,
    scopes: &str,
    now: i64,
) -> Result<Option<TokenRow>> {
    first(
        db,
        "INSERT INTO tokens (account_id, name, token_hash, scopes, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5) \
         RETURNING id, name, scopes, created_at, last_used_at",
        &[
            int(account_id),
            text(name),
            text(hash),
            text(scopes),
            int(now),
        ],
    )
    .await
}

pub async fn list(db: &D1Database, account_id: i64) -> Result<Vec<TokenRow>> {
    all(
        db,
        "SELECT id, name, scopes, created_at, last_used_at FROM tokens \
         WHERE account_id = ?1 AND revoked_at IS NULL ORDER BY id",
        &[int(account_id)],
    )
    .await
}

/// Marks a token revoked; its hash, or `None` when no such token exists. Revoking twice is
/// harmless.
pub async fn revoke(db: &D1Database, id: i64, now: i64) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Hash {
        token_hash: String,
    }
    let row: Option<Hash> = first(
        db,
        "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1 RETURNING token_hash",
        &[int(id), int(now)],
    )
    .await?;
    Ok(row.map(|r| r.token_hash))
}

/// Hashes of an account's live tokens, whose cached auth records an account change voids.
pub async fn hashes(db: &D1Database, account_id: i64) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Hash {
        token_hash: String,
    }
    let rows: Vec<Hash> = all(
        db,
        "SELECT token_hash FROM tokens WHERE account_id = ?1 AND revoked_at IS NULL",
        &[int(account_id)],
    )
    .await?;
    Ok(rows.into_iter().map(|r| r.token_hash).collect())
}

pub async fn lookup(db: &D1Database, hash: &str) -> Result<Option<AuthRow>> {
    first(
        db,
        "SELECT t.id AS token_id, t.account_id, t.scopes, t.last_used_at, a.plan, \
                a.card_limit, a.api_access, a.advanced_analytics, a.white_label, a.lead_form \
         FROM tokens t JOIN accounts a ON a.id = t.account_id \
         WHERE t.token_hash = ?1 AND t.revoked_at IS NULL",
        &[text(hash)],
    )
    .await
}

/// Records use; the guard keeps concurrent requests from writing more than once.
pub async fn touch(db: &D1Database, id: i64, now: i64, min_gap_ms: i64) -> Result<()> {
    stmt(
        db,
        "UPDATE tokens SET last_used_at = ?2 \
         WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?3)",
        &[int(id), int(now), int(now - min_gap_ms)],
    )?
    .run()
    .await?;
    Ok(())
}
