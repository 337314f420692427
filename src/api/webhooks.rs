//! Webhook subscriptions and their deliveries (extensions.md 4). Scope `webhooks:write`.

use serde::Serialize;
use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::event::EventType;
use crate::domain::input::Mode;
use crate::domain::principal::Principal;
use crate::domain::webhook::{
    format_secret, redeliver_retry_after, sealing_key, unreadable, Delivery, DeliveryView,
    EventFilter, Webhook, WebhookInput, WebhookView,
};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query};
use crate::http::response::{created, json_response, ok, Data, Paged};
use crate::http::App;
use crate::store::outbox::{self, Outbox};
use crate::store::sealed;
use crate::store::webhooks::{self, Owner, Redelivery};

#[derive(Serialize)]
struct One<'a, T> {
    data: T,
    message: &'a str,
}

/// A fresh `whsec_` secret and its sealed form for storage.
async fn new_secret(app: &App) -> ApiResult<(String, String)> {
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    let secret = format_secret(&random);
    let sealed = sealed::seal(&sealing_key(&app.config.token_pepper), &secret).await?;
    Ok((secret, sealed))
}

fn answer(status: u16, hook: &Webhook, secret: Option<&str>, message: &str) -> Response {
    json_response(
        status,
        &One {
            data: hook.view(secret),
            message,
        },
    )
}

/// The token that creates or changes a webhook becomes answerable for it.
fn owner(p: &Principal) -> Owner {
    Owner {
        account_id: p.account_id,
        token_id: p.token_id,
    }
}

/// A webhook carries only events the token setting it up may read (extensions.md 1's
/// rule for the feed): `webhooks:write` alone reads nothing.
fn may_carry(p: &Principal, events: &EventFilter) -> ApiResult<()> {
    match unreadable(events, &p.scopes) {
        Some(t) => Err(ApiError::UnreadableEvents(t)),
        None => Ok(()),
    }
}

pub async fn create(app: &App, p: &Principal, body: &Map<String, Value>) -> ApiResult<Response> {
    let input = WebhookInput::parse(body, Mode::Create, app.config.webhooks_allow_private)?;
    if let Some(events) = &input.events {
        may_carry(p, events)?;
    }
    let (secret, sealed) = new_secret(app).await?;
    let hook = webhooks::create(
        &*app.db()?,
        owner(p),
        &input,
        &sealed,
        &app.base_url,
        app.now_ms,
    )
    .await?
    .ok_or(ApiError::WebhookLimit)?;
    let body = One {
        data: hook.view(Some(&secret)),
        message: "Webhook created successfully.",
    };
    Ok(created(&format!("/api/v1/webhooks/{}", hook.id), &body))
}

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let page = params::page(&query(req));
    let (hooks, total) = webhooks::list(&*app.db()?, p.account_id, page).await?;
    ok(&Paged {
        data: hooks
            .iter()
            .map(|h| h.view(None))
            .collect::<Vec<WebhookView>>(),
        meta: page.meta(total),
    })
}

pub async fn get(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let hook = webhooks::get(&*app.db()?, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    ok(&Data {
        data: hook.view(None),
    })
}

pub async fn update(
    app: &App,
    p: &Principal,
    body: &Map<String, Value>,
    id: i64,
) -> ApiResult<Response> {
    let input = WebhookInput::parse(body, Mode::Update, app.config.webhooks_allow_private)?;
    let db = app.db()?;
    // Whatever it changes, the token must be able to read what the webhook carries after
    // the change: otherwise re-pointing the url would hand it events it may not read.
    let current = webhooks::get(&db, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    may_carry(p, input.events.as_ref().unwrap_or(&current.events))?;
    let hook = webhooks::update(&db, owner(p), id, &input, app.now_ms)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(answer(200, &hook, None, "Webhook updated successfully."))
}

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    if !webhooks::delete(&*app.db()?, p.account_id, id).await? {
        return Err(ApiError::NotFound);
    }
    ok(&serde_json::json!({"message": "Webhook deleted successfully."}))
}

pub async fn rotate(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (secret, sealed) = new_secret(app).await?;
    let hook = webhooks::rotate(&*app.db()?, p.account_id, id, &sealed, app.now_ms)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(answer(
        200,
        &hook,
        Some(&secret),
        "Webhook secret rotated successfully. The previous secret keeps signing for 24 hours.",
    ))
}

pub async fn deliveries(app: &App, p: &Principal, req: &Request, id: i64) -> ApiResult<Response> {
    let page = params::page(&query(req));
    let (found, total) = webhooks::deliveries(&*app.db()?, p.account_id, id, page)
        .await?
        .ok_or(ApiError::NotFound)?;
    ok(&Paged {
        data: found
            .iter()
            .map(Delivery::view)
            .collect::<Vec<DeliveryView>>(),
        meta: page.meta(total),
    })
}

pub async fn redeliver(app: &App, p: &Principal, id: i64, event_id: String) -> ApiResult<Response> {
    let readable = EventType::readable(&p.scopes);
    let scheduled = webhooks::redeliver(
        &*app.db()?,
        p.account_id,
        id,
        &event_id,
        &readable,
        app.now_ms,
    )
    .await?;
    let delivery = match scheduled {
        Redelivery::Scheduled(d) => d,
        // An event the token may not read is, to it, no event (as getEvent answers).
        Redelivery::NoWebhook | Redelivery::NoEvent => return Err(ApiError::NotFound),
        Redelivery::NotSubscribed(kind) => {
            return Err(ApiError::validation(
                "event_id",
                format!("The webhook does not subscribe to {kind} events; only events its events list matches are redelivered."),
            ))
        }
        Redelivery::Disabled => return Err(ApiError::WebhookDisabled),
        Redelivery::Limited { oldest } => {
            return Err(ApiError::RedeliverLimit {
                retry_after: redeliver_retry_after(oldest, app.now_ms),
            })
        }
    };
    outbox::dispatch(
        &app.env,
        &app.ctx,
        Outbox(vec![delivery.id]),
        app.config.webhooks_fault,
    );
    Ok(json_response(
        202,
        &One {
            data: delivery.view(),
            message: "Redelivery scheduled.",
        },
    ))
}
