//! Accounts in D1: plan, card limit and feature overrides.

use std::sync::OnceLock;

use worker::Result;

use super::row::impl_row;
use super::{columns_of, select_first, Columns, SqlValue, Stmt};
use crate::db::Db;
use crate::domain::account::{Account, AccountPatch};
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
        }
    }
}

fn account_columns() -> &'static str {
    static COLUMNS: OnceLock<String> = OnceLock::new();
    COLUMNS.get_or_init(|| columns_of::<AccountRow>(""))
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

pub fn create_sql(patch: &AccountPatch, now: i64) -> Stmt {
    let (mut cols, mut args): (Vec<&str>, Vec<SqlValue>) = changes(patch).0.into_iter().unzip();
    cols.push("created_at");
    args.push(now.into());
    let marks: Vec<String> = (1..=args.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO accounts ({}) VALUES ({}) RETURNING {}",
        cols.join(", "),
        marks.join(", "),
        account_columns()
    );
    Stmt::new(sql, args)
}

pub async fn create(db: &Db, patch: &AccountPatch, now: i64) -> Result<Option<Account>> {
    let row: Option<AccountRow> = select_first(db, create_sql(patch, now)).await?;
    Ok(row.map(AccountRow::decode))
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

pub async fn update(db: &Db, id: i64, patch: &AccountPatch) -> Result<Option<Account>> {
    let Some(stmt) = update_sql(id, patch) else {
        return get(db, id).await;
    };
    let row: Option<AccountRow> = select_first(db, stmt).await?;
    Ok(row.map(AccountRow::decode))
}

pub fn get_sql(id: i64) -> Stmt {
    Stmt::new(
        format!("SELECT {} FROM accounts WHERE id = ?1", account_columns()),
        vec![id.into()],
    )
}

pub async fn get(db: &Db, id: i64) -> Result<Option<Account>> {
    let row: Option<AccountRow> = select_first(db, get_sql(id)).await?;
    Ok(row.map(AccountRow::decode))
}

/// Everything of the account, child tables first so no foreign key is left dangling
/// whether or not the database enforces them; the last statement answers whether the
/// account existed.
pub fn delete_sql(id: i64) -> Vec<Stmt> {
    [
        "DELETE FROM deliveries WHERE account_id = ?1",
        "DELETE FROM webhooks WHERE account_id = ?1",
        "DELETE FROM idempotency_keys WHERE account_id = ?1",
        "DELETE FROM events WHERE account_id = ?1",
        "DELETE FROM leads WHERE account_id = ?1",
        "DELETE FROM cards WHERE account_id = ?1",
        "DELETE FROM tokens WHERE account_id = ?1",
        "DELETE FROM accounts WHERE id = ?1 RETURNING id",
    ]
    .into_iter()
    .map(|sql| Stmt::new(sql, vec![id.into()]))
    .collect()
}

/// Deletes the account and all its data in one transaction; `false` when there was none.
pub async fn delete(db: &Db, id: i64) -> Result<bool> {
    let stmts = delete_sql(id);
    let last = stmts.len() - 1;
    let results = super::batch(db, stmts).await?;
    Ok(super::row_count(&results, last)? > 0)
}
