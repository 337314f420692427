//! Lead operations (spec 4.6).

use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::lead::erase_request;

use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, path_id, query, updated_since};
use crate::http::response::{ok, paged_text, Data};
use crate::http::App;
use crate::ops;
use crate::store::erasure::LeadSet;
use crate::store::leads::{self, LeadFilter};

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let q = query(req);
    let page = params::page(&q);
    // A card_id that is no id matches no card: an empty list, as for another account's card.
    let card = q.get("card_id").map(|c| path_id(c.trim()).unwrap_or(-1));
    let filter = LeadFilter {
        card,
        since: updated_since(&q)?,
        email: q
            .get("email")
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty()),
    };
    let (rows, total) = leads::list(&*app.db()?, p.account_id, &filter, page).await?;
    paged_text(&rows, page.meta(total))
}

pub async fn get(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (lead, card) = leads::get(&*app.db()?, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    ok(&Data {
        data: lead.view(Some(&card)),
    })
}

/// `DELETE /leads/{id}` (extensions.md 8): the lead and every copy of its personal data.
pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let by = ops::by_token(app, p);
    if ops::leads::erase(app, p.account_id, LeadSet::One(id), &by).await? == 0 {
        return Err(ApiError::NotFound);
    }
    ok(&serde_json::json!({"message": "Lead deleted successfully."}))
}

/// `POST /leads/erase {email}`: every lead of that address in the account, as above.
pub async fn erase(app: &App, p: &Principal, body: &Map<String, Value>) -> ApiResult<Response> {
    let email = erase_request(body)?;
    let by = ops::by_token(app, p);
    let erased = ops::leads::erase(app, p.account_id, LeadSet::Email(&email), &by).await?;
    ok(&serde_json::json!({
        "data": {"erased": erased},
        "message": "Leads erased successfully."
    }))
}
