//! Runs every statement of `store/` against SQLite with the schema built from
//! `migrations/`, binding the arguments the store binds and decoding the rows into the row
//! types the store decodes into. A column renamed in the migration and not here (or the
//! other way round), a parameter D1 would refuse as unused, or a row type that no longer
//! matches its `SELECT` fails `make test` natively, long before D1 would.
//!
//! One file per table (or store module) holds its statements' checks; they run in order
//! over one migrated database ([`scenario`]), one account's life through every table,
//! and the census of the builders that ran is its own test.

mod accounts;
mod cards;
mod erasure;
mod events;
mod idempotency;
mod indexes;
mod leads;
mod members;
mod moves;
mod security;
mod slugs;
mod templates;
mod tokens;
mod views;
mod webhooks;

use std::collections::BTreeSet;
use std::path::Path;

use rusqlite::types::Value as Sql;
use rusqlite::Connection;
use serde_json::{json, Map, Value};

use super::row::{from_json, impl_row, Row};
use super::{SqlValue, Stmt};
use crate::domain::event::EventType;
use crate::domain::plan::Features;

const ALL: Features = Features {
    api_access: true,
    advanced_analytics: true,
    white_label: true,
    lead_form: true,
};

struct Db {
    /// A shard's schema.
    conn: Connection,
    /// The directory's schema, and whether statements run there now ([`Db::in_dir`]).
    dir: Connection,
    on_dir: bool,
    /// `table::builder` names run so far, to prove every builder was run.
    ran: BTreeSet<String>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

impl Db {
    /// An in-memory database with every migration applied in order, as wrangler does.
    fn new() -> Db {
        let dir = Connection::open_in_memory().expect("in-memory SQLite");
        for file in migrations("directory", |_| true) {
            let sql = std::fs::read_to_string(&file).expect("read migration");
            dir.execute_batch(&sql)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
        let mut db = Db {
            conn: Connection::open_in_memory().expect("in-memory SQLite"),
            dir,
            on_dir: false,
            ran: BTreeSet::new(),
        };
        db.migrate(|_| true);
        db
    }

    /// Runs `f` with every statement on the directory.
    fn in_dir<R>(&mut self, f: impl FnOnce(&mut Db) -> R) -> R {
        self.on_dir = true;
        let out = f(self);
        self.on_dir = false;
        out
    }

    /// Applies, in order, the shard migrations whose file names `which` accepts.
    fn migrate(&mut self, which: impl Fn(&str) -> bool) {
        for file in migrations("shard", which) {
            let sql = std::fs::read_to_string(&file).expect("read migration");
            self.conn
                .execute_batch(&sql)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
    }

    /// Runs one statement; its rows as JSON objects, the shape D1 answers with.
    fn exec(&mut self, name: &str, stmt: &Stmt) -> Vec<Value> {
        self.ran.insert(name.to_string());
        assert!(
            !stmt.sql.contains("LIMIT ?"),
            "{name}: a bare `LIMIT ?N` recompiles the statement on every run; write \
             `LIMIT +?N` (see `Stmt`)\n{}",
            stmt.sql
        );
        let conn = if self.on_dir { &self.dir } else { &self.conn };
        let mut s = conn
            .prepare(&stmt.sql)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", stmt.sql));
        assert_eq!(
            s.parameter_count(),
            stmt.args.len(),
            "{name}: D1 refuses bindings a statement does not use, and unbound ones are \
             NULL\n{}",
            stmt.sql
        );
        let names: Vec<String> = s.column_names().map(|c| c.to_string()).collect();
        let args = stmt.args.iter().map(|a| match a {
            SqlValue::Null => Sql::Null,
            SqlValue::Int(i) => Sql::Integer(*i),
            SqlValue::Text(t) => Sql::Text(t.clone()),
        });
        let mut rows = s
            .query(rusqlite::params_from_iter(args))
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", stmt.sql));
        let mut out = Vec::new();
        while let Some(row) = rows.next().unwrap_or_else(|e| panic!("{name}: {e}")) {
            let mut obj = Map::new();
            for (i, col) in names.iter().enumerate() {
                let v = match row.get::<_, Sql>(i).expect("column value") {
                    Sql::Null => Value::Null,
                    Sql::Integer(n) => json!(n),
                    Sql::Real(f) => json!(f),
                    Sql::Text(t) => Value::String(t),
                    Sql::Blob(_) => panic!("{name}: no column of ours is a blob"),
                };
                obj.insert(col.clone(), v);
            }
            out.push(Value::Object(obj));
        }
        out
    }

    /// Runs a statement the schema must refuse; the error's text.
    fn refused(&mut self, name: &str, stmt: &Stmt) -> String {
        self.ran.insert(name.to_string());
        let conn = if self.on_dir { &self.dir } else { &self.conn };
        let args = stmt.args.iter().map(|a| match a {
            SqlValue::Null => Sql::Null,
            SqlValue::Int(i) => Sql::Integer(*i),
            SqlValue::Text(t) => Sql::Text(t.clone()),
        });
        let mut s = conn
            .prepare(&stmt.sql)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", stmt.sql));
        let mut rows = s
            .query(rusqlite::params_from_iter(args))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        match rows.next() {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{name}: the schema took it"),
        }
    }

    /// A D1 batch: the statements in order, in one transaction.
    fn batch(&mut self, name: &str, stmts: &[Stmt]) -> Vec<Vec<Value>> {
        let conn = if self.on_dir { &self.dir } else { &self.conn };
        conn.execute_batch("BEGIN").expect("begin");
        let out = stmts.iter().map(|s| self.exec(name, s)).collect();
        let conn = if self.on_dir { &self.dir } else { &self.conn };
        conn.execute_batch("COMMIT").expect("commit");
        out
    }
}

/// The migrations of `migrations/{kind}` whose file names `which` accepts, in order.
fn migrations(kind: &str, which: impl Fn(&str) -> bool) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("migrations").join(kind))
        .expect("a migrations folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&which))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no migrations found in migrations/{kind}"
    );
    files
}

/// Rows decoded as the worker decodes them ([`super::row`]).
fn decode<T: Row>(name: &str, rows: Vec<Value>) -> Vec<T> {
    rows.into_iter()
        .map(|r| from_json(&r).unwrap_or_else(|e| panic!("{name}: row {r} does not decode: {e}")))
        .collect()
}

fn one<T: Row>(name: &str, rows: Vec<Value>) -> T {
    let mut all = decode(name, rows);
    assert_eq!(all.len(), 1, "{name}: expected one row");
    all.remove(0)
}

/// A slug as its name's object would give it (`durable::names`); the id is the shard's.
fn slot(_was_id: i64, slug: &str) -> String {
    slug.to_string()
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("object")
}

/// Every field of a card set, so every column of the mapping is written.
fn full_card() -> Value {
    json!({
        "first_name": "Ada", "last_name": "Lovelace", "job_title": "Analyst",
        "company": "Engines", "bio": "Notes", "email": "ada@example.com",
        "phone": "+44 20 1234", "website": "https://ada.example", "booking_url":
        "https://ada.example/book", "video_url": "https://ada.example/v", "address": "London",
        "social_links": [{"platform": "github", "url": "ada", "label": "Code"}],
        "design_config": {"color": "#123456"}, "template_id": "classic", "is_public": true,
        "show_branding": false, "show_lead_form": true, "seo_title": "Ada",
        "seo_description": "Ada's card", "language": "de"
    })
}

/// The sequences of an account's events, in order, with their types.
fn feed(db: &mut Db, acc: i64) -> Vec<(i64, String)> {
    let all = [
        EventType::CardCreated,
        EventType::CardUpdated,
        EventType::CardDeleted,
        EventType::LeadCreated,
    ];
    let [state, rows] = <[Vec<Value>; 2]>::try_from(db.batch(
        "events::list_sql",
        &super::events::list_sql(acc, 0, &all, 100),
    ))
    .expect("two statements");
    let state: super::events::FeedState = one("events::list_sql", state);
    let rows: Vec<super::events::EventRow> = decode("events::list_sql", rows);
    if let Some(last) = rows.last() {
        assert_eq!(
            state.event_sequence, last.sequence,
            "the counter is the last sequence"
        );
    }
    rows.into_iter().map(|r| (r.sequence, r.kind)).collect()
}

struct Id {
    id: i64,
}
impl_row!(Id { id });

fn ids(name: &str, rows: Vec<Value>) -> Vec<i64> {
    decode::<Id>(name, rows).into_iter().map(|r| r.id).collect()
}

fn results_ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().filter_map(|r| r["id"].as_i64()).collect()
}

