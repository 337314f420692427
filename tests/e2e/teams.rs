//! Company templates (teams.md 1): the resource, its scopes and plan rule, locked fields
//! on every write surface, defaults, a template change reaching its cards, and delete.

use serde_json::{json, Value};

use crate::harness::{call, server, Server, Tenant, ADMIN_TOKEN};

/// An enterprise account with a token of every card and template scope.
fn tenant(s: &Server) -> Tenant<'_> {
    s.tenant(&["cards:write", "templates:write"])
}

/// A tenant of `account` whose token has exactly `scopes`.
fn scoped<'a>(s: &'a Server, account: i64, scopes: &[&str]) -> Tenant<'a> {
    Tenant {
        server: s,
        account,
        token: s.token(account, scopes),
    }
}

fn template(t: &Tenant, body: Value) -> Value {
    let r = t.send("POST", "/templates", &body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["data"].clone()
}

fn events(t: &Tenant, types: &str) -> Vec<Value> {
    let r = t.get(&format!("/events?limit=100&types={types}"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["data"].as_array().cloned().unwrap_or_default()
}

#[test]
fn templates_crud_validation_order_and_idempotency() {
    let s = server();
    let t = tenant(s);
    let r = t.send(
        "POST",
        "/templates",
        &json!({"name": "Acme", "layout": "modern", "values": {"address": "Main St 1",
                "website": "https://acme.example"}, "locked": ["address"]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let body = r.json();
    let a = &body["data"];
    let id = a["id"].as_i64().unwrap();
    assert_eq!(
        r.header("location"),
        Some(format!("/api/v1/templates/{id}").as_str())
    );
    assert_eq!(body["message"], "Template created successfully.");
    assert_eq!(a["name"], "Acme");
    assert_eq!(a["layout"], "modern");
    assert_eq!(a["values"]["address"], "Main St 1");
    assert_eq!(a["locked"], json!(["address"]));
    assert_eq!(a["default"], false);
    assert_eq!(
        (a["cards"].as_i64(), a["pending"].as_i64()),
        (Some(0), Some(0))
    );
    assert!(a["created_at"].as_str().unwrap().ends_with('Z'));
    // Defaults of create.
    let b = template(&t, json!({"name": "Acme", "layout": "classic"}));
    assert_eq!((&b["values"], &b["locked"]), (&json!({}), &json!([])));

    // Validation: the card's own rules under dotted names; locked names keys of values.
    for (body, field) in [
        (json!({"layout": "modern"}), "name"),
        (json!({"name": "x"}), "layout"),
        (json!({"name": "x", "layout": "fancy"}), "layout"),
        (json!({"name": "x".repeat(101), "layout": "modern"}), "name"),
        (
            json!({"name": "x", "layout": "modern", "values": {"website": "no url"}}),
            "values.website",
        ),
        (
            json!({"name": "x", "layout": "modern", "values": {"email": "a@b.example"}}),
            "values.email",
        ),
        (
            json!({"name": "x", "layout": "modern", "values": {"language": "xx"}}),
            "values.language",
        ),
        (
            json!({"name": "x", "layout": "modern", "values": {"bio": "b"}, "locked": ["address"]}),
            "locked",
        ),
    ] {
        let e = t.send("POST", "/templates", &body).assert_error(422);
        assert!(e["errors"][field].is_array(), "{body} -> {e}");
    }
    let e = t
        .send(
            "POST",
            "/templates",
            &json!({"name": "x", "layout": "modern", "values": {"website": "x"}}),
        )
        .assert_error(422);
    assert_eq!(
        e["errors"]["values.website"][0],
        "The values.website field must be a valid URL."
    );

    // Get; PATCH changes the fields sent, values and locked replaced whole.
    let got = t.get(&format!("/templates/{id}"));
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(got.json()["data"], *a);
    let r = t.send(
        "PATCH",
        &format!("/templates/{id}"),
        &json!({"values": {"company": "Acme Ltd"}, "locked": []}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let c = r.json();
    assert_eq!(c["message"], "Template updated successfully.");
    assert_eq!(c["data"]["values"], json!({"company": "Acme Ltd"}));
    assert_eq!(c["data"]["name"], "Acme");
    assert_eq!(c["data"]["layout"], "modern");
    // Locking a key the stored values lack is refused.
    let e = t
        .send(
            "PATCH",
            &format!("/templates/{id}"),
            &json!({"locked": ["address"]}),
        )
        .assert_error(422);
    assert!(e["errors"]["locked"].is_array(), "{e}");
    t.send(
        "PATCH",
        &format!("/templates/{id}"),
        &json!({"name": "Zeta"}),
    )
    .json();

    // Listed by name, then id, paged like listCards.
    let r = t.get("/templates?per_page=1&page=2");
    assert_eq!(r.status, 200, "{}", r.body);
    let l = r.json();
    assert_eq!(l["meta"]["total"], 2);
    assert_eq!(l["data"][0]["name"], "Zeta");
    let all = t.get("/templates").json();
    let names: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Acme", "Zeta"]);

    // default: one per account.
    let d1 = template(
        &t,
        json!({"name": "D1", "layout": "classic", "default": true}),
    );
    let d2 = template(
        &t,
        json!({"name": "D2", "layout": "classic", "default": true}),
    );
    let one = |id: &Value| t.get(&format!("/templates/{id}")).json()["data"]["default"].clone();
    assert_eq!(
        (one(&d1["id"]), one(&d2["id"])),
        (json!(false), json!(true))
    );
    t.send(
        "PATCH",
        &format!("/templates/{}", d1["id"]),
        &json!({"default": true}),
    )
    .json();
    assert_eq!(
        (one(&d1["id"]), one(&d2["id"])),
        (json!(true), json!(false))
    );

    // Another account's template is 404, and so is an id that is none.
    let other = tenant(s);
    other.get(&format!("/templates/{id}")).assert_error(404);
    other
        .send("PATCH", &format!("/templates/{id}"), &json!({"name": "x"}))
        .assert_error(404);
    other
        .send("DELETE", &format!("/templates/{id}"), &json!({}))
        .assert_error(404);
    t.get("/templates/abc").assert_error(404);

    // Idempotency-Key as for every other write.
    let keyed = || {
        call(
            "POST",
            &format!("{}/api/v1/templates", s.base),
            Some(&t.token),
            Some(&json!({"name": "Once", "layout": "minimal"}).to_string()),
            &[
                ("Idempotency-Key", "tpl-once"),
                ("Content-Type", "application/json"),
            ],
        )
    };
    let (first, again) = (keyed(), keyed());
    assert_eq!((first.status, again.status), (201, 201));
    assert_eq!(again.body, first.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(t.get("/templates").json()["meta"]["total"], 5);

    // Delete: 200 {message}, then 404.
    let r = t.send("DELETE", &format!("/templates/{id}"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({"message": "Template deleted successfully."})
    );
    t.get(&format!("/templates/{id}")).assert_error(404);
    t.send("DELETE", &format!("/templates/{id}"), &json!({}))
        .assert_error(404);
}

#[test]
fn at_most_fifty_templates_an_account() {
    let t = tenant(server());
    for i in 0..50 {
        template(&t, json!({"name": format!("T{i:02}"), "layout": "classic"}));
    }
    let e = t
        .send(
            "POST",
            "/templates",
            &json!({"name": "T50", "layout": "classic"}),
        )
        .assert_error(422);
    assert!(e["errors"]["name"].is_array(), "{e}");
    assert_eq!(t.get("/templates?per_page=100").json()["meta"]["total"], 50);
}

#[test]
fn template_scopes_are_their_own_and_the_plan_needs_white_label() {
    let s = server();
    let account = s.account("enterprise", json!({}));
    let token = |scopes: &[&str]| scoped(s, account, scopes);
    let writer = token(&["templates:write"]);
    let id = template(&writer, json!({"name": "A", "layout": "classic"}))["id"].clone();
    // templates:read reads, and only reads.
    let reader = token(&["templates:read"]);
    assert_eq!(reader.get("/templates").status, 200);
    assert_eq!(reader.get(&format!("/templates/{id}")).status, 200);
    reader
        .send(
            "POST",
            "/templates",
            &json!({"name": "B", "layout": "classic"}),
        )
        .assert_error(403);
    // No other scope implies them, cards:write included.
    let cards = token(&[
        "cards:write",
        "cards:read",
        "leads:read",
        "webhooks:write",
        "scim",
    ]);
    cards.get("/templates").assert_error(403);
    cards
        .send(
            "POST",
            "/templates",
            &json!({"name": "B", "layout": "classic"}),
        )
        .assert_error(403);
    // A template scope does not read cards.
    writer.get("/cards").assert_error(403);

    // The plan: white_label (business and enterprise), operator overrides applying.
    let no_white = s.account("enterprise", json!({"features": {"white_label": false}}));
    let t = Tenant {
        server: s,
        account: no_white,
        token: s.token(no_white, &["templates:write"]),
    };
    let e = t.get("/templates").assert_error(403);
    assert!(e["message"].as_str().unwrap().contains("templates"), "{e}");
    t.send(
        "POST",
        "/templates",
        &json!({"name": "B", "layout": "classic"}),
    )
    .assert_error(403);
    let business = s.account("business", json!({"features": {"api_access": true}}));
    let t = Tenant {
        server: s,
        account: business,
        token: s.token(business, &["templates:write"]),
    };
    template(&t, json!({"name": "B", "layout": "classic"}));
    let pro = s.account("pro", json!({"features": {"api_access": true}}));
    let t = Tenant {
        server: s,
        account: pro,
        token: s.token(pro, &["templates:write"]),
    };
    t.get("/templates").assert_error(403);
}

#[test]
fn template_events_are_read_with_a_template_scope_alone() {
    let s = server();
    let account = s.account("enterprise", json!({}));
    let token = |scopes: &[&str]| scoped(s, account, scopes);
    let writer = token(&["templates:write", "cards:write"]);
    let made = template(&writer, json!({"name": "A", "layout": "classic"}));
    let id = made["id"].as_i64().unwrap();
    writer.card(json!({"first_name": "Ada", "last_name": "L"}));
    let changed = writer
        .send("PATCH", &format!("/templates/{id}"), &json!({"name": "B"}))
        .json()["data"]
        .clone();
    writer
        .send("DELETE", &format!("/templates/{id}"), &json!({}))
        .json();

    let reader = token(&["templates:read"]);
    let seen = events(&reader, "");
    let kinds: Vec<&str> = seen.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["template.created", "template.updated", "template.deleted"]
    );
    assert_eq!(seen[0]["data"]["object"], made);
    assert_eq!(seen[1]["data"]["object"], changed);
    assert_eq!(
        seen[2]["data"]["object"],
        json!({"id": id, "deleted": true})
    );
    // The other template scope reads them too; a card scope alone does not.
    assert_eq!(events(&token(&["templates:write"]), "").len(), 3);
    let cards = events(&token(&["cards:read"]), "");
    assert!(cards
        .iter()
        .all(|e| e["type"].as_str().unwrap().starts_with("card.")));
    // Single event by id.
    let one = reader.get(&format!("/events/{}", seen[2]["id"].as_str().unwrap()));
    assert_eq!(one.status, 200, "{}", one.body);
    token(&["cards:read"])
        .get(&format!("/events/{}", seen[2]["id"].as_str().unwrap()))
        .assert_error(404);
    // Webhooks may subscribe to them by name, with a template scope.
    let hooks = token(&["webhooks:write", "templates:read"]);
    let r = hooks.send(
        "POST",
        "/webhooks",
        &json!({"url": "https://crm.example.com/t", "events": ["template.updated"]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let e = token(&["webhooks:write", "cards:read"])
        .send(
            "POST",
            "/webhooks",
            &json!({"url": "https://crm.example.com/t", "events": ["template.created"]}),
        )
        .assert_error(403);
    assert!(
        e["message"].as_str().unwrap().contains("templates:read"),
        "{e}"
    );
}

/// A SCIM request of the tenant's account.
fn scim(s: &Server, token: &str, method: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = call(
        method,
        &format!("{}/scim/v2{path}", s.base),
        Some(token),
        Some(&body.to_string()),
        &[("Content-Type", "application/scim+json")],
    );
    let v = serde_json::from_str(&r.body).unwrap_or(Value::Null);
    (r.status, v)
}

fn user(name: &str, extra: Value) -> Value {
    let mut u = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": name,
        "name": {"givenName": "Grace", "familyName": "Hopper"},
    });
    if let (Some(u), Some(e)) = (u.as_object_mut(), extra.as_object()) {
        u.extend(e.clone());
    }
    u
}

#[test]
fn locked_fields_are_refused_on_every_write_surface_and_kept_by_scim() {
    let s = server();
    let t = tenant(s);
    let scim_token = s.token(t.account, &["scim"]);
    let tpl = template(
        &t,
        json!({"name": "Acme", "layout": "minimal", "values": {"address": "Main St 1",
               "booking_url": "https://acme.example/book", "company": "Acme", "bio": "Hello"},
               "locked": ["address", "booking_url"], "default": true}),
    );
    let tid = format!("tpl_{}", tpl["id"]);
    let refused = |r: crate::harness::Resp, field: &str| {
        let e = r.assert_error(422);
        assert_eq!(
            e["errors"][field][0],
            format!(
                "The {} is set by the company template.",
                field.replace('_', " ")
            ),
            "{e}"
        );
    };
    // createCard: another value, or null, of a locked field.
    let card = |extra: Value| {
        let mut b = json!({"first_name": "Ada", "last_name": "L", "template_id": tid});
        b.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        b
    };
    refused(
        t.send(
            "POST",
            "/cards",
            &card(json!({"booking_url": "https://me.example"})),
        ),
        "booking_url",
    );
    refused(
        t.send("POST", "/cards", &card(json!({"address": null}))),
        "address",
    );
    // The same value, or left out: fine; unlocked values fill what the card leaves out.
    let same = t.card(card(json!({"address": " Main St 1 ", "bio": "Mine"})));
    assert_eq!(same["address"], "Main St 1");
    assert_eq!(same["booking_url"], "https://acme.example/book");
    assert_eq!(
        (&same["company"], &same["bio"]),
        (&json!("Acme"), &json!("Mine"))
    );
    let id = same["id"].as_i64().unwrap();
    // updateCard (PUT) and patchCard (PATCH).
    for method in ["PUT", "PATCH"] {
        refused(
            t.send(
                method,
                &format!("/cards/{id}"),
                &json!({"address": "Elsewhere"}),
            ),
            "address",
        );
        let r = t.send(
            method,
            &format!("/cards/{id}"),
            &json!({"address": "Main St 1", "bio": "B"}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = t.send(
        "PATCH",
        &format!("/cards/{id}"),
        &json!({"company": "Not Acme"}),
    );
    assert_eq!(r.json()["data"]["company"], "Not Acme", "unlocked");
    // The external-id upsert: made, then changed.
    let ext = |body: Value| t.send("PUT", "/cards/external/crm-7", &card(body));
    refused(ext(json!({"address": "Elsewhere"})), "address");
    assert_eq!(ext(json!({})).status, 201);
    refused(ext(json!({"booking_url": null})), "booking_url");
    assert_eq!(ext(json!({"bio": "upserted"})).status, 200);

    // SCIM: 400 mutability; a User without the attribute keeps the locked value; a
    // SCIM-made card gets the account's default template.
    let (status, e) = scim(
        s,
        &scim_token,
        "POST",
        "/Users",
        &user(
            "grace@acme.example",
            json!({"addresses": [{"formatted": "Elsewhere"}]}),
        ),
    );
    assert_eq!(status, 400, "{e}");
    assert_eq!(e["scimType"], "mutability", "{e}");
    let (status, u) = scim(
        s,
        &scim_token,
        "POST",
        "/Users",
        &user("grace@acme.example", json!({})),
    );
    assert_eq!(status, 201, "{u}");
    let uid = u["id"].as_str().unwrap().to_string();
    let got = t.get(&format!("/cards/{uid}")).json()["data"].clone();
    assert_eq!(got["template_id"], json!(tid));
    assert_eq!(got["address"], "Main St 1");
    assert_eq!(got["company"], "Acme");
    let (status, e) = scim(
        s,
        &scim_token,
        "PUT",
        &format!("/Users/{uid}"),
        &user(
            "grace@acme.example",
            json!({"addresses": [{"formatted": "Elsewhere"}]}),
        ),
    );
    assert_eq!((status, &e["scimType"]), (400, &json!("mutability")), "{e}");
    let (status, u) = scim(
        s,
        &scim_token,
        "PUT",
        &format!("/Users/{uid}"),
        &user("grace@acme.example", json!({"title": "Admiral"})),
    );
    assert_eq!(status, 200, "{u}");
    let got = t.get(&format!("/cards/{uid}")).json()["data"].clone();
    assert_eq!(
        (&got["address"], &got["job_title"]),
        (&json!("Main St 1"), &json!("Admiral"))
    );
    let (status, e) = scim(
        s,
        &scim_token,
        "PATCH",
        &format!("/Users/{uid}"),
        &json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "replace", "path": "addresses", "value": [{"formatted": "Elsewhere"}]}]}),
    );
    assert_eq!((status, &e["scimType"]), (400, &json!("mutability")), "{e}");

    // Defaults: no template_id key takes the default; an explicit null takes none.
    let d = t.card(json!({"first_name": "D", "last_name": "F"}));
    assert_eq!(
        (&d["template_id"], &d["address"]),
        (&json!(tid), &json!("Main St 1"))
    );
    let n = t.card(json!({"first_name": "N", "last_name": "F", "template_id": null}));
    assert_eq!(
        (&n["template_id"], &n["address"]),
        (&Value::Null, &Value::Null)
    );
    // Given the template by a write: empty fields filled, its own values kept.
    let own =
        t.card(json!({"first_name": "O", "last_name": "F", "template_id": null, "company": "Own"}));
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", own["id"]),
        &json!({"template_id": tid}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let j = r.json()["data"].clone();
    assert_eq!(
        (&j["company"], &j["bio"], &j["address"]),
        (&json!("Own"), &json!("Hello"), &json!("Main St 1"))
    );
    // The page is drawn in the template's layout.
    let page = s.call(
        "GET",
        &format!("/c/{}", j["slug"].as_str().unwrap()),
        None,
        None,
    );
    assert_eq!(page.status, 200);
    assert!(page.body.contains("t-minimal"), "the template's layout");
    // So is its email signature (teams.md 2): minimal has no classic side rule, which a
    // card without a template (classic) has.
    let signature = |card: &Value| {
        let r = t.get(&format!("/cards/{}/signature", card["id"]));
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["data"]["html"].as_str().unwrap().to_string()
    };
    assert!(signature(&n).contains("border-left:3px solid"), "classic");
    assert!(
        !signature(&j).contains("border-left:3px solid"),
        "the template's layout (minimal), not classic"
    );
    // Leaving: values kept, now unlocked.
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", own["id"]),
        &json!({"template_id": "modern"}),
    );
    assert_eq!(r.json()["data"]["address"], "Main St 1");
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", own["id"]),
        &json!({"address": "Elsewhere"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Another account's template id is a layout name as any other value: no template.
    let other = template(
        &tenant(s),
        json!({"name": "X", "layout": "modern", "values": {"address": "X"}, "locked": ["address"]}),
    );
    let x = t.card(json!({"first_name": "X", "last_name": "Y", "template_id": format!("tpl_{}", other["id"]), "address": "Mine"}));
    assert_eq!(x["address"], "Mine");
}

/// The feed's position now (the cursor after every event so far).
fn cursor_now(t: &Tenant) -> String {
    let mut after = String::new();
    loop {
        let q = if after.is_empty() {
            String::new()
        } else {
            format!("&after={after}")
        };
        let r = t.get(&format!("/events?limit=100{q}")).json();
        after = r["meta"]["next_cursor"].as_str().unwrap().to_string();
        if r["meta"]["has_more"] != true {
            return after;
        }
    }
}

/// The ids of the cards of every card.updated event after `after`, in order.
fn updated_after(t: &Tenant, mut after: String) -> Vec<i64> {
    let mut ids = vec![];
    loop {
        let r = t
            .get(&format!(
                "/events?limit=100&types=card.updated&after={after}"
            ))
            .json();
        for e in r["data"].as_array().unwrap() {
            ids.push(e["data"]["object"]["id"].as_i64().unwrap());
        }
        after = r["meta"]["next_cursor"].as_str().unwrap().to_string();
        if r["meta"]["has_more"] != true {
            return ids;
        }
    }
}

fn pending(s: &Server, token: &str, id: i64) -> i64 {
    let r = s.call("GET", &format!("/api/v1/templates/{id}"), Some(token), None);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["data"]["pending"].as_i64().unwrap()
}

#[test]
fn a_change_of_a_thousand_cards_survives_a_restart_and_writes_each_once() {
    use std::time::{Duration, Instant};
    const CARDS: usize = 1000;
    let vars = [
        ("ADMIN_TOKEN", ADMIN_TOKEN),
        ("RATE_LIMIT_PER_MINUTE", "100000"),
    ];
    let mut s = Server::start("teams-sync", &vars);
    let account = s.account("enterprise", json!({}));
    let token = s.token(account, &["cards:write", "templates:write"]);
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let tpl = template(
        &t,
        json!({"name": "Acme", "layout": "classic", "values": {"address": "Main St 1"},
               "locked": ["address"], "default": true}),
    );
    let id = tpl["id"].as_i64().unwrap();
    // 1,000 cards of the default template, 8 at a time.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let made = std::sync::Mutex::new(vec![]);
    let base = s.base.clone();
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= CARDS {
                    return;
                }
                let body = json!({"first_name": "Card", "last_name": format!("{i}")}).to_string();
                let r = call(
                    "POST",
                    &format!("{base}/api/v1/cards"),
                    Some(&token),
                    Some(&body),
                    &[],
                );
                assert_eq!(r.status, 201, "{}", r.body);
                made.lock()
                    .unwrap()
                    .push(r.json()["data"]["id"].as_i64().unwrap());
            });
        }
    });
    let mut made = made.into_inner().unwrap();
    made.sort();
    // Every card's address, read through the list.
    let addresses = |t: &Tenant| -> Vec<String> {
        (1..=10)
            .flat_map(|page| {
                let r = t.get(&format!("/cards?per_page=100&page={page}")).json();
                let cards = r["data"].as_array().cloned().unwrap_or_default();
                cards
                    .iter()
                    .map(|c| c["address"].as_str().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let a = t.get(&format!("/templates/{id}")).json()["data"].clone();
    assert_eq!(
        (a["cards"].as_i64(), a["pending"].as_i64()),
        (Some(CARDS as i64), Some(0))
    );

    // A change of the locked address: the answer already counts every card pending; it
    // only falls, to 0, within 10 s. Card writes racing the change (the 20 highest ids,
    // brought in line last) still end with the locked value.
    let racing: Vec<i64> = made[CARDS - 20..].to_vec();
    let before = cursor_now(&t);
    let started = Instant::now();
    let r = t.send(
        "PATCH",
        &format!("/templates/{id}"),
        &json!({"values": {"address": "Main St 2"}}),
    );
    assert_eq!(r.json()["data"]["pending"], CARDS as i64, "{}", r.body);
    let mut last = CARDS as i64;
    let mut took = Duration::ZERO;
    std::thread::scope(|scope| {
        scope.spawn(|| {
            for card in &racing {
                let body = json!({"bio": "racing"}).to_string();
                let url = format!("{base}/api/v1/cards/{card}");
                let r = call("PATCH", &url, Some(&token), Some(&body), &[]);
                assert_eq!(r.status, 200, "{}", r.body);
            }
        });
        while last > 0 {
            let now = pending(&s, &token, id);
            assert!(now <= last, "pending only falls: {last} then {now}");
            last = now;
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{last} still pending"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        took = started.elapsed();
    });
    eprintln!(
        "[teams] {CARDS} cards brought in line in {} ms",
        took.as_millis()
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    // The racing writes are events of their own; every other card has exactly one.
    let seen = updated_after(&t, before);
    for card in &made {
        let n = seen.iter().filter(|c| *c == card).count();
        match racing.contains(card) {
            true => assert!(n >= 1, "card {card}"),
            false => assert_eq!(n, 1, "card {card}: each card once"),
        }
    }
    assert!(addresses(&t).iter().all(|a| a == "Main St 2"));
    // Cards already in line get no event: a change of the layout alone writes none.
    let before = cursor_now(&t);
    t.send(
        "PATCH",
        &format!("/templates/{id}"),
        &json!({"layout": "modern"}),
    )
    .json();
    while pending(&s, &token, id) > 0 {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(updated_after(&t, before).is_empty());

    // Again, with the runtime killed in the middle: nothing missed, nothing twice. A
    // change that ended before the first look (a busy machine) is followed by another.
    let (mut before, mut last, mut address) = (String::new(), 0, String::new());
    for attempt in 0..5 {
        address = format!("Main St 3-{attempt}");
        before = cursor_now(&t);
        let r = t.send(
            "PATCH",
            &format!("/templates/{id}"),
            &json!({"values": {"address": address}}),
        );
        assert_eq!(r.json()["data"]["pending"], CARDS as i64);
        last = CARDS as i64;
        while last == CARDS as i64 {
            last = pending(&s, &token, id);
            std::thread::sleep(Duration::from_millis(5));
        }
        if last > 0 {
            break;
        }
    }
    drop(t);
    s.kill();
    eprintln!("[teams] killed with {last} of {CARDS} pending");
    assert!(
        last > 0,
        "every change ended before the kill: no restart tested"
    );
    s = s.relaunch("teams-sync-2");
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let started = Instant::now();
    let mut woken = false;
    loop {
        let now = pending(&s, &token, id);
        assert!(now <= last, "pending only falls: {last} then {now}");
        last = now;
        if last == 0 {
            break;
        }
        // A lost alarm is found by the every-minute cron.
        if !woken && started.elapsed() > Duration::from_secs(5) {
            eprintln!("[teams] {last} pending 5 s after the restart: the cron wakes the syncer");
            s.cron("* * * * *");
            woken = true;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{last} still pending"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!(
        "[teams] in line {} ms after the restart",
        started.elapsed().as_millis()
    );
    let mut seen = updated_after(&t, before);
    seen.sort();
    assert_eq!(seen, made, "each card once, none missed");
    assert!(addresses(&t).iter().all(|a| *a == address));
}

#[test]
fn a_deleted_templates_cards_keep_their_values_and_leave_it() {
    let s = server();
    let t = tenant(s);
    let tpl = template(
        &t,
        json!({"name": "Gone", "layout": "modern", "values": {"address": "Main St 1"},
               "locked": ["address"]}),
    );
    let id = tpl["id"].as_i64().unwrap();
    let cards: Vec<i64> = (0..3)
        .map(|i| {
            t.card(json!({"first_name": "C", "last_name": format!("{i}"), "template_id": format!("tpl_{id}")}))
                ["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    let before = cursor_now(&t);
    let r = t.send("DELETE", &format!("/templates/{id}"), &json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    t.get(&format!("/templates/{id}")).assert_error(404);
    let started = std::time::Instant::now();
    for card in &cards {
        loop {
            let c = t.get(&format!("/cards/{card}")).json()["data"].clone();
            if c["template_id"].is_null() {
                assert_eq!(c["address"], "Main St 1");
                break;
            }
            assert!(started.elapsed().as_secs() < 20, "{c}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let mut seen = updated_after(&t, before);
    seen.sort();
    assert_eq!(seen, cards, "one card.updated a card");
    // Unlocked now.
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", cards[0]),
        &json!({"address": "Elsewhere"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}
