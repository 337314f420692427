//! extensions.md 8: find, erase, retain, consent. An erased lead's personal data is in no
//! API answer and no webhook body afterwards, redelivered ones included.

use std::sync::OnceLock;
use std::thread;
use std::time::Duration;

use cardapi::domain::time::parse_iso8601;
use serde_json::{json, Value};

use crate::harness::{call, post_lead, visitor, Lead, Resp, Server, Tenant, ADMIN_TOKEN};
use crate::webhooks::{deliveries, hooks_server, subscribe, Receiver, WAIT};

const SCOPES: [&str; 5] = [
    "cards:write",
    "leads:read",
    "leads:write",
    "webhooks:write",
    "analytics:read",
];

/// A lead with every personal field set, posted as a visitor would.
fn post_person(s: &Server, slug: &str, ip: &str, who: &Person, extra: Value) -> Resp {
    let mut body = json!({
        "name": who.name, "email": who.email, "phone": who.phone, "message": who.message
    });
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    post_lead(s, slug, Some(ip), Lead::Json(&body), &[])
}

struct Person {
    name: &'static str,
    email: &'static str,
    phone: &'static str,
    message: &'static str,
}

impl Person {
    /// Fails naming the field if `text` holds any of this person's data.
    fn assert_absent(&self, what: &str, text: &str) {
        for (field, value) in [
            ("name", self.name),
            ("email", self.email),
            ("phone", self.phone),
            ("message", self.message),
        ] {
            assert!(
                !text.to_lowercase().contains(&value.to_lowercase()),
                "{what} still holds the erased {field}: {text}"
            );
        }
    }
}

fn card_with_form(t: &Tenant) -> Value {
    t.card(json!({"first_name": "Priv", "last_name": "Acy", "show_lead_form": true}))
}

