//! Digital Business Card API as a Cloudflare Worker. Layers, each importing only from
//! those below it (checked by `tests/layers.rs`; README.md has the map):
//! entry (`lib.rs`, `router`, `auth`) -> handlers (`api`, `public`) -> `durable` ->
//! `store` -> `http` (plumbing) -> `domain` (pure rules).

pub mod api;
pub mod auth;
pub mod domain;
pub mod durable;
pub mod http;
pub mod public;
pub mod router;
pub mod store;
pub mod upkeep;

use worker::{event, Context, Env, Request, Response, Result, ScheduleContext, ScheduledEvent};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> Result<Response> {
    Ok(router::handle(req, env, ctx).await)
}

/// Daily upkeep (cron in wrangler.toml): events past retention and expired idempotency keys.
#[event(scheduled)]
async fn scheduled(_event: ScheduledEvent, env: Env, _ctx: ScheduleContext) {
    if let Err(e) = upkeep::run(&env).await {
        worker::console_error!("scheduled upkeep failed: {e}");
    }
}
