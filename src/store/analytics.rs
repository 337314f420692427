//! Analytics reads: the per-month counter documents in KV. Their only writer is the
//! `AnalyticsAggregator` Durable Object, which counts the events of the public pages.

use worker::{Env, Result};

use crate::domain::analytics::CounterKey;

/// The KV namespace binding of the counter documents.
pub const NAMESPACE: &str = "ANALYTICS";

/// Counter documents live as long as the aggregator lets them; reports look back at most
/// 365 days.
pub const TTL_S: u64 = 400 * 86_400;

/// The documents stored under `keys` (month documents or their summaries), as JSON text,
/// in one bulk KV read; `None` for a key with nothing stored.
pub async fn docs(env: &Env, keys: &[String]) -> Result<Vec<Option<String>>> {
    let mut found = env
        .kv(NAMESPACE)?
        .get_bulk(keys)
        .text()
        .await
        .map_err(|e| worker::Error::RustError(e.to_string()))?;
    Ok(keys.iter().map(|k| found.remove(k).flatten()).collect())
}

/// Stores a scope's history document (`CounterKey::history_key`). Written by readers when
/// it lacks a settled month they needed; settled months never change, so a concurrent
/// writer can only drop a month the other added, which the next reader adds again.
pub async fn put_history(env: &Env, key: &CounterKey, body: &str) -> Result<()> {
    env.kv(NAMESPACE)?
        .put_bytes(&key.history_key(), body.as_bytes())?
        .expiration_ttl(TTL_S)
        .execute()
        .await
        .map_err(|e| worker::Error::RustError(e.to_string()))
}
