//! Operations (the ops issue): one structured log line per request that names the request
//! and never a token, an address or what a visitor typed; `/admin/v1` only on ADMIN_HOSTS.

use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{call, post_lead, server, Lead, Server, ADMIN_TOKEN, ALL_SCOPES};

/// The JSON log lines the server printed so far.
fn log_lines(s: &Server) -> (String, Vec<Value>) {
    let port = s.base.rsplit(':').next().unwrap_or_default();
    let text =
        std::fs::read_to_string(s.state.join(format!("wrangler-{port}.log"))).unwrap_or_default();
    let lines = text
        .lines()
        .filter_map(|l| l.find("{\"request_id\"").map(|at| &l[at..]))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (text, lines)
}

#[test]
fn one_log_line_per_request_without_tokens_addresses_or_lead_data() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Log", "last_name": "Line", "show_lead_form": true}));
    let got = t.get(&format!("/cards/{}", card["id"]));
    assert_eq!(got.status, 200);
    let request_id = got.header("x-request-id").unwrap().to_string();
    let secret_email = "log.line.person@example.com";
    let ip = "198.51.100.231";
    let r = post_lead(
        s,
        card["slug"].as_str().unwrap(),
        Some(ip),
        Lead::Json(&json!({"name": "Lorna Logged", "email": secret_email})),
        &[],
    );
    assert_eq!(r.status, 201);
    let lead_request = r.header("x-request-id").unwrap().to_string();
    t.get(&format!("/leads?email={secret_email}"));

    // The lines reach the log asynchronously.
    let started = Instant::now();
    let (text, lines) = loop {
        let (text, lines) = log_lines(s);
        let seen = |id: &str| lines.iter().any(|l| l["request_id"] == id);
        if (seen(&request_id) && seen(&lead_request)) || started.elapsed() > Duration::from_secs(10)
        {
            break (text, lines);
        }
        thread::sleep(Duration::from_millis(200));
    };
    let line = lines
        .iter()
        .find(|l| l["request_id"] == request_id.as_str())
        .unwrap_or_else(|| panic!("no log line for {request_id}"));
    assert_eq!(line["route"], "getCard");
    assert_eq!(line["status"], 200);
    assert_eq!(line["method"], "GET");
    assert_eq!(line["account_id"], t.account);
    assert!(line["token_id"].is_i64());
    assert!(line["gate_ms"].is_number() && line["total_ms"].is_number());
    assert!(line["db_ms"].is_number());
    let lead_line = lines
        .iter()
        .find(|l| l["request_id"] == lead_request.as_str())
        .expect("a line for the lead post");
    assert_eq!(lead_line["route"], "public");
    assert_eq!(lead_line["status"], 201);
    for secret in [t.token.as_str(), ip, secret_email, "Lorna"] {
        assert!(!text.contains(secret), "the log holds {secret}");
    }
}

#[test]
fn the_operator_api_answers_only_on_admin_hosts() {
    let elsewhere = Server::start(
        "admin-hosts",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("ADMIN_HOSTS", "admin.cards.example"),
        ],
    );
    let r = elsewhere.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "X", "plan": "free"})),
    );
    r.assert_error(404);
    // The public API is unaffected.
    let r = call("GET", &format!("{}/", elsewhere.base), None, None, &[]);
    assert_eq!(r.status, 200);
    // The smoke check says why it cannot start there.
    let (ok, out) = smoke(&elsewhere.base, ADMIN_TOKEN);
    assert!(!ok, "{out}");
    assert!(
        out.contains("FAIL create account") && out.contains("ADMIN_HOSTS"),
        "{out}"
    );
    assert!(
        out.contains("==> smoke: FAILED at 'create account' (0 of 11"),
        "{out}"
    );
    elsewhere.stop();
    // Listed (the host the tests reach the server by), the operator API answers.
    let listed = Server::start(
        "admin-hosts-ok",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("ADMIN_HOSTS", "admin.cards.example, 127.0.0.1"),
        ],
    );
    let r = listed.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "X", "plan": "free"})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    listed.stop();
}

