//! Erasure: one lead, every lead of an address, the expired ones, and every copy.

use serde_json::{json, Value};

use super::*;
use crate::domain::account::AccountPatch;
use crate::domain::card::CardInput;
use crate::domain::event::EventType;
use crate::domain::input::Mode;
use crate::domain::lead::{Lead, LeadInput};
use crate::store::card_row::CardRow;
use crate::store::erasure::LeadSet;
use crate::store::events::Source;
use crate::store::{accounts, cards, erasure, events, leads};
use crate::store::{Count, Stmt};

/// Erasing leads: one lead, every lead of an address, the expired ones; the events and
/// their snapshots, the webhook attempts, the rows.
pub(super) fn erasure_reaches_every_copy(db: &mut Db, acc: i64, now: i64) {
    let card_input = CardInput::parse(&obj(json!({"first_name": "Era", "last_name": "Sure"})))
        .expect("valid card");
    let rows = db.exec(
        "cards::create_sql",
        &cards::create_sql(acc, &card_input, &slot(700, "erasure"), 1000, false, now),
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
    // The directory changes, then the shard's copy follows.
    let rows = db.in_dir(|db| {
        db.exec(
            "accounts::update_sql",
            &accounts::update_sql(acc, &patch).expect("changes"),
        )
    });
    let account = one::<accounts::DirectoryRow>("accounts::update_sql", rows).decode();
    db.exec("accounts::copy_sql", &accounts::copy_sql(&account));
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
