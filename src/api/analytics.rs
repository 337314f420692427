//! Analytics endpoints (spec 4.7).

use worker::{Request, Response};

use crate::domain::analytics::{
    period_days, report, summarizable, summarize, ClicksDay, CounterKey, Day, ViewsDay,
    DEFAULT_PERIOD,
};
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
/// Settled months wholly inside the window are read from their summaries (a 365-day report
/// then reads ~1/4 of the bytes); a summary not written yet is made from its month's full
/// document, which this request reads instead, and stored after the answer.
async fn serve<D: Day>(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let w = window(app, p, req).await?;
    let today = day_of(app.now_ms);
    let keys = CounterKey::for_window(p.account_id, w.card.into(), D::KIND, today, w.days);
    let plan = summarizable(today, w.days);
    let wanted: Vec<String> = keys
        .iter()
        .zip(&plan)
        .map(|(k, (_, summary))| {
            if *summary {
                k.summary_key()
            } else {
                k.to_string()
            }
        })
        .collect();
    let started = js_sys::Date::now();
    let mut docs = analytics::docs(&app.env, &wanted).await?;
    let missing: Vec<usize> = (0..keys.len())
        .filter(|&i| plan[i].1 && docs[i].is_none())
        .collect();
    if !missing.is_empty() {
        let full_keys: Vec<String> = missing.iter().map(|&i| keys[i].to_string()).collect();
        let full = analytics::docs(&app.env, &full_keys).await?;
        for (&i, text) in missing.iter().zip(full) {
            if let Some(summary) = text.as_deref().and_then(summarize) {
                let (env, key) = (app.env.clone(), keys[i]);
                app.ctx.wait_until(async move {
                    if let Err(e) = analytics::put_summary(&env, &key, &summary).await {
                        worker::console_warn!("storing an analytics summary failed: {e}");
                    }
                });
            }
            docs[i] = text;
        }
    }
    app.spent_kv(js_sys::Date::now() - started);
    let docs: Vec<String> = docs.into_iter().flatten().collect();
    ok(&Data {
        data: report::<D>(&docs, today, &w.period, w.days),
    })
}
