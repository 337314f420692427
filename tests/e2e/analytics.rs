//! Analytics (spec 2.3, 2.4, 4.7; product.md 1 and 4): views and clicks recorded by the
//! public pages, counted through the aggregator Durable Object into KV, read back.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{call, server, Server, Tenant, ADMIN_TOKEN};

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const DESKTOP: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

fn tenant() -> Tenant<'static> {
    server().tenant(&["cards:write", "analytics:read"])
}

fn card(t: &Tenant) -> (i64, String) {
    let c = t.card(json!({
        "first_name": "Ana", "last_name": "Lytics", "email": "ana@example.com",
        "phone": "+49 30 1234", "website": "https://ana.example",
        "social_links": [{"platform": "linkedin", "url": "https://linkedin.com/in/ana"}]
    }));
    (
        c["id"].as_i64().unwrap(),
        c["slug"].as_str().unwrap().to_string(),
    )
}

fn visit(path: &str, ua: &str, referer: Option<&str>) -> u16 {
    let mut headers = vec![("User-Agent", ua)];
    if let Some(r) = referer {
        headers.push(("Referer", r));
    }
    call(
        "GET",
        &format!("{}{path}", server().base),
        None,
        None,
        &headers,
    )
    .status
}

/// Polls until `done` holds (counts are eventually visible), then returns the report.
fn report(t: &Tenant, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let r = t.get(path);
        assert_eq!(r.status, 200, "{}", r.body);
        let data = r.json()["data"].clone();
        if done(&data) || started.elapsed() > Duration::from_secs(15) {
            eprintln!("[analytics] {path} settled after {:?}", started.elapsed());
            return data;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn views_count_totals_uniques_devices_referrers_and_days() {
    let t = tenant();
    let (id, slug) = card(&t);
    let page = format!("/c/{slug}");
    for (ua, referer) in [
        (IPHONE, Some("https://www.linkedin.com/feed/")),
        (IPHONE, Some("https://www.linkedin.com/in/x")),
        (IPAD, None),
        (DESKTOP, Some("https://news.ycombinator.com/item?id=1")),
        (DESKTOP, None),
    ] {
        assert_eq!(visit(&page, ua, referer), 200);
    }
    // Not counted: crawlers, HEAD, prefetches.
    assert_eq!(
        visit(&page, "Mozilla/5.0 (compatible; Googlebot/2.1)", None),
        200
    );
    call(
        "HEAD",
        &format!("{}{page}", server().base),
        None,
        None,
        &[("User-Agent", DESKTOP)],
    );
    call(
        "GET",
        &format!("{}{page}", server().base),
        None,
        None,
        &[("User-Agent", DESKTOP), ("Sec-Purpose", "prefetch")],
    );

    let v = report(
        &t,
        &format!("/analytics/views?card_id={id}&period=7d"),
        |d| d["total_views"] == 5,
    );
    assert_eq!(v["total_views"], 5);
    assert_eq!(
        v["unique_views"], 3,
        "same IP and User-Agent is one visitor per day"
    );
    assert_eq!(v["period"], "7d");
    assert_eq!(
        v["devices"],
        json!({"mobile": 2, "tablet": 1, "desktop": 2})
    );
    assert_eq!(
        v["referrers"],
        json!({"linkedin.com": 2, "news.ycombinator.com": 1, "direct": 2})
    );
    let countries: i64 = v["countries"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_i64().unwrap())
        .sum();
    assert_eq!(countries, 5);
    // Local workerd gives every request a `request.cf` (the real one, or wrangler's
    // placeholder offline), so a view is never of unknown country here: the page views read
    // it although the worker hides it from its request conversion.
    assert!(
        !v["countries"].as_object().unwrap().contains_key("XX"),
        "{}",
        v["countries"]
    );
    for k in v["countries"].as_object().unwrap().keys() {
        assert!(
            k.len() == 2 && k.chars().all(|c| c.is_ascii_uppercase()),
            "{k}"
        );
    }
    let days = v["views_per_day"].as_object().unwrap();
    assert_eq!(days.len(), 7);
    assert_eq!(
        days.values().last(),
        Some(&json!(5)),
        "today is last: {days:?}"
    );
    // Settled: nothing arrives late.
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        t.get(&format!("/analytics/views?card_id={id}&period=7d"))
            .json()["data"]["total_views"],
        5
    );
}

#[test]
fn clicks_by_type() {
    let t = tenant();
    let (id, slug) = card(&t);
    for path in [
        "go/email",
        "go/email",
        "go/phone",
        "go/website",
        "go/social_linkedin",
        "vcard",
    ] {
        let status = visit(&format!("/c/{slug}/{path}"), DESKTOP, None);
        assert!(status == 302 || status == 200, "{path}: {status}");
    }
    visit(&format!("/c/{slug}/go/email"), "curl/8.0", None);
    let c = report(&t, &format!("/analytics/clicks?card_id={id}"), |d| {
        d["total_clicks"] == 6
    });
    assert_eq!(c["total_clicks"], 6);
    assert_eq!(c["period"], "30d");
    assert_eq!(
        c["clicks_by_type"],
        json!({"email": 2, "phone": 1, "website": 1, "social_linkedin": 1, "vcard": 1})
    );
    let days = c["clicks_per_day"].as_object().unwrap();
    assert_eq!(days.len(), 30);
    assert_eq!(days.values().last(), Some(&json!(6)));
}

#[test]
fn account_totals_aggregate_cards_and_stay_isolated() {
    let t = tenant();
    let (a, slug_a) = card(&t);
    let (b, slug_b) = card(&t);
    for _ in 0..3 {
        visit(&format!("/c/{slug_a}"), DESKTOP, None);
    }
    visit(&format!("/c/{slug_b}"), IPHONE, None);
    let all = report(&t, "/analytics/views", |d| d["total_views"] == 4);
    assert_eq!(all["total_views"], 4);
    assert_eq!(
        all["unique_views"], 2,
        "distinct visitors per card per day, summed"
    );
    assert_eq!(
        report(&t, &format!("/analytics/views?card_id={a}"), |d| d
            ["total_views"]
            == 3)["total_views"],
        3
    );
    assert_eq!(
        report(&t, &format!("/analytics/views?card_id={b}"), |d| d
            ["total_views"]
            == 1)["total_views"],
        1
    );
    // Another account sees none of it and cannot name these cards.
    let other = tenant();
    assert_eq!(
        other.get("/analytics/views").json()["data"]["total_views"],
        0
    );
    let v = other
        .get(&format!("/analytics/views?card_id={a}"))
        .assert_error(422);
    assert!(v["errors"]["card_id"].is_array());
}

#[test]
fn concurrent_views_lose_nothing() {
    let t = tenant();
    let (id, slug) = card(&t);
    let page = format!("/c/{slug}");
    std::thread::scope(|s| {
        for i in 0..20 {
            let page = &page;
            s.spawn(move || {
                for j in 0..10 {
                    let ua = format!("{DESKTOP} visitor/{i}-{j}");
                    assert_eq!(visit(page, &ua, None), 200);
                }
            });
        }
    });
    let v = report(
        &t,
        &format!("/analytics/views?card_id={id}&period=7d"),
        |d| d["total_views"] == 200,
    );
    assert_eq!(v["total_views"], 200);
    assert_eq!(v["unique_views"], 200);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        t.get("/analytics/views?period=7d").json()["data"]["total_views"],
        200
    );
}

