//! Card operations (spec 4.2 - 4.5).

use serde::Serialize;
use worker::{Request, Response};

use crate::domain::card::{self, Card, CardRow, Mode};
use crate::domain::slug::base_slug;
use crate::http::auth::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query};
use crate::http::respond::{json_object, json_response, ok, Data, Paged};
use crate::http::App;
use crate::store::cards::{self, Created};

#[derive(Serialize)]
struct One<'a> {
    data: Card<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'static str>,
}

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let q = query(req);
    let page = params::page(&q);
    let (rows, total) = cards::list(&app.db()?, p.account_id, page).await?;
    ok(&Paged {
        data: rows.iter().map(|c| c.to_card(&app.base_url)).collect(),
        meta: page.meta(total),
    })
}

fn one(app: &App, status: u16, row: &CardRow, message: &'static str) -> Response {
    json_response(
        status,
        &One {
            data: row.to_card(&app.base_url),
            message: Some(message),
        },
    )
}

pub async fn create(app: &App, p: &Principal, mut req: Request) -> ApiResult<Response> {
    let body = json_object(&mut req).await?;
    let mut changes = card::validate(&body, Mode::Create)?;
    card::apply_plan(&mut changes, p.features, Mode::Create);
    let first = changes.text("first_name").unwrap_or_default().to_string();
    let last = changes.text("last_name").unwrap_or_default().to_string();
    let created = cards::create(
        &app.db()?,
        p.account_id,
        &changes,
        &base_slug(&first, &last),
        &format!("{first} {last}"),
        p.card_limit,
        app.now_ms,
    )
    .await?;
    match created {
        Created::Card(row) => Ok(one(app, 201, &row, "Card created successfully.")),
        Created::LimitReached => Err(ApiError::CardLimit),
    }
}

pub async fn get(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    let (row, leads) = cards::get_with_leads(&app.db()?, p.account_id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let mut card = row.to_card(&app.base_url);
    card.leads = Some(leads.iter().map(|l| l.to_lead(None)).collect());
    ok(&Data { data: card })
}

pub async fn update(app: &App, p: &Principal, mut req: Request, id: i64) -> ApiResult<Response> {
    let body = json_object(&mut req).await?;
    let mut changes = card::validate(&body, Mode::Update)?;
    card::apply_plan(&mut changes, p.features, Mode::Update);
    let row = cards::update(&app.db()?, p.account_id, id, &changes, app.now_ms)
        .await?
        .ok_or(ApiError::NotFound)?;
    Ok(one(app, 200, &row, "Card updated successfully."))
}

pub async fn delete(app: &App, p: &Principal, id: i64) -> ApiResult<Response> {
    if !cards::delete(&app.db()?, p.account_id, id).await? {
        return Err(ApiError::NotFound);
    }
    ok(&serde_json::json!({"message": "Card deleted successfully."}))
}
