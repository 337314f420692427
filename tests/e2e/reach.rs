//! extensions.md 6: D1 sessions with bookmarks, read-your-writes, Server-Timing and request
//! ids, ETags and 304s, the standard rate-limit headers, CORS.

use std::sync::atomic::{AtomicI64, Ordering};
use std::thread;

use serde_json::json;

use crate::harness::{call, server, Resp, Server, Tenant, ADMIN_TOKEN, ALL_SCOPES};

fn with(t: &Tenant, method: &str, path: &str, headers: &[(&str, &str)]) -> Resp {
    call(
        method,
        &format!("{}/api/v1{path}", t.server.base),
        Some(&t.token),
        None,
        headers,
    )
}

fn bookmark(r: &Resp) -> &str {
    let b = r.header("x-d1-bookmark").unwrap_or("");
    assert!(!b.is_empty(), "no X-D1-Bookmark: {r:?}");
    b
}

#[test]
fn every_api_answer_carries_a_bookmark_timing_and_a_request_id() {
    let t = server().tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Book", "last_name": "Mark"}));
    let id = card["id"].as_i64().unwrap();
    let created = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "A", "last_name": "B"}),
    );
    bookmark(&created);
    for path in [
        "/cards".to_string(),
        format!("/cards/{id}"),
        "/leads".into(),
        "/events".into(),
        "/analytics/views".into(),
    ] {
        let r = t.get(&path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        bookmark(&r);
        let timing = r.header("server-timing").expect("Server-Timing");
        for metric in ["gate;dur=", "db;dur=", "total;dur="] {
            assert!(timing.contains(metric), "{path}: {timing}");
        }
        assert!(r
            .header("x-request-id")
            .is_some_and(|v| v.starts_with("req_")));
    }
    let missing = t.get("/cards/999999999");
    missing.assert_error(404);
    bookmark(&missing);
    // Public pages and the operator API are named too.
    let page = call(
        "GET",
        &format!("{}/c/{}", t.server.base, card["slug"].as_str().unwrap()),
        None,
        None,
        &[],
    );
    assert!(page.header("x-request-id").is_some());
    let admin = t.server.admin("GET", "/accounts/999999999", None);
    admin.assert_error(404);
}

#[test]
fn a_bookmark_that_is_no_bookmark_still_answers() {
    let t = server().tenant(&ALL_SCOPES);
    t.card(json!({"first_name": "Bad", "last_name": "Mark"}));
    for garbage in ["garbage", "00000000-ffffffff-zzzz", "first-primary", "x"] {
        let r = with(&t, "GET", "/cards", &[("X-D1-Bookmark", garbage)]);
        assert_eq!(r.status, 200, "{garbage}: {}", r.body);
        assert_eq!(r.json()["meta"]["total"], 1);
        bookmark(&r);
    }
    // A real one, handed back as a client would.
    let first = t.get("/cards");
    let r = with(&t, "GET", "/cards", &[("X-D1-Bookmark", bookmark(&first))]);
    assert_eq!(r.status, 200);
}

#[test]
fn a_token_reads_its_own_writes_fifty_times_in_a_row() {
    let t = server().tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Read", "last_name": "Own"}));
    let path = format!("/cards/{}", card["id"]);
    for i in 0..50 {
        let bio = format!("version {i}");
        let r = t.send("PATCH", &path, &json!({"bio": bio}));
        assert_eq!(r.status, 200, "{}", r.body);
        // No header sent: the token's object hands the write's bookmark to the next read.
        let got = t.get(&path);
        assert_eq!(got.status, 200);
        assert_eq!(
            got.json()["data"]["bio"],
            bio.as_str(),
            "read {i} saw older data"
        );
    }
}

#[test]
fn two_concurrent_writers_of_one_token_read_every_answered_write() {
    let t = server().tenant(&ALL_SCOPES);
    let cards: Vec<String> = (0..2)
        .map(|w| {
            let card = t.card(json!({"first_name": format!("Writer{w}"), "last_name": "Two"}));
            format!("/cards/{}", card["id"])
        })
        .collect();
    // done[w]: the newest version of card w whose PATCH has been answered (-1: none yet).
    let done = [AtomicI64::new(-1), AtomicI64::new(-1)];
    let version = |r: &Resp| -> i64 {
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["data"]["bio"]
            .as_str()
            .and_then(|bio| bio.split_once(':'))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(-1)
    };
    thread::scope(|scope| {
        for w in 0..2 {
            let (t, cards, done) = (&t, &cards, &done);
            scope.spawn(move || {
                for i in 0..25 {
                    let bio = format!("{w}:{i}");
                    let r = t.send("PATCH", &cards[w], &json!({ "bio": bio }));
                    assert_eq!(r.status, 200, "{}", r.body);
                    done[w].store(i, Ordering::SeqCst);
                    // Both writers' cards, no header sent: each read begins after the
                    // answer of every version it is held to, this writer's or the other's.
                    for (c, path) in cards.iter().enumerate() {
                        let floor = done[c].load(Ordering::SeqCst);
                        let seen = version(&t.get(path));
                        assert!(
                            seen >= floor,
                            "writer {w}: card {c} read version {seen} after {floor} was answered"
                        );
                    }
                }
            });
        }
    });
}

