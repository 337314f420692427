//! Data regions (regions.md): accounts of every region pass the same flow, each account's
//! rows live in its shard's local D1 file and in no other, slugs are unique across
//! shards, and a crash between the directory and the shard leaves no slug blocking a name.

use serde_json::{json, Value};

use crate::harness::{
    call, post_lead, visitor, Lead, Server, Tenant, ADMIN_TOKEN, ALL_SCOPES, BROWSER,
};

/// An enterprise account homed in `region` and a token with every read/write scope.
fn tenant_in<'a>(s: &'a Server, region: &str) -> Tenant<'a> {
    let account = s.account("enterprise", json!({"data_region": region}));
    Tenant {
        server: s,
        account,
        token: s.token(account, &ALL_SCOPES),
    }
}

/// The same flow for an account of every local region: a card, a lead through its page,
/// the lead read back, the feed, the account's placement and the regions' counts.
#[test]
fn accounts_of_every_region_pass_the_same_flow_and_keep_their_rows_home() {
    let s = Server::start("regions", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let expected = [
        ("wnam", "SHARD_WNAM_1"),
        ("wnam", "SHARD_WNAM_2"),
        ("weur", "SHARD_WEUR_1"),
        ("eu", "SHARD_EU_1"),
        ("apac", "SHARD_APAC_1"),
    ];
    let mut homes = vec![];
    for (i, (region, shard)) in expected.iter().enumerate() {
        let t = tenant_in(&s, region);
        let account = s
            .admin("GET", &format!("/accounts/{}", t.account), None)
            .json();
        assert_eq!(account["data"]["data_region"], *region, "{account}");
        // Two wnam shards: the emptier one takes the next account (ties: the first).
        assert_eq!(account["data"]["shard"], *shard, "{account}");
        let card = t.card(json!({"first_name": "Ada", "last_name": "Region"}));
        let slug = card["slug"].as_str().unwrap().to_string();
        let want = if i == 0 {
            "ada-region".to_string()
        } else {
            format!("ada-region-{}", i + 1)
        };
        assert_eq!(slug, want, "slugs are unique across every shard");
        assert_eq!(s.call("GET", &format!("/c/{slug}"), None, None).status, 200);
        let ip = format!("203.0.113.{}", 10 + i);
        let r = post_lead(&s, &slug, Some(&ip), Lead::Json(&visitor(i)), &[]);
        assert_eq!(r.status, 201, "{region}: {}", r.body);
        let leads = t.get("/leads").json();
        let lead = &leads["data"][0];
        assert_eq!(lead["email"], format!("v{i}@example.com"), "{leads}");
        let id = lead["id"].as_i64().unwrap();
        assert_eq!(t.get(&format!("/leads/{id}")).status, 200);
        let feed = t.get("/events").json();
        let types: Vec<&str> = feed["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["card.created", "lead.created"], "{feed}");
        // Another region's token does not see this account's lead.
        if let Some((other, _)) = homes.last() {
            let other: &Tenant = other;
            assert_eq!(other.get(&format!("/leads/{id}")).status, 404);
        }
        homes.push((t, shard.to_string()));
    }
    let regions = s.admin("GET", "/regions", None).json();
    assert_eq!(
        regions["data"],
        json!([
            {"region": "wnam", "shards": [{"name": "SHARD_WNAM_1", "accounts": 1}, {"name": "SHARD_WNAM_2", "accounts": 1}]},
            {"region": "weur", "shards": [{"name": "SHARD_WEUR_1", "accounts": 1}]},
            {"region": "eu", "shards": [{"name": "SHARD_EU_1", "accounts": 1}]},
            {"region": "apac", "shards": [{"name": "SHARD_APAC_1", "accounts": 1}]},
        ])
    );
    let accounts: Vec<(i64, String)> = homes
        .iter()
        .map(|(t, sh)| (t.account, sh.clone()))
        .collect();
    drop(homes);
    s.stop();
    // Read the local D1 files: each account's rows are in its shard and in no other.
    for (account, home) in &accounts {
        for shard in s.shards() {
            let rows = s.d1_on(
                &shard,
                &format!(
                    "SELECT (SELECT COUNT(*) FROM cards WHERE account_id = {account}) \
                          + (SELECT COUNT(*) FROM leads WHERE account_id = {account}) \
                          + (SELECT COUNT(*) FROM events WHERE account_id = {account}) \
                          + (SELECT COUNT(*) FROM accounts WHERE id = {account}) AS n"
                ),
            );
            let n = rows[0]["n"].as_i64().unwrap();
            if &shard == home {
                assert_eq!(
                    n, 5,
                    "account {account}: card, lead, two events, its copy in {shard}"
                );
            } else {
                assert_eq!(n, 0, "account {account} has rows in {shard}");
            }
        }
    }
    // The directory holds no card content, lead or event (members, their passkeys and
    // sessions, and the log of sign-ins and tokens hold none: account-area.md 1).
    let tables = s.d1_on(
        "DIRECTORY",
        "SELECT group_concat(name) AS t FROM (SELECT name FROM sqlite_master \
         WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' \
         AND name <> 'd1_migrations' ORDER BY name)",
    );
    assert_eq!(
        tables[0]["t"],
        "accounts,challenges,invites,members,moves,passkeys,security_log,sessions,slugs,tokens"
    );
}

#[test]
fn an_unknown_region_is_refused_and_a_region_is_not_changed_by_update() {
    let s = crate::harness::server();
    let r = s.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "X", "plan": "pro", "data_region": "mars"})),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.json()["errors"]["data_region"].is_array(), "{}", r.body);
    // fedramp is a region, but no local shard has it.
    let r = s.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "X", "plan": "pro", "data_region": "fedramp"})),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    let account = s.account("pro", json!({}));
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{account}"),
        Some(json!({"data_region": "eu"})),
    );
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.json()["errors"]["data_region"].is_array(), "{}", r.body);
    let a = s.admin("GET", &format!("/accounts/{account}"), None).json();
    assert_eq!(a["data"]["data_region"], "wnam");
}

