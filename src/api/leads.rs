//! Lead operations (spec 4.6).

use worker::{Request, Response};

use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, path_id, query, updated_since};
use crate::http::response::{ok, Data, Paged};
use crate::http::App;
use crate::store::leads::{self, LeadFilter};

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let q = query(req);
    let page = params::page(&q);
    // A card_id that is no id matches no card: an empty list, as for another account's card.
    let card = q.get("card_id").map(|c| path_id(c.trim()).unwrap_or(-1));
    let filter = LeadFilter {
        card,
        since: updated_since(&q)?,
    };
    let (rows, total) = leads::list(&app.db()?, p.account_id, filter, page).await?;
    ok(&Paged {
        data: rows.iter().map(|l| l.view(None)).collect(),
        meta: page.meta(total),
    })
}

pub async fn get(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (lead, card) = leads::get(&app.db()?, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    ok(&Data {
        data: lead.view(Some(&card)),
    })
}
