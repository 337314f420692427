//! Cards in D1: the one place card columns meet the typed card.

use worker::Result;

use crate::domain::input::Field;

use super::accounts::AccountRow;
use super::card_row::{card_columns, CardRow};
use super::change::Change;
use super::erasure::redact_card_leads_sql;
use super::events::Source;
use super::outbox::Outbox;
use super::row::impl_row;
use super::views::{card_object, joined, lead_object, JsonText};
use super::{batch, columns_of, rows_of, select, select_first, Columns, Count, SqlValue, Stmt};
use crate::db::Shard;
use crate::domain::account::Account;
use crate::domain::card::{Card, CardInput, CardPatch, Status};
use crate::domain::event::EventType;
use crate::domain::lead::LEADS_ON_CARD;
use crate::domain::pagination::Page;
use crate::domain::scim::user_name::user_name_key;
use crate::js::normalize;

/// The columns a patch sets (`CardPatch::writes`).
fn changes(p: &CardPatch) -> Columns {
    let mut c = Columns::default();
    for (column, write) in p.writes() {
        c.field(column, &write);
    }
    c
}

/// Which of the account's cards a list shows.
#[derive(Debug, Clone, Default)]
pub struct CardFilter {
    /// Updated at or after this instant (extensions.md 2).
    pub since: Option<i64>,
    /// The one card of this external id (provisioning.md 1).
    pub external_id: Option<String>,
}

/// A page of the account's cards, most recently updated first, and their count. Every
/// form ranges over an index: `cards_account_updated`, or with an external id
/// `cards_account_external_id` (at most one row).
pub fn list_sql(
    account_id: i64,
    filter: &CardFilter,
    page: Page,
    view: [SqlValue; 4],
) -> Vec<Stmt> {
    // D1 refuses bindings a statement does not use, so each argument appears in every form.
    let (since, external) = (filter.since, filter.external_id.as_deref());
    let clauses = |n: u8| {
        let since = match since {
            Some(_) => format!("updated_at >= ?{n}"),
            None => format!("?{n} IS NULL"),
        };
        let external = match external {
            Some(_) => format!("external_id = ?{}", n + 1),
            None => format!("?{} IS NULL", n + 1),
        };
        format!("{since} AND {external}")
    };
    let mut args = Vec::from(view);
    args.extend([
        account_id.into(),
        since.into(),
        external.into(),
        page.per_page.into(),
        page.offset().into(),
    ]);
    vec![
        Stmt::new(
            format!(
                "SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1 AND {}",
                clauses(2)
            ),
            vec![account_id.into(), since.into(), external.into()],
        ),
        Stmt::new(
            joined(&format!(
                "SELECT updated_at AS k1, id AS k2, {} AS json FROM cards \
                 WHERE account_id = ?5 AND {} \
                 ORDER BY updated_at DESC, id DESC LIMIT +?8 OFFSET ?9",
                card_object(),
                clauses(6)
            )),
            args,
        ),
    ]
}

/// A page of the account's cards as their representations, and the total.
pub async fn list(
    db: &Shard,
    account_id: i64,
    filter: &CardFilter,
    page: Page,
    view: [SqlValue; 4],
) -> Result<(Vec<JsonText>, i64)> {
    let results = batch(db, list_sql(account_id, filter, page, view)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows_of(&results, 1)?, total))
}

/// A card as the account area lists it: the few columns its pages show, not the API's
/// representation.
#[derive(Debug, Clone, Default)]
pub struct CardLine {
    pub id: i64,
    pub slug: String,
    pub title: String,
    pub status: String,
    pub language: String,
    pub updated_at: i64,
}
impl_row!(CardLine {
    id,
    slug,
    title,
    status,
    language,
    updated_at
});

