//! One request's D1 work, in one D1 session (extensions.md 6): where its reads may start
//! (the primary, any replica, or no older than a bookmark), the bookmark it ends with,
//! and the time it spent waiting on D1, for `Server-Timing`. A leaf below `store` (which
//! runs statements through it) and `http` (whose `App` holds the request's sessions).
//!
//! Two kinds of database (regions.md 1), two types, so a statement cannot reach the wrong
//! one: [`Directory`] (accounts, token hashes, slugs, moves) and [`Shard`] (an account's
//! cards, leads, events, webhooks and deliveries). Store functions take the one they use.

use std::cell::Cell;
use std::ops::Deref;

use worker::{D1Database, D1DatabaseSession, D1PreparedStatement, D1Result, Env, Result};

/// What D1 (SQLite) says when a write would give two cards of an account one external id
/// or one SCIM userName's key (the unique indexes of migrations/shard/0009 and 0011). The
/// database, not a read before the write, keeps them unique under concurrency;
/// `http::error` answers these.
pub const EXTERNAL_ID_TAKEN: &str = "UNIQUE constraint failed: cards.account_id, cards.external_id";
pub const USER_NAME_TAKEN: &str = "UNIQUE constraint failed: cards.account_id, cards.scim_user_key";

/// Where a session's first query may be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// The primary: the operator API, cron work, queue consumers.
    Primary,
    /// Any replica: the public pages, and API requests with no bookmark to honour.
    Anywhere,
    /// A replica at least as new as this bookmark (a client's, or the token's last write).
    After(String),
}

impl Start {
    /// A bookmark as a client or the token's object hands it over; anything that cannot
    /// be one is ignored (so it falls back to unconstrained reads, never to an error).
    pub fn after(bookmark: Option<&str>) -> Start {
        match bookmark.map(str::trim) {
            Some(b) if is_bookmark(b) => Start::After(b.to_string()),
            _ => Start::Anywhere,
        }
    }
}

/// D1 bookmarks are short printable tokens; a header value that is not one is not passed on.
fn is_bookmark(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 256
        && s.bytes().all(|b| b.is_ascii_graphic())
        && s != "first-primary"
        && s != "first-unconstrained"
}

/// A D1 session and what it cost.
pub struct Db {
    session: D1DatabaseSession,
    spent_ms: Cell<f64>,
}

/// The binding of the directory database.
pub const DIRECTORY: &str = "DIRECTORY";

/// A session of the directory.
pub struct Directory(Db);

/// A session of one shard, named by its binding.
pub struct Shard {
    db: Db,
    binding: String,
}

impl Directory {
    pub fn open(env: &Env, start: &Start) -> Result<Directory> {
        Ok(Directory(Db::open(env, DIRECTORY, start)?))
    }

    /// The primary: the operator API, token lookups, cron work.
    pub fn primary(env: &Env) -> Result<Directory> {
        Directory::open(env, &Start::Primary)
    }
}

impl Shard {
    pub fn open(env: &Env, binding: &str, start: &Start) -> Result<Shard> {
        Ok(Shard {
            db: Db::open(env, binding, start)?,
            binding: binding.to_string(),
        })
    }

    /// The primary, for work outside a request (cron, queue, moves, Durable Objects).
    pub fn primary(env: &Env, binding: &str) -> Result<Shard> {
        Shard::open(env, binding, &Start::Primary)
    }

    pub fn binding(&self) -> &str {
        &self.binding
    }
}

impl Deref for Directory {
    type Target = Db;
    fn deref(&self) -> &Db {
        &self.0
    }
}

impl Deref for Shard {
    type Target = Db;
    fn deref(&self) -> &Db {
        &self.db
    }
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

impl Db {
    /// A session of the D1 binding `binding`. A bookmark D1 refuses falls back to the
    /// primary.
    fn open(env: &Env, binding: &str, start: &Start) -> Result<Db> {
        let d1: D1Database = env.d1(binding)?;
        let session = match start {
            Start::Primary => d1.with_session(Some("first-primary"))?,
            Start::Anywhere => d1.with_session(Some("first-unconstrained"))?,
            Start::After(bookmark) => match d1.with_session(Some(bookmark)) {
                Ok(s) => s,
                Err(e) => {
                    worker::console_warn!("unusable D1 bookmark, reading from the primary: {e}");
                    d1.with_session(Some("first-primary"))?
                }
            },
        };
        Ok(Db {
            session,
            spent_ms: Cell::new(0.0),
        })
    }

    pub fn prepare(&self, sql: &str) -> D1PreparedStatement {
        self.session.prepare(sql)
    }

    /// One statement's rows, timed.
    pub async fn all(&self, stmt: D1PreparedStatement) -> Result<D1Result> {
        let started = now_ms();
        let result = stmt.all().await;
        self.spent_ms.set(self.spent_ms.get() + now_ms() - started);
        result
    }

    /// A batch (one transaction, one round trip), timed.
    pub async fn batch(&self, stmts: Vec<D1PreparedStatement>) -> Result<Vec<D1Result>> {
        let started = now_ms();
        let result = self.session.batch(stmts).await;
        self.spent_ms.set(self.spent_ms.get() + now_ms() - started);
        result
    }

    /// The latest bookmark the session has seen; `None` before its first query.
    pub fn bookmark(&self) -> Option<String> {
        self.session.get_bookmark().ok().flatten()
    }

    /// Milliseconds spent waiting on D1 so far.
    pub fn spent_ms(&self) -> f64 {
        self.spent_ms.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plausible_bookmarks_are_honoured() {
        assert_eq!(
            Start::after(Some(" 0000002a-00000001-00004f1c-1b5b ")),
            Start::After("0000002a-00000001-00004f1c-1b5b".into())
        );
        for bad in ["", "a b", "first-primary", "é", &"x".repeat(257)] {
            assert_eq!(Start::after(Some(bad)), Start::Anywhere, "{bad:?}");
        }
        assert_eq!(Start::after(None), Start::Anywhere);
    }
}
