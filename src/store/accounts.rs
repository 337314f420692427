//! Accounts: plan, card limit and feature overrides. The directory holds the truth and the
//! account's region and shard; its shard holds a copy of the row (what the card pages,
//! deliveries and retention read there), written after the directory by every change.

use std::sync::OnceLock;

use worker::Result;

use super::row::impl_row;
use super::{columns_of, select_first, Columns, SqlValue, Stmt};
use crate::db::{Directory, Shard};
use crate::domain::account::{Account, AccountPatch, Placement};
use crate::domain::plan::{Overrides, Plan};

#[derive(Debug)]
pub struct AccountRow {
    pub id: i64,
    pub name: String,
    pub plan: String,
    pub card_limit: Option<i64>,
    pub api_access: Option<i64>,
    pub advanced_analytics: Option<i64>,
    pub white_label: Option<i64>,
    pub lead_form: Option<i64>,
    pub lead_retention_days: Option<i64>,
    pub privacy_policy_url: Option<String>,
    pub created_at: i64,
}
impl_row!(AccountRow {
    id,
    name,
    plan,
    card_limit,
    api_access,
    advanced_analytics,
    white_label,
    lead_form,
    lead_retention_days,
    privacy_policy_url,
    created_at
});

/// Override columns are NULL ("the plan's value") or 0/1.
fn flag(v: Option<i64>) -> Option<bool> {
    v.map(|x| x != 0)
}

impl AccountRow {
    pub fn decode(self) -> Account {
        Account {
            id: self.id,
            name: self.name,
            // Plan names are CHECK-constrained in the schema; free is the safe reading.
            plan: Plan::parse(&self.plan).unwrap_or(Plan::Free),
            overrides: Overrides {
                card_limit: self.card_limit,
                api_access: flag(self.api_access),
                advanced_analytics: flag(self.advanced_analytics),
                white_label: flag(self.white_label),
                lead_form: flag(self.lead_form),
            },
            lead_retention_days: self.lead_retention_days,
            privacy_policy_url: self.privacy_policy_url,
            created_at: self.created_at,
            placement: None,
        }
    }
}

/// The directory's row: the account and where its data lives.
#[derive(Debug)]
pub struct DirectoryRow {
    pub id: i64,
    pub name: String,
    pub plan: String,
    pub card_limit: Option<i64>,
    pub api_access: Option<i64>,
    pub advanced_analytics: Option<i64>,
    pub white_label: Option<i64>,
    pub lead_form: Option<i64>,
    pub lead_retention_days: Option<i64>,
    pub privacy_policy_url: Option<String>,
    pub created_at: i64,
    pub data_region: String,
    pub shard: String,
    pub moving: Option<i64>,
}
impl_row!(DirectoryRow {
    id,
    name,
    plan,
    card_limit,
    api_access,
    advanced_analytics,
    white_label,
    lead_form,
    lead_retention_days,
    privacy_policy_url,
    created_at,
    data_region,
    shard,
    moving
});

impl DirectoryRow {
    pub fn decode(self) -> Account {
        let placement = Placement {
            data_region: self.data_region,
            shard: self.shard,
            moving: self.moving,
        };
        let copy = AccountRow {
            id: self.id,
            name: self.name,
            plan: self.plan,
            card_limit: self.card_limit,
            api_access: self.api_access,
            advanced_analytics: self.advanced_analytics,
            white_label: self.white_label,
            lead_form: self.lead_form,
            lead_retention_days: self.lead_retention_days,
            privacy_policy_url: self.privacy_policy_url,
            created_at: self.created_at,
        };
        Account {
            placement: Some(placement),
            ..copy.decode()
        }
    }
}

fn account_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<DirectoryRow>(""))
}

/// The columns a patch sets.
fn changes(p: &AccountPatch) -> Columns {
    let mut c = Columns::default();
    c.put("name", p.name.clone());
    c.put("plan", p.plan.map(Plan::as_str));
    c.field("card_limit", &p.card_limit);
    c.field("api_access", &p.features.api_access);
    c.field("advanced_analytics", &p.features.advanced_analytics);
    c.field("white_label", &p.features.white_label);
    c.field("lead_form", &p.features.lead_form);
    c.field("lead_retention_days", &p.lead_retention_days);
    c.field("privacy_policy_url", &p.privacy_policy_url);
    c
}

