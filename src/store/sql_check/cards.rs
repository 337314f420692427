//! Cards: create (every field), the slug suffix, the limit, update, reads, delete.

use serde_json::{json, Value};

use super::*;
use crate::db::{EXTERNAL_ID_TAKEN, USER_NAME_TAKEN};
use crate::domain::card::{Card, CardInput, CardPatch};
use crate::domain::input::Field;
use crate::domain::pagination::Page;
use crate::domain::scim::user_name::user_name_key;
use crate::js::normalize;
use crate::store::accounts::AccountRow;
use crate::store::card_row::CardRow;
use crate::store::cards::{self, CardFilter};
use crate::store::views::{card_args, JsonText};
use crate::store::Count;

/// Creates the account's cards (the limit of 2 reached); the first.
pub(super) fn created(db: &mut Db, acc: i64, now: i64) -> Card {
    // Cards: create (every field), the slug suffix, the limit, update, reads.
    let mut input = CardInput::parse(&obj(full_card())).expect("valid card");
    input.apply_plan(ALL);
    let create = |slug: &str, limit| cards::create_sql(acc, &input, slug, limit, false, now);
    let rows = db.exec("cards::create_sql", &create("ada-lovelace-2", 2));
    let card = one::<CardRow>("cards::create_sql", rows).decode();
    // The account's first id of its own range (store::next_id): unique across shards.
    assert_eq!(
        (card.id, card.slug.as_str()),
        (acc * crate::domain::ids::ACCOUNT_SPAN + 1, "ada-lovelace-2")
    );
    assert_eq!(card.language, "de");
    assert!(!card.show_branding);
    assert_eq!(
        serde_json::from_str::<Value>(card.social_links.get()).expect("json"),
        json!([{"platform": "github", "url": "ada", "label": "Code"}])
    );
    // No template yet: a create that has not read the default one is not refused.
    let undefaulted = cards::create_sql(acc, &input, "ada-lovelace-9", 2, true, now);
    let rows = db.exec("cards::create_sql", &undefaulted);
    let second = one::<CardRow>("cards::create_sql", rows);
    assert_eq!(
        (second.slug.as_str(), second.id),
        ("ada-lovelace-9", card.id + 1),
        "the next id of the account's range"
    );
    // Both directions of a card's name: by id, by slug.
    for (id, slug) in [(Some(card.id), None), (None, Some("ada-lovelace-2"))] {
        let rows = db.exec("cards::named_sql", &cards::named_sql(acc, id, slug));
        let named: cards::Named = one("cards::named_sql", rows);
        assert_eq!((named.id, named.slug.as_str()), (card.id, "ada-lovelace-2"));
    }
    let rows = db.exec(
        "cards::named_sql",
        &cards::named_sql(acc + 1, Some(card.id), None),
    );
    assert!(rows.is_empty(), "another account's card is not named");
    let rows = db.exec("cards::slugs_of_sql", &cards::slugs_of_sql(acc));
    let all: Vec<cards::Named> = decode("cards::slugs_of_sql", rows);
    assert_eq!(all.len(), 2, "every card of the account");
    let rows = db.exec("cards::create_sql", &create("ada-lovelace-10", 2));
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
            &cards::update_sql(acc, card.id, p, None, now),
        );
        let updated = one::<CardRow>("cards::update_sql", rows).decode();
        assert!(updated.updated_at > card.updated_at);
    }
    let rows = db.exec(
        "cards::update_sql",
        &cards::update_sql(acc + 1, card.id, &patch, None, now),
    );
    assert!(rows.is_empty(), "another account's card is not updated");

    external_ids(db, acc, card.id, now);
    let [count, page] = <[Vec<Value>; 2]>::try_from(db.batch(
        "cards::list_sql",
        &cards::list_sql(
            acc,
            &CardFilter::default(),
            Page::from_query(None, None),
            card_args("", ALL),
        ),
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
            &CardFilter::default(),
            Page::from_query(None, None),
            card_args("", ALL),
        ),
    ))
    .expect("two statements");
    assert!(
        empty.is_empty(),
        "an empty page is no row, not an empty text: {empty:?}"
    );
    let [count, lines] =
        <[Vec<Value>; 2]>::try_from(db.batch("cards::lines_sql", &cards::lines_sql(acc, 1, 1)))
            .expect("two statements");
    assert_eq!(one::<Count>("cards::lines_sql", count).n, 2);
    let line = one::<cards::CardLine>("cards::lines_sql", lines);
    assert_eq!(
        Value::from(line.id),
        ids[1],
        "the second most recently updated"
    );
    let all = db.batch("cards::lines_sql", &cards::lines_sql(acc, 10, 0));
    let first = &decode::<cards::CardLine>("cards::lines_sql", all[1].clone())[0];
    assert_eq!(Value::from(first.id), ids[0]);
    assert_eq!(
        (first.status.as_str(), first.language.as_str()),
        ("draft", "de")
    );
    assert!(!first.slug.is_empty() && first.title == "Ada Lovelace" && first.updated_at > 0);
    let none = db.batch("cards::lines_sql", &cards::lines_sql(acc + 1, 10, 0));
    assert!(none[1].is_empty(), "another account's cards are not read");
    let rows = db.exec("cards::exists_sql", &cards::exists_sql(acc, card.id));
    assert_eq!(one::<Count>("cards::exists_sql", rows).n, 1);
    let [card_rows, account_rows, layout] = <[Vec<Value>; 3]>::try_from(
        db.batch("cards::for_page_sql", &cards::for_page_sql(card.id, acc)),
    )
    .expect("three statements");
    assert!(layout.is_empty(), "no company template");
    assert_eq!(one::<CardRow>("cards::for_page_sql", card_rows).id, card.id);
    assert_eq!(
        one::<AccountRow>("cards::for_page_sql", account_rows).id,
        acc
    );
    let rows = db.batch(
        "cards::for_page_sql",
        &cards::for_page_sql(card.id, acc + 1),
    );
    assert!(rows[0].is_empty(), "another account's card is not found");
    card
}

