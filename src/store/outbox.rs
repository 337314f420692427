//! The webhook outbox (extensions.md 4). A change's D1 batch also writes one pending
//! delivery per matching webhook, so the commit that makes an event visible also makes its
//! deliveries certain. Queue messages only say "this attempt is due"; they are sent after
//! the commit, and the sweeper sends again whatever is overdue, so a crash between commit
//! and send delays a delivery instead of losing it.

use js_sys::{Array, Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Context, D1Result, Env, Result};

use super::row::impl_row;
use super::{rows_of, select, Stmt};
use crate::db::Shard;
use crate::domain::config::WebhooksFault;
use crate::domain::event::EventType;

/// The queue that carries due attempts, and its dead-letter queue.
pub const QUEUE: &str = "WEBHOOKS";
pub const DEAD_LETTERS: &str = "WEBHOOKS_DLQ";

/// Pending attempts no message is known to be on the way for: due longer ago than this.
/// The send after a commit takes milliseconds, so this only finds what a crash dropped.
pub const SWEEP_GRACE_MS: i64 = 10_000;

/// Ids of the delivery attempts a batch wrote.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outbox(pub Vec<i64>);

struct Id {
    id: i64,
}
impl_row!(Id { id });

impl Outbox {
    /// The attempts written by the statement at `index` of a batch ([`fanout_sql`]).
    pub fn written(results: &[D1Result], index: usize) -> Result<Outbox> {
        Ok(Outbox(
            rows_of::<Id>(results, index)?
                .into_iter()
                .map(|r| r.id)
                .collect(),
        ))
    }
}

/// One pending first attempt for every enabled webhook of the account subscribed to `kind`,
/// written only when event `event_id` was (the statements before it in the batch). A
/// token's `*` webhook gets template events only by name: its token may not read them.
pub fn fanout_sql(account_id: i64, event_id: &str, kind: EventType, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "INSERT INTO deliveries (id, account_id, webhook_id, event_id, event_type, attempt, \
                 status, due_at, created_at) \
             SELECT {}, ?1, w.id, ?2, ?3, 1, 'pending', ?4, ?4 FROM webhooks w \
             WHERE w.account_id = ?1 AND w.status = 'enabled' \
               AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = ?3 OR (value = '*' \
                   AND (?3 NOT LIKE 'template.%' OR w.token_id IS NULL))) \
               AND EXISTS (SELECT 1 FROM events WHERE id = ?2 AND account_id = ?1) \
             RETURNING id",
            super::next_id("?1", true)
        ),
        vec![
            account_id.into(),
            event_id.into(),
            kind.as_str().into(),
            now.into(),
        ],
    )
}

/// Attempts overdue and not taken by a live consumer, oldest first.
pub fn overdue_sql(now: i64, claim_ms: i64, limit: i64) -> Stmt {
    Stmt::new(
        "SELECT id FROM deliveries WHERE status = 'pending' AND due_at < ?1 \
           AND (claimed_at IS NULL OR claimed_at < ?2) \
         ORDER BY due_at LIMIT +?3",
        vec![
            (now - SWEEP_GRACE_MS).into(),
            (now - claim_ms).into(),
            limit.into(),
        ],
    )
}

pub async fn overdue(db: &Shard, now: i64, claim_ms: i64, limit: i64) -> Result<Outbox> {
    let found: Vec<Id> = select(db, overdue_sql(now, claim_ms, limit)).await?;
    Ok(Outbox(found.into_iter().map(|r| r.id).collect()))
}

/// Sends one message per attempt (its id, as text), each delayed by `delay_seconds`.
pub async fn send(env: &Env, queue: &str, outbox: &Outbox, delay_seconds: u32) -> Result<()> {
    if outbox.0.is_empty() {
        return Ok(());
    }
    // The binding's own `sendBatch`, called with plain objects: worker's `send_raw_batch`
    // serialises the same options through serde (~2 KB gzipped of wasm).
    let queue: JsValue = env.queue(queue)?.into();
    let send_batch: Function = Reflect::get(&queue, &"sendBatch".into())?.dyn_into()?;
    // Queues take at most 100 messages per batch.
    for ids in outbox.0.chunks(100) {
        let messages = Array::new();
        for id in ids {
            let m = Object::new();
            Reflect::set(&m, &"body".into(), &id.to_string().into())?;
            Reflect::set(&m, &"contentType".into(), &"text".into())?;
            if delay_seconds > 0 {
                Reflect::set(&m, &"delaySeconds".into(), &delay_seconds.into())?;
            }
            messages.push(&m);
        }
        let sent: Promise = send_batch.call1(&queue, &messages)?.dyn_into()?;
        JsFuture::from(sent).await?;
    }
    Ok(())
}

/// Sends the attempts a committed batch wrote, after the response (`wait_until`). A
/// failed send is only logged: the sweeper finds the attempts within a minute. The
/// test-only fault `WEBHOOKS_FAULT=drop-send` skips the send, as a crash between the
/// commit and the send would.
pub fn dispatch(env: &Env, ctx: &Context, outbox: Outbox, fault: Option<WebhooksFault>) {
    if outbox.0.is_empty() {
        return;
    }
    if fault == Some(WebhooksFault::DropSend) {
        worker::console_warn!(
            "WEBHOOKS_FAULT=drop-send: {} attempt(s) not sent",
            outbox.0.len()
        );
        return;
    }
    let env = env.clone();
    ctx.wait_until(async move {
        if let Err(e) = send(&env, QUEUE, &outbox, 0).await {
            worker::console_error!("webhook queue send failed (the sweeper will retry): {e}");
        }
    });
}
