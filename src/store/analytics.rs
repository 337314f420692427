//! Analytics storage: events go to the account's `AnalyticsAggregator` Durable Object
//! after the response; reports read the per-month counter documents from KV.

use sha2::{Digest, Sha256};
use worker::{Env, Method, Request};

use crate::domain::analytics::{country_key, kv_key, months, referrer_key, Kind};
use crate::domain::card::Card;
use crate::domain::time::day_of;
use crate::domain::token::hex;
use crate::domain::useragent::{device, is_bot};
use crate::domain::weburl::parse_http;
use crate::durable::analytics::Event;
use crate::http::App;

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// Bots, `HEAD` requests and browser prefetches are not visits.
fn countable(req: &Request) -> Option<String> {
    if crate::http::params::method(req) != "GET" {
        return None;
    }
    let prefetch = ["Sec-Purpose", "Purpose", "X-Purpose", "X-Moz"]
        .iter()
        .filter_map(|h| header(req, h))
        .any(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("prefetch") || v.contains("preview") || v.contains("prerender")
        });
    let ua = header(req, "User-Agent").unwrap_or_default();
    (!prefetch && !is_bot(&ua)).then_some(ua)
}

/// Salted hash of IP and User-Agent: stable per visitor, reveals neither.
fn visitor(app: &App, ip: &str, ua: &str) -> String {
    let salt = app.secret("VISITOR_SALT").unwrap_or_default();
    let digest = Sha256::new()
        .chain_update(salt.as_bytes())
        .chain_update([0])
        .chain_update(ip.as_bytes())
        .chain_update([0])
        .chain_update(ua.as_bytes())
        .finalize();
    hex(&digest[..16])
}

/// Records a view of the card's public page after the response (never delays it).
pub fn record_view(app: &App, card: &Card, req: &Request) {
    let Some(ua) = countable(req) else { return };
    let own_host = parse_http(&req.inner().url())
        .map(|u| u.host)
        .unwrap_or_default();
    let ip = header(req, "CF-Connecting-IP").unwrap_or_default();
    let event = Event::View {
        account: card.account_id,
        card: card.id,
        day: day_of(app.now_ms),
        visitor: visitor(app, &ip, &ua),
        device: device(&ua).as_str().to_string(),
        country: country_key(req.cf().and_then(|cf| cf.country()).as_deref()),
        referrer: referrer_key(header(req, "Referer").as_deref(), &own_host),
    };
    send(app, event);
}

/// Records a click of `kind` (`email`, `phone`, ..., `vcard`, `social_<platform>`).
pub fn record_click(app: &App, card: &Card, kind: &str, req: &Request) {
    if countable(req).is_none() {
        return;
    }
    send(
        app,
        Event::Click {
            account: card.account_id,
            card: card.id,
            day: day_of(app.now_ms),
            click_type: kind.to_string(),
        },
    );
}

fn send(app: &App, event: Event) {
    let env = app.env.clone();
    app.ctx.wait_until(async move {
        // One retry: a transient failure should not lose the count.
        for attempt in 0..2 {
            match deliver(&env, &event).await {
                Ok(()) => return,
                Err(e) => {
                    worker::console_error!("analytics event not delivered (attempt {attempt}): {e}")
                }
            }
        }
    });
}

async fn deliver(env: &Env, event: &Event) -> worker::Result<()> {
    let account = match event {
        Event::View { account, .. } | Event::Click { account, .. } => *account,
    };
    let stub = env
        .durable_object("ANALYTICS_AGGREGATOR")?
        .id_from_name(&account.to_string())?
        .get_stub()?;
    let mut init = worker::RequestInit::new();
    init.with_method(Method::Post).with_body(Some(
        serde_json::to_string(event)
            .map_err(|e| worker::Error::RustError(e.to_string()))?
            .into(),
    ));
    let resp = stub
        .fetch_with_request(Request::new_with_init("https://aggregator/event", &init)?)
        .await?;
    match resp.status_code() {
        204 => Ok(()),
        s => Err(worker::Error::RustError(format!("aggregator answered {s}"))),
    }
}

/// The month documents covering the window, as JSON text, in one bulk KV read.
pub async fn docs(
    app: &App,
    account: i64,
    card: Option<i64>,
    kind: Kind,
    today: i64,
    days: i64,
) -> worker::Result<Vec<String>> {
    let keys: Vec<String> = months(today, days)
        .iter()
        .map(|m| kv_key(account, card, kind, m))
        .collect();
    let found = app
        .env
        .kv("ANALYTICS")?
        .get_bulk(&keys)
        .text()
        .await
        .map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(found.into_values().flatten().collect())
}
