//! Leads: create, the email key in any case of any script, lists, reads, a card's
//! leads; the keys of leads from before the key (migration 0006).

use rusqlite::Connection;
use serde_json::{json, Value};
use std::collections::BTreeSet;

use super::*;
use crate::domain::card::Card;
use crate::domain::email_key::email_key;
use crate::domain::lead::{CardSummary, Lead, LeadInput};
use crate::domain::pagination::Page;
use crate::js::normalize;
use crate::store::leads::LeadFilter;
use crate::store::views::{card_args, JsonText};
use crate::store::{cards, leads};
use crate::store::{Count, Stmt};

/// Leads posted to the card, read every way.
pub(super) fn on_card(db: &mut Db, acc: i64, card: &Card, now: i64) {
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
        by_address(db, "jürgen@bücher.example"),
        1,
        "any case of any script"
    );
    assert_eq!(by_address(db, "jurgen@bucher.example"), 0);
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
    records(db, acc, card, &[stored.id, jurgen.id]);
    let [lead_rows, card_rows] =
        <[Vec<Value>; 2]>::try_from(db.batch("leads::get_sql", &leads::get_sql(acc, stored.id)))
            .expect("two statements");
    assert_eq!(one::<Lead>("leads::get_sql", lead_rows).id, stored.id);
    assert_eq!(
        one::<CardSummary>("leads::get_sql", card_rows).slug,
        "ada-lovelace-2"
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
}

/// migrations/0006 keys the pure-ASCII addresses of existing leads as the worker would and
/// leaves the others to the worker, which finds them (of one account, or of any) and keys
/// them once; listLeads?email= then finds them in any case.
pub(super) fn keys_of_leads_from_before_the_key(db: &mut Db) {
    let mut old = Db {
        conn: Connection::open_in_memory().expect("in-memory SQLite"),
        dir: Connection::open_in_memory().expect("in-memory SQLite"),
        on_dir: false,
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

/// The account area's reads of records: a page with its count, and the CSV's steps by
/// key, which give every lead once, newest first, whatever the step's size. `ids` are the
/// account's leads on `card`, newest first.
fn records(db: &mut Db, acc: i64, card: &Card, ids: &[i64]) {
    let all = LeadFilter::default();
    let page = Page::from_query(Some("1"), Some("1"));
    let [count, rows] =
        <[Vec<Value>; 2]>::try_from(db.batch("leads::page_sql", &leads::page_sql(acc, &all, page)))
            .expect("two statements");
    assert_eq!(one::<Count>("leads::page_sql", count).n, ids.len() as i64);
    let first: Vec<i64> = decode::<Lead>("leads::page_sql", rows)
        .iter()
        .map(|l| l.id)
        .collect();
    assert_eq!(first, ids[..1]);
    let second = Page::from_query(Some("2"), Some("1"));
    let rows = db.batch("leads::page_sql", &leads::page_sql(acc, &all, second));
    assert_eq!(
        decode::<Lead>("leads::page_sql", rows[1].clone())[0].id,
        ids[1]
    );
    let by_card_and_address = LeadFilter {
        card: Some(card.id),
        email: Some("Grace@EXAMPLE.com".into()),
        ..LeadFilter::default()
    };
    let rows = db.batch(
        "leads::page_sql",
        &leads::page_sql(acc, &by_card_and_address, Page::from_query(None, None)),
    );
    assert_eq!(one::<Count>("leads::page_sql", rows[0].clone()).n, 1);
    let other = db.batch("leads::page_sql", &leads::page_sql(acc + 1, &all, page));
    assert!(other[1].is_empty(), "another account's leads are not read");

    let mut after = None;
    let mut seen = Vec::new();
    loop {
        let rows = db.exec("leads::export_sql", &leads::export_sql(acc, &all, after, 1));
        let step = decode::<Lead>("leads::export_sql", rows);
        let Some(last) = step.last() else { break };
        after = Some((last.created_at, last.id));
        seen.extend(step.iter().map(|l| l.id));
    }
    assert_eq!(seen, ids, "every lead once, newest first");
    let rows = db.exec(
        "leads::export_sql",
        &leads::export_sql(acc, &by_card_and_address, None, 100),
    );
    assert_eq!(decode::<Lead>("leads::export_sql", rows).len(), 1);
}
