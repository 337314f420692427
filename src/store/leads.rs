//! Leads in D1. `account_id` is denormalised from the card so every read is scoped by it.

use std::sync::OnceLock;

use worker::Result;

use super::events::{self, Source};
use super::outbox::{fanout_sql, Outbox};
use super::row::impl_row;
use super::views::{joined, lead_object, JsonText};
use super::{batch, columns_of, rows_of, Count, SqlValue, Stmt};
use crate::db::Db;
use crate::domain::event::EventType;
use crate::domain::lead::{CardSummary, Lead, LeadInput};
use crate::domain::pagination::Page;

// Lead rows decode into the domain's types directly: their fields are the columns.
impl_row!(Lead {
    id,
    card_id,
    name,
    email,
    phone,
    message,
    note,
    source,
    consent_at,
    created_at,
    updated_at,
});
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
            "INSERT INTO leads (account_id, card_id, name, email, phone, message, source, \
             consent_at, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, ?8, ?8) RETURNING {}",
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
        ],
    )
}

/// Inserts the lead and its `lead.created` event in one transaction.
pub async fn create(
    db: &Db,
    account_id: i64,
    card_id: i64,
    lead: &LeadInput,
    source: &str,
    now: i64,
) -> Result<(Option<Lead>, Outbox)> {
    let event = events::new_id()?;
    let [append, bump] = events::append_sql(
        account_id,
        &event,
        EventType::LeadCreated,
        now,
        Source::InsertedLead,
    );
    let stmts = vec![
        create_sql(account_id, card_id, lead, source, now),
        append,
        bump,
        fanout_sql(account_id, &event, EventType::LeadCreated, now),
    ];
    let results = batch(db, stmts).await?;
    let lead = rows_of::<Lead>(&results, 0)?.into_iter().next();
    Ok((lead, Outbox::written(&results, 3)?))
}

/// Which leads a list shows.
#[derive(Debug, Clone, Default)]
pub struct LeadFilter {
    /// One card (of this account, or nothing matches).
    pub card: Option<i64>,
    /// Updated at or after this instant (extensions.md 2).
    pub since: Option<i64>,
    /// One address, any ASCII case (extensions.md 8).
    pub email: Option<String>,
}

/// Newest first, with the count.
pub fn list_sql(account_id: i64, filter: &LeadFilter, page: Page) -> Vec<Stmt> {
    // D1 refuses bindings a statement does not use, so ?2 to ?4 appear in every form.
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
        "email = ?4 COLLATE NOCASE"
    } else {
        "?4 IS NULL"
    };
    let args = || -> Vec<SqlValue> {
        vec![
            account_id.into(),
            filter.card.into(),
            filter.since.into(),
            filter.email.clone().into(),
        ]
    };
    let mut page_args = args();
    page_args.extend([page.per_page.into(), page.offset().into()]);
    vec![
        Stmt::new(
            format!(
                "SELECT COUNT(*) AS n FROM leads \
                 WHERE account_id = ?1 AND {card} AND {since} AND {email}"
            ),
            args(),
        ),
        Stmt::new(
            joined(&format!(
                "SELECT created_at AS k1, id AS k2, {} AS json FROM leads \
                 WHERE account_id = ?1 AND {card} AND {since} AND {email} \
                 ORDER BY created_at DESC, id DESC LIMIT +?5 OFFSET ?6",
                lead_object()
            )),
            page_args,
        ),
    ]
}

pub async fn list(
    db: &Db,
    account_id: i64,
    filter: &LeadFilter,
    page: Page,
) -> Result<(Vec<JsonText>, i64)> {
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

pub async fn get(db: &Db, account_id: i64, id: i64) -> Result<Option<(Lead, CardSummary)>> {
    let results = batch(db, get_sql(account_id, id)).await?;
    let lead = rows_of::<Lead>(&results, 0)?.into_iter().next();
    let card = rows_of::<CardSummary>(&results, 1)?.into_iter().next();
    Ok(lead.zip(card))
}
