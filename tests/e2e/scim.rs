//! SCIM 2.0 service provider and external-id upserts (provisioning.md 1 and 2), driven the way
//! the identity providers drive it: the requests Microsoft Entra ID and Okta document, with
//! their bodies as published (only the userName, externalId and e-mail values are made
//! unique per run, as the accounts share one server). scim2-tester checks the protocol at
//! large in the contract run (tests/contract/scim.sh); these tests hold the vendors' shapes
//! (`"op": "Replace"`, `"value": "False"`, a path-less replace, value filters in paths) and
//! what a SCIM change does to the card.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::harness::{call, server, Resp, Server};

const ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const CORE: &str = "urn:ietf:params:scim:schemas:core:2.0:User";

/// An enterprise account with a `scim` token (the identity provider's) and a `cards:read`
/// one (to look at the cards SCIM makes).
struct Idp<'a> {
    server: &'a Server,
    account: i64,
    scim: String,
    reader: String,
}

fn idp() -> Idp<'static> {
    let s = server();
    let account = s.account("enterprise", json!({}));
    Idp {
        server: s,
        account,
        scim: s.token(account, &["scim"]),
        reader: s.token(account, &["cards:read"]),
    }
}

impl Idp<'_> {
    /// A SCIM request, as the identity providers send it (`application/scim+json`).
    fn scim(&self, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let body = body.map(Value::to_string);
        call(
            method,
            &format!("{}/scim/v2{path}", self.server.base),
            Some(&self.scim),
            body.as_deref(),
            &[
                ("Content-Type", "application/scim+json; charset=utf-8"),
                ("Accept", "application/scim+json"),
            ],
        )
    }

    /// The card behind a SCIM User (its id is the card id), through the cards API.
    fn card(&self, id: &str) -> Value {
        let r = self.server.call(
            "GET",
            &format!("/api/v1/cards/{id}"),
            Some(&self.reader),
            None,
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["data"].clone()
    }

    fn page_status(&self, slug: &str) -> u16 {
        self.server
            .call("GET", &format!("/c/{slug}"), None, None)
            .status
    }
}

/// A value no other test of this run (or an earlier run on a kept state) has.
fn unique() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{:x}{:x}{}",
        std::process::id(),
        nanos,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Percent-encodes a query parameter value (filters carry spaces and quotes).