/// One account's life through every table, over one migrated database: each table's
/// checks in the order their rows depend on each other; deletes and revokes last.
fn scenario(db: &mut Db) {
    let now = 1_760_000_000_000;
    let acc = accounts::created(db, now);
    let token = tokens::created(db, acc, now);
    let card = cards::created(db, acc, now);
    leads::on_card(db, acc, &card, now);
    cards::deleted(db, acc, card.id);
    tokens::revoked(db, token, now);
    leads::keys_of_leads_from_before_the_key(db);
    cards::keys_of_user_names_from_before_the_key(db);
    events::feed_and_idempotency(db, acc, now);
    webhooks::webhooks_and_outbox(db, acc, now);
    templates::templates_and_their_events(db, acc, now);
    templates::cards_in_line(db, acc, now);
    erasure::erasure_reaches_every_copy(db, acc, now);
    security::entries_of_both_logs(db, acc, now);
    members::members_and_sessions(db, acc, now);
    slugs::routed_and_settled(db, acc, &card, now);
    moves::account_moves_and_back(db, acc, now);
    accounts::account_goes_with_everything(db, acc);
}

#[test]
fn every_statement_runs_against_the_migrated_schema() {
    scenario(&mut Db::new());
}

#[test]
fn every_statement_builder_of_store_runs_in_the_scenario() {
    let mut db = Db::new();
    scenario(&mut db);
    // Every statement builder of store/ ran in the scenario: a new one must be added to
    // its table's file.
    let mut builders = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("src/store")).expect("src/store") {
        let path = entry.expect("entry").path();
        let Some(table) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for piece in text.split("pub fn ").skip(1) {
            let name: String = piece
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.ends_with("_sql") {
                builders.insert(format!("{table}::{name}"));
            }
        }
    }
    let missing: Vec<_> = builders.difference(&db.ran).collect();
    assert!(missing.is_empty(), "statements never run here: {missing:?}");
    assert!(builders.len() >= 18, "found only {builders:?}");
}
