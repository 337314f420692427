//! The account area's integration pages (account-area.md 2): API tokens, webhooks and the
//! security log, driven as a browser posts their forms; what they change is checked
//! through `/api/v1` and the operator API.

use std::time::Duration;

use serde_json::{json, Value};

use crate::app::{invite, join, owner, Browser};
use crate::harness::{server, Server, Tenant};
use crate::webhooks::{hooks_server, Receiver};

const WAIT: Duration = Duration::from_secs(30);

/// `application/x-www-form-urlencoded` of one value.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The text of the `<code class="secret" id="{id}">` block, if the page has one.
fn secret(body: &str, id: &str) -> Option<String> {
    let start = format!("<code class=\"secret\" id=\"{id}\">");
    let from = body.find(&start)? + start.len();
    let len = body[from..].find("</code>")?;
    Some(body[from..from + len].to_string())
}

/// Every number that follows `prefix` in the page (ids in form actions and links), in order.
fn ids_after(body: &str, prefix: &str) -> Vec<i64> {
    body.match_indices(prefix)
        .filter_map(|(i, _)| {
            let rest = &body[i + prefix.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// The event ids of the page's redeliver buttons, in order.
fn redeliver_events(body: &str) -> Vec<String> {
    body.match_indices("/events/")
        .filter_map(|(i, _)| {
            let rest = &body[i + "/events/".len()..];
            let end = rest.find("/redeliver\"")?;
            Some(rest[..end].to_string())
        })
        .collect()
}

/// Form posts a page offers, other than the header's sign-out.
fn post_forms(body: &str) -> usize {
    body.matches("method=\"post\"").count() - body.matches("action=\"/app/sign-out\"").count()
}

fn api(s: &Server, token: &str, method: &str, path: &str, body: Option<Value>) -> u16 {
    let body = body.map(|b| b.to_string());
    s.call(
        method,
        &format!("/api/v1{path}"),
        Some(token),
        body.as_deref(),
    )
    .status
}

/// Creates a token on the page: its plaintext and its id.
fn make_token(b: &mut Browser, name: &str, scopes: &[&str]) -> (String, i64) {
    let mut fields = vec![("name", name)];
    fields.extend(scopes.iter().map(|s| ("scopes", *s)));
    let r = b.post_form("/app/tokens", &form(&fields));
    assert_eq!(r.status, 200, "{}", r.body);
    let token = secret(&r.body, "new-token").expect("the new token on the page");
    let id = *ids_after(&r.body, "action=\"/app/tokens/")
        .last()
        .expect("a revoke form for it");
    (token, id)
}

/// Creates a webhook on the page: its id and secret.
fn make_hook(b: &mut Browser, url: &str, events: &[&str], description: &str) -> (i64, String) {
    let mut fields = vec![("url", url), ("description", description)];
    fields.extend(events.iter().map(|e| ("events", *e)));
    let r = b.post_form("/app/webhooks", &form(&fields));
    assert_eq!(r.status, 200, "{}", r.body);
    let secret = secret(&r.body, "webhook-secret").expect("the secret on the page");
    assert!(secret.starts_with("whsec_"), "{secret}");
    let id = ids_after(&r.body, "action=\"/app/webhooks/")[0];
    (id, secret)
}

#[test]
fn a_token_made_on_the_page_works_with_exactly_its_scopes_and_is_shown_once() {
    let s = server();
    let (_, mut b, _) = owner(s, 41);
    let page = b.get("/app/tokens");
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("action=\"/app/tokens\""));
    for scope in [
        "cards:read",
        "cards:write",
        "leads:read",
        "analytics:read",
        "webhooks:write",
        "leads:write",
        "scim",
    ] {
        assert!(
            page.body
                .contains(&format!("name=\"scopes\" value=\"{scope}\"")),
            "{scope}"
        );
    }

    // Nothing named, nothing chosen: both said on the form, and no token.
    let bad = b.post_form("/app/tokens", "name=&x=1");
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("Give the token a name."), "{}", bad.body);
    assert!(bad.body.contains("Choose at least one scope."));
    assert!(bad.body.contains("aria-invalid=\"true\""));
    assert!(!bad.body.contains("dbc_"));
    // What was posted is kept.
    let kept = b.post_form("/app/tokens", &form(&[("name", "Half"), ("x", "1")]));
    assert_eq!(kept.status, 422);
    assert!(kept.body.contains("value=\"Half\""));

    let (token, _) = make_token(&mut b, "CRM sync", &["cards:read", "leads:read"]);
    assert!(token.starts_with("dbc_") && token.len() == 68, "{token}");
    assert_eq!(api(s, &token, "GET", "/cards", None), 200);
    assert_eq!(api(s, &token, "GET", "/leads", None), 200);
    assert_eq!(
        api(
            s,
            &token,
            "POST",
            "/cards",
            Some(json!({"first_name": "No"}))
        ),
        403
    );
    assert_eq!(api(s, &token, "GET", "/analytics/views", None), 403);
    assert_eq!(api(s, &token, "GET", "/webhooks", None), 403);

    // Listed with its scopes, never shown again.
    let again = b.get("/app/tokens");
    assert_eq!(again.status, 200);
    assert!(!again.body.contains(&token) && !again.body.contains("new-token"));
    assert!(again.body.contains("CRM sync"));
    assert!(again
        .body
        .contains("<td data-label=\"Scopes\">cards:read, leads:read</td>"));
}

#[test]
fn a_token_revoked_on_the_page_is_refused_at_once() {
    let s = server();
    let (_, mut b, _) = owner(s, 42);
    let (token, id) = make_token(&mut b, "Short-lived", &["cards:read"]);
    let page = b.get("/app/tokens");
    assert!(page
        .body
        .contains("<details class=\"confirm\"><summary>Revoke…</summary>"));
    assert!(
        page.body
            .contains("<td data-label=\"Last used\">never</td>"),
        "not used yet: {}",
        page.body
    );
    assert_eq!(api(s, &token, "GET", "/cards", None), 200);

    let r = b.post_form(&format!("/app/tokens/{id}/revoke"), "");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/app/tokens?done=revoked"))
    );
    assert_eq!(api(s, &token, "GET", "/cards", None), 401);
    let after = b.get("/app/tokens?done=revoked");
    assert!(after.body.contains("class=\"notice\" role=\"status\""));
    assert!(!after.body.contains("Short-lived"));

    // Another account's token is not this owner's to revoke.
    let other = s.tenant(&["cards:read"]);
    let theirs: i64 = {
        let r = s.admin("GET", &format!("/accounts/{}/tokens", other.account), None);
        r.json()["data"][0]["id"].as_i64().expect("their token")
    };
    let r = b.post_form(&format!("/app/tokens/{theirs}/revoke"), "");
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(other.get("/cards").status, 200);
}

#[test]
fn an_account_without_api_access_sees_the_upgrade_and_its_post_changes_nothing() {
    let s = server();
    let account = s.account("business", json!({}));
    let url = invite(s, account, "owner@business.example", "owner");
    let (mut b, _) = join(s, &url, 43);
    let page = b.get("/app/tokens");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("business"), "{}", page.body);
    assert!(page.body.contains("does not include"));
    assert!(page.body.contains("top tier, Enterprise"));
    assert!(!page.body.contains("action=\"/app/tokens\""));
    assert_eq!(post_forms(&page.body), 0);

    let r = b.post_form(
        "/app/tokens",
        &form(&[("name", "Sneaky"), ("scopes", "cards:read")]),
    );
    assert_eq!(r.status, 403);
    assert!(!r.body.contains("dbc_"));
    let tokens = s.admin("GET", &format!("/accounts/{account}/tokens"), None);
    assert_eq!(tokens.json()["data"], json!([]));
    let log = b.get("/app/security");
    assert!(!log.body.contains("API token created"));

    // German says the same.
    b.lang = "de";
    let de = b.get("/app/tokens");
    assert!(
        de.body.contains("höchsten Tarif, Enterprise"),
        "{}",
        de.body
    );
}

