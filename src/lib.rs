//! Digital Business Card API as a Cloudflare Worker. Layers, each importing only from
//! those below it (checked by `tests/layers.rs`; README.md has the map):
//! entry (`lib.rs`, `router/`, `auth`, `config`, `delivery`, `upkeep`) -> handlers (`api`, `public`, `area`) -> `ops`
//! (what a change does, whichever door it came through) -> `durable` ->
//! `store` -> `http` (plumbing) -> `db` (the request's D1 session) -> `js` (runtime values
//! into Rust) -> `domain` (pure rules).

pub mod api;
pub mod area;
pub mod auth;
pub mod config;
pub mod db;
pub mod delivery;
pub mod domain;
pub mod durable;
pub mod http;
pub mod js;
pub mod ops;
pub mod public;
pub mod router;
pub mod store;
pub mod upkeep;

use wasm_bindgen::JsValue;
use worker::{event, Context, Env, MessageBatch, Result, ScheduleContext, ScheduledEvent};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
    js::promise_jobs_for_futures();
}

#[event(fetch)]
async fn fetch(
    req: worker::web_sys::Request,
    env: Env,
    ctx: Context,
) -> Result<worker::web_sys::Response> {
    http::response::into_runtime(router::handle(http::params::incoming(req), env, ctx).await)
}

/// Cron triggers (wrangler.toml): every minute lead retention, missing email keys and the
/// webhook sweeper; daily the upkeep (events, idempotency keys and delivery attempts past
/// retention).
#[event(scheduled)]
async fn scheduled(event: ScheduledEvent, env: Env, _ctx: ScheduleContext) {
    match upkeep::erase_expired(&env, event.schedule() as i64).await {
        Ok(0) => {}
        Ok(n) => worker::console_log!("retention: {n} lead(s) erased"),
        Err(e) => worker::console_error!("lead retention failed: {e}"),
    }
    match upkeep::fill_email_keys(&env).await {
        Ok(0) => {}
        Ok(n) => worker::console_log!("email keys: {n} lead(s) keyed"),
        Err(e) => worker::console_error!("email keys failed: {e}"),
    }
    match upkeep::wake_moves(&env).await {
        Ok(0) => {}
        Ok(n) => worker::console_log!("moves: {n} running move(s) woken"),
        Err(e) => worker::console_error!("waking moves failed: {e}"),
    }
    match upkeep::wake_templates(&env).await {
        Ok(0) => {}
        Ok(n) => worker::console_log!("templates: {n} syncer(s) woken"),
        Err(e) => worker::console_error!("waking template syncers failed: {e}"),
    }
    match delivery::sweep(&env).await {
        Ok(0) => {}
        Ok(n) => worker::console_log!("sweeper: {n} overdue webhook attempt(s) sent again"),
        Err(e) => worker::console_error!("webhook sweep failed: {e}"),
    }
    if event.cron() != upkeep::SWEEP_CRON {
        if let Err(e) = upkeep::run(&env).await {
            worker::console_error!("scheduled upkeep failed: {e}");
        }
    }
}

/// Webhook delivery attempts (the `WEBHOOKS` queue).
#[event(queue)]
async fn queue(batch: MessageBatch<JsValue>, env: Env, _ctx: Context) -> Result<()> {
    delivery::consume(batch, &env).await;
    Ok(())
}
