//! Storage: D1 queries (accounts, tokens, cards, leads). Every statement is parameterised
//! and every tenant query carries the account id.

pub mod accounts;
pub mod analytics;
pub mod cards;
pub mod leads;
pub mod tokens;

use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, D1Result, Result};

pub use crate::domain::card::SqlValue;

/// D1 rejects BigInt and `undefined`: integers go over as f64 (exact below 2^53) and
/// missing values as NULL.
fn js(value: &SqlValue) -> JsValue {
    match value {
        SqlValue::Null => JsValue::NULL,
        SqlValue::Int(i) => JsValue::from_f64(*i as f64),
        SqlValue::Text(s) => JsValue::from_str(s),
    }
}

pub fn stmt(db: &D1Database, sql: &str, args: &[SqlValue]) -> Result<D1PreparedStatement> {
    let values: Vec<JsValue> = args.iter().map(js).collect();
    db.prepare(sql).bind(&values)
}

pub async fn all<T: DeserializeOwned>(
    db: &D1Database,
    sql: &str,
    args: &[SqlValue],
) -> Result<Vec<T>> {
    stmt(db, sql, args)?.all().await?.results()
}

pub async fn first<T: DeserializeOwned>(
    db: &D1Database,
    sql: &str,
    args: &[SqlValue],
) -> Result<Option<T>> {
    Ok(all(db, sql, args).await?.into_iter().next())
}

/// Rows of one statement of a batch.
pub fn rows<T: DeserializeOwned>(results: &[D1Result], index: usize) -> Result<Vec<T>> {
    match results.get(index) {
        Some(r) => r.results(),
        None => Err(worker::Error::RustError(format!(
            "D1 batch returned no result {index}"
        ))),
    }
}

pub fn int(i: i64) -> SqlValue {
    SqlValue::Int(i)
}

pub fn text(s: &str) -> SqlValue {
    SqlValue::Text(s.to_string())
}

/// `SELECT COUNT(*) AS n` rows.
#[derive(serde::Deserialize)]
pub struct Count {
    pub n: i64,
}