#[test]
fn a_webhook_made_on_the_page_is_listed_edited_rotated_and_deleted() {
    let s = hooks_server();
    let rx = Receiver::start(200);
    let (account, mut b, _) = owner(s, 44);
    let token = s.token(account, &["webhooks:write", "cards:write", "leads:read"]);
    let t = Tenant {
        server: s,
        account,
        token,
    };

    // Refused with its reasons on the form.
    let bad = b.post_form(
        "/app/webhooks",
        &form(&[("url", "ftp://x"), ("description", "")]),
    );
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert!(bad.body.contains("Choose at least one kind of event."));
    assert!(bad.body.contains("Enter a complete URL"), "{}", bad.body);
    assert!(bad.body.contains("value=\"ftp://x\""));

    let url = rx.url("/page-hook");
    let (id, first) = make_hook(&mut b, &url, &["card.created", "lead.created"], "CRM");
    let list = b.get("/app/webhooks");
    assert!(list.body.contains(&format!("href=\"/app/webhooks/{id}\"")));
    assert!(list.body.contains(&url) && list.body.contains("CRM"));
    assert!(!list.body.contains("whsec_"));
    let one = b.get(&format!("/app/webhooks/{id}"));
    assert_eq!(one.status, 200);
    assert!(!one.body.contains("whsec_"), "the secret is shown once");
    let api_hook = t.get(&format!("/webhooks/{id}")).json()["data"].clone();
    assert_eq!(api_hook["events"], json!(["card.created", "lead.created"]));
    assert_eq!(api_hook["status"], "enabled");

    // Edit and disable.
    let path = format!("/app/webhooks/{id}");
    let changed = rx.url("/page-hook-2");
    let r = b.post_form(
        &path,
        &form(&[
            ("url", &changed),
            ("events", "card.created"),
            ("description", "Changed"),
            ("status", "disabled"),
        ]),
    );
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(r.header("location"), Some(&*format!("{path}?done=saved")));
    let v = t.get(&format!("/webhooks/{id}")).json()["data"].clone();
    assert_eq!(
        (&v["url"], &v["events"], &v["description"], &v["status"]),
        (
            &json!(changed),
            &json!(["card.created"]),
            &json!("Changed"),
            &json!("disabled")
        )
    );
    let shown = b.get(&format!("{path}?done=saved"));
    assert!(shown.body.contains("The webhook was saved."));
    assert!(shown.body.contains("value=\"disabled\" checked=\"\""));
    // A refused edit keeps what was posted and changes nothing.
    let r = b.post_form(
        &path,
        &form(&[("url", ""), ("events", "*"), ("status", "enabled")]),
    );
    assert_eq!(r.status, 422);
    assert!(r.body.contains("Enter the URL that receives the events."));
    assert_eq!(
        t.get(&format!("/webhooks/{id}")).json()["data"]["status"],
        "disabled"
    );
    // Enable again.
    let r = b.post_form(
        &path,
        &form(&[
            ("url", &changed),
            ("events", "*"),
            ("description", ""),
            ("status", "enabled"),
        ]),
    );
    assert_eq!(r.status, 303);
    let v = t.get(&format!("/webhooks/{id}")).json()["data"].clone();
    assert_eq!(
        (&v["status"], &v["events"]),
        (&json!("enabled"), &json!(["*"]))
    );
    assert_eq!(v["description"], Value::Null);

    // Rotate: the new secret once, the old one said to keep signing for a day.
    let r = b.post_form(&format!("{path}/rotate"), "");
    assert_eq!(r.status, 200, "{}", r.body);
    let second = secret(&r.body, "webhook-secret").expect("the new secret");
    assert!(second.starts_with("whsec_") && second != first);
    assert!(r.body.contains("24 hours"));
    assert!(!b.get(&path).body.contains(&second));

    // Delete.
    let r = b.post_form(&format!("{path}/delete"), "");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/app/webhooks?done=deleted"))
    );
    assert_eq!(b.get(&path).status, 404);
    assert_eq!(t.get(&format!("/webhooks/{id}")).status, 404);
    let list = b.get("/app/webhooks?done=deleted");
    assert!(list.body.contains("The webhook was deleted."));
    assert!(!list.body.contains(&changed));
}