/// A crash at each step (the fault switch `SLUGS_FAULT`): between the name's reservation
/// and the shard's insert, the slug is free again for the next create of the name (which
/// finds the card missing); between a card's delete and the slug's retirement, its account
/// gets it back; between the insert and the routing row, the card's page opens and the
/// card keeps its slug. So no slug blocks a name and no card is without its page.
#[test]
fn a_crash_at_any_step_leaves_no_slug_blocking_a_name_and_no_card_without_its_page() {
    // Each step in a server started with its fault (`None`: the step that meets what it
    // left); entries on their way are settled at once.
    let vars = |fault: Option<&'static str>| {
        let mut v = vec![("ADMIN_TOKEN", ADMIN_TOKEN), ("SLUG_SETTLE_MS", "0")];
        v.extend(fault.map(|f| ("SLUGS_FAULT", f)));
        v
    };
    let s = Server::start("slug-crash", &vars(Some("after-reserve")));
    let t = s.tenant(&ALL_SCOPES);
    let (account, token) = (t.account, t.token.clone());
    let r = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "Crash", "last_name": "Test"}),
    );
    assert_eq!(r.status, 500, "{}", r.body);
    let s = s.restart_with("slug-crash-2", &vars(None));
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let card = t.card(json!({"first_name": "Crash", "last_name": "Test"}));
    assert_eq!(card["slug"], "crash-test", "the name was released: {card}");
    assert_eq!(s.call("GET", "/c/crash-test", None, None).status, 200);
    let s = s.restart_with("slug-crash-3", &vars(Some("after-delete")));
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let id = card["id"].as_i64().unwrap();
    assert_eq!(
        t.send("DELETE", &format!("/cards/{id}"), &json!({})).status,
        500
    );
    let again = t.card(json!({"first_name": "Crash", "last_name": "Test"}));
    assert_eq!(
        again["slug"], "crash-test",
        "released after the card went: {again}"
    );
    // A crash after the card is made, before its slug is live and its routing row written:
    // its page opens all the same (through the name's object), and the name stays its.
    let s = s.restart_with("slug-crash-4", &vars(Some("after-create")));
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let r = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "Crash", "last_name": "Made"}),
    );
    assert_eq!(r.status, 500, "{}", r.body);
    let s = s.restart_with("slug-crash-5", &vars(None));
    let t = Tenant {
        server: &s,
        account,
        token,
    };
    let made = t.get("/cards?limit=100").json();
    assert!(
        made["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["slug"] == "crash-made"),
        "the card was made: {made}"
    );
    assert_eq!(s.call("GET", "/c/crash-made", None, None).status, 200);
    let next = t.card(json!({"first_name": "Crash", "last_name": "Made"}));
    assert_eq!(next["slug"], "crash-made-2", "the made card keeps its slug");
    assert_eq!(s.call("GET", "/c/crash-made", None, None).status, 200);
    // The page wrote the missing routing row.
    std::thread::sleep(std::time::Duration::from_millis(300));
    s.stop();
    let rows = s.d1_on(
        "DIRECTORY",
        &format!("SELECT COUNT(*) AS n FROM slugs WHERE account_id = {account}"),
    );
    assert_eq!(rows[0]["n"], 3, "crash-test, crash-made, crash-made-2");
}

