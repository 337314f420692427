//! Webhook subscriptions and their deliveries (extensions.md 4). Scope `webhooks:write`;
//! the changes are `ops::webhooks`', with the token's scopes as what it may read.

use serde::Serialize;
use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::input::Mode;
use crate::domain::principal::Principal;
use crate::domain::webhook::{Delivery, DeliveryView, Webhook, WebhookInput, WebhookView};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query};
use crate::http::response::{created, json_response, ok, Data, Paged};
use crate::http::App;
use crate::ops;
use crate::ops::webhooks::{Reads, Who};
use crate::store::webhooks::{self, Owner};

#[derive(Serialize)]
struct One<'a, T> {
    data: T,
    message: &'a str,
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

/// The token that creates or changes a webhook becomes answerable for it, and a webhook
/// carries only events the token may read.
fn who<'a>(app: &App, p: &'a Principal) -> Who<'a> {
    Who {
        owner: Owner {
            account_id: p.account_id,
            token_id: Some(p.token_id),
        },
        reads: Reads::Scopes(&p.scopes),
        by: ops::by_token(app, p),
    }
}

pub async fn create(app: &App, p: &Principal, body: &Map<String, Value>) -> ApiResult<Response> {
    let input = WebhookInput::parse(body, Mode::Create, app.config.webhooks_allow_private)?;
    let (hook, secret) = ops::webhooks::create(app, &who(app, p), &input).await?;
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
    let hook = ops::webhooks::update(app, &who(app, p), id, &input).await?;
    Ok(answer(200, &hook, None, "Webhook updated successfully."))
}

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    ops::webhooks::delete(app, &who(app, p), id).await?;
    ok(&serde_json::json!({"message": "Webhook deleted successfully."}))
}

pub async fn rotate(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (hook, secret) = ops::webhooks::rotate(app, &who(app, p), id).await?;
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
    let delivery = ops::webhooks::redeliver(app, &who(app, p), id, &event_id).await?;
    Ok(json_response(
        202,
        &One {
            data: delivery.view(),
            message: "Redelivery scheduled.",
        },
    ))
}