/// The directory's row of a new account, placed in `shard` of `region`.
pub fn create_sql(patch: &AccountPatch, region: &str, shard: &str, now: i64) -> Stmt {
    let (mut cols, mut args): (Vec<&str>, Vec<SqlValue>) = changes(patch).0.into_iter().unzip();
    cols.extend(["created_at", "data_region", "shard"]);
    args.extend([now.into(), region.into(), shard.into()]);
    let marks: Vec<String> = (1..=args.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO accounts ({}) VALUES ({}) RETURNING {}",
        cols.join(", "),
        marks.join(", "),
        account_columns()
    );
    Stmt::new(sql, args)
}

pub async fn create(
    db: &Directory,
    patch: &AccountPatch,
    region: &str,
    shard: &str,
    now: i64,
) -> Result<Option<Account>> {
    let row: Option<DirectoryRow> = select_first(db, create_sql(patch, region, shard, now)).await?;
    Ok(row.map(DirectoryRow::decode))
}

/// The shard's copy of the account, inserted or brought up to date (the feed's sequence
/// and the id counter are the shard's own and stay).
pub fn copy_sql(a: &Account) -> Stmt {
    let flag = |b: Option<bool>| SqlValue::from(b.map(i64::from));
    Stmt::new(
        "INSERT INTO accounts (id, name, plan, card_limit, api_access, advanced_analytics, \
             white_label, lead_form, lead_retention_days, privacy_policy_url, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, plan = excluded.plan, \
             card_limit = excluded.card_limit, api_access = excluded.api_access, \
             advanced_analytics = excluded.advanced_analytics, \
             white_label = excluded.white_label, lead_form = excluded.lead_form, \
             lead_retention_days = excluded.lead_retention_days, \
             privacy_policy_url = excluded.privacy_policy_url",
        vec![
            a.id.into(),
            a.name.as_str().into(),
            a.plan.as_str().into(),
            a.overrides.card_limit.into(),
            flag(a.overrides.api_access),
            flag(a.overrides.advanced_analytics),
            flag(a.overrides.white_label),
            flag(a.overrides.lead_form),
            a.lead_retention_days.into(),
            a.privacy_policy_url.clone().into(),
            a.created_at.into(),
        ],
    )
}

pub async fn copy(db: &Shard, account: &Account) -> Result<()> {
    super::run(db, copy_sql(account)).await
}

struct ShardCount {
    shard: String,
    n: i64,
}
impl_row!(ShardCount { shard, n });

pub fn per_shard_sql() -> Stmt {
    Stmt::new(
        "SELECT shard, COUNT(*) AS n FROM accounts GROUP BY shard",
        vec![],
    )
}

/// How many accounts each shard holds.
pub struct PerShard(Vec<ShardCount>);

impl PerShard {
    /// The accounts of shard `binding` (none counted: 0).
    pub fn of(&self, binding: &str) -> i64 {
        self.0
            .iter()
            .find(|r| r.shard == binding)
            .map_or(0, |r| r.n)
    }
}

pub async fn per_shard(db: &Directory) -> Result<PerShard> {
    Ok(PerShard(super::select(db, per_shard_sql()).await?))
}

/// `None` when the patch changes nothing: the caller reads the account instead.
pub fn update_sql(id: i64, patch: &AccountPatch) -> Option<Stmt> {
    let changes = changes(patch).0;
    if changes.is_empty() {
        return None;
    }
    let sets: Vec<String> = changes
        .iter()
        .enumerate()
        .map(|(i, (c, _))| format!("{c} = ?{}", i + 2))
        .collect();
    let mut args = vec![id.into()];
    args.extend(changes.into_iter().map(|(_, v)| v));
    let sql = format!(
        "UPDATE accounts SET {} WHERE id = ?1 RETURNING {}",
        sets.join(", "),
        account_columns()
    );
    Some(Stmt::new(sql, args))
}

