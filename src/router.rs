//! The top of the house: routing for the three surfaces: `/api/v1` (integrators), `/admin/v1` (operator) and
//! `/c/{slug}` (public card pages).

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

use serde::Serialize;

use serde_json::Map;
use worker::{Context, Env, Request, Response};

use crate::api;
use crate::api::idempotency::Target;
use crate::auth;
use crate::db::Start;
use crate::domain::idempotency::HEADER;
use crate::domain::principal::Principal;
use crate::domain::ratelimit::{limit_header, policy_header};
use crate::domain::signing::hex;
use crate::domain::token::Scope;
use crate::domain::weburl::parse_http;
use crate::durable::rate_limiter::client as gate;
use crate::http::body::json_object;
use crate::http::edge;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{method, path_id};
use crate::http::response::json_response;
use crate::http::{App, Trace};

/// The API operations; ids are already parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    ListCards,
    CreateCard,
    GetCard(i64),
    UpdateCard(i64),
    DeleteCard(i64),
    ListLeads,
    GetLead(i64),
    DeleteLead(i64),
    EraseLeads,
    AnalyticsViews,
    AnalyticsClicks,
    ListEvents,
    GetEvent(EventId),
    ListWebhooks,
    CreateWebhook,
    GetWebhook(i64),
    UpdateWebhook(i64),
    DeleteWebhook(i64),
    RotateWebhookSecret(i64),
    ListDeliveries(i64),
    Redeliver(i64, EventId),
    OpenApi,
    /// A resource path whose id is no id (`/cards/abc`): a 404, answered after auth and
    /// rate limiting like any other missing resource, so it carries the same headers.
    BadId(&'static [Scope]),
}

/// Any one of these scopes admits the operation.
const CARDS_READ: &[Scope] = &[Scope::CardsRead];
const CARDS_WRITE: &[Scope] = &[Scope::CardsWrite];
const LEADS_READ: &[Scope] = &[Scope::LeadsRead];
const LEADS_WRITE: &[Scope] = &[Scope::LeadsWrite];
const ANALYTICS_READ: &[Scope] = &[Scope::AnalyticsRead];
/// The feed: which of its events a token sees is decided by its scopes (extensions.md 1).
const EVENTS_READ: &[Scope] = &[Scope::CardsRead, Scope::LeadsRead];
const WEBHOOKS_WRITE: &[Scope] = &[Scope::WebhooksWrite];

/// An event id as written in a path (`evt_` + 32 hex digits), kept as a number so routes
/// stay `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventId(u128);

impl EventId {
    fn parse(s: &str) -> Option<EventId> {
        let hex = s.strip_prefix("evt_")?;
        (hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| u128::from_str_radix(hex, 16).ok().map(EventId))
            .flatten()
    }

    pub fn text(self) -> String {
        format!("evt_{:032x}", self.0)
    }
}

