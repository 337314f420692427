//! The security log (account-area.md 2) in D1: the directory's for changes of the directory
//! (sign-ins, tokens, members), each shard's for changes of its data (webhooks, erasures).
//! An entry is one statement placed in the batch of the change it records.

use worker::Result;

use super::row::impl_row;
use super::{select, SqlValue, Stmt};
use crate::db::Db;
use crate::domain::security::{By, Entry, Kind, KEPT};

/// Which database's log an entry goes to: their ids differ (the shard's are random, so a
/// move copies them into a shard that holds other accounts' rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Log {
    Directory,
    Shard,
}

/// What an entry is about, and so which account it is of and what its detail says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Of {
    /// The account, with what the change was about (a token's name, an address invited, a
    /// count): never a secret and never a lead's data.
    Account(i64, Option<String>),
    /// A token, named: written only by the statement that revoked it (`revoked_at` is
    /// `now`), so revoking twice logs once. The operator's revocation names only the token.
    RevokedToken(i64),
    /// Leads of the account erased by the statement before: the entry says how many.
    Erased(i64),
    /// The account's webhook, by its URL: this one, or the one the statement before
    /// inserted.
    Webhook(i64, Option<i64>),
}

/// Whether the entry is written only if the statement before it in the batch changed a
/// row (`changes()`): a change that did not happen is not logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    Changed,
}

/// One entry, a statement for the batch of the change it records.
pub fn log_sql(log: Log, of: &Of, kind: Kind, by: &By, now: i64, when: When) -> Stmt {
    let id = match log {
        Log::Directory => "NULL",
        Log::Shard => "lower(hex(randomblob(16)))",
    };
    let (account, detail, from, key, extra): (&str, &str, &str, i64, SqlValue) = match of {
        Of::Account(account, detail) => ("?1", "?7", "", *account, detail.clone().into()),
        Of::RevokedToken(token) => (
            "t.account_id",
            "t.name",
            " FROM tokens t WHERE t.id = ?1 AND t.revoked_at = ?2 AND ?7 IS NULL",
            *token,
            SqlValue::Null,
        ),
        Of::Erased(account) => (
            "?1",
            "CAST(changes() AS TEXT)",
            " WHERE ?7 IS NULL",
            *account,
            SqlValue::Null,
        ),
        Of::Webhook(account, hook) => (
            "?1",
            "w.url",
            " FROM webhooks w WHERE w.account_id = ?1 AND w.id = COALESCE(?7, last_insert_rowid())",
            *account,
            (*hook).into(),
        ),
    };
    let guard = match (when, from.is_empty()) {
        (When::Always, _) => "",
        (When::Changed, true) => " WHERE changes() > 0",
        (When::Changed, false) => " AND changes() > 0",
    };
    Stmt::new(
        format!(
            "INSERT INTO security_log (id, account_id, at, kind, actor, actor_name, detail, \
                 country) \
             SELECT {id}, {account}, ?2, ?3, ?4, ?5, {detail}, ?6{from}{guard}"
        ),
        vec![
            key.into(),
            now.into(),
            kind.as_str().into(),
            by.actor.stored().into(),
            by.actor.name().map(str::to_string).into(),
            by.country.clone().into(),
            extra,
        ],
    )
}

struct EntryRow {
    at: i64,
    kind: String,
    actor: String,
    actor_name: Option<String>,
    detail: Option<String>,
    country: Option<String>,
}
impl_row!(EntryRow {
    at,
    kind,
    actor,
    actor_name,
    detail,
    country
});

/// The account's newest entries in one log, newest first.
pub fn list_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT at, kind, actor, actor_name, detail, country FROM security_log \
         WHERE account_id = ?1 ORDER BY at DESC, id DESC LIMIT +?2",
        vec![account_id.into(), SqlValue::Int(KEPT)],
    )
}

pub async fn list(db: &Db, account_id: i64) -> Result<Vec<Entry>> {
    let rows: Vec<EntryRow> = select(db, list_sql(account_id)).await?;
    Ok(rows
        .into_iter()
        .map(|r| Entry {
            at: r.at,
            kind: r.kind,
            actor: r.actor,
            actor_name: r.actor_name,
            detail: r.detail,
            country: r.country,
        })
        .collect())
}
