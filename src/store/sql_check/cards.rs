//! Cards: create (every field), the slug suffix, the limit, update, reads, delete.

use serde_json::{json, Value};

use super::*;
use crate::db::{EXTERNAL_ID_TAKEN, USER_NAME_TAKEN};
use crate::domain::card::{Card, CardInput, CardPatch};
use crate::domain::input::Field;
use crate::domain::pagination::Page;
use crate::store::accounts::AccountRow;
use crate::store::card_row::CardRow;
use crate::store::cards::{self, CardFilter};
use crate::store::slugs::Reserved;
use crate::store::views::{card_args, JsonText};
use crate::store::Count;

/// Creates the account's cards (the limit of 2 reached); the first.
pub(super) fn created(db: &mut Db, acc: i64, reserved: &Reserved, now: i64) -> Card {
    // Cards: create (every field), the slug suffix, the limit, update, reads.
    let mut input = CardInput::parse(&obj(full_card())).expect("valid card");
    input.apply_plan(ALL);
    let create =
        |r: &Reserved, limit| cards::create_sql(acc, &input, r, "Ada Lovelace", limit, now);
    let rows = db.exec("cards::create_sql", &create(reserved, 2));
    let card = one::<CardRow>("cards::create_sql", rows).decode();
    assert_eq!(
        (card.id, card.slug.as_str()),
        (reserved.card_id, reserved.slug.as_str())
    );
    assert_eq!(card.language, "de");
    assert!(!card.show_branding);
    assert_eq!(
        serde_json::from_str::<Value>(card.social_links.get()).expect("json"),
        json!([{"platform": "github", "url": "ada", "label": "Code"}])
    );
    let rows = db.exec(
        "cards::create_sql",
        &create(&slot(900, "ada-lovelace-9"), 2),
    );
    assert_eq!(
        one::<CardRow>("cards::create_sql", rows).slug,
        "ada-lovelace-9"
    );
    let rows = db.exec(
        "cards::create_sql",
        &create(&slot(901, "ada-lovelace-10"), 2),
    );
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
    let present = &cards::present_sql(&format!("[{}, 999999]", card.id));
    let found = db.exec("cards::present_sql", present);
    assert_eq!(super::ids("cards::present_sql", found), vec![card.id]);
    let [card_rows, account_rows] = <[Vec<Value>; 2]>::try_from(
        db.batch("cards::for_page_sql", &cards::for_page_sql(card.id, acc)),
    )
    .expect("two statements");
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
    // SCIM reads: one card, and a page of those a filter keeps (userName in any case).
    let rows = db.exec("cards::one_sql", &cards::one_sql(acc, card_id));
    assert_eq!(one::<CardRow>("cards::one_sql", rows).id, card_id);
    assert!(db
        .exec("cards::one_sql", &cards::one_sql(acc + 1, card_id))
        .is_empty());
    let by_name = |name: &str| {
        cards::users_sql(
            acc,
            "scim_user_name = ?2 COLLATE NOCASE",
            vec![name.into()],
            0,
            10,
        )
    };
    let [count, page] =
        <[Vec<Value>; 2]>::try_from(db.batch("cards::users_sql", &by_name("ada@EXAMPLE.com")))
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
    let other = 900;
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
    let mut same_name = CardPatch::default();
    same_name.scim_user_name = Field::Set("ADA@example.COM".into());
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