/// The account's number of cards and `limit` of them from `offset`, most recently updated
/// first (through `cards_account_updated`): the account area's cards page, and its card
/// selectors.
pub fn lines_sql(account_id: i64, limit: i64, offset: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM cards WHERE account_id = ?1 \
                 ORDER BY updated_at DESC, id DESC LIMIT +?2 OFFSET ?3",
                columns_of::<CardLine>("")
            ),
            vec![account_id.into(), limit.into(), offset.into()],
        ),
    ]
}

pub async fn lines(
    db: &Shard,
    account_id: i64,
    limit: i64,
    offset: i64,
) -> Result<(Vec<CardLine>, i64)> {
    let results = batch(db, lines_sql(account_id, limit, offset)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    Ok((rows_of(&results, 1)?, total))
}

/// The id of the account's card of this external id.
pub fn id_by_external_sql(account_id: i64, external_id: &str) -> Stmt {
    Stmt::new(
        "SELECT id FROM cards WHERE account_id = ?1 AND external_id = ?2",
        vec![account_id.into(), external_id.into()],
    )
}

pub async fn id_by_external(db: &Shard, account_id: i64, external_id: &str) -> Result<Option<i64>> {
    let row: Option<IdRow> = select_first(db, id_by_external_sql(account_id, external_id)).await?;
    Ok(row.map(|r| r.id))
}

/// The card's and its newest leads' (at most [`LEADS_ON_CARD`]) representations, in one
/// round trip.
pub fn get_with_leads_sql(account_id: i64, id: i64, view: [SqlValue; 4]) -> Vec<Stmt> {
    let mut args = Vec::from(view);
    args.extend([id.into(), account_id.into()]);
    vec![
        Stmt::new(
            format!(
                "SELECT {} AS json FROM cards WHERE id = ?5 AND account_id = ?6",
                card_object()
            ),
            args,
        ),
        Stmt::new(
            joined(&format!(
                "SELECT created_at AS k1, id AS k2, {} AS json FROM leads \
                 WHERE card_id = ?1 AND account_id = ?2 \
                 ORDER BY created_at DESC, id DESC LIMIT +?3",
                lead_object()
            )),
            vec![id.into(), account_id.into(), LEADS_ON_CARD.into()],
        ),
    ]
}

pub async fn get_with_leads(
    db: &Shard,
    account_id: i64,
    id: i64,
    view: [SqlValue; 4],
) -> Result<Option<(JsonText, Vec<JsonText>)>> {
    let results = batch(db, get_with_leads_sql(account_id, id, view)).await?;
    let card = rows_of::<JsonText>(&results, 0)?.into_iter().next();
    Ok(match card {
        Some(card) => Some((card, rows_of(&results, 1)?)),
        None => None,
    })
}

pub fn exists_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        "SELECT COUNT(*) AS n FROM cards WHERE id = ?1 AND account_id = ?2",
        vec![id.into(), account_id.into()],
    )
}

struct IdRow {
    id: i64,
}
impl_row!(IdRow { id });

pub async fn exists(db: &Shard, account_id: i64, id: i64) -> Result<bool> {
    let row: Option<Count> = select_first(db, exists_sql(account_id, id)).await?;
    Ok(row.is_some_and(|c| c.n > 0))
}

/// The account's card of this id, as stored.
pub fn one_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} FROM cards WHERE id = ?1 AND account_id = ?2",
            card_columns()
        ),
        vec![id.into(), account_id.into()],
    )
}

pub async fn one(db: &Shard, account_id: i64, id: i64) -> Result<Option<Card>> {
    let row: Option<CardRow> = select_first(db, one_sql(account_id, id)).await?;
    Ok(row.map(CardRow::decode))
}

/// The first parameter a [`users_sql`] filter may number (`?1` is the account).
pub const USERS_FIRST_PARAM: usize = 2;

