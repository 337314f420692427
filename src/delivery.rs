//! Webhook delivery (extensions.md 4): the queue consumer that makes each attempt, and the
//! sweeper that re-sends attempts whose message was lost. Every attempt is a row in
//! `deliveries`; a queue message only says which row is due, so messages may be lost or
//! duplicated without an event being lost or sent twice by one attempt.

use futures_util::future::join_all;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{web_sys, Env, MessageBatch, MessageExt, Result};

use crate::config;
use crate::db::{Directory, Shard};
use crate::domain::account::Account;
use crate::domain::config::Config;
use crate::domain::event::Event;
use crate::domain::ids::account_of;
use crate::domain::webhook::{
    check_url, disables, sealing_key, secret_key, signature, Outcome, CLAIM_MS, PARK_MS, TIMEOUT_MS,
};
use crate::store::accounts::{self, AccountRow};
use crate::store::events::EventRow;
use crate::store::outbox::{self, Outbox, DEAD_LETTERS, QUEUE};
use crate::store::sealed;
use crate::store::tokens;
use crate::store::webhooks::{self, Claimed, Target};

/// Makes the attempts a batch names, concurrently. An attempt that fails for a reason of
/// ours (D1 unavailable, say) is retried by the queue; after its retries the platform moves
/// the message to the dead-letter queue. The handler itself never fails: workers-rs turns
/// an error of a queue handler into a panic.
pub async fn consume(batch: MessageBatch<JsValue>, env: &Env) {
    let config = config::get(env);
    let messages: Vec<_> = batch.raw_iter().collect();
    let runs = messages.iter().map(|m| {
        let id = m
            .body()
            .as_string()
            .and_then(|s| s.trim().parse::<i64>().ok());
        async move {
            match id {
                Some(id) => attempt(env, config, id).await,
                None => {
                    worker::console_error!("webhook message is no delivery id; dropped");
                    Ok(())
                }
            }
        }
    });
    for (message, result) in messages.iter().zip(join_all(runs).await) {
        match result {
            Ok(()) => message.ack(),
            Err(e) => {
                worker::console_error!("webhook attempt failed: {e}; the queue retries it");
                message.retry();
            }
        }
    }
}

async fn attempt(env: &Env, config: &Config, id: i64) -> Result<()> {
    // The message carries the delivery id alone; the id names the account, the directory
    // its shard (after a move, the new one).
    let directory = Directory::primary(env)?;
    let Some(shard) = account_of(id) else {
        worker::console_error!("webhook message {id} is no delivery id of this service; dropped");
        return Ok(());
    };
    let Some(shard) = accounts::shard_of(&directory, shard).await? else {
        // The account was deleted, and its attempts with it.
        return Ok(());
    };
    let db = Shard::primary(env, &shard)?;
    let now = js_sys::Date::now() as i64;
    let Some(claimed) = webhooks::claim(&db, id, now, CLAIM_MS).await? else {
        // Done already, or a live consumer holds it: a duplicate message.
        return Ok(());
    };
    let Claimed {
        attempt: claimed,
        target,
        event,
        account,
    } = claimed;
    let account = account.map(AccountRow::decode);
    if account.as_ref().is_some_and(|a| !a.api_access()) {
        // Nothing is sent for an account without API access; the attempt waits, uncounted,
        // until access returns (the operator API resumes it) or it is due again.
        return webhooks::park(&db, claimed.id, claimed.account_id, now + PARK_MS).await;
    }
    let revoked = match target.as_ref().and_then(|t| t.token_id) {
        Some(token) => tokens::revoked(&directory, token).await?,
        None => false,
    };
    let (outcome, sent) = match prepare(target.as_ref(), revoked, event, account, config, now).await
    {
        Ok(request) => (post(&request).await, true),
        Err(why) => (Outcome::NoAnswer(why), false),
    };
    let failing_since = target.as_ref().and_then(|t| t.failing_since);
    let disable = sent && disables(&outcome, failing_since, now);
    let delay = match (sent, outcome.succeeded() || disable) {
        (true, false) => config
            .webhook_retry_schedule
            .next_delay(claimed.attempt, outcome.retry_after()),
        _ => None,
    };
    let done = js_sys::Date::now() as i64;
    let next_due = delay.map(|d| done + i64::from(d) * 1000);
    let next = webhooks::finish(&db, &claimed, &outcome, disable, next_due, done).await?;
    if !outcome.succeeded() {
        let a = &claimed;
        worker::console_log!(
            "webhook {} event {} attempt {}: {}",
            a.webhook_id,
            a.event_id,
            a.attempt,
            outcome.error().unwrap_or_default()
        );
    }
    match delay {
        Some(d) => outbox::send(env, QUEUE, &next, d).await,
        // The last attempt failed: the event goes to the dead-letter queue for operators.
        None if !outcome.succeeded() => {
            outbox::send(env, DEAD_LETTERS, &Outbox(vec![claimed.id]), 0).await
        }
        None => Ok(()),
    }
}

