//! The security log: an entry in the batch of each change it records (directory and shard),
//! written only when the change happened, bounded per account; and the change step's batch
//! (`store::change`), whose event and attempts follow the change only when it happened.

use serde_json::json;

use super::*;
use crate::domain::card::CardPatch;
use crate::domain::input::Mode;
use crate::domain::security::{Actor, By, Kind, KEPT};
use crate::domain::token::{Scope, Scopes};
use crate::domain::webhook::WebhookInput;
use crate::store::card_row::CardRow;
use crate::store::change::Change;
use crate::store::events::Source;
use crate::store::security::{self, log_sql, Log, Of, When};
use crate::store::tokens::TokenRow;
use crate::store::webhooks::{Owner, WebhookRow};
use crate::store::{cards, columns_of, erasure, tokens, webhooks, Count};

fn member() -> By {
    By::new(
        Actor::Member {
            id: 7,
            email: "ada@acme.example".into(),
        },
        Some("DE".into()),
    )
}

fn kinds(name: &str, rows: Vec<Value>) -> Vec<(String, Option<String>)> {
    rows.into_iter()
        .map(|r| {
            let kind = r["kind"].as_str().unwrap_or_default().to_string();
            (kind, r["detail"].as_str().map(str::to_string))
        })
        .inspect(|_| assert!(!name.is_empty()))
        .collect()
}

pub(super) fn entries_of_both_logs(db: &mut Db, acc: i64, now: i64) {
    let by = member();
    // The directory's: a token minted, then revoked twice (logged once), and another
    // account's token not revoked by this one (nothing logged).
    db.in_dir(|db| {
        let scopes = Scopes::new(vec![Scope::CardsRead]);
        let made = db.batch(
            "security::log_sql",
            &[
                tokens::create_sql(acc, "zapier", "hash-sec", &scopes, now),
                log_sql(
                    Log::Directory,
                    &Of::Account(acc, Some("zapier".into())),
                    Kind::TokenCreated,
                    &by,
                    now,
                    When::Changed,
                ),
            ],
        );
        let token = one::<TokenRow>("tokens::create_sql", made[0].clone()).id;
        let revoke = |db: &mut Db, account: Option<i64>, at: i64| {
            db.batch(
                "security::log_sql",
                &[
                    tokens::revoke_sql(token, account, at),
                    log_sql(
                        Log::Directory,
                        &Of::RevokedToken(token),
                        Kind::TokenRevoked,
                        &by,
                        at,
                        When::Always,
                    ),
                ],
            )
        };
        assert!(revoke(db, Some(acc + 1), now + 1)[0].is_empty());
        assert_eq!(revoke(db, Some(acc), now + 2)[0].len(), 1);
        assert_eq!(revoke(db, None, now + 3)[0].len(), 1, "harmless twice");
        let rows = db.exec("security::list_sql", &security::list_sql(acc));
        assert_eq!(
            kinds("security::list_sql", rows.clone()),
            [
                ("token_revoked".into(), Some("zapier".into())),
                ("token_created".into(), Some("zapier".into())),
            ]
        );
        assert_eq!(rows[0]["actor"], json!("member:7"));
        assert_eq!(rows[0]["actor_name"], json!("ada@acme.example"));
        assert_eq!(rows[0]["country"], json!("DE"));
        assert_eq!(rows[0]["at"], json!(now + 2));
    });

    // The shard's: a webhook made, its secret rotated, deleted (by its URL each time),
    // and an erasure that erased nothing (no entry) and one that erased two.
    let input = WebhookInput::parse(
        &obj(json!({"url": "https://log.example/h", "events": ["*"]})),
        Mode::Create,
        false,
    )
    .expect("a valid webhook");
    let owner = Owner {
        account_id: acc,
        token_id: None,
    };
    // The account may be at its webhook limit: make room.
    db.exec(
        "check",
        &Stmt::new(
            "DELETE FROM webhooks WHERE account_id = ?1",
            vec![acc.into()],
        ),
    );
    let hook_log = |hook: Option<i64>, kind: Kind, when: When| {
        log_sql(Log::Shard, &Of::Webhook(acc, hook), kind, &by, now, when)
    };
    let made = db.batch(
        "security::log_sql",
        &[
            webhooks::create_sql(owner, &input, "gcm1:x", "https://x.example", now),
            hook_log(None, Kind::WebhookCreated, When::Changed),
        ],
    );
    let hook = one::<WebhookRow>("webhooks::create_sql", made[0].clone()).id;
    db.batch(
        "security::log_sql",
        &[
            webhooks::rotate_sql(acc, hook, "gcm1:y", now),
            hook_log(Some(hook), Kind::WebhookSecretRotated, When::Changed),
            // Another account's webhook of that id: nothing rotated, nothing logged.
            webhooks::rotate_sql(acc + 1, hook, "gcm1:z", now),
            log_sql(
                Log::Shard,
                &Of::Webhook(acc + 1, Some(hook)),
                Kind::WebhookSecretRotated,
                &by,
                now,
                When::Changed,
            ),
        ],
    );
    let mut delete = vec![hook_log(Some(hook), Kind::WebhookDeleted, When::Always)];
    delete.extend(webhooks::delete_sql(acc, hook));
    db.batch("security::log_sql", &delete);
    let erase = |db: &mut Db, ids: Vec<i64>| {
        let mut stmts = vec![Stmt::new(
            "DELETE FROM leads WHERE id IN (SELECT value FROM json_each(?1)) RETURNING id",
            vec![json!(ids).to_string().into()],
        )];
        stmts.push(erasure::erased_log_sql(acc, &by, now));
        db.batch("erasure::erased_log_sql", &stmts);
    };
    erase(db, vec![]);
    let leads: Vec<i64> = ids(
        "check",
        db.exec(
            "check",
            &Stmt::new(
                "SELECT id FROM leads WHERE account_id = ?1 LIMIT 2",
                vec![acc.into()],
            ),
        ),
    );
    erase(db, leads.clone());
    let rows = db.exec("security::list_sql", &security::list_sql(acc));
    let mut got = kinds("security::list_sql", rows);
    got.sort();
    let url = Some("https://log.example/h".to_string());
    let mut want = vec![
        ("webhook_created".to_string(), url.clone()),
        ("webhook_secret_rotated".to_string(), url.clone()),
        ("webhook_deleted".to_string(), url),
    ];
    if !leads.is_empty() {
        want.push(("leads_erased".into(), Some(leads.len().to_string())));
    }
    want.sort();
    assert_eq!(got, want);

    // Bounded: the newest KEPT per account stay.
    for i in 0..KEPT + 10 {
        let stmt = log_sql(
            Log::Shard,
            &Of::Account(acc, None),
            Kind::SignIn,
            &by,
            now + 10 + i,
            When::Always,
        );
        db.exec("security::log_sql", &stmt);
    }
    let rows = db.exec("security::list_sql", &security::list_sql(acc));
    assert_eq!(rows.len() as i64, KEPT);
    assert_eq!(rows[0]["at"], json!(now + 10 + KEPT + 9));
    let n: Vec<Count> = decode(
        "check",
        db.exec(
            "check",
            &Stmt::new(
                "SELECT COUNT(*) AS n FROM security_log WHERE account_id = ?1",
                vec![acc.into()],
            ),
        ),
    );
    assert_eq!(n[0].n, KEPT, "no more are kept than shown");

    change_step(db, acc, now);
}

