//! Webhook subscriptions and their delivery attempts in D1 (extensions.md 4).

use std::sync::OnceLock;

use worker::Result;

use super::accounts::AccountRow;
use super::events::EventRow;
use super::outbox::Outbox;
use super::row::impl_row;
use super::security::{log_sql, Log, Of, When};
use super::{
    batch, columns_of, prune_in_steps, row_count, rows_of, run, select, select_first, Columns,
    Count, SqlValue, Stmt,
};
use crate::db::Shard;
use crate::domain::event::EventType;
use crate::domain::pagination::Page;
use crate::domain::security::{By, Kind};
use crate::domain::webhook::{
    Delivery, EventFilter, Outcome, Webhook, WebhookInput, WebhookStatus, MAX_PER_ACCOUNT,
    REDELIVER_LIMIT, REDELIVER_WINDOW_MS, ROTATION_OVERLAP_MS,
};

#[derive(Debug)]
pub struct WebhookRow {
    pub id: i64,
    pub url: String,
    pub events: String,
    pub description: Option<String>,
    pub status: String,
    pub created_at: i64,
    pub updated_at: i64,
}
impl_row!(WebhookRow {
    id,
    url,
    events,
    description,
    status,
    created_at,
    updated_at
});
// Attempts decode into the domain's type directly: its fields are the columns.
impl_row!(Delivery {
    id,
    event_id,
    event_type,
    attempt,
    status,
    response_status,
    error,
    created_at,
    completed_at,
});

impl WebhookRow {
    pub fn decode(self) -> Webhook {
        Webhook {
            id: self.id,
            url: self.url,
            events: EventFilter::parse_stored(&self.events),
            description: self.description,
            // CHECK-constrained; disabled is the safe reading.
            status: WebhookStatus::parse(&self.status).unwrap_or(WebhookStatus::Disabled),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

fn webhook_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<WebhookRow>(""))
}

fn delivery_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<Delivery>(""))
}

fn first_decoded(rows: Vec<WebhookRow>) -> Option<Webhook> {
    rows.into_iter().next().map(WebhookRow::decode)
}

/// Who asks for a change to a webhook: the account, and the token that becomes answerable
/// for it (revoking that token disables the webhook); none when a member of the account
/// made the change in the account area (the account answers for it).
#[derive(Debug, Clone, Copy)]
pub struct Owner {
    pub account_id: i64,
    pub token_id: Option<i64>,
}

/// Inserts the subscription unless the account already has [`MAX_PER_ACCOUNT`].
pub fn create_sql(
    owner: Owner,
    input: &WebhookInput,
    sealed_secret: &str,
    origin: &str,
    now: i64,
) -> Stmt {
    let events = input.events.as_ref().map(EventFilter::to_stored);
    Stmt::new(
        format!(
            "INSERT INTO webhooks (id, account_id, url, events, description, secret, origin, \
                 created_at, updated_at, token_id) \
             SELECT {}, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?9 \
             WHERE (SELECT COUNT(*) FROM webhooks WHERE account_id = ?1) < ?8 \
             RETURNING {}",
            super::next_id("?1", false),
            webhook_columns()
        ),
        vec![
            owner.account_id.into(),
            input.url.clone().into(),
            events.into(),
            input.description.value().cloned().into(),
            sealed_secret.into(),
            origin.into(),
            now.into(),
            MAX_PER_ACCOUNT.into(),
            owner.token_id.into(),
        ],
    )
}

/// Inserts the subscription and logs it (as `by`) in one batch; `None` at the
/// subscription limit.
pub async fn create(
    db: &Shard,
    owner: Owner,
    input: &WebhookInput,
    sealed_secret: &str,
    origin: &str,
    now: i64,
    by: &By,
) -> Result<Option<Webhook>> {
    let of = Of::Webhook(owner.account_id, None);
    let stmts = vec![
        create_sql(owner, input, sealed_secret, origin, now),
        log_sql(
            Log::Shard,
            &of,
            Kind::WebhookCreated,
            by,
            now,
            When::Changed,
        ),
    ];
    let results = batch(db, stmts).await?;
    Ok(first_decoded(rows_of(&results, 0)?))
}

