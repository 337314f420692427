//! Spec 7 and 8: per-token rate limiting, and the published OpenAPI document.

use std::sync::OnceLock;

use serde_json::{json, Value};

use crate::harness::{call, server, Server, Tenant, ADMIN_TOKEN};

const SMALL: u32 = 5;

fn small_server() -> &'static Server {
    static S: OnceLock<Server> = OnceLock::new();
    S.get_or_init(|| {
        Server::start(
            "ratelimit",
            &[("ADMIN_TOKEN", ADMIN_TOKEN), ("RATE_LIMIT_PER_MINUTE", "5")],
        )
    })
}

fn remaining(r: &crate::harness::Resp) -> u32 {
    r.header("x-ratelimit-remaining")
        .expect("X-RateLimit-Remaining")
        .parse()
        .unwrap()
}

#[test]
fn over_the_limit_is_429_with_retry_after() {
    let t = small_server().tenant(&["cards:read"]);
    for expected in (0..SMALL).rev() {
        let r = t.get("/cards?per_page=1");
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.header("x-ratelimit-limit"), Some("5"));
        assert_eq!(remaining(&r), expected);
    }
    for _ in 0..3 {
        let r = t.get("/cards");
        let body = r.assert_error(429);
        let retry: u64 = r
            .header("retry-after")
            .expect("Retry-After")
            .parse()
            .unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        assert_eq!(body["retry_after"], json!(retry));
        assert_eq!(r.header("x-ratelimit-limit"), Some("5"));
        assert_eq!(remaining(&r), 0, "never negative");
        // A refused request is timed like any (extensions.md 6).
        let timing = r.header("server-timing").expect("Server-Timing");
        assert!(timing.starts_with("gate;dur="), "{timing}");
    }
}

/// extensions.md 6 (issue 44): every answer to an authenticated request carries
/// `X-D1-Bookmark`, a 429 too (and a 403, which runs no query either), though neither
/// ran a query: where the request's reads would have started. One the client sent comes
/// back as sent, and one answered is a bookmark D1 takes back.
#[test]
fn a_refused_request_still_carries_a_bookmark() {
    let bookmark = |r: &crate::harness::Resp| -> String {
        let b = r.header("x-d1-bookmark").unwrap_or_default();
        assert!(!b.is_empty(), "no X-D1-Bookmark: {r:?}");
        b.to_string()
    };
    // A token that never reached D1: refused by scope, then over its limit.
    let t = small_server().tenant(&["cards:read"]);
    for _ in 0..SMALL {
        let r = t.get("/leads");
        r.assert_error(403);
        bookmark(&r);
    }
    let mut answered = vec![];
    for _ in 0..3 {
        let r = t.get("/cards");
        r.assert_error(429);
        assert!(r.header("x-request-id").is_some() && r.header("retry-after").is_some());
        answered.push(bookmark(&r));
    }
    // A write over the limit too.
    let w = small_server().tenant(&["cards:write"]);
    for _ in 0..SMALL {
        assert_eq!(w.send("POST", "/cards", &json!({})).status, 422);
    }
    let r = w.send(
        "POST",
        "/cards",
        &json!({"first_name": "A", "last_name": "B"}),
    );
    r.assert_error(429);
    answered.push(bookmark(&r));
    // The client's own comes back as sent.
    let sent = answered[0].clone();
    let r = call(
        "GET",
        &format!("{}/api/v1/cards", t.server.base),
        Some(&t.token),
        None,
        &[("X-D1-Bookmark", &sent)],
    );
    r.assert_error(429);
    assert_eq!(bookmark(&r), sent);
    // Each is a bookmark a session starts at: another token of the account sends them.
    let reader = t.server.token(t.account, &["cards:read"]);
    for b in &answered {
        let r = call(
            "GET",
            &format!("{}/api/v1/cards", t.server.base),
            Some(&reader),
            None,
            &[("X-D1-Bookmark", b)],
        );
        assert_eq!(r.status, 200, "{b}: {}", r.body);
    }
}

#[test]
fn each_token_has_its_own_window() {
    let s = small_server();
    let first = s.tenant(&["cards:read"]);
    let second = Tenant {
        server: s,
        account: first.account,
        token: s.token(first.account, &["cards:read"]),
    };
    for _ in 0..SMALL {
        assert_eq!(first.get("/cards").status, 200);
    }
    first.get("/cards").assert_error(429);
    let r = second.get("/cards");
    assert_eq!(
        r.status, 200,
        "another token of the same account is unaffected"
    );
    assert_eq!(remaining(&r), SMALL - 1);
}

#[test]
fn error_responses_carry_the_headers_and_count() {
    let t = small_server().tenant(&["cards:read"]);
    let cases = [
        ("/cards/999999", 404),
        ("/leads", 403),
        ("/analytics/views", 403),
    ];
    for (i, (path, status)) in cases.iter().enumerate() {
        let r = t.get(path);
        assert_eq!(r.status, *status);
        assert_eq!(r.header("x-ratelimit-limit"), Some("5"));
        assert_eq!(remaining(&r), SMALL - 1 - i as u32);
    }
    let w = small_server().tenant(&["cards:write"]);
    let r = w.send("POST", "/cards", &json!({}));
    assert_eq!(r.status, 422);
    assert_eq!(remaining(&r), SMALL - 1);
}

