//! Card changes (spec 4.2-4.5), for createCard, updateCard, patchCard, deleteCard, the
//! external-id upsert and SCIM alike: the plan's coercions, the slug in the directory, the
//! card limit, the event and its webhooks. Also a card's email signature, which the API and
//! the account area's copy button both answer.

use futures_util::future::join;

use crate::db::{Directory, Shard, Start};
use crate::domain::card::{Card, CardInput, CardPatch};
use crate::domain::config::SlugsFault;
use crate::domain::input::Field;
use crate::domain::plan::Features;
use crate::domain::principal::Principal;
use crate::domain::signature::signature;
use crate::domain::slug::{base_slug, root_of};
use crate::domain::template::{self, template_ref};
use crate::durable::names::client::{self as names, Keys, Op, State};
use crate::http::error::{ApiError, ApiResult};
use crate::http::response::ok;
use crate::http::{App, Held};
use crate::store::accounts;
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
///
/// Nothing on the way leaves the account's region (regions.md 6): the slug comes from its
/// name's object (near its writers), the card's id from the shard. The routing row goes to
/// the directory after the answer; until it is there, a page finds the card through the
/// name's object ([`find_named`]).
pub async fn make(
    app: &App,
    p: &Principal,
    mut input: CardInput,
    kept: &[&str],
) -> ApiResult<Card> {
    // A template sets no name (`domain::template::FIELDS`), so the slug is reserved while
    // the template is read: the two round trips overlap.
    let base = base_slug(input.first_name(), input.last_name());
    let held = app.held.borrow_mut().take();
    let reserve = async {
        match held {
            // Reserved while the gate was asked (`router::admission`).
            Some(h) if h.account == p.account_id && h.base == base => Ok(Some(h.slug)),
            other => {
                if let Some(h) = other {
                    release(app, &h.slug, h.account).await;
                }
                let reserved = names::ask(&app.env, keys(app), Op::Reserve, &base, p.account_id);
                Ok(reserved
                    .await?
                    .map(|(rest, _)| format!("{}{rest}", root_of(&base).0)))
            }
        }
    };
    // Only a create without a `template_id` key takes the account's default template, and
    // it reads none: its insert is refused while the account has a default template, and
    // only then is the template read and the insert made again. An account without one
    // pays no round trip for it (regions.md 6).
    let by_default = matches!(input.fields().template_id, Field::Absent);
    let read = async {
        if by_default {
            Ok(())
        } else {
            templated(app, p, input.fields_mut(), None, kept).await
        }
    };
    let (reserved, read) = join(reserve, read).await;
    let reserved: worker::Result<Option<String>> = reserved;
    let slug =
        reserved?.ok_or_else(|| ApiError::Internal("the name's object reserved no slug".into()))?;
    if app.config.slugs_fault == Some(SlugsFault::AfterReserve) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-reserve".into()));
    }
    if let Err(e) = read {
        release(app, &slug, p.account_id).await;
        return Err(e);
    }
    let mut undefaulted = by_default;
    let made = loop {
        input.apply_plan(p.features);
        let db = app.db()?;
        let made = cards::create(
            &db,
            p.account_id,
            &input,
            &slug,
            p.card_limit,
            undefaulted,
            app.now_ms,
        )
        .await;
        let (made, sent) = match made {
            Ok(made) => made,
            Err(e) => {
                // Refused by the shard (a move's fence, an external id taken): the name
                // is free again.
                release(app, &slug, p.account_id).await;
                return Err(e.into());
            }
        };
        outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
        match made {
            Created::Card(card) => break card,
            // The account has a default template, or is at its limit: which, the template
            // read says.
            Created::LimitReached if undefaulted => {
                undefaulted = false;
                let read = templated(app, p, input.fields_mut(), None, kept).await;
                if read.is_ok() && input.fields().template.is_some() {
                    continue;
                }
                if let Err(e) = read {
                    release(app, &slug, p.account_id).await;
                    return Err(e);
                }
            }
            Created::LimitReached => {}
        }
        release(app, &slug, p.account_id).await;
        return Err(ApiError::CardLimit);
    };
    if app.config.slugs_fault == Some(SlugsFault::AfterCreate) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-create".into()));
    }
    after_answer(
        app,
        p.account_id,
        made.id,
        Some((p.place.shard.clone(), slug)),
    );
    let applied = input.fields().template.as_ref().map(|t| (t.id, t.rev));
    behind(app, p, applied).await?;
    Ok(made.effective(p.features))
}

/// What a card write leaves to do after its answer (regions.md 6): the slug's routing row
/// in the directory, written or removed, and for a made card its slug made live in its
/// name's object. Either may be lost with the isolate: a page finds a made card through
/// the object all the same ([`find_named`], which writes them again), and a create that
/// meets the slug still pending asks the shard; a row left by a deleted card leads to no
/// card and gives way to the slug's next card.
fn after_answer(app: &App, account: i64, card_id: i64, made: Option<(String, String)>) {
    let (env, now) = (app.env.clone(), app.now_ms);
    let (pepper, settle_ms) = (app.config.token_pepper.clone(), app.config.slug_settle_ms);
    app.ctx.wait_until(async move {
        let dir = match Directory::primary(&env) {
            Ok(dir) => dir,
            Err(e) => return worker::console_error!("card {card_id}: no directory: {e}"),
        };
        let Some((shard, slug)) = made else {
            if let Err(e) = slugs::release(&dir, card_id, account).await {
                worker::console_error!("card {card_id}: removing its routing row failed: {e}");
            }
            return;
        };
        let keys = Keys {
            pepper: &pepper,
            settle_ms,
        };
        // Each on its own: a failed mark does not keep the routing row from being written.
        if let Err(e) = names::ask(&env, keys, Op::Live, &slug, account).await {
            worker::console_error!("card {card_id}: marking its slug live failed: {e}");
        }
        let key = slugs::route_key(&pepper, &slug);
        if let Err(e) = slugs::route(&dir, &key, card_id, account, &shard, now).await {
            worker::console_error!("card {card_id}: writing its routing row failed: {e}");
        }
    });
}

