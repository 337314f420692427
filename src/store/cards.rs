//! Cards in D1: the one place card columns meet the typed card.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::value::RawValue;
use worker::{D1Database, Result};

use super::accounts::AccountRow;
use super::leads::lead_columns;
use super::{batch, columns_of, first, rows, Columns, Count, SqlValue, Stmt};
use crate::domain::card::{Card, CardInput, CardPatch, Status};
use crate::domain::lead::{Lead, LEADS_ON_CARD};
use crate::domain::pagination::Page;
use crate::domain::plan::Features;

/// A card row as D1 returns it: booleans are 0/1, timestamps Unix milliseconds, the
/// free-form objects JSON text.
#[derive(Debug, Clone, Deserialize)]
pub struct CardRow {
    pub id: i64,
    pub account_id: i64,
    pub slug: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
    pub job_title: Option<String>,
    pub company: Option<String>,
    pub bio: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub booking_url: Option<String>,
    pub video_url: Option<String>,
    pub address: Option<String>,
    pub tagline: Option<String>,
    pub company_registration: Option<String>,
    pub vat_id: Option<String>,
    pub social_links: String,
    pub design_config: String,
    pub section_visibility: String,
    pub template_id: Option<String>,
    pub card_type: Option<String>,
    pub is_public: i64,
    pub is_password_protected: i64,
    pub show_branding: i64,
    pub show_lead_form: i64,
    pub seo_title: Option<String>,
    pub seo_description: Option<String>,
    pub seo_indexable: i64,
    pub status: String,
    pub language: String,
    pub translations: String,
    pub published_at: Option<i64>,
    pub expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// JSON text from our own writes is kept as is; anything unparsable (a hand-edited row)
/// degrades to the empty value instead of failing the request.
fn json(text: String, empty: &'static str) -> Box<RawValue> {
    RawValue::from_string(text)
        .or_else(|_| RawValue::from_string(empty.to_string()))
        .unwrap_or_default()
}

impl CardRow {
    pub fn decode(self) -> Card {
        Card {
            id: self.id,
            account_id: self.account_id,
            slug: self.slug,
            title: self.title,
            first_name: self.first_name,
            last_name: self.last_name,
            job_title: self.job_title,
            company: self.company,
            bio: self.bio,
            email: self.email,
            phone: self.phone,
            website: self.website,
            booking_url: self.booking_url,
            video_url: self.video_url,
            address: self.address,
            tagline: self.tagline,
            company_registration: self.company_registration,
            vat_id: self.vat_id,
            social_links: json(self.social_links, "[]"),
            design_config: json(self.design_config, "{}"),
            section_visibility: json(self.section_visibility, "{}"),
            template_id: self.template_id,
            card_type: self.card_type,
            is_public: self.is_public != 0,
            is_password_protected: self.is_password_protected != 0,
            show_branding: self.show_branding != 0,
            show_lead_form: self.show_lead_form != 0,
            seo_title: self.seo_title,
            seo_description: self.seo_description,
            seo_indexable: self.seo_indexable != 0,
            // The schema's CHECK allows only the three; a card that reads as none of them
            // is kept off the public surface.
            status: Status::parse(&self.status).unwrap_or(Status::Draft),
            language: self.language,
            translations: json(self.translations, "{}"),
            published_at: self.published_at,
            expires_at: self.expires_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// The columns of [`CardRow`].
pub fn card_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<CardRow>(""))
}

/// The columns a patch sets. Adding a card field means one line here.
fn changes(p: &CardPatch) -> Columns {
    let mut c = Columns::default();
    c.put("first_name", p.first_name.clone());
    c.put("last_name", p.last_name.clone());
    c.field("job_title", &p.job_title);
    c.field("company", &p.company);
    c.field("bio", &p.bio);
    c.field("email", &p.email);
    c.field("phone", &p.phone);
    c.field("website", &p.website);
    c.field("booking_url", &p.booking_url);
    c.field("video_url", &p.video_url);
    c.field("address", &p.address);
    c.put("social_links", p.social_links.as_ref().map(json_text));
    c.put("design_config", p.design_config.as_ref().map(json_text));
    c.field("template_id", &p.template_id);
    c.put("is_public", p.is_public);
    c.put("show_branding", p.show_branding);
    c.put("show_lead_form", p.show_lead_form);
    c.field("seo_title", &p.seo_title);
    c.field("seo_description", &p.seo_description);
    c.put("language", p.language.clone());
    c.put("status", p.status.map(Status::as_str));
    c
}

/// JSON text of a value the domain built (links, objects): those always serialise.
fn json_text<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub fn list_sql(account_id: i64, page: Page) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "SELECT COUNT(*) AS n FROM cards WHERE account_id = ?1",
            vec![account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM cards WHERE account_id = ?1 \
                 ORDER BY updated_at DESC, id DESC LIMIT ?2 OFFSET ?3",
                card_columns()
            ),
            vec![
                account_id.into(),
                page.per_page.into(),
                page.offset().into(),
            ],
        ),
    ]
}

pub async fn list(db: &D1Database, account_id: i64, page: Page) -> Result<(Vec<Card>, i64)> {
    let results = batch(db, list_sql(account_id, page)).await?;
    let total = rows::<Count>(&results, 0)?.first().map_or(0, |c| c.n);
    let cards = rows::<CardRow>(&results, 1)?;
    Ok((cards.into_iter().map(CardRow::decode).collect(), total))
}

