//! Analytics endpoints (spec 4.7).

use worker::{Request, Response};

use crate::domain::analytics::{
    history_keep_from, history_months, history_with, period_days, report, summarizable, summarize,
    ClicksDay, CounterKey, Day, Month, ViewsDay, DEFAULT_PERIOD,
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
async fn serve<D: Day>(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let w = window(app, p, req).await?;
    let today = day_of(app.now_ms);
    let keys = CounterKey::for_window(p.account_id, w.card.into(), D::KIND, today, w.days);
    let started = js_sys::Date::now();
    let docs = month_docs(app, &keys, today, w.days).await?;
    app.spent_kv(js_sys::Date::now() - started);
    ok(&Data {
        data: report::<D>(&docs, today, &w.period, w.days),
    })
}

/// The texts a report over `days` sums, one per month that has one. Settled months wholly
/// inside the window come from the scope's history document (one key for all of them); a
/// month it lacks is read in full, used, summarized and added to the history after the
/// answer. The months at the window's edges are read in full. Not generic over the kind,
/// so its code is in the wasm once.
async fn month_docs(
    app: &App,
    keys: &[CounterKey],
    today: i64,
    days: i64,
) -> ApiResult<Vec<String>> {
    let plan = summarizable(today, days);
    // Every window has a month; the history is only read when one is settled.
    let scope_key = keys
        .first()
        .copied()
        .filter(|_| plan.iter().any(|(_, summary)| *summary));
    let mut wanted: Vec<String> = keys
        .iter()
        .zip(&plan)
        .filter(|(_, (_, summary))| !summary)
        .map(|(k, _)| k.to_string())
        .collect();
    if let Some(k) = scope_key {
        wanted.push(k.history_key());
    }
    let mut found = analytics::docs(&app.env, &wanted).await?;
    let history = if scope_key.is_some() {
        history_months(found.pop().flatten().as_deref())
    } else {
        Default::default()
    };
    let held = |month: &Month| {
        let month = month.to_string();
        history
            .iter()
            .find(|(m, _)| *m == month)
            .map(|(_, s)| s.clone())
    };
    let mut full = found.into_iter();
    let mut docs: Vec<Option<String>> = Vec::with_capacity(keys.len());
    let mut missing: Vec<usize> = Vec::new();
    for (i, (month, summary)) in plan.iter().enumerate() {
        if !summary {
            docs.push(full.next().flatten());
        } else if let Some(text) = held(month) {
            docs.push(Some(text));
        } else {
            missing.push(i);
            docs.push(None);
        }
    }
    if !missing.is_empty() {
        let full_keys: Vec<String> = missing.iter().map(|&i| keys[i].to_string()).collect();
        let texts = analytics::docs(&app.env, &full_keys).await?;
        let mut added = Vec::new();
        for (&i, text) in missing.iter().zip(texts) {
            if let Some(summary) = text.as_deref().and_then(summarize) {
                added.push((plan[i].0, summary));
            }
            docs[i] = text;
        }
        if let Some(key) = scope_key.filter(|_| !added.is_empty()) {
            let body = history_with(&history, &added, history_keep_from(today));
            let env = app.env.clone();
            app.ctx.wait_until(async move {
                if let Err(e) = analytics::put_history(&env, &key, &body).await {
                    worker::console_warn!("storing an analytics history failed: {e}");
                }
            });
        }
    }
    Ok(docs.into_iter().flatten().collect())
}