/// provisioning.md: an external id and a userName are unique within an account (userName
/// in any case), by the schema; the list finds a card by its external id, as the upsert.
fn external_ids(db: &mut Db, acc: i64, card_id: i64, now: i64) {
    let patch = |body: Value| CardPatch::parse(&obj(body)).expect("valid patch");
    let mut scim = patch(json!({"external_id": "crm-1"}));
    scim.scim_user_name = Field::Set("Ada@Example.com".into());
    scim.scim_user_key = Field::Set(user_name_key("Ada@Example.com", normalize));
    let rows = db.exec(
        "cards::update_sql",
        &cards::update_sql(acc, card_id, &scim, None, now),
    );
    assert_eq!(
        one::<CardRow>("cards::update_sql", rows)
            .external_id
            .as_deref(),
        Some("crm-1")
    );
    let rows = db.exec(
        "cards::id_by_external_sql",
        &cards::id_by_external_sql(acc, "crm-1"),
    );
    assert_eq!(super::ids("cards::id_by_external_sql", rows), vec![card_id]);
    let rows = db.exec(
        "cards::id_by_external_sql",
        &cards::id_by_external_sql(acc + 1, "crm-1"),
    );
    assert!(
        rows.is_empty(),
        "another account's external ids are its own"
    );
    let filter = CardFilter {
        external_id: Some("crm-1".into()),
        since: None,
    };
    let page = Page::from_query(None, None);
    let [count, _] = <[Vec<Value>; 2]>::try_from(db.batch(
        "cards::list_sql",
        &cards::list_sql(acc, &filter, page, card_args("", ALL)),
    ))
    .expect("two statements");
    assert_eq!(one::<Count>("cards::list_sql", count).n, 1);
    // SCIM reads: one card, and a page of those a filter keeps (userName by its key).
    let rows = db.exec("cards::one_sql", &cards::one_sql(acc, card_id));
    assert_eq!(one::<CardRow>("cards::one_sql", rows).id, card_id);
    assert!(db
        .exec("cards::one_sql", &cards::one_sql(acc + 1, card_id))
        .is_empty());
    let by_name = |name: &str| {
        cards::users_sql(
            acc,
            "scim_user_key = ?2",
            vec![user_name_key(name, normalize).into()],
            0,
            10,
        )
    };
    let [count, page] =
        <[Vec<Value>; 2]>::try_from(db.batch("cards::users_sql", &by_name(" ada@EXAMPLE.com")))
            .expect("two statements");
    assert_eq!(one::<Count>("cards::users_sql", count).n, 1);
    assert_eq!(decode::<CardRow>("cards::users_sql", page)[0].id, card_id);
    let all = cards::users_sql(acc, "1", vec![], 1, 10);
    let [count, page] =
        <[Vec<Value>; 2]>::try_from(db.batch("cards::users_sql", &all)).expect("two");
    assert_eq!(
        one::<Count>("cards::users_sql", count).n,
        2,
        "the count ignores the page"
    );
    assert_eq!(
        decode::<CardRow>("cards::users_sql", page).len(),
        1,
        "offset 1 of 2"
    );
    // The other card of the account (made by `created`) cannot take either value.
    let other = acc * crate::domain::ids::ACCOUNT_SPAN + 2;
    let taken = db.refused(
        "cards::update_sql",
        &cards::update_sql(
            acc,
            other,
            &patch(json!({"external_id": "crm-1"})),
            None,
            now,
        ),
    );
    assert!(taken.contains(EXTERNAL_ID_TAKEN), "{taken}");
    // Another spelling of the name (full-width, upper case) is the same key.
    let same_name = CardPatch {
        scim_user_name: Field::Set("ＡＤＡ@example.COM".into()),
        scim_user_key: Field::Set(user_name_key("ＡＤＡ@example.COM", normalize)),
        ..CardPatch::default()
    };
    let taken = db.refused(
        "cards::update_sql",
        &cards::update_sql(acc, other, &same_name, None, now),
    );
    assert!(taken.contains(USER_NAME_TAKEN), "{taken}");
}