fn enc(v: &str) -> String {
    v.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A SCIM success body: JSON with the SCIM media type.
fn scim_json(r: &Resp, status: u16) -> Value {
    assert_eq!(r.status, status, "{}", r.body);
    assert!(
        r.header("content-type")
            .is_some_and(|t| t.starts_with("application/scim+json")),
        "{r:?}"
    );
    serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", r.body))
}

/// A SCIM error (RFC 7644 3.12): the Error schema, `status` as a string, a `detail`, and
/// the `scimType` when RFC 7644 names one.
fn assert_scim_error(r: &Resp, status: u16, scim_type: Option<&str>) -> Value {
    let v = scim_json(r, status);
    assert_eq!(v["schemas"], json!([ERROR]), "{v}");
    assert_eq!(v["status"], json!(status.to_string()), "{v}");
    assert!(v["detail"].is_string(), "{v}");
    if let Some(t) = scim_type {
        assert_eq!(v["scimType"], json!(t), "{v}");
    }
    v
}

/// A ListResponse (RFC 7644 3.4.2) of `n` users from `start`; integers, not strings.
fn assert_list(v: &Value, total: u64, start: u64, n: usize) -> Vec<Value> {
    assert_eq!(v["schemas"], json!([LIST]), "{v}");
    assert_eq!(v["totalResults"], json!(total), "{v}");
    assert_eq!(v["startIndex"], json!(start), "{v}");
    assert_eq!(v["itemsPerPage"], json!(n), "{v}");
    // Resources may be left out when there are none (RFC 7644 3.4.2).
    let resources = v
        .get("Resources")
        .map(|r| r.as_array().expect("Resources is an array").clone())
        .unwrap_or_default();
    assert_eq!(resources.len(), n, "{v}");
    resources
}

/// The parts of a User every response carries (provisioning.md 2, "Users").
fn assert_user(u: &Value, location_base: &str) -> String {
    assert!(
        u["schemas"]
            .as_array()
            .is_some_and(|s| s.contains(&json!(CORE))),
        "{u}"
    );
    let id = u["id"].as_str().expect("id is a string").to_string();
    assert!(id.parse::<i64>().is_ok(), "the card id: {u}");
    assert_eq!(u["meta"]["resourceType"], "User", "{u}");
    assert!(u["meta"]["created"].is_string(), "{u}");
    assert!(u["meta"]["lastModified"].is_string(), "{u}");
    assert_eq!(
        u["meta"]["location"],
        json!(format!("{location_base}/scim/v2/Users/{id}")),
        "{u}"
    );
    assert!(u.get("password").is_none(), "never returned: {u}");
    id
}

/// Microsoft Entra ID provisioning one user through its lifecycle.
///
/// Requests and responses: "Tutorial: Develop and plan provisioning for a SCIM endpoint in
/// Microsoft Entra ID", section "SCIM protocol requests and responses" > "User Operations"
/// (Create User, Get User, Get User by query, Get User by query - Zero results, Update User
/// [Multi-valued properties], Update User [Single-valued properties], Disable User, Delete
/// User): https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#user-operations
///
/// The shapes Entra sends today without the `aadOptscim062020` flag (`"value": "False"` as a
/// string, `"op": "Replace"`) and with it (lower-case op, a path-less replace with dotted
/// attribute names): "Known issues and resolutions with SCIM 2.0 protocol compliance of the
/// Microsoft Entra user provisioning service", section "Flags to alter the SCIM behavior":
/// https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility#flags-to-alter-the-scim-behavior
#[test]
fn entra_id_sequence() {
    let t = idp();
    let base = t.server.base.clone();
    let u = unique();
    let user_name = format!("Test_User_{u}");
    let email = format!("Test_User_{u}@testuser.com");
    let external_id = format!("0a21f0f2-8d2a-4f8e-bf98-{u}");

    // Get User by query - Zero results (verbatim), then the user about to be created.
    let r = t.scim(
        "GET",
        &format!(
            "/Users?filter={}",
            enc(r#"userName eq "non-existent user""#)
        ),
        None,
    );
    assert_list(&scim_json(&r, 200), 0, 1, 0);
    let by_name = |name: &str| {
        t.scim(
            "GET",
            &format!("/Users?filter={}", enc(&format!("userName eq \"{name}\""))),
            None,
        )
    };
    assert_list(&scim_json(&by_name(&user_name), 200), 0, 1, 0);

    // Create User: the published body, `name.formatted`, `roles` and `meta` included.
    let r = t.scim(
        "POST",
        "/Users",
        Some(&json!({
            "schemas": [
                "urn:ietf:params:scim:schemas:core:2.0:User",
                "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
            "externalId": external_id,
            "userName": user_name,
            "active": true,
            "emails": [{
                "primary": true,
                "type": "work",
                "value": email
            }],
            "meta": {
                "resourceType": "User"
            },
            "name": {
                "formatted": "givenName familyName",
                "familyName": "familyName",
                "givenName": "givenName"
            },
            "roles": []
        })),
    );
    let created = scim_json(&r, 201);
    let id = assert_user(&created, &base);
    assert_eq!(created["userName"], json!(user_name), "{created}");
    assert_eq!(created["externalId"], json!(external_id), "{created}");
    assert_eq!(created["active"], json!(true), "{created}");
    // Every sub-attribute of `name` reads back as written (issue 44).
    assert_eq!(
        created["name"],
        json!({"formatted": "givenName familyName", "familyName": "familyName",
            "givenName": "givenName"}),
        "{created}"
    );
    assert_eq!(
        created["emails"],
        json!([{"value": email, "type": "work", "primary": true}]),
        "{created}"
    );
    let card = t.card(&id);
    assert_eq!(card["first_name"], "givenName", "{card}");
    assert_eq!(card["last_name"], "familyName", "{card}");
    assert_eq!(card["email"], json!(email), "{card}");
    assert_eq!(card["external_id"], json!(external_id), "{card}");
    assert_eq!(card["status"], "active", "{card}");
    let slug = card["slug"].as_str().unwrap().to_string();
    assert_eq!(t.page_status(&slug), 200);

    // Get User, and Get User by query.
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_user(&got, &base);
    assert_eq!(got["userName"], json!(user_name), "{got}");
    let found = assert_list(&scim_json(&by_name(&user_name), 200), 1, 1, 1);
    assert_eq!(found[0]["id"], json!(id), "{found:?}");
    assert_eq!(found[0]["userName"], json!(user_name), "{found:?}");

    // Update User [Multi-valued properties] (verbatim).
    let r = t.scim(
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [
                    {
                    "op": "Replace",
                    "path": "emails[type eq \"work\"].value",
                    "value": "updatedEmail@microsoft.com"
                    },
                    {
                    "op": "Replace",
                    "path": "name.familyName",
                    "value": "updatedFamilyName"
                    }
            ]
        })),
    );
    let patched = scim_json(&r, 200);
    assert_user(&patched, &base);
    assert_eq!(
        patched["emails"],
        json!([{"value": "updatedEmail@microsoft.com", "type": "work", "primary": true}]),
        "{patched}"
    );
    assert_eq!(
        patched["name"]["familyName"], "updatedFamilyName",
        "{patched}"
    );
    assert_eq!(patched["name"]["givenName"], "givenName", "{patched}");
    let card = t.card(&id);
    assert_eq!(card["email"], "updatedEmail@microsoft.com", "{card}");
    assert_eq!(card["last_name"], "updatedFamilyName", "{card}");
    assert_eq!(card["first_name"], "givenName", "{card}");

    // Update User [Single-valued properties] (verbatim, but a userName of this run).
    let new_name = format!("5b50642d-79fc-4410-9e90-{u}@testuser.com");
    let r = t.scim(
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{
                "op": "Replace",
                "path": "userName",
                "value": new_name
            }]
        })),
    );
    assert_eq!(scim_json(&r, 200)["userName"], json!(new_name));
    assert_list(&scim_json(&by_name(&user_name), 200), 0, 1, 0);
    let found = assert_list(&scim_json(&by_name(&new_name), 200), 1, 1, 1);
    assert_eq!(found[0]["id"], json!(id));

    // Known issues, "Requests to replace multiple attributes", without the flag (the
    // enterprise `employeeNumber` operation left out: the service does not keep it).
    let r = t.scim(
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": [
                "urn:ietf:params:scim:api:messages:2.0:PatchOp"
            ],
            "Operations": [
                {
                    "op": "Replace",
                    "path": "displayName",
                    "value": "Pvlo"
                },
                {
                    "op": "Replace",
                    "path": "emails[type eq \"work\"].value",
                    "value": "TestBcwqnm@test.microsoft.com"
                },
                {
                    "op": "Replace",
                    "path": "name.givenName",
                    "value": "Gtfd"
                },
                {
                    "op": "Replace",
                    "path": "name.familyName",
                    "value": "Pkqf"
                },
                {
                    "op": "Replace",
                    "path": "externalId",
                    "value": format!("Eqpj{u}")
                }
            ]
        })),
    );
    let v = scim_json(&r, 200);
    assert_eq!(v["displayName"], "Pvlo", "{v}");
    assert_eq!(v["externalId"], json!(format!("Eqpj{u}")), "{v}");
    let card = t.card(&id);
    assert_eq!(
        (&card["first_name"], &card["last_name"], &card["email"]),
        (
            &json!("Gtfd"),
            &json!("Pkqf"),
            &json!("TestBcwqnm@test.microsoft.com")
        ),
        "{card}"
    );
    assert_eq!(card["external_id"], json!(format!("Eqpj{u}")), "{card}");

    // The same with the flag: lower-case op, one value-path replace and one path-less
    // replace whose value names attributes with dots.
    let r = t.scim(
        "PATCH",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": [
                "urn:ietf:params:scim:api:messages:2.0:PatchOp"
            ],
            "Operations": [
                {
                    "op": "replace",
                    "path": "emails[type eq \"work\"].value",
                    "value": "TestMhvaes@test.microsoft.com"
                },
                {
                    "op": "replace",
                    "value": {
                        "displayName": "Bjfe",
                        "name.givenName": "Kkom",
                        "name.familyName": "Unua"
                    }
                }
            ]
        })),
    );
    let v = scim_json(&r, 200);
    assert_eq!(v["displayName"], "Bjfe", "{v}");
    assert_eq!(v["name"]["givenName"], "Kkom", "{v}");
    assert_eq!(v["name"]["familyName"], "Unua", "{v}");
    let card = t.card(&id);
    assert_eq!(
        (&card["first_name"], &card["last_name"], &card["email"]),
        (
            &json!("Kkom"),
            &json!("Unua"),
            &json!("TestMhvaes@test.microsoft.com")
        ),
        "{card}"
    );

    // Disable User as Entra sends it without the flag: the boolean as the string "False".
    // The card is archived and its page gone; the user is still there, inactive.
    let active = |value: Value, op: &str| {
        let r = t.scim(
            "PATCH",
            &format!("/Users/{id}"),
            Some(&json!({
                "schemas": [
                    "urn:ietf:params:scim:api:messages:2.0:PatchOp"
                ],
                "Operations": [
                    {
                        "op": op,
                        "path": "active",
                        "value": value
                    }
                ]
            })),
        );
        scim_json(&r, 200)
    };
    assert_eq!(active(json!("False"), "Replace")["active"], json!(false));
    assert_eq!(t.card(&id)["status"], "archived");
    assert_eq!(t.page_status(&slug), 404);
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_eq!(got["active"], json!(false), "{got}");
    let found = assert_list(&scim_json(&by_name(&new_name), 200), 1, 1, 1);
    assert_eq!(found[0]["active"], json!(false), "{found:?}");

    // Re-enabled ("True"): the card is active and its page back.
    assert_eq!(active(json!("True"), "Replace")["active"], json!(true));
    assert_eq!(t.card(&id)["status"], "active");
    assert_eq!(t.page_status(&slug), 200);

    // Disable User as published in the tutorial and with the flag: a JSON boolean.
    assert_eq!(active(json!(false), "Replace")["active"], json!(false));
    assert_eq!(t.page_status(&slug), 404);
    assert_eq!(active(json!(true), "replace")["active"], json!(true));
    assert_eq!(t.page_status(&slug), 200);

    // Delete User: 204 with no body; then the user, the card and its page are gone.
    let r = t.scim("DELETE", &format!("/Users/{id}"), None);
    assert_eq!(r.status, 204, "{}", r.body);
    assert!(r.body.is_empty(), "{}", r.body);
    assert_scim_error(&t.scim("GET", &format!("/Users/{id}"), None), 404, None);
    let r = t
        .server
        .call("GET", &format!("/api/v1/cards/{id}"), Some(&t.reader), None);
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(t.page_status(&slug), 404);
    assert_list(&scim_json(&by_name(&new_name), 200), 0, 1, 0);
}

