//! extensions.md 1-3: the change feed, incremental lists and idempotent writes.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use serde_json::{json, Value};

use crate::harness::{
    call, post_lead, server, Lead, Resp, Server, Tenant, ADMIN_TOKEN, ALL_SCOPES,
};

fn events(t: &Tenant, query: &str) -> Value {
    let r = t.get(&format!("/events{query}"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// Every event after `cursor`, paging with `limit`; the last cursor.
fn drain(t: &Tenant, mut cursor: Option<String>, limit: u32) -> (Vec<Value>, String) {
    let mut all = Vec::new();
    loop {
        let after = cursor
            .as_ref()
            .map(|c| format!("&after={c}"))
            .unwrap_or_default();
        let page = events(t, &format!("?limit={limit}{after}"));
        let data = page["data"].as_array().unwrap().clone();
        assert!(data.len() <= limit as usize);
        all.extend(data);
        cursor = Some(page["meta"]["next_cursor"].as_str().unwrap().to_string());
        if !page["meta"]["has_more"].as_bool().unwrap() {
            return (all, cursor.unwrap());
        }
    }
}

fn without_leads(mut card: Value) -> Value {
    if let Some(o) = card.as_object_mut() {
        o.remove("leads");
    }
    card
}

fn with_key(t: &Tenant, method: &str, path: &str, key: &str, body: &Value) -> Resp {
    call(
        method,
        &format!("{}/api/v1{path}", t.server.base),
        Some(&t.token),
        Some(&body.to_string()),
        &[
            ("Idempotency-Key", key),
            ("Content-Type", "application/json"),
        ],
    )
}

#[test]
fn every_change_appends_its_event_in_order() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let created = t.card(json!({"first_name": "Feed", "last_name": "One", "show_lead_form": true}));
    let id = created["id"].as_i64().unwrap();
    let slug = created["slug"].as_str().unwrap().to_string();
    let r = t.send("PATCH", &format!("/cards/{id}"), &json!({"bio": "Edited"}));
    let updated = r.json()["data"].clone();
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.50"),
        Lead::Json(&json!({"name": "Grace", "email": "grace@example.com"})),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(
        t.send("DELETE", &format!("/cards/{id}"), &json!({})).status,
        200
    );

    let feed = events(&t, "");
    let data = feed["data"].as_array().unwrap();
    let types: Vec<&str> = data.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "card.created",
            "card.updated",
            "lead.created",
            "card.deleted"
        ]
    );
    let sequences: Vec<i64> = data
        .iter()
        .map(|e| e["sequence"].as_i64().unwrap())
        .collect();
    assert_eq!(sequences, [1, 2, 3, 4], "per account, from 1, no gaps");
    assert_eq!(
        data[0]["data"]["object"], created,
        "the card as createCard returned it"
    );
    assert_eq!(
        data[1]["data"]["object"], updated,
        "the card after the change"
    );
    let lead = &data[2]["data"]["object"];
    // The card was deleted with its lead, so the lead's copy has lost its personal data
    // (extensions.md 8); what it was and where it came from stay.
    assert_eq!(lead["name"], Value::Null);
    assert!(lead["id"].is_i64());
    assert_eq!(lead["card"]["id"], id);
    assert_eq!(
        data[3]["data"]["object"],
        json!({"id": id, "slug": slug, "deleted": true})
    );
    for e in data {
        let eid = e["id"].as_str().unwrap();
        assert!(eid.starts_with("evt_") && eid.len() >= 4 + 24, "{eid}");
        assert!(e["created_at"].as_str().unwrap().ends_with('Z'));
        let one = t.get(&format!("/events/{eid}"));
        assert_eq!(one.status, 200, "{}", one.body);
        assert_eq!(&one.json()["data"], e);
    }
    assert_eq!(feed["meta"]["has_more"], false);
    // Each token sees the events its scopes may read.
    let seen = |scopes: &[&str]| -> Vec<String> {
        let token = Tenant {
            server: s,
            account: t.account,
            token: s.token(t.account, scopes),
        };
        events(&token, "")["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(seen(&["leads:read"]), ["lead.created"]);
    assert_eq!(
        seen(&["cards:write"]),
        ["card.created", "card.updated", "card.deleted"]
    );
    // Another account's event is not found.
    let other = s.tenant(&ALL_SCOPES);
    let eid = data[0]["id"].as_str().unwrap();
    other.get(&format!("/events/{eid}")).assert_error(404);
    other.get("/events/evt_nope").assert_error(404);
    assert_eq!(events(&other, "")["data"], json!([]));
}

#[test]
fn thirty_concurrent_patches_get_thirty_consecutive_sequences() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Busy", "last_name": "Card"}));
    let id = card["id"].as_i64().unwrap();
    thread::scope(|scope| {
        for i in 0..30 {
            let t = &t;
            scope.spawn(move || {
                let path = format!("/cards/{id}");
                let body = json!({"bio": format!("v{i}")});
                let key = format!("patch-{i}");
                let r = with_key(t, "PATCH", &path, &key, &body);
                assert_eq!(r.status, 200, "{}", r.body);
            });
        }
    });
    let feed = events(&t, "?types=card.updated&limit=100");
    let data = feed["data"].as_array().unwrap();
    assert_eq!(data.len(), 30);
    let sequences: Vec<i64> = data
        .iter()
        .map(|e| e["sequence"].as_i64().unwrap())
        .collect();
    assert_eq!(
        sequences,
        (2..=31).collect::<Vec<_>>(),
        "consecutive after card.created"
    );
    let last = &data[29]["data"]["object"];
    let now = without_leads(t.get(&format!("/cards/{id}")).json()["data"].clone());
    assert_eq!(last, &now, "the last event is the final card");
}

#[test]
fn the_feed_pages_filters_and_respects_scopes() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    // An empty feed still gives a cursor: "now".
    let empty = events(&t, "");
    assert_eq!(empty["data"], json!([]));
    let now = empty["meta"]["next_cursor"].as_str().unwrap().to_string();
    for i in 0..5 {
        t.card(json!({"first_name": "Page", "last_name": format!("N{i}")}));
    }
    let page = events(&t, &format!("?limit=2&after={now}"));
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(page["meta"]["has_more"], true);
    let (rest, end) = drain(
        &t,
        page["meta"]["next_cursor"].as_str().map(str::to_string),
        2,
    );
    assert_eq!(rest.len(), 3);
    assert_eq!(rest[0]["sequence"], 3);
    let again = events(&t, &format!("?after={end}"));
    assert_eq!(again["data"], json!([]));
    assert_eq!(
        again["meta"]["next_cursor"],
        json!(end),
        "no events: the cursor sent"
    );
    assert_eq!(
        events(&t, "?limit=1000")["data"].as_array().unwrap().len(),
        5
    );
    assert_eq!(events(&t, "?types=lead.created")["data"], json!([]));
    let v = t
        .get("/events?types=card.created,card.exploded")
        .assert_error(422);
    assert!(v["errors"]["types"].is_array());
    let v = t.get("/events?after=garbage").assert_error(422);
    assert!(v["errors"]["after"].is_array());
    // Scopes decide what a token sees.
    let leads_only = Tenant {
        server: s,
        account: t.account,
        token: s.token(t.account, &["leads:read"]),
    };
    assert_eq!(events(&leads_only, "")["data"], json!([]));
    let eid = events(&t, "")["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    leads_only.get(&format!("/events/{eid}")).assert_error(404);
    let analytics_only = Tenant {
        server: s,
        account: t.account,
        token: s.token(t.account, &["analytics:read"]),
    };
    analytics_only.get("/events").assert_error(403);
}

/// A cursor the service never handed out (past the account's newest event) is refused,
/// not answered with an empty page that silently skips events to come; every cursor the
/// service did hand out keeps working (finding 7 of issue 29).
#[test]
fn a_cursor_past_the_newest_event_is_422_and_handed_out_ones_work() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let ahead = |t: &Tenant, cursor: &str| {
        let v = t.get(&format!("/events?after={cursor}")).assert_error(422);
        assert!(v["errors"]["after"].is_array(), "{cursor}: {v}");
    };
    // An empty account: its "now" cursor works, again and again; one past it does not.
    let now = events(&t, "")["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let again = events(&t, &format!("?after={now}"));
    assert_eq!(again["data"], json!([]));
    assert_eq!(again["meta"]["next_cursor"], json!(now));
    ahead(&t, "cur_1");
    ahead(&t, "cur_9999999");
    for i in 0..3 {
        t.card(json!({"first_name": "Ahead", "last_name": format!("N{i}")}));
    }
    // Every cursor given while paging, the last one included, lists what follows it.
    let (all, end) = drain(&t, Some(now), 1);
    assert_eq!(all.len(), 3);
    assert_eq!(events(&t, &format!("?after={end}"))["data"], json!([]));
    let first = events(&t, "?limit=1")["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        events(&t, &format!("?after={first}"))["data"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // A token that sees only some types gets cursors that are valid too.
    let leads_only = Tenant {
        server: s,
        account: t.account,
        token: s.token(t.account, &["leads:read"]),
    };
    let lead_now = events(&leads_only, "")["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        events(&leads_only, &format!("?after={lead_now}"))["data"],
        json!([])
    );
    ahead(&t, "cur_4");
    ahead(&t, "cur_9999999");
    ahead(&leads_only, "cur_4");
}

#[test]
fn a_sync_loop_ends_with_an_exact_mirror() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let done = Arc::new(AtomicBool::new(false));
    let mut mirror: BTreeMap<i64, Value> = BTreeMap::new();
    thread::scope(|scope| {
        let writer_done = done.clone();
        let t2 = &t;
        scope.spawn(move || {
            let mut ids = Vec::new();
            for i in 0..36 {
                match i % 4 {
                    0 | 1 => {
                        let c =
                            t2.card(json!({"first_name": "Sync", "last_name": format!("C{i}")}));
                        ids.push(c["id"].as_i64().unwrap());
                    }
                    2 => {
                        let id = ids[i % ids.len()];
                        t2.send(
                            "PATCH",
                            &format!("/cards/{id}"),
                            &json!({"bio": format!("b{i}")}),
                        );
                    }
                    _ => {
                        let id = ids.remove(0);
                        t2.send("DELETE", &format!("/cards/{id}"), &json!({}));
                    }
                }
            }
            writer_done.store(true, Ordering::SeqCst);
        });
        // The reader: read the feed from its stored cursor, apply, keep the new cursor.
        let mut cursor: Option<String> = None;
        loop {
            let finished = done.load(Ordering::SeqCst);
            let (batch, next) = drain(&t, cursor.clone(), 5);
            for e in batch {
                let object = e["data"]["object"].clone();
                let id = object["id"].as_i64().unwrap();
                match e["type"].as_str().unwrap() {
                    "card.created" | "card.updated" => {
                        mirror.insert(id, object);
                    }
                    "card.deleted" => {
                        mirror.remove(&id);
                    }
                    _ => {}
                }
            }
            cursor = Some(next);
            if finished {
                break;
            }
        }
    });
    let listed = t.get("/cards?per_page=100").json()["data"].clone();
    let listed: BTreeMap<i64, Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_i64().unwrap(), c.clone()))
        .collect();
    assert_eq!(listed.len(), 9 * 2 - 9, "18 created, 9 deleted");
    assert_eq!(mirror, listed, "the mirror is exactly the account");
}

