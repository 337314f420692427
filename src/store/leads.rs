//! Leads in D1. `account_id` is denormalised from the card so every read is scoped by it.

use worker::{D1Database, Result};

use super::{first, int, rows, stmt, text, Count, SqlValue};
use crate::domain::card::CardSummary;
use crate::domain::lead::{LeadInput, LeadRow, LEAD_COLUMNS};
use crate::domain::pagination::Page;

pub async fn create(
    db: &D1Database,
    account_id: i64,
    card_id: i64,
    lead: &LeadInput,
    source: &str,
    now: i64,
) -> Result<Option<LeadRow>> {
    let opt = |v: &Option<String>| v.as_deref().map_or(SqlValue::Null, text);
    first(
        db,
        &format!(
            "INSERT INTO leads (account_id, card_id, name, email, phone, message, source, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING {LEAD_COLUMNS}"
        ),
        &[
            int(account_id),
            int(card_id),
            text(&lead.name),
            text(&lead.email),
            opt(&lead.phone),
            opt(&lead.message),
            text(source),
            int(now),
        ],
    )
    .await
}

/// Newest first; `card` narrows to one card (of this account, or nothing matches).
pub async fn list(
    db: &D1Database,
    account_id: i64,
    card: Option<i64>,
    page: Page,
) -> Result<(Vec<LeadRow>, i64)> {
    // D1 refuses bindings a statement does not use, so ?2 appears in both forms.
    let filter = if card.is_some() {
        "card_id = ?2"
    } else {
        "?2 IS NULL"
    };
    let card_arg = card.map_or(SqlValue::Null, int);
    let results = db
        .batch(vec![
            stmt(
                db,
                &format!("SELECT COUNT(*) AS n FROM leads WHERE account_id = ?1 AND {filter}"),
                &[int(account_id), card_arg.clone()],
            )?,
            stmt(
                db,
                &format!(
                    "SELECT {LEAD_COLUMNS} FROM leads WHERE account_id = ?1 AND {filter} \
                     ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
                ),
                &[
                    int(account_id),
                    card_arg,
                    int(page.per_page),
                    int(page.offset()),
                ],
            )?,
        ])
        .await?;
    let total = rows::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows(&results, 1)?, total))
}

/// The lead and its card's summary, in one round trip.
pub async fn get(
    db: &D1Database,
    account_id: i64,
    id: i64,
) -> Result<Option<(LeadRow, CardSummary)>> {
    let results = db
        .batch(vec![
            stmt(
                db,
                &format!("SELECT {LEAD_COLUMNS} FROM leads WHERE id = ?1 AND account_id = ?2"),
                &[int(id), int(account_id)],
            )?,
            stmt(
                db,
                "SELECT c.id, c.slug, c.title, c.first_name, c.last_name \
                 FROM leads l JOIN cards c ON c.id = l.card_id \
                 WHERE l.id = ?1 AND l.account_id = ?2 AND c.account_id = ?2",
                &[int(id), int(account_id)],
            )?,
        ])
        .await?;
    let lead = rows::<LeadRow>(&results, 0)?.into_iter().next();
    let card = rows::<CardSummary>(&results, 1)?.into_iter().next();
    Ok(lead.zip(card))
}
