//! Digital Business Card API as a Cloudflare Worker. See README.md for the map:
//! `http` (routing, auth, errors) -> `api` (handlers per resource) -> `domain` (pure rules)
//! and `store` / `durable` (D1, KV, Durable Objects).

pub mod api;
pub mod domain;
pub mod durable;
pub mod http;
pub mod public;
pub mod store;

use worker::{event, Context, Env, Request, Response, Result};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> Result<Response> {
    Ok(http::router::handle(req, env, ctx).await)
}