impl Route {
    /// The scopes of which a token needs one.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Route::ListCards | Route::GetCard(_) => CARDS_READ,
            Route::CreateCard | Route::UpdateCard(_) | Route::DeleteCard(_) => CARDS_WRITE,
            Route::ListLeads | Route::GetLead(_) => LEADS_READ,
            Route::DeleteLead(_) | Route::EraseLeads => LEADS_WRITE,
            // OpenApi is served before authentication; its scope is never checked.
            Route::AnalyticsViews | Route::AnalyticsClicks | Route::OpenApi => ANALYTICS_READ,
            Route::ListEvents | Route::GetEvent(_) => EVENTS_READ,
            Route::ListWebhooks
            | Route::CreateWebhook
            | Route::GetWebhook(_)
            | Route::UpdateWebhook(_)
            | Route::DeleteWebhook(_)
            | Route::RotateWebhookSecret(_)
            | Route::ListDeliveries(_)
            | Route::Redeliver(..) => WEBHOOKS_WRITE,
            Route::BadId(scopes) => scopes,
        }
    }

    /// Writes take an `Idempotency-Key` (extensions.md 3).
    fn is_write(self) -> bool {
        matches!(
            self,
            Route::CreateCard
                | Route::UpdateCard(_)
                | Route::DeleteCard(_)
                | Route::DeleteLead(_)
                | Route::EraseLeads
                | Route::CreateWebhook
                | Route::UpdateWebhook(_)
                | Route::DeleteWebhook(_)
                | Route::RotateWebhookSecret(_)
                | Route::Redeliver(..)
        )
    }

    /// Writes whose answer holds a secret (the webhook signing secret): a kept answer is
    /// replayed to the token that made the request only (extensions.md 3 and 4).
    fn answers_secret(self) -> bool {
        match self {
            Route::CreateWebhook | Route::RotateWebhookSecret(_) => true,
            // Exhaustive, so a new route is decided here, not forgotten.
            Route::ListCards
            | Route::CreateCard
            | Route::GetCard(_)
            | Route::UpdateCard(_)
            | Route::DeleteCard(_)
            | Route::ListLeads
            | Route::GetLead(_)
            | Route::DeleteLead(_)
            | Route::EraseLeads
            | Route::AnalyticsViews
            | Route::AnalyticsClicks
            | Route::ListEvents
            | Route::GetEvent(_)
            | Route::ListWebhooks
            | Route::GetWebhook(_)
            | Route::UpdateWebhook(_)
            | Route::DeleteWebhook(_)
            | Route::ListDeliveries(_)
            | Route::Redeliver(..)
            | Route::OpenApi
            | Route::BadId(_) => false,
        }
    }

    /// The operation's name as openapi.json has it, for logs.
    pub fn name(self) -> &'static str {
        match self {
            Route::ListCards => "listCards",
            Route::CreateCard => "createCard",
            Route::GetCard(_) => "getCard",
            Route::UpdateCard(_) => "updateCard",
            Route::DeleteCard(_) => "deleteCard",
            Route::ListLeads => "listLeads",
            Route::GetLead(_) => "getLead",
            Route::DeleteLead(_) => "deleteLead",
            Route::EraseLeads => "eraseLeads",
            Route::AnalyticsViews => "analyticsViews",
            Route::AnalyticsClicks => "analyticsClicks",
            Route::ListEvents => "listEvents",
            Route::GetEvent(_) => "getEvent",
            Route::ListWebhooks => "listWebhooks",
            Route::CreateWebhook => "createWebhook",
            Route::GetWebhook(_) => "getWebhook",
            Route::UpdateWebhook(_) => "updateWebhook",
            Route::DeleteWebhook(_) => "deleteWebhook",
            Route::RotateWebhookSecret(_) => "rotateWebhookSecret",
            Route::ListDeliveries(_) => "listDeliveries",
            Route::Redeliver(..) => "redeliverEvent",
            Route::OpenApi => "openapi",
            Route::BadId(_) => "badId",
        }
    }

    /// GETs answered with a strong `ETag` and 304 on `If-None-Match` (extensions.md 6).
    fn is_cacheable(self) -> bool {
        matches!(
            self,
            Route::ListCards
                | Route::GetCard(_)
                | Route::ListLeads
                | Route::GetLead(_)
                | Route::ListEvents
                | Route::GetEvent(_)
                | Route::AnalyticsViews
                | Route::AnalyticsClicks
        )
    }

    /// Writes whose body is JSON; the others take none and ignore what is sent.
    fn has_body(self) -> bool {
        matches!(
            self,
            Route::CreateCard
                | Route::UpdateCard(_)
                | Route::EraseLeads
                | Route::CreateWebhook
                | Route::UpdateWebhook(_)
        )
    }
}