#[test]
fn events_past_retention_give_410() {
    let s = Server::start(
        "feed-retention",
        &[("ADMIN_TOKEN", ADMIN_TOKEN), ("EVENT_RETENTION_DAYS", "0")],
    );
    let t = s.tenant(&ALL_SCOPES);
    t.card(json!({"first_name": "Old", "last_name": "One"}));
    let start = events(&t, "")["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let before_all = "cur_0";
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.cron("17 3 * * *");
    let v = t
        .get(&format!("/events?after={before_all}"))
        .assert_error(410);
    assert!(v["message"].as_str().unwrap().contains("full sync"));
    // A cursor at the end of what was pruned still works, and so does none at all.
    assert_eq!(events(&t, &format!("?after={start}"))["data"], json!([]));
    assert_eq!(events(&t, "")["data"], json!([]));
    // Everything pruned: the "now" cursor of the emptied feed works, one past it does not.
    let now = events(&t, "")["meta"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(now, start);
    assert_eq!(events(&t, &format!("?after={now}"))["data"], json!([]));
    let v = t.get("/events?after=cur_2").assert_error(422);
    assert!(v["errors"]["after"].is_array(), "{v}");
    t.card(json!({"first_name": "New", "last_name": "One"}));
    let after = events(&t, &format!("?after={start}"));
    assert_eq!(after["data"][0]["sequence"], 2);
    s.stop();
}

#[test]
fn lists_take_updated_since() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let a = t.card(json!({"first_name": "Early", "last_name": "Card", "show_lead_form": true}));
    std::thread::sleep(std::time::Duration::from_millis(30));
    let b = t.card(json!({"first_name": "Late", "last_name": "Card"}));
    let since = b["updated_at"].as_str().unwrap().to_string();
    let r = t.get(&format!("/cards?updated_since={since}"));
    assert_eq!(r.status, 200, "{}", r.body);
    let ids: Vec<i64> = r.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [b["id"].as_i64().unwrap()]);
    assert_eq!(r.json()["meta"]["total"], 1);
    // The same instant with an offset, its `+` left unencoded.
    let shifted = since.replace('Z', "+00:00");
    let r = t.get(&format!("/cards?updated_since={shifted}"));
    assert_eq!(r.json()["meta"]["total"], 1, "{}", r.body);
    let r = t.get("/cards?updated_since=2000-01-01T00:00:00Z");
    assert_eq!(r.json()["meta"]["total"], 2);
    for bad in ["yesterday", "2026-11-22", "2026-11-22T10:00:00"] {
        let v = t
            .get(&format!("/cards?updated_since={bad}"))
            .assert_error(422);
        assert!(v["errors"]["updated_since"].is_array(), "{bad}");
        let v = t
            .get(&format!("/leads?updated_since={bad}"))
            .assert_error(422);
        assert!(v["errors"]["updated_since"].is_array(), "{bad}");
    }
    let slug = a["slug"].as_str().unwrap();
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.51"),
        Lead::Json(&json!({"name": "L", "email": "l@example.com"})),
        &[],
    );
    assert_eq!(r.status, 201);
    let leads = t.get(&format!("/leads?updated_since={since}")).json();
    assert_eq!(leads["meta"]["total"], 1);
    let leads = t.get("/leads?updated_since=2999-01-01T00:00:00Z").json();
    assert_eq!(leads["meta"]["total"], 0);
}