/// Oldest first, with the count.
pub fn list_sql(account_id: i64, page: Page) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM webhooks WHERE account_id = ?1 ORDER BY id LIMIT +?2 OFFSET ?3",
                webhook_columns()
            ),
            vec![
                account_id.into(),
                page.per_page.into(),
                page.offset().into(),
            ],
        ),
    ]
}

pub async fn list(db: &Shard, account_id: i64, page: Page) -> Result<(Vec<Webhook>, i64)> {
    let results = batch(db, list_sql(account_id, page)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    let hooks = rows_of::<WebhookRow>(&results, 1)?;
    Ok((hooks.into_iter().map(WebhookRow::decode).collect(), total))
}

pub fn get_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} FROM webhooks WHERE id = ?1 AND account_id = ?2",
            webhook_columns()
        ),
        vec![id.into(), account_id.into()],
    )
}

pub async fn get(db: &Shard, account_id: i64, id: i64) -> Result<Option<Webhook>> {
    let row: Option<WebhookRow> = select_first(db, get_sql(account_id, id)).await?;
    Ok(row.map(WebhookRow::decode))
}

/// The fields given; enabling again also forgets the run of failures that disabled it.
/// The token that updates it becomes answerable for it.
pub fn update_sql(owner: Owner, id: i64, input: &WebhookInput, now: i64) -> Stmt {
    let mut c = Columns::default();
    c.put("url", input.url.clone());
    c.put("events", input.events.as_ref().map(EventFilter::to_stored));
    c.field("description", &input.description);
    c.put("status", input.status.map(WebhookStatus::as_str));
    c.0.push(("token_id", owner.token_id.into()));
    let account_id = owner.account_id;
    let mut sets = vec!["updated_at = ?3".to_string()];
    if input.status == Some(WebhookStatus::Enabled) {
        sets.push("failing_since = NULL".into());
    }
    let mut args: Vec<SqlValue> = vec![id.into(), account_id.into(), now.into()];
    for (col, value) in c.0 {
        args.push(value);
        sets.push(format!("{col} = ?{}", args.len()));
    }
    Stmt::new(
        format!(
            "UPDATE webhooks SET {} WHERE id = ?1 AND account_id = ?2 RETURNING {}",
            sets.join(", "),
            webhook_columns()
        ),
        args,
    )
}

pub async fn update(
    db: &Shard,
    owner: Owner,
    id: i64,
    input: &WebhookInput,
    now: i64,
) -> Result<Option<Webhook>> {
    Ok(first_decoded(
        select(db, update_sql(owner, id, input, now)).await?,
    ))
}

/// The subscription and its attempts go together.
pub fn delete_sql(account_id: i64, id: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "DELETE FROM deliveries WHERE webhook_id = ?1 AND account_id = ?2",
            vec![id.into(), account_id.into()],
        ),
        Stmt::new(
            "DELETE FROM webhooks WHERE id = ?1 AND account_id = ?2 RETURNING id",
            vec![id.into(), account_id.into()],
        ),
    ]
}

/// Deletes the subscription and its attempts and logs it (the entry names its URL, so it
/// is written first, of a webhook that is there); `false` when there was none.
pub async fn delete(db: &Shard, account_id: i64, id: i64, now: i64, by: &By) -> Result<bool> {
    let of = Of::Webhook(account_id, Some(id));
    let mut stmts = vec![log_sql(
        Log::Shard,
        &of,
        Kind::WebhookDeleted,
        by,
        now,
        When::Always,
    )];
    stmts.extend(delete_sql(account_id, id));
    let results = batch(db, stmts).await?;
    Ok(row_count(&results, 2)? > 0)
}

/// A new secret; the current one keeps signing for [`ROTATION_OVERLAP_MS`].
pub fn rotate_sql(account_id: i64, id: i64, sealed_secret: &str, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "UPDATE webhooks SET previous_secret = secret, previous_until = ?4, secret = ?3, \
                 updated_at = ?5 \
             WHERE id = ?1 AND account_id = ?2 RETURNING {}",
            webhook_columns()
        ),
        vec![
            id.into(),
            account_id.into(),
            sealed_secret.into(),
            (now + ROTATION_OVERLAP_MS).into(),
            now.into(),
        ],
    )
}