/// A signed request, ready to send.
struct Signed {
    url: String,
    id: String,
    timestamp: i64,
    signature: String,
    body: String,
}

/// The request of an attempt, or why none is made (each such reason is final).
async fn prepare(
    target: Option<&Target>,
    token_revoked: bool,
    event: Option<EventRow>,
    account: Option<Account>,
    config: &Config,
    now: i64,
) -> std::result::Result<Signed, String> {
    let target = target.ok_or("the webhook was deleted")?;
    if target.status != "enabled" {
        return Err("the webhook is disabled; not sent".into());
    }
    if token_revoked {
        return Err("the token answerable for the webhook was revoked; not sent".into());
    }
    let row = event.ok_or("the event is no longer retained")?;
    let account = account.ok_or("the account was deleted")?;
    check_url(&target.url, config.webhooks_allow_private)
        .map_err(|why| format!("url refused: {why}"))?;
    let mut event: Event = row.decode().ok_or("the event does not decode")?;
    event.apply_features(account.overrides.effective(account.plan).0);
    let base = config.public_base_url.as_deref().unwrap_or(&target.origin);
    let body = serde_json::to_string(&event.view(base)).map_err(|e| e.to_string())?;
    let key = sealing_key(&config.token_pepper);
    let timestamp = now / 1000;
    let mut signatures = Vec::with_capacity(2);
    let current = open_key(&key, &target.secret).await?;
    signatures.push(signature(&current, &event.id, timestamp, &body));
    if let (Some(previous), Some(until)) = (&target.previous_secret, target.previous_until) {
        if until > now {
            let old = open_key(&key, previous).await?;
            signatures.push(signature(&old, &event.id, timestamp, &body));
        }
    }
    Ok(Signed {
        url: target.url.clone(),
        id: event.id.clone(),
        timestamp,
        signature: signatures.join(" "),
        body,
    })
}

async fn open_key(key: &[u8; 32], sealed_secret: &str) -> std::result::Result<Vec<u8>, String> {
    let secret = sealed::open(key, sealed_secret)
        .await
        .map_err(|e| e.to_string())?;
    secret_key(&secret).ok_or_else(|| "the stored secret is malformed".into())
}

/// POSTs with a 10 s limit and no redirects followed (a redirect could lead anywhere,
/// private hosts included).
async fn post(s: &Signed) -> Outcome {
    match send(s).await {
        Ok(resp) => {
            let retry_after = resp.headers().get("Retry-After").ok().flatten();
            // The body is not read: only the status counts.
            if let Some(body) = resp.body() {
                let _ = body.cancel();
            }
            Outcome::from_status(resp.status(), retry_after.as_deref())
        }
        Err(e) => {
            let text = e
                .dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .or_else(|| e.as_string())
                .unwrap_or_else(|| "connection failed".into());
            let timed_out =
                text.contains("abort") || text.contains("timed out") || text.contains("timeout");
            Outcome::NoAnswer(if timed_out {
                "no answer within 10 seconds".into()
            } else {
                format!("connection failed: {text}")
            })
        }
    }
}

async fn send(s: &Signed) -> std::result::Result<web_sys::Response, JsValue> {
    let headers = web_sys::Headers::new()?;
    headers.set("Content-Type", "application/json")?;
    headers.set("User-Agent", "DigitalBusinessCardAPI-Webhooks/1")?;
    headers.set("webhook-id", &s.id)?;
    headers.set("webhook-timestamp", &s.timestamp.to_string())?;
    headers.set("webhook-signature", &s.signature)?;
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_headers(&headers);
    init.set_body(&JsValue::from_str(&s.body));
    init.set_redirect(web_sys::RequestRedirect::Manual);
    init.set_signal(Some(&web_sys::AbortSignal::timeout_with_u32(
        TIMEOUT_MS as u32,
    )));
    let request = web_sys::Request::new_with_str_and_init(&s.url, &init)?;
    let global: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let resp = JsFuture::from(global.fetch_with_request(&request)).await?;
    Ok(resp.unchecked_into())
}

/// Sends again, once, every attempt that is overdue and not held by a live consumer: the
/// messages a crash between commit and send never sent, and those the queue lost.
pub async fn sweep(env: &Env) -> Result<usize> {
    let now = js_sys::Date::now() as i64;
    let mut sent = 0;
    for shard in config::shards(env)? {
        let db = Shard::primary(env, &shard)?;
        let overdue = outbox::overdue(&db, now, CLAIM_MS, 500).await?;
        outbox::send(env, QUEUE, &overdue, 0).await?;
        sent += overdue.0.len();
    }
    Ok(sent)
}
