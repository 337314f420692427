//! Analytics reads: the per-month counter documents in KV. Their only writer is the
//! `AnalyticsAggregator` Durable Object, which counts the events of the public pages.

use js_sys::{Function, Map, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Env, Result};

use crate::domain::analytics::CounterKey;

/// The KV namespace binding of the counter documents.
pub const NAMESPACE: &str = "ANALYTICS";

/// Counter documents live as long as the aggregator lets them; reports look back at most
/// 365 days.
pub const TTL_S: u64 = 400 * 86_400;

/// The documents stored under `keys` (month documents or their summaries), as JSON text,
/// in one bulk KV read; `None` for a key with nothing stored. The binding is called as is
/// (`get(keys, "text")`): worker's bulk read hands each document to wasm through
/// wasm-bindgen's character loop; these are ~10-40 KB each (`js::long_text`).
pub async fn docs(env: &Env, keys: &[String]) -> Result<Vec<Option<String>>> {
    let kv = Reflect::get(env, &JsValue::from_str(NAMESPACE))?;
    let get: Function = Reflect::get(&kv, &JsValue::from_str("get"))?
        .dyn_into()
        .map_err(|_| worker::Error::RustError(format!("{NAMESPACE} is not a KV namespace")))?;
    let wanted: js_sys::Array = keys.iter().map(|k| JsValue::from_str(k)).collect();
    let found = get.call2(&kv, &wanted, &JsValue::from_str("text"))?;
    let found: Map = JsFuture::from(Promise::resolve(&found))
        .await?
        .dyn_into()
        .map_err(|_| worker::Error::RustError("a bulk KV read answered no Map".into()))?;
    Ok(keys
        .iter()
        .map(|k| crate::js::long_text(&found.get(&JsValue::from_str(k))))
        .collect())
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
