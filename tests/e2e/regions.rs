//! Data regions (regions.md): accounts of every region pass the same flow, each account's
//! rows live in its shard's local D1 file and in no other, slugs are unique across
//! shards, and a crash between the directory and the shard leaves no slug blocking a name.

use serde_json::json;

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
    // The directory holds no card content, lead or event.
    let tables = s.d1_on(
        "DIRECTORY",
        "SELECT group_concat(name) AS t FROM (SELECT name FROM sqlite_master \
         WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' \
         AND name <> 'd1_migrations' ORDER BY name)",
    );
    assert_eq!(tables[0]["t"], "accounts,moves,slugs,tokens");
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

/// A crash between the directory's reservation and the shard's insert (the fault switch
/// `SLUGS_FAULT=after-reserve`) leaves a pending slug; the sweeper releases it, so the
/// name is free again. A crash between a card's delete and the slug's release is settled
/// the same way. A card that made it keeps its slug.
#[test]
fn a_crash_between_directory_and_shard_leaves_no_slug_blocking_a_name() {
    let s = Server::start(
        "slug-crash",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("SLUGS_FAULT", "after-reserve"),
            ("SLUG_SETTLE_MS", "0"),
        ],
    );
    let t = s.tenant(&ALL_SCOPES);
    let (account, token) = (t.account, t.token.clone());
    let r = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "Crash", "last_name": "Test"}),
    );
    assert_eq!(r.status, 500, "{}", r.body);
    let s = s.restart_with(
        "slug-crash-2",
        &[("ADMIN_TOKEN", ADMIN_TOKEN), ("SLUG_SETTLE_MS", "0")],
    );
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    s.cron("* * * * *");
    let card = t.card(json!({"first_name": "Crash", "last_name": "Test"}));
    assert_eq!(card["slug"], "crash-test", "the name was released: {card}");
    // The sweeper keeps a slug whose card is there.
    s.cron("* * * * *");
    assert_eq!(s.call("GET", "/c/crash-test", None, None).status, 200);
    let s = s.restart_with(
        "slug-crash-3",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("SLUGS_FAULT", "after-delete"),
            ("SLUG_SETTLE_MS", "0"),
        ],
    );
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
    s.cron("* * * * *");
    let again = t.card(json!({"first_name": "Crash", "last_name": "Test"}));
    assert_eq!(
        again["slug"], "crash-test",
        "released after the card went: {again}"
    );
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
