//! Account moves between shards (regions.md 4): the directory's `moves` rows, and the
//! statements a move runs on the two shards. A move copies an account's rows table by
//! table in key order, a bounded page at a time, as one JSON parameter per page (D1 binds
//! at most 100 parameters per statement; a page of cards has ~40 columns a row). Inserts
//! ignore a row that is there already, so a page copied again after a restart writes
//! nothing twice (the source is fenced: its rows do not change while it is copied).

use serde::Serialize;
use serde_json::{Map, Value};
use worker::Result;

use super::row::impl_row;
use super::{batch, columns_of, rows_of, run, select, select_first, SqlValue, Stmt};
use crate::db::{Directory, Shard};

/// The tables of an account in a shard, in the order they are copied (parents before the
/// rows that refer to them), with the key each is paged by. The account's copy in
/// `accounts` goes first and on its own ([`copy_account_sql`]).
pub const TABLES: [(&str, &str); 8] = [
    ("cards", "id"),
    ("templates", "id"),
    ("leads", "id"),
    ("events", "sequence"),
    ("webhooks", "id"),
    ("deliveries", "id"),
    ("idempotency_keys", "key"),
    ("security_log", "id"),
];

/// The rows of the account in `table`, as a condition on `?1` (the account id). Tables
/// whose ids are the account's own range (`domain::ids`) are read by that range of their
/// primary key: by `account_id` SQLite would take an index that leads elsewhere
/// (`leads_account_email_key`, none at all for `deliveries`) and sort every row of the
/// account for each page (measured: ~10 ms a page of leads at 100,000 leads, 0-1 ms by
/// range). The others have an index that starts with `account_id` and their key.
fn of_account(table: &str) -> String {
    match table {
        "leads" | "webhooks" | "deliveries" | "templates" => format!(
            "id > ?1 * {span} AND id < (?1 + 1) * {span} AND +account_id = ?1",
            span = crate::domain::ids::ACCOUNT_SPAN
        ),
        _ => "account_id = ?1".to_string(),
    }
}

/// A move as the operator API shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveRow {
    pub id: i64,
    pub account_id: i64,
    pub from_shard: String,
    pub to_shard: String,
    pub to_region: String,
    pub status: String,
    pub copied: String,
    pub error: Option<String>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
}
impl_row!(MoveRow {
    id,
    account_id,
    from_shard,
    to_shard,
    to_region,
    status,
    copied,
    error,
    started_at,
    finished_at
});

/// The Move object of regions.md 4.
#[derive(Debug, Serialize)]
pub struct MoveView {
    pub id: i64,
    pub account_id: i64,
    pub from_shard: String,
    pub to_shard: String,
    pub status: String,
    pub copied: Value,
    pub error: Option<String>,
    pub started_at: String,
    pub finished_at: Option<String>,
}

impl MoveRow {
    pub fn view(&self) -> MoveView {
        use crate::domain::time::iso8601;
        MoveView {
            id: self.id,
            account_id: self.account_id,
            from_shard: self.from_shard.clone(),
            to_shard: self.to_shard.clone(),
            status: self.status.clone(),
            copied: serde_json::from_str(&self.copied)
                .unwrap_or_else(|_| Value::Object(Map::new())),
            error: self.error.clone(),
            started_at: iso8601(self.started_at),
            finished_at: self.finished_at.map(iso8601),
        }
    }
}

/// Records the move and marks the account moving, in one transaction; a second move of
/// the account while one runs breaks `moves_running`'s uniqueness (the caller's 409).
pub fn start_sql(account_id: i64, from: &str, to: &str, region: &str, now: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            format!(
                "INSERT INTO moves (account_id, from_shard, to_shard, to_region, started_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5) RETURNING {}",
                columns_of::<MoveRow>("")
            ),
            vec![
                account_id.into(),
                from.into(),
                to.into(),
                region.into(),
                now.into(),
            ],
        ),
        Stmt::new(
            "UPDATE accounts SET moving = (SELECT id FROM moves \
                 WHERE account_id = ?1 AND status = 'copying') WHERE id = ?1",
            vec![account_id.into()],
        ),
    ]
}

/// The new move, or `None` when another runs for the account.
pub async fn start(
    db: &Directory,
    account_id: i64,
    from: &str,
    to: &str,
    region: &str,
    now: i64,
) -> Result<Option<MoveRow>> {
    match batch(db, start_sql(account_id, from, to, region, now)).await {
        Ok(results) => Ok(rows_of::<MoveRow>(&results, 0)?.into_iter().next()),
        Err(e) if e.to_string().contains("UNIQUE") => Ok(None),
        Err(e) => Err(e),
    }
}