/// A page of the account's cards a SCIM filter keeps (`clause`, numbering its `args`
/// from [`USERS_FIRST_PARAM`]; `1` keeps all), oldest first, and their count. The
/// clause is the domain's compilation of a filter (`domain::scim::filter`): parameters
/// only, never a client's text.
pub fn users_sql(
    account_id: i64,
    clause: &str,
    args: Vec<SqlValue>,
    offset: i64,
    count: i64,
) -> Vec<Stmt> {
    let mut all: Vec<SqlValue> = vec![account_id.into()];
    all.extend(args);
    let n = all.len();
    let mut page = all.clone();
    page.extend([count.into(), offset.into()]);
    vec![
        Stmt::new(
            format!("SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1 AND ({clause})"),
            all,
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM cards WHERE account_id = ?1 AND ({clause}) \
                 ORDER BY id LIMIT +?{} OFFSET ?{}",
                card_columns(),
                n + 1,
                n + 2
            ),
            page,
        ),
    ]
}

pub async fn users(
    db: &Shard,
    account_id: i64,
    clause: &str,
    args: Vec<SqlValue>,
    offset: i64,
    count: i64,
) -> Result<(Vec<Card>, i64)> {
    let results = batch(db, users_sql(account_id, clause, args, offset, count)).await?;
    let total = rows_of::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    let rows = rows_of::<CardRow>(&results, 1)?;
    Ok((rows.into_iter().map(CardRow::decode).collect(), total))
}

/// SCIM user names of the account without a key (`cards_user_key_missing`): those of
/// migrations/shard/0011 that are not printable ASCII (SQL cannot fold them), and any a
/// worker of the previous version wrote during a deploy. Oldest first.
pub fn missing_user_keys_sql(account_id: i64, limit: i64) -> Stmt {
    Stmt::new(
        "SELECT id, scim_user_name FROM cards \
         WHERE account_id = ?1 AND scim_user_name IS NOT NULL AND scim_user_key IS NULL \
         ORDER BY id LIMIT +?2",
        vec![account_id.into(), limit.into()],
    )
}

/// Sets a card's userName key once, if its name is still the one keyed. A key another card
/// of the account holds already (Users written before keys, whose names are one key now)
/// is kept apart as `DUPLICATE {id} {key}`, which no name keys to (a key has no capital
/// letters): the first User keyed keeps the name's lookups, the other stays, found by its
/// id, until it is renamed or deleted (migrations/shard/0011 does the same for ASCII).
pub fn set_user_key_sql(account_id: i64, id: i64, name: &str, key: &str) -> Stmt {
    Stmt::new(
        "UPDATE cards SET scim_user_key = iif(EXISTS (SELECT 1 FROM cards AS o \
         WHERE o.account_id = ?1 AND o.scim_user_key = ?4), 'DUPLICATE ' || id || ' ' || ?4, ?4) \
         WHERE id = ?2 AND account_id = ?1 AND scim_user_key IS NULL AND scim_user_name = ?3",
        vec![account_id.into(), id.into(), name.into(), key.into()],
    )
}

/// A card whose userName is to be keyed.
#[derive(Debug, Default)]
pub struct UnkeyedUser {
    pub id: i64,
    pub scim_user_name: String,
}

impl_row!(UnkeyedUser { id, scim_user_name });

/// Names keyed per batch (one statement each, one D1 batch), and the batches one request
/// may spend.
const USER_KEY_BATCH: i64 = 100;
const USER_KEY_BATCHES: usize = 10;

/// Keys every SCIM user name of the account that has none yet, so the unique index and a
/// `userName` filter miss none of them: before each SCIM write and each filter on
/// `userName`. Once they are keyed (most accounts never had one to key) this is one read
/// of an empty index. A backlog beyond the bound is an error the client retries, never a
/// silently missed name.
pub async fn fill_user_keys(db: &Shard, account_id: i64) -> Result<()> {
    for _ in 0..USER_KEY_BATCHES {
        let rows: Vec<UnkeyedUser> =
            select(db, missing_user_keys_sql(account_id, USER_KEY_BATCH)).await?;
        if rows.is_empty() {
            return Ok(());
        }
        let stmts = rows
            .iter()
            .map(|r| {
                let key = user_name_key(&r.scim_user_name, normalize);
                set_user_key_sql(account_id, r.id, &r.scim_user_name, &key)
            })
            .collect();
        batch(db, stmts).await?;
        if (rows.len() as i64) < USER_KEY_BATCH {
            return Ok(());
        }
    }
    Err(worker::Error::RustError(format!(
        "account {account_id}: SCIM user names still without a key; retry"
    )))
}