/// Matches `/api/v1/...` segments. Unknown paths are 404 and known paths with another
/// method 405, both before authentication, as no resource is revealed by either.
pub fn match_api(method: &str, segments: &[&str]) -> ApiResult<Route> {
    let route = match (segments, method) {
        (["cards"], "GET") => Route::ListCards,
        (["cards"], "POST") => Route::CreateCard,
        (["cards"], _) => return Err(ApiError::MethodNotAllowed("GET, POST")),
        (["cards", card], m) => match (m, path_id(card)) {
            ("GET", Some(card)) => Route::GetCard(card),
            ("PUT" | "PATCH", Some(card)) => Route::UpdateCard(card),
            ("DELETE", Some(card)) => Route::DeleteCard(card),
            ("GET", None) => Route::BadId(CARDS_READ),
            ("PUT" | "PATCH" | "DELETE", None) => Route::BadId(CARDS_WRITE),
            _ => return Err(ApiError::MethodNotAllowed("GET, PUT, PATCH, DELETE")),
        },
        (["leads"], "GET") => Route::ListLeads,
        (["leads", "erase"], "POST") => Route::EraseLeads,
        (["leads", "erase"], _) => return Err(ApiError::MethodNotAllowed("POST")),
        (["leads", lead], "GET") => path_id(lead).map_or(Route::BadId(LEADS_READ), Route::GetLead),
        (["leads", lead], "DELETE") => {
            path_id(lead).map_or(Route::BadId(LEADS_WRITE), Route::DeleteLead)
        }
        (["leads", _], _) => return Err(ApiError::MethodNotAllowed("GET, DELETE")),
        (["events"], "GET") => Route::ListEvents,
        (["events", event], "GET") => {
            EventId::parse(event).map_or(Route::BadId(EVENTS_READ), Route::GetEvent)
        }
        (["webhooks"], "GET") => Route::ListWebhooks,
        (["webhooks"], "POST") => Route::CreateWebhook,
        (["webhooks"], _) => return Err(ApiError::MethodNotAllowed("GET, POST")),
        (["webhooks", hook], m) => match (m, path_id(hook)) {
            ("GET", Some(hook)) => Route::GetWebhook(hook),
            ("PATCH", Some(hook)) => Route::UpdateWebhook(hook),
            ("DELETE", Some(hook)) => Route::DeleteWebhook(hook),
            ("GET" | "PATCH" | "DELETE", None) => Route::BadId(WEBHOOKS_WRITE),
            _ => return Err(ApiError::MethodNotAllowed("GET, PATCH, DELETE")),
        },
        (["webhooks", hook, "rotate-secret"], "POST") => {
            path_id(hook).map_or(Route::BadId(WEBHOOKS_WRITE), Route::RotateWebhookSecret)
        }
        (["webhooks", hook, "deliveries"], "GET") => {
            path_id(hook).map_or(Route::BadId(WEBHOOKS_WRITE), Route::ListDeliveries)
        }
        (["webhooks", hook, "events", event, "redeliver"], "POST") => {
            match (path_id(hook), EventId::parse(event)) {
                (Some(hook), Some(event)) => Route::Redeliver(hook, event),
                _ => Route::BadId(WEBHOOKS_WRITE),
            }
        }
        (["webhooks", _, "rotate-secret"] | ["webhooks", _, "events", _, "redeliver"], _) => {
            return Err(ApiError::MethodNotAllowed("POST"))
        }
        (["webhooks", _, "deliveries"], _) => return Err(ApiError::MethodNotAllowed("GET")),
        (["analytics", "views"], "GET") => Route::AnalyticsViews,
        (["analytics", "clicks"], "GET") => Route::AnalyticsClicks,
        (["openapi.json"], "GET" | "HEAD") => Route::OpenApi,
        (
            ["leads"]
            | ["events"]
            | ["events", _]
            | ["analytics", "views" | "clicks"]
            | ["openapi.json"],
            _,
        ) => return Err(ApiError::MethodNotAllowed("GET")),
        _ => return Err(ApiError::NotFound),
    };
    Ok(route)
}

/// Runs two futures together; both answers, once both are in.
async fn both<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut ra, mut rb) = (None, None);
    poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        match (ra.take(), rb.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                (ra, rb) = (x, y);
                Poll::Pending
            }
        }
    })
    .await
}

/// The header that carries a D1 bookmark both ways.
const BOOKMARK: &str = "X-D1-Bookmark";

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
    let app = App::new(&req, env, ctx);
    let resp = route(&app, req).await;
    let trace: Trace = app.trace.borrow().clone();
    let line = LogLine {
        request_id: &id,
        method: &method,
        status: resp.status_code(),
        route: trace.route,
        account_id: trace.account_id,
        token_id: trace.token_id,
        gate_ms: trace.gate_ms,
        db_ms: app.used_db().map(|db| db.spent_ms()),
        kv_ms: app.kv_ms(),
        total_ms: js_sys::Date::now() - started,
    };
    let text = serde_json::to_string(&line).unwrap_or_default();
    if line.status >= 500 {
        worker::console_error!("{text}");
    } else {
        worker::console_log!("{text}");
    }
    edge::identified(resp, &id).await
}