/// Okta provisioning one user (an OIN integration: updates by PUT, (de)activation by PATCH).
///
/// Requests and responses: Okta "SCIM 2.0 Protocol Reference", section "SCIM User
/// operations" (Determine if the User already exists, Create the User, Retrieve Users,
/// Retrieve a specific User, Update a specific User (PUT), Update a specific User (PATCH)):
/// https://developer.okta.com/docs/reference/scim/scim-20/#scim-user-operations
/// Okta never deletes a user ("Delete Users": it deactivates instead), so neither does this.
#[test]
fn okta_sequence() {
    let t = idp();
    let base = t.server.base.clone();
    let u = unique();
    let user_name = format!("test.user.{u}@okta.local");
    let external_id = format!("00ujl29u0le5T6Aj10h7{u}");
    let lookup = format!(
        "/Users?filter=userName%20eq%20%22{}%22&startIndex=1&count=100",
        enc(&user_name)
    );

    // Determine if the User already exists: not yet.
    assert_list(&scim_json(&t.scim("GET", &lookup, None), 200), 0, 1, 0);

    // Create the User: the published body, `locale`, `groups` and `password` included.
    let r = t.scim(
        "POST",
        "/Users",
        Some(&json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": user_name,
            "name": {
                "givenName": "Test",
                "familyName": "User"
            },
            "emails": [{
                "primary": true,
                "value": user_name,
                "type": "work"
            }],
            "displayName": "Test User",
            "locale": "en-US",
            "externalId": external_id,
            "groups": [],
            "password": "1mz050nq",
            "active": true
        })),
    );
    let created = scim_json(&r, 201);
    let id = assert_user(&created, &base);
    assert_eq!(created["userName"], json!(user_name), "{created}");
    assert_eq!(
        created["name"],
        json!({"givenName": "Test", "familyName": "User"}),
        "{created}"
    );
    assert_eq!(
        created["emails"],
        json!([{"primary": true, "value": user_name, "type": "work"}]),
        "{created}"
    );
    assert_eq!(created["displayName"], "Test User", "{created}");
    assert_eq!(created["externalId"], json!(external_id), "{created}");
    assert_eq!(created["active"], json!(true), "{created}");
    let card = t.card(&id);
    assert_eq!(card["first_name"], "Test", "{card}");
    assert_eq!(card["last_name"], "User", "{card}");
    assert_eq!(card["email"], json!(user_name), "{card}");
    assert_eq!(card["external_id"], json!(external_id), "{card}");
    let slug = card["slug"].as_str().unwrap().to_string();
    assert_eq!(t.page_status(&slug), 200);

    // The same lookup now finds it; a second POST of the user is a conflict.
    let found = assert_list(&scim_json(&t.scim("GET", &lookup, None), 200), 1, 1, 1);
    assert_eq!(found[0]["id"], json!(id));
    let r = t.scim(
        "POST",
        "/Users",
        Some(&json!({"schemas": [CORE], "userName": user_name})),
    );
    assert_scim_error(&r, 409, Some("uniqueness"));

    // Retrieve Users (import): page by page, with integers.
    let all = scim_json(&t.scim("GET", "/Users?startIndex=1&count=100", None), 200);
    let users = assert_list(&all, 1, 1, 1);
    assert_eq!(users[0]["id"], json!(id));

    // Retrieve a specific User.
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_user(&got, &base);
    assert_eq!(got["userName"], json!(user_name), "{got}");

    // Update a specific User (PUT): the published body (with `id`, `meta`, `middleName`,
    // `emails.display` and `groups`), the given name changed.
    let r = t.scim(
        "PUT",
        &format!("/Users/{id}"),
        Some(&json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "id": id,
            "userName": user_name,
            "name": {
                "givenName": "Another",
                "middleName": "Excited",
                "familyName": "User"
            },
            "emails": [{
                "primary": true,
                "value": user_name,
                "type": "work",
                "display": user_name
            }],
            "active": true,
            "groups": [],
            "meta": {
                "resourceType": "User"
            }
        })),
    );
    let replaced = scim_json(&r, 200);
    assert_user(&replaced, &base);
    // The User reads back as written (issue 44: `middleName` and `display` were dropped),
    // in the answer and in a later GET.
    let written_name =
        json!({"givenName": "Another", "middleName": "Excited", "familyName": "User"});
    let written_emails =
        json!([{"primary": true, "value": user_name, "type": "work", "display": user_name}]);
    assert_eq!(replaced["name"], written_name, "{replaced}");
    assert_eq!(replaced["emails"], written_emails, "{replaced}");
    assert_eq!(replaced["active"], json!(true), "{replaced}");
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_eq!(got["name"], written_name, "{got}");
    assert_eq!(got["emails"], written_emails, "{got}");
    let card = t.card(&id);
    assert_eq!(card["first_name"], "Another", "{card}");
    assert_eq!(card["last_name"], "User", "{card}");
    assert_eq!(card["status"], "active", "{card}");

    // Update a specific User (PATCH): deactivation, a path-less replace. Okta accepts the
    // updated user or a 204; the user must then read as inactive.
    let set_active = |active: bool| {
        let r = t.scim(
            "PATCH",
            &format!("/Users/{id}"),
            Some(&json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{
                    "op": "replace",
                    "value": {
                        "active": active
                    }
                }]
            })),
        );
        if r.status == 204 {
            assert!(r.body.is_empty(), "{}", r.body);
        } else {
            assert_eq!(scim_json(&r, 200)["active"], json!(active), "{}", r.body);
        }
        let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
        assert_eq!(got["active"], json!(active), "{got}");
    };
    set_active(false);
    assert_eq!(t.card(&id)["status"], "archived");
    assert_eq!(t.page_status(&slug), 404);
    // Still found by the lookup, as Okta matches a returning user to it.
    let found = assert_list(&scim_json(&t.scim("GET", &lookup, None), 200), 1, 1, 1);
    assert_eq!(found[0]["active"], json!(false));

    // Reactivation: the same request with `true`.
    set_active(true);
    assert_eq!(t.card(&id)["status"], "active");
    assert_eq!(t.page_status(&slug), 200);
    // The PATCHes changed `active` only.
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_eq!(got["name"], written_name, "{got}");
    assert_eq!(got["emails"], written_emails, "{got}");
}

