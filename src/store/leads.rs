//! Leads in D1. `account_id` is denormalised from the card so every read is scoped by it.

use std::sync::OnceLock;

use worker::Result;

use super::change::Change;
use super::events::Source;
use super::outbox::Outbox;
use super::row::impl_row;
use super::views::{joined, lead_object, JsonText};
use super::{batch, columns_of, rows_of, select, Count, SqlValue, Stmt};
use crate::db::Shard;
use crate::domain::email_key::email_key;
use crate::domain::event::EventType;
use crate::domain::lead::lead_fields;
use crate::domain::lead::{CardSummary, Lead, LeadInput};
use crate::domain::pagination::Page;
use crate::js::normalize;

/// `impl_row!` for the record of a field list whose fields are its columns.
macro_rules! record_row {
    ($record:ident; $($field:ident: $kind:ident $(($($arg:tt)*))? $(if $f:ident else $off:tt)?,)*) => {
        impl_row!($record { $($field),* });
    };
}

// Lead rows decode into the domain's types directly: their fields are the columns.
lead_fields!(record_row Lead;);
impl_row!(CardSummary {
    id,
    slug,
    title,
    first_name,
    last_name,
});

/// The columns of [`Lead`], which rows decode into directly.
pub fn lead_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<Lead>(""))
}

pub fn create_sql(account_id: i64, card_id: i64, lead: &LeadInput, source: &str, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "INSERT INTO leads (id, account_id, card_id, name, email, phone, message, source, \
             consent_at, created_at, updated_at, email_key) \
             VALUES ({}, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, ?8, ?8, ?10) RETURNING {}",
            super::next_id("?1", false),
            lead_columns()
        ),
        vec![
            account_id.into(),
            card_id.into(),
            lead.name.as_str().into(),
            lead.email.as_str().into(),
            lead.phone.clone().into(),
            lead.message.clone().into(),
            source.into(),
            now.into(),
            lead.consent.then_some(now).into(),
            email_key(&lead.email, normalize).into(),
        ],
    )
}

/// Inserts the lead and its `lead.created` event in one transaction.
pub async fn create(
    db: &Shard,
    account_id: i64,
    card_id: i64,
    lead: &LeadInput,
    source: &str,
    now: i64,
) -> Result<(Option<Lead>, Outbox)> {
    let insert = create_sql(account_id, card_id, lead, source, now);
    let done = Change::new(account_id, EventType::LeadCreated, now)?
        .commit(db, Source::InsertedLead, vec![insert], vec![])
        .await?;
    Ok((done.before::<Lead>(0)?.into_iter().next(), done.outbox))
}

/// Which leads a list shows.
#[derive(Debug, Clone, Default)]
pub struct LeadFilter {
    /// One card (of this account, or nothing matches).
    pub card: Option<i64>,
    /// Updated at or after this instant (extensions.md 2).
    pub since: Option<i64>,
    /// One address, in any case of any script: matched on its key (domain::email_key).
    pub email: Option<String>,
}

/// The filter's conditions over `?1` (the account) to `?4`, and their arguments. D1
/// refuses bindings a statement does not use, so `?2` to `?4` appear in every form.
fn filtered(account_id: i64, filter: &LeadFilter) -> (String, Vec<SqlValue>) {
    let card = if filter.card.is_some() {
        "card_id = ?2"
    } else {
        "?2 IS NULL"
    };
    let since = if filter.since.is_some() {
        "updated_at >= ?3"
    } else {
        "?3 IS NULL"
    };
    let email = if filter.email.is_some() {
        "email_key = ?4"
    } else {
        "?4 IS NULL"
    };
    let args = vec![
        account_id.into(),
        filter.card.into(),
        filter.since.into(),
        filter
            .email
            .as_deref()
            .map(|e| email_key(e, normalize))
            .into(),
    ];
    (
        format!("account_id = ?1 AND {card} AND {since} AND {email}"),
        args,
    )
}

fn count_sql(account_id: i64, filter: &LeadFilter) -> Stmt {
    let (clauses, args) = filtered(account_id, filter);
    Stmt::new(
        format!("SELECT COUNT(*) AS n FROM leads WHERE {clauses}"),
        args,
    )
}

/// Newest first, with the count.
pub fn list_sql(account_id: i64, filter: &LeadFilter, page: Page) -> Vec<Stmt> {
    let (clauses, mut page_args) = filtered(account_id, filter);
    page_args.extend([page.per_page.into(), page.offset().into()]);
    vec![
        count_sql(account_id, filter),
        Stmt::new(
            joined(&format!(
                "SELECT created_at AS k1, id AS k2, {} AS json FROM leads WHERE {clauses} \
                 ORDER BY created_at DESC, id DESC LIMIT +?5 OFFSET ?6",
                lead_object()
            )),
            page_args,
        ),
    ]
}

/// Leads the filter keeps, as records, newest first: `limit` of them after the lead
/// `after` (`created_at`, `id`) when given, from `offset`.
fn records_sql(
    account_id: i64,
    filter: &LeadFilter,
    after: Option<(i64, i64)>,
    limit: i64,
    offset: i64,
) -> Stmt {
    let (clauses, mut args) = filtered(account_id, filter);
    let after_clause = match after {
        Some(_) => "(created_at, id) < (?5, ?6)",
        None => "?5 IS NULL AND ?6 IS NULL",
    };
    args.extend([
        after.map(|a| a.0).into(),
        after.map(|a| a.1).into(),
        limit.into(),
        offset.into(),
    ]);
    Stmt::new(
        format!(
            "SELECT {} FROM leads WHERE {clauses} AND {after_clause} \
             ORDER BY created_at DESC, id DESC LIMIT +?7 OFFSET ?8",
            lead_columns()
        ),
        args,
    )
}

