//! Analytics in KV: the per-month counter documents and the histories of their settled
//! months. The documents' only writer is the `AnalyticsAggregator` Durable Object; the
//! histories are written here, by the reports that read them ([`month_docs`]).
//!
//! Reads and writes are typed by the key ([`KvKey`], [`get_with`], [`put`]): a key answers the value type it
//! names, so a history is never read as a month document or the other way round.

use js_sys::{Function, Map, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Context, Env, Result};

use crate::domain::analytics::{
    history_keep_from, report, summarizable, summarize, CounterKey, Day, History, HistoryKey,
    KvKey, KvValue,
};

/// The KV namespace binding of the counter documents.
pub const NAMESPACE: &str = "ANALYTICS";

/// Counter documents live as long as the aggregator lets them; reports look back at most
/// 365 days.
pub const TTL_S: u64 = 400 * 86_400;

/// The texts stored under `keys`, in one bulk KV read; `None` for a key with nothing
/// stored. The binding is called as is (`get(keys, "text")`): worker's bulk read hands each
/// document to wasm through wasm-bindgen's character loop; these are ~10-40 KB each
/// (`js::long_text`).
async fn texts(env: &Env, keys: &[String]) -> Result<Vec<Option<String>>> {
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

/// The values stored under `keys` and, in the same bulk read, under `extra`. One function
/// for both shapes of read: each instance of it is a copy in the wasm.
pub async fn get_with<K: KvKey, E: KvKey>(
    env: &Env,
    keys: &[K],
    extra: Option<&E>,
) -> Result<(Vec<Option<K::Value>>, Option<E::Value>)> {
    let mut names: Vec<String> = keys.iter().map(K::to_string).collect();
    names.extend(extra.map(E::to_string));
    let mut found = texts(env, &names).await?;
    let extra = match extra {
        Some(_) => found.pop().flatten().map(E::Value::decode),
        None => None,
    };
    let values = found.into_iter().map(|t| t.map(K::Value::decode)).collect();
    Ok((values, extra))
}

/// Stores `value` under `key`, for as long as the counter documents live.
pub async fn put<K: KvKey>(env: &Env, key: &K, value: &K::Value) -> Result<()> {
    // As bytes: `put` of a `&str` goes through worker's serde path (see the aggregator).
    env.kv(NAMESPACE)?
        .put_bytes(&key.to_string(), value.encode().as_bytes())?
        .expiration_ttl(TTL_S)
        .execute()
        .await
        .map_err(|e| worker::Error::RustError(e.to_string()))
}

/// The texts a report over `days` up to `today` sums, one per month that has one; `keys`
/// are the window's month documents, oldest first (`CounterKey::for_window`).
///
/// A read-through cache of settled months: those wholly inside the window come from the
/// scope's history document (one key for all of them), read in the same bulk read as the
/// months at the window's edges, which are read in full. A settled month the history
/// lacks is read in full, used, summarized and added to the history after the answer
/// (`ctx.wait_until`). Settled months never change, so a concurrent writer can only drop
/// a month the other added, which the next reader adds again. Not generic over the kind,
/// so its code is in the wasm once.
pub async fn month_docs(
    env: &Env,
    ctx: &Context,
    keys: &[CounterKey],
    today: i64,
    days: i64,
) -> Result<Vec<String>> {
    let plan = summarizable(today, days);
    // Every window has a month; the history is only read when one is settled.
    let history_key = keys
        .first()
        .map(CounterKey::history_key)
        .filter(|_| plan.iter().any(|(_, summary)| *summary));
    let edges: Vec<CounterKey> = keys
        .iter()
        .zip(&plan)
        .filter(|(_, (_, summary))| !summary)
        .map(|(k, _)| *k)
        .collect();
    let (found, history) = get_with(env, &edges, history_key.as_ref()).await?;
    let mut history: History = history.unwrap_or_default();
    let missing: Vec<usize> = plan
        .iter()
        .enumerate()
        .filter(|(_, (month, summary))| *summary && history.get(*month).is_none())
        .map(|(i, _)| i)
        .collect();
    let fetched = if missing.is_empty() {
        Vec::new()
    } else {
        let wanted: Vec<CounterKey> = missing.iter().map(|&i| keys[i]).collect();
        get_with(env, &wanted, None::<&HistoryKey>).await?.0
    };
    let mut full = found.into_iter();
    let mut fetched = fetched.into_iter();
    let mut added = Vec::new();
    let mut docs = Vec::with_capacity(plan.len());
    for &(month, summary) in &plan {
        let text = if !summary {
            full.next().flatten().map(|t| t.0)
        } else if let Some(held) = history.get(month) {
            Some(held.to_string())
        } else {
            let text = fetched.next().flatten().map(|t| t.0);
            // A month it lacked: summarized for the history.
            added.extend(text.as_deref().and_then(summarize).map(|s| (month, s)));
            text
        };
        docs.extend(text);
    }
    if let Some(key) = history_key.filter(|_| !added.is_empty()) {
        history.add(added, history_keep_from(today));
        let env = env.clone();
        ctx.wait_until(async move {
            if let Err(e) = put(&env, &key, &history).await {
                worker::console_warn!("storing an analytics history failed: {e}");
            }
        });
    }
    Ok(docs)
}

/// A report of kind `D` (spec 2.3, 2.4) of the account (or one card of it) over the last
/// `days` days ending `today`: what the analytics API answers, and the account area shows.
pub async fn report_of<D: Day>(
    env: &Env,
    ctx: &Context,
    account_id: i64,
    card: Option<i64>,
    period: &str,
    today: i64,
    days: i64,
) -> Result<D::Report> {
    let keys = CounterKey::for_window(account_id, card.into(), D::KIND, today, days);
    let docs = month_docs(env, ctx, &keys, today, days).await?;
    Ok(report::<D>(&docs, today, period, days))
}
