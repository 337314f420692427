//! Card operations (spec 4.2 - 4.5). Every card answered is shown as the account's current
//! features allow (extensions.md 5).

use serde::Serialize;
use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::card::{Card, CardInput, CardPatch, CardView};
use crate::domain::config::SlugsFault;
use crate::domain::principal::Principal;
use crate::domain::slug::base_slug;
use crate::domain::validation::Rule;
use crate::domain::weburl::percent_decode;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query, updated_since};
use crate::http::response::{card_with_leads_text, created, json_response, ok, paged_text};
use crate::http::App;
use crate::store::cards::{self, CardFilter, Created};
use crate::store::outbox;
use crate::store::slugs;
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
    let card = make(app, p, CardInput::parse(body)?).await?;
    let location = format!("/api/v1/cards/{}", card.id);
    let body = one_body(app, &card, "Card created successfully.");
    Ok(created(&location, &body))
}

/// Makes a card as createCard does (the SCIM service too): the plan's coercions, the slug,
/// the limit, the event and its webhooks. The card as the account's features show it.
pub async fn make(app: &App, p: &Principal, mut input: CardInput) -> ApiResult<Card> {
    input.apply_plan(p.features);
    let (first, last) = (input.first_name(), input.last_name());
    // The slug (and the card's id) from the directory first; see store::slugs for how a
    // crash between the two databases is settled.
    let dir = app.directory()?;
    let reserved = slugs::reserve(
        &dir,
        &base_slug(first, last),
        p.account_id,
        &p.place.shard,
        app.now_ms,
    )
    .await?
    .ok_or_else(|| ApiError::Internal("slug reservation returned no row".into()))?;
    if app.config.slugs_fault == Some(SlugsFault::AfterReserve) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-reserve".into()));
    }
    let made = cards::create(
        &*app.db()?,
        p.account_id,
        &input,
        &reserved,
        &format!("{first} {last}"),
        p.card_limit,
        app.now_ms,
    )
    .await;
    let (made, sent) = match made {
        Ok(made) => made,
        Err(e) => {
            // Refused by the shard (a move's fence, an external id taken): the name is
            // free again.
            let _ = slugs::release(&dir, reserved.card_id, p.account_id).await;
            return Err(e.into());
        }
    };
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    // A made card's slug stays pending until the sweeper sees the card (store::slugs).
    match made {
        Created::Card(card) => Ok(card.effective(p.features)),
        Created::LimitReached => {
            slugs::release(&dir, reserved.card_id, p.account_id).await?;
            Err(ApiError::CardLimit)
        }
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
    let card = change(app, p, id, CardPatch::parse(body)?, None).await?;
    let card = card.ok_or(ApiError::NotFound)?;
    Ok(one(app, &card, "Card updated successfully."))
}

/// Changes a card as patchCard does (the SCIM service too): the plan's coercions, the
/// event and its webhooks. `None` when the account has no such card, or (with `unchanged`)
/// when its `updated_at` is no longer that: another change came first.
pub async fn change(
    app: &App,
    p: &Principal,
    id: i64,
    mut patch: CardPatch,
    unchanged: Option<i64>,
) -> ApiResult<Option<Card>> {
    patch.apply_plan(p.features);
    let db = app.db()?;
    let (card, sent) = cards::update(&db, p.account_id, id, &patch, unchanged, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    Ok(card.map(|c| c.effective(p.features)))
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

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    remove(app, p, id).await?;
    ok(&serde_json::json!({"message": "Card deleted successfully."}))
}

/// Deletes a card as deleteCard does (the SCIM service too): its leads, its slug, the
/// event and its webhooks; 404 when the account has no such card.
pub async fn remove(app: &App, p: &Principal, id: i64) -> ApiResult<()> {
    // Pending while the card goes: a crash in between is settled by the sweeper.
    let dir = app.directory()?;
    slugs::unsettle(&dir, id, p.account_id, app.now_ms).await?;
    let (deleted, sent) = cards::delete(&*app.db()?, p.account_id, id, app.now_ms).await?;
    if app.config.slugs_fault == Some(SlugsFault::AfterDelete) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-delete".into()));
    }
    if deleted {
        slugs::release(&dir, id, p.account_id).await?;
    }
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if !deleted {
        return Err(ApiError::NotFound);
    }
    Ok(())
}