/// Rotates the secret and logs it, in one batch.
pub async fn rotate(
    db: &Shard,
    account_id: i64,
    id: i64,
    sealed_secret: &str,
    now: i64,
    by: &By,
) -> Result<Option<Webhook>> {
    let of = Of::Webhook(account_id, Some(id));
    let stmts = vec![
        rotate_sql(account_id, id, sealed_secret, now),
        log_sql(
            Log::Shard,
            &of,
            Kind::WebhookSecretRotated,
            by,
            now,
            When::Changed,
        ),
    ];
    let results = batch(db, stmts).await?;
    Ok(first_decoded(rows_of(&results, 0)?))
}

/// Whether the webhook is the account's, then a page of its attempts, newest first.
pub fn deliveries_sql(account_id: i64, webhook_id: i64, page: Page) -> Vec<Stmt> {
    let ids = || -> Vec<SqlValue> { vec![webhook_id.into(), account_id.into()] };
    let mut page_args = ids();
    page_args.extend([page.per_page.into(), page.offset().into()]);
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM webhooks WHERE id = ?1 AND account_id = ?2",
            ids(),
        ),
        Stmt::new(
            "SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ?1 AND account_id = ?2",
            ids(),
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM deliveries WHERE webhook_id = ?1 AND account_id = ?2 \
                 ORDER BY id DESC LIMIT +?3 OFFSET ?4",
                delivery_columns()
            ),
            page_args,
        ),
    ]
}

/// `None` when the account has no such webhook.
pub async fn deliveries(
    db: &Shard,
    account_id: i64,
    webhook_id: i64,
    page: Page,
) -> Result<Option<(Vec<Delivery>, i64)>> {
    let results = batch(db, deliveries_sql(account_id, webhook_id, page)).await?;
    let count =
        |i| -> Result<i64> { Ok(rows_of::<Count>(&results, i)?.first().map_or(0, |c| c.n)) };
    if count(0)? == 0 {
        return Ok(None);
    }
    Ok(Some((rows_of(&results, 2)?, count(1)?)))
}

/// What a redelivery request came to.
pub enum Redelivery {
    Scheduled(Delivery),
    NoWebhook,
    /// No such event of the account, or none the token may read.
    NoEvent,
    /// The webhook's `events` do not match the event's type.
    NotSubscribed(String),
    Disabled,
    /// [`REDELIVER_LIMIT`] redeliveries in the window already; the oldest was made then.
    Limited {
        oldest: i64,
    },
}

