//! `AnalyticsAggregator`: one object per account. It takes every view and click event,
//! counts it in its own SQLite storage (durable before the event is acknowledged) and
//! flushes per-month counter documents to KV on an alarm. KV allows about one write per
//! second per key and has no atomic increment, so this object is its only writer and
//! writes each key at most once per flush, with flushes at least a second apart.
//!
//! What is counted and how documents change is decided in `domain::analytics`; this
//! object only moves rows between its SQLite storage and KV. Workers reach it through
//! [`client`].

pub mod client;

use std::cell::Cell;

use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, State};

use crate::domain::analytics::{fold, CounterKey, Dimension, Event, Increment, Month};
use crate::domain::time::day_of;
use crate::durable::{int, txt};
use crate::store::analytics::{NAMESPACE, TTL_S as KV_TTL_S};

const MIN_FLUSH_GAP_MS: i64 = 1_000;
const FIRST_FLUSH_DELAY_MS: i64 = 250;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS seen (day INTEGER, card INTEGER, visitor TEXT,
    PRIMARY KEY (day, card, visitor)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pending (kind TEXT, card INTEGER, day INTEGER, dim TEXT, key TEXT,
    n INTEGER NOT NULL, PRIMARY KEY (kind, card, day, dim, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, month TEXT NOT NULL, body TEXT NOT NULL,
    version INTEGER NOT NULL, flushed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
";

#[durable_object(alarm)]
pub struct AnalyticsAggregator {
    state: State,
    env: Env,
    schema_ready: Cell<bool>,
    alarm_set: Cell<bool>,
}

#[derive(Deserialize)]
struct PendingRow {
    kind: String,
    card: i64,
    day: i64,
    dim: String,
    key: String,
    n: i64,
}

impl PendingRow {
    /// `None`, logged, for a row whose kind and dimension do not name a known counter:
    /// counting it as anything would corrupt another counter.
    fn increment(self) -> Option<Increment> {
        let Some(dim) = Dimension::parse(&self.kind, &self.dim) else {
            worker::console_error!(
                "analytics: dropped {} pending count(s) of unknown counter {:?}/{:?}",
                self.n,
                self.kind,
                self.dim
            );
            return None;
        };
        Some(Increment {
            card: self.card,
            day: self.day,
            dim,
            key: self.key,
            n: self.n.max(0) as u64,
        })
    }
}

#[derive(Deserialize)]
struct DocRow {
    key: String,
    body: String,
    version: i64,
}

#[derive(Deserialize)]
struct Value1 {
    value: i64,
}

impl AnalyticsAggregator {
    fn sql(&self) -> Result<SqlStorage> {
        crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready)
    }

    fn add(sql: &SqlStorage, inc: &Increment) -> Result<()> {
        sql.exec(
            "INSERT INTO pending (kind, card, day, dim, key, n) VALUES (?, ?, ?, ?, ?, ?) \
             ON CONFLICT (kind, card, day, dim, key) DO UPDATE SET n = n + excluded.n",
            vec![
                txt(inc.dim.kind().as_str()),
                int(inc.card),
                int(inc.day),
                txt(inc.dim.as_str()),
                txt(&inc.key),
                int(inc.n as i64),
            ],
        )?;
        Ok(())
    }

    /// Counts one event. Synchronous SQL only, so concurrent events cannot interleave.
    fn count(&self, event: &Event) -> Result<()> {
        let sql = self.sql()?;
        let first_visit = match event {
            Event::View {
                card, day, visitor, ..
            } => {
                sql.exec(
                    "INSERT OR IGNORE INTO seen (day, card, visitor) VALUES (?, ?, ?)",
                    vec![int(*day), int(*card), txt(visitor)],
                )?
                .rows_written()
                    > 0
            }
            Event::Click { .. } => false,
        };
        for inc in event.increments(first_visit) {
            Self::add(&sql, &inc)?;
        }
        Ok(())
    }

    fn meta(sql: &SqlStorage, name: &str) -> Result<Option<i64>> {
        let rows: Vec<Value1> = sql
            .exec("SELECT value FROM meta WHERE name = ?", vec![txt(name)])?
            .to_array()?;
        Ok(rows.first().map(|r| r.value))
    }

    fn set_meta(sql: &SqlStorage, name: &str, value: i64) -> Result<()> {
        sql.exec(
            "INSERT INTO meta (name, value) VALUES (?, ?) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            vec![txt(name), int(value)],
        )?;
        Ok(())
    }

    async fn schedule(&self, now: i64) -> Result<()> {
        if self.alarm_set.get() {
            return Ok(());
        }
        let last = Self::meta(&self.sql()?, "last_flush")?.unwrap_or(0);
        let delay = FIRST_FLUSH_DELAY_MS.max(last + MIN_FLUSH_GAP_MS - now);
        self.state.storage().set_alarm(delay).await?;
        self.alarm_set.set(true);
        Ok(())
    }

    /// Folds pending increments into the month documents, synchronously: events that
    /// arrive while KV writes are in flight land in `pending` for the next flush.
    fn fold_pending(sql: &SqlStorage, account: i64) -> Result<()> {
        let rows: Vec<PendingRow> = sql
            .exec("SELECT kind, card, day, dim, key, n FROM pending", None)?
            .to_array()?;
        if rows.is_empty() {
            return Ok(());
        }
        // Unknown rows go too: left behind they would keep the alarm rescheduling.
        sql.exec("DELETE FROM pending", None)?;
        let pending: Vec<Increment> = rows.into_iter().filter_map(PendingRow::increment).collect();
        let existing = |key: &CounterKey| -> Result<Option<String>> {
            let rows: Vec<DocRow> = sql
                .exec(
                    "SELECT key, body, version FROM docs WHERE key = ?",
                    vec![txt(&key.to_string())],
                )?
                .to_array()?;
            Ok(rows.into_iter().next().map(|d| d.body))
        };
        for (key, body) in fold(account, &pending, existing)? {
            sql.exec(
                "INSERT INTO docs (key, month, body, version) VALUES (?, ?, ?, 1) \
                 ON CONFLICT (key) DO UPDATE SET body = excluded.body, version = version + 1",
                vec![
                    txt(&key.to_string()),
                    txt(&key.month.to_string()),
                    txt(&body),
                ],
            )?;
        }
        Ok(())
    }

    /// Writes every document changed since its last flush to KV.
    async fn flush(&self, account: i64) -> Result<bool> {
        let sql = self.sql()?;
        Self::fold_pending(&sql, account)?;
        let dirty: Vec<DocRow> = sql
            .exec(
                "SELECT key, body, version FROM docs WHERE flushed < version",
                None,
            )?
            .to_array()?;
        let kv = self.env.kv(NAMESPACE)?;
        let mut complete = true;
        let mut written = 0;
        for doc in dirty {
            // As bytes: `put` of a `&str` goes through worker's serde path, whose number
            // branch compiles f64 formatting into the binary (~6 KB gzipped). KV stores the
            // same UTF-8 either way.
            let put = match kv.put_bytes(&doc.key, doc.body.as_bytes()) {
                Ok(builder) => builder.expiration_ttl(KV_TTL_S).execute().await,
                Err(e) => Err(e),
            };
            match put {
                Ok(()) => {
                    written += 1;
                    sql.exec(
                        "UPDATE docs SET flushed = ? WHERE key = ? AND flushed < ?",
                        vec![int(doc.version), txt(&doc.key), int(doc.version)],
                    )?;
                }
                Err(e) => {
                    worker::console_error!("analytics flush of {} failed: {e}", doc.key);
                    complete = false;
                }
            }
        }
        worker::console_log!("analytics flush for account {account}: {written} KV writes");
        Ok(complete)
    }

    /// Visitor sets are needed for today only (yesterday kept for late events); month
    /// documents only while their month can still change.
    fn prune(sql: &SqlStorage, now: i64) -> Result<()> {
        let today = day_of(now);
        sql.exec("DELETE FROM seen WHERE day < ?", vec![int(today - 1)])?;
        sql.exec(
            "DELETE FROM docs WHERE month < ? AND flushed = version",
            vec![txt(&Month::of_day(today - 1).to_string())],
        )?;
        Ok(())
    }
}

impl DurableObject for AnalyticsAggregator {
    fn new(state: State, env: Env) -> Self {
        Self {
            state,
            env,
            schema_ready: Cell::new(false),
            alarm_set: Cell::new(false),
        }
    }

    /// `POST` an [`Event`] as JSON; answers 204 once it is durably counted.
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let event = match client::decode(&mut req).await {
            Ok(e) => e,
            Err(e) => return Response::error(format!("bad event: {e}"), 400),
        };
        self.count(&event)?;
        let sql = self.sql()?;
        Self::set_meta(&sql, "account", event.account())?;
        self.schedule(js_sys::Date::now() as i64).await?;
        Ok(Response::empty()?.with_status(204))
    }

    async fn alarm(&self) -> Result<Response> {
        self.alarm_set.set(false);
        let now = js_sys::Date::now() as i64;
        let sql = self.sql()?;
        let Some(account) = Self::meta(&sql, "account")? else {
            return Response::empty();
        };
        let complete = self.flush(account).await?;
        Self::set_meta(&sql, "last_flush", now)?;
        Self::prune(&sql, now)?;
        let pending: Vec<Value1> = sql
            .exec("SELECT COUNT(*) AS value FROM pending", None)?
            .to_array()?;
        if !complete || pending.first().is_some_and(|p| p.value > 0) {
            self.schedule(js_sys::Date::now() as i64).await?;
        }
        Response::empty()
    }
}
