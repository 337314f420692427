//! Lead changes: a card page's lead form capturing one (product.md 4), and erasure
//! (extensions.md 8) from the API and the account area alike: the event, the webhooks,
//! every copy of the personal data, and the security log's entry.

use crate::domain::lead::{Lead, LeadInput};
use crate::domain::security::By;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::erasure::{self, LeadSet};
use crate::store::{leads, outbox};

/// Stores a lead the card's form took, with its `lead.created` event and webhooks; the
/// account's shard is the request's.
pub async fn capture(
    app: &App,
    account_id: i64,
    card_id: i64,
    input: &LeadInput,
    source: &str,
) -> ApiResult<Lead> {
    let (lead, sent) =
        leads::create(&*app.db()?, account_id, card_id, input, source, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    lead.ok_or_else(|| ApiError::Internal("lead insert returned no row".into()))
}

/// Erases leads of the account and every copy of their personal data, each with its
/// `lead.deleted` event and webhooks; how many.
pub async fn erase(app: &App, account_id: i64, set: LeadSet<'_>, by: &By) -> ApiResult<usize> {
    let (erased, sent) = erasure::erase(&*app.db()?, account_id, set, app.now_ms, Some(by)).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    Ok(erased)
}
