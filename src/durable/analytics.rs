//! `AnalyticsAggregator`: one object per account. It takes every view and click event,
//! counts it in its own SQLite storage (durable before the event is acknowledged) and
//! flushes per-month counter documents to KV on an alarm. KV allows about one write per
//! second per key and has no atomic increment, so this object is its only writer and
//! writes each key at most once per flush, with flushes at least a second apart.

use std::cell::Cell;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue,
    State,
};

use crate::domain::analytics::{kv_key, month_of, ClicksDay, Increment, Kind, MonthDoc, ViewsDay};
use crate::domain::time::day_of;

/// Counter documents expire after this long; reports look back at most 365 days.
const KV_TTL_S: u64 = 400 * 86_400;
const MIN_FLUSH_GAP_MS: i64 = 1_000;
const FIRST_FLUSH_DELAY_MS: i64 = 250;

/// An event as the worker sends it after answering the visitor.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    View {
        account: i64,
        card: i64,
        day: i64,
        /// Salted hash of IP and User-Agent; the raw values never leave the worker.
        visitor: String,
        device: String,
        country: String,
        referrer: String,
    },
    Click {
        account: i64,
        card: i64,
        day: i64,
        #[serde(rename = "type")]
        click_type: String,
    },
}

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

fn int(i: i64) -> SqlStorageValue {
    SqlStorageValue::Integer(i)
}

fn txt(s: &str) -> SqlStorageValue {
    SqlStorageValue::String(s.to_string())
}

impl AnalyticsAggregator {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        if !self.schema_ready.get() {
            sql.exec(SCHEMA, None)?;
            self.schema_ready.set(true);
        }
        Ok(sql)
    }

    fn add(sql: &SqlStorage, kind: &str, card: i64, day: i64, dim: &str, key: &str) -> Result<()> {
        sql.exec(
            "INSERT INTO pending (kind, card, day, dim, key, n) VALUES (?, ?, ?, ?, ?, 1) \
             ON CONFLICT (kind, card, day, dim, key) DO UPDATE SET n = n + 1",
            vec![txt(kind), int(card), int(day), txt(dim), txt(key)],
        )?;
        Ok(())
    }

    /// Counts one event. Synchronous SQL only, so concurrent events cannot interleave.
    fn count(&self, event: &Event) -> Result<()> {
        let sql = self.sql()?;
        match event {
            Event::View {
                card,
                day,
                visitor,
                device,
                country,
                referrer,
                ..
            } => {
                let seen = sql.exec(
                    "INSERT OR IGNORE INTO seen (day, card, visitor) VALUES (?, ?, ?)",
                    vec![int(*day), int(*card), txt(visitor)],
                )?;
                if seen.rows_written() > 0 {
                    Self::add(&sql, "views", *card, *day, "unique", "")?;
                }
                Self::add(&sql, "views", *card, *day, "device", device)?;
                Self::add(&sql, "views", *card, *day, "country", country)?;
                Self::add(&sql, "views", *card, *day, "referrer", referrer)?;
            }
            Event::Click {
                card,
                day,
                click_type,
                ..
            } => {
                Self::add(&sql, "clicks", *card, *day, "type", click_type)?;
            }
        }
        Ok(())
    }

    fn account(event: &Event) -> i64 {
        match event {
            Event::View { account, .. } | Event::Click { account, .. } => *account,
        }
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
        sql.exec("DELETE FROM pending", None)?;
        // Each increment counts for its card and for the account's totals.
        let mut by_doc: BTreeMap<(String, String), Vec<Increment>> = BTreeMap::new();
        for r in rows {
            let kind = if r.kind == "clicks" {
                Kind::Clicks
            } else {
                Kind::Views
            };
            let month = month_of(r.day);
            let inc = Increment {
                kind,
                card: r.card,
                day: r.day,
                dim: r.dim,
                key: r.key,
                n: r.n.max(0) as u64,
            };
            for scope in [Some(r.card), None] {
                by_doc
                    .entry((kv_key(account, scope, kind, &month), month.clone()))
                    .or_default()
                    .push(inc.clone());
            }
        }
        for ((key, month), incs) in by_doc {
            let existing: Vec<DocRow> = sql
                .exec(
                    "SELECT key, body, version FROM docs WHERE key = ?",
                    vec![txt(&key)],
                )?
                .to_array()?;
            let old = existing
                .first()
                .map(|d| d.body.as_str())
                .unwrap_or("{\"days\":{}}");
            let body = match incs[0].kind {
                Kind::Views => {
                    let mut doc: MonthDoc<ViewsDay> = serde_json::from_str(old).unwrap_or_default();
                    incs.iter().for_each(|i| doc.apply(i));
                    serde_json::to_string(&doc)
                }
                Kind::Clicks => {
                    let mut doc: MonthDoc<ClicksDay> =
                        serde_json::from_str(old).unwrap_or_default();
                    incs.iter().for_each(|i| doc.apply(i));
                    serde_json::to_string(&doc)
                }
            }
            .map_err(|e| worker::Error::RustError(e.to_string()))?;
            sql.exec(
                "INSERT INTO docs (key, month, body, version) VALUES (?, ?, ?, 1) \
                 ON CONFLICT (key) DO UPDATE SET body = excluded.body, version = version + 1",
                vec![txt(&key), txt(&month), txt(&body)],
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
        let kv = self.env.kv("ANALYTICS")?;
        let mut complete = true;
        let mut written = 0;
        for doc in dirty {
            let put = match kv.put(&doc.key, doc.body.as_str()) {
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
            vec![txt(&month_of(today - 1))],
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
        let event: Event = match req.json().await {
            Ok(e) => e,
            Err(e) => return Response::error(format!("bad event: {e}"), 400),
        };
        self.count(&event)?;
        let sql = self.sql()?;
        Self::set_meta(&sql, "account", Self::account(&event))?;
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
