//! Webhook changes (extensions.md 4) for `/api/v1` and the account area: a webhook carries
//! only events whoever sets it up may read (a token: its scopes; a member: everything), on
//! every change that reveals or changes what it carries; each change is logged.

use crate::domain::event::EventType;
use crate::domain::security::By;
use crate::domain::token::Scopes;
use crate::domain::webhook::{
    format_secret, redeliver_retry_after, sealing_key, unreadable, Delivery, EventFilter, Webhook,
    WebhookInput,
};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::outbox::{self, Outbox};
use crate::store::sealed;
use crate::store::webhooks::{self, Owner, Redelivery};

/// Who changes a webhook, and what they may read.
pub struct Who<'a> {
    pub owner: Owner,
    pub reads: Reads<'a>,
    pub by: By,
}

/// The events a webhook's maker may read (extensions.md 1's rule for the feed).
#[derive(Debug, Clone, Copy)]
pub enum Reads<'a> {
    /// A token's: `webhooks:write` alone reads nothing.
    Scopes(&'a Scopes),
    /// A member of the account in the account area.
    Everything,
}

impl Reads<'_> {
    fn may_carry(self, events: &EventFilter) -> ApiResult<()> {
        match self {
            Reads::Scopes(scopes) => match unreadable(events, scopes) {
                Some(t) => Err(ApiError::UnreadableEvents(t)),
                None => Ok(()),
            },
            Reads::Everything => Ok(()),
        }
    }

    fn readable(self) -> Vec<EventType> {
        match self {
            Reads::Scopes(scopes) => EventType::readable(scopes),
            Reads::Everything => EventType::ALL.to_vec(),
        }
    }
}

/// A fresh `whsec_` secret and its sealed form for storage.
async fn new_secret(app: &App) -> ApiResult<(String, String)> {
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    let secret = format_secret(&random);
    let sealed = sealed::seal(&sealing_key(&app.config.token_pepper), &secret).await?;
    Ok((secret, sealed))
}

/// A new webhook and its secret (shown only now); `WebhookLimit` at the account's limit.
pub async fn create(
    app: &App,
    who: &Who<'_>,
    input: &WebhookInput,
) -> ApiResult<(Webhook, String)> {
    if let Some(events) = &input.events {
        who.reads.may_carry(events)?;
    }
    let (secret, sealed) = new_secret(app).await?;
    let hook = webhooks::create(
        &*app.db()?,
        who.owner,
        input,
        &sealed,
        &app.base_url,
        app.now_ms,
        &who.by,
    )
    .await?
    .ok_or(ApiError::WebhookLimit)?;
    Ok((hook, secret))
}

/// Changes the fields given. Whatever it changes, whoever asks must be able to read what
/// the webhook carries after the change: otherwise re-pointing the url would hand them
/// events they may not read.
pub async fn update(app: &App, who: &Who<'_>, id: i64, input: &WebhookInput) -> ApiResult<Webhook> {
    let current = webhooks::get(&*app.db()?, who.owner.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    who.reads
        .may_carry(input.events.as_ref().unwrap_or(&current.events))?;
    webhooks::update(&*app.db()?, who.owner, id, input, app.now_ms)
        .await?
        .ok_or(ApiError::NotFound)
}

pub async fn delete(app: &App, who: &Who<'_>, id: i64) -> ApiResult<()> {
    let db = app.db()?;
    if !webhooks::delete(&db, who.owner.account_id, id, app.now_ms, &who.by).await? {
        return Err(ApiError::NotFound);
    }
    Ok(())
}

/// A new secret (shown only now); the previous one keeps signing for a day. The secret
/// signs every event the webhook carries, so only someone who may read them all gets it
/// (extensions.md 4: a `webhooks:write`-only token could otherwise sign forged lead
/// events to the owner's receiver).
pub async fn rotate(app: &App, who: &Who<'_>, id: i64) -> ApiResult<(Webhook, String)> {
    let current = webhooks::get(&*app.db()?, who.owner.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    who.reads.may_carry(&current.events)?;
    let (secret, sealed) = new_secret(app).await?;
    let hook = webhooks::rotate(
        &*app.db()?,
        who.owner.account_id,
        id,
        &sealed,
        app.now_ms,
        &who.by,
    )
    .await?
    .ok_or(ApiError::NotFound)?;
    Ok((hook, secret))
}

/// Schedules one more attempt of an event to a webhook (at most a few an hour).
pub async fn redeliver(app: &App, who: &Who<'_>, id: i64, event_id: &str) -> ApiResult<Delivery> {
    let scheduled = webhooks::redeliver(
        &*app.db()?,
        who.owner.account_id,
        id,
        event_id,
        &who.reads.readable(),
        app.now_ms,
    )
    .await?;
    let delivery = match scheduled {
        Redelivery::Scheduled(d) => d,
        // An event the reader may not read is, to them, no event (as getEvent answers).
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
    Ok(delivery)
}