/// `ADMIN_HOSTS` (comma-separated host names), when set, are the only hosts that serve
/// `/admin/v1`; on any other the operator API does not exist (404).
fn admin_host_allowed(app: &App, req: &Request) -> bool {
    let Some(hosts) = app.var("ADMIN_HOSTS") else {
        return true;
    };
    let host = parse_http(&req.inner().url())
        .map(|u| u.host)
        .unwrap_or_default();
    hosts
        .split(',')
        .map(str::trim)
        .any(|h| !h.is_empty() && h.eq_ignore_ascii_case(&host))
}

async fn route(app: &App, req: Request) -> Response {
    let path = req.path();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["api", "v1", rest @ ..] => edge::private(api_v1(app, req, rest).await),
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

async fn api_v1(app: &App, req: Request, segments: &[&str]) -> Response {
    let method = method(&req);
    if method == "OPTIONS" {
        return edge::preflight();
    }
    let route = match match_api(&method, segments) {
        Ok(route) => route,
        Err(e) => return edge::cors(e.into_response()),
    };
    app.trace.borrow_mut().route = route.name();
    if route == Route::OpenApi {
        let doc = api::openapi::document(&req).unwrap_or_else(ApiError::into_response);
        let if_none_match = req.headers().get("If-None-Match").ok().flatten();
        return edge::cors(edge::conditional(doc, if_none_match.as_deref()));
    }
    let started = js_sys::Date::now();
    let limit = app
        .var("RATE_LIMIT_PER_MINUTE")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1000);
    let hash = match auth::token_hash(app, &req) {
        Ok(hash) => hash,
        Err(e) => return edge::cors(e.into_response()),
    };
    // A bookmark the client sends wins; one that is no bookmark reads the primary.
    let sent = req.headers().get(BOOKMARK).ok().flatten();
    let from_client = sent.as_deref().map(|b| match Start::after(Some(b)) {
        Start::Anywhere => Start::Primary,
        start => start,
    });
    let if_none_match = req.headers().get("If-None-Match").ok().flatten();
    let gate = auth::admit(app, hash.clone(), limit);
    // A read of a token this isolate has seen starts with the gate call, as that token
    // was (the hint), instead of after it: max(gate, D1) instead of their sum.
    let hint = (!route.is_write()).then(|| auth::hint(&hash)).flatten();
    let (admitted, early) = match hint {
        Some(hint) => {
            let start = from_client
                .clone()
                .unwrap_or_else(|| Start::after(hint.bookmark.as_deref()));
            app.start_reads(start);
            let early_read = read(app, &hint.principal, &req, route);
            let (admitted, early) = both(gate, early_read).await;
            // The early answer stands only if the gate admitted exactly the principal it
            // assumed and the token wrote nothing after the bookmark the read started at.
            // Otherwise it is dropped unread: a refused request learns nothing.
            let stands = admitted.as_ref().is_ok_and(|a| {
                a.principal == hint.principal
                    && (from_client.is_some() || a.bookmark == hint.bookmark)
            });
            (admitted, stands.then_some(early))
        }
        None => (gate.await, None),
    };
    let admitted = match admitted {
        Ok(admitted) => admitted,
        Err(e) => return edge::cors(e.into_response()),
    };
    if early.is_none() {
        // Reads start at the client's bookmark, else at the token's last write, so a
        // token always reads its own writes (a dropped early session goes with this).
        app.start_reads(
            from_client
                .clone()
                .unwrap_or_else(|| Start::after(admitted.bookmark.as_deref())),
        );
    }
    {
        let mut trace = app.trace.borrow_mut();
        trace.account_id = Some(admitted.principal.account_id);
        trace.token_id = Some(admitted.principal.token_id);
        trace.gate_ms = Some(admitted.gate_ms);
    }
    let decision = admitted.decision;
    let mut resp = match (decision.allowed, early) {
        (false, _) => ApiError::TooManyRequests {
            retry_after: decision.retry_after,
        }
        .into_response(),
        (true, Some(early)) => early.unwrap_or_else(ApiError::into_response),
        (true, None) => dispatch(app, &admitted.principal, req, route)
            .await
            .unwrap_or_else(ApiError::into_response),
    };
    let started_at = match &from_client {
        Some(Start::After(b)) => Some(b.clone()),
        Some(_) => None,
        None => admitted.bookmark.clone(),
    };
    let bookmark = app.used_db().and_then(|db| db.bookmark()).or(started_at);
    if route.is_write() {
        // Before the write is answered, the token's object learns its bookmark: the
        // token's next request, in any isolate, reads no older data.
        if let Some(b) = bookmark
            .as_deref()
            .filter(|b| Some(*b) != admitted.bookmark.as_deref())
        {
            if let Err(e) = gate::remember(&app.env, &admitted.hash, b).await {
                worker::console_error!("token gate did not take the write's bookmark: {e}");
            }
            auth::note_write(&admitted.hash, b);
        }
    }
    resp = if route.is_cacheable() {
        edge::conditional(resp, if_none_match.as_deref())
    } else {
        edge::untagged(resp)
    };
    let db_ms = app.used_db().map_or(0.0, |db| db.spent_ms());
    let total_ms = js_sys::Date::now() - started;
    let headers = resp.headers_mut();
    let _ = headers.set("X-RateLimit-Limit", &decision.limit.to_string());
    let _ = headers.set("X-RateLimit-Remaining", &decision.remaining.to_string());
    let _ = headers.set("RateLimit-Policy", &policy_header(decision.limit));
    let _ = headers.set("RateLimit", &limit_header(&decision));
    if let Some(b) = bookmark {
        let _ = headers.set(BOOKMARK, &b);
    }
    let mut timing = format!(
        "gate;dur={:.1}, db;dur={db_ms:.1}, total;dur={total_ms:.1}",
        admitted.gate_ms
    );
    if let Some(kv_ms) = app.kv_ms() {
        timing.push_str(&format!(", kv;dur={kv_ms:.1}"));
    }
    let _ = headers.set("Server-Timing", &timing);
    edge::cors(resp)
}

