//! Runs every statement of `store/` against SQLite with the schema built from
//! `migrations/`, binding the arguments the store binds and decoding the rows into the row
//! types the store decodes into. A column renamed in the migration and not here (or the
//! other way round), a parameter D1 would refuse as unused, or a row type that no longer
//! matches its `SELECT` fails `make test` natively, long before D1 would.

use std::collections::BTreeSet;
use std::path::Path;

use rusqlite::types::Value as Sql;
use rusqlite::Connection;
use serde_json::{json, Map, Value};

use super::accounts::{self, AccountRow};
use super::card_row::CardRow;
use super::cards;
use super::erasure::{self, LeadSet};
use super::events::{self, Source};
use super::idempotency;
use super::leads::{self, LeadFilter};
use super::outbox;
use super::row::{from_json, impl_row, Row};
use super::tokens::{self, AuthRow, TokenRow};
use super::views::{card_args, card_object, lead_object, JsonText};
use super::webhooks::{self, Attempt, Target, WebhookRow};
use super::{Count, SqlValue, Stmt};
use crate::domain::account::AccountPatch;
use crate::domain::card::{CardInput, CardPatch};
use crate::domain::email_key::email_key;
use crate::domain::event::EventType;
use crate::domain::idempotency::KeptResponse;
use crate::domain::input::Mode;
use crate::domain::lead::{CardSummary, Lead, LeadInput};
use crate::domain::pagination::Page;
use crate::domain::plan::Features;
use crate::domain::token::{Scope, Scopes};
use crate::domain::webhook::{Delivery, Outcome, WebhookInput, MAX_PER_ACCOUNT};
use crate::js::normalize;

const ALL: Features = Features {
    api_access: true,
    advanced_analytics: true,
    white_label: true,
    lead_form: true,
};

struct Db {
    conn: Connection,
    /// `table::builder` names run so far, to prove every builder was run.
    ran: BTreeSet<String>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

impl Db {
    /// An in-memory database with every migration applied in order, as wrangler does.
    fn new() -> Db {
        let mut db = Db {
            conn: Connection::open_in_memory().expect("in-memory SQLite"),
            ran: BTreeSet::new(),
        };
        db.migrate(|_| true);
        db
    }

