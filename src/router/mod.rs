//! The top of the house: routing for the three surfaces: `/api/v1` (integrators), `/admin/v1`
//! (operator) and `/c/{slug}` (public card pages).
//!
//! An `/api/v1` request goes through named steps, each a module: [`route`] (the path and
//! method into an operation; 404 and 405 before anything else), [`admission`] (the token's
//! gate: authentication and rate limit, with the early read), [`consistency`] (where the
//! request's D1 reads start, and the bookmark a write leaves for its token), [`dispatch`]
//! (the operation, writes once per `Idempotency-Key`) and [`respond`] (the headers every
//! answer carries, whichever step answered).

pub mod admission;
pub mod consistency;
pub mod dispatch;
pub mod respond;
pub mod route;

use serde::Serialize;
use worker::{Context, Env, Request, Response};

use crate::api;
use crate::auth;
use crate::config;
use crate::db::Start;
use crate::domain::signing::hex;
use crate::domain::weburl::parse_http;
use crate::http::edge;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::method;
use crate::http::response::json_response;
use crate::http::{App, Trace};
use respond::{Conditional, Told};
use route::{Route, Tagging};

/// `req_` + 64 random bits in hex: names a request in its answer, its error body and logs.
fn request_id() -> String {
    let mut random = [0u8; 8];
    if getrandom::fill(&mut random).is_err() {
        random = (js_sys::Date::now() as u64).to_be_bytes();
    }
    format!("req_{}", hex(&random))
}

/// One structured line per request: what an operator filters and counts by (route,
/// status, account, token, time). No token, address, query string or body.
#[derive(Serialize)]
struct LogLine<'a> {
    request_id: &'a str,
    method: &'a str,
    status: u16,
    route: &'static str,
    account_id: Option<i64>,
    token_id: Option<i64>,
    gate_ms: Option<f64>,
    db_ms: Option<f64>,
    kv_ms: Option<f64>,
    total_ms: f64,
}

pub async fn handle(req: Request, env: Env, ctx: Context) -> Response {
    let id = request_id();
    let started = js_sys::Date::now();
    let method = method(&req);
    let config = config::get(&env);
    let app = App::new(&req, env, ctx, config, id);
    let resp = surface(&app, req).await;
    let trace: Trace = app.trace.borrow().clone();
    let line = LogLine {
        request_id: &app.request_id,
        method: &method,
        status: resp.status_code(),
        route: trace.route,
        account_id: trace.account_id,
        token_id: trace.token_id,
        gate_ms: trace.gate_ms,
        db_ms: app.db_ms(),
        kv_ms: app.kv_ms(),
        total_ms: js_sys::Date::now() - started,
    };
    let text = serde_json::to_string(&line).unwrap_or_default();
    if line.status >= 500 {
        worker::console_error!("{text}");
    } else {
        worker::console_log!("{text}");
    }
    edge::identified(resp, &app.request_id).await
}

/// `ADMIN_HOSTS`, when set, are the only hosts that serve `/admin/v1`; on any other the
/// operator API does not exist (404).
fn admin_host_allowed(app: &App, req: &Request) -> bool {
    let host = parse_http(&req.inner().url())
        .map(|u| u.host)
        .unwrap_or_default();
    app.config.serves_admin_on(&host)
}

async fn surface(app: &App, req: Request) -> Response {
    let path = req.path();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // One call of the token surfaces' path (it is inlined once; two calls of it were
    // ~10 KB more wasm).
    let token_surface = match segments.as_slice() {
        ["api", "v1", rest @ ..] => Some((Surface::Api, rest)),
        ["scim", "v2", rest @ ..] => Some((Surface::Scim, rest)),
        _ => None,
    };
    if let Some((surface, rest)) = token_surface {
        return api_v1(app, req, rest, surface).await;
    }
    match segments.as_slice() {
        ["app", rest @ ..] => {
            app.trace.borrow_mut().route = "app";
            // Sessions, members and their passkeys are written at the directory's primary;
            // an account's pages read where the API's reads would.
            // Boxed: the account area's state machine stays out of the API's (its code is
            // polled through one pointer, not inlined into every request's future).
            let area: std::pin::Pin<Box<dyn std::future::Future<Output = Response> + '_>> =
                Box::pin(crate::area::handle(app, req, rest));
            area.await
        }
        ["assets", "signature", name] => {
            app.trace.borrow_mut().route = "asset";
            crate::public::signature::icon(&method(&req), name)
                .unwrap_or_else(ApiError::into_response)
        }
        ["c", rest @ ..] => {
            app.trace.borrow_mut().route = "public";
            crate::public::handle(app, req, rest).await
        }
        ["admin", "v1", rest @ ..] => {
            app.trace.borrow_mut().route = "admin";
            if !admin_host_allowed(app, &req) {
                return ApiError::NotFound.into_response();
            }
            // The operator changes plans and tokens: reads and writes at the primary.
            app.start_reads(Start::Primary);
            api::admin::handle(app, req, rest)
                .await
                .unwrap_or_else(ApiError::into_response)
        }
        [] => json_response(
            200,
            &serde_json::json!({
                "name": "Digital Business Card API",
                "api": "/api/v1",
                "openapi": "/api/v1/openapi.json"
            }),
        ),
        _ => ApiError::NotFound.into_response(),
    }
}

