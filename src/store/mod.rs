//! Storage: D1 (accounts, tokens, cards, leads) and KV (analytics counters).
//!
//! Every D1 statement is built by a pure `*_sql` function that returns a [`Stmt`] (SQL
//! text and its arguments) next to the async function that runs it. The native tests in
//! `sql_check/` (one file per table) run every one of them against SQLite with the schema
//! of `migrations/`, so a column renamed in one place and not the other fails `make test`.
//! Column lists and row decoding (0/1 booleans, JSON text) live here, once per table. Every statement is
//! parameterised and every tenant query carries the account id.

pub mod accounts;
pub mod analytics;
pub mod card_row;
pub mod cards;
pub mod change;
pub mod erasure;
pub mod events;
pub mod idempotency;
pub mod leads;
pub mod members;
pub mod moves;
pub mod outbox;
pub mod row;
pub mod sealed;
pub mod security;
pub mod slugs;
pub mod templates;
pub mod tokens;
pub mod views;
pub mod webhooks;

#[cfg(test)]
mod sql_check;

use wasm_bindgen::JsValue;
use worker::{D1PreparedStatement, D1Result, Result};

use crate::db::Db;

use self::row::{impl_row, Row};
use crate::domain::input::{Column, Field};
use crate::domain::scim::filter::SqlArg;

/// The SQL of the next id of an account's lead, webhook or delivery (`account` is the SQL
/// of its account id): `account_id * 2^31 + n`, n counted per account in its shard
/// (`accounts.last_id`, which a trigger moves past every insert). Ids stay unique when an
/// account moves into a shard that holds other accounts' rows (regions.md 4), and the
/// account a delivery belongs to can be read off its id ([`crate::domain::ids`]).
/// `rows`: an `INSERT ... SELECT` of several rows numbers them in order.
pub fn next_id(account: &str, rows: bool) -> String {
    let nth = if rows {
        " + ROW_NUMBER() OVER () - 1"
    } else {
        ""
    };
    format!(
        "({account} * {span} + (SELECT last_id + 1 FROM accounts WHERE id = {account}){nth})",
        span = crate::domain::ids::ACCOUNT_SPAN
    )
}

/// A value bound to a statement parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Int(i64),
    Text(String),
}

impl From<i64> for SqlValue {
    fn from(i: i64) -> Self {
        SqlValue::Int(i)
    }
}

/// Booleans are 0/1 columns.
impl From<bool> for SqlValue {
    fn from(b: bool) -> Self {
        SqlValue::Int(b as i64)
    }
}

impl From<&str> for SqlValue {
    fn from(s: &str) -> Self {
        SqlValue::Text(s.to_string())
    }
}

impl From<String> for SqlValue {
    fn from(s: String) -> Self {
        SqlValue::Text(s)
    }
}

impl From<Column> for SqlValue {
    fn from(c: Column) -> Self {
        match c {
            Column::Text(s) => s.into(),
            Column::Flag(b) => b.into(),
        }
    }
}

/// A compiled SCIM filter's argument (`domain::scim::filter`).
impl From<&SqlArg> for SqlValue {
    fn from(a: &SqlArg) -> Self {
        match a {
            SqlArg::Text(t) => SqlValue::Text(t.clone()),
            SqlArg::Int(i) => SqlValue::Int(*i),
        }
    }
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(SqlValue::Null, Into::into)
    }
}

/// One statement: SQL text with `?N` parameters and the values bound to them.
///
/// A bound `LIMIT` is written `LIMIT +?N`. SQLite (3.47 in workerd and D1) reads a bare
/// `LIMIT ?N`'s value while planning, so every new binding expires the statement and the
/// next step compiles it again: ~150 µs per run for a page of card JSON, on every
/// request. The unary plus hides the value from the planner and keeps the cached plan.
/// `sql_check` refuses a bare one.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub sql: String,
    pub args: Vec<SqlValue>,
}

impl Stmt {
    pub fn new(sql: impl Into<String>, args: Vec<SqlValue>) -> Stmt {
        Stmt {
            sql: sql.into(),
            args,
        }
    }
}