/// A change's batch: the change, its event and its attempts; nothing recorded when the
/// change did not happen.
fn change_step(db: &mut Db, acc: i64, now: i64) {
    let card: Vec<CardRow> = decode(
        "check",
        db.exec(
            "check",
            &Stmt::new(
                format!(
                    "SELECT {} FROM cards WHERE account_id = ?1 LIMIT 1",
                    columns_of::<CardRow>("")
                ),
                vec![acc.into()],
            ),
        ),
    );
    let Some(card) = card.first() else {
        panic!("the scenario leaves a card of the account")
    };
    let patch = CardPatch::parse(&obj(json!({"job_title": "Changed"}))).expect("a patch");
    let count = |db: &mut Db| -> i64 {
        let stmt = Stmt::new(
            "SELECT COUNT(*) AS n FROM events WHERE account_id = ?1",
            vec![acc.into()],
        );
        one::<Count>("check", db.exec("check", &stmt)).n
    };
    let events_before = count(db);
    let change = Change::new(acc, EventType::CardUpdated, now).expect("an event id");
    let stmts = change.statements(
        Source::UpdatedCard(card.id),
        vec![cards::update_sql(acc, card.id, &patch, None, now)],
        vec![],
    );
    let results = db.batch("change", &stmts);
    assert_eq!(results.len(), 4, "change, event, sequence, fan-out");
    assert_eq!(results[0].len(), 1);
    assert_eq!(count(db), events_before + 1);
    // Another account's card of that id: no change, so no event.
    let change = Change::new(acc, EventType::CardUpdated, now).expect("an event id");
    let stmts = change.statements(
        Source::UpdatedCard(card.id),
        vec![cards::update_sql(acc + 1, card.id, &patch, None, now)],
        vec![],
    );
    let results = db.batch("change", &stmts);
    assert!(results[0].is_empty() && results[3].is_empty());
    assert_eq!(count(db), events_before + 1);
}