async fn dispatch(app: &App, p: &Principal, req: Request, route: Route) -> ApiResult<Response> {
    if route.is_write() {
        auth::authorize(p, route.scopes())?;
        return write(app, p, req, route).await;
    }
    read(app, p, &req, route).await
}

/// A read: it only borrows the request, so the early read (before the gate answers) needs
/// no copy of it.
async fn read(app: &App, p: &Principal, req: &Request, route: Route) -> ApiResult<Response> {
    auth::authorize(p, route.scopes())?;
    match route {
        Route::ListCards => api::cards::list(app, p, req).await,
        Route::GetCard(id) => api::cards::get(app, p, id).await,
        Route::ListEvents => api::events::list(app, p, req).await,
        Route::GetEvent(id) => api::events::get(app, p, id.text()).await,
        Route::ListWebhooks => api::webhooks::list(app, p, req).await,
        Route::GetWebhook(id) => api::webhooks::get(app, p, id).await,
        Route::ListDeliveries(id) => api::webhooks::deliveries(app, p, req, id).await,
        Route::ListLeads => api::leads::list(app, p, req).await,
        Route::GetLead(id) => api::leads::get(app, p, id).await,
        Route::AnalyticsViews => api::analytics::views(app, p, req).await,
        Route::AnalyticsClicks => api::analytics::clicks(app, p, req).await,
        Route::CreateCard
        | Route::UpdateCard(_)
        | Route::DeleteCard(_)
        | Route::DeleteLead(_)
        | Route::EraseLeads
        | Route::CreateWebhook
        | Route::UpdateWebhook(_)
        | Route::DeleteWebhook(_)
        | Route::RotateWebhookSecret(_)
        | Route::Redeliver(..) => Err(ApiError::Internal("a write outside write()".into())),
        // Served before authentication, in api_v1.
        Route::OpenApi | Route::BadId(_) => Err(ApiError::NotFound),
    }
}

