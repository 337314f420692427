//! Erasing leads (extensions.md 8): one D1 batch, one statement per table, so a lead is
//! either fully there or gone from everywhere a copy was kept. The batch records a
//! `lead.deleted` event per lead (and its webhook attempts), blanks the personal fields of
//! the `lead.created` snapshots that carried the lead (found through the indexed
//! `events.lead_id`), and deletes the rows. Webhook attempts keep no bodies: a delivery or
//! redelivery renders the event as it is now, redacted.

use worker::Result;

use super::outbox::Outbox;
use super::row::impl_row;
use super::security::{log_sql, Log, Of, When};
use super::{batch, row_count, select, SqlValue, Stmt};
use crate::db::Shard;
use crate::domain::email_key::email_key;
use crate::domain::security::{By, Kind};
use crate::js::normalize;

/// Which of an account's leads to erase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadSet<'a> {
    One(i64),
    /// Every lead of this address, in any case of any script (domain::email_key).
    Email(&'a str),
    /// Up to `limit` of the oldest leads created before `cutoff` (retention).
    Expired {
        cutoff: i64,
        limit: i64,
    },
}

impl LeadSet<'_> {
    /// The condition on `l` (a lead of account `?1`) and its arguments, numbered from `?2`.
    fn condition(self) -> (&'static str, Vec<SqlValue>) {
        match self {
            LeadSet::One(id) => ("l.id = ?2", vec![id.into()]),
            LeadSet::Email(email) => ("l.email_key = ?2", vec![email_key(email, normalize).into()]),
            LeadSet::Expired { cutoff, limit } => (
                "l.id IN (SELECT id FROM leads WHERE account_id = ?1 AND created_at < ?2 \
                 ORDER BY created_at, id LIMIT +?3)",
                vec![cutoff.into(), limit.into()],
            ),
        }
    }
}

/// The personal fields of a lead snapshot; ids, source and times stay.
const REDACTED: &str = "json_set(object, '$.lead.name', NULL, '$.lead.email', NULL, \
     '$.lead.phone', NULL, '$.lead.message', NULL, '$.lead.note', NULL)";

/// The five statements of an erasure; the last answers the ids of the leads erased and the
/// third the webhook attempts of their `lead.deleted` events.
pub fn erase_sql(account_id: i64, set: LeadSet, now: i64) -> Vec<Stmt> {
    let (cond, set_args) = set.condition();
    let leads = format!("SELECT l.id FROM leads l WHERE l.account_id = ?1 AND {cond}");
    let now_mark = format!("?{}", set_args.len() + 2);
    let next = super::next_id("?1", true);
    let args = |with_now: bool| -> Vec<SqlValue> {
        let mut a: Vec<SqlValue> = vec![account_id.into()];
        a.extend(set_args.iter().cloned());
        if with_now {
            a.push(now.into());
        }
        a
    };
    vec![
        // Sequences continue the account's counter in lead order; ids are random like
        // every event id (SQLite's randomblob is its CSPRNG).
        Stmt::new(
            format!(
                "INSERT INTO events (id, account_id, sequence, type, created_at, object, lead_id) \
                 SELECT 'evt_' || lower(hex(randomblob(16))), ?1, \
                     (SELECT event_sequence FROM accounts WHERE id = ?1) \
                         + ROW_NUMBER() OVER (ORDER BY l.id), \
                     'lead.deleted', {now_mark}, json_object('id', l.id, 'card_id', l.card_id), l.id \
                 FROM leads l WHERE l.account_id = ?1 AND {cond}"
            ),
            args(true),
        ),
        Stmt::new(
            format!(
                "UPDATE accounts SET event_sequence = event_sequence + \
                 (SELECT COUNT(*) FROM leads l WHERE l.account_id = ?1 AND {cond}) WHERE id = ?1"
            ),
            args(false),
        ),
        Stmt::new(
            format!(
                "INSERT INTO deliveries (id, account_id, webhook_id, event_id, event_type, \
                     attempt, status, due_at, created_at) \
                 SELECT {next}, ?1, w.id, e.id, e.type, 1, 'pending', {now_mark}, {now_mark} \
                 FROM events e JOIN webhooks w ON w.account_id = ?1 AND w.status = 'enabled' \
                 WHERE e.lead_id IN ({leads}) AND e.account_id = ?1 AND e.type = 'lead.deleted' \
                   AND EXISTS (SELECT 1 FROM json_each(w.events) \
                               WHERE value IN ('*', 'lead.deleted')) \
                 RETURNING id"
            ),
            args(true),
        ),
        Stmt::new(
            format!(
                "UPDATE events SET object = {REDACTED} \
                 WHERE lead_id IN ({leads}) AND account_id = ?1 AND type = 'lead.created'"
            ),
            args(false),
        ),
        Stmt::new(
            format!("DELETE FROM leads WHERE id IN ({leads}) RETURNING id"),
            args(false),
        ),
    ]
}