#[test]
fn every_period_has_its_window_zero_filled_oldest_first() {
    let t = tenant();
    for (period, days) in [
        ("7d", 7),
        ("14d", 14),
        ("30d", 30),
        ("90d", 90),
        ("365d", 365),
    ] {
        for kind in ["views", "clicks"] {
            let r = t.get(&format!("/analytics/{kind}?period={period}"));
            assert_eq!(r.status, 200, "{}", r.body);
            let d = r.json()["data"].clone();
            assert_eq!(d["period"], period);
            let per_day = d[format!("{kind}_per_day")].as_object().unwrap().clone();
            assert_eq!(per_day.len(), days, "{kind} {period}");
            let keys: Vec<&String> = per_day.keys().collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "oldest first");
            assert!(per_day.values().all(|v| v == 0));
            assert!(keys.iter().all(|k| k.len() == 10 && &k[4..5] == "-"));
        }
    }
    let v = t.get("/analytics/views").json()["data"].clone();
    assert_eq!(v["period"], "30d");
    assert_eq!(
        v,
        json!({"total_views": 0, "unique_views": 0, "period": "30d", "views_per_day": v["views_per_day"],
               "devices": {}, "countries": {}, "referrers": {}})
    );
}

#[test]
fn invalid_period_and_card_id_are_422() {
    let t = tenant();
    for q in ["period=1d", "period=", "period=30", "period=30D"] {
        for kind in ["views", "clicks"] {
            let v = t.get(&format!("/analytics/{kind}?{q}")).assert_error(422);
            assert_eq!(
                v["errors"]["period"],
                json!(["The selected period is invalid."]),
                "{q}"
            );
        }
    }
    for q in [
        "card_id=abc",
        "card_id=1.5",
        "card_id=",
        "card_id=-1",
        "card_id=99999999",
    ] {
        let v = t.get(&format!("/analytics/clicks?{q}")).assert_error(422);
        assert!(v["errors"]["card_id"].is_array(), "{q}: {v}");
    }
}

/// A GET whose answer may never come (the server is killed meanwhile): its status, or
/// `None` when the connection failed.
fn try_get(url: &str, headers: &[(&str, &str)]) -> Option<u16> {
    let mut req = ureq::get(url).timeout(Duration::from_secs(30));
    for (k, v) in headers {
        req = req.set(k, v);
    }
    match req.call() {
        Ok(r) => Some(r.status()),
        Err(ureq::Error::Status(status, _)) => Some(status),
        Err(_) => None,
    }
}

