//! Accounts: plan, card limit and feature overrides.

use serde::{Deserialize, Serialize};
use worker::{D1Database, Result};

use super::{first, int, SqlValue};
use crate::domain::plan::{Features, Overrides, Plan};
use crate::domain::time::iso8601;

#[derive(Debug, Deserialize)]
pub struct AccountRow {
    pub id: i64,
    pub name: String,
    pub plan: String,
    pub card_limit: Option<i64>,
    pub api_access: Option<i64>,
    pub advanced_analytics: Option<i64>,
    pub white_label: Option<i64>,
    pub lead_form: Option<i64>,
    pub created_at: i64,
}

const COLUMNS: &str = "id, name, plan, card_limit, api_access, advanced_analytics, \
    white_label, lead_form, created_at";

/// The Account of product.md 3, with effective values.
#[derive(Debug, Serialize)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub plan: String,
    pub card_limit: i64,
    pub features: Features,
    pub created_at: String,
}

fn flag(v: Option<i64>) -> Option<bool> {
    v.map(|x| x != 0)
}

impl AccountRow {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            card_limit: self.card_limit,
            api_access: flag(self.api_access),
            advanced_analytics: flag(self.advanced_analytics),
            white_label: flag(self.white_label),
            lead_form: flag(self.lead_form),
        }
    }

    pub fn to_account(&self) -> Account {
        // Plan names are CHECK-constrained in the schema; free is the safe reading otherwise.
        let plan = Plan::parse(&self.plan).unwrap_or(Plan::Free);
        let (features, card_limit) = self.overrides().effective(plan);
        Account {
            id: self.id,
            name: self.name.clone(),
            plan: plan.as_str().to_string(),
            card_limit,
            features,
            created_at: iso8601(self.created_at),
        }
    }
}

/// Column changes for insert or update; names come from the admin handler's fixed list.
pub type Changes = Vec<(&'static str, SqlValue)>;

pub async fn create(db: &D1Database, changes: &Changes, now: i64) -> Result<Option<AccountRow>> {
    let mut cols: Vec<&str> = changes.iter().map(|(c, _)| *c).collect();
    cols.push("created_at");
    let mut args: Vec<SqlValue> = changes.iter().map(|(_, v)| v.clone()).collect();
    args.push(int(now));
    let marks: Vec<String> = (1..=args.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO accounts ({}) VALUES ({}) RETURNING {COLUMNS}",
        cols.join(", "),
        marks.join(", ")
    );
    first(db, &sql, &args).await
}

pub async fn update(db: &D1Database, id: i64, changes: &Changes) -> Result<Option<AccountRow>> {
    if changes.is_empty() {
        return get(db, id).await;
    }
    let sets: Vec<String> = changes
        .iter()
        .enumerate()
        .map(|(i, (c, _))| format!("{c} = ?{}", i + 2))
        .collect();
    let mut args = vec![int(id)];
    args.extend(changes.iter().map(|(_, v)| v.clone()));
    let sql = format!(
        "UPDATE accounts SET {} WHERE id = ?1 RETURNING {COLUMNS}",
        sets.join(", ")
    );
    first(db, &sql, &args).await
}

pub async fn get(db: &D1Database, id: i64) -> Result<Option<AccountRow>> {
    first(
        db,
        &format!("SELECT {COLUMNS} FROM accounts WHERE id = ?1"),
        &[int(id)],
    )
    .await
}
