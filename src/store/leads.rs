//! Leads in D1. `account_id` is denormalised from the card so every read is scoped by it.

use std::sync::OnceLock;

use worker::{D1Database, Result};

use super::{batch, columns_of, first, rows, Count, SqlValue, Stmt};
use crate::domain::lead::{CardSummary, Lead, LeadInput};
use crate::domain::pagination::Page;

/// The columns of [`Lead`], which rows decode into directly.
pub fn lead_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<Lead>(""))
}

pub fn create_sql(account_id: i64, card_id: i64, lead: &LeadInput, source: &str, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "INSERT INTO leads (account_id, card_id, name, email, phone, message, source, \
             created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING {}",
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
        ],
    )
}

pub async fn create(
    db: &D1Database,
    account_id: i64,
    card_id: i64,
    lead: &LeadInput,
    source: &str,
    now: i64,
) -> Result<Option<Lead>> {
    first(db, create_sql(account_id, card_id, lead, source, now)).await
}

/// Newest first; `card` narrows to one card (of this account, or nothing matches).
pub fn list_sql(account_id: i64, card: Option<i64>, page: Page) -> Vec<Stmt> {
    // D1 refuses bindings a statement does not use, so ?2 appears in both forms.
    let filter = if card.is_some() {
        "card_id = ?2"
    } else {
        "?2 IS NULL"
    };
    let card_arg = SqlValue::from(card);
    vec![
        Stmt::new(
            format!("SELECT COUNT(*) AS n FROM leads WHERE account_id = ?1 AND {filter}"),
            vec![account_id.into(), card_arg.clone()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM leads WHERE account_id = ?1 AND {filter} \
                 ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4",
                lead_columns()
            ),
            vec![
                account_id.into(),
                card_arg,
                page.per_page.into(),
                page.offset().into(),
            ],
        ),
    ]
}

pub async fn list(
    db: &D1Database,
    account_id: i64,
    card: Option<i64>,
    page: Page,
) -> Result<(Vec<Lead>, i64)> {
    let results = batch(db, list_sql(account_id, card, page)).await?;
    let total = rows::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows(&results, 1)?, total))
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

pub async fn get(db: &D1Database, account_id: i64, id: i64) -> Result<Option<(Lead, CardSummary)>> {
    let results = batch(db, get_sql(account_id, id)).await?;
    let lead = rows::<Lead>(&results, 0)?.into_iter().next();
    let card = rows::<CardSummary>(&results, 1)?.into_iter().next();
    Ok(lead.zip(card))
}
