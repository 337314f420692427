//! Cards in D1.

use worker::{D1Database, Result};

use super::{first, int, rows, stmt, text, Count, SqlValue};
use crate::domain::card::{CardChanges, CardRow, CARD_COLUMNS};
use crate::domain::lead::{LeadRow, LEAD_COLUMNS};
use crate::domain::pagination::Page;

pub async fn list(db: &D1Database, account_id: i64, page: Page) -> Result<(Vec<CardRow>, i64)> {
    let results = db
        .batch(vec![
            stmt(
                db,
                "SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1",
                &[int(account_id)],
            )?,
            stmt(
                db,
                &format!(
                    "SELECT {CARD_COLUMNS} FROM cards WHERE account_id = ?1 \
                     ORDER BY updated_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                ),
                &[int(account_id), int(page.per_page), int(page.offset())],
            )?,
        ])
        .await?;
    let total = rows::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows(&results, 1)?, total))
}

pub async fn get(db: &D1Database, account_id: i64, id: i64) -> Result<Option<CardRow>> {
    first(
        db,
        &format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = ?1 AND account_id = ?2"),
        &[int(id), int(account_id)],
    )
    .await
}

/// The card and all its leads, newest first, in one round trip.
pub async fn get_with_leads(
    db: &D1Database,
    account_id: i64,
    id: i64,
) -> Result<Option<(CardRow, Vec<LeadRow>)>> {
    let results = db
        .batch(vec![
            stmt(
                db,
                &format!("SELECT {CARD_COLUMNS} FROM cards WHERE id = ?1 AND account_id = ?2"),
                &[int(id), int(account_id)],
            )?,
            stmt(
                db,
                &format!(
                    "SELECT {LEAD_COLUMNS} FROM leads WHERE card_id = ?1 AND account_id = ?2 \
                     ORDER BY created_at DESC, id DESC"
                ),
                &[int(id), int(account_id)],
            )?,
        ])
        .await?;
    let card = rows::<CardRow>(&results, 0)?.into_iter().next();
    Ok(match card {
        Some(card) => Some((card, rows(&results, 1)?)),
        None => None,
    })
}

pub async fn exists(db: &D1Database, account_id: i64, id: i64) -> Result<bool> {
    let row: Option<Count> = first(
        db,
        "SELECT COUNT(*) AS n FROM cards WHERE id = ?1 AND account_id = ?2",
        &[int(id), int(account_id)],
    )
    .await?;
    Ok(row.is_some_and(|c| c.n > 0))
}

pub async fn by_slug(db: &D1Database, slug: &str) -> Result<Option<CardRow>> {
    first(
        db,
        &format!("SELECT {CARD_COLUMNS} FROM cards WHERE slug = ?1"),
        &[text(slug)],
    )
    .await
}

pub enum Created {
    Card(Box<CardRow>),
    LimitReached,
}

/// Inserts a card in one statement that is atomic in D1: it picks the first free slug
/// (`base`, `base-2`, ...) and inserts only while the account is under `limit`, so
/// concurrent creates can neither share a slug nor exceed the limit.
pub async fn create(
    db: &D1Database,
    account_id: i64,
    changes: &CardChanges,
    base_slug: &str,
    title: &str,
    limit: i64,
    now: i64,
) -> Result<Created> {
    let mut cols = vec![
        "account_id",
        "title",
        "status",
        "published_at",
        "created_at",
        "updated_at",
    ];
    let mut args = vec![
        int(account_id),
        text(title),
        text("active"),
        int(now),
        int(now),
        int(now),
        text(base_slug),
        int(limit),
    ];
    for (col, value) in &changes.values {
        cols.push(col);
        args.push(value.clone());
    }
    // ?1..?6 are the fixed columns, ?7 the slug base, ?8 the limit, then the changes.
    let mut values: Vec<String> = (1..=6).map(|i| format!("?{i}")).collect();
    values.extend((9..=args.len()).map(|i| format!("?{i}")));
    let sql = format!(
        "INSERT INTO cards (slug, {cols}) \
         SELECT (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 1000000) \
                 SELECT CASE WHEN i = 1 THEN ?7 ELSE ?7 || '-' || i END FROM n \
                 WHERE NOT EXISTS (SELECT 1 FROM cards c \
                     WHERE c.slug = CASE WHEN n.i = 1 THEN ?7 ELSE ?7 || '-' || n.i END) \
                 LIMIT 1), {values} \
         WHERE (SELECT COUNT(*) FROM cards WHERE account_id = ?1) < ?8 \
         RETURNING {CARD_COLUMNS}",
        cols = cols.join(", "),
        values = values.join(", "),
    );
    Ok(match first::<CardRow>(db, &sql, &args).await? {
        Some(card) => Created::Card(Box::new(card)),
        None => Created::LimitReached,
    })
}

/// Applies the changes; `updated_at` strictly increases even within one millisecond.
pub async fn update(
    db: &D1Database,
    account_id: i64,
    id: i64,
    changes: &CardChanges,
    now: i64,
) -> Result<Option<CardRow>> {
    let mut sets = vec!["updated_at = MAX(?3, updated_at + 1)".to_string()];
    let mut args: Vec<SqlValue> = vec![int(id), int(account_id), int(now)];
    for (col, value) in &changes.values {
        args.push(value.clone());
        sets.push(format!("{col} = ?{}", args.len()));
    }
    let sql = format!(
        "UPDATE cards SET {} WHERE id = ?1 AND account_id = ?2 RETURNING {CARD_COLUMNS}",
        sets.join(", ")
    );
    first(db, &sql, &args).await
}

/// Deletes the card and its leads together; `false` when the account has no such card.
pub async fn delete(db: &D1Database, account_id: i64, id: i64) -> Result<bool> {
    let results = db
        .batch(vec![
            stmt(
                db,
                "DELETE FROM leads WHERE card_id = ?1 AND account_id = ?2",
                &[int(id), int(account_id)],
            )?,
            stmt(
                db,
                "DELETE FROM cards WHERE id = ?1 AND account_id = ?2 RETURNING id",
                &[int(id), int(account_id)],
            )?,
        ])
        .await?;
    Ok(!rows::<serde_json::Value>(&results, 1)?.is_empty())
}