/// provisioning.md 1: concurrent upserts of one new external id make one card; one request
/// creates it (201), the others update it (200) or answer 409.
#[test]
fn ten_concurrent_upserts_make_one_card() {
    let t = server().tenant(&["cards:write", "cards:read"]);
    let external_id = format!("hr-{}", unique());
    let path = format!("/cards/external/{}", enc(&external_id));
    let body = json!({"first_name": "A", "last_name": "B"});
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..10)
            .map(|_| s.spawn(|| t.send("PUT", &path, &body)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let r = h.join().unwrap();
                assert!(
                    matches!(r.status, 200 | 201 | 409),
                    "{} {}",
                    r.status,
                    r.body
                );
                r.status
            })
            .collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    let r = t.get(&format!("/cards?external_id={}", enc(&external_id)));
    assert_eq!(r.status, 200, "{}", r.body);
    let cards = r.json()["data"].as_array().unwrap().clone();
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0]["external_id"], json!(external_id));
    assert_eq!(cards[0]["first_name"], "A");
    assert_eq!(cards[0]["last_name"], "B");
}

/// provisioning.md 2: auth, unsupported Groups, a filter the service cannot parse and a
/// taken userName, each answered with a SCIM error.
#[test]
fn scim_errors_and_auth() {
    let t = idp();
    let s = t.server;
    let url = |p: &str| format!("{}/scim/v2{p}", s.base);
    let scim_headers = [("Accept", "application/scim+json")];

    // No token, a token that is no token: 401. A token without the scim scope: 403.
    let r = call("GET", &url("/Users"), None, None, &scim_headers);
    assert_scim_error(&r, 401, None);
    let r = call(
        "GET",
        &url("/Users"),
        Some("not-a-token"),
        None,
        &scim_headers,
    );
    assert_scim_error(&r, 401, None);
    let r = call("GET", &url("/Users"), Some(&t.reader), None, &scim_headers);
    assert_scim_error(&r, 403, None);
    let account = s.account("enterprise", json!({}));
    let writer = s.token(account, &["cards:write", "cards:read", "leads:read"]);
    let r = call("GET", &url("/Users"), Some(&writer), None, &scim_headers);
    assert_scim_error(&r, 403, None);

    // Groups are not supported, and discovery does not list them.
    assert_scim_error(&t.scim("GET", "/Groups", None), 404, None);
    let types = scim_json(&t.scim("GET", "/ResourceTypes", None), 200);
    assert!(!types.to_string().contains("Group"), "{types}");

    // Filters the service cannot parse or does not support.
    for filter in [
        r#"userName eq"#,
        r#"userName zz "x""#,
        r#"(userName eq "x""#,
        r#"userName eq "x" and"#,
    ] {
        let r = t.scim("GET", &format!("/Users?filter={}", enc(filter)), None);
        assert_scim_error(&r, 400, Some("invalidFilter"));
    }

    // A userName already used in the account, in any case: 409 uniqueness, nothing made.
    let name = format!("dup.{}@example.com", unique());
    let r = t.scim(
        "POST",
        "/Users",
        Some(&json!({"schemas": [CORE], "userName": name, "name": {"givenName": "Du", "familyName": "Plicate"}})),
    );
    scim_json(&r, 201);
    for again in [name.clone(), name.to_uppercase()] {
        let r = t.scim(
            "POST",
            "/Users",
            Some(&json!({"schemas": [CORE], "userName": again, "name": {"givenName": "Du", "familyName": "Plicate"}})),
        );
        assert_scim_error(&r, 409, Some("uniqueness"));
    }
    let all = scim_json(&t.scim("GET", "/Users", None), 200);
    assert_list(&all, 1, 1, 1);
}