pub fn get_sql(id: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} FROM moves WHERE id = ?1",
            columns_of::<MoveRow>("")
        ),
        vec![id.into()],
    )
}

pub async fn get(db: &Directory, id: i64) -> Result<Option<MoveRow>> {
    select_first(db, get_sql(id)).await
}

pub fn running_sql(limit: i64) -> Stmt {
    Stmt::new(
        format!(
            "SELECT {} FROM moves WHERE status = 'copying' ORDER BY id LIMIT +?1",
            columns_of::<MoveRow>("")
        ),
        vec![limit.into()],
    )
}

/// Moves that have not ended (the cron wakes their movers, in case an alarm was lost).
pub async fn running(db: &Directory, limit: i64) -> Result<Vec<MoveRow>> {
    select(db, running_sql(limit)).await
}

pub fn progress_sql(id: i64, copied: &str) -> Stmt {
    Stmt::new(
        "UPDATE moves SET copied = ?2 WHERE id = ?1",
        vec![id.into(), copied.into()],
    )
}

/// The rows copied so far, per table (JSON), for `GET /admin/v1/moves/{id}`.
pub async fn progress(db: &Directory, id: i64, copied: &str) -> Result<()> {
    run(db, progress_sql(id, copied)).await
}

/// The directory points at the new shard: the account, its slugs, its region.
pub fn flip_sql(account_id: i64, to: &str, region: &str) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE accounts SET shard = ?2, data_region = ?3 WHERE id = ?1",
            vec![account_id.into(), to.into(), region.into()],
        ),
        Stmt::new(
            "UPDATE slugs SET shard = ?2 WHERE account_id = ?1",
            vec![account_id.into(), to.into()],
        ),
    ]
}

pub async fn flip(db: &Directory, account_id: i64, to: &str, region: &str) -> Result<()> {
    batch(db, flip_sql(account_id, to, region))
        .await
        .map(|_| ())
}

/// The move ends (`done` or `failed`) and the account's writes are taken again.
pub fn end_sql(id: i64, status: &str, error: Option<&str>, now: i64) -> Vec<Stmt> {
    vec![
        Stmt::new(
            "UPDATE moves SET status = ?2, error = ?3, finished_at = ?4 WHERE id = ?1",
            vec![id.into(), status.into(), error.into(), now.into()],
        ),
        Stmt::new(
            "UPDATE accounts SET moving = NULL \
             WHERE id = (SELECT account_id FROM moves WHERE id = ?1) AND moving = ?1",
            vec![id.into()],
        ),
    ]
}

pub async fn end(
    db: &Directory,
    id: i64,
    status: &str,
    error: Option<&str>,
    now: i64,
) -> Result<()> {
    batch(db, end_sql(id, status, error, now)).await.map(|_| ())
}

// --- The shards' side ---------------------------------------------------------------

/// The state of the account's copy in a shard: `moving` fences its writes in the source,
/// `arriving` lets the move write the target, `live` is an account at home, `gone` lets
/// only deletions (the emptying) through.
pub fn set_state_sql(account_id: i64, state: &str) -> Stmt {
    Stmt::new(
        "UPDATE accounts SET state = ?2 WHERE id = ?1 AND state <> ?2",
        vec![account_id.into(), state.into()],
    )
}

pub async fn set_state(db: &Shard, account_id: i64, state: &str) -> Result<()> {
    run(db, set_state_sql(account_id, state)).await
}

/// A page of a table's rows of the account after `after` (`None`: from the start), every
/// column, in key order.
pub fn page_sql(table: usize, account_id: i64, after: Option<SqlValue>, limit: i64) -> Stmt {
    let (name, key) = TABLES[table];
    let (cond, args) = match after {
        Some(after) => (
            format!("AND {key} > ?2 ORDER BY {key} LIMIT +?3"),
            vec![account_id.into(), after, limit.into()],
        ),
        None => (
            format!("ORDER BY {key} LIMIT +?2"),
            vec![account_id.into(), limit.into()],
        ),
    };
    Stmt::new(
        format!("SELECT * FROM {name} WHERE {} {cond}", of_account(name)),
        args,
    )
}

/// The page's rows as JSON objects, column name to value.
pub async fn page(
    db: &Shard,
    table: usize,
    account_id: i64,
    after: Option<SqlValue>,
    limit: i64,
) -> Result<Vec<Map<String, Value>>> {
    select_json(db, page_sql(table, account_id, after, limit)).await
}

async fn select_json(db: &Shard, stmt: Stmt) -> Result<Vec<Map<String, Value>>> {
    let result = db.all(super::prepare(db, &stmt)?).await?;
    super::row::json_rows(&result)
}