/// The token surfaces: the API, and the SCIM service (provisioning.md 2), admitted,
/// rate-limited and answered alike; they differ in their paths and error bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surface {
    Api,
    Scim,
}

impl Surface {
    fn route(self, method: &str, segments: &[&str]) -> ApiResult<Route> {
        match self {
            Surface::Api => route::match_api(method, segments),
            Surface::Scim => api::scim::match_scim(method, segments).map(Route::Scim),
        }
    }

    fn error(self, e: ApiError) -> Response {
        match self {
            Surface::Api => e.into_response(),
            Surface::Scim => e.into_scim_response(),
        }
    }
}

/// `/api/v1` and `/scim/v2`: every answer, whichever step gives it, leaves through
/// [`respond::finish`].
async fn api_v1(app: &App, req: Request, segments: &[&str], surface: Surface) -> Response {
    let started = js_sys::Date::now();
    let mut told = Told::default();
    let resp = answer(app, req, segments, surface, &mut told)
        .await
        .unwrap_or_else(|e| surface.error(e));
    crate::ops::cards::give_back(app).await;
    respond::finish(app, resp, told, started)
}

async fn answer(
    app: &App,
    req: Request,
    segments: &[&str],
    surface: Surface,
    told: &mut Told,
) -> ApiResult<Response> {
    let method = method(&req);
    if method == "OPTIONS" {
        return Ok(edge::preflight());
    }
    let route = surface.route(&method, segments)?;
    app.trace.borrow_mut().route = route.name();
    let if_none_match = req.headers().get("If-None-Match").ok().flatten();
    if route == Route::OpenApi {
        told.conditional = Conditional::Tagged(if_none_match);
        return api::openapi::document(&app.env, &req).await;
    }
    let started = js_sys::Date::now();
    let hash = auth::token_hash(app, &req);
    told.gate_ms = js_sys::Date::now() - started;
    let asked = consistency::asked(&req);
    let let_in = admission::admit(app, &req, route, hash?, &asked).await;
    told.gate_ms += let_in.gate_ms;
    let admitted = let_in.gate?;
    {
        let mut trace = app.trace.borrow_mut();
        trace.account_id = Some(admitted.principal.account_id);
        trace.token_id = Some(admitted.principal.token_id);
        trace.gate_ms = Some(told.gate_ms);
    }
    // The account's shard: every D1 query of the request runs there.
    app.place(&admitted.principal.place.shard)?;
    let decision = admitted.decision;
    told.decision = Some(decision);
    if let_in.early.is_none() {
        // Reads start at the client's bookmark, else where the gate says (the primary
        // while a write of the token may be unsettled), so a token always reads its own
        // writes (a dropped early session goes with this).
        app.start_reads(consistency::start(
            &asked,
            admitted.primary,
            admitted.bookmark.as_deref(),
        ));
    }
    let resp = match (decision.allowed, let_in.early) {
        (false, _) => Err(ApiError::TooManyRequests {
            retry_after: decision.retry_after,
        }),
        (true, Some(early)) => early,
        // A moving account's writes wait (regions.md 4); its shard's fence would refuse
        // them anyway, this only answers before anything else is touched.
        (true, None) if admitted.principal.place.moving && route.writes() => Err(ApiError::Moving),
        (true, None) => dispatch::dispatch(app, &admitted.principal, req, route).await,
    };
    let resp = resp.unwrap_or_else(|e| surface.error(e));
    told.conditional = match route {
        Route::Read(r) if r.op().tagging == Tagging::ETag => Conditional::Tagged(if_none_match),
        Route::Read(_) | Route::Write(_) | Route::OpenApi | Route::BadId(_) | Route::Scim(_) => {
            Conditional::Untagged
        }
    };
    // Settled first: whether the write reached D1 is the operation's, not the read the
    // bookmark below may need (a refused or invalid request runs none of its own).
    if route.writes() {
        consistency::settle_write(app, &admitted, resp.status_code());
    }
    told.bookmark = consistency::answered(app, &asked, &admitted).await;
    Ok(resp)
}
