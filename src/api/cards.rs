//! Card operations (spec 4.2 - 4.5). Every card answered is shown as the account's current
//! features allow (extensions.md 5).

use serde::Serialize;
use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::card::{Card, CardInput, CardPatch, CardView};
use crate::domain::principal::Principal;
use crate::domain::slug::base_slug;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query, updated_since};
use crate::http::response::{card_with_leads_text, created, json_response, ok, paged_text};
use crate::http::App;
use crate::store::cards::{self, Created};
use crate::store::outbox;
use crate::store::views::card_args;

#[derive(Serialize)]
struct One<'a> {
    data: CardView<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'static str>,
}

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let q = query(req);
    let page = params::page(&q);
    let since = updated_since(&q)?;
    let view = card_args(&app.base_url, p.features);
    let (cards, total) = cards::list(&*app.db()?, p.account_id, since, page, view).await?;
    paged_text(&cards, page.meta(total))
}

fn one(app: &App, card: &Card, message: &'static str) -> Response {
    json_response(200, &one_body(app, card, message))
}

fn one_body<'a>(app: &'a App, card: &'a Card, message: &'static str) -> One<'a> {
    One {
        data: card.view(&app.base_url),
        message: Some(message),
    }
}

pub async fn create(app: &App, p: &Principal, body: &Map<String, Value>) -> ApiResult<Response> {
    let mut input = CardInput::parse(body)?;
    input.apply_plan(p.features);
    let (first, last) = (input.first_name(), input.last_name());
    let (made, sent) = cards::create(
        &*app.db()?,
        p.account_id,
        &input,
        &base_slug(first, last),
        &format!("{first} {last}"),
        p.card_limit,
        app.now_ms,
    )
    .await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    match made {
        Created::Card(card) => {
            let card = card.effective(p.features);
            let location = format!("/api/v1/cards/{}", card.id);
            let body = one_body(app, &card, "Card created successfully.");
            Ok(created(&location, &body))
        }
        Created::LimitReached => Err(ApiError::CardLimit),
    }
}

pub async fn get(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let view = card_args(&app.base_url, p.features);
    let (card, leads) = cards::get_with_leads(&*app.db()?, p.account_id, id, view)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(card_with_leads_text(&card.json, &leads))
}

pub async fn update(
    app: &App,
    p: &Principal,
    body: &Map<String, Value>,
    id: i64,
) -> ApiResult<Response> {
    let mut patch = CardPatch::parse(body)?;
    patch.apply_plan(p.features);
    let (card, sent) = cards::update(&*app.db()?, p.account_id, id, &patch, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    let card = card.ok_or(ApiError::NotFound)?.effective(p.features);
    Ok(one(app, &card, "Card updated successfully."))
}

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (deleted, sent) = cards::delete(&*app.db()?, p.account_id, id, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if !deleted {
        return Err(ApiError::NotFound);
    }
    ok(&serde_json::json!({"message": "Card deleted successfully."}))
}