#[test]
fn a_webhooks_deliveries_are_paged_and_redelivered() {
    let s = hooks_server();
    let rx = Receiver::start(200);
    let (account, mut b, _) = owner(s, 45);
    let (id, _) = make_hook(&mut b, &rx.url("/paged"), &["*"], "");
    let t = Tenant {
        server: s,
        account,
        token: s.token(account, &["cards:write"]),
    };
    for i in 0..16 {
        t.card(json!({"first_name": format!("Card {i}"), "last_name": "Paged"}));
    }
    let path = format!("/app/webhooks/{id}");
    let first = b.get(&path);
    assert_eq!(first.status, 200);
    let events = redeliver_events(&first.body);
    assert_eq!(events.len(), 15, "one page: {}", first.body);
    assert!(first.body.contains("card.created"));
    assert!(first
        .body
        .contains(&format!("href=\"{path}?page=2\" rel=\"next\"")));
    assert!(first.body.contains("Page 1 / 2"));
    let second = b.get(&format!("{path}?page=2"));
    assert_eq!(redeliver_events(&second.body).len(), 1);
    assert!(second.body.contains("Page 2 / 2"));
    assert!(second
        .body
        .contains(&format!("href=\"{path}?page=1\" rel=\"prev\"")));
    // Newest first: the first card's event is the one on page 2.
    let oldest = &redeliver_events(&second.body)[0];
    assert!(!events.contains(oldest));

    let r = b.post_form(&format!("{path}/events/{oldest}/redeliver"), "");
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some(&*format!("{path}?done=redelivered")))
    );
    let after = b.get(&format!("{path}?done=redelivered"));
    assert!(after.body.contains("The event is sent again"));
    assert_eq!(redeliver_events(&after.body)[0], *oldest, "the newest row");
    assert!(after.body.contains(">2</td>"), "attempt 2: {}", after.body);
    let hits = rx.wait_for("/paged", 17, WAIT);
    assert_eq!(
        hits.iter()
            .filter(|h| h.header("webhook-id") == oldest)
            .count(),
        2
    );
    // An unknown event is no event.
    let r = b.post_form(&format!("{path}/events/evt_nope/redeliver"), "");
    assert_eq!(r.status, 404);
}

