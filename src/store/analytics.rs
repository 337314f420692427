//! Analytics reads: the per-month counter documents in KV. Their only writer is the
//! `AnalyticsAggregator` Durable Object, which counts the events of the public pages.

use worker::{Env, Result};

use crate::domain::analytics::CounterKey;

/// The KV namespace binding of the counter documents.
pub const NAMESPACE: &str = "ANALYTICS";

/// The documents stored under `keys`, as JSON text, in one bulk KV read; missing ones
/// are left out.
pub async fn docs(env: &Env, keys: &[CounterKey]) -> Result<Vec<String>> {
    let keys: Vec<String> = keys.iter().map(CounterKey::to_string).collect();
    let found = env
        .kv(NAMESPACE)?
        .get_bulk(&keys)
        .text()
        .await
        .map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(found.into_values().flatten().collect())
}
