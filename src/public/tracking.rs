//! Counting visits of the public pages: which requests count, the visitor hash, and the
//! hand-off of each event to the account's aggregator before the page answers.

use std::time::Duration;

use futures_util::future::{select, Either};
use sha2::{Digest, Sha256};
use worker::{Delay, Env, Request};

use crate::domain::analytics::{country_key, referrer_key, Event};
use crate::domain::time::day_of;
use crate::domain::token::hex;
use crate::domain::useragent::{device, is_bot};
use crate::domain::weburl::parse_http;
use crate::durable::analytics::client;
use crate::http::params::{self, method};
use crate::http::App;

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The User-Agent of a request that counts as a visit. Bots, `HEAD` requests and browser
/// prefetches are not visits.
fn countable(req: &Request) -> Option<String> {
    if method(req) != "GET" {
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

/// Salted hash of IP and User-Agent: stable per visitor, reveals neither. Unique views
/// are deduplicated on it, so it must not change within a day.
fn visitor_hash(salt: &str, ip: &str, ua: &str) -> String {
    let digest = Sha256::new()
        .chain_update(salt.as_bytes())
        .chain_update([0])
        .chain_update(ip.as_bytes())
        .chain_update([0])
        .chain_update(ua.as_bytes())
        .finalize();
    hex(&digest[..16])
}

fn visitor(app: &App, ip: &str, ua: &str) -> String {
    visitor_hash(&app.config.visitor_salt, ip, ua)
}

/// Records a view of card `card_id` of account `account_id`: done when the aggregator
/// holds it durably, or after [`ACK_WAIT_MS`] at most (see [`send`]).
pub async fn record_view(app: &App, account_id: i64, card_id: i64, req: &Request) {
    let Some(ua) = countable(req) else { return };
    let own_host = parse_http(&req.inner().url())
        .map(|u| u.host)
        .unwrap_or_default();
    let ip = header(req, "CF-Connecting-IP").unwrap_or_default();
    let event = Event::View {
        account: account_id,
        card: card_id,
        day: day_of(app.now_ms),
        visitor: visitor(app, &ip, &ua),
        device: device(&ua),
        country: country_key(params::country(req).as_deref()),
        referrer: referrer_key(header(req, "Referer").as_deref(), &own_host),
    };
    send(app, event).await;
}

/// Records a click of `kind` (`email`, `phone`, ..., `vcard`, `social_<platform>`), as
/// [`record_view`] does a view.
pub async fn record_click(app: &App, account_id: i64, card_id: i64, kind: &str, req: &Request) {
    if countable(req).is_none() {
        return;
    }
    let event = Event::Click {
        account: account_id,
        card: card_id,
        day: day_of(app.now_ms),
        click_type: kind.to_string(),
    };
    send(app, event).await;
}

/// The longest a page waits for the aggregator's acknowledgement: far above its round
/// trip (1-3 ms locally; up to about 280 ms from the far side of the world to where the
/// object lives), so only an object that is overloaded or unreachable lets a page answer
/// before its event is durable.
const ACK_WAIT_MS: u64 = 1_000;

/// Hands `event` to the account's aggregator and waits for its acknowledgement, which the
/// object sends once the count is in its SQLite storage (its output gate holds the answer
/// until the write is durable). The page's answer acknowledges the visit, so it leaves
/// after that: handed over in `waitUntil` after the answer (before issue 46), an event was
/// lost whenever the runtime died while the hand-off was in flight (4 of 148 answered views
/// in the review's kill test). The cost is that round trip on every counted page and click
/// (README, "Analytics"). Past [`ACK_WAIT_MS`] the page answers anyway and the hand-off,
/// with its retry, goes on after the answer as before: a page that works matters more than
/// one count.
async fn send(app: &App, event: Event) {
    // The card's account is placed (find_card): its region decides where the object is.
    let handoff = Box::pin(deliver(app.env.clone(), event, app.jurisdiction()));
    if let Either::Right(((), handoff)) =
        select(handoff, Delay::from(Duration::from_millis(ACK_WAIT_MS))).await
    {
        worker::console_error!(
            "analytics: no acknowledgement within {ACK_WAIT_MS} ms; the event goes on after the answer"
        );
        app.ctx.wait_until(handoff);
    }
}

/// One hand-off with one retry (a transient failure should not lose the count), owning
/// what it needs so that it can outlive the request's answer. Failures are logged only.
async fn deliver(env: Env, event: Event, jurisdiction: Option<&'static str>) {
    for attempt in 0..2 {
        match client::record(&env, &event, jurisdiction).await {
            Ok(()) => return,
            Err(e) => {
                worker::console_error!("analytics event not delivered (attempt {attempt}): {e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::visitor_hash;

    #[test]
    fn visitor_hash_is_stable_and_separates_its_inputs() {
        let h = visitor_hash("salt", "203.0.113.7", "Mozilla/5.0");
        // Pinned: a changed hash would count every visitor as new again on deploy day.
        assert_eq!(h, "ca082d2ac1e17339f3150a43bfffc14f");
        assert_eq!(h, visitor_hash("salt", "203.0.113.7", "Mozilla/5.0"));
        for other in [
            visitor_hash("pepper", "203.0.113.7", "Mozilla/5.0"),
            visitor_hash("salt", "203.0.113.8", "Mozilla/5.0"),
            visitor_hash("salt", "203.0.113.7", "Mozilla/5.1"),
            // The separators keep shifted boundaries apart.
            visitor_hash("salt2", "03.0.113.7", "Mozilla/5.0"),
        ] {
            assert_ne!(h, other);
        }
    }
}