/// product.md: no acknowledged view is lost (issue 46, finding 7: 4 of 148 views answered
/// 200 were not counted after a SIGKILL of the runtime mid-burst). Rounds of a card and a
/// burst of views from 8 visitors at once, the runtime SIGKILLed once 24 were answered,
/// then a restart on the same state. Each view carries a referrer host of its own, so the
/// report tells per view how often it was counted: an answered view exactly once, one
/// that got no answer at most once (its event may have been counted before the kill).
#[test]
fn acknowledged_views_survive_a_kill_of_the_runtime() {
    const ROUNDS: usize = 5;
    const THREADS: usize = 8;
    // At most the referrers a card's day keeps by name (MAX_REFERRERS_PER_DAY, 50).
    const VIEWS: usize = 48;
    const KILL_AFTER: usize = 24;
    let mut s = Server::start("analytics-kill", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let account = s.account("enterprise", json!({}));
    let token = s.token(account, &["cards:write", "analytics:read"]);
    let mut rounds: Vec<(i64, Vec<bool>)> = Vec::new();
    for round in 0..ROUNDS {
        let body = json!({"first_name": "Kill", "last_name": format!("Round {round}")});
        let r = s.call(
            "POST",
            "/api/v1/cards",
            Some(&token),
            Some(&body.to_string()),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        let card = r.json()["data"].clone();
        let (id, slug) = (card["id"].as_i64().unwrap(), card["slug"].as_str().unwrap());
        let url = format!("{}/c/{slug}", s.base);
        let next = AtomicUsize::new(0);
        let answered = AtomicUsize::new(0);
        let acked: Vec<AtomicBool> = (0..VIEWS).map(|_| AtomicBool::new(false)).collect();
        std::thread::scope(|scope| {
            for _ in 0..THREADS {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, SeqCst);
                    if i >= VIEWS {
                        return;
                    }
                    let ua = format!("{DESKTOP} kill/{round}-{i}");
                    let referer = format!("https://v{i}.r{round}.example/");
                    match try_get(&url, &[("User-Agent", &ua), ("Referer", &referer)]) {
                        Some(200) => {
                            acked[i].store(true, SeqCst);
                            answered.fetch_add(1, SeqCst);
                        }
                        // The server is gone (or going): this visitor stops.
                        _ => return,
                    }
                });
            }
            let started = Instant::now();
            while answered.load(SeqCst) < KILL_AFTER {
                assert!(
                    started.elapsed() < Duration::from_secs(60),
                    "views too slow"
                );
                std::thread::sleep(Duration::from_millis(2));
            }
            s.kill();
        });
        s = s.relaunch(&format!("analytics-kill-{round}"));
        let acked: Vec<bool> = acked.iter().map(|a| a.load(SeqCst)).collect();
        eprintln!(
            "[analytics] round {round}: {} of {VIEWS} views answered before the kill",
            acked.iter().filter(|a| **a).count()
        );
        rounds.push((id, acked));
    }
    let report = |query: &str| {
        let r = s.call(
            "GET",
            &format!("/api/v1/analytics/views?period=7d{query}"),
            Some(&token),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["data"].clone()
    };
    // Counts show once the aggregator's alarm has written them to KV, within about a
    // second of its start after the restart, all at once.
    let answered: usize = rounds
        .iter()
        .map(|(_, a)| a.iter().filter(|a| **a).count())
        .sum();
    let started = Instant::now();
    while report("")["total_views"].as_u64().unwrap_or(0) < answered as u64
        && started.elapsed() < Duration::from_secs(15)
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut problems = Vec::new();
    for (round, (id, acked)) in rounds.iter().enumerate() {
        let v = report(&format!("&card_id={id}"));
        let referrers = v["referrers"].as_object().cloned().unwrap_or_default();
        let count = |i: usize| referrers.get(&format!("v{i}.r{round}.example")).cloned();
        let lost: Vec<usize> = (0..VIEWS)
            .filter(|i| acked[*i] && count(*i) != Some(json!(1)))
            .collect();
        if !lost.is_empty() {
            problems.push(format!(
                "round {round}: answered views {lost:?} not counted once"
            ));
        }
        let unknown: Vec<(&String, &Value)> = referrers
            .iter()
            .filter(|(host, n)| {
                *n != &json!(1) || !(0..VIEWS).any(|i| **host == format!("v{i}.r{round}.example"))
            })
            .collect();
        if !unknown.is_empty() {
            problems.push(format!("round {round}: counted otherwise {unknown:?}"));
        }
        let total = v["total_views"].as_u64().unwrap_or(0);
        if total != referrers.len() as u64 || v["unique_views"] != json!(total) {
            problems.push(format!("round {round}: totals {v}"));
        }
        eprintln!(
            "[analytics] round {round}: {} answered, {total} counted, {} answered ones lost",
            acked.iter().filter(|a| **a).count(),
            lost.len()
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    s.stop();
}