fn leads_of(t: &Tenant, query: &str) -> Value {
    let r = t.get(&format!("/leads{query}"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

/// Every event of the feed, as text.
fn feed_text(t: &Tenant) -> (String, Vec<Value>) {
    let r = t.get("/events?limit=100");
    assert_eq!(r.status, 200, "{}", r.body);
    let data = r.json()["data"].as_array().unwrap().clone();
    (r.body, data)
}

#[test]
fn deleting_a_lead_erases_it_from_every_answer_and_webhook() {
    let s = hooks_server();
    let t = s.tenant(&SCOPES);
    let rx = Receiver::start(200);
    let (hook, _) = subscribe(&t, &rx.url("/crm"), json!(["*"]));
    let card = card_with_form(&t);
    let slug = card["slug"].as_str().unwrap();
    let erin = Person {
        name: "Erin Erasable",
        email: "erin.erasable@example.com",
        phone: "+44 20 7946 0958",
        message: "Please call me about the Zanzibar project",
    };
    let keep = Person {
        name: "Kim Kept",
        email: "kim.kept@example.com",
        phone: "+44 20 7946 0000",
        message: "Keep me",
    };
    assert_eq!(
        post_person(s, slug, "198.51.100.20", &erin, json!({})).status,
        201
    );
    assert_eq!(
        post_person(s, slug, "198.51.100.21", &keep, json!({})).status,
        201
    );
    let created = rx.wait_for("/crm", 3, WAIT);
    assert_eq!(created.len(), 3, "card.created and two lead.created");
    let list = leads_of(&t, "");
    let lead = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["email"] == erin.email)
        .expect("Erin's lead")
        .clone();
    let id = lead["id"].as_i64().unwrap();
    let created_event = created
        .iter()
        .map(|h| h.event())
        .find(|e| e["type"] == "lead.created" && e["data"]["object"]["id"] == id)
        .expect("Erin's lead.created");
    let event_id = created_event["id"].as_str().unwrap().to_string();

    // leads:read cannot erase; leads:write is needed, and implies nothing else.
    let reader = Tenant {
        server: s,
        account: t.account,
        token: s.token(t.account, &["leads:read", "cards:write"]),
    };
    reader
        .send("DELETE", &format!("/leads/{id}"), &json!({}))
        .assert_error(403);
    let eraser = Tenant {
        server: s,
        account: t.account,
        token: s.token(t.account, &["leads:write"]),
    };
    eraser.get("/leads").assert_error(403);

    let r = eraser.send("DELETE", &format!("/leads/{id}"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({"message": "Lead deleted successfully."}));
    eraser
        .send("DELETE", &format!("/leads/{id}"), &json!({}))
        .assert_error(404);
    let other = s.tenant(&SCOPES);
    let kept_id = leads_of(&t, "")["data"][0]["id"].as_i64().unwrap();
    other
        .send("DELETE", &format!("/leads/{kept_id}"), &json!({}))
        .assert_error(404);

    // No answer holds Erin any more; Kim is untouched.
    t.get(&format!("/leads/{id}")).assert_error(404);
    let list = leads_of(&t, "");
    erin.assert_absent("listLeads", &list.to_string());
    assert_eq!(list["meta"]["total"], 1);
    assert_eq!(list["data"][0]["email"], keep.email);
    let got = t.get(&format!("/cards/{}", card["id"]));
    erin.assert_absent("getCard", &got.body);
    assert!(got.body.contains(keep.email));
    let (feed, events) = feed_text(&t);
    erin.assert_absent("the feed", &feed);
    assert!(
        feed.contains(keep.email),
        "only the erased lead is redacted"
    );
    let r = t.get(&format!("/events/{event_id}"));
    assert_eq!(r.status, 200);
    erin.assert_absent("getEvent", &r.body);
    let object = &r.json()["data"]["data"]["object"];
    assert_eq!(object["id"], id, "ids and times stay: {}", r.body);
    for field in ["name", "email", "phone", "message", "note"] {
        assert_eq!(object[field], Value::Null, "{field}");
    }
    let deleted: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "lead.deleted")
        .collect();
    assert_eq!(deleted.len(), 1);
    assert_eq!(
        deleted[0]["data"]["object"],
        json!({"id": id, "card_id": card["id"], "deleted": true})
    );

    // The receiver gets lead.deleted; a redelivery of the old event carries no personal data.
    let hits = rx.wait_for("/crm", 4, WAIT);
    let last = hits[3].event();
    assert_eq!(last["type"], "lead.deleted");
    assert_eq!(last["data"]["object"]["id"], id);
    let r = t.send(
        "POST",
        &format!("/webhooks/{hook}/events/{event_id}/redeliver"),
        &json!({}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let hits = rx.wait_for("/crm", 5, WAIT);
    assert_eq!(hits[4].header("webhook-id"), event_id);
    erin.assert_absent("a redelivered webhook body", &hits[4].body);
    let d = deliveries(&t, hook);
    erin.assert_absent("listDeliveries", &serde_json::to_string(&d).unwrap());

    // Deleting the card deletes Kim's lead with it, and her copy in the feed too.
    let r = t.send("DELETE", &format!("/cards/{}", card["id"]), &json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    let (feed, _) = feed_text(&t);
    keep.assert_absent("the feed after deleting the card", &feed);
}

#[test]
fn erase_by_address_takes_every_lead_of_it_in_any_case() {
    let s = hooks_server();
    let t = s.tenant(&SCOPES);
    let card = card_with_form(&t);
    let slug = card["slug"].as_str().unwrap();
    let people = [
        Person {
            name: "Sam One",
            email: "sam.twice@example.com",
            phone: "+1 555 0101",
            message: "first note from sam",
        },
        Person {
            name: "Sam Two",
            email: "Sam.Twice@Example.COM",
            phone: "+1 555 0102",
            message: "second note from sam",
        },
    ];
    for (i, p) in people.iter().enumerate() {
        let r = post_person(s, slug, &format!("198.51.100.{}", 40 + i), p, json!({}));
        assert_eq!(r.status, 201, "{}", r.body);
    }
    assert_eq!(
        post_lead(s, slug, Some("198.51.100.50"), Lead::Json(&visitor(7)), &[]).status,
        201
    );

    // Find: listLeads?email= matches the address in any case.
    let found = leads_of(&t, "?email=SAM.TWICE%40example.com");
    assert_eq!(found["meta"]["total"], 2, "{found}");
    assert_eq!(
        leads_of(&t, "?email=nobody%40example.com")["meta"]["total"],
        0
    );

    t.send("POST", "/leads/erase", &json!({})).assert_error(422);
    let e = t
        .send("POST", "/leads/erase", &json!({"email": "not an email"}))
        .assert_error(422);
    assert!(e["errors"]["email"].is_array(), "{e}");
    let r = t.send(
        "POST",
        "/leads/erase",
        &json!({"email": "sam.TWICE@example.com"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["data"]["erased"], 2);
    assert!(v["message"].is_string());
    let r = t.send(
        "POST",
        "/leads/erase",
        &json!({"email": "sam.twice@example.com"}),
    );
    assert_eq!(r.json()["data"]["erased"], 0, "nothing left");

    let list = leads_of(&t, "");
    assert_eq!(list["meta"]["total"], 1);
    let (feed, events) = feed_text(&t);
    for p in &people {
        p.assert_absent("listLeads", &list.to_string());
        p.assert_absent("the feed", &feed);
    }
    let deleted = events
        .iter()
        .filter(|e| e["type"] == "lead.deleted")
        .count();
    assert_eq!(deleted, 2, "one lead.deleted per lead");
    let sequences: Vec<i64> = events
        .iter()
        .map(|e| e["sequence"].as_i64().unwrap())
        .collect();
    let mut sorted = sequences.clone();
    sorted.dedup();
    assert_eq!(sequences, sorted, "sequences stay strictly increasing");
    assert_eq!(
        sequences.last().copied(),
        Some(sequences.len() as i64),
        "no gaps"
    );
}

/// `email` of a query string: UTF-8 percent-encoded, as a browser sends it.
fn query_email(email: &str) -> String {
    let mut q = String::from("?email=");
    for b in email.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            q.push(b as char);
        } else {
            q.push_str(&format!("%{b:02X}"));
        }
    }
    q
}

/// The addresses of a list's leads, as stored.
fn emails(list: &Value) -> Vec<String> {
    let mut emails: Vec<String> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|l| l["email"].as_str().map(String::from))
        .collect();
    emails.sort_unstable();
    emails
}

/// Issue 29: an address in another case of another script than A-Z is the same address.
#[test]
fn find_and_erase_fold_case_in_every_script() {
    let s = hooks_server();
    let t = s.tenant(&SCOPES);
    let card = card_with_form(&t);
    let slug = card["slug"].as_str().unwrap();
    let person = |name, email| Person {
        name,
        email,
        phone: "+49 30 1234",
        message: "bitte zurückrufen",
    };
    let [arzte_umlaut, jurgen, nikos, arzte] = [
        "ÄRZTE@Bücher.example",
        "jürgen@BÜCHER.example",
        "ΝΊΚΟΣ@example.gr",
        // Another address: A-Z without the umlaut is not the same.
        "arzte@bucher.example",
    ];
    for (i, email) in [arzte_umlaut, jurgen, nikos, arzte].into_iter().enumerate() {
        let r = post_person(
            s,
            slug,
            &format!("198.51.100.{}", 70 + i),
            &person("Ärztin", email),
            json!({}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    for (query, expect) in [
        ("ärzte@bücher.example", vec![arzte_umlaut]),
        ("ÄRZTE@BÜCHER.EXAMPLE", vec![arzte_umlaut]),
        ("jürgen@bücher.example", vec![jurgen]),
        ("JÜRGEN@bücher.EXAMPLE", vec![jurgen]),
        // Decomposed (u + combining diaeresis) and full-width: the worker's normaliser.
        ("ju\u{308}rgen@BU\u{308}CHER.example", vec![jurgen]),
        ("ＪÜＲＧＥＮ@bücher.example", vec![jurgen]),
        ("νίκοσ@example.gr", vec![nikos]),
        ("arzte@BUCHER.example", vec![arzte]),
        ("jurgen@bucher.example", vec![]),
    ] {
        let found = leads_of(&t, &query_email(query));
        assert_eq!(emails(&found), expect, "{query}: {found}");
        assert_eq!(found["meta"]["total"], expect.len(), "{query}");
    }

    let r = t.send(
        "POST",
        "/leads/erase",
        &json!({"email": "ärzte@bücher.example"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"]["erased"], 1, "{}", r.body);
    let r = t.send(
        "POST",
        "/leads/erase",
        &json!({"email": "ärzte@bücher.example"}),
    );
    assert_eq!(r.json()["data"]["erased"], 0, "nothing left");
    let r = t.send(
        "POST",
        "/leads/erase",
        &json!({"email": "JÜRGEN@bücher.example"}),
    );
    assert_eq!(r.json()["data"]["erased"], 1, "{}", r.body);
    assert_eq!(
        emails(&leads_of(&t, "")),
        vec![arzte, nikos],
        "the others stay"
    );
}

/// Leads stored before their key existed (migrations/0006 keys only ASCII addresses; a
/// worker of the previous version inserts none) are keyed before a match on their
/// account, by an erasure as by a list, and the every-minute cron keys the rest.
#[test]
fn leads_without_a_key_are_keyed_before_a_match_and_by_the_cron() {
    let s = Server::start("email-keys", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    // Two accounts: keying is per account, so each path keys its own.
    let mut tenants = Vec::new();
    for (n, addresses) in [
        vec!["ÄRZTE@Bücher.example", "Ada@Example.com"],
        vec!["Σοφία@Example.gr"],
    ]
    .into_iter()
    .enumerate()
    {
        let t = s.tenant(&SCOPES);
        let card = card_with_form(&t);
        let slug = card["slug"].as_str().unwrap();
        for (i, email) in addresses.into_iter().enumerate() {
            let who = Person {
                name: "Old Lead",
                email,
                phone: "+1 555 0199",
                message: "from before the key",
            };
            let ip = format!("198.51.100.{}", 80 + 10 * n + i);
            let r = post_person(&s, slug, &ip, &who, json!({}));
            assert_eq!(r.status, 201, "{}", r.body);
        }
        tenants.push((t.account, t.token.clone()));
    }
    let unkey = "UPDATE leads SET email_key = NULL";
    let unkeyed = "SELECT COUNT(*) AS n FROM leads WHERE email_key IS NULL";

    s.stop();
    s.d1(unkey);
    assert_eq!(count(s.d1(unkeyed)), 3);
    let s = s.restart("email-keys-2");
    let [a, b] = [0, 1].map(|i| Tenant {
        server: &s,
        account: tenants[i].0,
        token: tenants[i].1.clone(),
    });
    let r = a.send("POST", "/leads/erase", &json!({"email": "ADA@example.com"}));
    assert_eq!(r.json()["data"]["erased"], 1, "{}", r.body);
    let found = leads_of(&a, &query_email("ärzte@BÜCHER.example"));
    assert_eq!(emails(&found), ["ÄRZTE@Bücher.example"], "{found}");
    let found = leads_of(&b, &query_email("ΣΟΦΊΑ@example.GR"));
    assert_eq!(emails(&found), ["Σοφία@Example.gr"], "{found}");

    s.stop();
    s.d1(unkey);
    assert_eq!(count(s.d1(unkeyed)), 2);
    let s = s.restart("email-keys-3");
    s.cron("* * * * *");
    s.stop();
    assert_eq!(count(s.d1(unkeyed)), 0, "the cron keyed them");
    assert_eq!(
        s.d1("SELECT email_key FROM leads ORDER BY account_id, id"),
        vec![
            json!({"email_key": "ärzte@bücher.example"}),
            json!({"email_key": "σοφία@example.gr"}),
        ]
    );
}

/// A retention day of two seconds (the test-only `RETENTION_DAY_MS`), so a lead expires
/// while the test waits.
fn retention_server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        Server::start(
            "retention",
            &[("ADMIN_TOKEN", ADMIN_TOKEN), ("RETENTION_DAY_MS", "2000")],
        )
    })
}

#[test]
fn retention_erases_old_leads_and_keeps_new_ones() {
    let s = retention_server();
    let t = s.tenant(&["cards:write", "leads:read"]);
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{}", t.account),
        Some(json!({"lead_retention_days": 1})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"]["lead_retention_days"], 1);
    // Another account without retention keeps everything.
    let other = s.tenant(&["cards:write", "leads:read"]);
    let card = card_with_form(&t);
    let slug = card["slug"].as_str().unwrap();
    let other_card = card_with_form(&other);
    let old = Person {
        name: "Olga Old",
        email: "olga.old@example.com",
        phone: "+49 30 0001",
        message: "an old message",
    };
    let new = Person {
        name: "Nina New",
        email: "nina.new@example.com",
        phone: "+49 30 0002",
        message: "a new message",
    };
    assert_eq!(
        post_person(s, slug, "198.51.100.60", &old, json!({})).status,
        201
    );
    let other_slug = other_card["slug"].as_str().unwrap();
    assert_eq!(
        post_person(s, other_slug, "198.51.100.62", &old, json!({})).status,
        201
    );
    thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        post_person(s, slug, "198.51.100.61", &new, json!({})).status,
        201
    );
    s.cron("* * * * *");
    let list = leads_of(&t, "");
    assert_eq!(list["meta"]["total"], 1, "{list}");
    assert_eq!(list["data"][0]["email"], new.email);
    let (feed, events) = feed_text(&t);
    old.assert_absent("the feed after retention", &feed);
    assert!(feed.contains(new.email));
    let deleted: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "lead.deleted")
        .collect();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0]["data"]["object"]["card_id"], card["id"]);
    assert_eq!(
        leads_of(&other, "")["meta"]["total"],
        1,
        "no retention, kept"
    );

    let e = s
        .admin(
            "PATCH",
            &format!("/accounts/{}", t.account),
            Some(json!({"lead_retention_days": 0})),
        )
        .assert_error(422);
    assert!(e["errors"]["lead_retention_days"].is_array());
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{}", t.account),
        Some(json!({"lead_retention_days": null})),
    );
    assert_eq!(r.json()["data"]["lead_retention_days"], Value::Null);
}

#[test]
fn with_a_privacy_policy_no_lead_without_consent() {
    let s = hooks_server();
    let t = s.tenant(&SCOPES);
    let card = t.card(
        json!({"first_name": "Priv", "last_name": "Acy", "show_lead_form": true,
                             "language": "de"}),
    );
    let slug = card["slug"].as_str().unwrap();
    let who = Person {
        name: "Cora Consent",
        email: "cora@example.com",
        phone: "+33 1 0000",
        message: "hello",
    };
    // No policy: no checkbox, no consent recorded.
    let page = call("GET", &format!("{}/c/{slug}", s.base), None, None, &[]);
    assert!(!page.body.contains("name=\"consent\""));
    assert_eq!(
        post_person(s, slug, "198.51.100.70", &who, json!({})).status,
        201
    );
    assert_eq!(leads_of(&t, "")["data"][0]["consent_at"], Value::Null);

    let policy = "https://acme.example/privacy";
    let e = s
        .admin(
            "PATCH",
            &format!("/accounts/{}", t.account),
            Some(json!({"privacy_policy_url": "http://acme.example/privacy"})),
        )
        .assert_error(422);
    assert!(e["errors"]["privacy_policy_url"].is_array());
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{}", t.account),
        Some(json!({"privacy_policy_url": policy})),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"]["privacy_policy_url"], policy);

    // The page asks, in its language, unticked, linking to the policy.
    let page = call("GET", &format!("{}/c/{slug}", s.base), None, None, &[]);
    assert!(page.body.contains("name=\"consent\""), "{}", page.body);
    assert!(page.body.contains("required"));
    assert!(!page.body.contains("checked"));
    assert!(page.body.contains(&format!("href=\"{policy}\"")));
    assert!(page.body.contains("Datenschutz"));

    // Without consent: 422 on field consent, nothing stored (JSON and form alike).
    let e = post_person(s, slug, "198.51.100.71", &who, json!({})).assert_error(422);
    assert!(e["errors"]["consent"].is_array(), "{e}");
    let e =
        post_person(s, slug, "198.51.100.71", &who, json!({"consent": false})).assert_error(422);
    assert!(e["errors"]["consent"].is_array());
    let form = post_lead(
        s,
        slug,
        Some("198.51.100.72"),
        Lead::Form("name=Cora&email=cora%40example.com&lang=de"),
        &[],
    );
    assert_eq!(form.status, 422);
    assert!(form.body.contains("name=\"consent\""));
    assert!(form.body.contains("class=\"err\""));
    assert_eq!(leads_of(&t, "")["meta"]["total"], 1, "nothing stored");

    // With consent: stored, with the moment of consent.
    let r = post_person(s, slug, "198.51.100.73", &who, json!({"consent": true}));
    assert_eq!(r.status, 201, "{}", r.body);
    let form = post_lead(
        s,
        slug,
        Some("198.51.100.74"),
        Lead::Form("name=Cora&email=cora%40example.com&consent=1"),
        &[],
    );
    assert_eq!(form.status, 303, "{}", form.body);
    let list = leads_of(&t, "");
    assert_eq!(list["meta"]["total"], 3);
    for lead in &list["data"].as_array().unwrap()[..2] {
        let at = lead["consent_at"].as_str().expect("consent_at");
        assert!(parse_iso8601(at).is_some());
    }
}

/// The sum of the `n` of each shard's answer.
fn count(rows: Vec<Value>) -> i64 {
    rows.iter().map(|r| r["n"].as_i64().unwrap_or(0)).sum()
}
