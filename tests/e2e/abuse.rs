//! extensions.md 5: a public surface that cannot be abused, and plans that bite at once.
//! Distinct `CF-Connecting-IP` values act as distinct visitors, as the edge sets it.

use std::path::Path;
use std::process::Command;

use cardapi::domain::validation::Rule;
use cardapi::public::i18n::{form_error, strings, Text};
use serde_json::{json, Value};

use crate::harness::{call, post_lead, server, Lead, Resp, Server, Tenant, ADMIN_TOKEN, BROWSER};

fn get(s: &Server, path: &str) -> Resp {
    call(
        "GET",
        &format!("{}{path}", s.base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    )
}

fn lead_card(t: &Tenant, extra: Value) -> (i64, String) {
    let mut body = json!({"first_name": "Lead", "last_name": "Magnet", "show_lead_form": true});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    let c = t.card(body);
    (
        c["id"].as_i64().unwrap(),
        c["slug"].as_str().unwrap().to_string(),
    )
}

fn stored(t: &Tenant, card: i64) -> i64 {
    t.get(&format!("/leads?card_id={card}")).json()["meta"]["total"]
        .as_i64()
        .unwrap()
}

fn retry_after(r: &Resp) -> u64 {
    r.header("retry-after")
        .expect("Retry-After")
        .parse()
        .expect("seconds")
}

#[test]
fn one_visitor_stores_five_leads_an_hour_per_card() {
    let s = server();
    let t = s.tenant(&["cards:write", "leads:read"]);
    let (id, slug) = lead_card(&t, json!({"language": "de"}));
    let lead = json!({"name": "Flood", "email": "flood@example.com", "message": "x".repeat(4000)});
    let mut created = 0;
    let mut refused = 0;
    for _ in 0..50 {
        let r = post_lead(s, &slug, Some("203.0.113.7"), Lead::Json(&lead), &[]);
        match r.status {
            201 => created += 1,
            429 => {
                refused += 1;
                let body = r.assert_error(429);
                let wait = retry_after(&r);
                assert_eq!(body["retry_after"], json!(wait));
                assert!((3_000..=3_600).contains(&wait), "about an hour: {wait}");
            }
            other => panic!("unexpected {other}: {}", r.body),
        }
    }
    assert_eq!((created, refused), (5, 45));
    assert_eq!(stored(&t, id), 5, "nothing stored for a refused post");
    // A form post of the same visitor is refused with a page in the card's language.
    let r = post_lead(
        s,
        &slug,
        Some("203.0.113.7"),
        Lead::Form("name=Flood&email=flood%40example.com"),
        &[],
    );
    assert_eq!(r.status, 429, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    assert!(
        r.body.contains(strings("de").get(Text::TooMany)),
        "{}",
        r.body
    );
    assert!(retry_after(&r) > 0);
    // Another visitor, and the same visitor on another card, are not affected.
    assert_eq!(
        post_lead(s, &slug, Some("203.0.113.8"), Lead::Json(&lead), &[]).status,
        201
    );
    let (other, other_slug) = lead_card(&t, json!({}));
    assert_eq!(
        post_lead(s, &other_slug, Some("203.0.113.7"), Lead::Json(&lead), &[]).status,
        201
    );
    assert_eq!((stored(&t, id), stored(&t, other)), (6, 1));
}

#[test]
fn a_card_takes_at_most_its_daily_leads() {
    let s = Server::start(
        "daily-leads",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("LEADS_PER_CARD_PER_DAY", "3"),
        ],
    );
    let t = s.tenant(&["cards:write", "leads:read"]);
    let (id, slug) = lead_card(&t, json!({}));
    let lead = json!({"name": "Visitor", "email": "v@example.com"});
    let statuses: Vec<u16> = (1..=5)
        .map(|i| {
            post_lead(
                &s,
                &slug,
                Some(&format!("198.51.100.{i}")),
                Lead::Json(&lead),
                &[],
            )
            .status
        })
        .collect();
    assert_eq!(
        statuses,
        [201, 201, 201, 429, 429],
        "distinct visitors, one card"
    );
    assert_eq!(stored(&t, id), 3);
    let r = post_lead(&s, &slug, Some("198.51.100.9"), Lead::Json(&lead), &[]);
    assert!(
        (1..=86_400).contains(&retry_after(&r)),
        "until the next UTC day"
    );
    s.stop();
}

#[test]
fn cross_site_and_text_plain_posts_store_nothing() {
    let s = server();
    let t = s.tenant(&["cards:write", "leads:read"]);
    let (id, slug) = lead_card(&t, json!({}));
    let form = "name=Csrf&email=csrf%40example.com";
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.10"),
        Lead::Form(form),
        &[("Origin", "https://evil.example")],
    );
    r.assert_error(403);
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.10"),
        Lead::Form(form),
        &[("Sec-Fetch-Site", "cross-site")],
    );
    r.assert_error(403);
    post_lead(
        s,
        &slug,
        Some("192.0.2.10"),
        Lead::Typed("text/plain", form),
        &[],
    )
    .assert_error(415);
    assert_eq!(stored(&t, id), 0);
    // The card's own page may post.
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.10"),
        Lead::Form(form),
        &[("Origin", &s.base), ("Sec-Fetch-Site", "same-origin")],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(stored(&t, id), 1);
}

