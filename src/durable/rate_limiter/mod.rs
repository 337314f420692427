//! `RateLimiter`: one object per API token (named by the token's hash). It owns the token's
//! rolling rate-limit window and caches the token's auth record, so an API request costs one
//! call here instead of a D1 lookup plus a limiter call. A Durable Object runs one event at
//! a time per id, which makes the count exact under concurrency. The cache is invalidated
//! exactly (revoke, account change), never by expiry.
//!
//! It also keeps the token's writes for read-your-writes (regions.md 5; the rules in
//! [`OwnWrites`]). The check that admits a write marks it, durably, before the write runs;
//! the write's bookmark comes back with its isolate's next check for the token (a settle),
//! so a write costs no call after its answer. Reads of a token with a live mark start at
//! the primary. The invariant: from the admission of a write until its bookmark is settled
//! here, its own mark (by an id never reused) is live for `MARK_EXPIRY_MS` (120 s) after
//! it was made, or reads start at the primary anyway; once settled, the kept bookmark is
//! no older than the write's. A settle clears its own mark only, so the marks of
//! concurrent writes from other isolates stay. Past the bound, a write whose bookmark
//! never came is seen only if the replicas lag by less than that.

use std::cell::{Cell, RefCell};

pub mod client;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use worker::{web_sys, Env, Result, SqlStorage, State};

use crate::db::Directory;
use crate::domain::own_writes::{OwnWrites, ReadStart, Settle};
use crate::domain::ratelimit::{Decision, Window};
use crate::durable::{int, txt};
use crate::store::tokens::{self, AuthRow};
use client::{Call, Gate};

/// `hits`: one row per second with admitted requests: an admitted request is one
/// synchronous upsert, where a `put` of the whole window (the object's key-value API)
/// serialised up to 60 buckets per request. `writes`: the token's [`OwnWrites`], one row,
/// rewritten whole by a synchronous upsert when it changes, for the same reason (a `put`
/// showed as ~0.4 ms per write in a V8 profile). Objects of earlier versions kept only a
/// bookmark (table `bookmark`); nothing is deployed, so it is not read.
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS hits (second INTEGER PRIMARY KEY, \
                      n INTEGER NOT NULL) WITHOUT ROWID; \
                      CREATE TABLE IF NOT EXISTS writes (id INTEGER PRIMARY KEY \
                      CHECK (id = 1), state TEXT NOT NULL);";
/// Seconds a bucket counts for (the rolling minute).
const WINDOW_S: i64 = 60;
/// `last_used_at` is written at most once per this interval per token.
const TOUCH_INTERVAL_MS: i64 = 60_000;

/// Exported to the runtime by hand rather than through worker's `#[durable_object]`: the
/// object is called on every API request, and the macro's glue turns each call into a
/// `worker::Request` (method, URL, headers and `cf` read across the boundary) and each
/// answer into a `Headers`, a `ResponseInit` and a byte copy, none of which a call from
/// our own client needs.
#[wasm_bindgen(wasm_bindgen = worker::wasm_bindgen)]
pub struct RateLimiter {
    state: State,
    env: Env,
    /// Loaded from storage on first use after (re)construction, then kept in memory.
    window: RefCell<Option<Window>>,
    /// The token's auth record as last read from D1; `Some(None)` caches "no such token".
    auth: RefCell<Option<Option<AuthRow>>>,
    /// Bumped by every invalidation, so a D1 read that raced one is not cached.
    generation: Cell<u64>,
    /// The token's writes; loaded from storage on first use.
    writes: RefCell<Option<OwnWrites>>,
    schema_ready: Cell<bool>,
    /// Rows of seconds before this one may still be stored (pruned at most once a minute).
    pruned_to: Cell<i64>,
}

/// What one check learns from the token's writes.
struct Writing {
    /// The newest settled bookmark.
    bookmark: Option<String>,
    /// Where the request's reads start.
    start: ReadStart,
    /// The request's own mark, if it is an admitted write.
    mark: Option<u64>,
}

#[derive(serde::Deserialize)]
struct WritesRow {
    state: String,
}

#[derive(serde::Deserialize)]
struct HitRow {
    second: i64,
    n: i64,
}

impl RateLimiter {
    async fn auth(&self, hash: &str) -> Result<Option<AuthRow>> {
        if let Some(cached) = self.auth.borrow().clone() {
            return Ok(cached);
        }
        let generation = self.generation.get();
        let row = tokens::lookup(&Directory::primary(&self.env)?, hash).await?;
        if self.generation.get() == generation {
            *self.auth.borrow_mut() = Some(row.clone());
        }
        Ok(row)
    }

