//! Company templates in D1 (teams.md 1): their rows, the representation SQLite builds
//! (`views::template_object`), and each change with its event in one batch.

use worker::Result;

use super::change::{Change, Committed};
use super::events::Source;
use super::outbox::Outbox;
use super::row::impl_row;
use super::views::{template_object, JsonText};
use super::{batch, rows_of, select, select_first, Columns, Count, SqlValue, Stmt};
use crate::db::Shard;
use crate::domain::card::CardPatch;
use crate::domain::event::EventType;
use crate::domain::pagination::Page;
use crate::domain::template::{locks_of, values_of, TemplateInput, MAX_TEMPLATES};

/// A template as the write path reads it.
#[derive(Debug, Clone, Default)]
pub struct TemplateRow {
    pub id: i64,
    pub layout: String,
    pub fields: String,
    pub locked: String,
    pub rev: i64,
}
impl_row!(TemplateRow {
    id,
    layout,
    fields,
    locked,
    rev
});

/// The account's template of this id, as stored.
pub fn stored_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        "SELECT id, layout, fields, locked, rev FROM templates WHERE id = ?1 AND account_id = ?2",
        vec![id.into(), account_id.into()],
    )
}

pub async fn stored(db: &Shard, account_id: i64, id: i64) -> Result<Option<TemplateRow>> {
    select_first(db, stored_sql(account_id, id)).await
}

/// The account's templates by name, then id, and their count.
pub fn list_sql(account_id: i64, page: Page) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM templates WHERE account_id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} AS json FROM templates t WHERE t.account_id = ?1 \
                 ORDER BY t.name, t.id LIMIT +?2 OFFSET ?3",
                template_object()
            ),
            vec![
                account_id.into(),
                page.per_page.into(),
                page.offset().into(),
            ],
        ),
    ]
}

pub async fn list(db: &Shard, account_id: i64, page: Page) -> Result<(Vec<JsonText>, i64)> {
    let results = batch(db, list_sql(account_id, page)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows_of(&results, 1)?, total))
}

pub fn get_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} AS json FROM templates t WHERE t.id = ?1 AND t.account_id = ?2",
            template_object()
        ),
        vec![id.into(), account_id.into()],
    )
}

pub async fn get(db: &Shard, account_id: i64, id: i64) -> Result<Option<JsonText>> {
    select_first(db, get_sql(account_id, id)).await
}

/// `default: true` clears it on the account's other templates (`?3` true) while the
/// template `?2` exists (`0`: the one being made, while the account is under the limit).
pub fn clear_default_sql(account_id: i64, id: i64, default: Option<bool>) -> Stmt {
    Stmt::new(
        "UPDATE templates SET is_default = 0 WHERE account_id = ?1 AND id <> ?2 AND ?3 = 1 \
         AND is_default = 1 AND (CASE WHEN ?2 = 0 \
         THEN (SELECT COUNT(*) FROM templates WHERE account_id = ?1) < ?4 \
         ELSE EXISTS (SELECT 1 FROM templates WHERE id = ?2 AND account_id = ?1) END)",
        vec![
            account_id.into(),
            id.into(),
            default.unwrap_or(false).into(),
            MAX_TEMPLATES.into(),
        ],
    )
}

/// Inserts the template while the account has fewer than [`MAX_TEMPLATES`].
pub fn create_sql(account_id: i64, t: &TemplateInput, now: i64) -> Stmt {
    Stmt::new(
        format!(
            "INSERT INTO templates (id, account_id, name, layout, fields, locked, is_default, \
                 created_at, updated_at) \
             SELECT {}, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7 \
             WHERE (SELECT COUNT(*) FROM templates WHERE account_id = ?1) < ?8 RETURNING id",
            super::next_id("?1", false)
        ),
        vec![
            account_id.into(),
            t.name.as_deref().unwrap_or_default().into(),
            t.layout.unwrap_or("classic").into(),
            t.values.as_deref().unwrap_or("{}").into(),
            t.locked.as_deref().unwrap_or("[]").into(),
            t.default.unwrap_or(false).into(),
            now.into(),
            MAX_TEMPLATES.into(),
        ],
    )
}

struct IdRow {
    id: i64,
}
impl_row!(IdRow { id });

/// A template change with its event: one copy of the commit for the three of them.
async fn commit(
    db: &Shard,
    account_id: i64,
    kind: EventType,
    source: Source,
    before: Vec<Stmt>,
    after: Vec<Stmt>,
    now: i64,
) -> Result<Committed> {
    Change::new(account_id, kind, now)?
        .commit(db, source, before, after)
        .await
}

