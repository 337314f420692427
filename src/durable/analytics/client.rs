//! The worker's side of [`AnalyticsAggregator`](super::AnalyticsAggregator): the binding,
//! the request that carries an [`Event`] and its decoding, kept together so the two ends
//! cannot drift apart.

use worker::{Env, Request, Result};

use crate::domain::analytics::Event;

/// The Durable Object binding in wrangler.toml.
pub const BINDING: &str = "ANALYTICS_AGGREGATOR";

/// The object reads only the body; a stub needs an absolute URL all the same.
const EVENT_URL: &str = "https://aggregator/event";

/// The event a request carries; the object answers 400 when this fails.
pub async fn decode(req: &mut Request) -> Result<Event> {
    req.json().await
}

/// Counts `event` in its account's aggregator, the one in `jurisdiction` for an account
/// whose region is one (the object holds salted visitor hashes; `None`: anywhere). `Ok`
/// means it is durably counted.
pub async fn record(env: &Env, event: &Event, jurisdiction: Option<&'static str>) -> Result<()> {
    let name = event.account().to_string();
    let body = serde_json::to_string(event)?;
    match crate::durable::call_in(env, BINDING, jurisdiction, &name, EVENT_URL, Some(&body))
        .await?
        .0
    {
        204 => Ok(()),
        s => Err(worker::Error::RustError(format!("aggregator answered {s}"))),
    }
}
