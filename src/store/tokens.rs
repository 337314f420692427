//! API tokens in D1, stored as SHA-256 hashes only.

use serde::{Deserialize, Serialize};
use worker::Result;

use super::row::impl_row;
use super::security::{log_sql, Log, Of, When};
use super::{batch, rows_of, run, select, select_first, Stmt};
use crate::db::Directory;
use crate::domain::plan::{Overrides, Plan};
use crate::domain::principal::{Place, Principal};
use crate::domain::region::Region;
use crate::domain::security::{By, Kind};
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
    pub shard: String,
    pub data_region: String,
    pub moving: Option<i64>,
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
    lead_form,
    shard,
    data_region,
    moving
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
        .placed(Place {
            shard: self.shard.clone(),
            region: Region::parse(&self.data_region),
            moving: self.moving.is_some(),
        })
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

/// Mints the token and logs it (as `by`), in one batch.
pub async fn create(
    db: &Directory,
    account_id: i64,
    name: &str,
    hash: &str,
    scopes: &Scopes,
    now: i64,
    by: &By,
) -> Result<Option<Token>> {
    let of = Of::Account(account_id, Some(name.to_string()));
    let stmts = vec![
        create_sql(account_id, name, hash, scopes, now),
        log_sql(
            Log::Directory,
            &of,
            Kind::TokenCreated,
            by,
            now,
            When::Changed,
        ),
    ];
    let results = batch(db, stmts).await?;
    let row: Option<TokenRow> = rows_of(&results, 0)?.into_iter().next();
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

pub async fn list(db: &Directory, account_id: i64) -> Result<Vec<Token>> {
    let rows: Vec<TokenRow> = select(db, list_sql(account_id)).await?;
    Ok(rows.into_iter().map(TokenRow::decode).collect())
}

struct Hash {
    token_hash: String,
}
impl_row!(Hash { token_hash });

/// Revoking twice is harmless. `account`: only a token of this account (the account area;
/// the operator names any token). The caller then disables the webhooks the token is
/// answerable for in the account's shard (`webhooks::disable_for_token`); an attempt of
/// one that raced the revocation is not sent (the consumer asks [`revoked`]).
pub fn revoke_sql(id: i64, account: Option<i64>, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?2) \
         WHERE id = ?1 AND (?3 IS NULL OR account_id = ?3) \
         RETURNING token_hash, account_id, \
             (SELECT shard FROM accounts a WHERE a.id = tokens.account_id) AS shard",
        vec![id.into(), now.into(), account.into()],
    )
}

/// A revoked token: its hash, account and the account's shard.
pub struct Revoked {
    pub token_hash: String,
    pub account_id: i64,
    pub shard: String,
}
impl_row!(Revoked {
    token_hash,
    account_id,
    shard
});

/// Marks a token revoked and logs it (the first time); `None` when no such token exists
/// (of `account`, when given).
pub async fn revoke(
    db: &Directory,
    id: i64,
    account: Option<i64>,
    now: i64,
    by: &By,
) -> Result<Option<Revoked>> {
    let of = Of::RevokedToken(id);
    let stmts = vec![
        revoke_sql(id, account, now),
        log_sql(
            Log::Directory,
            &of,
            Kind::TokenRevoked,
            by,
            now,
            When::Always,
        ),
    ];
    let results = batch(db, stmts).await?;
    Ok(rows_of(&results, 0)?.into_iter().next())
}

struct Flag {
    revoked: i64,
}
impl_row!(Flag { revoked });

pub fn revoked_sql(id: i64) -> Stmt {
    Stmt::new(
        "SELECT EXISTS (SELECT 1 FROM tokens WHERE id = ?1 AND revoked_at IS NOT NULL) \
             AS revoked",
        vec![id.into()],
    )
}

/// Whether the token has been revoked (a missing token is not: the account deletes it).
pub async fn revoked(db: &Directory, id: i64) -> Result<bool> {
    let row: Option<Flag> = select_first(db, revoked_sql(id)).await?;
    Ok(row.is_some_and(|f| f.revoked != 0))
}

/// Ids of the account's revoked tokens, as a JSON array (a move disables their webhooks in
/// the shard that takes writes again: a revocation during the move could not).
pub fn revoked_ids_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT json_group_array(id) AS ids FROM tokens \
         WHERE account_id = ?1 AND revoked_at IS NOT NULL",
        vec![account_id.into()],
    )
}

struct Ids {
    ids: String,
}
impl_row!(Ids { ids });

pub async fn revoked_ids(db: &Directory, account_id: i64) -> Result<String> {
    let row: Option<Ids> = select_first(db, revoked_ids_sql(account_id)).await?;
    Ok(row.map_or_else(|| "[]".into(), |r| r.ids))
}

pub fn hashes_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT token_hash FROM tokens WHERE account_id = ?1 AND revoked_at IS NULL",
        vec![account_id.into()],
    )
}

/// Hashes of an account's live tokens, whose cached auth records an account change voids.
pub async fn hashes(db: &Directory, account_id: i64) -> Result<Vec<String>> {
    let rows: Vec<Hash> = select(db, hashes_sql(account_id)).await?;
    Ok(rows.into_iter().map(|r| r.token_hash).collect())
}

pub fn lookup_sql(hash: &str) -> Stmt {
    Stmt::new(
        "SELECT t.id AS token_id, t.account_id, t.scopes, t.last_used_at, a.plan, \
                a.card_limit, a.api_access, a.advanced_analytics, a.white_label, a.lead_form, \
                a.shard, a.data_region, a.moving \
         FROM tokens t JOIN accounts a ON a.id = t.account_id \
         WHERE t.token_hash = ?1 AND t.revoked_at IS NULL",
        vec![hash.into()],
    )
}

pub async fn lookup(db: &Directory, hash: &str) -> Result<Option<AuthRow>> {
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

pub async fn touch(db: &Directory, id: i64, now: i64, min_gap_ms: i64) -> Result<()> {
    run(db, touch_sql(id, now, min_gap_ms)).await
}