/// provisioning.md 2: filters (more than `eq`, with `and`/`or`/`not`), paging with
/// `startIndex` and `count`, `attributes` on lists, and `POST /.search` give the same page.
#[test]
fn filters_and_paging() {
    let t = idp();
    let tag = unique();
    for (i, title) in ["Engineer", "Engineer", "Designer"].iter().enumerate() {
        let body = json!({"schemas": [CORE], "userName": format!("{tag}-{i}@example.com"),
            "name": {"givenName": format!("G{i}"), "familyName": "F"}, "title": title,
            "emails": [{"value": format!("{tag}-{i}@example.com"), "type": "work", "primary": true}]});
        scim_json(&t.scim("POST", "/Users", Some(&body)), 201);
    }
    let list = |filter: &str, rest: &str| {
        let path = format!("/Users?filter={}{rest}", enc(filter));
        scim_json(&t.scim("GET", &path, None), 200)
    };
    let mine = format!("userName sw \"{tag}\"");
    assert_list(&list(&mine, ""), 3, 1, 3);
    let engineers = list(&format!("{mine} and title eq \"engineer\""), "");
    assert_list(&engineers, 2, 1, 2);
    let not = list(&format!("{mine} and not (title eq \"Engineer\")"), "");
    assert_eq!(assert_list(&not, 1, 1, 1)[0]["title"], "Designer");
    let either = list(
        &format!("userName eq \"{tag}-0@EXAMPLE.com\" or emails.value eq \"{tag}-2@example.com\""),
        "",
    );
    assert_list(&either, 2, 1, 2);
    // Pages of one, oldest first; the total counts them all.
    let second = list(&mine, "&startIndex=2&count=1&attributes=userName");
    let page = assert_list(&second, 3, 2, 1);
    assert_eq!(page[0]["userName"], format!("{tag}-1@example.com"));
    assert!(
        page[0].get("title").is_none(),
        "attributes=userName: {}",
        page[0]
    );
    assert_list(&list(&mine, "&count=0"), 3, 1, 0);
    // The same search as a POST (RFC 7644 3.4.3).
    let search = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
        "filter": mine, "startIndex": 2, "count": 1, "attributes": ["userName"]});
    let found = scim_json(&t.scim("POST", "/Users/.search", Some(&search)), 200);
    assert_eq!(found, second);
    // Bad paging values are errors, not defaults.
    let r = t.scim("GET", "/Users?count=many", None);
    assert_scim_error(&r, 400, Some("invalidValue"));
}

