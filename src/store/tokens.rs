//! API tokens in D1, stored as SHA-256 hashes only.

use serde::{Deserialize, Serialize};
use worker::Result;

use super::row::impl_row;
use super::{batch, row_count, rows_of, run, select, select_first, Stmt};
use crate::db::Db;
use crate::domain::plan::{Overrides, Plan};
use crate::domain::principal::Principal;
use crate::domain::token::{Scopes, Token};

#[derive(Debug)]
pub struct TokenRow {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}
impl_row!(TokenRow {
    id,
    name,
    scopes,
    created_at,
    last_used_at
});

impl TokenRow {
    pub fn decode(self) -> Token {
        Token {
            id: self.id,
            name: self.name,
            scopes: Scopes::parse_stored(&self.scopes),
            created_at: self.created_at,
            last_used_at: self.last_used_at,
        }
    }
}

/// What authentication needs, in one indexed lookup: the token and its account. The
/// token's Durable Object caches it and hands it back with every gate answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
impl_row!(AuthRow {
    token_id,
    account_id,
    scopes,
    last_used_at,
    plan,
    card_limit,
    api_access,
    advanced_analytics,
    white_label,
    lead_form
});

impl AuthRow {
    pub fn principal(&self) -> Principal {
        let flag = |v: Option<i64>| v.map(|x| x != 0);
        Principal::new(
            self.token_id,
            self.account_id,
            Scopes::parse_stored(&self.scopes),
            Plan::parse(&self.plan).unwrap_or(Plan::Free),
            Overrides {
                card_limit: self.card_limit,
                api_access: flag(self.api_access),
                advanced_analytics: flag(self.advanced_analytics),
                white_label: flag(self.white_label),
                lead_form: flag(self.lead_form),
            },
        )
    }
}

const TOKEN_COLUMNS: &str = "id, name, scopes, created_at, last_used_at";

pub fn create_sql(account_id: i64, name: &str, hash: &str, scopes: &Scopes, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "INSERT INTO tokens (account_id, name, token_hash, scopes, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) RETURNING {TOKEN_COLUMNS}"
        ),
        vec![
            account_id.into(),
            name.into(),
            hash.into(),
            scopes.to_stored().into(),
            now.into(),
        ],
    )
}

pub async fn create(
    db: &Db,
    account_id: i64,
    name: &str,
    hash: &str,
    scopes: &Scopes,
    now: i64,
) -> Result<Option<Token>> {
    let row: Option<TokenRow> =
        select_first(db, create_sql(account_id, name, hash, scopes, now)).await?;
    Ok(row.map(TokenRow::decode))
}

pub fn list_sql(account_id: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {TOKEN_COLUMNS} FROM tokens \
             WHERE account_id = ?1 AND revoked_at IS NULL ORDER BY id"
        ),
        vec![account_id.into()],
    )
}

pub async fn list(db: &Db, account_id: i64) -> Result<Vec<Token>> {
    let rows: Vec<TokenRow> = select(db, list_sql(account_id)).await?;
    Ok(rows.into_iter().map(TokenRow::decode).collect())
}

struct Hash {
    token_hash: String,
}
impl_row!(Hash { token_hash });

/// Revoking twice is harmless. The webhooks the token is answerable for are disabled in
/// the same transaction, so a leaked token's subscriptions stop with it.
pub fn revoke_sql(id: i64, now: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?2) WHERE id = ?1 \
             RETURNING token_hash",
            vec![id.into(), now.into()],
        ),
        Stmt::new(
            "UPDATE webhooks SET status = 'disabled', updated_at = ?2 \
             WHERE token_id = ?1 AND status = 'enabled' \
               AND account_id = (SELECT account_id FROM tokens WHERE id = ?1) \
             RETURNING id",
            vec![id.into(), now.into()],
        ),
    ]
}

/// What revoking came to: the token's hash and how many webhooks were disabled.
pub struct Revoked {
    pub hash: String,
    pub webhooks_disabled: usize,
}

/// Marks a token revoked; `None` when no such token exists.
pub async fn revoke(db: &Db, id: i64, now: i64) -> Result<Option<Revoked>> {
    let results = batch(db, revoke_sql(id, now)).await?;
    let Some(row) = rows_of::<Hash>(&results, 0)?.into_iter().next() else {
        return Ok(None);
    };
    Ok(Some(Revoked {
        hash: row.token_hash,
        webhooks_disabled: row_count(&results, 1)?,
    }))
}

pub fn hashes_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT token_hash FROM tokens WHERE account_id = ?1 AND revoked_at IS NULL",
        vec![account_id.into()],
    )
}

/// Hashes of an account's live tokens, whose cached auth records an account change voids.
pub async fn hashes(db: &Db, account_id: i64) -> Result<Vec<String>> {
    let rows: Vec<Hash> = select(db, hashes_sql(account_id)).await?;
    Ok(rows.into_iter().map(|r| r.token_hash).collect())
}

pub fn lookup_sql(hash: &str) -> Stmt {
    Stmt::new(
        "SELECT t.id AS token_id, t.account_id, t.scopes, t.last_used_at, a.plan, \
                a.card_limit, a.api_access, a.advanced_analytics, a.white_label, a.lead_form \
         FROM tokens t JOIN accounts a ON a.id = t.account_id \
         WHERE t.token_hash = ?1 AND t.revoked_at IS NULL",
        vec![hash.into()],
    )
}

pub async fn lookup(db: &Db, hash: &str) -> Result<Option<AuthRow>> {
    select_first(db, lookup_sql(hash)).await
}

/// Records use; the guard keeps concurrent requests from writing more than once.
pub fn touch_sql(id: i64, now: i64, min_gap_ms: i64) -> Stmt {
    Stmt::new(
        "UPDATE tokens SET last_used_at = ?2 \
         WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?3)",
        vec![id.into(), now.into(), (now - min_gap_ms).into()],
    )
}

pub async fn touch(db: &Db, id: i64, now: i64, min_gap_ms: i64) -> Result<()> {
    run(db, touch_sql(id, now, min_gap_ms)).await
}