/// A card page's card (the directory found its id and shard by slug), with the owning
/// account's copy, whose current features decide what the page shows.
pub fn for_page_sql(card_id: i64, account_id: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            format!(
                "SELECT {} FROM cards WHERE id = ?1 AND account_id = ?2",
                card_columns()
            ),
            vec![card_id.into(), account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM accounts WHERE id = ?1",
                columns_of::<AccountRow>("")
            ),
            vec![account_id.into()],
        ),
        // The layout of the company template the card uses (teams.md 1).
        Stmt::new(
            "SELECT t.layout FROM cards c JOIN templates t ON t.account_id = c.account_id \
             AND c.template_id = 'tpl_' || t.id WHERE c.id = ?1 AND c.account_id = ?2",
            vec![card_id.into(), account_id.into()],
        ),
    ]
}

struct Layout {
    layout: String,
}
impl_row!(Layout { layout });

/// The card and its account's current features, in one round trip; a card that uses a
/// company template carries the template's layout as its `template_id`.
pub async fn for_page(
    db: &Shard,
    card_id: i64,
    account_id: i64,
) -> Result<Option<(Card, Account)>> {
    let results = batch(db, for_page_sql(card_id, account_id)).await?;
    let card = rows_of::<CardRow>(&results, 0)?.into_iter().next();
    let account = rows_of::<AccountRow>(&results, 1)?.into_iter().next();
    let layout = rows_of::<Layout>(&results, 2)?.into_iter().next();
    Ok(card.zip(account).map(|(card, account)| {
        let mut card = card.decode();
        // Drawn in the template's layout: the page knows layouts only.
        if let Some(l) = layout {
            card.template_id = Some(l.layout);
        }
        (card, account.decode())
    }))
}

pub enum Created {
    Card(Box<Card>),
    LimitReached,
}

/// One statement that is atomic in D1: it inserts the card under the slug its name's object
/// reserved (`durable::names`) only while the account is under `limit`, so concurrent
/// creates cannot exceed the limit. The id is the account's next (`store::next_id`).
/// `undefaulted`: nor while the account has a default template (a create that has not
/// read it, `ops::cards::make`).
pub fn create_sql(
    account_id: i64,
    input: &CardInput,
    slug: &str,
    limit: i64,
    undefaulted: bool,
    now: i64,
) -> Stmt {
    let title = format!("{} {}", input.first_name(), input.last_name());
    let mut cols = vec![
        "account_id",
        "title",
        "status",
        "published_at",
        "created_at",
        "updated_at",
    ];
    // Active unless the input says (a SCIM User written with `active: false`).
    let status = input.fields().status.unwrap_or(Status::Active);
    let mut args: Vec<SqlValue> = vec![
        account_id.into(),
        title.as_str().into(),
        status.as_str().into(),
        now.into(),
        now.into(),
        now.into(),
        slug.into(),
        limit.into(),
    ];
    for (col, value) in changes(input.fields()).0 {
        if col != "status" {
            cols.push(col);
            args.push(value);
        }
    }
    // A card made with a template is in line with its rev (its values are in the input).
    if let Some(t) = &input.fields().template {
        cols.push("template_rev");
        args.push(t.rev.into());
    }
    // ?1..?6 are the fixed columns, ?7 the slug, ?8 the limit, then the fields.
    let mut values: Vec<String> = (1..=6).map(|i| format!("?{i}")).collect();
    values.extend((9..=args.len()).map(|i| format!("?{i}")));
    let sql = format!(
        "INSERT INTO cards (id, slug, {cols}) \
         SELECT {id}, ?7, {values} \
         WHERE (SELECT COUNT(*) FROM cards WHERE account_id = ?1) < ?8 {undefaulted} \
         RETURNING {columns}",
        cols = cols.join(", "),
        values = values.join(", "),
        id = super::next_id("?1", false),
        undefaulted = if undefaulted {
            "AND NOT EXISTS (SELECT 1 FROM templates WHERE account_id = ?1 AND is_default = 1)"
        } else {
            ""
        },
        columns = card_columns(),
    );
    Stmt::new(sql, args)
}

