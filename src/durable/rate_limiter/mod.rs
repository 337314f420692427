//! `RateLimiter`: one object per API token (named by the token's hash). It owns the token's
//! rolling rate-limit window and caches the token's auth record, so an API request costs one
//! call here instead of a D1 lookup plus a limiter call. A Durable Object runs one event at
//! a time per id, which makes the count exact under concurrency. The cache is invalidated
//! exactly (revoke, account change), never by expiry.

use std::cell::{Cell, RefCell};

pub mod client;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{web_sys, Env, Result, State};

use crate::db::Directory;
use crate::domain::ratelimit::{Decision, Window};
use crate::durable::int;
use crate::store::tokens::{self, AuthRow};
use client::{Call, Gate};

/// Where objects that predate the `bookmark` table kept it (the key-value API).
const LEGACY_BOOKMARK: &str = "bookmark";
/// `hits`: one row per second with admitted requests: an admitted request is one
/// synchronous upsert, where a `put` of the whole window (the object's key-value API)
/// serialised up to 60 buckets per request. `bookmark`: the token's last write, one row,
/// written by a synchronous upsert for the same reason (a `put` showed as ~0.4 ms per
/// write in a V8 profile).
const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS hits (second INTEGER PRIMARY KEY, \
                      n INTEGER NOT NULL) WITHOUT ROWID; \
                      CREATE TABLE IF NOT EXISTS bookmark (id INTEGER PRIMARY KEY \
                      CHECK (id = 1), value TEXT NOT NULL);";
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
    /// The D1 bookmark of the token's latest write; loaded from storage on first use.
    bookmark: RefCell<Option<Option<String>>>,
    schema_ready: Cell<bool>,
    /// Rows of seconds before this one may still be stored (pruned at most once a minute).
    pruned_to: Cell<i64>,
}

#[derive(serde::Deserialize)]
struct BookmarkRow {
    value: String,
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

    async fn bookmark(&self) -> Result<Option<String>> {
        if let Some(known) = self.bookmark.borrow().clone() {
            return Ok(known);
        }
        let sql = crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready)?;
        let rows: Vec<BookmarkRow> = sql
            .exec("SELECT value FROM bookmark WHERE id = 1", None)?
            .to_array()?;
        let stored = match rows.into_iter().next() {
            Some(row) => Some(row.value),
            None => self.state.storage().get::<String>(LEGACY_BOOKMARK).await?,
        };
        *self.bookmark.borrow_mut() = Some(stored.clone());
        Ok(stored)
    }

    /// Persisted before the write is answered (the object's output gate holds the answer
    /// until the upsert is durable): an evicted object still knows it.
    fn remember(&self, bookmark: String) -> Result<()> {
        let sql = crate::durable::sql_storage(&self.state, SCHEMA, &self.schema_ready)?;
        sql.exec(
            "INSERT INTO bookmark (id, value) VALUES (1, ?) \
             ON CONFLICT (id) DO UPDATE SET value = excluded.value",
            vec![crate::durable::txt(&bookmark)],
        )?;
        *self.bookmark.borrow_mut() = Some(Some(bookmark));
        Ok(())
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
            bookmark: RefCell::new(None),
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
        let (hash, limit) = match Call::decode(&req.url()) {
            Some(Call::Check { hash, limit }) => (hash, limit),
            Some(Call::Invalidate) => {
                self.generation.set(self.generation.get() + 1);
                *self.auth.borrow_mut() = None;
                return Ok(web_sys::Response::new()?);
            }
            Some(Call::Remember) => {
                let text = JsFuture::from(req.text()?).await?;
                self.remember(text.as_string().unwrap_or_default())?;
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
            },
            Some(mut row) => {
                let decision = self.hit(limit)?;
                self.touch(&mut row);
                Gate {
                    auth: Some(row),
                    decision: Some(decision),
                    bookmark: self.bookmark().await?,
                }
            }
        };
        let json = serde_json::to_string(&gate)?;
        Ok(web_sys::Response::new_with_opt_str(Some(&json))?)
    }
}