    /// Applies, in order, the migrations whose file names `which` accepts.
    fn migrate(&mut self, which: impl Fn(&str) -> bool) {
        let mut files: Vec<_> = std::fs::read_dir(root().join("migrations"))
            .expect("migrations/")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "sql"))
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&which))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no migrations found");
        for file in files {
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
        let mut s = self
            .conn
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

    /// A D1 batch: the statements in order, in one transaction.
    fn batch(&mut self, name: &str, stmts: &[Stmt]) -> Vec<Vec<Value>> {
        self.conn.execute_batch("BEGIN").expect("begin");
        let out = stmts.iter().map(|s| self.exec(name, s)).collect();
        self.conn.execute_batch("COMMIT").expect("commit");
        out
    }
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

#[test]
fn every_statement_runs_against_the_migrated_schema() {
    let mut db = Db::new();
    let now = 1_760_000_000_000;

    // Accounts: every column the operator can set.
    let patch = AccountPatch::parse(
        &obj(
            json!({"name": "Acme", "plan": "enterprise", "card_limit": 2,
                    "features": {"api_access": true, "advanced_analytics": false,
                                 "white_label": null, "lead_form": true}}),
        ),
        Mode::Create,
    )
    .expect("valid account");
    let rows = db.exec("accounts::create_sql", &accounts::create_sql(&patch, now));
    let account: AccountRow = one("accounts::create_sql", rows);
    let acc = account.id;
    let update = AccountPatch::parse(
        &obj(json!({"name": "Acme 2", "plan": "pro", "card_limit": null,
                    "features": {"api_access": null, "advanced_analytics": true,
                                 "white_label": false, "lead_form": null}})),
        Mode::Update,
    )
    .expect("valid patch");
    let stmt = accounts::update_sql(acc, &update).expect("a patch with changes");
    let rows = db.exec("accounts::update_sql", &stmt);
    let updated = one::<AccountRow>("accounts::update_sql", rows).decode();
    assert_eq!(updated.name, "Acme 2");
    assert_eq!(updated.overrides.card_limit, None);
    assert!(accounts::update_sql(acc, &AccountPatch::default()).is_none());
    // Back to enterprise so the token below has API access.
    let back = AccountPatch::parse(&obj(json!({"plan": "enterprise"})), Mode::Update)
        .expect("valid patch");
    db.exec(
        "accounts::update_sql",
        &accounts::update_sql(acc, &back).expect("changes"),
    );
    let rows = db.exec("accounts::get_sql", &accounts::get_sql(acc));
    assert_eq!(one::<AccountRow>("accounts::get_sql", rows).id, acc);

    // Tokens.
    let scopes = Scopes::new(vec![Scope::CardsWrite, Scope::LeadsRead]);
    let rows = db.exec(
        "tokens::create_sql",
        &tokens::create_sql(acc, "crm", "hash-1", &scopes, now),
    );
    let token = one::<TokenRow>("tokens::create_sql", rows).decode();
    assert_eq!(token.scopes, scopes);
    let rows = db.exec("tokens::list_sql", &tokens::list_sql(acc));
    assert_eq!(decode::<TokenRow>("tokens::list_sql", rows).len(), 1);
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    let auth: AuthRow = one("tokens::lookup_sql", rows);
    assert_eq!(auth.principal().account_id, acc);
    assert!(auth.principal().features.api_access);
    db.exec(
        "tokens::touch_sql",
        &tokens::touch_sql(token.id, now, 60_000),
    );
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    assert_eq!(
        one::<AuthRow>("tokens::lookup_sql", rows).last_used_at,
        Some(now)
    );
    let rows = db.exec("tokens::hashes_sql", &tokens::hashes_sql(acc));
    assert_eq!(rows, vec![json!({"token_hash": "hash-1"})]);

    // Cards: create (every field), the slug suffix, the limit, update, reads.
    let mut input = CardInput::parse(&obj(full_card())).expect("valid card");
    input.apply_plan(ALL);
    let create = |limit| cards::create_sql(acc, &input, "ada-lovelace", "Ada Lovelace", limit, now);
    let rows = db.exec("cards::create_sql", &create(2));
    let card = one::<CardRow>("cards::create_sql", rows).decode();
    assert_eq!(card.slug, "ada-lovelace");
    assert_eq!(card.language, "de");
    assert!(!card.show_branding);
    assert_eq!(
        serde_json::from_str::<Value>(card.social_links.get()).expect("json"),
        json!([{"platform": "github", "url": "ada", "label": "Code"}])
    );
    let rows = db.exec("cards::create_sql", &create(2));
    assert_eq!(
        one::<CardRow>("cards::create_sql", rows).slug,
        "ada-lovelace-2"
    );
    let rows = db.exec("cards::create_sql", &create(2));
    assert!(rows.is_empty(), "the limit of 2 holds");

    let mut patch = CardPatch::parse(&obj(full_card())).expect("valid patch");
    patch.apply_plan(ALL);
    let mut patch_nulls = CardPatch::parse(&obj(json!({
        "job_title": null, "company": "", "bio": null, "email": null, "phone": null,
        "website": null, "booking_url": null, "video_url": null, "address": null,
        "social_links": null, "design_config": null, "template_id": null,
        "seo_title": null, "seo_description": null, "status": "draft"})))
    .expect("valid patch");
    patch_nulls.apply_plan(ALL);
    for p in [&patch, &patch_nulls] {
        let rows = db.exec(
            "cards::update_sql",
            &cards::update_sql(acc, card.id, p, now),
        );
        let updated = one::<CardRow>("cards::update_sql", rows).decode();
        assert!(updated.updated_at > card.updated_at);
    }
    let rows = db.exec(
        "cards::update_sql",
        &cards::update_sql(acc + 1, card.id, &patch, now),
    );
    assert!(rows.is_empty(), "another account's card is not updated");

    let [count, page] = <[Vec<Value>; 2]>::try_from(db.batch(
        "cards::list_sql",
        &cards::list_sql(acc, None, Page::from_query(None, None), card_args("", ALL)),
    ))
    .expect("two statements");
    assert_eq!(one::<Count>("cards::list_sql", count).n, 2);
    let page = one::<JsonText>("cards::list_sql", page).json;
    let items: Vec<Value> = serde_json::from_str(&format!("[{page}]")).expect("JSON objects");
    let ids: Vec<_> = items.iter().map(|c| c["id"].clone()).collect();
    assert_eq!(ids.len(), 2, "the page is the cards' JSON, comma-separated");
    let order: Vec<Value> = db
        .conn
        .prepare("SELECT id FROM cards WHERE account_id = ? ORDER BY updated_at DESC, id DESC")
        .and_then(|mut s| {
            s.query_map([acc], |r| r.get::<_, i64>(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()
        })
        .expect("ids")
        .into_iter()
        .map(Value::from)
        .collect::<Vec<_>>();
    assert_eq!(ids, order, "most recently updated first");
    let [_, empty] = <[Vec<Value>; 2]>::try_from(db.batch(
        "cards::list_sql",
        &cards::list_sql(
            acc + 1,
            None,
            Page::from_query(None, None),
            card_args("", ALL),
        ),
    ))
    .expect("two statements");
    assert!(
        empty.is_empty(),
        "an empty page is no row, not an empty text: {empty:?}"
    );
    let rows = db.exec("cards::exists_sql", &cards::exists_sql(acc, card.id));
    assert_eq!(one::<Count>("cards::exists_sql", rows).n, 1);
    let [card_rows, account_rows] = <[Vec<Value>; 2]>::try_from(
        db.batch("cards::by_slug_sql", &cards::by_slug_sql("ada-lovelace")),
    )
    .expect("two statements");
    assert_eq!(one::<CardRow>("cards::by_slug_sql", card_rows).id, card.id);
    assert_eq!(
        one::<AccountRow>("cards::by_slug_sql", account_rows).id,
        acc
    );

    // Leads.
    let lead = LeadInput {
        name: "Grace".into(),
        email: "grace@example.com".into(),
        phone: None,
        message: Some("Hi".into()),
        consent: true,
    };
    let rows = db.exec(
        "leads::create_sql",
        &leads::create_sql(acc, card.id, &lead, "qr", now),
    );
    let stored: Lead = one("leads::create_sql", rows);
    assert_eq!(stored.source.as_deref(), Some("qr"));
    assert_eq!(stored.consent_at, Some(now), "consent given at the post");
    let umlaut = LeadInput {
        email: "JÜRGEN@BÜCHER.example".into(),
        ..lead.clone()
    };
    let rows = db.exec(
        "leads::create_sql",
        &leads::create_sql(acc, card.id, &umlaut, "qr", now - 1),
    );
    let jurgen: Lead = one("leads::create_sql", rows);
    let rows = db.exec(
        "check",
        &Stmt::new(
            "SELECT email_key FROM leads WHERE id = ?1",
            vec![jurgen.id.into()],
        ),
    );
    assert_eq!(rows, vec![json!({"email_key": "jürgen@bücher.example"})]);
    let by_address = |db: &mut Db, email: &str| -> i64 {
        let results = db.batch(
            "leads::list_sql",
            &leads::list_sql(
                acc,
                &LeadFilter {
                    email: Some(email.into()),
                    ..LeadFilter::default()
                },
                Page::from_query(None, None),
            ),
        );
        one::<Count>("leads::list_sql", results[0].clone()).n
    };
    assert_eq!(
        by_address(&mut db, "jürgen@bücher.example"),
        1,
        "any case of any script"
    );
    assert_eq!(by_address(&mut db, "jurgen@bucher.example"), 0);
    for (card_filter, email) in [(None, None), (Some(card.id), Some("GRACE@example.com"))] {
        let results = db.batch(
            "leads::list_sql",
            &leads::list_sql(
                acc,
                &LeadFilter {
                    card: card_filter,
                    since: Some(now),
                    email: email.map(String::from),
                },
                Page::from_query(None, None),
            ),
        );
        let [count, page] = <[Vec<Value>; 2]>::try_from(results).expect("two statements");
        assert_eq!(one::<Count>("leads::list_sql", count).n, 1);
        assert_eq!(decode::<JsonText>("leads::list_sql", page).len(), 1);
    }
    let [lead_rows, card_rows] =
        <[Vec<Value>; 2]>::try_from(db.batch("leads::get_sql", &leads::get_sql(acc, stored.id)))
            .expect("two statements");
    assert_eq!(one::<Lead>("leads::get_sql", lead_rows).id, stored.id);
    assert_eq!(
        one::<CardSummary>("leads::get_sql", card_rows).slug,
        "ada-lovelace"
    );
    let [card_rows, lead_rows] = <[Vec<Value>; 2]>::try_from(db.batch(
        "cards::get_with_leads_sql",
        &cards::get_with_leads_sql(acc, card.id, card_args("https://x.example", ALL)),
    ))
    .expect("two statements");
    let card_json = one::<JsonText>("cards::get_with_leads_sql", card_rows);
    assert!(card_json
        .json
        .starts_with(&format!("{{\"id\":{},", card.id)));
    assert_eq!(
        decode::<JsonText>("cards::get_with_leads_sql", lead_rows).len(),
        1
    );

    // Deletes and revokes last.
    let [_, deleted] = <[Vec<Value>; 2]>::try_from(
        db.batch("cards::delete_sql", &cards::delete_sql(acc, card.id)),
    )
    .expect("two statements");
    assert_eq!(deleted.len(), 1);
    let results = db.batch("tokens::revoke_sql", &tokens::revoke_sql(token.id, now));
    assert_eq!(results[0], vec![json!({"token_hash": "hash-1"})]);
    let rows = db.exec("tokens::lookup_sql", &tokens::lookup_sql("hash-1"));
    assert!(rows.is_empty(), "a revoked token is not found");

    keys_of_leads_from_before_the_key(&mut db);
    feed_and_idempotency(&mut db, acc, now);
    webhooks_and_outbox(&mut db, acc, now);
    erasure_reaches_every_copy(&mut db, acc, now);
    account_goes_with_everything(&mut db, acc);

    // Every statement builder of store/ ran above: a new one must be added here.
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

/// migrations/0006 keys the pure-ASCII addresses of existing leads as the worker would and
/// leaves the others to the worker, which finds them (of one account, or of any) and keys
/// them once; listLeads?email= then finds them in any case.
fn keys_of_leads_from_before_the_key(db: &mut Db) {
    let mut old = Db {
        conn: Connection::open_in_memory().expect("in-memory SQLite"),
        ran: BTreeSet::new(),
    };
    old.migrate(|name| name < "0006");
    let emails = [
        "Grace.Hopper@Example.COM",
        "ÄRZTE@BÜCHER.example",
        "ΝΊΚΟΣ@example.gr",
        "x~Y@a-b.example",
    ];
    old.conn
        .execute_batch(
            "INSERT INTO accounts (id, name, plan, created_at) VALUES (7, 'Old', 'enterprise', 1);
             INSERT INTO cards (id, account_id, slug, title, first_name, last_name, created_at,
                 updated_at) VALUES (70, 7, 'old', 'Old', 'O', 'Ld', 1, 1);",
        )
        .expect("account and card");
    for email in emails.iter().map(|e| Some(*e)).chain([None]) {
        old.conn
            .execute(
                "INSERT INTO leads (account_id, card_id, email, created_at, updated_at) \
                 VALUES (7, 70, ?1, 1, 1)",
                [email],
            )
            .expect("lead");
    }
    old.migrate(|name| name >= "0006");
    let keys = |db: &mut Db| -> Vec<Value> {
        db.exec(
            "check",
            &Stmt::new("SELECT email_key FROM leads ORDER BY id", vec![]),
        )
        .into_iter()
        .map(|r| r["email_key"].clone())
        .collect()
    };
    assert_eq!(
        keys(&mut old),
        vec![
            json!(email_key(emails[0], normalize)),
            Value::Null,
            Value::Null,
            json!(email_key(emails[3], normalize)),
            Value::Null,
        ],
        "ASCII keyed as the worker keys it, the rest left to the worker"
    );
    let rows = old.exec(
        "leads::missing_keys_sql",
        &leads::missing_keys_sql(Some(7), 100),
    );
    assert_eq!(
        decode::<leads::Unkeyed>("leads::missing_keys_sql", rows).len(),
        3
    );
    assert!(old
        .exec(
            "leads::missing_keys_sql",
            &leads::missing_keys_sql(Some(8), 100)
        )
        .is_empty());
    let rows = old.exec("leads::missing_keys_sql", &leads::missing_keys_sql(None, 2));
    let unkeyed = decode::<leads::Unkeyed>("leads::missing_keys_sql", rows);
    assert_eq!(unkeyed.len(), 2, "the limit holds");
    let rows = old.exec(
        "leads::missing_keys_sql",
        &leads::missing_keys_sql(None, 100),
    );
    for row in decode::<leads::Unkeyed>("leads::missing_keys_sql", rows) {
        let key = email_key(row.email.as_deref().unwrap_or(""), normalize);
        old.exec("leads::set_key_sql", &leads::set_key_sql(row.id, &key));
    }
    assert_eq!(
        keys(&mut old),
        vec![
            json!(email_key(emails[0], normalize)),
            json!("ärzte@bücher.example"),
            json!("νίκοσ@example.gr"),
            json!(email_key(emails[3], normalize)),
            json!(""),
        ]
    );
    assert!(old
        .exec(
            "leads::missing_keys_sql",
            &leads::missing_keys_sql(None, 100)
        )
        .is_empty());
    // A key once set stays (a second worker keying the same lead changes nothing).
    let rows = old.exec("check", &Stmt::new("SELECT changes() AS n", vec![]));
    assert_eq!(rows[0]["n"], 1);
    old.exec("leads::set_key_sql", &leads::set_key_sql(2, "other"));
    let rows = old.exec("check", &Stmt::new("SELECT changes() AS n", vec![]));
    assert_eq!(rows[0]["n"], 0);
    for (email, n) in [("ärzte@bücher.example", 1), ("grace.hopper@example.com", 1)] {
        let results = old.batch(
            "leads::list_sql",
            &leads::list_sql(
                7,
                &LeadFilter {
                    email: Some(email.into()),
                    ..LeadFilter::default()
                },
                Page::from_query(None, None),
            ),
        );
        assert_eq!(
            one::<Count>("leads::list_sql", results[0].clone()).n,
            n,
            "{email}"
        );
    }
    db.ran.extend(old.ran);
}

/// Deleting an account leaves none of its rows in any table, with foreign keys enforced
/// as D1 enforces them.
fn account_goes_with_everything(db: &mut Db, acc: i64) {
    db.conn
        .execute_batch("PRAGMA foreign_keys = ON")
        .expect("pragma");
    let tables = [
        ("accounts", "id"),
        ("tokens", "account_id"),
        ("cards", "account_id"),
        ("leads", "account_id"),
        ("events", "account_id"),
        ("idempotency_keys", "account_id"),
        ("webhooks", "account_id"),
        ("deliveries", "account_id"),
    ];
    let count = |db: &Db, table: &str, col: &str| -> i64 {
        db.conn
            .query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE {col} = ?1"),
                [acc],
                |r| r.get(0),
            )
            .expect("count")
    };
    let before: i64 = tables.iter().map(|(t, c)| count(db, t, c)).sum();
    assert!(before > 8, "the account has rows to delete: {before}");
    let results = db.batch("accounts::delete_sql", &accounts::delete_sql(acc));
    assert_eq!(results.last().map(Vec::len), Some(1), "the account existed");
    for (table, col) in tables {
        assert_eq!(
            count(db, table, col),
            0,
            "{table} keeps rows of a deleted account"
        );
    }
    let again = db.batch("accounts::delete_sql", &accounts::delete_sql(acc));
    assert_eq!(
        again.last().map(Vec::len),
        Some(0),
        "a second delete finds nothing"
    );
}

/// The sequences of an account's events, in order, with their types.
fn feed(db: &mut Db, acc: i64) -> Vec<(i64, String)> {
    let all = [
        EventType::CardCreated,
        EventType::CardUpdated,
        EventType::CardDeleted,
        EventType::LeadCreated,
    ];
    let [state, rows] = <[Vec<Value>; 2]>::try_from(
        db.batch("events::list_sql", &events::list_sql(acc, 0, &all, 100)),
    )
    .expect("two statements");
    let state: events::FeedState = one("events::list_sql", state);
    let rows: Vec<events::EventRow> = decode("events::list_sql", rows);
    if let Some(last) = rows.last() {
        assert_eq!(
            state.event_sequence, last.sequence,
            "the counter is the last sequence"
        );
    }
    rows.into_iter().map(|r| (r.sequence, r.kind)).collect()
}

/// Events are written with their change, in one batch, and only when the change happened.
fn feed_and_idempotency(db: &mut Db, acc: i64, now: i64) {
    let before = feed(db, acc).len();
    assert_eq!(
        before, 0,
        "the statements above record no events by themselves"
    );
    let mut input = CardInput::parse(&obj(full_card())).expect("valid card");
    input.apply_plan(ALL);
    let append =
        |kind, source| events::append_sql(acc, &format!("evt_{kind:?}{now}"), kind, now, source);
    // A create that the card limit stops records nothing.
    let limited = cards::create_sql(acc, &input, "feed", "Feed", 0, now);
    let [a, b] = append(EventType::CardCreated, Source::InsertedCard);
    let results = db.batch("events::append_sql", &[limited, a, b]);
    assert!(results[0].is_empty());
    assert!(
        feed(db, acc).is_empty(),
        "no card, no event, no sequence used"
    );
    let create = cards::create_sql(acc, &input, "feed", "Feed", 100, now);
    let [a, b] = events::append_sql(
        acc,
        "evt_1",
        EventType::CardCreated,
        now,
        Source::InsertedCard,
    );
    let results = db.batch("events::append_sql", &[create, a, b]);
    let card = one::<CardRow>("cards::create_sql", results[0].clone()).decode();
    let mut patch = CardPatch::parse(&obj(json!({"bio": "changed"}))).expect("patch");
    patch.apply_plan(ALL);
    let [a, b] = events::append_sql(
        acc,
        "evt_2",
        EventType::CardUpdated,
        now,
        Source::UpdatedCard(card.id),
    );
    db.batch(
        "events::append_sql",
        &[cards::update_sql(acc, card.id, &patch, now), a, b],
    );
    // An update of a card that is not there records nothing.
    let [a, b] = events::append_sql(
        acc,
        "evt_x",
        EventType::CardUpdated,
        now,
        Source::UpdatedCard(card.id + 100),
    );
    db.batch(
        "events::append_sql",
        &[cards::update_sql(acc, card.id + 100, &patch, now), a, b],
    );
    let lead = LeadInput {
        name: "Feed".into(),
        email: "feed@example.com".into(),
        phone: None,
        message: None,
        consent: false,
    };
    let [a, b] = events::append_sql(
        acc,
        "evt_3",
        EventType::LeadCreated,
        now,
        Source::InsertedLead,
    );
    db.batch(
        "events::append_sql",
        &[leads::create_sql(acc, card.id, &lead, "link", now), a, b],
    );
    let [a, b] = events::append_sql(
        acc,
        "evt_4",
        EventType::CardDeleted,
        now,
        Source::DeletingCard(card.id),
    );
    let [del_leads, del_card] = cards::delete_sql(acc, card.id);
    db.batch("events::append_sql", &[del_leads, a, b, del_card]);
    assert_eq!(
        feed(db, acc),
        vec![
            (1, "card.created".to_string()),
            (2, "card.updated".to_string()),
            (3, "lead.created".to_string()),
            (4, "card.deleted".to_string()),
        ]
    );
    // Every snapshot decodes into what the API shows.
    for id in ["evt_1", "evt_2", "evt_3", "evt_4"] {
        let rows = db.exec("events::get_sql", &events::get_sql(acc, id));
        let event = one::<events::EventRow>("events::get_sql", rows)
            .decode()
            .unwrap_or_else(|| panic!("{id} decodes"));
        let shown = serde_json::to_value(event.view("https://x.example")).expect("json");
        match id {
            "evt_2" => assert_eq!(shown["data"]["object"]["bio"], "changed"),
            "evt_3" => assert_eq!(shown["data"]["object"]["card"]["id"], card.id),
            "evt_4" => assert_eq!(
                shown["data"]["object"],
                json!({"id": card.id, "slug": card.slug, "deleted": true})
            ),
            _ => assert_eq!(shown["data"]["object"]["slug"], card.slug),
        }
    }
    assert!(db
        .exec("events::get_sql", &events::get_sql(acc + 1, "evt_1"))
        .is_empty());
    // Retention: everything before the cutoff goes, and the account remembers how far.
    let pruned = db.batch("events::prune_sql", &events::prune_sql(now + 1, 1000));
    assert_eq!(pruned.len(), 2);
    assert!(feed(db, acc).is_empty());
    let rows = db.exec(
        "events::list_sql",
        &events::list_sql(acc, 0, &[EventType::CardCreated], 10)[0],
    );
    assert_eq!(
        rows,
        vec![json!({"event_sequence": 4, "events_pruned_through": 4})]
    );

    // Idempotency: one claim wins; a stale claim can be taken over.
    let claim_by = |key: &str, at: i64, token_id: i64, holds_secret: bool| {
        idempotency::claim_sql(&idempotency::Claim {
            account_id: acc,
            key,
            method: "POST",
            path: "/api/v1/cards",
            digest: "d",
            token_id,
            holds_secret,
            now: at,
            expired_before: at - 1000,
            abandoned_before: at - 100,
        })
    };
    let claim = |key: &str, at: i64| claim_by(key, at, 1, false);
    assert_eq!(db.exec("idempotency::claim_sql", &claim("k", now)).len(), 1);
    assert!(
        db.exec("idempotency::claim_sql", &claim("k", now))
            .is_empty(),
        "taken"
    );
    let response = KeptResponse {
        status: 201,
        content_type: "application/json".into(),
        body: "{}".into(),
    };
    db.exec(
        "idempotency::complete_sql",
        &idempotency::complete_sql(acc, "k", &response),
    );
    let rows = db.exec("idempotency::find_sql", &idempotency::find_sql(acc, "k"));
    let kept = one::<idempotency::KeptRow>("idempotency::find_sql", rows).decode();
    assert_eq!(kept.response, Some(response));
    assert_eq!((kept.token_id, kept.holds_secret), (Some(1), false));
    assert!(
        db.exec("idempotency::claim_sql", &claim("k", now + 500))
            .is_empty(),
        "a kept response is not taken over before it expires"
    );
    assert_eq!(
        db.exec("idempotency::claim_sql", &claim("k", now + 2000))
            .len(),
        1,
        "an expired one is"
    );
    assert!(db
        .exec("idempotency::claim_sql", &claim("k", now + 2050))
        .is_empty());
    assert_eq!(
        db.exec(
            "idempotency::claim_sql",
            &claim_by("k", now + 2200, 2, true)
        )
        .len(),
        1,
        "an abandoned claim is freed"
    );
    let rows = db.exec("idempotency::find_sql", &idempotency::find_sql(acc, "k"));
    let kept = one::<idempotency::KeptRow>("idempotency::find_sql", rows).decode();
    assert_eq!(
        (kept.token_id, kept.holds_secret, kept.response),
        (Some(2), true, None),
        "the new claim is its token's, with its route's secret flag and no answer yet"
    );
    db.exec(
        "idempotency::release_sql",
        &idempotency::release_sql(acc, "k"),
    );
    assert!(db
        .exec("idempotency::find_sql", &idempotency::find_sql(acc, "k"))
        .is_empty());
    db.exec("idempotency::claim_sql", &claim("old", now));
    db.exec(
        "idempotency::prune_sql",
        &idempotency::prune_sql(now + 1, 10),
    );
    assert!(db
        .exec("idempotency::find_sql", &idempotency::find_sql(acc, "old"))
        .is_empty());
}

struct Id {
    id: i64,
}
impl_row!(Id { id });

fn ids(name: &str, rows: Vec<Value>) -> Vec<i64> {
    decode::<Id>(name, rows).into_iter().map(|r| r.id).collect()
}

/// Subscriptions, the outbox written with an event, claiming, finishing and redelivering
/// attempts.
fn webhooks_and_outbox(db: &mut Db, acc: i64, now: i64) {
    let input = |body: Value, mode| WebhookInput::parse(&obj(body), mode, true).expect("valid");
    let leads_only = input(
        json!({"url": "https://a.example/h", "events": ["lead.created"], "description": "CRM"}),
        Mode::Create,
    );
    let everything = input(
        json!({"url": "https://b.example/h", "events": ["*"]}),
        Mode::Create,
    );
    let scopes = Scopes::new(vec![
        Scope::WebhooksWrite,
        Scope::CardsRead,
        Scope::LeadsRead,
    ]);
    let rows = db.exec(
        "tokens::create_sql",
        &tokens::create_sql(acc, "hooks", "hash-hooks", &scopes, now),
    );
    let owner = webhooks::Owner {
        account_id: acc,
        token_id: one::<TokenRow>("tokens::create_sql", rows).decode().id,
    };
    let create =
        |w: &WebhookInput| webhooks::create_sql(owner, w, "gcm1:sealed", "https://x.example", now);
    let rows = db.exec("webhooks::create_sql", &create(&leads_only));
    let hook = one::<WebhookRow>("webhooks::create_sql", rows).decode();
    assert_eq!(hook.description.as_deref(), Some("CRM"));
    let rows = db.exec("webhooks::create_sql", &create(&everything));
    let all_hook = one::<WebhookRow>("webhooks::create_sql", rows).decode();
    for _ in 2..MAX_PER_ACCOUNT {
        db.exec("webhooks::create_sql", &create(&everything));
    }
    assert!(
        db.exec("webhooks::create_sql", &create(&everything))
            .is_empty(),
        "the eleventh is refused"
    );
    let [count, page] = <[Vec<Value>; 2]>::try_from(db.batch(
        "webhooks::list_sql",
        &webhooks::list_sql(acc, Page::from_query(None, None)),
    ))
    .expect("two statements");
    assert_eq!(one::<Count>("webhooks::list_sql", count).n, MAX_PER_ACCOUNT);
    assert_eq!(decode::<WebhookRow>("webhooks::list_sql", page).len(), 10);
    let rows = db.exec("webhooks::get_sql", &webhooks::get_sql(acc, hook.id));
    assert_eq!(one::<WebhookRow>("webhooks::get_sql", rows).id, hook.id);
    assert!(db
        .exec("webhooks::get_sql", &webhooks::get_sql(acc + 1, hook.id))
        .is_empty());
    for (body, status) in [
        (
            json!({"status": "disabled", "description": null}),
            "disabled",
        ),
        (
            json!({"status": "enabled", "url": "https://c.example/h", "events": ["lead.created"]}),
            "enabled",
        ),
    ] {
        let stmt = webhooks::update_sql(owner, hook.id, &input(body, Mode::Update), now + 1);
        let rows = db.exec("webhooks::update_sql", &stmt);
        let row: WebhookRow = one("webhooks::update_sql", rows);
        assert_eq!(row.status, status);
    }
    let rows = db.exec(
        "webhooks::rotate_sql",
        &webhooks::rotate_sql(acc, hook.id, "gcm1:new", now + 2),
    );
    assert_eq!(
        one::<WebhookRow>("webhooks::rotate_sql", rows).updated_at,
        now + 2
    );

    // A lead event fans out to both; the card event only to the catch-all ones.
    let card_input = CardInput::parse(&obj(json!({"first_name": "Out", "last_name": "Box"})))
        .expect("valid card");
    let [a, b] = events::append_sql(
        acc,
        "evt_w1",
        EventType::CardCreated,
        now,
        Source::InsertedCard,
    );
    let results = db.batch(
        "outbox::fanout_sql",
        &[
            cards::create_sql(acc, &card_input, "outbox", "Out Box", 100, now),
            a,
            b,
            outbox::fanout_sql(acc, "evt_w1", EventType::CardCreated, now),
        ],
    );
    let card = one::<CardRow>("cards::create_sql", results[0].clone());
    assert_eq!(ids("outbox::fanout_sql", results[3].clone()).len(), 9);
    let lead = LeadInput {
        name: "Hook".into(),
        email: "hook@example.com".into(),
        phone: None,
        message: None,
        consent: false,
    };
    let [a, b] = events::append_sql(
        acc,
        "evt_w2",
        EventType::LeadCreated,
        now,
        Source::InsertedLead,
    );
    let results = db.batch(
        "outbox::fanout_sql",
        &[
            leads::create_sql(acc, card.id, &lead, "link", now),
            a,
            b,
            outbox::fanout_sql(acc, "evt_w2", EventType::LeadCreated, now),
        ],
    );
    let fanned = ids("outbox::fanout_sql", results[3].clone());
    assert_eq!(fanned.len(), 10);
    // No event written (no such card), no attempt.
    let [a, b] = events::append_sql(
        acc,
        "evt_w3",
        EventType::CardUpdated,
        now,
        Source::UpdatedCard(card.id + 100),
    );
    let mut patch = CardPatch::parse(&obj(json!({"bio": "x"}))).expect("patch");
    patch.apply_plan(ALL);
    let results = db.batch(
        "outbox::fanout_sql",
        &[
            cards::update_sql(acc, card.id + 100, &patch, now),
            a,
            b,
            outbox::fanout_sql(acc, "evt_w3", EventType::CardUpdated, now),
        ],
    );
    assert!(results[3].is_empty(), "no event, no delivery");

    // The sweeper sees attempts overdue by its grace period, not fresh ones.
    let rows = db.exec(
        "outbox::overdue_sql",
        &outbox::overdue_sql(now, 60_000, 100),
    );
    assert!(rows.is_empty());
    let later = now + outbox::SWEEP_GRACE_MS + 1;
    let rows = db.exec(
        "outbox::overdue_sql",
        &outbox::overdue_sql(later, 60_000, 100),
    );
    assert_eq!(ids("outbox::overdue_sql", rows).len(), 19);

    // Claim: once; the webhook, event and account come with it.
    let first = fanned[0];
    let results = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(first, later, 60_000),
    );
    let attempt: Attempt = one("webhooks::claim_sql", results[0].clone());
    assert_eq!((attempt.event_id.as_str(), attempt.attempt), ("evt_w2", 1));
    let target: Target = one("webhooks::claim_sql", results[1].clone());
    assert!(target.url.starts_with("https://"));
    assert_eq!(target.token_revoked, 0);
    let event: events::EventRow = one("webhooks::claim_sql", results[2].clone());
    assert!(event.decode().is_some());
    assert_eq!(
        one::<AccountRow>("webhooks::claim_sql", results[3].clone()).id,
        acc
    );
    let again = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(first, later + 1, 60_000),
    );
    assert!(
        again[0].is_empty(),
        "claimed: a duplicate message does nothing"
    );
    let rows = db.exec(
        "outbox::overdue_sql",
        &outbox::overdue_sql(later, 60_000, 100),
    );
    assert!(
        !ids("outbox::overdue_sql", rows).contains(&first),
        "held by a live consumer"
    );

    // A failure schedules the next attempt; a success ends the series.
    let failed = Outcome::from_status(500, None);
    let results = db.batch(
        "webhooks::finish_sql",
        &webhooks::finish_sql(&attempt, &failed, false, Some(later + 5000), later),
    );
    let next = results_ids(&results[2]);
    assert_eq!(next.len(), 1);
    let results = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(next[0], later + 6000, 60_000),
    );
    let second: Attempt = one("webhooks::claim_sql", results[0].clone());
    assert_eq!(second.attempt, 2);
    db.batch(
        "webhooks::finish_sql",
        &webhooks::finish_sql(&second, &Outcome::Delivered(204), false, None, later + 6000),
    );
    let [exists, count, page] = <[Vec<Value>; 3]>::try_from(db.batch(
        "webhooks::deliveries_sql",
        &webhooks::deliveries_sql(acc, attempt.webhook_id, Page::from_query(None, None)),
    ))
    .expect("three statements");
    assert_eq!(one::<Count>("webhooks::deliveries_sql", exists).n, 1);
    assert_eq!(one::<Count>("webhooks::deliveries_sql", count).n, 2);
    let listed: Vec<Delivery> = decode("webhooks::deliveries_sql", page);
    assert_eq!(
        listed
            .iter()
            .map(|d| (d.attempt, d.status.as_str()))
            .collect::<Vec<_>>(),
        vec![(2, "succeeded"), (1, "failed")]
    );
    assert_eq!(listed[1].response_status, Some(500));
    let rows = db.exec(
        "check",
        &Stmt::new(
            "SELECT failing_since FROM webhooks WHERE id = ?1",
            vec![attempt.webhook_id.into()],
        ),
    );
    assert_eq!(
        rows,
        vec![json!({"failing_since": null})],
        "a success ends the run of failures"
    );

    // Redeliver: attempt 3 of the pair; nothing for another account or a missing event,
    // an event the token may not read, or one the webhook does not subscribe to.
    let all = EventType::ALL;
    let redeliver = |db: &mut Db, acc: i64, event: &str, readable: &[EventType], at: i64| {
        db.batch(
            "webhooks::redeliver_sql",
            &webhooks::redeliver_sql(acc, attempt.webhook_id, event, readable, at),
        )
    };
    let results = redeliver(db, acc, "evt_w2", &all, later);
    assert_eq!(
        one::<Delivery>("webhooks::redeliver_sql", results[3].clone()).attempt,
        3
    );
    let results = redeliver(db, acc + 1, "evt_w2", &all, later);
    assert!(
        results[0].is_empty() && results[3].is_empty(),
        "not the account's"
    );
    let results = redeliver(db, acc, "evt_nope", &all, later);
    assert!(results[1].is_empty() && results[3].is_empty());
    let results = redeliver(db, acc, "evt_w2", &[EventType::CardCreated], later);
    assert!(results[1].is_empty() && results[3].is_empty(), "unreadable");
    let results = redeliver(db, acc, "evt_w1", &all, later);
    assert!(
        !results[1].is_empty() && results[3].is_empty(),
        "a lead-only webhook"
    );
    // Five an hour: four more go, the sixth does not, an hour after the first it does.
    for n in 0..4 {
        let results = redeliver(db, acc, "evt_w2", &all, later + 1 + n);
        assert_eq!(results[3].len(), 1);
    }
    let results = redeliver(db, acc, "evt_w2", &all, later + 10);
    assert!(results[3].is_empty(), "the sixth in the hour");
    assert_eq!(
        results[2],
        vec![json!({"n": 5, "oldest": later})],
        "the window and its oldest"
    );
    let results = redeliver(db, acc, "evt_w2", &all, later + 3_600_000);
    assert_eq!(results[3].len(), 1, "the first has left the hour");

    // An account without API access: the attempt waits, then resumes with access.
    let waiting = results_ids(&results[3]);
    let rows = db.exec(
        "webhooks::park_sql",
        &webhooks::park_sql(waiting[0], acc, later + 1),
    );
    assert!(rows.is_empty());
    let rows = db.exec(
        "webhooks::resume_sql",
        &webhooks::resume_sql(acc + 1, later),
    );
    assert!(rows.is_empty(), "another account's");
    let rows = db.exec("webhooks::resume_sql", &webhooks::resume_sql(acc, later));
    assert_eq!(ids("webhooks::resume_sql", rows), waiting);

    // A 410 disables; nothing more is scheduled for a disabled webhook.
    let results = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(fanned[1], later, 60_000),
    );
    let gone_attempt: Attempt = one("webhooks::claim_sql", results[0].clone());
    let results = db.batch(
        "webhooks::finish_sql",
        &webhooks::finish_sql(
            &gone_attempt,
            &Outcome::from_status(410, None),
            true,
            Some(later),
            later,
        ),
    );
    assert!(results[2].is_empty(), "disabled: no next attempt");

    // Revoking the token disables the webhooks it is answerable for; an attempt of one
    // says so when claimed. Enabled again after: the erasure checks need them.
    let results = db.batch(
        "tokens::revoke_sql",
        &tokens::revoke_sql(owner.token_id, later),
    );
    let disabled = results_ids(&results[1]);
    assert!(!disabled.is_empty(), "its enabled webhooks disabled");
    let results = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(waiting[0], later + 200_000, 60_000),
    );
    let target: Target = one("webhooks::claim_sql", results[1].clone());
    assert_eq!(
        (target.token_revoked, target.status.as_str()),
        (1, "disabled")
    );
    for id in disabled {
        let enable = "UPDATE webhooks SET status = 'enabled' WHERE id = ?1";
        db.exec("check", &Stmt::new(enable, vec![id.into()]));
    }

    // Retention removes finished attempts, then the subscription goes with the rest.
    db.exec(
        "webhooks::prune_sql",
        &webhooks::prune_sql(later + 10_000, 1000),
    );
    let [_, deleted] = <[Vec<Value>; 2]>::try_from(db.batch(
        "webhooks::delete_sql",
        &webhooks::delete_sql(acc, all_hook.id),
    ))
    .expect("two statements");
    assert_eq!(deleted.len(), 1);
}

