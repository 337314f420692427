//! Analytics endpoints (spec 4.7).

use worker::{Request, Response};

use crate::domain::analytics::{period_days, ClicksDay, Day, ViewsDay, DEFAULT_PERIOD};
use crate::domain::principal::Principal;
use crate::domain::time::day_of;
use crate::domain::validation::{invalid_choice, must_be_integer};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{path_id, query};
use crate::http::response::{ok, Data};
use crate::http::App;
use crate::store::{analytics, cards};

struct Window {
    period: String,
    days: i64,
    card: Option<i64>,
}

/// `period` and `card_id`; a card of another account is a 422 like an unknown one.
async fn window(app: &App, p: &Principal, req: &Request) -> ApiResult<Window> {
    let q = query(req);
    let period = q
        .get("period")
        .map(String::as_str)
        .unwrap_or(DEFAULT_PERIOD);
    let days = period_days(period)
        .ok_or_else(|| ApiError::validation("period", invalid_choice("period")))?;
    let card = match q.get("card_id") {
        None => None,
        Some(raw) => {
            let id = path_id(raw.trim())
                .ok_or_else(|| ApiError::validation("card_id", must_be_integer("card_id")))?;
            if !cards::exists(&*app.db()?, p.account_id, id).await? {
                return Err(ApiError::validation("card_id", invalid_choice("card_id")));
            }
            Some(id)
        }
    };
    Ok(Window {
        period: period.to_string(),
        days,
        card,
    })
}

pub async fn views(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    serve::<ViewsDay>(app, p, req).await
}

pub async fn clicks(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    serve::<ClicksDay>(app, p, req).await
}

/// Both endpoints: the window's month documents of kind `D`, summed into its report.
async fn serve<D: Day>(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let w = window(app, p, req).await?;
    let today = day_of(app.now_ms);
    let started = js_sys::Date::now();
    let (account, card, period) = (p.account_id, w.card, &w.period);
    let data =
        analytics::report_of::<D>(&app.env, &app.ctx, account, card, period, today, w.days).await?;
    app.spent_kv(js_sys::Date::now() - started);
    ok(&Data { data })
}