#[test]
fn the_window_survives_a_restart_on_the_same_state() {
    // Its own server: stopping it must not disturb the other tests.
    let s = Server::start(
        "ratelimit-restart",
        &[("ADMIN_TOKEN", ADMIN_TOKEN), ("RATE_LIMIT_PER_MINUTE", "5")],
    );
    let t = s.tenant(&["cards:read"]);
    let (account, token) = (t.account, t.token.clone());
    for expected in [4, 3, 2] {
        assert_eq!(remaining(&t.get("/cards?per_page=1")), expected);
    }
    // A new workerd on the same --persist-to directory: every object starts cold and must
    // read its window back from Durable Object storage.
    let s = s.restart("ratelimit-restart-2");
    let t = Tenant {
        server: &s,
        account,
        token,
    };
    let r = t.get("/cards?per_page=1");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(remaining(&r), 1, "the count continues after the restart");
    assert_eq!(remaining(&t.get("/cards?per_page=1")), 0);
    t.get("/cards?per_page=1").assert_error(429);
    s.stop();
}

#[test]
fn default_limit_is_exact_under_concurrency() {
    let t = server().tenant(&["cards:read"]);
    let results: Vec<(u16, Option<u32>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..50)
            .map(|_| {
                let t = &t;
                s.spawn(move || {
                    (0..30)
                        .map(|_| {
                            let r = t.get("/cards?per_page=1");
                            (
                                r.status,
                                r.header("x-ratelimit-remaining")
                                    .and_then(|v| v.parse().ok()),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert_eq!(results.len(), 1500);
    let ok = results.iter().filter(|(s, _)| *s == 200).count();
    let limited = results.iter().filter(|(s, _)| *s == 429).count();
    assert_eq!((ok, limited), (1000, 500));
    assert!(
        results.iter().all(|(_, r)| r.is_some()),
        "headers on every response"
    );
    let mut seen: Vec<u32> = results
        .iter()
        .filter(|(s, _)| *s == 200)
        .filter_map(|(_, r)| *r)
        .collect();
    seen.sort_unstable();
    assert_eq!(
        seen,
        (0..1000).collect::<Vec<u32>>(),
        "each remaining value given out once"
    );
}

#[test]
fn openapi_document_is_published_without_auth() {
    let r = server().call("GET", "/api/v1/openapi.json", None, None);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1."));
    assert_eq!(doc["info"]["version"], "1.0.0");
    let mut ids: Vec<String> = Vec::new();
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            if let Some(id) = op.get("operationId").and_then(|v| v.as_str()) {
                ids.push(id.to_string());
            }
        }
    }
    ids.sort();
    assert_eq!(
        ids,
        [
            "analyticsClicks",
            "analyticsViews",
            "createCard",
            "createTemplate",
            "createWebhook",
            "deleteCard",
            "deleteLead",
            "deleteTemplate",
            "deleteWebhook",
            "eraseLeads",
            "getCard",
            "getCardSignature",
            "getEvent",
            "getLead",
            "getTemplate",
            "getWebhook",
            "listCards",
            "listDeliveries",
            "listEvents",
            "listLeads",
            "listTemplates",
            "listWebhooks",
            "patchCard",
            "redeliverEvent",
            "rotateWebhookSecret",
            "updateCard",
            "updateTemplate",
            "updateWebhook",
            "upsertCard"
        ]
    );
    // The payload a webhook receives, with its signature headers (OpenAPI 3.1 webhooks).
    let hook = &doc["webhooks"]["event"]["post"];
    assert_eq!(
        hook["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Event"
    );
    let headers: Vec<&str> = hook["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        headers,
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
    );
}

#[test]
fn openapi_document_is_the_repositorys_with_an_etag_304_head_and_cors() {
    let s = server();
    let r = s.call("GET", "/api/v1/openapi.json", None, None);
    assert_eq!(r.status, 200);
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(r.json(), file, "the served document is openapi.json");
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    let tag = r.header("etag").expect("an ETag").to_string();
    assert!(tag.starts_with('"') && tag.len() > 10, "{tag}");
    let again = call(
        "GET",
        &format!("{}/api/v1/openapi.json", s.base),
        None,
        None,
        &[("If-None-Match", &tag)],
    );
    assert_eq!(again.status, 304);
    assert_eq!(again.body, "");
    assert_eq!(again.header("etag"), Some(tag.as_str()));
    let stale = call(
        "GET",
        &format!("{}/api/v1/openapi.json", s.base),
        None,
        None,
        &[("If-None-Match", "\"other\"")],
    );
    assert_eq!(stale.status, 200);
    let head = s.call("HEAD", "/api/v1/openapi.json", None, None);
    assert_eq!(head.status, 200);
    assert_eq!(head.body, "");
    assert_eq!(head.header("content-type"), Some("application/json"));
    let post = s.call("POST", "/api/v1/openapi.json", None, Some("{}"));
    assert_eq!(post.status, 405);
    assert_eq!(
        post.header("allow"),
        Some("GET, HEAD"),
        "HEAD is served too"
    );
}