/// RFC 7644 3.4.2.2 (issue 44): a filter on a multi-valued attribute matches when any of
/// its values does. A User with a work and a home email is found by either, in both filter
/// forms identity providers send; once the card API changes the card's email, the User
/// (and so the filter) has the new one and not the old, and keeps the home one.
#[test]
fn a_user_is_found_by_any_of_its_emails() {
    let t = idp();
    let tag = unique();
    let (work, home) = (
        format!("{tag}.work@example.com"),
        format!("{tag}.home@example.net"),
    );
    let body = json!({"schemas": [CORE], "userName": format!("{tag}@example.com"),
        "name": {"givenName": "Multi", "familyName": "Mail"},
        "emails": [{"value": work, "type": "work", "primary": true},
                   {"value": home, "type": "home"}]});
    let id = assert_user(
        &scim_json(&t.scim("POST", "/Users", Some(&body)), 201),
        &t.server.base,
    );
    let found = |filter: String| -> Vec<String> {
        let path = format!("/Users?filter={}", enc(&filter));
        let list = scim_json(&t.scim("GET", &path, None), 200);
        list["Resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["id"].as_str().unwrap().to_string())
            .collect()
    };
    let by_value = |v: &str| found(format!("emails.value eq \"{v}\""));
    let by_value_filter = |v: &str| found(format!("emails[value eq \"{v}\"]"));
    for v in [&work, &home, &home.to_uppercase()] {
        assert_eq!(by_value(v), [id.clone()], "emails.value eq {v}");
        assert_eq!(by_value_filter(v), [id.clone()], "emails[value eq {v}]");
    }
    assert_eq!(
        found(format!("emails[type eq \"home\" and value eq \"{home}\"]")),
        [id.clone()]
    );
    assert!(found(format!("emails[type eq \"work\" and value eq \"{home}\"]")).is_empty());
    // The card API changes the card's email (the primary one's value).
    let writer = t.server.token(t.account, &["cards:write"]);
    let moved = format!("{tag}.new@example.com");
    let r = t.server.call(
        "PATCH",
        &format!("/api/v1/cards/{id}"),
        Some(&writer),
        Some(&json!({"email": moved}).to_string()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(by_value(&moved), [id.clone()]);
    assert_eq!(by_value(&home), [id.clone()], "the other email stays");
    assert!(
        by_value(&work).is_empty(),
        "the old value is no email of the User"
    );
    let got = scim_json(&t.scim("GET", &format!("/Users/{id}"), None), 200);
    assert_eq!(
        got["emails"],
        json!([{"value": moved, "type": "work", "primary": true},
               {"value": home, "type": "home"}]),
        "{got}"
    );
}

/// provisioning.md 2: a SCIM change is a card change: an `Idempotency-Key` runs it once
/// (the replay is the first SCIM answer), it is in the change feed, and the plan's card
/// limit refuses a User as it refuses a card (403, a SCIM error).
#[test]
fn scim_writes_are_card_writes() {
    let s = server();
    let account = s.account("enterprise", json!({"card_limit": 1}));
    let token = s.token(account, &["scim", "cards:read"]);
    let post = |user: &str, key: &str| {
        let body = json!({"schemas": [CORE], "userName": user}).to_string();
        call(
            "POST",
            &format!("{}/scim/v2/Users", s.base),
            Some(&token),
            Some(&body),
            &[
                ("Content-Type", "application/scim+json"),
                ("Idempotency-Key", key),
            ],
        )
    };
    let first = post("one@example.com", "scim-1");
    let made = scim_json(&first, 201);
    let again = post("one@example.com", "scim-1");
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(scim_json(&again, 201), made, "the first answer again");
    assert_eq!(again.header("location"), first.header("location"));
    let feed = s.call("GET", "/api/v1/events", Some(&token), None).json();
    let created: Vec<&Value> = feed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "card.created")
        .collect();
    assert_eq!(created.len(), 1, "one card, one event: {feed}");
    assert_eq!(
        created[0]["data"]["object"]["id"].to_string(),
        made["id"].as_str().unwrap()
    );
    let refused = post("two@example.com", "scim-2");
    assert_scim_error(&refused, 403, None);
}

/// provisioning.md 2: an account without API access gets 403 (a SCIM error); every answer
/// carries the API's rate-limit headers; a value that breaks a card constraint is a 400
/// `invalidValue` naming the attribute, and nothing is made.
#[test]
fn scim_access_rate_limit_and_invalid_values() {
    let s = server();
    let account = s.account("enterprise", json!({"features": {"api_access": false}}));
    let token = s.token(account, &["scim"]);
    let r = call(
        "GET",
        &format!("{}/scim/v2/Users", s.base),
        Some(&token),
        None,
        &[],
    );
    assert_scim_error(&r, 403, None);

    let t = idp();
    let r = t.scim("GET", "/Users", None);
    scim_json(&r, 200);
    for h in [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "ratelimit-policy",
        "ratelimit",
    ] {
        assert!(r.header(h).is_some(), "{h}: {r:?}");
    }
    let name = format!("{}@example.com", unique());
    let bad = json!({"schemas": [CORE], "userName": name,
        "emails": [{"value": "not an address", "type": "work", "primary": true}]});
    let e = assert_scim_error(
        &t.scim("POST", "/Users", Some(&bad)),
        400,
        Some("invalidValue"),
    );
    assert!(e["detail"].as_str().unwrap().starts_with("emails"), "{e}");
    let filter = enc(&format!("userName eq \"{name}\""));
    let found = scim_json(
        &t.scim("GET", &format!("/Users?filter={filter}"), None),
        200,
    );
    assert_list(&found, 0, 1, 0);
}

/// Issue 46, finding 6: a `startIndex` near 2^63 is an empty page, not a 500 (D1 binds
/// numbers as floats: such an offset was no integer to SQLite); a search whose `filter`
/// is no string is 400 `invalidFilter`, not every User.
#[test]
fn paging_far_past_the_end_and_a_search_filter_that_is_no_string() {
    let t = idp();
    let tag = unique();
    let body = json!({"schemas": [CORE], "userName": format!("{tag}@example.com"),
        "name": {"givenName": "Far", "familyName": "Away"}});
    scim_json(&t.scim("POST", "/Users", Some(&body)), 201);
    for start in ["9223372036854775807", "9223372036854775000", "4294967296"] {
        let r = t.scim("GET", &format!("/Users?startIndex={start}"), None);
        let list = scim_json(&r, 200);
        assert_eq!(list["itemsPerPage"], 0, "{start}: {list}");
        assert_eq!(list["Resources"], json!([]), "{start}");
        assert!(list["totalResults"].as_i64().is_some_and(|n| n >= 1));
    }
    let search = |filter: Value| {
        let body = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
            "filter": filter});
        t.scim("POST", "/Users/.search", Some(&body))
    };
    for filter in [
        json!(7),
        json!(["userName pr"]),
        json!({"userName": "x"}),
        json!(true),
    ] {
        assert_scim_error(&search(filter.clone()), 400, Some("invalidFilter"));
    }
    let all = scim_json(&search(Value::Null), 200);
    assert!(
        all["totalResults"].as_i64().is_some_and(|n| n >= 1),
        "null: no filter"
    );
}