/// Makes the template with its `template.created` event; its id, or `None` at the limit.
pub async fn create(
    db: &Shard,
    account_id: i64,
    t: &TemplateInput,
    now: i64,
) -> Result<(Option<i64>, Outbox)> {
    let stmts = vec![
        clear_default_sql(account_id, 0, t.default),
        create_sql(account_id, t, now),
    ];
    let done = commit(
        db,
        account_id,
        EventType::TemplateCreated,
        Source::InsertedTemplate,
        stmts,
        vec![],
        now,
    )
    .await?;
    let id = done.before::<IdRow>(1)?.first().map(|r| r.id);
    Ok((id, done.outbox))
}

/// Changes the fields sent; `rev` goes up when the layout, values or locks change.
pub fn update_sql(account_id: i64, id: i64, t: &TemplateInput, now: i64) -> Stmt {
    let opt = |s: Option<&str>| s.map_or(SqlValue::Null, Into::into);
    Stmt::new(
        "UPDATE templates SET name = COALESCE(?4, name), layout = COALESCE(?5, layout), \
             fields = COALESCE(?6, fields), locked = COALESCE(?7, locked), \
             is_default = COALESCE(?8, is_default), \
             rev = rev + (COALESCE(?5, layout) IS NOT layout OR COALESCE(?6, fields) IS NOT fields \
                 OR COALESCE(?7, locked) IS NOT locked), \
             updated_at = MAX(?3, updated_at + 1) \
         WHERE id = ?1 AND account_id = ?2 RETURNING id",
        vec![
            id.into(),
            account_id.into(),
            now.into(),
            opt(t.name.as_deref()),
            opt(t.layout),
            opt(t.values.as_deref()),
            opt(t.locked.as_deref()),
            t.default.map_or(SqlValue::Null, Into::into),
        ],
    )
}

/// Changes the template with its `template.updated` event; `false` when there is none.
pub async fn update(
    db: &Shard,
    account_id: i64,
    id: i64,
    t: &TemplateInput,
    now: i64,
) -> Result<(bool, Outbox)> {
    let stmts = vec![
        clear_default_sql(account_id, id, t.default),
        update_sql(account_id, id, t, now),
    ];
    let source = Source::UpdatedTemplate(id);
    let done = commit(
        db,
        account_id,
        EventType::TemplateUpdated,
        source,
        stmts,
        vec![],
        now,
    )
    .await?;
    Ok((!done.before::<IdRow>(1)?.is_empty(), done.outbox))
}

pub fn delete_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM templates WHERE id = ?1 AND account_id = ?2 RETURNING id",
        vec![id.into(), account_id.into()],
    )
}

/// Deletes the template with its `template.deleted` event; `false` when there is none.
pub async fn delete(db: &Shard, account_id: i64, id: i64, now: i64) -> Result<(bool, Outbox)> {
    let (source, after) = (
        Source::DeletingTemplate(id),
        vec![delete_sql(account_id, id)],
    );
    let done = commit(
        db,
        account_id,
        EventType::TemplateDeleted,
        source,
        vec![],
        after,
        now,
    )
    .await?;
    Ok((done.after_count(0)? > 0, done.outbox))
}

/// The template a card write applies (teams.md 1): `tpl_{by_id}` when the write names one,
/// else the card's own (`card`: an update), else the account's default (a create).
pub fn for_write_sql(account_id: i64, by_id: Option<i64>, card: Option<i64>) -> Stmt {
    Stmt::new(
        "SELECT id, layout, fields, locked, rev FROM templates WHERE account_id = ?1 AND \
         CASE WHEN ?2 IS NOT NULL THEN id = ?2 \
              WHEN ?3 IS NOT NULL THEN 'tpl_' || id = \
                  (SELECT template_id FROM cards WHERE id = ?3 AND account_id = ?1) \
              ELSE is_default = 1 END",
        vec![account_id.into(), by_id.into(), card.into()],
    )
}

pub async fn for_write(
    db: &Shard,
    account_id: i64,
    by_id: Option<i64>,
    card: Option<i64>,
) -> Result<Option<TemplateRow>> {
    select_first(db, for_write_sql(account_id, by_id, card)).await
}

/// Templates (of any account) with cards not yet in line with their latest change.
pub fn behind_sql() -> Stmt {
    Stmt::new(
        "SELECT t.account_id AS account_id, t.id AS id FROM templates t WHERE EXISTS \
         (SELECT 1 FROM cards c WHERE c.account_id = t.account_id \
          AND c.template_id = 'tpl_' || t.id AND IFNULL(c.template_rev, 0) < t.rev) LIMIT +?1",
        vec![100.into()],
    )
}

struct Behind {
    account_id: i64,
    id: i64,
}
impl_row!(Behind { account_id, id });

pub async fn behind(db: &Shard) -> Result<Vec<(i64, i64)>> {
    let rows: Vec<Behind> = select(db, behind_sql()).await?;
    Ok(rows.into_iter().map(|r| (r.account_id, r.id)).collect())
}

/// A card's `template_id` of the template: bound as text, as D1 binds numbers as floats
/// (`'tpl_' || ?` would read `tpl_7.0`).
fn tpl(id: i64) -> SqlValue {
    format!("tpl_{id}").into()
}

