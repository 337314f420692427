//! Idempotency keys in D1 (extensions.md 3). The claim is one `INSERT ... ON CONFLICT`:
//! D1 runs one write at a time on the primary, so of any number of concurrent requests with
//! one key of one account exactly one gets the row back; the others find it taken.

use worker::Result;

use super::row::impl_row;
use super::{run, select_first, Stmt};
use crate::db::Shard;
use crate::domain::idempotency::{Kept, KeptResponse};

/// A request taking a key: what it is, when, and from when older claims give way.
pub struct Claim<'a> {
    pub account_id: i64,
    pub key: &'a str,
    pub method: &'a str,
    pub path: &'a str,
    pub digest: &'a str,
    /// The token making the request.
    pub token_id: i64,
    /// Whether the route answers with a secret (replayed to this token only).
    pub holds_secret: bool,
    pub now: i64,
    /// Kept responses older than this have expired.
    pub expired_before: i64,
    /// Unfinished claims older than this were abandoned (their isolate died).
    pub abandoned_before: i64,
}

/// Takes the key for this request, or a kept one that has expired or whose request was
/// abandoned. A row comes back only to the request that took it.
pub fn claim_sql(c: &Claim) -> Stmt {
    Stmt::new(
        "INSERT INTO idempotency_keys (account_id, key, method, path, digest, created_at, \
             token_id, holds_secret) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?9, ?10) \
         ON CONFLICT (account_id, key) DO UPDATE SET method = excluded.method, \
             path = excluded.path, digest = excluded.digest, created_at = excluded.created_at, \
             token_id = excluded.token_id, holds_secret = excluded.holds_secret, \
             status = NULL, headers = NULL, body = NULL \
         WHERE idempotency_keys.created_at < ?7 \
            OR (idempotency_keys.status IS NULL AND idempotency_keys.created_at < ?8) \
         RETURNING 1 AS claimed",
        vec![
            c.account_id.into(),
            c.key.into(),
            c.method.into(),
            c.path.into(),
            c.digest.into(),
            c.now.into(),
            c.expired_before.into(),
            c.abandoned_before.into(),
            c.token_id.into(),
            i64::from(c.holds_secret).into(),
        ],
    )
}

struct Claimed {
    #[allow(dead_code)]
    claimed: i64,
}
impl_row!(Claimed { claimed });

/// Whether this request now holds the key.
pub async fn claim(db: &Shard, c: &Claim<'_>) -> Result<bool> {
    Ok(select_first::<Claimed>(db, claim_sql(c)).await?.is_some())
}

#[derive(Debug)]
pub struct KeptRow {
    pub method: String,
    pub path: String,
    pub digest: String,
    pub token_id: Option<i64>,
    pub holds_secret: i64,
    pub status: Option<i64>,
    pub headers: Option<String>,
    pub body: Option<String>,
}
impl_row!(KeptRow {
    method,
    path,
    digest,
    token_id,
    holds_secret,
    status,
    headers,
    body
});

impl KeptRow {
    pub fn decode(self) -> Kept {
        let response = match (self.status, self.body) {
            (Some(status), Some(body)) => Some(KeptResponse {
                status: u16::try_from(status).unwrap_or(200),
                headers: self.headers.unwrap_or_else(|| "application/json".into()),
                body,
            }),
            _ => None,
        };
        Kept {
            method: self.method,
            path: self.path,
            digest: self.digest,
            token_id: self.token_id,
            holds_secret: self.holds_secret != 0,
            response,
        }
    }
}

pub fn find_sql(account_id: i64, key: &str) -> Stmt {
    Stmt::new(
        "SELECT method, path, digest, token_id, holds_secret, status, headers, body \
         FROM idempotency_keys \
         WHERE account_id = ?1 AND key = ?2",
        vec![account_id.into(), key.into()],
    )
}

pub async fn find(db: &Shard, account_id: i64, key: &str) -> Result<Option<Kept>> {
    let row: Option<KeptRow> = select_first(db, find_sql(account_id, key)).await?;
    Ok(row.map(KeptRow::decode))
}

/// Keeps the response of the request that holds the key (its body sealed by the caller).
pub fn complete_sql(account_id: i64, key: &str, response: &KeptResponse) -> Stmt {
    Stmt::new(
        "UPDATE idempotency_keys SET status = ?3, headers = ?4, body = ?5 \
         WHERE account_id = ?1 AND key = ?2",
        vec![
            account_id.into(),
            key.into(),
            i64::from(response.status).into(),
            response.headers.as_str().into(),
            response.body.as_str().into(),
        ],
    )
}

pub async fn complete(
    db: &Shard,
    account_id: i64,
    key: &str,
    response: &KeptResponse,
) -> Result<()> {
    run(db, complete_sql(account_id, key, response)).await
}

/// Frees the key (a response that is not kept), so the client may retry with it.
pub fn release_sql(account_id: i64, key: &str) -> Stmt {
    Stmt::new(
        "DELETE FROM idempotency_keys WHERE account_id = ?1 AND key = ?2 AND status IS NULL",
        vec![account_id.into(), key.into()],
    )
}

pub async fn release(db: &Shard, account_id: i64, key: &str) -> Result<()> {
    run(db, release_sql(account_id, key)).await
}

/// Removes up to `max_rows` keys older than `cutoff`.
pub fn prune_sql(cutoff: i64, max_rows: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM idempotency_keys WHERE (account_id, key) IN \
         (SELECT account_id, key FROM idempotency_keys WHERE created_at < ?1 LIMIT +?2)",
        vec![cutoff.into(), max_rows.into()],
    )
}

pub async fn prune(db: &Shard, cutoff: i64) -> Result<()> {
    run(db, prune_sql(cutoff, 5_000)).await
}