#[test]
fn the_security_log_shows_each_change_with_its_member_and_no_address() {
    let s = server();
    let (account, mut b, _) = owner(s, 46);
    let (_, token_id) = make_token(&mut b, "Logged token", &["cards:read"]);
    assert_eq!(
        b.post_form(&format!("/app/tokens/{token_id}/revoke"), "")
            .status,
        303
    );
    let (hook, _) = make_hook(
        &mut b,
        "https://hooks.example.com/logged",
        &["card.created"],
        "",
    );
    assert_eq!(
        b.post_form(&format!("/app/webhooks/{hook}/rotate"), "")
            .status,
        200
    );
    assert_eq!(
        b.post_form(&format!("/app/webhooks/{hook}/delete"), "")
            .status,
        303
    );
    // A token's change names the token; the operator's names the operator.
    let api = s.token(account, &["webhooks:write", "cards:read"]);
    let r = s.call(
        "POST",
        "/api/v1/webhooks",
        Some(&api),
        Some(
            &json!({"url": "https://hooks.example.com/api", "events": ["card.created"]})
                .to_string(),
        ),
    );
    assert_eq!(r.status, 201, "{}", r.body);

    let log = b.get("/app/security");
    assert_eq!(log.status, 200);
    let body = &log.body;
    let me = "owner46@acme.example";
    let rows: Vec<&str> = body.split("<tr>").skip(2).collect();
    let row = |what: &str, detail: &str| {
        rows.iter()
            .find(|r| {
                r.contains(&format!("<td data-label=\"What happened\">{what}</td>"))
                    && r.contains(detail)
            })
            .unwrap_or_else(|| panic!("no row {what} {detail}: {body}"))
            .to_string()
    };
    assert!(row("Signed in", "by accepting an invite").contains(me));
    assert!(row("API token created", "Logged token").contains(me));
    assert!(row("API token revoked", "Logged token").contains(me));
    assert!(row("Webhook created", "https://hooks.example.com/logged").contains(me));
    assert!(row("Webhook secret rotated", "https://hooks.example.com/logged").contains(me));
    assert!(row("Webhook deleted", "https://hooks.example.com/logged").contains(me));
    assert!(row("Webhook created", "https://hooks.example.com/api").contains("token “e2e”"));
    assert!(
        row("API token created", "<td data-label=\"Detail\">e2e</td>").contains("the operator")
    );
    // Newest first, and no client address (the dev server's clients are 127.0.0.1).
    let created = body.find("https://hooks.example.com/api").unwrap();
    let signed_in = body.find("by accepting an invite").unwrap();
    assert!(created < signed_in);
    assert!(!body.contains("127.0.0.1") && !body.contains("::1"));
}