/// Deletes the card (its leads with it).
pub(super) fn deleted(db: &mut Db, acc: i64, card_id: i64) {
    // The overview's figures first: the card and its leads, of which none since later.
    let figures = db.batch("cards::overview_sql", &cards::overview_sql(acc, 0));
    let n = |i: usize| figures[i][0]["n"].as_i64().unwrap_or(-1);
    assert!(n(0) >= 1 && n(1) >= 1, "{figures:?}");
    let later = db.batch("cards::overview_sql", &cards::overview_sql(acc, i64::MAX));
    assert_eq!(later[1][0]["n"], 0, "no lead made after the end of time");
    // Deletes and revokes last.
    let [_, deleted] = <[Vec<Value>; 2]>::try_from(
        db.batch("cards::delete_sql", &cards::delete_sql(acc, card_id)),
    )
    .expect("two statements");
    assert_eq!(deleted.len(), 1);
}

/// migrations/shard/0011 keys the printable-ASCII userNames of existing Users as the worker
/// would and leaves the others to the worker, which keys them once, before the account's
/// next SCIM write or userName filter. Names that were separate Users and are one key now
/// keep the key for the first keyed; the others are kept apart (`DUPLICATE {id} {key}`)
/// so the unique index holds.
pub(super) fn keys_of_user_names_from_before_the_key(db: &mut Db) {
    let mut old = Db {
        conn: rusqlite::Connection::open_in_memory().expect("in-memory SQLite"),
        dir: rusqlite::Connection::open_in_memory().expect("in-memory SQLite"),
        on_dir: false,
        ran: std::collections::BTreeSet::new(),
    };
    old.migrate(|name| name < "0011");
    let names: [(i64, Option<&str>); 9] = [
        (70, Some("Ada@Example.com")),
        // NOCASE told these apart from the one above.
        (71, Some(" ada@example.com")),
        (72, Some("ÄRZTE-u@x.example")),
        (73, Some("a\u{308}rzte-U@x.example")),
        (74, Some("\u{FF22}\u{FF2F}\u{FF22}")),
        (75, Some("bob")),
        (76, None),
        (77, Some("tab\there")),
        // Another account's: its own keys.
        (80, Some("ärzte-u@x.example")),
    ];
    old.conn
        .execute_batch(
            "INSERT INTO accounts (id, name, plan, created_at) VALUES (7, 'Old', 'enterprise', 1);
             INSERT INTO accounts (id, name, plan, created_at) VALUES (8, 'Other', 'enterprise', 1);",
        )
        .expect("accounts");
    for (id, name) in names {
        old.conn
            .execute(
                "INSERT INTO cards (id, account_id, slug, title, first_name, last_name, \
                 created_at, updated_at, scim_user_name) VALUES (?1, ?2, ?3, 'T', 'F', 'L', 1, 1, ?4)",
                rusqlite::params![id, if id < 80 { 7 } else { 8 }, format!("s{id}"), name],
            )
            .expect("card");
    }
    old.migrate(|name| name >= "0011");
    let keys = |db: &mut Db| -> Vec<Value> {
        db.exec(
            "check",
            &Stmt::new("SELECT scim_user_key FROM cards ORDER BY id", vec![]),
        )
        .into_iter()
        .map(|r| r["scim_user_key"].clone())
        .collect()
    };
    let null = Value::Null;
    assert_eq!(
        keys(&mut old),
        vec![
            json!(user_name_key(names[0].1.unwrap_or_default(), normalize)),
            json!("DUPLICATE 71 ada@example.com"),
            null.clone(),
            null.clone(),
            null.clone(),
            json!("bob"),
            null.clone(),
            null.clone(),
            null.clone(),
        ],
        "printable ASCII keyed as the worker keys it, the rest left to the worker"
    );
    for account in [7, 8] {
        let rows = old.exec(
            "cards::missing_user_keys_sql",
            &cards::missing_user_keys_sql(account, 100),
        );
        for row in decode::<cards::UnkeyedUser>("cards::missing_user_keys_sql", rows) {
            let key = user_name_key(&row.scim_user_name, normalize);
            old.exec(
                "cards::set_user_key_sql",
                &cards::set_user_key_sql(account, row.id, &row.scim_user_name, &key),
            );
        }
    }
    assert_eq!(
        keys(&mut old),
        vec![
            json!("ada@example.com"),
            json!("DUPLICATE 71 ada@example.com"),
            json!("ärzte-u@x.example"),
            json!("DUPLICATE 73 ärzte-u@x.example"),
            json!("DUPLICATE 74 bob"),
            json!("bob"),
            null,
            json!("tab\there"),
            json!("ärzte-u@x.example"),
        ]
    );
    assert!(old
        .exec(
            "cards::missing_user_keys_sql",
            &cards::missing_user_keys_sql(7, 100)
        )
        .is_empty());
    // A name changed since it was read (a worker of the previous version) is not keyed as
    // the old one.
    old.conn
        .execute(
            "UPDATE cards SET scim_user_name = 'new', scim_user_key = NULL WHERE id = 77",
            [],
        )
        .expect("rename");
    old.exec(
        "cards::set_user_key_sql",
        &cards::set_user_key_sql(7, 77, "tab\there", "tab\there"),
    );
    let rows = old.exec("check", &Stmt::new("SELECT changes() AS n", vec![]));
    assert_eq!(rows[0]["n"], 0);
    let found = |db: &mut Db, name: &str| -> Vec<i64> {
        let stmts = cards::users_sql(
            7,
            "scim_user_key = ?2",
            vec![user_name_key(name, normalize).into()],
            0,
            10,
        );
        let page = db.batch("cards::users_sql", &stmts).remove(1);
        decode::<CardRow>("cards::users_sql", page)
            .into_iter()
            .map(|c| c.id)
            .collect()
    };
    assert_eq!(found(&mut old, "ärzte-u@X.EXAMPLE"), vec![72]);
    assert_eq!(found(&mut old, "BOB"), vec![75]);
    db.ran.extend(old.ran);
}