/// The objects of an `eu` account (its analytics aggregator, its cards' lead throttles)
/// are asked for in the `eu` jurisdiction. Local workerd does not implement jurisdictions,
/// so with the local switch turned on that request fails, visibly: this proves the eu
/// account's calls go through `namespace.jurisdiction("eu")` and a wnam account's do not
/// (only a deployment proves where the objects are then created).
#[test]
fn an_eu_accounts_objects_are_asked_for_in_the_eu_jurisdiction() {
    let s = Server::start(
        "jurisdictions",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("DURABLE_OBJECT_JURISDICTIONS", "on"),
        ],
    );
    let wnam = tenant_in(&s, "wnam");
    let eu = tenant_in(&s, "eu");
    let page = |t: &Tenant, name: &str| {
        let card = t.card(json!({"first_name": name, "last_name": "Juris"}));
        let slug = card["slug"].as_str().unwrap().to_string();
        let r = call(
            "GET",
            &format!("{}/c/{slug}", s.base),
            None,
            None,
            &[("User-Agent", BROWSER)],
        );
        assert_eq!(r.status, 200);
        (card["id"].as_i64().unwrap(), slug)
    };
    let log_says = || {
        std::fs::read_dir(&s.state)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("wrangler"))
            .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
            .any(|e| {
                std::fs::read_to_string(e.path())
                    .unwrap_or_default()
                    .contains("Jurisdiction restrictions are not implemented in workerd")
            })
    };
    let (wnam_card, _) = page(&wnam, "West");
    // The wnam account's view is counted by its (global) aggregator, and nothing asked
    // for a jurisdiction.
    let started = std::time::Instant::now();
    loop {
        let v = wnam
            .get(&format!("/analytics/views?card_id={wnam_card}&period=7d"))
            .json();
        if v["data"]["total_views"] == 1 {
            break;
        }
        assert!(
            started.elapsed().as_secs() < 30,
            "the wnam view was not counted: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    assert!(!log_says(), "a wnam account asked for a jurisdiction");
    // The eu account's lead throttle is asked for in the eu jurisdiction: workerd refuses,
    // the lead is taken (the throttle fails open) and the refusal is logged.
    let (_, eu_slug) = page(&eu, "Europa");
    let r = post_lead(
        &s,
        &eu_slug,
        Some("203.0.113.77"),
        Lead::Json(&visitor(1)),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let started = std::time::Instant::now();
    while !log_says() {
        assert!(
            started.elapsed().as_secs() < 30,
            "no jurisdiction was asked for"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
}

/// The answers a move must leave unchanged, read with the account's token.
fn answers(t: &Tenant, paths: &[String]) -> Vec<Value> {
    paths
        .iter()
        .map(|p| {
            let r = t.get(p);
            assert_eq!(r.status, 200, "{p}: {}", r.body);
            // Card URLs carry the request's origin, and a restarted server has another
            // port: compare without it.
            let text = r.json().to_string().replace(&t.server.base, "ORIGIN");
            serde_json::from_str(&text).unwrap()
        })
        .collect()
}

fn wait_move(s: &Server, id: i64, until: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let m = s.admin("GET", &format!("/moves/{id}"), None).json()["data"].clone();
        if until(&m) {
            return m;
        }
        assert!(
            started.elapsed().as_secs() < 90,
            "the move did not get there: {m}"
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

/// regions.md 4: an account with cards, leads, events, a webhook and pending attempts
/// moves from wnam to eu with a restart of the worker in the middle. Meanwhile its reads
/// answer as before and its writes 503; at the end every API answer is unchanged, the
/// next event continues the sequence, a cursor from before still works, the pending
/// attempts are delivered, and the old shard holds no row of the account.
#[test]
fn a_move_with_a_restart_in_the_middle_ends_done_with_every_answer_unchanged() {
    use crate::webhooks::Receiver;
    let rx = Receiver::start(200);
    let slow = [
        ("ADMIN_TOKEN", ADMIN_TOKEN),
        ("WEBHOOKS_ALLOW_PRIVATE", "true"),
        ("MOVE_BATCH_ROWS", "2"),
        ("MOVE_STEP_MS", "300"),
        ("MOVE_GRACE_MS", "500"),
    ];
    // Attempts are committed and never enqueued (as after a crash): still pending when
    // the move copies them.
    let mut faulty = slow.to_vec();
    faulty.push(("WEBHOOKS_FAULT", "drop-send"));
    let s = Server::start("move", &faulty);
    let account = s.account("enterprise", json!({"data_region": "wnam"}));
    let mut scopes = ALL_SCOPES.to_vec();
    scopes.push("webhooks:write");
    let token = s.token(account, &scopes);
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    let hook = t.send(
        "POST",
        "/webhooks",
        &json!({"url": rx.url("/moved"), "events": ["*"]}),
    );
    assert_eq!(hook.status, 201, "{}", hook.body);
    let hook = hook.json()["data"]["id"].as_i64().unwrap();
    let mut cards = vec![];
    for (i, name) in ["Mia", "Noa", "Ola"].iter().enumerate() {
        let card = t.card(json!({"first_name": name, "last_name": "Mover"}));
        let slug = card["slug"].as_str().unwrap().to_string();
        for j in 0..2 {
            let ip = format!("198.51.100.{}", 10 * i + j + 1);
            let r = post_lead(&s, &slug, Some(&ip), Lead::Json(&visitor(10 * i + j)), &[]);
            assert_eq!(r.status, 201, "{}", r.body);
        }
        cards.push((card["id"].as_i64().unwrap(), slug));
    }
    let events = t.get("/events?limit=4").json();
    let cursor = events["meta"]["next_cursor"].as_str().unwrap().to_string();
    let lead = t.get("/leads").json()["data"][0]["id"].as_i64().unwrap();
    let mut paths: Vec<String> = vec![
        "/cards".into(),
        "/leads".into(),
        format!("/leads/{lead}"),
        "/events".into(),
        format!("/events?after={cursor}"),
        "/webhooks".into(),
        format!("/webhooks/{hook}"),
    ];
    paths.extend(cards.iter().map(|(id, _)| format!("/cards/{id}")));
    let before = answers(&t, &paths);
    // Attempts change as they are made; their ids must not.
    let before_deliveries = t.get(&format!("/webhooks/{hook}/deliveries")).json();
    let pending = before_deliveries["data"].as_array().unwrap();
    assert_eq!(
        pending.len(),
        9,
        "3 card.created and 6 lead.created attempts"
    );
    assert!(
        pending.iter().all(|d| d["status"] == "pending"),
        "{before_deliveries}"
    );

    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/move"),
        Some(json!({"data_region": "wnam"})),
    );
    assert_eq!(r.status, 422, "a move to its own region: {}", r.body);
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/move"),
        Some(json!({"data_region": "eu"})),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let m = r.json()["data"].clone();
    assert_eq!(
        (
            m["status"].clone(),
            m["from_shard"].clone(),
            m["to_shard"].clone()
        ),
        (json!("copying"), json!("SHARD_WNAM_1"), json!("SHARD_EU_1")),
        "{m}"
    );
    let id = m["id"].as_i64().unwrap();
    let again = s.admin(
        "POST",
        &format!("/accounts/{account}/move"),
        Some(json!({"data_region": "apac"})),
    );
    assert_eq!(again.status, 409, "{}", again.body);

    // While it runs: reads as before, writes 503 with Retry-After, nothing changed.
    assert_eq!(answers(&t, &paths), before);
    let w = t.send(
        "PATCH",
        &format!("/cards/{}", cards[0].0),
        &json!({"job_title": "Mover"}),
    );
    assert_eq!(w.status, 503, "{}", w.body);
    assert!(w.header("Retry-After").is_some());
    let r = post_lead(
        &s,
        &cards[0].1,
        Some("198.51.100.99"),
        Lead::Json(&visitor(99)),
        &[],
    );
    assert_eq!(r.status, 503, "{}", r.body);

    // Part-way through the copy, the worker restarts (and the fault switch goes).
    let part = wait_move(&s, id, |m| {
        m["copied"]
            .as_object()
            .is_some_and(|c| c.values().any(|n| n.as_i64() > Some(0)))
    });
    assert_eq!(part["status"], "copying", "{part}");
    let so_far: i64 = part["copied"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_i64)
        .sum();
    assert!(
        so_far < 28,
        "the restart comes before the copy is done: {part}"
    );
    let s = s.restart_with("move-2", &slow);
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    s.cron("* * * * *");
    let done = wait_move(&s, id, |m| m["status"] != "copying");
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(
        done["copied"],
        // The webhook's creation is in the account's security log, which moves with it.
        json!({"cards": 3, "templates": 0, "leads": 6, "events": 9, "webhooks": 1, "deliveries": 9, "idempotency_keys": 0, "security_log": 1}),
        "{done}"
    );
    assert!(done["finished_at"].is_string());

    let a = s.admin("GET", &format!("/accounts/{account}"), None).json();
    assert_eq!(
        (a["data"]["data_region"].clone(), a["data"]["shard"].clone()),
        (json!("eu"), json!("SHARD_EU_1"))
    );
    assert_eq!(answers(&t, &paths), before, "every answer unchanged");
    for (_, slug) in &cards {
        assert_eq!(s.call("GET", &format!("/c/{slug}"), None, None).status, 200);
    }
    // Writes again; the next event continues the sequence.
    let w = t.send(
        "PATCH",
        &format!("/cards/{}", cards[0].0),
        &json!({"job_title": "Moved"}),
    );
    assert_eq!(w.status, 200, "{}", w.body);
    let after = t.get(&format!("/events?after={cursor}")).json();
    let seqs: Vec<i64> = after["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["sequence"].as_i64().unwrap())
        .collect();
    assert_eq!(seqs, (5..=10).collect::<Vec<_>>(), "{after}");
    // The attempts that were pending are delivered (the sweeper sends them again).
    let started = std::time::Instant::now();
    while rx.hits_at("/moved").len() < 10 && started.elapsed().as_secs() < 60 {
        s.cron("* * * * *");
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    assert!(
        rx.hits_at("/moved").len() >= 10,
        "pending attempts and the new one delivered"
    );
    // The attempts kept their ids through the move.
    let ids = |v: &Value| -> Vec<(i64, String)> {
        let mut out: Vec<(i64, String)> = v["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["attempt"] == 1)
            .map(|d| {
                (
                    d["id"].as_i64().unwrap(),
                    d["event_id"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        out.sort();
        out
    };
    let now = t.get(&format!("/webhooks/{hook}/deliveries")).json();
    let kept = ids(&before_deliveries);
    assert!(kept.iter().all(|d| ids(&now).contains(d)), "{now}");
    s.stop();
    for shard in s.shards() {
        let rows = s.d1_on(
            &shard,
            &format!(
                "SELECT (SELECT COUNT(*) FROM accounts WHERE id = {account}) AS accounts, \
                        (SELECT COUNT(*) FROM cards WHERE account_id = {account}) AS cards, \
                        (SELECT COUNT(*) FROM leads WHERE account_id = {account}) AS leads, \
                        (SELECT COUNT(*) FROM events WHERE account_id = {account}) AS events, \
                        (SELECT COUNT(*) FROM webhooks WHERE account_id = {account}) AS webhooks, \
                        (SELECT COUNT(*) FROM deliveries WHERE account_id = {account}) AS deliveries"
            ),
        );
        let total: i64 = rows[0]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_i64().unwrap())
            .sum();
        if shard == "SHARD_EU_1" {
            assert!(total >= 30, "{shard}: {}", rows[0]);
        } else {
            assert_eq!(
                total, 0,
                "{shard} keeps rows of the moved account: {}",
                rows[0]
            );
        }
    }
    let slugs = s.d1_on(
        "DIRECTORY",
        &format!("SELECT DISTINCT shard FROM slugs WHERE account_id = {account}"),
    );
    assert_eq!(slugs, vec![json!({"shard": "SHARD_EU_1"})]);
}

/// regions.md 4 (issue 44): while a move of the account runs, a second move is 409,
/// whichever region it names: the account's own (before the switch, its old region;
/// after it, the target, where the account already shows) or any other. Once the move has
/// ended, a move to the account's own region is 422 again.
#[test]
fn a_second_move_while_one_runs_is_409_whatever_region_it_names() {
    // Slow steps, and a grace long enough to ask during it (after the switch).
    let s = Server::start(
        "move-twice",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("MOVE_STEP_MS", "200"),
            ("MOVE_GRACE_MS", "6000"),
        ],
    );
    let t = tenant_in(&s, "wnam");
    t.card(json!({"first_name": "Twice", "last_name": "Moved"}));
    let path = format!("/accounts/{}/move", t.account);
    let move_to = |region: &str| s.admin("POST", &path, Some(json!({"data_region": region})));
    let r = move_to("eu");
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.json()["data"]["id"].as_i64().unwrap();
    let region = || {
        s.admin("GET", &format!("/accounts/{}", t.account), None)
            .json()["data"]["data_region"]
            .clone()
    };
    let refused = |when: &str| {
        for again in ["eu", "wnam", "apac"] {
            let r = move_to(again);
            assert_eq!(r.status, 409, "{when}, to {again}: {}", r.body);
        }
    };
    assert_eq!(region(), "wnam");
    refused("copying, before the switch");
    // After the switch the account shows its new region while the move still runs.
    let started = std::time::Instant::now();
    while region() != "eu" {
        assert!(started.elapsed().as_secs() < 60, "the move never switched");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let m = s.admin("GET", &format!("/moves/{id}"), None).json()["data"].clone();
    assert_eq!(
        m["status"], "copying",
        "still running after the switch: {m}"
    );
    refused("copying, after the switch");
    let done = wait_move(&s, id, |m| m["status"] != "copying");
    assert_eq!(done["status"], "done", "{done}");
    let r = move_to("eu");
    assert_eq!(r.status, 422, "a move to its own region: {}", r.body);
    assert_eq!(
        r.json()["errors"]["data_region"][0],
        "The account is in eu already."
    );
}

/// regions.md 4: the counts are compared before the directory switches; on a mismatch
/// (the fault switch leaves one lead out of the copy) the move ends `failed`, the account
/// stays where it was and takes writes again, and the target keeps none of its rows.
#[test]
fn a_move_whose_counts_differ_fails_and_the_account_stays() {
    let s = Server::start(
        "move-fails",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("MOVE_FAULT", "drop-row"),
            ("MOVE_GRACE_MS", "0"),
        ],
    );
    let t = tenant_in(&s, "weur");
    let card = t.card(json!({"first_name": "Stay", "last_name": "Put"}));
    let slug = card["slug"].as_str().unwrap();
    for i in 0..2 {
        let ip = format!("192.0.2.{}", 40 + i);
        assert_eq!(
            post_lead(&s, slug, Some(&ip), Lead::Json(&visitor(i)), &[]).status,
            201
        );
    }
    let before = answers(
        &t,
        &[
            "/cards".to_string(),
            "/leads".to_string(),
            "/events".to_string(),
        ],
    );
    let r = s.admin(
        "POST",
        &format!("/accounts/{}/move", t.account),
        Some(json!({"data_region": "apac"})),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let id = r.json()["data"]["id"].as_i64().unwrap();
    let ended = wait_move(&s, id, |m| m["status"] != "copying");
    assert_eq!(ended["status"], "failed", "{ended}");
    let why = ended["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("leads: 2 in the source, 1 in the target"),
        "{ended}"
    );
    let a = s
        .admin("GET", &format!("/accounts/{}", t.account), None)
        .json();
    assert_eq!(
        (a["data"]["data_region"].clone(), a["data"]["shard"].clone()),
        (json!("weur"), json!("SHARD_WEUR_1"))
    );
    assert_eq!(
        answers(
            &t,
            &[
                "/cards".to_string(),
                "/leads".to_string(),
                "/events".to_string()
            ]
        ),
        before
    );
    let id = card["id"].as_i64().unwrap();
    let w = t.send(
        "PATCH",
        &format!("/cards/{id}"),
        &json!({"job_title": "Still here"}),
    );
    assert_eq!(w.status, 200, "writes are taken again: {}", w.body);
    assert_eq!(
        post_lead(&s, slug, Some("192.0.2.50"), Lead::Json(&visitor(5)), &[]).status,
        201
    );
    let account = t.account;
    s.stop();
    let left = s.d1_on(
        "SHARD_APAC_1",
        &format!(
            "SELECT (SELECT COUNT(*) FROM accounts WHERE id = {account}) \
                  + (SELECT COUNT(*) FROM cards WHERE account_id = {account}) \
                  + (SELECT COUNT(*) FROM leads WHERE account_id = {account}) \
                  + (SELECT COUNT(*) FROM events WHERE account_id = {account}) AS n"
        ),
    );
    assert_eq!(left[0]["n"], 0, "the target keeps no row of the account");
}

/// regions.md 1: a shard binding `SHARDS` names that the worker lacks, or a `SHARD_*`
/// binding it does not name, is a configuration error: every request that needs D1
/// answers 500 with a message that names it.
#[test]
fn a_misconfigured_shard_is_a_500_that_names_it() {
    let cases = [
        (
            "SHARD_WNAM_1=wnam,SHARD_WNAM_2=wnam,SHARD_WEUR_1=weur,SHARD_EU_1=eu,SHARD_APAC_1=apac,SHARD_OC_1=oc",
            "SHARD_OC_1",
        ),
        (
            "SHARD_WNAM_1=wnam,SHARD_WNAM_2=wnam,SHARD_WEUR_1=weur,SHARD_EU_1=eu",
            "SHARD_APAC_1",
        ),
    ];
    for (i, (shards, named)) in cases.iter().enumerate() {
        let s = Server::start(
            &format!("misconfigured-{i}"),
            &[("ADMIN_TOKEN", ADMIN_TOKEN), ("SHARDS", shards)],
        );
        let r = s.admin(
            "POST",
            "/accounts",
            Some(json!({"name": "X", "plan": "pro"})),
        );
        assert_eq!(r.status, 500, "{}", r.body);
        let message = r.json()["message"].as_str().unwrap_or_default().to_string();
        assert!(message.contains(named), "{named}: {message}");
        assert_eq!(s.call("GET", "/c/any-card", None, None).status, 500);
        s.stop();
    }
}

/// regions.md 6: creates of one name at the same moment from accounts homed in two regions
/// get two slugs, every round (one object per name answers them one after the other), and
/// each card's page opens as soon as its create has answered (its routing row follows the
/// answer; until then the name's object finds the card).
#[test]
fn creates_of_one_name_from_two_regions_at_once_get_two_slugs_and_open_at_once() {
    let s = Server::start("names-race", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let west = tenant_in(&s, "wnam");
    let eu = tenant_in(&s, "eu");
    for round in 0..20 {
        let body = json!({"first_name": "Twin", "last_name": format!("Race{round}")});
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| west.send("POST", "/cards", &body));
            let b = scope.spawn(|| eu.send("POST", "/cards", &body));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((a.status, b.status), (201, 201), "{} {}", a.body, b.body);
        let slug =
            |r: &crate::harness::Resp| r.json()["data"]["slug"].as_str().unwrap().to_string();
        let mut got = vec![slug(&a), slug(&b)];
        for slug in &got {
            let page = s.call("GET", &format!("/c/{slug}"), None, None);
            assert_eq!(
                page.status, 200,
                "round {round}: /c/{slug} right after its create"
            );
        }
        got.sort();
        let base = format!("twin-race{round}");
        assert_eq!(got, [base.clone(), format!("{base}-2")], "round {round}");
    }
    // A name whose base ends as a suffix does (`Anna Ladder 2`) is one root's with
    // `Anna Ladder`'s: the slugs never meet.
    let mut slugs = vec![];
    for (t, last) in [
        (&west, "Ladder"),
        (&eu, "Ladder"),
        (&west, "Ladder 2"),
        (&eu, "Ladder 2"),
    ] {
        let card = t.card(json!({"first_name": "Anna", "last_name": last}));
        slugs.push(card["slug"].as_str().unwrap().to_string());
    }
    assert_eq!(
        slugs,
        [
            "anna-ladder",
            "anna-ladder-2",
            "anna-ladder-2-2",
            "anna-ladder-2-3"
        ]
    );
}

/// The bytes of every file of the local state (D1 databases and their logs, Durable
/// Object storage, KV, queues) that holds `needle`, but `except`'s.
fn files_holding(s: &Server, needle: &str, except: &[std::path::PathBuf]) -> Vec<String> {
    s.state_files("v3")
        .into_iter()
        .filter(|path| !except.iter().any(|e| path.starts_with(e)))
        .filter(|path| {
            let bytes = std::fs::read(path).unwrap_or_default();
            bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        })
        .map(|path| path.display().to_string())
        .collect()
}

/// The local D1 file (and its log) of the shard that holds `account`'s row.
fn shard_file_of(s: &Server, account: i64) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for path in s.state_files("v3/d1") {
        let name = path.display().to_string();
        if !name.ends_with(".sqlite") || name.contains("metadata") {
            continue;
        }
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        let holds = conn
            .query_row(
                "SELECT COUNT(*) FROM accounts WHERE id = ?1 AND \
                 EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'cards')",
                [account],
                |r| r.get::<_, i64>(0),
            )
            .unwrap_or(0);
        if holds > 0 {
            out.push(path.clone());
            out.push(format!("{name}-wal").into());
            out.push(format!("{name}-shm").into());
        }
    }
    out
}

/// regions.md 6: an eu account's slug is at rest in its eu shard and nowhere else: not in
/// the directory (a keyed hash of it), not in its name's object (a keyed hash of the name
/// and the suffix), not in KV, another shard or any other object, after another account
/// took the name first, and the eu card's page was seen and a lead posted to it. A move carries
/// it out of the EU and back: its page opens after each, the name stays taken, and the
/// shard it left keeps nothing of it.
#[test]
fn an_eu_accounts_slug_is_at_rest_only_in_the_eu_and_moves_carry_it() {
    let moves = [
        ("ADMIN_TOKEN", ADMIN_TOKEN),
        ("MOVE_STEP_MS", "50"),
        ("MOVE_GRACE_MS", "200"),
    ];
    let s = Server::start("names-eu", &moves);
    let eu = tenant_in(&s, "eu");
    let west = tenant_in(&s, "wnam");
    // Another account has the name first: the eu card's slug is the only text that
    // holds `jurgen-eurostein-2`.
    let other = west.card(json!({"first_name": "Jürgen", "last_name": "Eurostein"}));
    assert_eq!(other["slug"], "jurgen-eurostein");
    let card = eu.card(json!({"first_name": "Jürgen", "last_name": "Eurostein"}));
    let slug = card["slug"].as_str().unwrap().to_string();
    assert_eq!(slug, "jurgen-eurostein-2");
    let page = call(
        "GET",
        &format!("{}/c/{slug}", s.base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    );
    assert_eq!(page.status, 200);
    let r = post_lead(&s, &slug, Some("203.0.113.9"), Lead::Json(&visitor(3)), &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    let control = west.card(json!({"first_name": "Walter", "last_name": "Weststein"}));
    assert_eq!(control["slug"], "walter-weststein");
    // The routing rows are written after the answers: let them land.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (account, token) = (eu.account, eu.token.clone());
    let west_account = west.account;
    drop((eu, west));
    let s = s.restart_with("names-eu-2", &moves);
    s.stop();
    let home = shard_file_of(&s, account);
    assert!(!home.is_empty(), "the eu shard's file");
    let at_rest = files_holding(&s, &slug, &[]);
    assert!(!at_rest.is_empty(), "the eu shard holds it");
    assert!(
        at_rest
            .iter()
            .all(|f| home.iter().any(|h| h.display().to_string() == *f)),
        "an eu slug outside the eu shard: {at_rest:?} (eu shard: {home:?})"
    );
    // The test can fail: the wnam account's slug is found in its own shard.
    let west_home = shard_file_of(&s, west_account);
    let seen = files_holding(&s, "walter-weststein", &[]);
    assert!(
        !seen.is_empty()
            && seen
                .iter()
                .all(|f| west_home.iter().any(|h| h.display().to_string() == *f)),
        "{seen:?}"
    );
    // Out of the EU and back: the page opens, the name stays taken.
    let s = s.restart_with("names-eu-3", &moves);
    let eu = Tenant {
        server: &s,
        account,
        token,
    };
    for region in ["weur", "eu"] {
        let r = s.admin(
            "POST",
            &format!("/accounts/{account}/move"),
            Some(json!({"data_region": region})),
        );
        assert_eq!(r.status, 202, "{}", r.body);
        let id = r.json()["data"]["id"].as_i64().unwrap();
        let m = wait_move(&s, id, |m| m["status"] != "copying");
        assert_eq!(m["status"], "done", "{m}");
        let page = s.call("GET", &format!("/c/{slug}"), None, None);
        assert_eq!(page.status, 200, "after the move to {region}");
        let again = eu.card(json!({"first_name": "Jürgen", "last_name": "Eurostein"}));
        assert_eq!(
            again["slug"],
            if region == "weur" {
                "jurgen-eurostein-3"
            } else {
                "jurgen-eurostein-4"
            },
            "{again}"
        );
    }
    drop(eu);
    // The shard it left is emptied after its grace (SQLite keeps freed pages in the file,
    // so this asks the databases): its cards in the eu shard alone, no clear routing row.
    std::thread::sleep(std::time::Duration::from_millis(1_000));
    s.stop();
    for shard in s.shards() {
        let rows = s.d1_on(
            &shard,
            &format!(
                "SELECT COUNT(*) AS n FROM cards \
                 WHERE slug LIKE 'jurgen-eurostein-%' AND account_id = {account}"
            ),
        );
        let want = if shard == "SHARD_EU_1" { 3 } else { 0 };
        assert_eq!(rows[0]["n"], want, "{shard}");
    }
    let rows = s.d1_on(
        "DIRECTORY",
        &format!(
            "SELECT (SELECT COUNT(*) FROM slugs WHERE slug LIKE '%eurostein%') AS clear, \
                    (SELECT COUNT(*) FROM slugs WHERE account_id = {account} \
                       AND shard = 'SHARD_EU_1') AS routed"
        ),
    );
    assert_eq!(
        (rows[0]["clear"].clone(), rows[0]["routed"].clone()),
        (json!(0), json!(3))
    );
}

/// regions.md 6: a create's slug is reserved while the gate is asked; a request that then
/// makes no card (invalid, answered again from its idempotency key) gives it back, so the
/// next card of the name gets it. A deleted account's slugs stay retired for other
/// accounts (regions.md 1).
#[test]
fn a_slug_held_for_a_create_that_makes_no_card_is_given_back() {
    let s = crate::harness::server();
    let t = s.tenant(&ALL_SCOPES);
    // A first request: the isolate now knows the token, so creates hold their slug early.
    assert_eq!(t.get("/cards").status, 200);
    let bad = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "Held", "last_name": "Back", "email": "not an address"}),
    );
    assert_eq!(bad.status, 422, "{}", bad.body);
    let card = t.card(json!({"first_name": "Held", "last_name": "Back"}));
    assert_eq!(
        card["slug"], "held-back",
        "the invalid create gave its slug back"
    );
    let body = json!({"first_name": "Held", "last_name": "Again"}).to_string();
    let url = format!("{}/api/v1/cards", s.base);
    let auth = format!("Bearer {}", t.token);
    let keyed = || {
        call(
            "POST",
            &url,
            None,
            Some(&body),
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
                ("Idempotency-Key", "held-again-1"),
            ],
        )
    };
    let first = keyed();
    assert_eq!(first.status, 201, "{}", first.body);
    let again = keyed();
    assert_eq!(again.status, 201, "{}", again.body);
    assert_eq!(
        again.json()["data"]["id"],
        first.json()["data"]["id"],
        "the kept answer"
    );
    let next = t.card(json!({"first_name": "Held", "last_name": "Again"}));
    assert_eq!(
        next["slug"], "held-again-2",
        "the replay's held slug went back: {next}"
    );
    // An account that goes: its slugs stay another account's for 365 days.
    let gone = s.tenant(&ALL_SCOPES);
    let card = gone.card(json!({"first_name": "Gone", "last_name": "Account"}));
    assert_eq!(card["slug"], "gone-account");
    let r = s.admin("DELETE", &format!("/accounts/{}", gone.account), None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(s.call("GET", "/c/gone-account", None, None).status, 404);
    let other = t.card(json!({"first_name": "Gone", "last_name": "Account"}));
    assert_eq!(other["slug"], "gone-account-2", "retired, not free");
}