/// `text` with its ASCII letters, digits and punctuation in their full-width forms
/// (U+FF01-U+FF5E), as an East Asian input method types them.
fn full_width(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 + 0xFEE0).unwrap_or(c),
            c => c,
        })
        .collect()
}

/// Issue 46, 4: a userName is one name in any case of any script, composed or decomposed,
/// in full-width forms and with spaces around it (the key: NFKC, full case folding,
/// trimmed). Each other spelling of a User's name is 409 `uniqueness` on create, PUT and
/// PATCH, and `userName eq` with it finds the User, which reads back as written.
#[test]
fn a_user_name_is_one_name_in_any_case_form_width_and_spacing() {
    let t = idp();
    let tag = unique();
    let user = |name: &str| {
        json!({"schemas": [CORE], "userName": name,
            "name": {"givenName": "Ärzte", "familyName": "Team"}})
    };
    let name = format!("ÄRZTE-{tag}@x.example");
    let created = scim_json(&t.scim("POST", "/Users", Some(&user(&name))), 201);
    let id = assert_user(&created, &t.server.base);
    assert_eq!(created["userName"], json!(name), "as written");
    let others = [
        format!("ärzte-{tag}@x.example"),
        // Decomposed: a and U+0308, as macOS and some directories send it.
        format!("A\u{308}RZTE-{tag}@x.example"),
        format!("a\u{308}rzte-{tag}@X.EXAMPLE"),
        format!("Ä{}", full_width(&format!("RZTE-{tag}@x.example"))),
        format!(" ärzte-{tag}@x.example"),
        format!("\u{3000}ÄRZTE-{tag}@x.example\u{A0}"),
    ];
    for other in &others {
        let r = t.scim("POST", "/Users", Some(&user(other)));
        assert_scim_error(&r, 409, Some("uniqueness"));
        let filter = format!("userName eq \"{other}\"");
        let found = scim_json(
            &t.scim("GET", &format!("/Users?filter={}", enc(&filter)), None),
            200,
        );
        let users = assert_list(&found, 1, 1, 1);
        assert_eq!(users[0]["id"], json!(id), "{other:?}");
        assert_eq!(users[0]["userName"], json!(name), "{other:?}");
    }
    // Another User cannot take the name by PUT or PATCH either.
    let second = format!("second-{tag}@x.example");
    let second = scim_json(&t.scim("POST", "/Users", Some(&user(&second))), 201);
    let path = format!("/Users/{}", second["id"].as_str().unwrap_or_default());
    let r = t.scim("PUT", &path, Some(&user(&others[1])));
    assert_scim_error(&r, 409, Some("uniqueness"));
    let patch = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": "replace", "path": "userName", "value": others[3]}]});
    assert_scim_error(
        &t.scim("PATCH", &path, Some(&patch)),
        409,
        Some("uniqueness"),
    );
    // The User itself may be written with another spelling; it reads back as written.
    let r = t.scim("PUT", &format!("/Users/{id}"), Some(&user(&others[2])));
    assert_eq!(scim_json(&r, 200)["userName"], json!(others[2]));
    let mine = format!("userName co \"-{tag}@\"");
    let all = scim_json(
        &t.scim("GET", &format!("/Users?filter={}", enc(&mine)), None),
        200,
    );
    assert_list(&all, 2, 1, 2);
}