/// Cards of the template not yet in line with its `rev`, by id.
pub fn pending_sql(account_id: i64, id: i64, rev: i64, limit: i64) -> Stmt {
    Stmt::new(
        "SELECT id FROM cards WHERE account_id = ?1 AND template_id = ?2 \
         AND IFNULL(template_rev, 0) < ?3 ORDER BY id LIMIT +?4",
        vec![account_id.into(), tpl(id), rev.into(), limit.into()],
    )
}

/// One card brought in line with the template (teams.md 1): its locked columns set where
/// one differs (a card write: `updated_at` moves, `card.updated` follows in the batch),
/// then its `template_rev` recorded whether or not anything differed. Both only while the
/// card still uses the template and is behind `rev`, so a step run again writes nothing.
pub fn align_sql(
    account_id: i64,
    card: i64,
    t: &TemplateRow,
    locked: &Columns,
    now: i64,
) -> [Stmt; 2] {
    let mut args: Vec<SqlValue> = vec![
        card.into(),
        account_id.into(),
        tpl(t.id),
        t.rev.into(),
        now.into(),
    ];
    let guard = "WHERE id = ?1 AND account_id = ?2 AND template_id = ?3 \
                 AND IFNULL(template_rev, 0) < ?4";
    let (mut sets, mut differs) = (vec![], vec![]);
    for (col, value) in &locked.0 {
        args.push(value.clone());
        sets.push(format!("{col} = ?{}", args.len()));
        differs.push(format!("{col} IS NOT ?{}", args.len()));
    }
    let differs = match differs.is_empty() {
        true => "0".to_string(),
        false => differs.join(" OR "),
    };
    sets.push("template_rev = ?4, updated_at = MAX(?5, updated_at + 1)".into());
    [
        Stmt::new(
            format!(
                "UPDATE cards SET {} {guard} AND ({differs})",
                sets.join(", ")
            ),
            args,
        ),
        Stmt::new(
            format!("UPDATE cards SET template_rev = ?4 {guard}"),
            vec![card.into(), account_id.into(), tpl(t.id), t.rev.into()],
        ),
    ]
}

/// A card of a deleted template leaves it, keeping its values (a card write).
pub fn unlink_sql(account_id: i64, card: i64, id: i64, now: i64) -> Stmt {
    Stmt::new(
        "UPDATE cards SET template_id = NULL, template_rev = NULL, \
         updated_at = MAX(?4, updated_at + 1) \
         WHERE id = ?1 AND account_id = ?2 AND template_id = ?3",
        vec![card.into(), account_id.into(), tpl(id), now.into()],
    )
}

/// Brings up to `limit` cards of the template in line (of a deleted one: unlinks them), in one batch; how many were
/// looked at (fewer than `limit`: none is left) and the webhook attempts to send.
pub async fn align(
    db: &Shard,
    account_id: i64,
    id: i64,
    limit: i64,
    now: i64,
) -> Result<(usize, Outbox)> {
    // A deleted template's cards leave it (rev 0: every card of it is behind).
    let t = stored(db, account_id, id).await?;
    let rev = t.as_ref().map_or(1 << 52, |t| t.rev);
    let cards: Vec<IdRow> = select(db, pending_sql(account_id, id, rev, limit)).await?;
    let locked = t.as_ref().map(locked_columns);
    let mut stmts = vec![];
    let mut fanouts = vec![];
    for card in &cards {
        let (write, after) = match (&t, &locked) {
            (Some(t), Some(locked)) => {
                let [write, mark] = align_sql(account_id, card.id, t, locked, now);
                (write, vec![mark])
            }
            _ => (unlink_sql(account_id, card.id, id, now), vec![]),
        };
        let change = Change::new(account_id, EventType::CardUpdated, now)?;
        fanouts.push(stmts.len() + 3);
        stmts.extend(change.statements(Source::UpdatedCard(card.id), vec![write], after));
    }
    if stmts.is_empty() {
        return Ok((0, Outbox::default()));
    }
    let results = batch(db, stmts).await?;
    let mut sent = Outbox::default();
    for i in fanouts {
        sent.0.extend(Outbox::written(&results, i)?.0);
    }
    Ok((cards.len(), sent))
}

/// The template's locked values as the card columns they set.
fn locked_columns(t: &TemplateRow) -> Columns {
    let (values, locked) = (values_of(&t.fields), locks_of(&t.locked));
    let patch = CardPatch::parse(&values).unwrap_or_default();
    let mut c = Columns::default();
    for (col, write) in patch.writes() {
        if locked.iter().any(|l| l == col) {
            c.field(col, &write);
        }
    }
    c
}

#[cfg(test)]
pub fn locked_columns_for_test(t: &TemplateRow) -> Columns {
    locked_columns(t)
}
