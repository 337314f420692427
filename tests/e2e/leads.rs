//! Leads API (spec 2.2, 4.6).

use serde_json::{json, Value};

use crate::harness::{server, Tenant};
use crate::public::post_json;

fn tenant() -> Tenant<'static> {
    server().tenant(&["cards:write", "leads:read"])
}

fn card_with_leads(t: &Tenant, n: usize) -> (i64, String) {
    let c = t.card(json!({"first_name": "Lead", "last_name": "Magnet", "show_lead_form": true}));
    let slug = c["slug"].as_str().unwrap().to_string();
    for i in 0..n {
        let r = post_json(
            &slug,
            &json!({"name": format!("L{i}"), "email": format!("l{i}@example.com")}),
        );
        assert_eq!(r.status, 201, "{}", r.body);
    }
    (c["id"].as_i64().unwrap(), slug)
}

fn assert_lead_shape(l: &Value) {
    assert!(l["id"].is_i64() && l["card_id"].is_i64());
    for f in ["name", "email", "phone", "message", "note", "source"] {
        assert!(l[f].is_string() || l[f].is_null(), "{f}: {l}");
    }
    assert!(l["created_at"].is_string() && l["updated_at"].is_string());
}

#[test]
fn list_is_newest_first_across_cards_with_filter_and_pages() {
    let t = tenant();
    let (a, _) = card_with_leads(&t, 3);
    let (b, _) = card_with_leads(&t, 2);
    let all = t.get("/leads").json();
    assert_eq!(
        all["meta"],
        json!({"current_page": 1, "last_page": 1, "per_page": 15, "total": 5})
    );
    let names: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["L1", "L0", "L2", "L1", "L0"]);
    assert_eq!(all["data"][0]["card_id"], b);
    for l in all["data"].as_array().unwrap() {
        assert_lead_shape(l);
        assert!(l.get("card").is_none(), "no card reference in lists");
    }
    let only_a = t.get(&format!("/leads?card_id={a}")).json();
    assert_eq!(only_a["meta"]["total"], 3);
    assert!(only_a["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["card_id"] == a));
    let page = t.get("/leads?per_page=2&page=3").json();
    assert_eq!(
        page["meta"],
        json!({"current_page": 3, "last_page": 3, "per_page": 2, "total": 5})
    );
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(t.get("/leads?card_id=abc").json()["meta"]["total"], 0);
}

#[test]
fn get_lead_has_its_card_reference() {
    let t = tenant();
    let (card, slug) = card_with_leads(&t, 1);
    let id = t.get("/leads").json()["data"][0]["id"].as_i64().unwrap();
    let r = t.get(&format!("/leads/{id}"));
    assert_eq!(r.status, 200);
    let l = r.json()["data"].clone();
    assert_lead_shape(&l);
    assert_eq!(l["name"], "L0");
    assert_eq!(l["source"], "lead_form");
    assert_eq!(
        l["card"],
        json!({"id": card, "slug": slug, "title": "Lead Magnet", "first_name": "Lead", "last_name": "Magnet"})
    );
}

#[test]
fn other_accounts_leads_are_invisible() {
    let owner = tenant();
    let other = tenant();
    let (card, _) = card_with_leads(&owner, 1);
    let id = owner.get("/leads").json()["data"][0]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        other.get(&format!("/leads/{id}")).assert_error(404),
        json!({"message": "Not found."})
    );
    assert_eq!(other.get("/leads").json()["meta"]["total"], 0);
    let filtered = other.get(&format!("/leads?card_id={card}"));
    assert_eq!(filtered.status, 200);
    assert_eq!(filtered.json()["data"], json!([]));
    other.get("/leads/999999999").assert_error(404);
}

#[test]
fn deleting_a_card_deletes_its_leads() {
    let t = tenant();
    let (card, _) = card_with_leads(&t, 2);
    assert_eq!(t.get("/leads").json()["meta"]["total"], 2);
    assert_eq!(
        t.send("DELETE", &format!("/cards/{card}"), &json!({}))
            .status,
        200
    );
    assert_eq!(t.get("/leads").json()["meta"]["total"], 0);
}
