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

use worker::{event, Context, Env, Request, Response, Result};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, ctx: Context) -> Result<Response> {
    Ok(router::handle(req, env, ctx).await)
}