/// The webhook, the event (if the token may read its type), the redeliveries of the pair
/// in the window, then a new pending attempt numbered after the pair's last one, written
/// only when the webhook is enabled and subscribed to the event's type, the token may read
/// it, and the window has room.
pub fn redeliver_sql(
    account_id: i64,
    webhook_id: i64,
    event_id: &str,
    readable: &[EventType],
    now: i64,
) -> Vec<Stmt> {
    let readable: Vec<&str> = readable.iter().map(|t| t.as_str()).collect();
    let readable = serde_json::to_string(&readable).unwrap_or_else(|_| "[]".into());
    let window_start = now - REDELIVER_WINDOW_MS;
    vec![
        Stmt::new(
            "SELECT status, events FROM webhooks WHERE id = ?1 AND account_id = ?2",
            vec![webhook_id.into(), account_id.into()],
        ),
        Stmt::new(
            "SELECT type FROM events WHERE id = ?1 AND account_id = ?2 \
               AND type IN (SELECT value FROM json_each(?3))",
            vec![event_id.into(), account_id.into(), readable.as_str().into()],
        ),
        Stmt::new(
            "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries \
             WHERE webhook_id = ?1 AND event_id = ?2 AND account_id = ?3 AND redelivery = 1 \
               AND created_at > ?4",
            vec![
                webhook_id.into(),
                event_id.into(),
                account_id.into(),
                window_start.into(),
            ],
        ),
        Stmt::new(
            format!(
                "INSERT INTO deliveries (id, account_id, webhook_id, event_id, event_type, \
                     attempt, status, due_at, created_at, redelivery) \
                 SELECT {}, ?2, w.id, e.id, e.type, \
                     COALESCE((SELECT MAX(attempt) FROM deliveries \
                               WHERE webhook_id = ?1 AND event_id = ?3), 0) + 1, \
                     'pending', ?4, ?4, 1 \
                 FROM webhooks w JOIN events e ON e.id = ?3 AND e.account_id = ?2 \
                 WHERE w.id = ?1 AND w.account_id = ?2 AND w.status = 'enabled' \
                   AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE value IN ('*', e.type)) \
                   AND e.type IN (SELECT value FROM json_each(?5)) \
                   AND (SELECT COUNT(*) FROM deliveries WHERE webhook_id = ?1 AND event_id = ?3 \
                        AND account_id = ?2 AND redelivery = 1 AND created_at > ?6) < ?7 \
                 RETURNING {}",
                super::next_id("?2", false),
                delivery_columns()
            ),
            vec![
                webhook_id.into(),
                account_id.into(),
                event_id.into(),
                now.into(),
                readable.into(),
                window_start.into(),
                REDELIVER_LIMIT.into(),
            ],
        ),
    ]
}

struct HookRow {
    status: String,
    events: String,
}
impl_row!(HookRow { status, events });

struct TypeRow {
    kind: String,
}
impl_row!(TypeRow { kind as "type" });

struct Window {
    n: i64,
    oldest: Option<i64>,
}
impl_row!(Window { n, oldest });

pub async fn redeliver(
    db: &Shard,
    account_id: i64,
    webhook_id: i64,
    event_id: &str,
    readable: &[EventType],
    now: i64,
) -> Result<Redelivery> {
    let stmts = redeliver_sql(account_id, webhook_id, event_id, readable, now);
    let results = batch(db, stmts).await?;
    if let Some(d) = rows_of::<Delivery>(&results, 3)?.into_iter().next() {
        return Ok(Redelivery::Scheduled(d));
    }
    let Some(hook) = rows_of::<HookRow>(&results, 0)?.into_iter().next() else {
        return Ok(Redelivery::NoWebhook);
    };
    let Some(event) = rows_of::<TypeRow>(&results, 1)?.into_iter().next() else {
        return Ok(Redelivery::NoEvent);
    };
    let subscribed = EventType::parse(&event.kind)
        .is_some_and(|t| EventFilter::parse_stored(&hook.events).matches(t));
    if !subscribed {
        return Ok(Redelivery::NotSubscribed(event.kind));
    }
    if hook.status != WebhookStatus::Enabled.as_str() {
        return Ok(Redelivery::Disabled);
    }
    let window = rows_of::<Window>(&results, 2)?.into_iter().next();
    Ok(Redelivery::Limited {
        oldest: window
            .and_then(|w| w.oldest.filter(|_| w.n > 0))
            .unwrap_or(now),
    })
}

/// The attempt a consumer took.
#[derive(Debug)]
pub struct Attempt {
    pub id: i64,
    pub account_id: i64,
    pub webhook_id: i64,
    pub event_id: String,
    pub event_type: String,
    pub attempt: i64,
}
impl_row!(Attempt {
    id,
    account_id,
    webhook_id,
    event_id,
    event_type,
    attempt
});

/// Where and how to deliver it.
#[derive(Debug)]
pub struct Target {
    pub url: String,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_until: Option<i64>,
    pub status: String,
    pub origin: String,
    pub failing_since: Option<i64>,
    /// The token answerable for the webhook: the consumer asks the directory whether it
    /// was revoked (revoking disables the webhook too; this catches a change that raced
    /// the revocation).
    pub token_id: Option<i64>,
}
impl_row!(Target {
    url,
    secret,
    previous_secret,
    previous_until,
    status,
    origin,
    failing_since,
    token_id,
});