/// Erasing leads: one lead, every lead of an address, the expired ones; the events and
/// their snapshots, the webhook attempts, the rows.
fn erasure_reaches_every_copy(db: &mut Db, acc: i64, now: i64) {
    let card_input = CardInput::parse(&obj(json!({"first_name": "Era", "last_name": "Sure"})))
        .expect("valid card");
    let rows = db.exec(
        "cards::create_sql",
        &cards::create_sql(acc, &card_input, "erasure", "Era Sure", 1000, now),
    );
    let card = one::<CardRow>("cards::create_sql", rows);
    let mut post = |email: &str, at: i64, n: usize| -> i64 {
        let lead = LeadInput {
            name: format!("Person {n}"),
            email: email.into(),
            phone: Some("+1 555".into()),
            message: Some("secret message".into()),
            consent: true,
        };
        let event = format!("evt_erase_{n}");
        let [a, b] = events::append_sql(
            acc,
            &event,
            EventType::LeadCreated,
            at,
            Source::InsertedLead,
        );
        let results = db.batch(
            "events::append_sql",
            &[leads::create_sql(acc, card.id, &lead, "link", at), a, b],
        );
        one::<Lead>("leads::create_sql", results[0].clone()).id
    };
    let one_lead = post("one@example.com", now, 1);
    let twin_a = post("twin@example.com", now, 2);
    let twin_b = post("TWIN@Example.com", now, 3);
    let umlaut = post("ÄRZTE@Bücher.example", now, 6);
    let old = post("old@example.com", now - 10 * 86_400_000, 4);
    let kept = post("kept@example.com", now, 5);
    let snapshot = |db: &mut Db, lead: i64| -> Value {
        let rows = db.exec(
            "check",
            &Stmt::new(
                "SELECT object FROM events WHERE lead_id = ?1 AND type = 'lead.created'",
                vec![lead.into()],
            ),
        );
        serde_json::from_str(rows[0]["object"].as_str().expect("text")).expect("json")
    };
    assert_eq!(snapshot(db, one_lead)["lead"]["email"], "one@example.com");
    let sequence = |db: &mut Db| -> i64 {
        let rows = db.exec(
            "check",
            &Stmt::new(
                "SELECT event_sequence AS n FROM accounts WHERE id = ?1",
                vec![acc.into()],
            ),
        );
        one::<Count>("check", rows).n
    };
    let before = sequence(db);

    let results = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc, LeadSet::One(one_lead), now),
    );
    assert_eq!(results[4].len(), 1, "one lead deleted");
    let rows = db.exec(
        "check",
        &Stmt::new(
            "SELECT COUNT(*) AS n FROM webhooks WHERE account_id = ?1 AND status = 'enabled' \
             AND events = '[\"*\"]'",
            vec![acc.into()],
        ),
    );
    let catch_all = one::<Count>("check", rows).n as usize;
    assert!(catch_all > 0);
    assert_eq!(
        results[2].len(),
        catch_all,
        "one attempt per enabled catch-all webhook"
    );
    let redacted = snapshot(db, one_lead);
    for field in ["name", "email", "phone", "message", "note"] {
        assert_eq!(redacted["lead"][field], Value::Null, "{field} redacted");
    }
    assert_eq!(redacted["lead"]["id"], one_lead, "ids and times stay");
    assert_eq!(redacted["card"]["id"], card.id);
    assert_eq!(sequence(db), before + 1);
    let rows = db.exec(
        "check",
        &Stmt::new(
            "SELECT object, sequence FROM events WHERE lead_id = ?1 AND type = 'lead.deleted'",
            vec![one_lead.into()],
        ),
    );
    assert_eq!(rows[0]["sequence"], before + 1);
    let deleted: Value = serde_json::from_str(rows[0]["object"].as_str().unwrap()).unwrap();
    assert_eq!(deleted, json!({"id": one_lead, "card_id": card.id}));
    // Nothing left to erase: nothing recorded.
    let again = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc, LeadSet::One(one_lead), now),
    );
    assert!(again[4].is_empty() && again[2].is_empty());
    assert_eq!(sequence(db), before + 1);
    // Another account erases nothing of this one.
    let other = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc + 1, LeadSet::One(kept), now),
    );
    assert!(other[4].is_empty());

    // By address, any case of any script.
    let results = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc, LeadSet::Email("ärzte@BÜCHER.example"), now),
    );
    assert_eq!(results_ids(&results[4]), vec![umlaut]);
    assert_eq!(sequence(db), before + 2);
    let before = before + 1;
    // By address, any case: both twins, consecutive sequences.
    let results = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc, LeadSet::Email("Twin@Example.com"), now),
    );
    let mut gone = results_ids(&results[4]);
    gone.sort_unstable();
    assert_eq!(gone, vec![twin_a, twin_b]);
    assert_eq!(sequence(db), before + 3);
    assert_eq!(snapshot(db, twin_b)["lead"]["message"], Value::Null);

    // Retention: the account keeps leads 7 days; the old one goes, the new one stays.
    let rows = db.exec(
        "erasure::expired_sql",
        &erasure::expired_sql(now, 86_400_000, 10),
    );
    assert!(rows.is_empty(), "no retention set");
    let patch =
        AccountPatch::parse(&obj(json!({"lead_retention_days": 7})), Mode::Update).expect("valid");
    db.exec(
        "accounts::update_sql",
        &accounts::update_sql(acc, &patch).expect("changes"),
    );
    let rows = db.exec(
        "erasure::expired_sql",
        &erasure::expired_sql(now, 86_400_000, 10),
    );
    let due: Vec<erasure::Retention> = decode("erasure::expired_sql", rows);
    assert_eq!(due.len(), 1);
    let cutoff = due[0].cutoff(now, 86_400_000);
    let results = db.batch(
        "erasure::erase_sql",
        &erasure::erase_sql(acc, LeadSet::Expired { cutoff, limit: 100 }, now),
    );
    assert_eq!(results_ids(&results[4]), vec![old]);
    assert!(db
        .exec(
            "erasure::expired_sql",
            &erasure::expired_sql(now, 86_400_000, 10)
        )
        .is_empty());
    let rows = db.exec("leads::get_sql", &leads::get_sql(acc, kept)[0]);
    assert_eq!(
        decode::<Lead>("leads::get_sql", rows).len(),
        1,
        "the new lead stays"
    );

    // Deleting the card deletes its leads: their snapshots are redacted in that batch.
    let [del_leads, del_card] = cards::delete_sql(acc, card.id);
    db.batch(
        "erasure::redact_card_leads_sql",
        &[
            erasure::redact_card_leads_sql(acc, card.id),
            del_leads,
            del_card,
        ],
    );
    let redacted = snapshot(db, kept);
    assert_eq!(redacted["lead"]["email"], Value::Null);
    assert_eq!(redacted["lead"]["id"], kept);
}

