//! `RateLimiter`: one object per API token (named by the token's hash). It owns the token's
//! rolling rate-limit window and caches the token's auth record, so an API request costs one
//! call here instead of a D1 lookup plus a limiter call. A Durable Object runs one event at
//! a time per id, which makes the count exact under concurrency. The cache is invalidated
//! exactly (revoke, account change), never by expiry.

use std::cell::{Cell, RefCell};

pub mod client;

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::db::Db;
use crate::domain::ratelimit::{Decision, Window};
use crate::store::tokens::{self, AuthRow};
use client::{Call, Gate};

const KEY: &str = "window";
const BOOKMARK: &str = "bookmark";
/// `last_used_at` is written at most once per this interval per token.
const TOUCH_INTERVAL_MS: i64 = 60_000;

#[durable_object(fetch)]
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
}

impl RateLimiter {
    async fn auth(&self, hash: &str) -> Result<Option<AuthRow>> {
        if let Some(cached) = self.auth.borrow().clone() {
            return Ok(cached);
        }
        let generation = self.generation.get();
        let row = tokens::lookup(&Db::primary(&self.env)?, hash).await?;
        if self.generation.get() == generation {
            *self.auth.borrow_mut() = Some(row.clone());
        }
        Ok(row)
    }

    async fn hit(&self, limit: u32) -> Result<Decision> {
        if self.window.borrow().is_none() {
            let stored = self.state.storage().get::<Window>(KEY).await?;
            let mut slot = self.window.borrow_mut();
            if slot.is_none() {
                *slot = Some(stored.unwrap_or_default());
            }
        }
        // Decide and update with no await in between, so two requests never read the same count.
        let (decision, snapshot) = {
            let mut slot = self.window.borrow_mut();
            let window = slot.get_or_insert_with(Window::default);
            let d = window.hit(js_sys::Date::now() as i64, limit);
            (d, d.allowed.then(|| window.clone()))
        };
        if let Some(window) = snapshot {
            self.state.storage().put(KEY, &window).await?;
        }
        Ok(decision)
    }

    async fn bookmark(&self) -> Result<Option<String>> {
        if let Some(known) = self.bookmark.borrow().clone() {
            return Ok(known);
        }
        let stored = self.state.storage().get::<String>(BOOKMARK).await?;
        *self.bookmark.borrow_mut() = Some(stored.clone());
        Ok(stored)
    }

    /// Persisted before the write is answered: an evicted object still knows it.
    async fn remember(&self, bookmark: String) -> Result<()> {
        self.state.storage().put(BOOKMARK, &bookmark).await?;
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
            let result = match Db::primary(&env) {
                Ok(db) => tokens::touch(&db, id, now, TOUCH_INTERVAL_MS).await,
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                worker::console_warn!("recording token use failed: {e}");
            }
        });
    }
}

impl DurableObject for RateLimiter {
    fn new(state: State, env: Env) -> Self {
        Self {
            state,
            env,
            window: RefCell::new(None),
            auth: RefCell::new(None),
            generation: Cell::new(0),
            bookmark: RefCell::new(None),
        }
    }

    /// Answers a [`Call`] of the client module.
    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let (hash, limit) = match Call::decode(&req.inner().url()) {
            Some(Call::Check { hash, limit }) => (hash, limit),
            Some(Call::Invalidate) => {
                self.generation.set(self.generation.get() + 1);
                *self.auth.borrow_mut() = None;
                return Response::empty();
            }
            Some(Call::Remember) => {
                self.remember(req.text().await?).await?;
                return Response::empty();
            }
            None => return Response::error("unknown call", 404),
        };
        let Some(mut row) = self.auth(&hash).await? else {
            // Unknown or revoked tokens are not counted: they never reach the API.
            return Response::from_json(&Gate {
                auth: None,
                decision: None,
                bookmark: None,
            });
        };
        let decision = self.hit(limit).await?;
        self.touch(&mut row);
        Response::from_json(&Gate {
            auth: Some(row),
            decision: Some(decision),
            bookmark: self.bookmark().await?,
        })
    }
}