/// The number of leads erased, and the webhook attempts to send.
/// `by`: who asked, for the security log (the retention's own erasures are not logged);
/// the entry says how many leads, never whose.
pub async fn erase(
    db: &Shard,
    account_id: i64,
    set: LeadSet<'_>,
    now: i64,
    by: Option<&By>,
) -> Result<(usize, Outbox)> {
    if let LeadSet::Email(_) = set {
        super::leads::fill_account_keys(db, account_id).await?;
    }
    let mut stmts = erase_sql(account_id, set, now);
    if let Some(by) = by {
        stmts.push(erased_log_sql(account_id, by, now));
    }
    let results = batch(db, stmts).await?;
    let erased = row_count(&results, 4)?;
    Ok((erased, Outbox::written(&results, 2)?))
}

/// The security log's entry of an erasure, placed right after [`erase_sql`]'s delete: the
/// number of leads it removed, when it removed any.
pub fn erased_log_sql(account_id: i64, by: &By, now: i64) -> Stmt {
    let of = Of::Erased(account_id);
    log_sql(Log::Shard, &of, Kind::LeadsErased, by, now, When::Changed)
}

/// Blanks the personal fields of the `lead.created` events of a card's leads: run in the
/// batch that deletes the card with its leads, before them.
pub fn redact_card_leads_sql(account_id: i64, card_id: i64) -> Stmt {
    Stmt::new(
        format!(
            "UPDATE events SET object = {REDACTED} \
             WHERE lead_id IN (SELECT id FROM leads WHERE card_id = ?2 AND account_id = ?1) \
               AND account_id = ?1 AND type = 'lead.created'"
        ),
        vec![account_id.into(), card_id.into()],
    )
}

/// An account whose retention period has leads past it.
#[derive(Debug, Default)]
pub struct Retention {
    pub id: i64,
    pub lead_retention_days: i64,
}

impl_row!(Retention {
    id,
    lead_retention_days
});

impl Retention {
    /// Leads created before this are past retention; `day_ms` is a day's length.
    pub fn cutoff(&self, now: i64, day_ms: i64) -> i64 {
        now - self.lead_retention_days * day_ms
    }
}

/// Accounts with leads older than their retention period.
pub fn expired_sql(now: i64, day_ms: i64, limit: i64) -> Stmt {
    Stmt::new(
        "SELECT a.id, a.lead_retention_days FROM accounts a \
         WHERE a.lead_retention_days IS NOT NULL AND EXISTS (SELECT 1 FROM leads l \
             WHERE l.account_id = a.id AND l.created_at < ?1 - a.lead_retention_days * ?2) \
         ORDER BY a.id LIMIT +?3",
        vec![now.into(), day_ms.into(), limit.into()],
    )
}

pub async fn expired(db: &Shard, now: i64, day_ms: i64, limit: i64) -> Result<Vec<Retention>> {
    select(db, expired_sql(now, day_ms, limit)).await
}