/// What the token objects keep of their tokens' writes (`domain::own_writes`), read from
/// a copy of their SQLite files: per object with a write, (unsettled marks, bookmark).
fn own_writes(s: &Server) -> Vec<(usize, String)> {
    // One copy per server run (its port), never the files a server opens.
    let port = s.base.rsplit(':').next().unwrap_or_default();
    let copy = s.state.join(format!("own-writes-copy-{port}"));
    let _ = std::fs::remove_dir_all(&copy);
    std::fs::create_dir_all(&copy).unwrap();
    let mut kept = vec![];
    let dirs = std::fs::read_dir(s.state.join("v3/do")).unwrap();
    for dir in dirs
        .flatten()
        .filter(|d| d.file_name().to_string_lossy().ends_with("-RateLimiter"))
    {
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".sqlite") || name == "metadata.sqlite" {
                continue;
            }
            let db = copy.join(&name);
            std::fs::copy(file.path(), &db).unwrap();
            let wal = file.path().with_file_name(format!("{name}-wal"));
            if wal.exists() {
                std::fs::copy(&wal, copy.join(format!("{name}-wal"))).unwrap();
            }
            let conn = rusqlite::Connection::open(&db).unwrap();
            let state: Option<String> = conn
                .query_row("SELECT state FROM writes WHERE id = 1", [], |r| r.get(0))
                .ok();
            // `next_id;primary_until;marks;shard@since;bookmark`
            if let Some(state) = state {
                let parts: Vec<&str> = state.splitn(5, ';').collect();
                let marks = parts[2].split(',').filter(|m| !m.is_empty()).count();
                kept.push((marks, parts[4].to_string()));
            }
        }
    }
    kept
}

/// regions.md 5: the gate marks a write before it runs, and its bookmark reaches the
/// token's object with that isolate's next gate call. A write whose isolate goes away
/// first leaves its mark (the token's reads start at the primary until it expires), and
/// a later write's bookmark clears that write's own mark only.
#[test]
fn a_write_whose_isolate_goes_away_stays_marked_and_later_ones_settle() {
    // Its own server: it is stopped and restarted to lose the isolate.
    let s = Server::start("own-writes", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let t = s.tenant(&ALL_SCOPES);
    let (account, token) = (t.account, t.token.clone());
    let created = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "Lost", "last_name": "Mark"}),
    );
    assert_eq!(created.status, 201, "{}", created.body);
    let created_at = bookmark(&created).to_string();
    let path = format!("/cards/{}", created.json()["data"]["id"]);
    // Its check settles the create and marks this write; its own bookmark stays here.
    let lost = t.send("PATCH", &path, &json!({"bio": "lost"}));
    assert_eq!(lost.status, 200, "{}", lost.body);
    s.stop();
    assert_eq!(
        own_writes(&s),
        vec![(1, created_at)],
        "the PATCH's mark is stored"
    );
    let s = s.restart("own-writes-2");
    let t = Tenant {
        server: &s,
        account,
        token,
    };
    assert_eq!(t.get(&path).json()["data"]["bio"], "lost");
    let later = t.send("PATCH", &path, &json!({"bio": "later"}));
    assert_eq!(later.status, 200, "{}", later.body);
    let later_at = bookmark(&later).to_string();
    // This read's check carries the later write's bookmark.
    assert_eq!(t.get(&path).json()["data"]["bio"], "later");
    s.stop();
    assert_eq!(
        own_writes(&s),
        vec![(1, later_at)],
        "the lost write's mark stays (until it expires); the later one is settled"
    );
}

