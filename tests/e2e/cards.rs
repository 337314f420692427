//! Cards API (spec 2.1, 4.2 - 4.5, 8; product.md 1 and 2).

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::harness::{call, server, Resp, Tenant, ALL_SCOPES};

const STRING_OR_NULL: [&str; 18] = [
    "external_id",
    "job_title",
    "company",
    "bio",
    "email",
    "phone",
    "website",
    "booking_url",
    "video_url",
    "address",
    "tagline",
    "company_registration",
    "vat_id",
    "template_id",
    "card_type",
    "seo_title",
    "seo_description",
    "published_at",
];

/// Every field of spec 2.1 with its JSON type.
fn assert_card_shape(c: &Value) {
    assert!(c["id"].is_i64(), "{c}");
    for f in [
        "slug",
        "title",
        "first_name",
        "last_name",
        "status",
        "language",
        "public_url",
        "created_at",
        "updated_at",
    ] {
        assert!(c[f].is_string(), "{f}: {c}");
    }
    for f in STRING_OR_NULL.iter().chain(&["expires_at"]) {
        assert!(
            c.get(*f).is_some_and(|v| v.is_string() || v.is_null()),
            "{f}: {c}"
        );
    }
    for f in [
        "is_public",
        "is_password_protected",
        "show_branding",
        "show_lead_form",
        "seo_indexable",
    ] {
        assert!(c[f].is_boolean(), "{f}: {c}");
    }
    assert!(c["social_links"].is_array());
    assert!(c["available_languages"].is_array());
    for f in ["design_config", "section_visibility", "translations"] {
        assert!(c[f].is_object(), "{f}: {c}");
    }
    assert_eq!(
        c.as_object().unwrap().len(),
        39,
        "exactly the fields of 2.1 and external_id (provisioning.md 1): {c}"
    );
}

fn writer() -> Tenant<'static> {
    server().tenant(&["cards:write"])
}

