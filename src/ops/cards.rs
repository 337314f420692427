//! Card changes (spec 4.2-4.5), for createCard, updateCard, patchCard, deleteCard, the
//! external-id upsert and SCIM alike: the plan's coercions, the slug in the directory, the
//! card limit, the event and its webhooks. Also a card's email signature, which the API and
//! the account area's copy button both answer.

use crate::domain::card::{Card, CardInput, CardPatch};
use crate::domain::config::SlugsFault;
use crate::domain::input::Field;
use crate::domain::plan::Features;
use crate::domain::principal::Principal;
use crate::domain::signature::signature;
use crate::domain::slug::base_slug;
use crate::domain::template::{self, template_ref};
use crate::http::error::{ApiError, ApiResult};
use crate::http::response::ok;
use crate::http::App;
use crate::store::cards::{self, Created};
use crate::store::outbox;
use crate::store::slugs;
use crate::store::templates;
use worker::Response;

/// The company template of a card write (teams.md 1), every door alike: a locked field
/// written with another value is refused (422 on the field; SCIM's `mutability`), the
/// locked values are written, the unlocked ones fill what the card leaves empty when it
/// starts using the template. The template is the one the write names (`tpl_{id}` of the
/// account: another value is a layout name, extensions.md 7), else the card's own
/// (`card`: an update), else, for a create without a `template_id` key, the account's
/// default. `kept`: fields a SCIM User leaves out, which keep the locked value.
async fn templated(
    app: &App,
    p: &Principal,
    patch: &mut CardPatch,
    card: Option<i64>,
    kept: &[&str],
) -> ApiResult<()> {
    let by_id = match &patch.template_id {
        Field::Set(t) => match template_ref(Some(t)) {
            Some(id) => Some(id),
            None => return Ok(()),
        },
        Field::Null => return Ok(()),
        Field::Absent => None,
    };
    let found = templates::for_write(&*app.db()?, p.account_id, by_id, card).await?;
    let Some(t) = found else {
        return Ok(());
    };
    if card.is_none() {
        patch.template_id = Field::Set(format!("tpl_{}", t.id));
    }
    let stored = (t.id, t.fields.as_str(), t.locked.as_str(), t.rev);
    Ok(template::apply(patch, stored, kept, card.is_none())?)
}

/// Makes a card: its template, the plan's coercions, the slug, the limit, the event and
/// its webhooks. The card as the account's features show it.
pub async fn make(
    app: &App,
    p: &Principal,
    mut input: CardInput,
    kept: &[&str],
) -> ApiResult<Card> {
    templated(app, p, input.fields_mut(), None, kept).await?;
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
    let applied = input.fields().template.as_ref().map(|t| (t.id, t.rev));
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
        Created::Card(card) => {
            behind(app, p, applied).await?;
            Ok(card.effective(p.features))
        }
        Created::LimitReached => {
            slugs::release(&dir, reserved.card_id, p.account_id).await?;
            Err(ApiError::CardLimit)
        }
    }
}

/// Changes a card: its template, the plan's coercions, the event and its webhooks. `None`
/// when the account has no such card, or (with `unchanged`) when its `updated_at` is no
/// longer that: another change came first.
pub async fn change(
    app: &App,
    p: &Principal,
    id: i64,
    mut patch: CardPatch,
    unchanged: Option<i64>,
    kept: &[&str],
) -> ApiResult<Option<Card>> {
    templated(app, p, &mut patch, Some(id), kept).await?;
    patch.apply_plan(p.features);
    let db = app.db()?;
    let (card, sent) = cards::update(&db, p.account_id, id, &patch, unchanged, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if card.is_some() {
        behind(app, p, patch.template.as_ref().map(|t| (t.id, t.rev))).await?;
    }
    Ok(card.map(|c| c.effective(p.features)))
}

/// A write that applied a template rev the template has left meanwhile (its change landed
/// between the write's read and its commit) wakes the template's syncer, which brings the
/// card in line: the card still ends with the locked values.
async fn behind(app: &App, p: &Principal, applied: Option<(i64, i64)>) -> ApiResult<()> {
    let Some((id, rev)) = applied else {
        return Ok(());
    };
    let now = templates::stored(&*app.db()?, p.account_id, id).await?;
    if now.is_some_and(|t| t.rev != rev) {
        crate::ops::templates::sync(app, p, id).await;
    }
    Ok(())
}

/// Deletes a card: its leads, the event and its webhooks, and its slug retired; 404 when
/// the account has no such card.
pub async fn remove(app: &App, p: &Principal, id: i64) -> ApiResult<()> {
    // Pending while the card goes: a crash in between is settled by the sweeper.
    let dir = app.directory()?;
    slugs::unsettle(&dir, id, p.account_id, app.now_ms).await?;
    let (deleted, sent) = cards::delete(&*app.db()?, p.account_id, id, app.now_ms).await?;
    if app.config.slugs_fault == Some(SlugsFault::AfterDelete) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-delete".into()));
    }
    if deleted {
        // Printed cards and QR codes carry it: retired, not freed (regions.md 1).
        slugs::retire(&dir, id, p.account_id, app.now_ms).await?;
    }
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if !deleted {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// `{data: {html, text}}`: the account's card as an email signature (teams.md 2), shown as
/// the account's `features` allow; another account's card is 404.
pub async fn signature_of(
    app: &App,
    account_id: i64,
    features: Features,
    id: i64,
) -> ApiResult<Response> {
    // The page's read: a card that uses a company template is drawn in its layout.
    let (card, _) = cards::for_page(&*app.db()?, id, account_id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let s = signature(&card.effective(features), &app.base_url);
    ok(&serde_json::json!({"data": {"html": s.html, "text": s.text}}))
}
