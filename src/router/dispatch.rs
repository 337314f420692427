//! The operations: each route to its handler, once the request is admitted. Reads only
//! borrow the request, so the early read (before the gate answers) needs no copy of it;
//! writes run once per `Idempotency-Key`.

use serde_json::{Map, Value};
use worker::{Request, Response};

use super::route::{Answer, Body, Read, Route, Write};
use crate::api;
use crate::api::idempotency::Target;
use crate::api::templates::{handle as templates, Op};
use crate::auth;
use crate::domain::idempotency::{fingerprint, Sent, HEADER};
use crate::domain::principal::Principal;
use crate::http::body::object_of;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::method;
use crate::http::App;

/// An admitted request's answer.
pub async fn dispatch(app: &App, p: &Principal, req: Request, route: Route) -> ApiResult<Response> {
    match route {
        Route::Read(r) => read(app, p, &req, r).await,
        Route::Write(w) => write(app, p, req, w).await,
        Route::BadId(scopes) => {
            auth::authorize(p, scopes)?;
            Err(ApiError::NotFound)
        }
        // Public: the router serves it before admission; a token changes nothing.
        Route::OpenApi => api::openapi::document(&app.env, &req).await,
        Route::Scim(op) => scim(app, p, req, op).await,
    }
}

pub async fn read(app: &App, p: &Principal, req: &Request, r: Read) -> ApiResult<Response> {
    auth::authorize(p, r.op().scopes)?;
    match r {
        Read::ListCards => api::cards::list(app, p, req).await,
        Read::GetCard(id) => api::cards::get(app, p, id).await,
        Read::CardSignature(id) => api::cards::signature(app, p, id).await,
        Read::ListLeads => api::leads::list(app, p, req).await,
        Read::GetLead(id) => api::leads::get(app, p, id).await,
        Read::AnalyticsViews => api::analytics::views(app, p, req).await,
        Read::AnalyticsClicks => api::analytics::clicks(app, p, req).await,
        Read::ListEvents => api::events::list(app, p, req).await,
        Read::GetEvent(id) => api::events::get(app, p, id.text()).await,
        Read::ListWebhooks => api::webhooks::list(app, p, req).await,
        Read::GetWebhook(id) => api::webhooks::get(app, p, id).await,
        Read::ListDeliveries(id) => api::webhooks::deliveries(app, p, req, id).await,
        Read::ListTemplates => templates(app, p, req, Op::List, &Map::new()).await,
        Read::GetTemplate(id) => templates(app, p, req, Op::Get(id), &Map::new()).await,
    }
}

/// A write, run once per `Idempotency-Key` when the request carries one. Everything it
/// answers, a body that cannot be read (413, 422) included, is its answer, kept under
/// the key like any other (extensions.md 3 keeps all but 409, 429 and 5xx).
async fn write(app: &App, p: &Principal, mut req: Request, w: Write) -> ApiResult<Response> {
    let op = w.op();
    auth::authorize(p, op.scopes)?;
    let key = req.headers().get(HEADER).ok().flatten();
    let bytes = match op.body {
        Body::Json => req.bytes().await?,
        Body::Ignored => Vec::new(),
    };
    let body = match op.body {
        Body::Json => object_of(&bytes),
        Body::Ignored => Ok(Map::new()),
    };
    let path = req.path();
    let target = key.map(|key| target(app, &req, key, &bytes, &body, op.answer));
    let run = async {
        let body = body?;
        match w {
            Write::CreateCard => api::cards::create(app, p, &body).await,
            Write::UpdateCard(id) | Write::PatchCard(id) => {
                api::cards::update(app, p, &body, id).await
            }
            Write::UpsertCard => api::cards::upsert(app, p, &body, &path).await,
            Write::DeleteCard(id) => api::cards::delete(app, p, id).await,
            Write::DeleteLead(id) => api::leads::delete(app, p, id).await,
            Write::EraseLeads => api::leads::erase(app, p, &body).await,
            Write::CreateWebhook => api::webhooks::create(app, p, &body).await,
            Write::UpdateWebhook(id) => api::webhooks::update(app, p, &body, id).await,
            Write::DeleteWebhook(id) => api::webhooks::delete(app, p, id).await,
            Write::RotateWebhookSecret(id) => api::webhooks::rotate(app, p, id).await,
            Write::Redeliver(id, event) => api::webhooks::redeliver(app, p, id, event.text()).await,
            Write::CreateTemplate => templates(app, p, &req, Op::Create, &body).await,
            Write::UpdateTemplate(id) => templates(app, p, &req, Op::Update(id), &body).await,
            Write::DeleteTemplate(id) => templates(app, p, &req, Op::Delete(id), &body).await,
        }
    };
    match target {
        None => run.await,
        // Boxed: one copy of `once` serves the API's writes and SCIM's (~2 KiB of upload).
        Some(target) => api::idempotency::once(app, p, target, Box::pin(run)).await,
    }
}

/// The key a write is kept under (extensions.md 3): its request, and the body it sent
/// (or the bytes that did not read as one).
fn target(
    app: &App,
    req: &Request,
    key: String,
    bytes: &[u8],
    body: &ApiResult<Map<String, Value>>,
    answer: Answer,
) -> Target {
    let sent = match body {
        Ok(object) => Sent::Object(object),
        Err(_) => Sent::Unreadable(bytes),
    };
    Target {
        method: method(req),
        path: req.path(),
        key,
        digest: fingerprint(app.config.token_pepper.as_bytes(), sent),
        holds_secret: answer == Answer::Secret,
    }
}

/// A SCIM operation. Its writes run once per `Idempotency-Key` as the API's do; what is
/// kept is the SCIM answer (errors in SCIM's shape).
async fn scim(
    app: &App,
    p: &Principal,
    mut req: Request,
    op: api::scim::Op,
) -> ApiResult<Response> {
    auth::authorize(p, api::scim::SCOPES)?;
    let bytes = match op.reads_body() {
        true => req.bytes().await?,
        false => Vec::new(),
    };
    let body = match op.reads_body() {
        true => object_of(&bytes),
        false => Ok(Map::new()),
    };
    let key = match op.writes() {
        true => req.headers().get(HEADER).ok().flatten(),
        false => None,
    };
    let target = key.map(|key| target(app, &req, key, &bytes, &body, Answer::Plain));
    let run = async {
        let answer = match body {
            Ok(body) => api::scim::handle(app, p, &req, op, &body).await,
            Err(e) => Err(e),
        };
        Ok(answer.unwrap_or_else(ApiError::into_scim_response))
    };
    match target {
        None => run.await,
        // Boxed: one copy of `once` serves the API's writes and SCIM's (~2 KiB of upload).
        Some(target) => api::idempotency::once(app, p, target, Box::pin(run)).await,
    }
}