/// A page of the leads the filter keeps, as records, and their count: the account area's
/// leads page.
pub fn page_sql(account_id: i64, filter: &LeadFilter, page: Page) -> Vec<Stmt> {
    vec![
        count_sql(account_id, filter),
        records_sql(account_id, filter, None, page.per_page, page.offset()),
    ]
}

/// Up to `limit` leads the filter keeps after the lead `after` (`created_at`, `id`; the
/// newest when none), newest first: a step of the leads CSV, which pages by key, so a
/// lead made or erased meanwhile moves no other into or out of the file.
pub fn export_sql(
    account_id: i64,
    filter: &LeadFilter,
    after: Option<(i64, i64)>,
    limit: i64,
) -> Stmt {
    records_sql(account_id, filter, after, limit, 0)
}

/// A page of records and the count (see [`page_sql`]); an address is matched on its key,
/// so the account's leads are keyed first.
pub async fn page(
    db: &Shard,
    account_id: i64,
    filter: &LeadFilter,
    page: Page,
) -> Result<(Vec<Lead>, i64)> {
    if filter.email.is_some() {
        fill_account_keys(db, account_id).await?;
    }
    let results = batch(db, page_sql(account_id, filter, page)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows_of(&results, 1)?, total))
}

/// A step of the CSV (see [`export_sql`]). The caller keys the account's leads
/// ([`fill_account_keys`]) before the first step of an address.
pub async fn export(
    db: &Shard,
    account_id: i64,
    filter: &LeadFilter,
    after: Option<(i64, i64)>,
    limit: i64,
) -> Result<Vec<Lead>> {
    select(db, export_sql(account_id, filter, after, limit)).await
}

pub async fn list(
    db: &Shard,
    account_id: i64,
    filter: &LeadFilter,
    page: Page,
) -> Result<(Vec<JsonText>, i64)> {
    if filter.email.is_some() {
        fill_account_keys(db, account_id).await?;
    }
    let results = batch(db, list_sql(account_id, filter, page)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows_of(&results, 1)?, total))
}

/// The lead and its card's summary, in one round trip.
pub fn get_sql(account_id: i64, id: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            format!(
                "SELECT {} FROM leads WHERE id = ?1 AND account_id = ?2",
                lead_columns()
            ),
            vec![id.into(), account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM leads l JOIN cards c ON c.id = l.card_id \
                 WHERE l.id = ?1 AND l.account_id = ?2 AND c.account_id = ?2",
                columns_of::<CardSummary>("c.")
            ),
            vec![id.into(), account_id.into()],
        ),
    ]
}

pub async fn get(db: &Shard, account_id: i64, id: i64) -> Result<Option<(Lead, CardSummary)>> {
    let results = batch(db, get_sql(account_id, id)).await?;
    let lead = rows_of::<Lead>(&results, 0)?.into_iter().next();
    let card = rows_of::<CardSummary>(&results, 1)?.into_iter().next();
    Ok(lead.zip(card))
}

/// Leads without an `email_key`: those of migrations/0006 whose address is not pure ASCII
/// (SQL cannot fold it) and any a worker of the previous version inserted after it.
/// Of one account (through `leads_account_email_key`), or of any (`leads_email_key_missing`).
pub fn missing_keys_sql(account_id: Option<i64>, limit: i64) -> Stmt {
    match account_id {
        Some(account_id) => Stmt::new(
            "SELECT id, email FROM leads WHERE account_id = ?1 AND email_key IS NULL \
             LIMIT +?2",
            vec![account_id.into(), limit.into()],
        ),
        None => Stmt::new(
            "SELECT id, email FROM leads WHERE email_key IS NULL LIMIT +?1",
            vec![limit.into()],
        ),
    }
}

/// Sets a lead's key once; `updated_at` stays, as nothing a client sees changed.
pub fn set_key_sql(id: i64, key: &str) -> Stmt {
    Stmt::new(
        "UPDATE leads SET email_key = ?2 WHERE id = ?1 AND email_key IS NULL",
        vec![id.into(), key.into()],
    )
}

/// A lead whose key is to be computed.
#[derive(Debug, Default)]
pub struct Unkeyed {
    pub id: i64,
    pub email: Option<String>,
}

impl_row!(Unkeyed { id, email });

/// Keys computed per batch: one statement each, in one D1 batch.
const KEY_BATCH: i64 = 100;

/// Computes up to [`KEY_BATCH`] missing keys (of one account, or of any); how many.
pub async fn fill_keys(db: &Shard, account_id: Option<i64>) -> Result<usize> {
    let rows: Vec<Unkeyed> = select(db, missing_keys_sql(account_id, KEY_BATCH)).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    // A lead without an address gets the empty key, which no query value has.
    let stmts = rows
        .iter()
        .map(|r| {
            set_key_sql(
                r.id,
                &email_key(r.email.as_deref().unwrap_or(""), normalize),
            )
        })
        .collect();
    batch(db, stmts).await?;
    Ok(rows.len())
}

/// Batches one request may spend keying an account's leads before matching by address.
const KEY_BATCHES_PER_REQUEST: usize = 20;

/// Keys every lead of the account before a match on `email_key`, so no lead is missed
/// while the cron (upkeep::fill_email_keys) has not reached it. Once the backlog is gone
/// this is one indexed read. A backlog beyond the bound is an error (the client retries
/// after the cron's next runs), never a silently shorter answer.
pub async fn fill_account_keys(db: &Shard, account_id: i64) -> Result<()> {
    for _ in 0..KEY_BATCHES_PER_REQUEST {
        if (fill_keys(db, Some(account_id)).await? as i64) < KEY_BATCH {
            return Ok(());
        }
    }
    Err(worker::Error::RustError(format!(
        "account {account_id}: leads still without an email key; retry"
    )))
}