    /// Synchronous from start to end (SQLite storage), so two requests never read the same
    /// count; the object's output gate holds the answer until the upsert is durable, so an
    /// admitted request is never forgotten by a restarted object.
    fn hit(&self, limit: u32) -> Result<Decision> {
        let sql = crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready)?;
        let now_ms = js_sys::Date::now() as i64;
        let now_s = now_ms.div_euclid(1000);
        let mut slot = self.window.borrow_mut();
        if slot.is_none() {
            let rows: Vec<HitRow> = sql
                .exec(
                    "SELECT second, n FROM hits WHERE second > ? ORDER BY second",
                    vec![int(now_s - WINDOW_S)],
                )?
                .to_array()?;
            let buckets = rows
                .into_iter()
                .map(|r| (r.second, r.n.clamp(0, u32::MAX as i64) as u32))
                .collect();
            *slot = Some(Window::from_buckets(buckets));
        }
        let window = slot.get_or_insert_with(Window::default);
        let decision = window.hit(now_ms, limit);
        if decision.allowed {
            sql.exec(
                "INSERT INTO hits (second, n) VALUES (?, 1) \
                 ON CONFLICT (second) DO UPDATE SET n = n + 1",
                vec![int(now_s)],
            )?;
            if now_s - WINDOW_S > self.pruned_to.get() + WINDOW_S {
                sql.exec(
                    "DELETE FROM hits WHERE second <= ?",
                    vec![int(now_s - WINDOW_S)],
                )?;
                self.pruned_to.set(now_s - WINDOW_S);
            }
        }
        Ok(decision)
    }

    /// The token's writes at one check: the `settles` applied, expired marks dropped, where
    /// this request's reads start (before its own mark: a write reads what came before it),
    /// then, for an admitted `write`, its mark. Synchronous from start to end like
    /// [`Self::hit`], and persisted the same way: the answer (and so the write) waits until
    /// the mark is durable, so a restarted object still holds it.
    fn writes(&self, now_ms: i64, shard: &str, settles: &[Settle], write: bool) -> Result<Writing> {
        let storage = || crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready);
        let mut slot = self.writes.borrow_mut();
        if slot.is_none() {
            *slot = Some(load_writes(&storage()?, now_ms)?);
        }
        let writes = slot.get_or_insert_with(OwnWrites::default);
        let mut changed = writes.on_shard(shard, now_ms);
        changed |= writes.expire(now_ms);
        for settle in settles {
            changed |= writes.settle(settle);
        }
        let start = writes.read_start(now_ms);
        let mark = write.then(|| writes.admit_write(now_ms));
        // A read that settles nothing writes nothing (and needs no storage handle).
        if changed || mark.is_some() {
            storage()?.exec(
                "INSERT INTO writes (id, state) VALUES (1, ?) \
                 ON CONFLICT (id) DO UPDATE SET state = excluded.state",
                vec![txt(&writes.to_text())],
            )?;
        }
        Ok(Writing {
            bookmark: writes.bookmark.clone(),
            start,
            mark,
        })
    }

    /// Records use in D1 after answering, at most once a minute.
    fn touch(&self, row: &mut AuthRow) {
        let now = js_sys::Date::now() as i64;
        if row
            .last_used_at
            .is_some_and(|t| now - t < TOUCH_INTERVAL_MS)
        {
            return;
        }
        row.last_used_at = Some(now);
        if let Some(Some(cached)) = self.auth.borrow_mut().as_mut() {
            cached.last_used_at = Some(now);
        }
        let env = self.env.clone();
        let id = row.token_id;
        self.state.wait_until(async move {
            let result = match Directory::primary(&env) {
                Ok(db) => tokens::touch(&db, id, now, TOUCH_INTERVAL_MS).await,
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                worker::console_warn!("recording token use failed: {e}");
            }
        });
    }
}

#[wasm_bindgen(
    wasm_bindgen = worker::wasm_bindgen,
    wasm_bindgen_futures = worker::wasm_bindgen_futures,
    js_sys = worker::js_sys
)]
impl RateLimiter {
    #[wasm_bindgen(constructor)]
    pub fn new(state: worker::worker_sys::DurableObjectState, env: Env) -> Self {
        Self {
            state: State::from(state),
            env,
            window: RefCell::new(None),
            auth: RefCell::new(None),
            generation: Cell::new(0),
            writes: RefCell::new(None),
            schema_ready: Cell::new(false),
            pruned_to: Cell::new(0),
        }
    }

    /// The runtime's entry for a request to the object.
    pub async fn fetch(&self, req: web_sys::Request) -> std::result::Result<JsValue, JsValue> {
        self.answer(req)
            .await
            .map(JsValue::from)
            .map_err(JsValue::from)
    }
}

impl RateLimiter {
    /// Answers a [`Call`] of the client module: 200 with the [`Gate`] as JSON for a check,
    /// an empty 200 for the others.
    async fn answer(&self, req: web_sys::Request) -> Result<web_sys::Response> {
        let (hash, limit, write, settles) = match Call::decode(&req.url()) {
            Some(Call::Check {
                hash,
                limit,
                write,
                settles,
            }) => (hash, limit, write, settles),
            Some(Call::Invalidate) => {
                self.generation.set(self.generation.get() + 1);
                *self.auth.borrow_mut() = None;
                return Ok(web_sys::Response::new()?);
            }
            None => {
                let init = web_sys::ResponseInit::new();
                init.set_status(404);
                return Ok(web_sys::Response::new_with_opt_str_and_init(None, &init)?);
            }
        };
        let gate = match self.auth(&hash).await? {
            // Unknown or revoked tokens are not counted: they never reach the API.
            None => Gate {
                auth: None,
                decision: None,
                bookmark: None,
                primary: false,
                mark: None,
            },
            Some(mut row) => {
                let decision = self.hit(limit)?;
                self.touch(&mut row);
                let now_ms = js_sys::Date::now() as i64;
                // A refused write changes nothing: it is not marked.
                let writing =
                    self.writes(now_ms, &row.shard, &settles, write && decision.allowed)?;
                Gate {
                    auth: Some(row),
                    decision: Some(decision),
                    bookmark: writing.bookmark,
                    primary: writing.start == ReadStart::Primary,
                    mark: writing.mark,
                }
            }
        };
        let json = serde_json::to_string(&gate)?;
        Ok(web_sys::Response::new_with_opt_str(Some(&json))?)
    }
}

/// The stored [`OwnWrites`]; none stored: the token never wrote.
fn load_writes(sql: &SqlStorage, now_ms: i64) -> Result<OwnWrites> {
    let rows: Vec<WritesRow> = sql
        .exec("SELECT state FROM writes WHERE id = 1", None)?
        .to_array()?;
    Ok(rows
        .into_iter()
        .next()
        .map(|row| OwnWrites::from_text(&row.state, now_ms))
        .unwrap_or_default())
}