#[test]
fn a_member_sees_no_write_control_and_every_post_is_refused() {
    let s = server();
    let (account, mut o, _) = owner(s, 47);
    let (token, token_id) = make_token(&mut o, "Owner's", &["cards:read"]);
    let (hook, _) = make_hook(&mut o, "https://hooks.example.com/member", &["*"], "Kept");
    let url = invite(s, account, "member47@acme.example", "member");
    let (mut m, _) = join(s, &url, 48);

    let hook_path = format!("/app/webhooks/{hook}");
    for page in ["/app/tokens", "/app/webhooks", &hook_path, "/app/security"] {
        let r = m.get(page);
        assert_eq!(r.status, 200, "{page}: {}", r.body);
        assert_eq!(post_forms(&r.body), 0, "{page}: {}", r.body);
        assert!(r.body.contains("only owners can change it"), "{page}");
        assert!(!r.body.contains("<details class=\"confirm\""), "{page}");
    }
    assert!(m.get("/app/tokens").body.contains("Owner&#39;s"));
    assert!(m
        .get(&hook_path)
        .body
        .contains("https://hooks.example.com/member"));

    let log_before = o.get("/app/security").body.matches("<tr>").count();
    for (path, body) in [
        (
            "/app/tokens".to_string(),
            form(&[("name", "Mine"), ("scopes", "cards:write")]),
        ),
        (format!("/app/tokens/{token_id}/revoke"), String::new()),
        (
            "/app/webhooks".to_string(),
            form(&[("url", "https://hooks.example.com/m"), ("events", "*")]),
        ),
        (
            hook_path.clone(),
            form(&[
                ("url", "https://evil.example.com/"),
                ("events", "*"),
                ("status", "disabled"),
            ]),
        ),
        (format!("{hook_path}/rotate"), String::new()),
        (format!("{hook_path}/delete"), String::new()),
        (
            format!("{hook_path}/events/evt_00000000000000000000000000000000/redeliver"),
            String::new(),
        ),
    ] {
        let r = m.post_form(&path, &body);
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert!(!r.body.contains("dbc_") && !r.body.contains("whsec_"));
    }
    assert_eq!(api(s, &token, "GET", "/cards", None), 200);
    let tokens = s.admin("GET", &format!("/accounts/{account}/tokens"), None);
    assert_eq!(tokens.json()["data"].as_array().map(Vec::len), Some(1));
    let shown = o.get(&hook_path).body;
    assert!(shown.contains("https://hooks.example.com/member") && !shown.contains("evil"));
    assert!(shown.contains("value=\"enabled\" checked=\"\""));
    assert_eq!(
        o.get("/app/security").body.matches("<tr>").count(),
        log_before,
        "nothing logged"
    );
}

#[test]
fn the_pages_speak_german() {
    let s = server();
    let (_, mut b, _) = owner(s, 49);
    b.lang = "de-DE,de;q=0.9";
    let tokens = b.get("/app/tokens");
    for text in [
        "API-Tokens",
        "Token erstellen",
        "Berechtigungen",
        "Karten auflisten und lesen.",
    ] {
        assert!(tokens.body.contains(text), "{text}: {}", tokens.body);
    }
    let bad = b.post_form("/app/tokens", "name=");
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("Geben Sie dem Token einen Namen."));
    assert!(bad
        .body
        .contains("Wählen Sie mindestens eine Berechtigung."));
    let (_, id) = make_token(&mut b, "Deutsch", &["leads:read"]);
    let made = b.get("/app/tokens");
    assert!(made.body.contains("Widerrufen…") && made.body.contains(">nie</td>"));
    assert!(b
        .post_form(&format!("/app/tokens/{id}/revoke"), "")
        .header("location")
        .is_some_and(|l| l.ends_with("done=revoked")));
    assert!(b
        .get("/app/tokens?done=revoked")
        .body
        .contains("Das Token wurde widerrufen"));

    let hooks = b.get("/app/webhooks");
    assert!(hooks.body.contains("Webhook hinzufügen"));
    assert!(hooks.body.contains("eine Karte wurde erstellt"));
    let http = b.post_form(
        "/app/webhooks",
        &form(&[("url", "http://hooks.example.com/x"), ("events", "*")]),
    );
    assert_eq!(http.status, 422);
    assert!(http.body.contains("Die URL muss mit https:// beginnen."));
    let private = b.post_form(
        "/app/webhooks",
        &form(&[("url", "https://10.0.0.1/x"), ("events", "*")]),
    );
    assert!(private.body.contains("öffentlichen Host"));
    let (hook, _) = make_hook(&mut b, "https://hooks.example.com/de", &["*"], "");
    let one = b.get(&format!("/app/webhooks/{hook}"));
    for text in ["Geheimnis erneuern", "Löschen…", "Zustellungen", "aktiv"] {
        assert!(one.body.contains(text), "{text}");
    }

    let log = b.get("/app/security");
    for text in [
        "Sicherheitsprotokoll",
        "Angemeldet",
        "durch Annahme einer Einladung",
        "API-Token erstellt",
        "API-Token widerrufen",
        "Webhook erstellt",
        " UTC",
    ] {
        assert!(log.body.contains(text), "{text}: {}", log.body);
    }
    assert!(log.body.contains("<html lang=\"de\">"));
}
