//! `RateLimiter`: one object per API token, owning that token's rolling window. A Durable
//! Object runs one event at a time per id, which makes the count exact under concurrency.

use std::cell::RefCell;

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::domain::ratelimit::{Decision, Window};

const KEY: &str = "window";

#[durable_object(fetch)]
pub struct RateLimiter {
    state: State,
    /// Loaded from storage on first use after (re)construction, then kept in memory.
    window: RefCell<Option<Window>>,
}

impl DurableObject for RateLimiter {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            window: RefCell::new(None),
        }
    }

    /// `POST /hit?limit=N&now=MS` answers a [`Decision`] as JSON.
    async fn fetch(&self, req: Request) -> Result<Response> {
        let limit = crate::http::params::query(&req)
            .get("limit")
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(1000)
            .clamp(1, u32::MAX as i64) as u32;
        let now = js_sys::Date::now() as i64;
        if self.window.borrow().is_none() {
            let stored = self.state.storage().get::<Window>(KEY).await?;
            // Another request may have loaded it while this one awaited; keep that copy.
            let mut slot = self.window.borrow_mut();
            if slot.is_none() {
                *slot = Some(stored.unwrap_or_default());
            }
        }
        // Decide and update synchronously, with no await in between, so two requests can
        // never read the same count.
        let (decision, snapshot): (Decision, Option<Window>) = {
            let mut slot = self.window.borrow_mut();
            let window = slot.get_or_insert_with(Window::default);
            let d = window.hit(now, limit);
            (d, d.allowed.then(|| window.clone()))
        };
        if let Some(window) = snapshot {
            self.state.storage().put(KEY, &window).await?;
        }
        Response::from_json(&decision)
    }
}

/// Asks the token's limiter. Any failure is logged and the request is served (fail open):
/// an outage of the limiter must not become an outage of the API.
pub async fn check(env: &Env, token_id: i64, limit: u32) -> Decision {
    match call(env, token_id, limit).await {
        Ok(d) => d,
        Err(e) => {
            worker::console_error!("rate limiter unavailable, failing open: {e}");
            Decision {
                allowed: true,
                limit,
                remaining: limit.saturating_sub(1),
                retry_after: 0,
            }
        }
    }
}

async fn call(env: &Env, token_id: i64, limit: u32) -> Result<Decision> {
    let stub = env
        .durable_object("RATE_LIMITER")?
        .id_from_name(&token_id.to_string())?
        .get_stub()?;
    let mut resp = stub
        .fetch_with_str(&format!("https://limiter/hit?limit={limit}"))
        .await?;
    resp.json().await
}
