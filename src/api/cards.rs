//! Card operations (spec 4.2 - 4.5), answered as the API answers; the changes are
//! `ops::cards`'. Every card answered is shown as the account's current features allow
//! (extensions.md 5).

use serde::Serialize;
use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::card::{Card, CardInput, CardPatch, CardView};
use crate::domain::principal::Principal;
use crate::domain::validation::Rule;
use crate::domain::weburl::percent_decode;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query, updated_since};
use crate::http::response::{card_with_leads_text, created, json_response, ok, paged_text};
use crate::http::App;
use crate::ops;
use crate::store::cards::{self, CardFilter};
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
    let filter = CardFilter {
        since: updated_since(&q)?,
        external_id: q.get("external_id").cloned(),
    };
    let view = card_args(&app.base_url, p.features);
    let (cards, total) = cards::list(&*app.db()?, p.account_id, &filter, page, view).await?;
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
    let card = ops::cards::make(app, p, CardInput::parse(body)?, &[]).await?;
    let location = format!("/api/v1/cards/{}", card.id);
    let body = one_body(app, &card, "Card created successfully.");
    Ok(created(&location, &body))
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
    let card = ops::cards::change(app, p, id, CardPatch::parse(body)?, None, &[]).await?;
    let card = card.ok_or(ApiError::NotFound)?;
    Ok(one(app, &card, "Card updated successfully."))
}

/// `PUT /cards/external/{external_id}` (provisioning.md 1): the card of that external id
/// changed as patchCard changes it, or made as createCard makes it. Of two upserts racing
/// to make one external id's card, the unique index lets one insert; the other's insert
/// fails whole (its slug released) and it updates the card the first made.
pub async fn upsert(
    app: &App,
    p: &Principal,
    body: &Map<String, Value>,
    path: &str,
) -> ApiResult<Response> {
    let external_id = path
        .rsplit('/')
        .find(|s| !s.is_empty())
        .map(percent_decode)
        .unwrap_or_default();
    // The path names the card: a body's own `external_id` is the path's. The body's rules
    // then trim it (as every text), so the card looked for is the trimmed id's; a path of
    // blanks is no id, and the write answers 422 on `external_id`.
    let mut body = body.clone();
    body.insert("external_id".into(), external_id.clone().into());
    let external_id = external_id.trim();
    // Twice at most: found (or made by a racing upsert) and updated, or gone meanwhile
    // (a racing delete) and made.
    for _ in 0..2 {
        let found = cards::id_by_external(&*app.db()?, p.account_id, external_id).await?;
        let result = match found {
            Some(id) => update(app, p, &body, id).await,
            None => create(app, p, &body).await,
        };
        match result {
            Err(ApiError::NotFound) if found.is_some() => continue,
            Err(ApiError::Validation(e))
                if found.is_none() && e.broke("external_id", Rule::Taken) =>
            {
                continue
            }
            other => return other,
        }
    }
    Err(ApiError::Contended)
}

/// The card as an email signature (teams.md 2).
pub async fn signature(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    ops::cards::signature_of(app, p.account_id, p.features, id).await
}

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    ops::cards::remove(app, p, id).await?;
    ok(&serde_json::json!({"message": "Card deleted successfully."}))
}
