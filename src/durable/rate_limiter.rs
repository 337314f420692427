//! `RateLimiter`: one object per API token (named by the token's hash). It owns the token's
//! rolling rate-limit window and caches the token's auth record, so an API request costs one
//! call here instead of a D1 lookup plus a limiter call. A Durable Object runs one event at
//! a time per id, which makes the count exact under concurrency. The cache is invalidated
//! exactly (revoke, account change), never by expiry.

use std::cell::{Cell, RefCell};

use serde::{Deserialize, Serialize};
use worker::{
    durable_object, DurableObject, Env, Method, Request, RequestInit, Response, Result, State,
};

use crate::domain::ratelimit::{Decision, Window};
use crate::store::tokens::{self, AuthRow};

const KEY: &str = "window";
/// `last_used_at` is written at most once per this interval per token.
const TOUCH_INTERVAL_MS: i64 = 60_000;

/// The answer to a gate check: who the token belongs to (none: 401) and, for a valid
/// token, the rate-limit decision.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Gate {
    pub auth: Option<AuthRow>,
    pub decision: Option<Decision>,
}

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
}

impl RateLimiter {
    async fn auth(&self, hash: &str) -> Result<Option<AuthRow>> {
        if let Some(cached) = self.auth.borrow().clone() {
            return Ok(cached);
        }
        let generation = self.generation.get();
        let row = tokens::lookup(&self.env.d1("DB")?, hash).await?;
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
            let result = match env.d1("DB") {
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
        }
    }

    /// `POST /check?hash=H&limit=N` answers a [`Gate`]; `POST /invalidate` drops the cached
    /// auth record so the next check reads D1 again.
    async fn fetch(&self, req: Request) -> Result<Response> {
        let path = req.path();
        if path == "/invalidate" {
            self.generation.set(self.generation.get() + 1);
            *self.auth.borrow_mut() = None;
            return Response::empty();
        }
        let q = crate::http::params::query(&req);
        let hash = q.get("hash").cloned().unwrap_or_default();
        let limit = q
            .get("limit")
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(1000)
            .clamp(1, u32::MAX as i64) as u32;
        let Some(mut row) = self.auth(&hash).await? else {
            // Unknown or revoked tokens are not counted: they never reach the API.
            return Response::from_json(&Gate {
                auth: None,
                decision: None,
            });
        };
        let decision = self.hit(limit).await?;
        self.touch(&mut row);
        Response::from_json(&Gate {
            auth: Some(row),
            decision: Some(decision),
        })
    }
}

fn stub(env: &Env, hash: &str) -> Result<worker::Stub> {
    env.durable_object("RATE_LIMITER")?
        .id_from_name(hash)?
        .get_stub()
}

/// Asks the token's object who the token is and whether it may make this request.
pub async fn check(env: &Env, hash: &str, limit: u32) -> Result<Gate> {
    let mut resp = stub(env, hash)?
        .fetch_with_str(&format!("https://gate/check?hash={hash}&limit={limit}"))
        .await?;
    if resp.status_code() != 200 {
        return Err(worker::Error::RustError(format!(
            "gate answered {}",
            resp.status_code()
        )));
    }
    resp.json().await
}

/// Makes the token's object forget its cached auth record (after a revoke or an account
/// change), so the very next request sees D1's current state.
pub async fn invalidate(env: &Env, hash: &str) -> Result<()> {
    let mut init = RequestInit::new();
    init.with_method(Method::Post);
    let resp = stub(env, hash)?
        .fetch_with_request(Request::new_with_init("https://gate/invalidate", &init)?)
        .await?;
    match resp.status_code() {
        200 => Ok(()),
        s => Err(worker::Error::RustError(format!(
            "gate invalidate answered {s}"
        ))),
    }
}