/// A write, run once per `Idempotency-Key` when the request carries one.
async fn write(app: &App, p: &Principal, mut req: Request, route: Route) -> ApiResult<Response> {
    let key = req.headers().get(HEADER).ok().flatten();
    let body = if route.has_body() {
        json_object(&mut req).await?
    } else {
        Map::new()
    };
    let run = async {
        match route {
            Route::CreateCard => api::cards::create(app, p, &body).await,
            Route::UpdateCard(id) => api::cards::update(app, p, &body, id).await,
            Route::DeleteCard(id) => api::cards::delete(app, p, id).await,
            Route::DeleteLead(id) => api::leads::delete(app, p, id).await,
            Route::EraseLeads => api::leads::erase(app, p, &body).await,
            Route::CreateWebhook => api::webhooks::create(app, p, &body).await,
            Route::UpdateWebhook(id) => api::webhooks::update(app, p, &body, id).await,
            Route::DeleteWebhook(id) => api::webhooks::delete(app, p, id).await,
            Route::RotateWebhookSecret(id) => api::webhooks::rotate(app, p, id).await,
            Route::Redeliver(id, event) => api::webhooks::redeliver(app, p, id, event.text()).await,
            _ => Err(ApiError::NotFound),
        }
    };
    match key {
        None => run.await,
        Some(key) => {
            let target = Target {
                method: method(&req),
                path: req.path(),
                key,
                body: &body,
                holds_secret: route.answers_secret(),
            };
            api::idempotency::once(app, p, target, run).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(match_api("GET", &["cards"]).unwrap(), Route::ListCards);
        assert_eq!(
            match_api("PATCH", &["cards", "7"]).unwrap(),
            Route::UpdateCard(7)
        );
        assert_eq!(
            match_api("GET", &["leads", "3"]).unwrap(),
            Route::GetLead(3)
        );
        assert_eq!(
            match_api("GET", &["cards", "x"]).unwrap(),
            Route::BadId(CARDS_READ)
        );
        assert_eq!(
            match_api("PUT", &["cards", "-1"]).unwrap(),
            Route::BadId(CARDS_WRITE)
        );
        assert!(matches!(
            match_api("GET", &["nope"]),
            Err(ApiError::NotFound)
        ));
        assert!(matches!(
            match_api("DELETE", &["cards"]),
            Err(ApiError::MethodNotAllowed(_))
        ));
        assert!(matches!(
            match_api("POST", &["analytics", "views"]),
            Err(ApiError::MethodNotAllowed("GET"))
        ));
        assert!(matches!(
            match_api("QUERY", &["leads", "1"]),
            Err(ApiError::MethodNotAllowed("GET, DELETE"))
        ));
        assert_eq!(
            match_api("DELETE", &["leads", "4"]).unwrap(),
            Route::DeleteLead(4)
        );
        assert_eq!(
            match_api("POST", &["leads", "erase"]).unwrap(),
            Route::EraseLeads
        );
        assert!(matches!(
            match_api("GET", &["leads", "erase"]),
            Err(ApiError::MethodNotAllowed("POST"))
        ));
    }

    #[test]
    fn scopes_per_route() {
        assert_eq!(Route::GetCard(1).scopes(), [Scope::CardsRead]);
        assert_eq!(Route::DeleteCard(1).scopes(), [Scope::CardsWrite]);
        assert_eq!(Route::ListLeads.scopes(), [Scope::LeadsRead]);
        assert_eq!(Route::AnalyticsClicks.scopes(), [Scope::AnalyticsRead]);
        assert_eq!(
            Route::ListEvents.scopes(),
            [Scope::CardsRead, Scope::LeadsRead]
        );
    }

    #[test]
    fn only_webhook_create_and_rotate_answer_a_secret() {
        let secret: Vec<_> = [
            ("POST", &["webhooks"][..]),
            ("POST", &["webhooks", "3", "rotate-secret"]),
            ("PATCH", &["webhooks", "3"]),
            ("POST", &["cards"]),
            ("POST", &["leads", "erase"]),
            ("GET", &["webhooks", "3"]),
        ]
        .into_iter()
        .map(|(m, path)| match_api(m, path).unwrap().answers_secret())
        .collect();
        assert_eq!(secret, [true, true, false, false, false, false]);
    }

    #[test]
    fn event_routes() {
        let id = "evt_0123456789abcdef0123456789abcdef";
        match match_api("GET", &["events", id]).unwrap() {
            Route::GetEvent(e) => assert_eq!(e.text(), id),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            match_api("GET", &["events", "evt_XYZ"]).unwrap(),
            Route::BadId(EVENTS_READ)
        );
        assert!(matches!(
            match_api("POST", &["events"]),
            Err(ApiError::MethodNotAllowed("GET"))
        ));
    }
}
