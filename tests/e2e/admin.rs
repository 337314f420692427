//! Operator API (product.md 3).

use serde_json::json;

use crate::harness::{post_lead, server, visitor, Lead, Server, ALL_SCOPES};

#[test]
fn admin_requires_the_admin_token() {
    let s = server();
    for token in [None, Some("wrong")] {
        let r = s.call("POST", "/admin/v1/accounts", token, Some("{}"));
        assert_eq!(r.assert_error(401), json!({"message": "Unauthenticated."}));
    }
}

#[test]
fn admin_does_not_exist_without_admin_token() {
    let s = Server::start("no-admin", &[]);
    for (method, path) in [
        ("POST", "/admin/v1/accounts"),
        ("GET", "/admin/v1/accounts/1/tokens"),
        ("DELETE", "/admin/v1/tokens/1"),
    ] {
        let r = s.call(method, path, Some(""), Some("{}"));
        r.assert_error(404);
    }
}

#[test]
fn accounts_show_effective_plan_values_and_overrides() {
    let s = server();
    let r = s.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "Acme", "plan": "pro"})),
    );
    assert_eq!(r.status, 201);
    let a = r.json()["data"].clone();
    assert_eq!(a["plan"], "pro");
    assert_eq!(a["card_limit"], 5);
    assert_eq!(
        a["features"],
        json!({"api_access": false, "advanced_analytics": true, "white_label": false, "lead_form": true})
    );
    assert!(a["created_at"].as_str().unwrap().ends_with('Z'));
    let id = a["id"].as_i64().unwrap();
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{id}"),
        Some(json!({"card_limit": 20, "features": {"api_access": true, "lead_form": false}})),
    );
    assert_eq!(r.status, 200);
    let a = r.json()["data"].clone();
    assert_eq!(a["card_limit"], 20);
    assert_eq!(a["features"]["api_access"], true);
    assert_eq!(a["features"]["lead_form"], false);
    // null resets an override to the plan's value.
    let r = s.admin(
        "PATCH",
        &format!("/accounts/{id}"),
        Some(json!({"card_limit": null, "features": {"lead_form": null}})),
    );
    assert_eq!(r.json()["data"]["card_limit"], 5);
    assert_eq!(r.json()["data"]["features"]["lead_form"], true);
    s.admin("PATCH", "/accounts/999999", Some(json!({"name": "x"})))
        .assert_error(404);
}

#[test]
fn account_validation() {
    let s = server();
    let r = s.admin(
        "POST",
        "/accounts",
        Some(json!({"plan": "platinum", "card_limit": -1})),
    );
    let v = r.assert_error(422);
    assert_eq!(v["errors"]["name"][0], "The name field is required.");
    assert_eq!(v["errors"]["plan"][0], "The selected plan is invalid.");
    assert!(v["errors"]["card_limit"].is_array());
    assert_eq!(
        v["message"],
        "The name field is required. (and 2 more errors)"
    );
}

#[test]
fn tokens_are_shown_once_with_prefix_and_high_entropy() {
    let s = server();
    let account = s.account("enterprise", json!({}));
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/tokens"),
        Some(json!({"name": "CRM sync", "scopes": ["leads:read", "cards:read", "leads:read"]})),
    );
    assert_eq!(r.status, 201);
    let t = r.json()["data"].clone();
    let token = t["token"].as_str().unwrap();
    assert!(token.starts_with("dbc_"));
    let random = &token[4..];
    assert!(
        random.len() >= 40 && random.chars().all(|c| c.is_ascii_hexdigit()),
        "{token}"
    );
    assert_eq!(t["scopes"], json!(["cards:read", "leads:read"]));
    assert_eq!(t["name"], "CRM sync");
    let second = s.token(account, &["cards:read"]);
    assert_ne!(second, token);

    let list = s.admin("GET", &format!("/accounts/{account}/tokens"), None);
    assert_eq!(list.status, 200);
    let items = list.json()["data"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    for item in &items {
        assert!(
            item.get("token").is_none(),
            "plaintext never listed: {item}"
        );
        assert!(item.get("last_used_at").is_some());
        assert!(!list.body.contains(token));
    }
}