/// `(column, value)` pairs of a write; column names are literals of the table's mapping,
/// never from a request.
#[derive(Debug, Default)]
pub struct Columns(pub Vec<(&'static str, SqlValue)>);

impl Columns {
    /// Sets `column` when `value` is present.
    pub fn put(&mut self, column: &'static str, value: Option<impl Into<SqlValue>>) {
        if let Some(v) = value {
            self.0.push((column, v.into()));
        }
    }

    /// A nullable column: absent leaves it alone, null clears it.
    pub fn field<T: Clone + Into<SqlValue>>(&mut self, column: &'static str, value: &Field<T>) {
        match value {
            Field::Absent => {}
            Field::Null => self.0.push((column, SqlValue::Null)),
            Field::Set(v) => self.0.push((column, v.clone().into())),
        }
    }
}

/// D1 rejects BigInt and `undefined`: integers go over as f64 (exact below 2^53) and
/// missing values as NULL.
fn js(value: &SqlValue) -> JsValue {
    match value {
        SqlValue::Null => JsValue::NULL,
        SqlValue::Int(i) => JsValue::from_f64(*i as f64),
        SqlValue::Text(s) => JsValue::from_str(s),
    }
}

fn prepare(db: &Db, stmt: &Stmt) -> Result<D1PreparedStatement> {
    let values: Vec<JsValue> = stmt.args.iter().map(js).collect();
    db.prepare(&stmt.sql).bind(&values)
}

/// The rows of one statement.
pub async fn select<T: Row>(db: &Db, stmt: Stmt) -> Result<Vec<T>> {
    row::decode(&db.all(prepare(db, &stmt)?).await?)
}

pub async fn select_first<T: Row>(db: &Db, stmt: Stmt) -> Result<Option<T>> {
    Ok(select(db, stmt).await?.into_iter().next())
}

pub async fn run(db: &Db, stmt: Stmt) -> Result<()> {
    db.all(prepare(db, &stmt)?).await?;
    Ok(())
}

/// Runs the statements as one D1 batch: in order, in one transaction, one round trip.
pub async fn batch(db: &Db, stmts: Vec<Stmt>) -> Result<Vec<D1Result>> {
    let prepared = stmts
        .iter()
        .map(|s| prepare(db, s))
        .collect::<Result<Vec<_>>>()?;
    db.batch(prepared).await
}

/// Runs a pruning batch (whose statement `changes_at` deletes at most `step` rows) until a
/// run removes fewer than `step`, at most `max_steps` times, so a backlog never exceeds an
/// invocation's limits; the number of rows removed.
pub async fn prune_in_steps(
    db: &Db,
    step: i64,
    max_steps: usize,
    changes_at: usize,
    stmts: impl Fn() -> Vec<Stmt>,
) -> Result<usize> {
    let mut removed = 0;
    for _ in 0..max_steps {
        let results = batch(db, stmts()).await?;
        let n = results
            .get(changes_at)
            .and_then(|r| r.meta().ok().flatten())
            .and_then(|m| m.changes)
            .unwrap_or(0);
        removed += n;
        if (n as i64) < step {
            break;
        }
    }
    Ok(removed)
}

fn result(results: &[D1Result], index: usize) -> Result<&D1Result> {
    results
        .get(index)
        .ok_or_else(|| worker::Error::RustError(format!("D1 batch returned no result {index}")))
}

/// Rows of one statement of a batch.
pub fn rows_of<T: Row>(results: &[D1Result], index: usize) -> Result<Vec<T>> {
    row::decode(result(results, index)?)
}

/// How many rows one statement of a batch returned.
pub fn row_count(results: &[D1Result], index: usize) -> Result<usize> {
    row::count(result(results, index)?)
}

/// `SELECT COUNT(*) AS n` rows.
pub struct Count {
    pub n: i64,
}
impl_row!(Count { n });

/// The `SELECT` list of a row type, read from its field names (each with `prefix`, e.g.
/// `c.`), so a select list cannot drift from the struct it is decoded into.
pub fn columns_of<T: Row>(prefix: &str) -> String {
    T::FIELDS
        .iter()
        .map(|f| format!("{prefix}{f}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row type's columns as one JSON object (`json_object('id', c.id, ...)`): the snapshot
/// an event keeps, decodable into the same row type later.
pub fn json_object_of<T: Row>(prefix: &str) -> String {
    let pairs: Vec<String> = T::FIELDS
        .iter()
        .map(|f| format!("'{f}', {prefix}{f}"))
        .collect();
    format!("json_object({})", pairs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(dead_code)]
    struct Named {
        id: i64,
        first_name: String,
    }
    impl_row!(Named { id, first_name });

    #[test]
    fn select_lists_come_from_the_row_type() {
        assert_eq!(columns_of::<Named>(""), "id, first_name");
        assert_eq!(columns_of::<Named>("c."), "c.id, c.first_name");
        assert_eq!(
            json_object_of::<Named>("c."),
            "json_object('id', c.id, 'first_name', c.first_name)"
        );
    }

    #[test]
    fn values() {
        assert_eq!(SqlValue::from(true), SqlValue::Int(1));
        assert_eq!(SqlValue::from(None::<i64>), SqlValue::Null);
        assert_eq!(SqlValue::from(Some("a")), SqlValue::Text("a".into()));
        let mut c = Columns::default();
        c.field("a", &Field::<String>::Absent);
        c.field("b", &Field::<String>::Null);
        c.field("c", &Field::Set(3i64));
        c.put("d", Some(false));
        c.put("e", None::<i64>);
        assert_eq!(
            c.0,
            vec![
                ("b", SqlValue::Null),
                ("c", SqlValue::Int(3)),
                ("d", SqlValue::Int(0))
            ]
        );
    }
}
