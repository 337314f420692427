//! The change feed and idempotency: events are written with their change.

use serde_json::json;

use super::*;
use crate::domain::card::{CardInput, CardPatch};
use crate::domain::event::EventType;
use crate::domain::idempotency::KeptResponse;
use crate::domain::lead::LeadInput;
use crate::store::card_row::CardRow;
use crate::store::events::Source;
use crate::store::{cards, events, idempotency, leads};

/// Events are written with their change, in one batch, and only when the change happened.
pub(super) fn feed_and_idempotency(db: &mut Db, acc: i64, now: i64) {
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
    let limited = cards::create_sql(acc, &input, &slot(800, "feed"), 0, false, now);
    let [a, b] = append(EventType::CardCreated, Source::InsertedCard);
    let results = db.batch("events::append_sql", &[limited, a, b]);
    assert!(results[0].is_empty());
    assert!(
        feed(db, acc).is_empty(),
        "no card, no event, no sequence used"
    );
    let create = cards::create_sql(acc, &input, &slot(801, "feed"), 100, false, now);
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
        &[cards::update_sql(acc, card.id, &patch, None, now), a, b],
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
        &[
            cards::update_sql(acc, card.id + 100, &patch, None, now),
            a,
            b,
        ],
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
        headers: "application/json".into(),
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