/// Issue 46, 4: control characters (NUL, CR, LF, TAB, ...) and the bidirectional controls
/// (U+202E, ...) in a userName are 400 `invalidValue` on create, PUT and PATCH, and write
/// nothing.
#[test]
fn control_and_bidirectional_characters_in_a_user_name_are_refused() {
    let t = idp();
    let tag = unique();
    let user = |name: &str| {
        json!({"schemas": [CORE], "userName": name,
            "name": {"givenName": "Ctl", "familyName": "Chars"}})
    };
    let bad = ['\0', '\r', '\n', '\t', '\u{202E}', '\u{2066}', '\u{200F}'];
    for c in bad {
        let name = format!("ctl-{tag}{c}@x.example");
        let r = t.scim("POST", "/Users", Some(&user(&name)));
        let e = assert_scim_error(&r, 400, Some("invalidValue"));
        assert!(
            e["detail"].as_str().is_some_and(|d| d.contains("userName")),
            "{e}"
        );
    }
    let mine = format!("userName sw \"ctl-{tag}\"");
    let list = || {
        let found = t.scim("GET", &format!("/Users?filter={}", enc(&mine)), None);
        scim_json(&found, 200)
    };
    assert_list(&list(), 0, 1, 0);
    let name = format!("ctl-{tag}@x.example");
    let made = scim_json(&t.scim("POST", "/Users", Some(&user(&name))), 201);
    let path = format!("/Users/{}", made["id"].as_str().unwrap_or_default());
    for c in bad {
        let other = format!("ctl-{tag}@x.example{c}");
        let r = t.scim("PUT", &path, Some(&user(&other)));
        assert_scim_error(&r, 400, Some("invalidValue"));
        let patch = json!({"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "replace", "path": "userName", "value": other}]});
        assert_scim_error(
            &t.scim("PATCH", &path, Some(&patch)),
            400,
            Some("invalidValue"),
        );
    }
    let users = assert_list(&list(), 1, 1, 1);
    assert_eq!(users[0]["userName"], json!(name), "unchanged");
}
