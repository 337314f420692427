//! Findings of the security review of issue 46, each held by a test that fails if it
//! comes back.

use serde_json::{json, Value};

use crate::harness::{Server, Tenant, ADMIN_TOKEN};

fn wait_move(s: &Server, id: i64, until: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let m = s.admin("GET", &format!("/moves/{id}"), None).json()["data"].clone();
        if until(&m) {
            return m;
        }
        assert!(
            started.elapsed().as_secs() < 120,
            "the move did not get there: {m}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// A token and its id, minted by the operator.
fn minted(s: &Server, account: i64, scopes: &[&str]) -> (String, i64) {
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/tokens"),
        Some(json!({"name": "review", "scopes": scopes})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let data = r.json()["data"].clone();
    (
        data["token"].as_str().expect("token").to_string(),
        data["id"].as_i64().expect("id"),
    )
}

/// Finding 1: revocation works at every moment. During a move it is accepted, the token is
/// refused at once (and after the move), and the webhooks it answered for end disabled in
/// the shard the account moved to.
#[test]
fn a_token_revoked_during_a_move_is_refused_at_once_and_its_webhooks_stop() {
    let s = Server::start(
        "revoke-moving",
        &[
            ("ADMIN_TOKEN", ADMIN_TOKEN),
            ("MOVE_STEP_MS", "400"),
            ("MOVE_GRACE_MS", "500"),
        ],
    );
    let account = s.account("enterprise", json!({"data_region": "wnam"}));
    let scopes = ["cards:write", "leads:read", "webhooks:write"];
    let (token, token_id) = minted(&s, account, &scopes);
    let (other, _) = minted(&s, account, &["webhooks:write"]);
    let t = Tenant {
        server: &s,
        account,
        token: token.clone(),
    };
    for i in 0..3 {
        t.card(json!({"first_name": "Moving", "last_name": format!("Person {i}")}));
    }
    let hook = t.send(
        "POST",
        "/webhooks",
        &json!({"url": "https://hooks.example/h", "events": ["*"]}),
    );
    assert_eq!(hook.status, 201, "{}", hook.body);
    let hook_id = hook.json()["data"]["id"].as_i64().expect("webhook id");

    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/move"),
        Some(json!({"data_region": "eu"})),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let move_id = r.json()["data"]["id"].as_i64().expect("move id");
    let copying = wait_move(&s, move_id, |m| m["status"] == "copying");
    assert_eq!(copying["to_shard"], "SHARD_EU_1");

    let revoked = s.admin("DELETE", &format!("/tokens/{token_id}"), None);
    assert_eq!(
        revoked.status, 200,
        "accepted during the move: {}",
        revoked.body
    );
    assert_eq!(t.get("/cards").status, 401, "refused at once");

    let done = wait_move(&s, move_id, |m| m["status"] != "copying");
    assert_eq!(done["status"], "done", "{done}");
    assert_eq!(t.get("/cards").status, 401, "and after the move");
    let hook = s.call(
        "GET",
        &format!("/api/v1/webhooks/{hook_id}"),
        Some(&other),
        None,
    );
    assert_eq!(hook.status, 200, "{}", hook.body);
    assert_eq!(
        hook.json()["data"]["status"],
        "disabled",
        "the revoked token's webhook, in the account's new shard"
    );
}

/// Finding 3: a webhook's signing secret signs every event it carries, so rotating it (the
/// one answer besides create that reveals it) needs the scopes to read all of them, as
/// create and update do. Of the webhook operations: create and update check what it will
/// carry (webhooks::a_webhook_carries_only_events_its_token_may_read), redeliver what the
/// event is (the same test), rotate what it carries (here); delete reveals nothing and
/// stops what it carried; get, list and deliveries show no secret and no event body.
#[test]
fn rotating_a_secret_needs_the_scopes_of_every_event_the_webhook_carries() {
    let s = crate::harness::server();
    let account = s.account("enterprise", json!({}));
    let (full, _) = minted(s, account, &["cards:read", "leads:read", "webhooks:write"]);
    let (hooks_only, _) = minted(s, account, &["webhooks:write"]);
    let (cards_only, _) = minted(s, account, &["cards:read", "webhooks:write"]);
    let send = |token: &str, method: &str, path: &str, body: Option<Value>| {
        let body = body.map(|b| b.to_string());
        s.call(
            method,
            &format!("/api/v1{path}"),
            Some(token),
            body.as_deref(),
        )
    };
    let make = |events: Value| {
        let r = send(
            &full,
            "POST",
            "/webhooks",
            Some(json!({"url": "https://hooks.example/h", "events": events})),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        r.json()["data"]["id"].as_i64().expect("id")
    };
    let (leads, cards, all) = (
        make(json!(["lead.created"])),
        make(json!(["card.created"])),
        make(json!(["*"])),
    );
    for (token, hook) in [
        (&hooks_only, leads),
        (&hooks_only, cards),
        (&cards_only, leads),
        (&cards_only, all),
    ] {
        let r = send(
            token,
            "POST",
            &format!("/webhooks/{hook}/rotate-secret"),
            None,
        );
        let e = r.assert_error(403);
        assert!(
            e.get("data").is_none() && !r.body.contains("whsec_"),
            "{}",
            r.body
        );
    }
    for (token, hook) in [(&cards_only, cards), (&full, leads), (&full, all)] {
        let r = send(
            token,
            "POST",
            &format!("/webhooks/{hook}/rotate-secret"),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        assert!(r.json()["data"]["secret"]
            .as_str()
            .is_some_and(|x| x.starts_with("whsec_")));
    }
}

fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    format!("{}{nanos}", std::process::id())
}

/// Finding 2: a deleted card's slug is retired (regions.md 1): for 365 days no other account
/// takes it, through every door that deletes a card (the API, SCIM, deleting the account),
/// and its page answers 404; the account that deleted it gets it back. (The 365 days and
/// their end are held by `store::sql_check::slugs`.)
#[test]
fn a_deleted_cards_slug_is_retired_for_other_accounts() {
    let s = crate::harness::server();
    let owner = s.tenant(&crate::harness::ALL_SCOPES);
    let other_account = s.account("enterprise", json!({"data_region": "weur"}));
    let other = Tenant {
        server: s,
        account: other_account,
        token: s.token(other_account, &crate::harness::ALL_SCOPES),
    };
    let last = format!("Retired{}", unique());
    let card = |t: &Tenant| t.card(json!({"first_name": "Ada", "last_name": last}));
    let made = card(&owner);
    let slug = made["slug"].as_str().expect("slug").to_string();
    let id = made["id"].as_i64().unwrap();
    assert_eq!(
        owner
            .send("DELETE", &format!("/cards/{id}"), &json!({}))
            .status,
        200
    );
    assert_eq!(s.call("GET", &format!("/c/{slug}"), None, None).status, 404);
    assert_eq!(
        card(&other)["slug"],
        format!("{slug}-2"),
        "not another account's"
    );
    assert_eq!(
        card(&owner)["slug"],
        slug,
        "the account that deleted it gets it back"
    );

    // SCIM's delete retires too.
    let (scim, _) = minted(s, owner.account, &["scim"]);
    let user = s.call(
        "POST",
        "/scim/v2/Users",
        Some(&scim),
        Some(
            &json!({"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                "userName": format!("grace-{}@example.com", unique()),
                "name": {"givenName": "Grace", "familyName": last}})
            .to_string(),
        ),
    );
    assert_eq!(user.status, 201, "{}", user.body);
    let user_id = user.json()["id"].as_str().expect("id").to_string();
    let grace = owner.get(&format!("/cards/{user_id}")).json()["data"]["slug"]
        .as_str()
        .expect("the User's card")
        .to_string();
    let deleted = s.call(
        "DELETE",
        &format!("/scim/v2/Users/{user_id}"),
        Some(&scim),
        None,
    );
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let taken = other.card(json!({"first_name": "Grace", "last_name": last}));
    assert_ne!(
        taken["slug"],
        grace.as_str(),
        "SCIM's delete retires it too"
    );

    // Deleting the account retires every slug it had.
    let gone = s.tenant(&crate::harness::ALL_SCOPES);
    let kept = gone.card(json!({"first_name": "Gone", "last_name": last}))["slug"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        s.admin("DELETE", &format!("/accounts/{}", gone.account), None)
            .status,
        200
    );
    let after = other.card(json!({"first_name": "Gone", "last_name": last}));
    assert_eq!(after["slug"], format!("{kept}-2"));
}
