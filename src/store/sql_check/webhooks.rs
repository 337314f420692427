//! Webhooks and the outbox: subscriptions, attempts written with an event, claiming,
//! finishing and redelivering.

use serde_json::{json, Value};

use super::*;
use crate::domain::card::{CardInput, CardPatch};
use crate::domain::event::EventType;
use crate::domain::input::Mode;
use crate::domain::lead::LeadInput;
use crate::domain::pagination::Page;
use crate::domain::token::{Scope, Scopes};
use crate::domain::webhook::{Delivery, Outcome, WebhookInput, MAX_PER_ACCOUNT};
use crate::store::accounts::AccountRow;
use crate::store::card_row::CardRow;
use crate::store::events::Source;
use crate::store::tokens::TokenRow;
use crate::store::webhooks::{Attempt, Target, WebhookRow};
use crate::store::{cards, events, leads, outbox, tokens, webhooks};
use crate::store::{Count, Stmt};

/// Subscriptions, the outbox written with an event, claiming, finishing and redelivering
/// attempts.
pub(super) fn webhooks_and_outbox(db: &mut Db, acc: i64, now: i64) {
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
    let rows = db.in_dir(|db| {
        db.exec(
            "tokens::create_sql",
            &tokens::create_sql(acc, "hooks", "hash-hooks", &scopes, now),
        )
    });
    let owner = webhooks::Owner {
        account_id: acc,
        token_id: Some(one::<TokenRow>("tokens::create_sql", rows).decode().id),
    };
    let token_id = owner.token_id.unwrap_or_default();
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
            cards::create_sql(acc, &card_input, &slot(600, "outbox"), 100, false, now),
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
            cards::update_sql(acc, card.id + 100, &patch, None, now),
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
    assert!(target.token_id.is_some(), "the answerable token");
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
    db.in_dir(|db| {
        db.exec(
            "tokens::revoke_sql",
            &tokens::revoke_sql(token_id, None, later),
        )
    });
    let rows = db.exec(
        "webhooks::disable_for_token_sql",
        &webhooks::disable_for_token_sql(acc, token_id, later),
    );
    let disabled = results_ids(&rows);
    assert!(!disabled.is_empty(), "its enabled webhooks disabled");
    let results = db.batch(
        "webhooks::claim_sql",
        &webhooks::claim_sql(waiting[0], later + 200_000, 60_000),
    );
    let target: Target = one("webhooks::claim_sql", results[1].clone());
    assert_eq!(
        (target.token_id, target.status.as_str()),
        (owner.token_id, "disabled")
    );
    for id in &disabled {
        let enable = "UPDATE webhooks SET status = 'enabled' WHERE id = ?1";
        db.exec("check", &Stmt::new(enable, vec![(*id).into()]));
    }
    // A move disables them again where the account lands: every revoked token's.
    let rows = db.in_dir(|db| db.exec("tokens::revoked_ids_sql", &tokens::revoked_ids_sql(acc)));
    let ids = rows[0]["ids"].as_str().expect("a JSON array").to_string();
    assert!(ids.contains(&token_id.to_string()), "{ids}");
    let rows = db.exec(
        "webhooks::disable_for_tokens_sql",
        &webhooks::disable_for_tokens_sql(acc, &ids, later),
    );
    assert_eq!(results_ids(&rows), disabled);
    let again = db.exec(
        "webhooks::disable_for_tokens_sql",
        &webhooks::disable_for_tokens_sql(acc, &ids, later),
    );
    assert!(again.is_empty(), "idempotent");
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