pub async fn update(db: &Directory, id: i64, patch: &AccountPatch) -> Result<Option<Account>> {
    let Some(stmt) = update_sql(id, patch) else {
        return get(db, id).await;
    };
    let row: Option<DirectoryRow> = select_first(db, stmt).await?;
    Ok(row.map(DirectoryRow::decode))
}

pub fn get_sql(id: i64) -> Stmt {
    Stmt::new(
        format!("SELECT {} FROM accounts WHERE id = ?1", account_columns()),
        vec![id.into()],
    )
}

pub async fn get(db: &Directory, id: i64) -> Result<Option<Account>> {
    let row: Option<DirectoryRow> = select_first(db, get_sql(id)).await?;
    Ok(row.map(DirectoryRow::decode))
}

/// Everything of the account in its shard, child tables first so no foreign key is left
/// dangling whether or not the database enforces them.
pub fn delete_data_sql(id: i64) -> Vec<Stmt> {
    [
        "DELETE FROM deliveries WHERE account_id = ?1",
        "DELETE FROM webhooks WHERE account_id = ?1",
        "DELETE FROM templates WHERE account_id = ?1",
        "DELETE FROM idempotency_keys WHERE account_id = ?1",
        "DELETE FROM security_log WHERE account_id = ?1",
        "DELETE FROM events WHERE account_id = ?1",
        "DELETE FROM leads WHERE account_id = ?1",
        "DELETE FROM cards WHERE account_id = ?1",
        "DELETE FROM accounts WHERE id = ?1",
    ]
    .into_iter()
    .map(|sql| Stmt::new(sql, vec![id.into()]))
    .collect()
}

pub async fn delete_data(db: &Shard, id: i64) -> Result<()> {
    super::batch(db, delete_data_sql(id)).await.map(|_| ())
}

/// The account's directory rows (its cards' slugs are retired in their names' objects:
/// `ops::accounts::delete`); the last statement answers whether it existed.
pub fn delete_sql(id: i64) -> Vec<Stmt> {
    [
        "DELETE FROM slugs WHERE account_id = ?1",
        "DELETE FROM tokens WHERE account_id = ?1",
        "DELETE FROM sessions WHERE account_id = ?1",
        "DELETE FROM passkeys WHERE account_id = ?1",
        "DELETE FROM members WHERE account_id = ?1",
        "DELETE FROM invites WHERE account_id = ?1",
        "DELETE FROM security_log WHERE account_id = ?1",
        "DELETE FROM accounts WHERE id = ?1 RETURNING id",
    ]
    .into_iter()
    .map(|sql| Stmt::new(sql, vec![id.into()]))
    .collect()
}

/// Deletes the account from the directory; `false` when there was none. Its shard's data
/// goes first ([`delete_data`]), so a crash in between leaves an account to delete again,
/// never data without an account.
pub async fn delete(db: &Directory, id: i64) -> Result<bool> {
    let stmts = delete_sql(id);
    let last = stmts.len() - 1;
    let results = super::batch(db, stmts).await?;
    Ok(super::row_count(&results, last)? > 0)
}

struct ShardOf {
    shard: String,
}
impl_row!(ShardOf { shard });

pub fn shard_of_sql(id: i64) -> Stmt {
    Stmt::new("SELECT shard FROM accounts WHERE id = ?1", vec![id.into()])
}

/// The shard that holds the account's data; `None`: no such account.
pub async fn shard_of(db: &Directory, id: i64) -> Result<Option<String>> {
    let row: Option<ShardOf> = select_first(db, shard_of_sql(id)).await?;
    Ok(row.map(|r| r.shard))
}

/// The account's row in its shard, read only for the bookmark the session then has: an
/// API answer that ran no query still carries one (extensions.md 6,
/// `router::consistency::refused`). One row by its key.
pub fn in_shard_sql(id: i64) -> Stmt {
    Stmt::new("SELECT id FROM accounts WHERE id = ?1", vec![id.into()])
}

pub async fn in_shard(db: &Shard, id: i64) -> Result<()> {
    super::run(db, in_shard_sql(id)).await
}