/// The card and its newest leads (at most [`LEADS_ON_CARD`]), in one round trip.
pub fn get_with_leads_sql(account_id: i64, id: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            format!(
                "SELECT {} FROM cards WHERE id = ?1 AND account_id = ?2",
                card_columns()
            ),
            vec![id.into(), account_id.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM leads WHERE card_id = ?1 AND account_id = ?2 \
                 ORDER BY created_at DESC, id DESC LIMIT ?3",
                lead_columns()
            ),
            vec![id.into(), account_id.into(), LEADS_ON_CARD.into()],
        ),
    ]
}

pub async fn get_with_leads(
    db: &D1Database,
    account_id: i64,
    id: i64,
) -> Result<Option<(Card, Vec<Lead>)>> {
    let results = batch(db, get_with_leads_sql(account_id, id)).await?;
    let card = rows::<CardRow>(&results, 0)?.into_iter().next();
    Ok(match card {
        Some(card) => Some((card.decode(), rows(&results, 1)?)),
        None => None,
    })
}

pub fn exists_sql(account_id: i64, id: i64) -> Stmt {
    Stmt::new(
        "SELECT COUNT(*) AS n FROM cards WHERE id = ?1 AND account_id = ?2",
        vec![id.into(), account_id.into()],
    )
}

pub async fn exists(db: &D1Database, account_id: i64, id: i64) -> Result<bool> {
    let row: Option<Count> = first(db, exists_sql(account_id, id)).await?;
    Ok(row.is_some_and(|c| c.n > 0))
}

/// Public pages look cards up by slug across accounts (slugs are unique service-wide),
/// with the owning account, whose current features decide what the page shows.
pub fn by_slug_sql(slug: &str) -> Vec<Stmt> {
    vec![
        Stmt::new(
            format!("SELECT {} FROM cards WHERE slug = ?1", card_columns()),
            vec![slug.into()],
        ),
        Stmt::new(
            format!(
                "SELECT {} FROM cards c JOIN accounts a ON a.id = c.account_id \
                 WHERE c.slug = ?1",
                columns_of::<AccountRow>("a.")
            ),
            vec![slug.into()],
        ),
    ]
}

/// The card and its account's current features, in one round trip.
pub async fn by_slug(db: &D1Database, slug: &str) -> Result<Option<(Card, Features)>> {
    let results = batch(db, by_slug_sql(slug)).await?;
    let card = rows::<CardRow>(&results, 0)?.into_iter().next();
    let account = rows::<AccountRow>(&results, 1)?.into_iter().next();
    Ok(card.zip(account).map(|(card, account)| {
        let account = account.decode();
        (card.decode(), account.overrides.effective(account.plan).0)
    }))
}

pub enum Created {
    Card(Box<Card>),
    LimitReached,
}

/// One statement that is atomic in D1: it picks the first free slug (`base`, `base-2`,
/// ...) and inserts only while the account is under `limit`, so concurrent creates can
/// neither share a slug nor exceed the limit.
pub fn create_sql(
    account_id: i64,
    input: &CardInput,
    base_slug: &str,
    title: &str,
    limit: i64,
    now: i64,
) -> Stmt {
    let mut cols = vec![
        "account_id",
        "title",
        "status",
        "published_at",
        "created_at",
        "updated_at",
    ];
    let mut args: Vec<SqlValue> = vec![
        account_id.into(),
        title.into(),
        Status::Active.as_str().into(),
        now.into(),
        now.into(),
        now.into(),
        base_slug.into(),
        limit.into(),
    ];
    for (col, value) in changes(input.fields()).0 {
        cols.push(col);
        args.push(value);
    }
    // ?1..?6 are the fixed columns, ?7 the slug base, ?8 the limit, then the fields.
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
         RETURNING {columns}",
        cols = cols.join(", "),
        values = values.join(", "),
        columns = card_columns(),
    );
    Stmt::new(sql, args)
}

pub async fn create(
    db: &D1Database,
    account_id: i64,
    input: &CardInput,
    base_slug: &str,
    title: &str,
    limit: i64,
    now: i64,
) -> Result<Created> {
    let stmt = create_sql(account_id, input, base_slug, title, limit, now);
    Ok(match first::<CardRow>(db, stmt).await? {
        Some(card) => Created::Card(Box::new(card.decode())),
        None => Created::LimitReached,
    })
}

/// Applies the patch; `updated_at` strictly increases even within one millisecond.
pub fn update_sql(account_id: i64, id: i64, patch: &CardPatch, now: i64) -> Stmt {
    let mut sets = vec!["updated_at = MAX(?3, updated_at + 1)".to_string()];
    let mut args: Vec<SqlValue> = vec![id.into(), account_id.into(), now.into()];
    for (col, value) in changes(patch).0 {
        args.push(value);
        sets.push(format!("{col} = ?{}", args.len()));
    }
    let sql = format!(
        "UPDATE cards SET {} WHERE id = ?1 AND account_id = ?2 RETURNING {}",
        sets.join(", "),
        card_columns()
    );
    Stmt::new(sql, args)
}

pub async fn update(
    db: &D1Database,
    account_id: i64,
    id: i64,
    patch: &CardPatch,
    now: i64,
) -> Result<Option<Card>> {
    let row: Option<CardRow> = first(db, update_sql(account_id, id, patch, now)).await?;
    Ok(row.map(CardRow::decode))
}

/// The card and its leads go together.
pub fn delete_sql(account_id: i64, id: i64) -> Vec<Stmt> {
    vec![
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

/// `false` when the account has no such card.
pub async fn delete(db: &D1Database, account_id: i64, id: i64) -> Result<bool> {
    let results = batch(db, delete_sql(account_id, id)).await?;
    Ok(!rows::<serde_json::Value>(&results, 1)?.is_empty())
}