#[test]
fn a_revoked_token_is_refused_on_its_next_request_after_warm_ones() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    for _ in 0..5 {
        assert_eq!(t.get("/cards").status, 200);
    }
    let tokens = s.admin("GET", &format!("/accounts/{}/tokens", t.account), None);
    let token_id = tokens.json()["data"][0]["id"].as_i64().unwrap();
    let r = s.admin("DELETE", &format!("/tokens/{token_id}"), None);
    assert!(r.status == 200 || r.status == 204, "{}", r.body);
    let refused = t.get("/cards");
    refused.assert_error(401);
    assert!(
        refused.header("x-d1-bookmark").is_none(),
        "a refused request learns nothing"
    );
}

#[test]
fn named_gets_carry_strong_etags_and_answer_304() {
    let t = server().tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "E", "last_name": "Tag"}));
    let id = &card["id"];
    let paths = [
        "/cards".to_string(),
        format!("/cards/{id}"),
        "/leads".into(),
        format!("/events?limit=5"),
        "/analytics/views".into(),
        "/analytics/clicks".into(),
    ];
    for path in &paths {
        let first = t.get(path);
        assert_eq!(first.status, 200, "{path}");
        let tag = first.header("etag").expect("ETag").to_string();
        assert!(
            tag.starts_with('"') && !tag.starts_with("W/"),
            "strong: {tag}"
        );
        let again = with(&t, "GET", path, &[("If-None-Match", &tag)]);
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        assert_eq!(again.header("etag"), Some(tag.as_str()));
        // A 304 still counts against the rate limit.
        let before: u32 = first
            .header("x-ratelimit-remaining")
            .unwrap()
            .parse()
            .unwrap();
        let after: u32 = again
            .header("x-ratelimit-remaining")
            .unwrap()
            .parse()
            .unwrap();
        assert!(after < before, "{path}: {before} -> {after}");
        let other = with(&t, "GET", path, &[("If-None-Match", "\"stale\"")]);
        assert_eq!(other.status, 200);
    }
    // A change, a new tag.
    let tag = t
        .get(&format!("/cards/{id}"))
        .header("etag")
        .unwrap()
        .to_string();
    let r = t.send("PATCH", &format!("/cards/{id}"), &json!({"bio": "changed"}));
    assert_eq!(r.status, 200);
    let changed = with(
        &t,
        "GET",
        &format!("/cards/{id}"),
        &[("If-None-Match", &tag)],
    );
    assert_eq!(changed.status, 200);
    assert_ne!(changed.header("etag"), Some(tag.as_str()));
}

#[test]
fn cors_preflight_and_exposed_headers() {
    let s = server();
    let pre = call(
        "OPTIONS",
        &format!("{}/api/v1/cards/12", s.base),
        None,
        None,
        &[
            ("Origin", "https://crm.example"),
            ("Access-Control-Request-Method", "PATCH"),
        ],
    );
    assert_eq!(pre.status, 204, "{pre:?}");
    assert_eq!(pre.header("access-control-allow-origin"), Some("*"));
    let methods = pre.header("access-control-allow-methods").unwrap();
    for m in ["GET", "POST", "PATCH", "DELETE"] {
        assert!(methods.contains(m), "{methods}");
    }
    let allowed = pre.header("access-control-allow-headers").unwrap();
    for h in [
        "Authorization",
        "Content-Type",
        "Idempotency-Key",
        "If-None-Match",
        "X-D1-Bookmark",
    ] {
        assert!(allowed.contains(h), "{allowed}");
    }
    assert!(pre.header("access-control-allow-credentials").is_none());

    let t = s.tenant(&ALL_SCOPES);
    for r in [
        t.get("/cards"),
        t.get("/cards/x"),
        call("GET", &format!("{}/api/v1/nope", s.base), None, None, &[]),
    ] {
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{r:?}");
        let exposed = r.header("access-control-expose-headers").unwrap_or("");
        for h in [
            "ETag",
            "X-Request-Id",
            "Server-Timing",
            "X-D1-Bookmark",
            "RateLimit",
        ] {
            assert!(exposed.contains(h), "{exposed}");
        }
    }
}

#[test]
fn standard_rate_limit_headers_equal_the_legacy_ones() {
    let t = server().tenant(&ALL_SCOPES);
    for _ in 0..3 {
        let r = t.get("/cards");
        let limit = r.header("x-ratelimit-limit").unwrap();
        let remaining = r.header("x-ratelimit-remaining").unwrap();
        assert_eq!(
            r.header("ratelimit-policy"),
            Some(format!("\"token\";q={limit};w=60").as_str())
        );
        let rl = r.header("ratelimit").unwrap();
        assert!(
            rl.starts_with(&format!("\"token\";r={remaining};t=")),
            "{rl} vs {remaining}"
        );
    }
}

