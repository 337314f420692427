//! Company templates (teams.md 1): the plan rule, and each change with its event and
//! webhooks.

use serde_json::{Map, Value};

use crate::domain::input::Mode;
use crate::domain::principal::Principal;
use crate::domain::template::TemplateInput;
use crate::domain::validation::FieldErrors;
use crate::durable::syncer::client as syncer;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::outbox;
use crate::store::templates;

/// Templates need the account's `white_label` feature besides API access (operator
/// overrides apply: the principal's features are the effective ones).
pub fn allowed(p: &Principal) -> ApiResult<()> {
    match p.features.white_label {
        true => Ok(()),
        false => Err(ApiError::Area {
            status: 403,
            message: "Company templates are not available on your current plan. Upgrade to \
                      the Business or Enterprise plan to use them.",
        }),
    }
}

/// Makes a template; its id.
pub async fn make(app: &App, p: &Principal, body: &Map<String, Value>) -> ApiResult<i64> {
    allowed(p)?;
    let input = TemplateInput::parse(body, Mode::Create, None)?;
    let (id, sent) = templates::create(&*app.db()?, p.account_id, &input, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    id.ok_or_else(|| {
        ApiError::Validation(FieldErrors::one(
            "name",
            "This account has as many templates as it may have (50).".into(),
        ))
    })
}

/// Changes the fields sent; 404 when the account has no such template.
pub async fn change(app: &App, p: &Principal, id: i64, body: &Map<String, Value>) -> ApiResult<()> {
    allowed(p)?;
    let db = app.db()?;
    let stored = templates::stored(&db, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let input = TemplateInput::parse(body, Mode::Update, Some((&stored.fields, &stored.locked)))?;
    let (found, sent) = templates::update(&db, p.account_id, id, &input, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if !found {
        return Err(ApiError::NotFound);
    }
    if input.layout.is_some() || input.values.is_some() || input.locked.is_some() {
        sync(app, p, id).await;
    }
    Ok(())
}

/// Brings the template's cards in line with its latest change, in the background (its
/// `Syncer`). A failed start is logged: the cards stay pending, as `pending` shows, until
/// the next write of the template or of one of them starts it again.
pub async fn sync(app: &App, p: &Principal, id: i64) {
    if let Err(e) = syncer::start(&app.env, &p.place.shard, p.account_id, id).await {
        worker::console_error!("template {id}: syncer did not start: {e}");
    }
}

/// Deletes a template (404 from then on); 404 when the account has no such template.
pub async fn remove(app: &App, p: &Principal, id: i64) -> ApiResult<()> {
    allowed(p)?;
    let (found, sent) = templates::delete(&*app.db()?, p.account_id, id, app.now_ms).await?;
    outbox::dispatch(&app.env, &app.ctx, sent, app.config.webhooks_fault);
    if !found {
        return Err(ApiError::NotFound);
    }
    // Its cards keep their values and leave it, each a card write (`store::templates::align`).
    sync(app, p, id).await;
    Ok(())
}