/// Everything one attempt needs, read in the transaction that claims it.
pub struct Claimed {
    pub attempt: Attempt,
    /// `None`: the webhook was deleted.
    pub target: Option<Target>,
    /// `None`: the event is past retention.
    pub event: Option<EventRow>,
    pub account: Option<AccountRow>,
}

/// Takes a pending attempt unless a live consumer has it, and reads its webhook, event and
/// account, in one round trip.
pub fn claim_sql(delivery_id: i64, now: i64, claim_ms: i64) -> Vec<Stmt> {
    let of = |column: &str, table: &str, columns: String| {
        Stmt::new(
            format!(
                "SELECT {columns} FROM {table} \
                 WHERE id = (SELECT {column} FROM deliveries WHERE id = ?1)"
            ),
            vec![delivery_id.into()],
        )
    };
    vec![
        Stmt::new(
            format!(
                "UPDATE deliveries SET claimed_at = ?2 \
                 WHERE id = ?1 AND status = 'pending' AND (claimed_at IS NULL OR claimed_at < ?3) \
                 RETURNING {}",
                columns_of::<Attempt>("")
            ),
            vec![delivery_id.into(), now.into(), (now - claim_ms).into()],
        ),
        Stmt::new(
            "SELECT url, secret, previous_secret, previous_until, status, origin, \
                 failing_since, token_id \
             FROM webhooks w WHERE w.id = (SELECT webhook_id FROM deliveries WHERE id = ?1)",
            vec![delivery_id.into()],
        ),
        of("event_id", "events", columns_of::<EventRow>("")),
        of("account_id", "accounts", columns_of::<AccountRow>("")),
    ]
}

/// `None` when the attempt is done already or another consumer holds it.
pub async fn claim(
    db: &Shard,
    delivery_id: i64,
    now: i64,
    claim_ms: i64,
) -> Result<Option<Claimed>> {
    let results = batch(db, claim_sql(delivery_id, now, claim_ms)).await?;
    let Some(attempt) = rows_of::<Attempt>(&results, 0)?.into_iter().next() else {
        return Ok(None);
    };
    Ok(Some(Claimed {
        attempt,
        target: rows_of::<Target>(&results, 1)?.into_iter().next(),
        event: rows_of::<EventRow>(&results, 2)?.into_iter().next(),
        account: rows_of::<AccountRow>(&results, 3)?.into_iter().next(),
    }))
}

/// Puts a claimed attempt back, unmade and uncounted, to be looked at again at `due`: its
/// account has no API access. Restoring access ([`resume_sql`]) brings it forward.
pub fn park_sql(delivery_id: i64, account_id: i64, due: i64) -> Stmt {
    Stmt::new(
        "UPDATE deliveries SET parked = 1, due_at = ?3, claimed_at = NULL \
         WHERE id = ?1 AND account_id = ?2 AND status = 'pending'",
        vec![delivery_id.into(), account_id.into(), due.into()],
    )
}

pub async fn park(db: &Shard, delivery_id: i64, account_id: i64, due: i64) -> Result<()> {
    run(db, park_sql(delivery_id, account_id, due)).await
}

/// The account's parked attempts, due now: its API access is back.
pub fn resume_sql(account_id: i64, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE deliveries SET parked = 0, due_at = ?2 \
         WHERE account_id = ?1 AND parked = 1 AND status = 'pending' RETURNING id",
        vec![account_id.into(), now.into()],
    )
}

pub async fn resume(db: &Shard, account_id: i64, now: i64) -> Result<Outbox> {
    let results = batch(db, vec![resume_sql(account_id, now)]).await?;
    Outbox::written(&results, 0)
}