/// Runs `scripts/smoke.py` as an operator would: whether it passed, and what it printed.
fn smoke(base: &str, admin_token: &str) -> (bool, String) {
    let out = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/smoke.py"))
        .env("BASE_URL", base)
        .env("ADMIN_TOKEN", admin_token)
        .env_remove("ADMIN_URL")
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_smoke_check_passes_against_the_local_worker_and_leaves_nothing_behind() {
    let s = server();
    let (ok, out) = smoke(&s.base, ADMIN_TOKEN);
    assert!(ok, "{out}");
    let steps: Vec<&str> = out.lines().filter(|l| l.starts_with("  ok ")).collect();
    assert_eq!(steps.len(), 11, "{out}");
    assert!(out.contains("==> smoke: PASSED (11 steps"), "{out}");
    // The account it made is gone.
    let account = out
        .split("ms  account ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|id| id.parse::<i64>().ok())
        .unwrap_or_else(|| panic!("no account id in {out}"));
    s.admin("GET", &format!("/accounts/{account}"), None)
        .assert_error(404);
    // A wrong operator token fails the first step, with a verdict.
    let (ok, out) = smoke(&s.base, "not-the-admin-token");
    assert!(!ok && out.contains("operator API answered 401"), "{out}");
}

#[test]
fn make_seed_fills_a_realistic_service() {
    let s = Server::start("seed", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    // `make test` builds the example before the tests run; a nested `cargo run` would
    // wait for the lock this very test run holds.
    let bin = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/debug/examples/seed-analytics"
    );
    assert!(
        std::path::Path::new(bin).exists(),
        "{bin} is missing: run `cargo build --example seed-analytics` (as `make test` does)"
    );
    let out = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/seed.py"))
        .env("SEED_BASE_URL", &s.base)
        .env("SEED_STATE", &s.state)
        .env("ADMIN_TOKEN", ADMIN_TOKEN)
        .env("SEED_ANALYTICS_BIN", bin)
        .output()
        .expect("python3 runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let token = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("dbc_"))
        .unwrap_or_else(|| panic!("no token printed: {text}"))
        .to_string();
    let get = |path: &str| {
        let r = s.call("GET", &format!("/api/v1{path}"), Some(&token), None);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        r.json()
    };
    assert_eq!(get("/cards").as_object().unwrap()["meta"]["total"], 6);
    assert_eq!(get("/leads").as_object().unwrap()["meta"]["total"], 18);
    // A year of views: every day of the window before this month has some, and the
    // breakdowns are filled.
    let year = get("/analytics/views?period=365d")["data"].clone();
    assert!(year["total_views"].as_u64().unwrap() > 10_000, "{year}");
    let days = year["views_per_day"].as_object().unwrap();
    assert_eq!(days.len(), 365);
    let busy = days.values().filter(|v| v.as_u64() > Some(0)).count();
    assert!(busy > 300, "{busy} days with views");
    assert!(year["countries"].as_object().unwrap().len() >= 5, "{year}");
    assert!(
        year["referrers"]["linkedin.com"].as_u64() > Some(0),
        "{year}"
    );
    let clicks = get("/analytics/clicks?period=90d")["data"].clone();
    assert!(clicks["total_clicks"].as_u64() > Some(100), "{clicks}");
    // The first 365-day report stored the summaries of the settled months it read in the
    // scope's history document; the next reads that one key instead of the full documents
    // and answers exactly the same.
    let wrangler = |args: &[&str]| {
        std::process::Command::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/node_modules/.bin/wrangler"
        ))
        .args(["kv", "key"])
        .args(args)
        .args(["--binding", "ANALYTICS", "--local"])
        .arg("--persist-to")
        .arg(&s.state)
        .arg("--config")
        .arg(s.state.join("wrangler.toml"))
        .env("CI", "true")
        .output()
        .expect("wrangler kv key")
        .stdout
    };
    let history_key = {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let keys: Value = serde_json::from_slice(&wrangler(&["list"])).unwrap_or_default();
            let found = keys.as_array().and_then(|a| {
                a.iter()
                    .filter_map(|k| k["name"].as_str())
                    .find(|n| n.contains("/all/views/history"))
                    .map(str::to_string)
            });
            if let Some(key) = found {
                break key;
            }
            assert!(Instant::now() < deadline, "no history document: {keys}");
            thread::sleep(Duration::from_millis(300));
        }
    };
    // A JSON document, one summary per settled month: `{"months":{"YYYY-MM":{...}}}`.
    let history = String::from_utf8(wrangler(&["get", &history_key])).unwrap();
    let doc: Value = serde_json::from_str(&history).expect("a JSON history");
    let months = doc["months"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(m, summary)| m.len() == 7 && m.as_bytes()[4] == b'-' && summary.is_object())
        .count();
    assert!(months >= 10, "{history}");
    assert_eq!(get("/analytics/views?period=365d")["data"], year);
    // A history stored before the JSON document (one `YYYY-MM {summary}` line per month,
    // as deployed KV still holds) is read as before and answers the same.
    let lines: String = doc["months"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(m, summary)| format!("{m} {summary}\n"))
        .collect();
    wrangler(&["put", &history_key, &lines]);
    assert_eq!(
        String::from_utf8(wrangler(&["get", &history_key])).unwrap(),
        lines
    );
    assert_eq!(get("/analytics/views?period=365d")["data"], year);
    // It held every settled month: no reader rewrote it (a reader that could not read it
    // would have read the months in full and stored a JSON history after answering).
    thread::sleep(Duration::from_secs(1));
    assert_eq!(
        String::from_utf8(wrangler(&["get", &history_key])).unwrap(),
        lines,
        "the line history was not read"
    );
    let year_clicks = get("/analytics/clicks?period=365d")["data"].clone();
    assert_eq!(get("/analytics/clicks?period=365d")["data"], year_clicks);
    // Every card URL printed opens.
    let pages: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().split_whitespace().next())
        .filter(|w| w.contains("/c/"))
        .collect();
    assert_eq!(pages.len(), 10, "{text}");
    for page in pages {
        let path = &page[page.find("/c/").unwrap()..];
        assert_eq!(s.call("GET", path, None, None).status, 200, "{path}");
    }
    s.stop();
}