#[test]
fn token_validation_and_missing_resources() {
    let s = server();
    let account = s.account("enterprise", json!({}));
    let path = format!("/accounts/{account}/tokens");
    let v = s
        .admin("POST", &path, Some(json!({"name": "x", "scopes": []})))
        .assert_error(422);
    assert!(v["errors"]["scopes"].is_array());
    let v = s
        .admin(
            "POST",
            &path,
            Some(json!({"name": "x", "scopes": ["cards:admin"]})),
        )
        .assert_error(422);
    assert!(v["errors"]["scopes.0"].is_array());
    s.admin(
        "POST",
        "/accounts/999999/tokens",
        Some(json!({"name": "x", "scopes": ["cards:read"]})),
    )
    .assert_error(404);
    s.admin("GET", "/accounts/999999/tokens", None)
        .assert_error(404);
    s.admin("DELETE", "/tokens/999999", None).assert_error(404);
}

#[test]
fn deleting_an_account_removes_it_its_tokens_cards_and_pages() {
    let s = server();
    let t = s.tenant(&ALL_SCOPES);
    let other = s.tenant(&ALL_SCOPES);
    let card = t.card(json!({"first_name": "Gone", "last_name": "Soon", "show_lead_form": true}));
    let slug = card["slug"].as_str().unwrap().to_string();
    assert_eq!(
        post_lead(
            s,
            &slug,
            Some("198.51.100.77"),
            Lead::Json(&visitor(1)),
            &[]
        )
        .status,
        201
    );
    assert_eq!(s.call("GET", &format!("/c/{slug}"), None, None).status, 200);

    let r = s.admin("DELETE", &format!("/accounts/{}", t.account), None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json(), json!({"message": "Account deleted."}));

    // Its token is refused at once, its page is gone, the account is not found again.
    assert_eq!(
        t.get("/cards").assert_error(401),
        json!({"message": "Unauthenticated."})
    );
    assert_eq!(s.call("GET", &format!("/c/{slug}"), None, None).status, 404);
    s.admin("GET", &format!("/accounts/{}", t.account), None)
        .assert_error(404);
    s.admin("GET", &format!("/accounts/{}/tokens", t.account), None)
        .assert_error(404);
    s.admin("DELETE", &format!("/accounts/{}", t.account), None)
        .assert_error(404);
    // Nobody else's data went with it.
    assert_eq!(other.get("/cards").status, 200);
    assert_eq!(
        s.admin("GET", &format!("/accounts/{}", other.account), None)
            .status,
        200
    );

    let r = s.admin("POST", &format!("/accounts/{}", other.account), None);
    assert_eq!(r.status, 405);
    // PUT updates like PATCH, so Allow names it (Allow comes from the routing table).
    assert_eq!(r.header("allow"), Some("GET, PUT, PATCH, DELETE"));
}

#[test]
fn creates_name_what_they_created_in_location() {
    let s = server();
    let r = s.admin(
        "POST",
        "/accounts",
        Some(json!({"name": "Located", "plan": "enterprise"})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let account = r.json()["data"]["id"].as_i64().unwrap();
    let location = r.header("location").expect("Location").to_string();
    assert_eq!(location, format!("/admin/v1/accounts/{account}"));
    let path = location.strip_prefix("/admin/v1").unwrap();
    let read = s.admin("GET", path, None);
    assert_eq!(read.status, 200, "{}", read.body);
    assert_eq!(read.json()["data"]["name"], "Located");

    // A token is managed (revoked) at its own path.
    let r = s.admin(
        "POST",
        &format!("/accounts/{account}/tokens"),
        Some(json!({"name": "located", "scopes": ["cards:read"]})),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let created = r.json()["data"].clone();
    let location = r.header("location").expect("Location").to_string();
    assert_eq!(location, format!("/admin/v1/tokens/{}", created["id"]));
    let token = created["token"].as_str().unwrap();
    assert_eq!(
        s.call("GET", "/api/v1/cards", Some(token), None).status,
        200
    );
    let path = location.strip_prefix("/admin/v1").unwrap();
    assert_eq!(s.admin("DELETE", path, None).status, 200);
    s.call("GET", "/api/v1/cards", Some(token), None)
        .assert_error(401);
}