/// Records the attempt's outcome and the webhook's run of failures (disabling it when
/// `disable`), and schedules the next attempt at `next_due` while the webhook is enabled.
pub fn finish_sql(
    attempt: &Attempt,
    outcome: &Outcome,
    disable: bool,
    next_due: Option<i64>,
    now: i64,
) -> Vec<Stmt> {
    let status = if outcome.succeeded() {
        "succeeded"
    } else {
        "failed"
    };
    let mut stmts = vec![
        Stmt::new(
            "UPDATE deliveries SET status = ?2, response_status = ?3, error = ?4, \
                 completed_at = ?5 WHERE id = ?1",
            vec![
                attempt.id.into(),
                status.into(),
                outcome.status().into(),
                outcome.error().into(),
                now.into(),
            ],
        ),
        Stmt::new(
            "UPDATE webhooks SET \
                 failing_since = CASE WHEN ?2 = 1 THEN NULL ELSE COALESCE(failing_since, ?3) END, \
                 status = CASE WHEN ?4 = 1 THEN 'disabled' ELSE status END, \
                 updated_at = CASE WHEN ?4 = 1 THEN ?3 ELSE updated_at END \
             WHERE id = ?1",
            vec![
                attempt.webhook_id.into(),
                outcome.succeeded().into(),
                now.into(),
                disable.into(),
            ],
        ),
    ];
    if let Some(due) = next_due {
        stmts.push(Stmt::new(
            format!(
                "INSERT INTO deliveries (id, account_id, webhook_id, event_id, event_type, \
                     attempt, status, due_at, created_at) \
                 SELECT {}, account_id, webhook_id, event_id, event_type, attempt + 1, \
                     'pending', ?2, ?3 \
                 FROM deliveries d WHERE d.id = ?1 AND EXISTS \
                     (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.status = 'enabled') \
                 RETURNING id",
                super::next_id("d.account_id", false)
            ),
            vec![attempt.id.into(), due.into(), now.into()],
        ));
    }
    stmts
}

pub fn disable_for_token_sql(account_id: i64, token_id: i64, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE webhooks SET status = 'disabled', updated_at = ?3 \
         WHERE token_id = ?2 AND status = 'enabled' AND account_id = ?1 RETURNING id",
        vec![account_id.into(), token_id.into(), now.into()],
    )
}

/// The enabled webhooks of the account that tokens of `ids` (a JSON array) answer for.
pub fn disable_for_tokens_sql(account_id: i64, ids: &str, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE webhooks SET status = 'disabled', updated_at = ?3 \
         WHERE token_id IN (SELECT value FROM json_each(?2)) AND status = 'enabled' \
           AND account_id = ?1 RETURNING id",
        vec![account_id.into(), ids.into(), now.into()],
    )
}

/// Disables the webhooks of every revoked token of the account; how many.
pub async fn disable_for_tokens(db: &Shard, account_id: i64, ids: &str, now: i64) -> Result<usize> {
    let results = batch(db, vec![disable_for_tokens_sql(account_id, ids, now)]).await?;
    row_count(&results, 0)
}

/// Disables the enabled webhooks a revoked token answers for; how many.
pub async fn disable_for_token(
    db: &Shard,
    account_id: i64,
    token_id: i64,
    now: i64,
) -> Result<usize> {
    let results = batch(db, vec![disable_for_token_sql(account_id, token_id, now)]).await?;
    row_count(&results, 0)
}

/// The next attempt written, if any.
pub async fn finish(
    db: &Shard,
    attempt: &Attempt,
    outcome: &Outcome,
    disable: bool,
    next_due: Option<i64>,
    now: i64,
) -> Result<Outbox> {
    let results = batch(db, finish_sql(attempt, outcome, disable, next_due, now)).await?;
    if next_due.is_some() {
        Outbox::written(&results, 2)
    } else {
        Ok(Outbox::default())
    }
}

/// Removes up to `max_rows` finished attempts made before `cutoff`.
pub fn prune_sql(cutoff: i64, max_rows: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM deliveries WHERE rowid IN \
         (SELECT rowid FROM deliveries WHERE created_at < ?1 AND status != 'pending' \
          ORDER BY created_at LIMIT +?2)",
        vec![cutoff.into(), max_rows.into()],
    )
}

/// Prunes in bounded steps; the number of attempts removed.
pub async fn prune(db: &Shard, cutoff: i64) -> Result<usize> {
    const STEP: i64 = 1_000;
    prune_in_steps(db, STEP, 20, 0, || vec![prune_sql(cutoff, STEP)]).await
}