/// Every /api/v1 answer is for its token and may carry personal data: no shared cache
/// keeps it, and a browser revalidates it (finding 7 of issue 29). ETags keep working.
#[test]
fn every_api_answer_is_private_and_revalidated() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Cache", "last_name": "Control"}));
    let id = card["id"].as_i64().unwrap();
    let url = |path: &str| format!("{}/api/v1{path}", s.base);
    let get_card = with(&t, "GET", &format!("/cards/{id}"), &[]);
    let tag = get_card
        .header("etag")
        .expect("getCard is tagged")
        .to_string();
    let not_modified = with(
        &t,
        "GET",
        &format!("/cards/{id}"),
        &[("If-None-Match", &tag)],
    );
    assert_eq!(not_modified.status, 304);
    assert_eq!(not_modified.header("etag"), Some(tag.as_str()));
    let preflight = call(
        "OPTIONS",
        &url("/cards"),
        None,
        None,
        &[
            ("Origin", "https://app.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
    );
    let answers = [
        ("listCards", t.get("/cards"), 200),
        ("getCard", get_card, 200),
        ("304", not_modified, 304),
        ("listEvents", t.get("/events"), 200),
        ("401", call("GET", &url("/cards"), None, None, &[]), 401),
        (
            "404 card",
            t.get(&format!("/cards/{}", id + 1_000_000)),
            404,
        ),
        ("404 route", t.get("/nope"), 404),
        ("405", call("DELETE", &url("/cards"), None, None, &[]), 405),
        ("422", t.get("/events?after=garbage"), 422),
        ("preflight", preflight, 204),
        (
            "openapi",
            s.call("GET", "/api/v1/openapi.json", None, None),
            200,
        ),
    ];
    for (name, r, status) in answers {
        assert_eq!(r.status, status, "{name}: {}", r.body);
        assert_eq!(
            r.header("cache-control"),
            Some("private, no-cache"),
            "{name}: {:?}",
            r.headers
        );
    }
}

/// extensions.md 6: `Server-Timing` on every `/api/v1` answer, whichever step gave it:
/// before authentication (404, 405, preflight, openapi.json and its 304), at it (401 for
/// no, a malformed and an unknown token), past it (403, 404, 422, 429) and success.
#[test]
fn every_api_answer_carries_server_timing() {
    let s = server();
    let t = s.tenant(&["cards:read"]);
    let url = |path: &str| format!("{}/api/v1{path}", s.base);
    let bearer = |token: &str| format!("Bearer {token}");
    let spec = call("GET", &url("/openapi.json"), None, None, &[]);
    let tag = spec
        .header("etag")
        .expect("openapi.json is tagged")
        .to_string();
    let unknown = format!("dbc_{}", "0".repeat(64));
    let answers = [
        (
            "unknown path",
            call("GET", &url("/nope"), Some(&t.token), None, &[]),
        ),
        (
            "wrong method",
            call("DELETE", &url("/cards"), None, None, &[]),
        ),
        (
            "preflight",
            call("OPTIONS", &url("/cards"), None, None, &[]),
        ),
        ("openapi.json", spec),
        (
            "openapi.json 304",
            call(
                "GET",
                &url("/openapi.json"),
                None,
                None,
                &[("If-None-Match", &tag)],
            ),
        ),
        ("no token", call("GET", &url("/cards"), None, None, &[])),
        (
            "malformed token",
            call(
                "GET",
                &url("/cards"),
                None,
                None,
                &[("Authorization", &bearer("x"))],
            ),
        ),
        (
            "unknown token",
            call(
                "GET",
                &url("/cards"),
                None,
                None,
                &[("Authorization", &bearer(&unknown))],
            ),
        ),
        ("missing scope", t.get("/leads")),
        ("bad id", t.get("/cards/x")),
        ("invalid query", t.get("/cards?updated_since=yesterday")),
        ("success", t.get("/cards")),
    ];
    let statuses: Vec<u16> = answers.iter().map(|(_, r)| r.status).collect();
    assert_eq!(
        statuses,
        [404, 405, 204, 200, 304, 401, 401, 401, 403, 404, 422, 200]
    );
    for (what, r) in &answers {
        let timing = r
            .header("server-timing")
            .unwrap_or_else(|| panic!("{what}: {r:?}"));
        for metric in ["gate;dur=", "db;dur=", "total;dur="] {
            assert!(timing.contains(metric), "{what}: {timing}");
        }
        assert_eq!(r.header("access-control-allow-origin"), Some("*"), "{what}");
        assert_eq!(
            r.header("cache-control"),
            Some("private, no-cache"),
            "{what}"
        );
    }
}