fn results_ids(rows: &[Value]) -> Vec<i64> {
    rows.iter().filter_map(|r| r["id"].as_i64()).collect()
}

/// Migration 0007 removes the plaintext secrets kept before it and marks their rows, so
/// they are refused rather than replayed; other kept answers stay as they were.
#[test]
fn kept_secrets_from_before_0007_are_removed() {
    let conn = Connection::open_in_memory().expect("in-memory SQLite");
    let mut files: Vec<_> = std::fs::read_dir(root().join("migrations"))
        .expect("migrations/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .collect();
    files.sort();
    let name = |p: &std::path::PathBuf| p.file_name().map(|n| n.to_string_lossy().into_owned());
    let at = files
        .iter()
        .position(|p| name(p).as_deref() == Some("0007_idempotency_token.sql"))
        .expect("migration 0007");
    for file in &files[..at] {
        let sql = std::fs::read_to_string(file).expect("read migration");
        conn.execute_batch(&sql).expect("earlier migration");
    }
    conn.execute_batch(
        "INSERT INTO accounts (name, plan, created_at) VALUES ('a', 'enterprise', 0);
         INSERT INTO idempotency_keys (account_id, key, method, path, digest, created_at, status, headers, body) VALUES
           (1, 'hook', 'POST', '/api/v1/webhooks', 'd', 0, 201, 'application/json',
            '{\"data\":{\"id\":1,\"secret\":\"whsec_plain\"},\"message\":\"ok\"}'),
           (1, 'card', 'POST', '/api/v1/cards', 'd', 0, 201, 'application/json', '{\"data\":{\"id\":2}}'),
           (1, 'gone', 'DELETE', '/api/v1/cards/2', 'd', 0, 204, 'application/json', ''),
           (1, 'busy', 'POST', '/api/v1/webhooks', 'd', 0, NULL, NULL, NULL);",
    )
    .expect("rows kept before 0007");
    let sql = std::fs::read_to_string(&files[at]).expect("read 0007");
    conn.execute_batch(&sql)
        .expect("0007 applies over kept rows");
    let mut s = conn
        .prepare(
            "SELECT key, holds_secret, token_id IS NULL, body FROM idempotency_keys ORDER BY key",
        )
        .expect("select");
    let rows: Vec<(String, i64, bool, Option<String>)> = s
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("busy".into(), 0, true, None),
            ("card".into(), 0, true, Some(r#"{"data":{"id":2}}"#.into())),
            ("gone".into(), 0, true, Some(String::new())),
            ("hook".into(), 1, true, None),
        ]
    );
}

#[test]
fn lists_range_over_their_indexes() {
    let mut db = Db::new();
    let page = Page::from_query(None, None);
    let plans = [
        cards::list_sql(1, None, page, card_args("", ALL)),
        cards::list_sql(1, Some(5), page, card_args("", ALL)),
        leads::list_sql(1, &LeadFilter::default(), page),
        leads::list_sql(
            1,
            &LeadFilter {
                since: Some(5),
                ..LeadFilter::default()
            },
            page,
        ),
        leads::list_sql(
            1,
            &LeadFilter {
                card: Some(2),
                ..LeadFilter::default()
            },
            page,
        ),
        leads::list_sql(
            1,
            &LeadFilter {
                email: Some("a@b.example".into()),
                ..LeadFilter::default()
            },
            page,
        ),
        erasure::erase_sql(1, LeadSet::One(3), 5),
        erasure::erase_sql(1, LeadSet::Email("a@b.example"), 5),
        vec![leads::missing_keys_sql(Some(1), 100)],
        vec![leads::missing_keys_sql(None, 100)],
        vec![leads::set_key_sql(1, "a@b.example")],
        erasure::erase_sql(
            1,
            LeadSet::Expired {
                cutoff: 5,
                limit: 100,
            },
            5,
        ),
        events::list_sql(1, 0, &[EventType::CardCreated], 10),
        webhooks::list_sql(1, page),
        webhooks::deliveries_sql(1, 2, page),
        vec![outbox::overdue_sql(1_000_000, 60_000, 100)],
    ];
    for stmts in plans {
        for stmt in stmts {
            let explained = Stmt::new(
                format!("EXPLAIN QUERY PLAN {}", stmt.sql),
                stmt.args.clone(),
            );
            let plan: Vec<String> = db
                .exec("plan", &explained)
                .iter()
                .filter_map(|r| r["detail"].as_str().map(str::to_string))
                .collect();
            let text = plan.join(" | ");
            assert!(
                // A scan of a subquery's own rows (the window of an erasure) is no
                // table scan.
                !plan.iter().any(|d| d.starts_with("SCAN ")
                    && !d.contains(" USING ")
                    && !d.contains("VIRTUAL TABLE")
                    && !d.starts_with("SCAN (subquery")),
                "a full scan:\n{}\n{text}",
                stmt.sql
            );
            assert!(
                text.contains("USING"),
                "no index used:\n{}\n{text}",
                stmt.sql
            );
        }
    }
}

/// `store::views` defines the read endpoints' card and lead representations a second time,
/// in SQL: on the same rows, its JSON must be byte for byte what serde makes of the domain
/// views (strong ETags are digests of these bytes), for every plan mask and odd value.
#[test]
fn views_built_by_sqlite_equal_the_domain_views() {
    let mut db = Db::new();
    db.conn
        .execute_batch(
            "INSERT INTO accounts (id, name, plan, created_at) VALUES (1, 'A', 'enterprise', 1)",
        )
        .expect("account");
    let odd =
        "q\" b\\ s/ t\t n\n r\r \u{8}\u{c}\u{1}\u{1f}\u{7f} Zoë 🚀 \u{2028}\u{2029} 中文 </script>";
    // Text columns, social_links, design_config, translations, language, status, the five
    // flags (bit 0 is_public .. bit 4 seo_indexable), published_at and expires_at.
    type Case<'a> = (Option<&'a str>, [&'a str; 5], i64, [Option<i64>; 2]);
    let cases: [Case; 6] = [
        (
            Some("Ada"),
            ["[]", "{}", "{}", "en", "active"],
            0b10011,
            [Some(1_760_000_000_123), None],
        ),
        (
            Some(odd),
            [
                r#"[{"platform":"github","url":"https://g.example/a","label":null}]"#,
                r##"{"theme":"dark","accent_color":"#112233"}"##,
                r#"{"fr":{"bio":"é"},"xx":{},"de":{},"en":{}}"#,
                "en",
                "archived",
            ],
            0b01100,
            [Some(0), Some(253_402_300_799_999)],
        ),
        (
            None,
            ["not json", "[1", r#"["de"]"#, "sv", "draft"],
            0b11111,
            [None, Some(86_400_000)],
        ),
        (
            Some(""),
            ["{}", r#"{"a":"\u00e9\n"}"#, r#""de""#, "zz", "active"],
            0,
            [Some(999), None],
        ),
        (
            Some("x"),
            ["[]", "{}", "nope", "de", "active"],
            0b00001,
            [None, None],
        ),
        (
            Some("y"),
            [
                "[]",
                "{}",
                r#"{"uk":1,"bg":null,"en-GB":{}}"#,
                "pl",
                "draft",
            ],
            0b00010,
            [Some(1), Some(2)],
        ),
    ];
    for (i, (text, [links, design, translations, language, status], flags, [published, expires])) in
        cases.into_iter().enumerate()
    {
        let id = i as i64 + 1;
        let bit = |n: u32| flags >> n & 1;
        db.conn
            .execute(
                "INSERT INTO cards (id, account_id, slug, title, first_name, last_name, job_title, \
                 company, bio, email, phone, website, booking_url, video_url, address, tagline, \
                 company_registration, vat_id, social_links, design_config, section_visibility, \
                 template_id, card_type, is_public, is_password_protected, show_branding, \
                 show_lead_form, seo_title, seo_description, seo_indexable, status, language, \
                 translations, published_at, expires_at, created_at, updated_at) VALUES \
                 (?1, 1, ?2, ?3, ?3, ?3, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?4, ?5, ?6, \
                 ?6, ?4, ?4, ?7, ?8, ?9, ?10, ?4, ?4, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                rusqlite::params![
                    id, format!("s-{id}"), text.unwrap_or("T"), text, links, design,
                    bit(0), bit(1), bit(2), bit(3), bit(4), status, language, translations,
                    published, expires, 1_700_000_000_000 + id * 1_001, 1_760_000_000_000 + id,
                ],
            )
            .expect("card");
        db.conn
            .execute(
                "INSERT INTO leads (account_id, card_id, name, email, phone, message, note, \
                 source, consent_at, created_at, updated_at) VALUES \
                 (1, ?1, ?2, ?2, ?2, ?2, ?2, ?2, ?3, ?4, ?4)",
                rusqlite::params![id, text, published, 1_765_432_109_876 + id],
            )
            .expect("lead");
    }
    // Every combination of the masking features, so a mask bound to the wrong parameter
    // or feature shows.
    let masks: [Features; 8] = std::array::from_fn(|bits| Features {
        api_access: true,
        advanced_analytics: bits & 1 != 0,
        white_label: bits & 2 != 0,
        lead_form: bits & 4 != 0,
    });
    for id in 1..=cases.len() as i64 {
        let by_id = format!(" WHERE id = {id}");
        let card = one::<CardRow>(
            "cards",
            db.exec(
                "cards",
                &Stmt::new(
                    format!(
                        "SELECT {} FROM cards{by_id}",
                        super::card_row::card_columns()
                    ),
                    vec![],
                ),
            ),
        )
        .decode();
        for (base, features) in ["", "https://cards.example/", "https://c.example"]
            .into_iter()
            .flat_map(|b| masks.map(|m| (b, m)))
        {
            let stmt = Stmt::new(
                format!("SELECT {} AS json FROM cards WHERE id = ?5", card_object()),
                [card_args(base, features).to_vec(), vec![id.into()]].concat(),
            );
            let sql = one::<JsonText>("views::card_object", db.exec("views::card_object", &stmt));
            let serde = serde_json::to_string(&card.clone().effective(features).view(base))
                .expect("serialises");
            assert_eq!(sql.json, serde, "card {id}, base {base:?}, {features:?}");
        }
        let lead = one::<Lead>(
            "leads",
            db.exec(
                "leads",
                &Stmt::new(
                    format!(
                        "SELECT {} FROM leads WHERE card_id = {id}",
                        super::leads::lead_columns()
                    ),
                    vec![],
                ),
            ),
        );
        let sql = one::<JsonText>(
            "views::lead_object",
            db.exec(
                "views::lead_object",
                &Stmt::new(
                    format!(
                        "SELECT {} AS json FROM leads WHERE card_id = {id}",
                        lead_object()
                    ),
                    vec![],
                ),
            ),
        );
        let serde = serde_json::to_string(&lead.view(None)).expect("serialises");
        assert_eq!(sql.json, serde, "lead of card {id}");
    }
}