#[test]
fn get_card_embeds_the_100_newest_leads() {
    let s = server();
    let t = s.tenant(&["cards:write", "leads:read"]);
    let (id, slug) = lead_card(&t, json!({}));
    for i in 0..105 {
        let ip = format!("100.64.{}.{}", i / 5, i % 5);
        let r = post_lead(
            s,
            &slug,
            Some(&ip),
            Lead::Json(&json!({"name": format!("Lead {i}"), "email": "l@example.com"})),
            &[],
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let card = t.get(&format!("/cards/{id}")).json()["data"].clone();
    let leads = card["leads"].as_array().unwrap();
    assert_eq!(leads.len(), 100);
    assert_eq!(leads[0]["name"], "Lead 104", "newest first");
    assert_eq!(leads[99]["name"], "Lead 5");
    assert_eq!(stored(&t, id), 105, "listLeads pages all of them");
}

#[test]
fn plans_bite_at_once_and_upgrades_restore() {
    let s = server();
    let t = s.tenant(&["cards:write", "leads:read"]);
    let (id, slug) = lead_card(
        &t,
        json!({"show_branding": false, "video_url": "https://video.example/1"}),
    );
    let lead = json!({"name": "A", "email": "a@example.com"});
    let page = get(s, &format!("/c/{slug}")).body;
    assert!(page.contains("<form") && !page.contains("<footer>"));
    // Downgrade every gated feature, keeping API access.
    let downgrade = json!({"features": {"lead_form": false, "white_label": false,
                                        "advanced_analytics": false}});
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{}", t.account),
        Some(downgrade),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = get(s, &format!("/c/{slug}")).body;
    assert!(!page.contains("<form"), "no lead form");
    assert!(page.contains("<footer>"), "branding shows");
    assert!(!page.contains("/go/video"), "no video");
    assert_eq!(get(s, &format!("/c/{slug}/go/video")).status, 404);
    post_lead(s, &slug, Some("192.0.2.20"), Lead::Json(&lead), &[]).assert_error(404);
    assert_eq!(stored(&t, id), 0);
    let card = t.get(&format!("/cards/{id}")).json()["data"].clone();
    assert_eq!(card["show_lead_form"], false);
    assert_eq!(card["show_branding"], true);
    assert_eq!(card["video_url"], Value::Null);
    let listed = t.get("/cards").json()["data"][0].clone();
    assert_eq!(
        (&listed["show_lead_form"], &listed["video_url"]),
        (&json!(false), &Value::Null)
    );
    // Back to the plan's features: the stored values return.
    let reset = json!({"features": {"lead_form": null, "white_label": null,
                                    "advanced_analytics": null}});
    assert_eq!(
        s.admin("PATCH", &format!("/accounts/{}", t.account), Some(reset))
            .status,
        200
    );
    let card = t.get(&format!("/cards/{id}")).json()["data"].clone();
    assert_eq!(card["show_lead_form"], true);
    assert_eq!(card["show_branding"], false);
    assert_eq!(card["video_url"], "https://video.example/1");
    assert_eq!(
        post_lead(s, &slug, Some("192.0.2.20"), Lead::Json(&lead), &[]).status,
        201
    );
}

/// Files of one Durable Object class in a server's local state.
fn object_files(s: &Server, class: &str) -> usize {
    let dir = s
        .state
        .join("v3/do")
        .join(format!("digital-business-card-api-{class}"));
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "sqlite"))
                .filter(|e| e.file_name() != "metadata.sqlite")
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn forged_tokens_are_refused_before_any_storage() {
    let s = Server::start("forged-tokens", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let t = s.tenant(&["cards:read"]);
    assert_eq!(t.get("/cards").status, 200);
    // A real token's request creates its object: the count below can see objects appear.
    let before = object_files(&s, "RateLimiter");
    assert!(before >= 1, "the real token's object is on disk");
    let real = &t.token;
    let body = &real[4..68];
    for i in 0..200u32 {
        let forged = match i % 3 {
            // The old format, without a checksum.
            0 => format!("dbc_{i:064x}"),
            // A real token's random part with a wrong checksum.
            1 => format!("dbc_{body}{i:016x}"),
            // Another random part with the real token's checksum.
            _ => format!("dbc_{i:064x}{}", &real[68..]),
        };
        let r = s.call("GET", "/api/v1/cards", Some(&forged), None);
        assert_eq!(r.assert_error(401), json!({"message": "Unauthenticated."}));
        assert_eq!(
            r.header("x-ratelimit-limit"),
            None,
            "never reached the gate"
        );
    }
    assert_eq!(
        object_files(&s, "RateLimiter"),
        before,
        "no object per forged token"
    );
    assert_eq!(t.get("/cards").status, 200, "the real token still works");
    s.stop();
}

#[test]
fn admin_token_guessing_is_throttled_per_address() {
    let s = server();
    let guess = |ip: &str, token: &str| {
        call(
            "GET",
            &format!("{}/admin/v1/accounts/1", s.base),
            Some(token),
            None,
            &[("CF-Connecting-IP", ip)],
        )
    };
    for i in 0..10 {
        guess("192.0.2.99", &format!("guess-{i}")).assert_error(401);
    }
    let r = guess("192.0.2.99", "guess-10");
    r.assert_error(429);
    assert!((1..=60).contains(&retry_after(&r)));
    // Once the address is throttled even the right token learns nothing from it...
    guess("192.0.2.99", ADMIN_TOKEN).assert_error(429);
    // ...while other addresses are served.
    let r = guess("192.0.2.100", ADMIN_TOKEN);
    assert_ne!(r.status, 429, "{}", r.body);
    assert_ne!(r.status, 401, "{}", r.body);
}

#[test]
fn make_dev_writes_a_random_admin_token() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut tokens = Vec::new();
    for n in 0..2 {
        let dir = root.join(format!("target/e2e/dev-vars-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["Makefile", ".dev.vars.example"] {
            std::fs::copy(root.join(f), dir.join(f)).unwrap();
        }
        let out = Command::new("make")
            .args(["-s", ".dev.vars"])
            .current_dir(&dir)
            .output()
            .expect("make");
        assert!(out.status.success(), "{out:?}");
        let vars = std::fs::read_to_string(dir.join(".dev.vars")).unwrap();
        for name in ["ADMIN_TOKEN", "VISITOR_SALT", "TOKEN_PEPPER"] {
            let value = vars
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .unwrap_or_else(|| panic!("{name} in {vars}"));
            assert_eq!(value.len(), 64, "{name}={value}");
            assert!(
                value.bytes().all(|b| b.is_ascii_hexdigit()),
                "{name}={value}"
            );
        }
        tokens.push(vars);
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert_ne!(tokens[0], tokens[1], "a new value for every new .dev.vars");
}

#[test]
fn links_leave_as_ascii_uris_and_dead_links_are_not_shown() {
    let s = server();
    let t = s.tenant(&["cards:write"]);
    let c = t.card(json!({
        "first_name": "Link", "last_name": "Check",
        "email": "victim?bcc=attacker%40evil.example&x@example.com",
        "phone": "+49 (0) 711 123456-0",
        "website": "https://bücher.de/straße",
        "social_links": [
            {"platform": "whatsapp", "url": "+4930123456"},
            {"platform": "mastodon", "url": "@link@social.example"},
            {"platform": "skype", "url": "live:link"},
            {"platform": "discord", "url": "link#1234"},
            {"platform": "other", "url": "link"}
        ]
    }));
    let slug = c["slug"].as_str().unwrap();
    for (kind, target) in [
        (
            "email",
            "mailto:victim%3Fbcc%3Dattacker%2540evil.example%26x@example.com",
        ),
        ("phone", "tel:+497111234560"),
        ("website", "https://b%C3%BCcher.de/stra%C3%9Fe"),
        ("social_whatsapp", "https://wa.me/4930123456"),
        ("social_mastodon", "https://social.example/@link"),
    ] {
        let r = get(s, &format!("/c/{slug}/go/{kind}"));
        assert_eq!(r.status, 302, "{kind}");
        assert_eq!(r.header("location"), Some(target), "{kind}");
    }
    let page = get(s, &format!("/c/{slug}")).body;
    for shown in ["social_whatsapp", "social_mastodon"] {
        assert!(page.contains(&format!("/go/{shown}\"")), "{shown} shown");
    }
    for kind in ["social_skype", "social_discord", "social_other"] {
        assert!(!page.contains(&format!("/go/{kind}\"")), "{kind} not shown");
        assert_eq!(
            get(s, &format!("/c/{slug}/go/{kind}")).status,
            404,
            "{kind}"
        );
    }
}

#[test]
fn form_errors_speak_the_pages_language() {
    let s = server();
    let t = s.tenant(&["cards:write"]);
    let (_, slug) = lead_card(&t, json!({"language": "de"}));
    let r = post_lead(
        s,
        &slug,
        Some("192.0.2.30"),
        Lead::Form("name=&email=kaputt"),
        &[],
    );
    assert_eq!(r.status, 422, "{}", r.body);
    let de = strings("de");
    let required = form_error("de", Rule::Required, de.get(Text::Name)).unwrap();
    let email = form_error("de", Rule::Email, de.get(Text::Email)).unwrap();
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('\'', "&#39;")
    };
    assert!(
        r.body.contains(&escape(&required)),
        "{required}\n{}",
        r.body
    );
    assert!(r.body.contains(&escape(&email)), "{email}");
    assert!(!r.body.contains("field is required"), "no English left");
    assert!(r.body.contains(de.get(Text::FixErrors)));
}