#[test]
fn create_returns_201_with_every_field_and_generated_values() {
    let t = writer();
    let r = t.send(
        "POST",
        "/cards",
        &json!({
            "first_name": "Jürgen", "last_name": "Groß", "job_title": "CTO", "company": "Acme",
            "bio": "Hi", "email": "j@acme.example", "phone": "+49 (30) 123-45", "website": "https://acme.example",
            "booking_url": "https://cal.example/j", "video_url": "https://video.example/v",
            "address": "Main St 1", "social_links": [{"platform": "linkedin", "url": "https://linkedin.com/in/j", "label": "LinkedIn"}],
            "design_config": {"color": "#000"}, "template_id": "classic", "is_public": true,
            "show_branding": false, "show_lead_form": true, "seo_title": "J", "seo_description": "D",
            "language": "de",
            "id": 999, "slug": "chosen", "title": "Chosen", "status": "archived", "tagline": "ignored",
            "translations": {"fr": {}}, "unknown": 1
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let v = r.json();
    assert!(v["message"].is_string());
    let c = &v["data"];
    assert_card_shape(c);
    assert!(c["slug"].as_str().unwrap().starts_with("jurgen-gross"));
    assert_eq!(c["title"], "Jürgen Groß");
    assert_ne!(c["id"], 999);
    assert_eq!(c["status"], "active");
    assert_eq!(c["language"], "de");
    assert_eq!(c["available_languages"], json!(["de"]));
    assert_eq!(c["translations"], json!({}));
    assert_eq!(c["tagline"], Value::Null);
    assert_eq!(c["published_at"], c["created_at"]);
    assert_eq!(c["created_at"], c["updated_at"]);
    assert_eq!(c["show_branding"], false);
    assert_eq!(c["video_url"], "https://video.example/v");
    assert_eq!(c["design_config"], json!({"color": "#000"}));
    assert_eq!(c["social_links"][0]["platform"], "linkedin");
    assert!(c["public_url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/c/{}", c["slug"].as_str().unwrap())));
}

#[test]
fn create_defaults() {
    let c = writer().card(json!({"first_name": "Ada", "last_name": "Lovelace"}));
    assert_card_shape(&c);
    assert_eq!(c["language"], "en");
    assert_eq!(c["status"], "active");
    assert_eq!(c["is_public"], true);
    assert_eq!(c["show_branding"], true);
    assert_eq!(c["social_links"], json!([]));
    assert_eq!(c["design_config"], json!({}));
    assert_eq!(c["email"], Value::Null);
}

#[test]
fn slugs_are_unique_and_never_change() {
    let t = writer();
    let name = format!("Slug{}", std::process::id());
    let a = t.card(json!({"first_name": name, "last_name": "Twin"}));
    let b = t.card(json!({"first_name": name, "last_name": "Twin"}));
    let base = format!("{}-twin", name.to_lowercase());
    assert_eq!(a["slug"], base);
    assert_eq!(b["slug"], format!("{base}-2"));
    // Another account shares the slug space.
    let c = writer().card(json!({"first_name": name, "last_name": "Twin"}));
    assert_eq!(c["slug"], format!("{base}-3"));
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", a["id"]),
        &json!({"first_name": "Other"}),
    );
    assert_eq!(r.json()["data"]["slug"], base);
    assert_eq!(
        r.json()["data"]["title"],
        a["title"],
        "title is set at create only"
    );
}

#[test]
fn concurrent_creates_get_distinct_slugs() {
    let t = writer();
    let name = format!("Race{}", std::process::id());
    let slugs: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..15)
            .map(|_| {
                s.spawn(|| {
                    t.card(json!({"first_name": name, "last_name": "Same"}))["slug"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let unique: HashSet<&String> = slugs.iter().collect();
    assert_eq!(unique.len(), 15, "{slugs:?}");
}

#[test]
fn required_fields_and_message_summary() {
    let t = writer();
    let v = t.send("POST", "/cards", &json!({})).assert_error(422);
    assert_eq!(
        v["message"],
        "The first name field is required. (and 1 more error)"
    );
    assert_eq!(
        v["errors"]["first_name"],
        json!(["The first name field is required."])
    );
    assert_eq!(
        v["errors"]["last_name"],
        json!(["The last name field is required."])
    );
    let v = t
        .send("POST", "/cards", &json!({"first_name": "A"}))
        .assert_error(422);
    assert_eq!(v["message"], "The last name field is required.");
}

#[test]
fn field_lengths_at_the_limit_pass_and_one_over_fails() {
    let t = writer();
    let limits = [
        ("first_name", 100),
        ("last_name", 100),
        ("job_title", 150),
        ("company", 150),
        ("bio", 1000),
        ("address", 500),
        ("template_id", 50),
        ("seo_title", 100),
        ("seo_description", 250),
    ];
    for (field, max) in limits {
        let mut body = json!({"first_name": "A", "last_name": "B"});
        body[field] = json!("ü".repeat(max));
        let r = t.send("POST", "/cards", &body);
        assert_eq!(r.status, 201, "{field} at {max}: {}", r.body);
        body[field] = json!("ü".repeat(max + 1));
        let v = t.send("POST", "/cards", &body).assert_error(422);
        assert!(v["errors"][field].is_array(), "{field}: {v}");
    }
    let url = |n: usize| format!("https://e.example/{}", "a".repeat(n - 18));
    for field in ["website", "booking_url", "video_url"] {
        let ok = t.send(
            "POST",
            "/cards",
            &json!({"first_name": "A", "last_name": "B", field: url(500)}),
        );
        assert_eq!(ok.status, 201, "{field}: {}", ok.body);
        let v = t
            .send(
                "POST",
                "/cards",
                &json!({"first_name": "A", "last_name": "B", field: url(501)}),
            )
            .assert_error(422);
        assert!(v["errors"][field].is_array());
    }
    let email = |n: usize| {
        format!(
            "{}@{}.{}.{}.example",
            "a".repeat(64),
            "b".repeat(60),
            "c".repeat(60),
            "d".repeat(n - 195)
        )
    };
    assert_eq!(email(255).len(), 255);
    assert_eq!(
        t.send(
            "POST",
            "/cards",
            &json!({"first_name": "A", "last_name": "B", "email": email(255)})
        )
        .status,
        201
    );
    t.send(
        "POST",
        "/cards",
        &json!({"first_name": "A", "last_name": "B", "email": email(256)}),
    )
    .assert_error(422);
    assert_eq!(
        t.send(
            "POST",
            "/cards",
            &json!({"first_name": "A", "last_name": "B", "phone": "1".repeat(50)})
        )
        .status,
        201
    );
    t.send(
        "POST",
        "/cards",
        &json!({"first_name": "A", "last_name": "B", "phone": "1".repeat(51)}),
    )
    .assert_error(422);
}

#[test]
fn formats_enums_and_types() {
    let t = writer();
    let c = t.card(json!({"first_name": "A", "last_name": "B"}));
    let path = format!("/cards/{}", c["id"]);
    let cases = [
        (
            json!({"email": "not-an-email"}),
            "email",
            "The email field must be a valid email address.",
        ),
        (
            json!({"phone": "call me"}),
            "phone",
            "The phone field format is invalid.",
        ),
        (
            json!({"website": "javascript:alert(1)"}),
            "website",
            "The website field must be a valid URL.",
        ),
        (
            json!({"booking_url": "example.com"}),
            "booking_url",
            "The booking url field must be a valid URL.",
        ),
        (
            json!({"language": null}),
            "language",
            "The language field must be a string.",
        ),
        (
            json!({"language": "xx"}),
            "language",
            "The selected language is invalid.",
        ),
        (
            json!({"status": "deleted"}),
            "status",
            "The selected status is invalid.",
        ),
        (
            json!({"is_public": "maybe"}),
            "is_public",
            "The is public field must be true or false.",
        ),
        (
            json!({"company": 42}),
            "company",
            "The company field must be a string.",
        ),
        (
            json!({"first_name": null}),
            "first_name",
            "The first name field must be a string.",
        ),
        (
            json!({"design_config": "x"}),
            "design_config",
            "The design config field must be an object.",
        ),
        (
            json!({"social_links": "x"}),
            "social_links",
            "The social links field must be an array.",
        ),
    ];
    for (body, field, message) in cases {
        for method in ["PUT", "PATCH"] {
            let v = t.send(method, &path, &body).assert_error(422);
            assert_eq!(v["errors"][field], json!([message]), "{method} {body}");
            assert_eq!(v["message"], message);
        }
    }
    // Explicit null language is rejected on create too.
    let v = t
        .send(
            "POST",
            "/cards",
            &json!({"first_name": "A", "last_name": "B", "language": null}),
        )
        .assert_error(422);
    assert!(v["errors"]["language"].is_array());
}

#[test]
fn social_links_validation_uses_dotted_keys() {
    let t = writer();
    let base = json!({"first_name": "A", "last_name": "B"});
    let with = |links: Value| {
        let mut b = base.clone();
        b["social_links"] = links;
        b
    };
    let twenty: Vec<Value> = (0..20)
        .map(|i| json!({"platform": "github", "url": format!("user{i}")}))
        .collect();
    assert_eq!(t.send("POST", "/cards", &with(json!(twenty))).status, 201);
    let mut twenty_one = twenty.clone();
    twenty_one.push(json!({"platform": "x", "url": "h"}));
    let v = t
        .send("POST", "/cards", &with(json!(twenty_one)))
        .assert_error(422);
    assert_eq!(
        v["errors"]["social_links"],
        json!(["The social links field must not have more than 20 items."])
    );

    let v = t
        .send("POST", "/cards", &with(json!([
            {"platform": "linkedin", "url": "https://linkedin.com/in/a"},
            {"platform": "myspace", "url": "a"},
            {"platform": "x", "url": "has space"},
            {"platform": "x", "url": format!("https://x.com/{}", "a".repeat(500)), "label": "l".repeat(101)},
            {"url": "a"}
        ])))
        .assert_error(422);
    let e = v["errors"].as_object().unwrap();
    assert_eq!(
        v["errors"]["social_links.1.platform"],
        json!(["The selected social links.1.platform is invalid."])
    );
    assert!(e.contains_key("social_links.2.url"));
    assert!(e.contains_key("social_links.3.url"));
    assert!(e.contains_key("social_links.3.label"));
    assert_eq!(
        v["errors"]["social_links.4.platform"],
        json!(["The social links.4.platform field is required."])
    );
    assert!(!e.contains_key("social_links.0.url"));
    let ok = t.card(with(
        json!([{"platform": "other", "url": "a".repeat(500), "label": "l".repeat(100)}]),
    ));
    assert_eq!(ok["social_links"][0]["label"], "l".repeat(100));
}

#[test]
fn put_and_patch_change_only_provided_fields() {
    let t = writer();
    let c = t.card(
        json!({"first_name": "Ada", "last_name": "Lovelace", "company": "Engines", "bio": "Math"}),
    );
    let path = format!("/cards/{}", c["id"]);
    let mut last_updated = c["updated_at"].as_str().unwrap().to_string();
    for (method, body) in [
        ("PATCH", json!({"company": "Analytical"})),
        ("PUT", json!({"bio": null})),
        ("PATCH", json!({})),
    ] {
        let r = t.send(method, &path, &body);
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json();
        assert!(v["message"].is_string());
        assert_card_shape(&v["data"]);
        let updated = v["data"]["updated_at"].as_str().unwrap().to_string();
        assert!(
            updated > last_updated,
            "updated_at moves on every update: {last_updated} -> {updated}"
        );
        last_updated = updated;
    }
    let got = t.get(&path).json()["data"].clone();
    assert_eq!(got["company"], "Analytical");
    assert_eq!(got["bio"], Value::Null);
    assert_eq!(got["first_name"], "Ada");
    assert_eq!(got["created_at"], c["created_at"]);
}

#[test]
fn status_moves_freely_and_null_keeps_it() {
    let t = writer();
    let c = t.card(json!({"first_name": "S", "last_name": "T"}));
    let path = format!("/cards/{}", c["id"]);
    for status in ["draft", "archived", "active", "archived", "draft"] {
        let r = t.send("PATCH", &path, &json!({"status": status}));
        assert_eq!(r.json()["data"]["status"], status);
    }
    let r = t.send("PUT", &path, &json!({"status": null, "job_title": "X"}));
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["data"]["status"], "draft");
    assert_eq!(r.json()["data"]["job_title"], "X");
}

#[test]
fn list_orders_by_update_and_paginates() {
    let t = writer();
    let ids: Vec<i64> = (0..5)
        .map(|i| {
            t.card(json!({"first_name": format!("P{i}"), "last_name": "L"}))["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    // Touch the first card: it becomes the most recently updated.
    assert_eq!(
        t.send("PATCH", &format!("/cards/{}", ids[0]), &json!({"bio": "x"}))
            .status,
        200
    );
    let v = t.get("/cards").json();
    let order: Vec<i64> = v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(order, vec![ids[0], ids[4], ids[3], ids[2], ids[1]]);
    assert_eq!(
        v["meta"],
        json!({"current_page": 1, "last_page": 1, "per_page": 15, "total": 5})
    );
    assert_card_shape(&v["data"][0]);
    assert!(v["data"][0].get("leads").is_none(), "leads only on getCard");

    let v = t.get("/cards?per_page=2&page=2").json();
    assert_eq!(
        v["meta"],
        json!({"current_page": 2, "last_page": 3, "per_page": 2, "total": 5})
    );
    assert_eq!(v["data"][0]["id"], ids[3]);
    assert_eq!(
        t.get("/cards?per_page=2&page=3").json()["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(t.get("/cards?per_page=2&page=9").json()["data"], json!([]));
    // Clamped, never an error.
    for (q, page, per_page) in [
        ("per_page=0", 1, 1),
        ("per_page=500", 1, 100),
        ("page=0", 1, 15),
        ("page=-3&per_page=abc", 1, 15),
        ("page=x", 1, 15),
        ("page=844333073163995264&per_page=100", 10_000_000, 100),
    ] {
        let r = t.get(&format!("/cards?{q}"));
        assert_eq!(r.status, 200, "{q}");
        let m = &r.json()["meta"];
        assert_eq!(
            (
                m["current_page"].as_i64().unwrap(),
                m["per_page"].as_i64().unwrap()
            ),
            (page, per_page),
            "{q}"
        );
    }
}

#[test]
fn get_card_includes_leads() {
    let t = writer();
    let c = t.card(json!({"first_name": "G", "last_name": "L"}));
    let r = t.get(&format!("/cards/{}", c["id"]));
    assert_eq!(r.status, 200);
    let v = r.json();
    assert!(v.get("meta").is_none() && v.get("message").is_none());
    assert_eq!(v["data"]["leads"], json!([]));
    let mut without = v["data"].clone();
    without.as_object_mut().unwrap().remove("leads");
    assert_card_shape(&without);
}

/// Reads hand long texts to wasm through the runtime's encoder (`js::long_text`): text in
/// every script, astral characters (two UTF-16 units, four UTF-8 bytes), escapes and long
/// fields come back byte for byte, and the read representations (the card, a page of
/// cards, the change feed's snapshot) equal the written one.
#[test]
fn reads_return_every_character_as_written() {
    let t = server().tenant(&ALL_SCOPES);
    let bio = format!(
        "Grüße aus Köln — 東京 · Ελλάδα · עברית 🎉😀 \"quoted\" back\\slash\ttab\nline {}",
        "€ŝ𝄞".repeat(150)
    );
    let made = t.card(json!({
        "first_name": "Zoë", "last_name": "Ørsted 🙂", "bio": bio, "company": "株式会社",
        "social_links": [{"platform": "x", "url": "https://x.example/😀", "label": "Ünïcödé"}],
        "design_config": {"accent": "·ł·"}
    }));
    assert_eq!(made["bio"], bio.as_str());
    let got = t.get(&format!("/cards/{}", made["id"]));
    assert_eq!(got.status, 200, "{}", got.body);
    let mut got = got.json()["data"].clone();
    assert_eq!(
        got.as_object_mut().unwrap().remove("leads"),
        Some(json!([]))
    );
    assert_eq!(got, made, "getCard reads what createCard wrote");
    let listed = t.get("/cards?per_page=100");
    assert_eq!(listed.status, 200, "{}", listed.body);
    let listed = listed.json()["data"].clone();
    let item = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == made["id"])
        .cloned();
    assert_eq!(
        item.as_ref(),
        Some(&made),
        "listCards reads what createCard wrote"
    );
    let feed = t.get("/events");
    assert_eq!(feed.status, 200, "{}", feed.body);
    assert_eq!(
        feed.json()["data"][0]["data"]["object"],
        made,
        "the event's snapshot is the card createCard returned"
    );
}

#[test]
fn other_accounts_cards_are_404_for_every_operation() {
    let owner = writer();
    let other = writer();
    let c = owner.card(json!({"first_name": "Mine", "last_name": "Only"}));
    let path = format!("/cards/{}", c["id"]);
    other.get(&path).assert_error(404);
    for method in ["PUT", "PATCH"] {
        assert_eq!(
            other
                .send(method, &path, &json!({"bio": "x"}))
                .assert_error(404),
            json!({"message": "Not found."})
        );
    }
    other.send("DELETE", &path, &json!({})).assert_error(404);
    assert_eq!(other.get("/cards").json()["meta"]["total"], 0);
    // Untouched for the owner.
    let mine = owner.get(&path).json()["data"].clone();
    assert_eq!(mine["bio"], Value::Null);
    owner.get("/cards/99999999").assert_error(404);
}

#[test]
fn delete_removes_the_card() {
    let t = writer();
    let c = t.card(json!({"first_name": "D", "last_name": "L"}));
    let path = format!("/cards/{}", c["id"]);
    let r = t.send("DELETE", &path, &json!({}));
    assert_eq!(r.status, 200);
    let v = r.json();
    assert!(v["message"].is_string() && v.get("data").is_none());
    t.get(&path).assert_error(404);
    t.send("DELETE", &path, &json!({})).assert_error(404);
}

#[test]
fn plan_gated_fields_are_coerced() {
    let s = server();
    let gated = json!({"first_name": "P", "last_name": "G", "video_url": "https://v.example/1",
                       "show_branding": false, "show_lead_form": true});
    // No advanced analytics, white label or lead form: coerced, never rejected.
    let account = s.account(
        "free",
        json!({"card_limit": 10, "features": {"api_access": true}}),
    );
    let t = Tenant {
        server: s,
        account,
        token: s.token(account, &["cards:write"]),
    };
    let c = t.card(gated.clone());
    assert_eq!(c["video_url"], Value::Null);
    assert_eq!(c["show_branding"], true);
    assert_eq!(c["show_lead_form"], false);
    let r = t.send("PATCH", &format!("/cards/{}", c["id"]), &gated);
    assert_eq!(r.status, 200);
    let u = r.json()["data"].clone();
    assert_eq!(
        (
            u["video_url"].clone(),
            u["show_branding"].clone(),
            u["show_lead_form"].clone()
        ),
        (Value::Null, json!(true), json!(false))
    );
    // Invalid values are still validated.
    t.send(
        "PATCH",
        &format!("/cards/{}", c["id"]),
        &json!({"video_url": "nope"}),
    )
    .assert_error(422);

    // With every feature the values are kept.
    let c = writer().card(gated);
    assert_eq!(c["video_url"], "https://v.example/1");
    assert_eq!(c["show_branding"], false);
    assert_eq!(c["show_lead_form"], true);
}

#[test]
fn card_limit_holds_under_concurrent_creates() {
    let s = server();
    let account = s.account("enterprise", json!({"card_limit": 20}));
    let t = Tenant {
        server: s,
        account,
        token: s.token(account, &["cards:write"]),
    };
    let statuses: Vec<u16> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..50)
            .map(|i| {
                let t = &t;
                sc.spawn(move || {
                    t.send(
                        "POST",
                        "/cards",
                        &json!({"first_name": "Limit", "last_name": format!("N{i}")}),
                    )
                    .status
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        20,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 403).count(),
        30,
        "{statuses:?}"
    );
    assert_eq!(t.get("/cards").json()["meta"]["total"], 20);
    let v = t
        .send(
            "POST",
            "/cards",
            &json!({"first_name": "One", "last_name": "More"}),
        )
        .assert_error(403);
    assert!(v["message"]
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("limit"));
    // Deleting one frees a slot.
    let first = t.get("/cards").json()["data"][0]["id"].clone();
    assert_eq!(
        t.send("DELETE", &format!("/cards/{first}"), &json!({}))
            .status,
        200
    );
    assert_eq!(
        t.send(
            "POST",
            "/cards",
            &json!({"first_name": "One", "last_name": "More"})
        )
        .status,
        201
    );
}

/// `POST /cards` with an `Idempotency-Key` and this exact body text.
fn create_with_key(t: &Tenant, key: &str, body: &str) -> Resp {
    call(
        "POST",
        &format!("{}/api/v1/cards", t.server.base),
        Some(&t.token),
        Some(body),
        &[
            ("Idempotency-Key", key),
            ("Content-Type", "application/json"),
        ],
    )
}

#[test]
fn a_created_card_is_where_location_says_and_a_replay_says_it_again() {
    let t = server().tenant(&ALL_SCOPES);
    let body = r#"{"first_name": "Lo", "last_name": "Cation"}"#;
    let first = create_with_key(&t, "located", body);
    assert_eq!(first.status, 201, "{}", first.body);
    let id = first.json()["data"]["id"].as_i64().unwrap();
    let location = format!("/api/v1/cards/{id}");
    assert_eq!(first.header("location"), Some(location.as_str()));
    let again = create_with_key(&t, "located", body);
    assert_eq!(
        (again.status, again.body.as_str()),
        (201, first.body.as_str())
    );
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.header("location"), Some(location.as_str()));
    let card = t.server.call("GET", &location, Some(&t.token), None);
    assert_eq!(card.status, 200, "{}", card.body);
    assert_eq!(card.json()["data"]["first_name"], "Lo");
    // Without a key too.
    let r = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "No", "last_name": "Key"}),
    );
    let id = r.json()["data"]["id"].as_i64().unwrap();
    assert_eq!(
        r.header("location"),
        Some(format!("/api/v1/cards/{id}").as_str())
    );
}

/// extensions.md 3 keeps every answer but 409, 429 and 5xx: a refused create is kept too,
/// whether the handler refused its fields or the body could not be read at all, and its
/// repeat gets it back byte for byte (the `request_id` in it names the first request).
#[test]
fn a_refused_write_is_kept_and_replayed_byte_for_byte() {
    let t = writer();
    let big = format!(r#"{{"first_name": "{}"}}"#, "x".repeat(300 * 1024));
    let cases = [
        (
            "missing-field",
            r#"{"first_name": "Only"}"#.to_string(),
            422,
        ),
        ("not-json", r#"{"first_name": "#.to_string(), 422),
        ("not-an-object", "[1, 2]".to_string(), 422),
        ("too-large", big, 413),
    ];
    for (key, body, status) in &cases {
        let first = create_with_key(&t, key, body);
        let v = first.assert_error(*status);
        assert_eq!(first.header("idempotent-replayed"), None, "{key}");
        let again = create_with_key(&t, key, body);
        assert_eq!(again.status, *status, "{key}: {}", again.body);
        assert_eq!(again.header("idempotent-replayed"), Some("true"), "{key}");
        assert_eq!(again.body, first.body, "{key}: byte for byte");
        assert_eq!(again.header("content-type"), Some("application/json"));
        // The body names the request that made the answer; the header names this one.
        let named: Value = serde_json::from_str(&again.body).unwrap();
        assert_eq!(named["request_id"].as_str(), first.header("x-request-id"));
        assert_ne!(again.header("x-request-id"), first.header("x-request-id"));
        assert_eq!(again.json()["message"], v["message"], "{key}");
        // Replays still carry what every answer does.
        assert!(again.header("server-timing").is_some(), "{key}");
        assert!(again.header("x-ratelimit-remaining").is_some(), "{key}");
    }
    // The key is spent on that request: another body under it, even a valid one, is a
    // mismatch, and nothing was created.
    let fixed = create_with_key(
        &t,
        "missing-field",
        r#"{"first_name": "A", "last_name": "B"}"#,
    );
    assert!(fixed.assert_error(422)["errors"]["Idempotency-Key"].is_array());
    let other = create_with_key(&t, "not-json", r#"{"first_name": "#);
    assert_eq!(
        other.header("idempotent-replayed"),
        Some("true"),
        "the same bytes"
    );
    let other = create_with_key(&t, "not-json", r#"{"first_name"#);
    assert!(other.assert_error(422)["errors"]["Idempotency-Key"].is_array());
    let list = server().call("GET", "/api/v1/cards", Some(&t.token), None);
    assert_eq!(list.json()["meta"]["total"], 0);
}

/// provisioning.md 1: `external_id` is written by create, update and patch, shown, unique
/// within an account (not across accounts), and `listCards` finds a card by it.
#[test]
fn external_ids_are_unique_within_an_account() {
    let t = server().tenant(&ALL_SCOPES);
    let made = t.card(json!({"first_name": "Ada", "last_name": "L", "external_id": " crm-1 "}));
    assert_eq!(made["external_id"], "crm-1", "trimmed like every text");
    // Shown in every card output: the feed's snapshot too.
    let feed = t.get("/events").json();
    let event = feed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["data"]["object"]["id"] == made["id"]);
    assert_eq!(
        event.unwrap()["data"]["object"]["external_id"],
        "crm-1",
        "{feed}"
    );
    let other = t.card(json!({"first_name": "Bob", "last_name": "M"}));
    assert_eq!(other["external_id"], Value::Null);
    assert_card_shape(&other);
    for (method, path) in [
        ("POST", "/cards".to_string()),
        ("PATCH", format!("/cards/{}", other["id"])),
        ("PUT", format!("/cards/{}", other["id"])),
    ] {
        let body = json!({"first_name": "Bob", "last_name": "M", "external_id": "crm-1"});
        let e = t.send(method, &path, &body).assert_error(422);
        assert_eq!(
            e["errors"]["external_id"][0], "The external id has already been taken.",
            "{method} {path}"
        );
    }
    for bad in [
        json!("é"),
        json!("x".repeat(256)),
        json!("tab\there"),
        json!(7),
    ] {
        let r = t.send(
            "PATCH",
            &format!("/cards/{}", other["id"]),
            &json!({"external_id": bad}),
        );
        assert!(
            r.assert_error(422)["errors"]["external_id"].is_array(),
            "{bad}"
        );
    }
    let ok = t.send(
        "PATCH",
        &format!("/cards/{}", other["id"]),
        &json!({"external_id": "x".repeat(255)}),
    );
    assert_eq!(ok.status, 200, "{}", ok.body);
    // Another account may use the same id.
    let u = server().tenant(&ALL_SCOPES);
    u.card(json!({"first_name": "Ada", "last_name": "L", "external_id": "crm-1"}));
    let found = t.get("/cards?external_id=crm-1").json();
    assert_eq!(found["meta"]["total"], 1, "{found}");
    assert_eq!(found["data"][0]["id"], made["id"]);
    assert_eq!(
        t.get("/cards?external_id=CRM-1").json()["meta"]["total"],
        0,
        "exact match"
    );
    // Cleared by null, then free again.
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", made["id"]),
        &json!({"external_id": null}),
    );
    assert_eq!(r.json()["data"]["external_id"], Value::Null);
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", other["id"]),
        &json!({"external_id": "crm-1"}),
    );
    assert_eq!(r.json()["data"]["external_id"], "crm-1");
}

/// provisioning.md 1 (issue 44): an external id is 1 to 255 characters or null, so an
/// empty string is a 422 on `external_id` in createCard, updateCard and patchCard, and
/// the card keeps its id (it was taken as null: the card silently lost it). The upsert's
/// body cannot clear it (the path's id wins); what reaches it is a path of blanks, no id
/// once trimmed (422, nothing made: it made a card without an id each time), and a padded
/// one, which names the trimmed id's card (it made the card, then answered 409).
#[test]
fn an_empty_external_id_is_422_and_clears_nothing() {
    let t = server().tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Ida", "last_name": "E", "external_id": "hr-7"}));
    let id = card["id"].clone();
    for empty in ["", "   "] {
        for (method, path) in [
            ("POST", "/cards".to_string()),
            ("PUT", format!("/cards/{id}")),
            ("PATCH", format!("/cards/{id}")),
        ] {
            let body = json!({"first_name": "Ida", "last_name": "E", "external_id": empty});
            let e = t.send(method, &path, &body).assert_error(422);
            assert_eq!(
                e["errors"]["external_id"],
                json!(["The external id field must be at least 1 characters."]),
                "{method} {path} {empty:?}: {e}"
            );
        }
    }
    let list = t.get("/cards").json();
    assert_eq!(list["meta"]["total"], 1, "nothing made: {list}");
    assert_eq!(list["data"][0]["external_id"], "hr-7", "nothing cleared");
    // null still clears it.
    let r = t.send(
        "PATCH",
        &format!("/cards/{id}"),
        &json!({"external_id": null}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["data"]["external_id"], Value::Null);

    let names = json!({"first_name": "Ula", "last_name": "P"});
    for blank in ["%20", "%20%20%20"] {
        let e = t
            .send("PUT", &format!("/cards/external/{blank}"), &names)
            .assert_error(422);
        assert!(e["errors"]["external_id"].is_array(), "{blank}: {e}");
    }
    assert_eq!(t.get("/cards").json()["meta"]["total"], 1, "no card made");
    let made = t.send("PUT", "/cards/external/%20hr-8%20", &names);
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.json()["data"]["external_id"], "hr-8");
    let again = t.send(
        "PUT",
        "/cards/external/%20hr-8",
        &json!({"job_title": "CTO"}),
    );
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json()["data"]["id"], made.json()["data"]["id"]);
    let plain = t.send("PUT", "/cards/external/hr-8", &json!({"bio": "Hi"}));
    assert_eq!(plain.status, 200, "{}", plain.body);
    assert_eq!(plain.json()["data"]["id"], made.json()["data"]["id"]);
    assert_eq!(t.get("/cards").json()["meta"]["total"], 2);
}

/// provisioning.md 1: `PUT /cards/external/{external_id}` makes the card of a new external
/// id (201, names required) and changes the existing one as patchCard (200); the path is
/// percent-decoded; an `Idempotency-Key` replays the first answer.
#[test]
fn upsert_by_external_id() {
    let t = server().tenant(&ALL_SCOPES);
    let path = "/cards/external/sf%2F003%20A+b";
    let e = t
        .send("PUT", path, &json!({"first_name": "Ada"}))
        .assert_error(422);
    assert!(e["errors"]["last_name"].is_array(), "{e}");
    let made = t.send(
        "PUT",
        path,
        &json!({"first_name": "Ada", "last_name": "L", "external_id": "ignored"}),
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let card = made.json()["data"].clone();
    assert_eq!(card["external_id"], "sf/003 A+b", "the path's, decoded");
    assert_eq!(
        made.header("location"),
        Some(format!("/api/v1/cards/{}", card["id"]).as_str())
    );
    assert_eq!(made.json()["message"], "Card created successfully.");
    let changed = t.send("PUT", path, &json!({"job_title": "CTO"}));
    assert_eq!(changed.status, 200, "{}", changed.body);
    let changed = changed.json();
    assert_eq!(
        (
            changed["data"]["id"].clone(),
            changed["data"]["job_title"].clone()
        ),
        (card["id"].clone(), json!("CTO"))
    );
    assert_eq!(
        changed["data"]["first_name"], "Ada",
        "fields not sent keep their values"
    );
    assert_eq!(changed["message"], "Card updated successfully.");
    let bad = t.send(
        "PUT",
        &format!("/cards/external/{}", "%C3%A9"),
        &json!({"first_name": "A", "last_name": "B"}),
    );
    assert!(bad.assert_error(422)["errors"]["external_id"].is_array());
    // A replay of a keyed upsert is the first answer, and makes nothing more.
    let key = [
        ("Idempotency-Key", "upsert-1"),
        ("Content-Type", "application/json"),
    ];
    let body = json!({"first_name": "Kay", "last_name": "D"}).to_string();
    let url = format!("{}/api/v1/cards/external/k-1", t.server.base);
    let first = call("PUT", &url, Some(&t.token), Some(&body), &key);
    let again = call("PUT", &url, Some(&t.token), Some(&body), &key);
    assert_eq!((first.status, again.status), (201, 201), "{}", again.body);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(t.get("/cards?external_id=k-1").json()["meta"]["total"], 1);
    // Another scope may not.
    let reader = server().token(t.account, &["cards:read"]);
    let r = server().call(
        "PUT",
        "/api/v1/cards/external/k-1",
        Some(&reader),
        Some(&body),
    );
    r.assert_error(403);
}