/// Inserts the card and its `card.created` event in one transaction.
pub async fn create(
    db: &Shard,
    account_id: i64,
    input: &CardInput,
    slug: &str,
    limit: i64,
    undefaulted: bool,
    now: i64,
) -> Result<(Created, Outbox)> {
    let insert = create_sql(account_id, input, slug, limit, undefaulted, now);
    let done = Change::new(account_id, EventType::CardCreated, now)?
        .commit(db, Source::InsertedCard, vec![insert], vec![])
        .await?;
    let created = match done.before::<CardRow>(0)?.into_iter().next() {
        Some(card) => Created::Card(Box::new(card.decode())),
        None => Created::LimitReached,
    };
    Ok((created, done.outbox))
}

/// Applies the patch; `updated_at` strictly increases even within one millisecond. With
/// `unchanged`, only if the card's `updated_at` is still that (a read-modify-write, such
/// as a SCIM PATCH, loses no change made in between).
pub fn update_sql(
    account_id: i64,
    id: i64,
    patch: &CardPatch,
    unchanged: Option<i64>,
    now: i64,
) -> Stmt {
    let mut sets = vec!["updated_at = MAX(?3, updated_at + 1)".to_string()];
    let mut args: Vec<SqlValue> = vec![id.into(), account_id.into(), now.into(), unchanged.into()];
    for (col, value) in changes(patch).0 {
        args.push(value);
        sets.push(format!("{col} = ?{}", args.len()));
    }
    // A card that uses a template: the rev it is brought in line with, and the template's
    // unlocked values where its own are empty, if it starts using the template now (the
    // SET reads the row as it was).
    if let Some(t) = &patch.template {
        args.push(t.rev.into());
        sets.push(format!("template_rev = ?{}", args.len()));
        let mut defaults = Columns::default();
        for (col, write) in &t.defaults {
            defaults.field(col, write);
        }
        if !defaults.0.is_empty() {
            args.push(t.start.as_str().into());
        }
        let start = args.len();
        for (col, value) in defaults.0 {
            args.push(value);
            // An empty list or object is no value of the card's own either.
            let empty = if col == "social_links" { "[]" } else { "{}" };
            sets.push(format!(
                "{col} = iif(template_id IS ?{start} OR NULLIF({col}, '{empty}') IS NOT NULL, \
                 {col}, ?{})",
                args.len()
            ));
        }
    }
    let guard = match unchanged {
        Some(_) => "updated_at = ?4",
        None => "?4 IS NULL",
    };
    // A patch that keeps the card's template but applies none lands only on a card that
    // uses none (`templates::for_write_sql` finds the same template): a locked field is
    // never written past its template, whether the template was not read or came after.
    let untemplated = if patch.template.is_none() && matches!(patch.template_id, Field::Absent) {
        " AND NOT EXISTS (SELECT 1 FROM templates t \
         WHERE t.account_id = ?2 AND 'tpl_' || t.id = cards.template_id)"
    } else {
        ""
    };
    let sql = format!(
        "UPDATE cards SET {} WHERE id = ?1 AND account_id = ?2 AND {guard}{untemplated} \
         RETURNING {}",
        sets.join(", "),
        card_columns()
    );
    Stmt::new(sql, args)
}