/// While the gate is asked about a create (`router::admission`), the slug of the name its
/// body gives, reserved for the account this isolate last saw the token act for: the
/// reservation costs the create no time of its own (regions.md 6). The create takes it if
/// it is for its account and name; [`give_back`] releases it if not.
pub async fn hold(app: &App, account: i64, req: &worker::Request) {
    let Ok(mut copy) = req.clone() else {
        return;
    };
    let Ok(body) = crate::http::body::json_object(&mut copy).await else {
        return;
    };
    let name = |k: &str| body.get(k).and_then(|v| v.as_str()).unwrap_or_default();
    let base = base_slug(name("first_name"), name("last_name"));
    if let Ok(Some((rest, _))) = names::ask(&app.env, keys(app), Op::Reserve, &base, account).await
    {
        let slug = format!("{}{rest}", root_of(&base).0);
        *app.held.borrow_mut() = Some(Held {
            account,
            base,
            slug,
        });
    }
}

/// A slug held for a create that did not take it (refused, invalid, answered from its
/// idempotency key) is free again.
pub async fn give_back(app: &App) {
    let held = app.held.borrow_mut().take();
    if let Some(h) = held {
        release(app, &h.slug, h.account).await;
    }
}

/// A reserved slug whose card was not made is free again. If this fails, the slug stays
/// pending until a create of the name finds its card missing.
async fn release(app: &App, slug: &str, account: i64) {
    let _ = names::ask(&app.env, keys(app), Op::Release, slug, account).await;
}

/// What every call to a name's object carries.
pub fn keys(app: &App) -> Keys<'_> {
    Keys {
        pepper: &app.config.token_pepper,
        settle_ms: app.config.slug_settle_ms,
    }
}

/// Where the card of a slug that has no routing row yet is (regions.md 6): its name's
/// object names the account, the account's shard has the card. The row is written then.
pub async fn find_named(app: &App, slug: &str) -> ApiResult<Option<slugs::Found>> {
    let Some((_, entry)) = names::ask(&app.env, keys(app), Op::Find, slug, 0).await? else {
        return Ok(None);
    };
    if entry.state == State::Retired {
        return Ok(None);
    }
    let Some(account) = accounts::get(&*app.directory()?, entry.account).await? else {
        return Ok(None);
    };
    let Some(place) = account.placement else {
        return Ok(None);
    };
    // At the primary: a replica may not have the card yet.
    app.start_reads(Start::Primary);
    app.place(&place.shard)?;
    let Some(card) = cards::named(&*app.db()?, entry.account, None, Some(slug)).await? else {
        return Ok(None);
    };
    after_answer(
        app,
        entry.account,
        card.id,
        Some((place.shard.clone(), slug.to_string())),
    );
    Ok(Some(slugs::Found {
        card_id: card.id,
        account_id: entry.account,
        shard: place.shard,
        data_region: place.data_region,
    }))
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
    // A patch that names no template reads none: its update lands only on a card that
    // uses no template (`store::cards::update_sql`). Refused, the card's template is read
    // and the patch written again with it; a card that has none was not there (or changed,
    // with `unchanged`). An untemplated card pays no round trip for templates.
    let read = !matches!(patch.template_id, Field::Absent);
    if read {
        templated(app, p, &mut patch, Some(id), kept).await?;
    }
    let db = app.db()?;
    let mut card = update_once(app, p, &db, id, &patch, unchanged).await?;
    if card.is_none() && !read {
        templated(app, p, &mut patch, Some(id), kept).await?;
        if patch.template.is_some() {
            card = update_once(app, p, &db, id, &patch, unchanged).await?;
        }
    }
    if card.is_some() {
        behind(app, p, patch.template.as_ref().map(|t| (t.id, t.rev))).await?;
    }
    Ok(card.map(|c| c.effective(p.features)))
}

/// One update of the card with the plan's coercions applied to a copy of the patch (a
/// write made again after its template is read checks locks against the body as sent).
async fn update_once(
    app: &App,
    p: &Principal,
    db: &Shard,
    id: i64,
    patch: &CardPatch,
    unchanged: Option<i64>,
) -> ApiResult<Option<Card>> {
    let mut write = patch.clone();
    write.apply_plan(p.features);
    let (card, sent) = cards::update(db, p.account_id, id, &write, unchanged, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    Ok(card)
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
    let db = app.db()?;
    let Some(card) = cards::named(&db, p.account_id, Some(id), None).await? else {
        return Err(ApiError::NotFound);
    };
    // `deleting` while the card goes: a crash in between is settled when a create of the
    // name meets it.
    names::ask(&app.env, keys(app), Op::Deleting, &card.slug, p.account_id).await?;
    let (deleted, sent) = cards::delete(&db, p.account_id, id, app.now_ms).await?;
    if app.config.slugs_fault == Some(SlugsFault::AfterDelete) {
        return Err(ApiError::Internal("SLUGS_FAULT=after-delete".into()));
    }
    // Printed cards and QR codes carry it: retired, not freed (regions.md 1). A delete
    // that lost a race to another is retired all the same: the card is gone.
    names::ask(&app.env, keys(app), Op::Retire, &card.slug, p.account_id).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    after_answer(app, p.account_id, id, None);
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