/// Inserts `rows` (JSON objects of one table, as [`page`] read them) as one parameter;
/// a row whose key is there already is left as it is. `None` when the rows name a column
/// that is no plain identifier (they come from our own schema; this is a guard).
pub fn insert_sql(table: usize, rows: &[Map<String, Value>]) -> Option<Stmt> {
    insert_rows(
        TABLES[table].0,
        rows,
        "INSERT",
        " WHERE true ON CONFLICT DO NOTHING",
    )
}

fn insert_rows(name: &str, rows: &[Map<String, Value>], verb: &str, tail: &str) -> Option<Stmt> {
    let columns: Vec<&String> = rows.first()?.keys().collect();
    let plain = |c: &str| {
        !c.is_empty()
            && c.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    if !columns.iter().all(|c| plain(c)) {
        return None;
    }
    let list = columns
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let values = columns
        .iter()
        .map(|c| format!("json_extract(value, '$.{c}')"))
        .collect::<Vec<_>>()
        .join(", ");
    let json = Value::Array(rows.iter().cloned().map(Value::Object).collect()).to_string();
    Some(Stmt::new(
        format!("{verb} INTO {name} ({list}) SELECT {values} FROM json_each(?1){tail}"),
        vec![json.into()],
    ))
}

pub async fn insert(db: &Shard, table: usize, rows: &[Map<String, Value>]) -> Result<()> {
    let stmt = insert_sql(table, rows)
        .ok_or_else(|| worker::Error::RustError("a copied row names an odd column".into()))?;
    run(db, stmt).await
}

/// The account's copy of `accounts`, every column, as the source has it.
pub fn account_row_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "SELECT * FROM accounts WHERE id = ?1",
        vec![account_id.into()],
    )
}

pub async fn account_row(db: &Shard, account_id: i64) -> Result<Option<Map<String, Value>>> {
    Ok(select_json(db, account_row_sql(account_id))
        .await?
        .into_iter()
        .next())
}

/// The copy in the target, `arriving` (replacing a copy a failed move left).
pub fn copy_account_sql(row: &Map<String, Value>) -> Option<Stmt> {
    let mut row = row.clone();
    row.insert("state".into(), Value::String("arriving".into()));
    insert_rows("accounts", &[row], "INSERT OR REPLACE", "")
}

pub async fn copy_account(db: &Shard, row: &Map<String, Value>) -> Result<()> {
    let stmt = copy_account_sql(row)
        .ok_or_else(|| worker::Error::RustError("the account's row names an odd column".into()))?;
    run(db, stmt).await
}

/// How many rows of the account each table holds ([`TABLES`] order, then `accounts`).
pub fn counts_sql(account_id: i64) -> Stmt {
    let parts: Vec<String> = TABLES
        .iter()
        .map(|(t, _)| format!("(SELECT COUNT(*) FROM {t} WHERE {}) AS {t}", of_account(t)))
        .collect();
    Stmt::new(
        format!(
            "SELECT {}, (SELECT COUNT(*) FROM accounts WHERE id = ?1) AS accounts",
            parts.join(", ")
        ),
        vec![account_id.into()],
    )
}

pub async fn counts(db: &Shard, account_id: i64) -> Result<Map<String, Value>> {
    Ok(select_json(db, counts_sql(account_id))
        .await?
        .into_iter()
        .next()
        .unwrap_or_default())
}

/// Deletes up to `limit` rows of the account from one table (the emptying of the source,
/// or of a target after a failed move); how many went.
pub fn empty_sql(table: usize, account_id: i64, limit: i64) -> Stmt {
    let (name, key) = TABLES[table];
    let of = of_account(name);
    // By rowid where there is one (no sort, no second index walk); `idempotency_keys` is
    // WITHOUT ROWID and keyed by (account_id, key).
    let sql = match name {
        "idempotency_keys" => format!(
            "DELETE FROM {name} WHERE account_id = ?1 AND {key} IN \
             (SELECT {key} FROM {name} WHERE {of} LIMIT +?2)"
        ),
        _ => format!(
            "DELETE FROM {name} WHERE rowid IN (SELECT rowid FROM {name} WHERE {of} LIMIT +?2)"
        ),
    };
    Stmt::new(sql, vec![account_id.into(), limit.into()])
}

pub async fn empty(db: &Shard, table: usize, account_id: i64, limit: i64) -> Result<usize> {
    let results = batch(db, vec![empty_sql(table, account_id, limit)]).await?;
    super::row_count(&results, 0)
}

pub fn drop_account_sql(account_id: i64) -> Stmt {
    Stmt::new(
        "DELETE FROM accounts WHERE id = ?1",
        vec![account_id.into()],
    )
}

/// The account's copy goes last, once no row refers to it.
pub async fn drop_account(db: &Shard, account_id: i64) -> Result<()> {
    run(db, drop_account_sql(account_id)).await
}