/// Updates the card and records its `card.updated` event in one transaction (nothing
/// when no card was updated; see [`update_sql`] for `unchanged`).
pub async fn update(
    db: &Shard,
    account_id: i64,
    id: i64,
    patch: &CardPatch,
    unchanged: Option<i64>,
    now: i64,
) -> Result<(Option<Card>, Outbox)> {
    let update = update_sql(account_id, id, patch, unchanged, now);
    let done = Change::new(account_id, EventType::CardUpdated, now)?
        .commit(db, Source::UpdatedCard(id), vec![update], vec![])
        .await?;
    let row = done.before::<CardRow>(0)?.into_iter().next();
    Ok((row.map(CardRow::decode), done.outbox))
}

/// The card and its leads go together.
pub fn delete_sql(account_id: i64, id: i64) -> [Stmt; 2] {
    [
        Stmt::new(
            "DELETE FROM leads WHERE card_id = ?1 AND account_id = ?2",
            vec![id.into(), account_id.into()],
        ),
        Stmt::new(
            "DELETE FROM cards WHERE id = ?1 AND account_id = ?2 RETURNING id",
            vec![id.into(), account_id.into()],
        ),
    ]
}

/// A card's id and slug: the one from the other.
#[derive(Debug, Clone)]
pub struct Named {
    pub id: i64,
    pub slug: String,
}
impl_row!(Named { id, slug });

pub fn named_sql(account_id: i64, id: Option<i64>, slug: Option<&str>) -> Stmt {
    Stmt::new(
        "SELECT id, slug FROM cards WHERE account_id = ?1 AND (id = ?2 OR slug = ?3)",
        vec![account_id.into(), id.into(), slug.into()],
    )
}

/// The account's card of that id, or of that slug.
pub async fn named(
    db: &Shard,
    account_id: i64,
    id: Option<i64>,
    slug: Option<&str>,
) -> Result<Option<Named>> {
    select_first(db, named_sql(account_id, id, slug)).await
}

pub fn slugs_of_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT id, slug FROM cards WHERE account_id = ?1",
        vec![account_id.into()],
    )
}

/// Every card of the account, named: what an account that goes retires.
pub async fn slugs_of(db: &Shard, account_id: i64) -> Result<Vec<Named>> {
    select(db, slugs_of_sql(account_id)).await
}

/// Deletes the card and its leads and records `card.deleted`, in one transaction; `false`
/// when the account has no such card (and nothing is recorded).
pub async fn delete(db: &Shard, account_id: i64, id: i64, now: i64) -> Result<(bool, Outbox)> {
    let [leads, card] = delete_sql(account_id, id);
    // The leads go with the card: their copies in the feed lose their personal data too.
    let redact = redact_card_leads_sql(account_id, id);
    // The event reads the card, so the card goes after it.
    let done = Change::new(account_id, EventType::CardDeleted, now)?
        .commit(
            db,
            Source::DeletingCard(id),
            vec![redact, leads],
            vec![card],
        )
        .await?;
    Ok((done.after_count(0)? > 0, done.outbox))
}

/// The account's number of cards, and of leads made since `since` (the account area's
/// overview), in one round trip.
pub fn overview_sql(account_id: i64, since: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            "SELECT COUNT(*) AS n FROM leads WHERE account_id = ?1 AND created_at >= ?2",
            vec![account_id.into(), since.into()],
        ),
    ]
}

pub async fn overview(db: &Shard, account_id: i64, since: i64) -> Result<(i64, i64)> {
    let results = batch(db, overview_sql(account_id, since)).await?;
    let n = |i| -> Result<i64> { Ok(rows_of::<Count>(&results, i)?.first().map_or(0, |c| c.n)) };
    Ok((n(0)?, n(1)?))
}