#[test]
fn idempotent_writes_run_once() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let body = json!({"first_name": "Once", "last_name": "Only"});
    let first = with_key(&t, "POST", "/cards", "create-1", &body);
    assert_eq!(first.status, 201, "{}", first.body);
    assert_eq!(first.header("idempotent-replayed"), None);
    // Same key, same body in another key order and spacing: the same bytes again.
    let reordered = r#"{ "last_name": "Only",  "first_name": "Once" }"#;
    let again = call(
        "POST",
        &format!("{}/api/v1/cards", s.base),
        Some(&t.token),
        Some(reordered),
        &[
            ("Idempotency-Key", "create-1"),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(again.status, 201);
    assert_eq!(again.body, first.body, "byte for byte");
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    let remaining =
        |r: &Resp| -> u32 { r.header("x-ratelimit-remaining").unwrap().parse().unwrap() };
    assert!(
        remaining(&again) < remaining(&first),
        "a replay still counts"
    );
    assert_eq!(t.get("/cards").json()["meta"]["total"], 1);
    // Same key, another body or path: 422 on the key.
    let v = with_key(
        &t,
        "POST",
        "/cards",
        "create-1",
        &json!({"first_name": "X", "last_name": "Y"}),
    )
    .assert_error(422);
    assert!(v["errors"]["Idempotency-Key"].is_array(), "{v}");
    let id = first.json()["data"]["id"].as_i64().unwrap();
    let v = with_key(&t, "PATCH", &format!("/cards/{id}"), "create-1", &body).assert_error(422);
    assert!(v["errors"]["Idempotency-Key"].is_array());
    // Keys are checked.
    for bad in ["x".repeat(256), "tab\there".to_string()] {
        let v = with_key(&t, "POST", "/cards", &bad, &body).assert_error(422);
        assert!(v["errors"]["Idempotency-Key"].is_array());
    }
    // Patch and delete replay too, and a kept 404 stays a 404.
    let p1 = with_key(
        &t,
        "PATCH",
        &format!("/cards/{id}"),
        "patch-1",
        &json!({"bio": "1"}),
    );
    let p2 = with_key(
        &t,
        "PATCH",
        &format!("/cards/{id}"),
        "patch-1",
        &json!({"bio": "1"}),
    );
    assert_eq!((p1.status, p2.body.as_str()), (200, p1.body.as_str()));
    assert_eq!(p2.header("idempotent-replayed"), Some("true"));
    let d1 = with_key(
        &t,
        "DELETE",
        &format!("/cards/{id}"),
        "delete-1",
        &json!({}),
    );
    let d2 = with_key(
        &t,
        "DELETE",
        &format!("/cards/{id}"),
        "delete-1",
        &json!({}),
    );
    assert_eq!((d1.status, d2.status), (200, 200), "the replay, not a 404");
    assert_eq!(d2.header("idempotent-replayed"), Some("true"));
    // Keys are per account.
    let other = s.tenant(&ALL_SCOPES);
    assert_eq!(
        with_key(&other, "POST", "/cards", "create-1", &body).status,
        201
    );
    // The feed saw one create, not two.
    let creates = events(&t, "?types=card.created")["data"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(creates, 1);
}

#[test]
fn ten_concurrent_creates_with_one_key_make_one_card() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let body = json!({"first_name": "Race", "last_name": "Key"});
    let statuses: Vec<(u16, Option<String>)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..10)
            .map(|_| {
                let (t, body) = (&t, &body);
                scope.spawn(move || {
                    let r = with_key(t, "POST", "/cards", "race", body);
                    (
                        r.status,
                        r.header("idempotent-replayed").map(str::to_string),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let fresh = statuses
        .iter()
        .filter(|(s, h)| *s == 201 && h.is_none())
        .count();
    assert_eq!(fresh, 1, "exactly one request ran: {statuses:?}");
    assert!(
        statuses.iter().all(|(s, h)| *s == 409 || (*s == 201 && (h.is_none() || h.as_deref() == Some("true")))),
        "{statuses:?}"
    );
    assert_eq!(t.get("/cards").json()["meta"]["total"], 1);
}

#[test]
fn the_feed_limit_defaults_to_50_and_is_clamped() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    for i in 0..51 {
        t.card(json!({"first_name": "Many", "last_name": format!("N{i}")}));
    }
    let page = events(&t, "");
    assert_eq!(page["data"].as_array().unwrap().len(), 50, "default 50");
    assert_eq!(page["meta"]["has_more"], true);
    assert_eq!(events(&t, "?limit=0")["data"].as_array().unwrap().len(), 1);
    assert_eq!(events(&t, "?limit=-5")["data"].as_array().unwrap().len(), 1);
    let all = events(&t, "?limit=1000");
    assert_eq!(all["data"].as_array().unwrap().len(), 51);
    assert_eq!(all["meta"]["has_more"], false);
}
