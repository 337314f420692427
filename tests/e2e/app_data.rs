//! The account area's data pages (account-area.md 2): leads (the list, its filters and
//! pages, the CSV, erasure), analytics (the API's figures, as charts and tables) and cards,
//! for owners and members, in English and German. The pages are read as a browser gets
//! them; what they show is compared with what the API answers for the same account.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::app::{invite, join, owner, Browser};
use crate::harness::{call, post_lead, server, Lead, Resp, Server, Tenant, ADMIN_TOKEN, BROWSER};

const SCOPES: [&str; 5] = [
    "cards:write",
    "cards:read",
    "leads:read",
    "leads:write",
    "analytics:read",
];

/// An enterprise account with its signed-in owner and an API token of every scope.
fn account(s: &Server, seed: u8) -> (Tenant<'_>, Browser<'_>) {
    let (account, browser, _) = owner(s, seed);
    let token = s.token(account, &SCOPES);
    let tenant = Tenant {
        server: s,
        account,
        token,
    };
    (tenant, browser)
}

/// A card with the lead form: its id and slug.
fn card(t: &Tenant, first: &str, last: &str) -> (i64, String) {
    let c = t.card(json!({"first_name": first, "last_name": last, "show_lead_form": true}));
    (
        c["id"].as_i64().expect("id"),
        c["slug"].as_str().expect("slug").to_string(),
    )
}

/// Posts `leads` to the card's form, each as its own visitor (`CF-Connecting-IP`
/// `10.{net}.x.y`, so the per-visitor limit never bites), six at a time.
fn post_leads(s: &Server, slug: &str, net: u8, leads: &[Value]) {
    for (chunk_at, chunk) in leads.chunks(6).enumerate() {
        std::thread::scope(|scope| {
            for (i, lead) in chunk.iter().enumerate() {
                let n = chunk_at * 6 + i;
                scope.spawn(move || {
                    let ip = format!("10.{net}.{}.{}", n / 200, n % 200 + 1);
                    let r = post_lead(s, slug, Some(&ip), Lead::Json(lead), &[]);
                    assert_eq!(r.status, 201, "{lead}: {}", r.body);
                });
            }
        });
    }
}

/// The numbered visitors `from..to`: `Visitor n`, `v{n}@{domain}`.
fn visitors(from: usize, to: usize, domain: &str) -> Vec<Value> {
    (from..to)
        .map(|n| json!({"name": format!("Visitor {n}"), "email": format!("v{n}@{domain}")}))
        .collect()
}

/// Every lead the API lists for `query` (`card_id=..`, `email=..`), newest first.
fn api_leads(t: &Tenant, query: &str) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let r = t.get(&format!("/leads?per_page=100&page={page}&{query}"));
        assert_eq!(r.status, 200, "{}", r.body);
        let v = r.json();
        all.extend(v["data"].as_array().expect("data").iter().cloned());
        if v["meta"]["current_page"] == v["meta"]["last_page"] {
            return all;
        }
    }
    unreachable!()
}

fn emails_of(leads: &[Value]) -> Vec<String> {
    leads
        .iter()
        .map(|l| l["email"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The addresses of the leads a leads page lists, in order (each row's `mailto:` link).
fn listed(page: &Resp) -> Vec<String> {
    assert_eq!(page.status, 200, "{}", page.body);
    let table = page.body.split("<tbody>").nth(1).unwrap_or_default();
    table
        .split("href=\"mailto:")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap_or_default().to_string())
        .collect()
}

fn ok_page(b: &mut Browser, path: &str) -> Resp {
    let r = b.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    assert!(
        r.header("content-type")
            .is_some_and(|t| t.starts_with("text/html")),
        "{r:?}"
    );
    r
}

#[test]
fn the_leads_page_lists_newest_first_in_pages_filtered_by_card_and_address() {
    let s = server();
    let (t, mut b) = account(s, 41);
    let (a, slug_a) = card(&t, "Page", "One");
    let (other, slug_b) = card(&t, "Page", "Two");
    post_leads(s, &slug_a, 41, &visitors(0, 27, "example.com"));
    post_leads(
        s,
        &slug_b,
        42,
        &[
            json!({"name": "Mixed Case", "email": "Mixed.Case@Example.COM", "phone": "+49 30 1234", "message": "Call me, please"}),
            json!({"name": "Other", "email": "other@example.com"}),
        ],
    );
    let everyone = emails_of(&api_leads(&t, ""));
    assert_eq!(everyone.len(), 29);

    let first = ok_page(&mut b, "/app/leads");
    let second = ok_page(&mut b, "/app/leads?page=2");
    assert_eq!(listed(&first), everyone[..25], "newest first, 25 a page");
    assert_eq!(listed(&second), everyone[25..]);
    assert!(first
        .body
        .contains("href=\"/app/leads?page=2\" rel=\"next\""));
    assert!(second.body.contains("href=\"/app/leads\" rel=\"prev\""));
    assert!(first.body.contains("Leads: 29"));
    // Each lead's fields and its card.
    assert!(first.body.contains("<th scope=\"row\">Mixed Case</th>"));
    assert!(first.body.contains(
        "<td data-label=\"Phone\">+49 30 1234</td>\
         <td class=\"wide\" data-label=\"Message\">Call me, please</td>\
         <td data-label=\"Source\">lead_form</td><td data-label=\"Card\">Page Two</td>"
    ));
    assert!(first.body.contains("<time datetime=\"20"));

    // By card: the select offers both cards, the list is the API's for that card.
    assert!(first.body.contains(&format!(
        "<option value=\"{a}\">Page One ({slug_a})</option>"
    )));
    let by_card = ok_page(&mut b, &format!("/app/leads?card_id={other}"));
    assert_eq!(
        listed(&by_card),
        emails_of(&api_leads(&t, &format!("card_id={other}")))
    );
    assert_eq!(listed(&by_card).len(), 2);
    assert!(by_card
        .body
        .contains(&format!("<option value=\"{other}\" selected=\"\">")));
    // By address: exact, in any case, as the API's `email`.
    let by_email = ok_page(&mut b, "/app/leads?card_id=&email=mixed.case%40example.com");
    assert_eq!(listed(&by_email), ["Mixed.Case@Example.COM"]);
    assert_eq!(
        emails_of(&api_leads(&t, "email=mixed.case%40example.com")),
        ["Mixed.Case@Example.COM"]
    );
    assert!(ok_page(&mut b, "/app/leads?email=mixed.case%40example")
        .body
        .contains("No lead matches the filter."));
    // The filters stay with the CSV link and the pages.
    assert!(by_email
        .body
        .contains("href=\"/app/leads.csv?email=mixed.case%40example.com\""));
    let by_card_page = ok_page(&mut b, &format!("/app/leads?card_id={a}"));
    assert!(by_card_page.body.contains(&format!(
        "href=\"/app/leads?card_id={a}&amp;page=2\" rel=\"next\""
    )));
    // Another account's card matches nothing.
    let (stranger, _) = account(s, 42);
    let (foreign, _) = card(&stranger, "Not", "Mine");
    assert!(listed(&ok_page(&mut b, &format!("/app/leads?card_id={foreign}"))).is_empty());
}

/// The records of a CSV, read as RFC 4180.
fn records(body: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(body.as_bytes())
        .records()
        .map(|r| {
            r.expect("an RFC 4180 record")
                .iter()
                .map(String::from)
                .collect()
        })
        .collect()
}

#[test]
fn the_csv_has_every_lead_of_the_filter_with_quoting_and_the_formula_guard() {
    let s = server();
    let (t, mut b) = account(s, 43);
    let (a, slug_a) = card(&t, "Csv", "Many");
    let (_, slug_b) = card(&t, "Csv", "Odd");
    // More than the CSV's first step (50 leads), so the file is read in several.
    post_leads(s, &slug_a, 43, &visitors(0, 60, "csv.example"));
    post_leads(
        s,
        &slug_b,
        44,
        &[
            json!({"name": "=HYPERLINK(\"http://evil.example\",\"click\")", "email": "formula@csv.example",
                   "phone": "+49 30 1234567", "message": "Line one,\r\nline \"two\"\nÄpfel & Birnen"}),
            json!({"name": "Lovelace, Ada", "email": "Ada@CSV.example", "message": "-1+2"}),
        ],
    );

    let r = b.get("/app/leads.csv");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.header("content-type"),
        Some("text/csv; charset=utf-8; header=present")
    );
    let disposition = r.header("content-disposition").unwrap_or_default();
    assert!(
        disposition.starts_with("attachment; filename=\"leads-20")
            && disposition.ends_with(".csv\"")
            && disposition.len() == "attachment; filename=\"leads-2026-11-28.csv\"".len(),
        "{disposition}"
    );
    let body = &r.body;
    assert!(body.starts_with(
        "id,card_id,name,email,phone,message,note,source,consent_at,created_at,updated_at\r\n"
    ));
    assert!(body.ends_with("\r\n"));
    // Every line ends in CRLF: outside quotes no LF without its CR, no CR without its LF.
    let bytes = body.as_bytes();
    let mut quoted = false;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => assert_eq!(bytes[i - 1], b'\r', "at {i}"),
            b'\r' if !quoted => assert_eq!(bytes.get(i + 1), Some(&b'\n'), "at {i}"),
            _ => {}
        }
    }
    // Quoting where a cell needs it, and the guard inside the quotes.
    assert!(body.contains(",\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"click\"\")\","));
    assert!(body.contains(",\"Lovelace, Ada\","));

    let all = records(body);
    assert_eq!(all[0].len(), 11);
    let api = api_leads(&t, "");
    assert_eq!(all.len(), api.len() + 1, "every lead, once");
    let ids: Vec<String> = all[1..].iter().map(|r| r[0].clone()).collect();
    let api_ids: Vec<String> = api.iter().map(|l| l["id"].to_string()).collect();
    assert_eq!(ids, api_ids, "newest first, as the API lists them");
    let formula = all
        .iter()
        .find(|r| r[3] == "formula@csv.example")
        .expect("the formula lead");
    assert_eq!(formula[2], "'=HYPERLINK(\"http://evil.example\",\"click\")");
    assert_eq!(formula[4], "'+49 30 1234567");
    let message = api
        .iter()
        .find(|l| l["email"] == "formula@csv.example")
        .expect("in the API")["message"]
        .clone();
    assert_eq!(formula[5], message.as_str().unwrap());
    assert!(formula[5].contains("line \"two\"") && formula[5].contains("Äpfel & Birnen"));
    assert_eq!(formula[7], "lead_form");
    let ada = all.iter().find(|r| r[3] == "Ada@CSV.example").expect("Ada");
    assert_eq!(
        (ada[2].as_str(), ada[5].as_str()),
        ("Lovelace, Ada", "'-1+2")
    );
    // Each row is the API's lead, field by field.
    let first = &api[0];
    for (i, name) in all[0].iter().enumerate() {
        let cell = &all[1][i];
        match &first[name.as_str()] {
            Value::Null => assert_eq!(cell, "", "{name}"),
            Value::String(v) if v.starts_with(['=', '+', '-', '@']) => {
                assert_eq!(*cell, format!("'{v}"), "{name}")
            }
            Value::String(v) => assert_eq!(cell, v, "{name}"),
            other => assert_eq!(*cell, other.to_string(), "{name}"),
        }
    }

    // A card's leads: all 60, across the CSV's steps, in the API's order.
    let by_card = b.get(&format!("/app/leads.csv?card_id={a}"));
    assert_eq!(by_card.status, 200);
    let rows = records(&by_card.body);
    let api_card = api_leads(&t, &format!("card_id={a}"));
    assert_eq!(api_card.len(), 60);
    let got: Vec<String> = rows[1..].iter().map(|r| r[0].clone()).collect();
    let want: Vec<String> = api_card.iter().map(|l| l["id"].to_string()).collect();
    assert_eq!(got, want);
    // An address, in any case.
    let by_email = records(&b.get("/app/leads.csv?email=ADA%40csv.EXAMPLE").body);
    assert_eq!(by_email.len(), 2);
    assert_eq!(by_email[1][3], "Ada@CSV.example");
    // Nothing matches: the header alone.
    let none = b.get("/app/leads.csv?card_id=abc");
    assert_eq!(
        none.body,
        "id,card_id,name,email,phone,message,note,source,consent_at,created_at,updated_at\r\n"
    );
}

/// Follows a form's 303 and returns the page it leads to.
fn posted(b: &mut Browser, path: &str, form: &str) -> (String, Resp) {
    let r = b.post_form(path, form);
    assert_eq!(r.status, 303, "{path}: {}", r.body);
    let location = r.header("location").expect("a Location").to_string();
    let page = ok_page(b, &location);
    (location, page)
}

#[test]
fn erasing_a_lead_and_an_address_reaches_the_api_and_the_security_log() {
    // Its own server: the security log is read from the shard once the server is stopped.
    let s = Server::start("app-data-erase", &[("ADMIN_TOKEN", ADMIN_TOKEN)]);
    let (t, mut b) = account(&s, 45);
    let (_, slug_a) = card(&t, "Erase", "One");
    let (_, slug_b) = card(&t, "Erase", "Two");
    post_leads(&s, &slug_a, 45, &visitors(0, 3, "erase.example"));
    post_leads(
        &s,
        &slug_a,
        46,
        &[json!({"name": "Dup", "email": "Dup@Erase.example"})],
    );
    post_leads(
        &s,
        &slug_b,
        47,
        &[json!({"name": "Dup again", "email": "dup@erase.EXAMPLE"})],
    );
    let before = api_leads(&t, "");
    assert_eq!(before.len(), 5);
    let one = before
        .iter()
        .find(|l| l["email"] == "v1@erase.example")
        .expect("v1")["id"]
        .as_i64()
        .unwrap();

    // One lead, from a filtered list: back to that list, with the count.
    let page = ok_page(&mut b, "/app/leads?email=v1%40erase.example");
    let action = format!("/app/leads/{one}/erase?email=v1%40erase.example");
    assert!(page
        .body
        .contains(&format!("action=\"{}\"", action.replace('&', "&amp;"))));
    assert!(page.body.contains("<details class=\"confirm\">"));
    let (location, after) = posted(&mut b, &action, "");
    assert_eq!(
        location,
        "/app/leads?email=v1%40erase.example&done=erased&n=1"
    );
    assert!(after
        .body
        .contains("<p class=\"notice\" role=\"status\">Leads erased: 1</p>"));
    t.get(&format!("/leads/{one}")).assert_error(404);
    assert_eq!(api_leads(&t, "").len(), 4);
    // Gone already: 404, as the API answers.
    assert_eq!(b.post_form(&action, "").status, 404);

    // Every lead of an address, in any case, on every card.
    let (location, after) = posted(&mut b, "/app/leads/erase", "email=DUP%40erase.example");
    assert_eq!(location, "/app/leads?done=erased&n=2");
    assert!(after.body.contains("Leads erased: 2"));
    assert!(api_leads(&t, "email=dup%40erase.example").is_empty());
    let left = emails_of(&api_leads(&t, ""));
    assert_eq!(left.len(), 2);
    assert!(left.iter().all(|e| e.starts_with('v')), "{left:?}");
    assert!(!listed(&ok_page(&mut b, "/app/leads"))
        .iter()
        .any(|e| e.contains("up@")));
    // No address, or not one: the form again with its problem, nothing erased.
    for bad in ["email=", "email=not-an-address"] {
        let r = b.post_form("/app/leads/erase", bad);
        assert_eq!(r.status, 422, "{bad}: {}", r.body);
        assert!(r.body.contains("<details class=\"confirm\" open>"), "{bad}");
        assert!(r.body.contains("id=\"erase-email-error\""), "{bad}");
    }
    assert_eq!(api_leads(&t, "").len(), 2);
    // The feed (and the webhooks) hear of each lead erased.
    let events = t.get("/events?types=lead.deleted&limit=100");
    assert_eq!(events.status, 200, "{}", events.body);
    let deleted = events.json()["data"].as_array().map_or(0, Vec::len);
    assert_eq!(deleted, 3, "{}", events.body);

    // The security log (the shard's): two erasures, by the owner, with their counts.
    s.stop();
    let log = s.d1(&format!(
        "SELECT kind, detail, actor_name FROM security_log WHERE account_id = {} ORDER BY at",
        t.account
    ));
    assert_eq!(
        log,
        vec![
            json!({"kind": "leads_erased", "detail": "1", "actor_name": "owner45@acme.example"}),
            json!({"kind": "leads_erased", "detail": "2", "actor_name": "owner45@acme.example"}),
        ]
    );
}

/// What the page shows in the table labelled `label`: each row's key (a day's
/// `datetime`, or the row's text) and its number.
fn table(page: &str, label: &str) -> Vec<(String, u64)> {
    let start = page
        .find(&format!("aria-label=\"{label}\""))
        .unwrap_or_else(|| panic!("no table {label}"));
    let rest = &page[start..];
    let body = &rest[rest.find("<tbody>").expect("tbody")..rest.find("</tbody>").expect("end")];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            let head = between(row, "<th scope=\"row\">", "</th>");
            let key = if head.contains("datetime=\"") {
                between(head, "datetime=\"", "\"")
            } else {
                head
            };
            let n = between(row, "<td class=\"num\">", "</td>").replace([',', '.'], "");
            (key.to_string(), n.parse().expect("a count"))
        })
        .collect()
}

fn between<'a>(s: &'a str, from: &str, to: &str) -> &'a str {
    let at = s.find(from).map(|i| i + from.len()).expect(from);
    &s[at..at + s[at..].find(to).expect(to)]
}

/// A figure of the page: the number under its label.
fn figure(page: &str, label: &str) -> u64 {
    let at = page
        .find(&format!(
            "<p class=\"label\">{label}</p><p class=\"figure\">"
        ))
        .unwrap_or_else(|| panic!("no figure {label}"));
    between(&page[at..], "class=\"figure\">", "</p>")
        .replace([',', '.'], "")
        .parse()
        .expect("a number")
}

fn object(v: &Value) -> Vec<(String, u64)> {
    let mut items: Vec<(String, u64)> = v
        .as_object()
        .expect("an object")
        .iter()
        .map(|(k, n)| (k.clone(), n.as_u64().expect("a count")))
        .collect();
    items.sort();
    items
}

fn sorted(mut items: Vec<(String, u64)>) -> Vec<(String, u64)> {
    items.sort();
    items
}

/// The API's report of `path`, once `done` holds (counting takes a moment).
fn settled(t: &Tenant, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let r = t.get(path);
        assert_eq!(r.status, 200, "{}", r.body);
        let data = r.json()["data"].clone();
        if done(&data) || started.elapsed() > Duration::from_secs(15) {
            return data;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn visit(s: &Server, path: &str, ua: &str, referer: Option<&str>) {
    let mut headers = vec![("User-Agent", ua)];
    headers.extend(referer.map(|r| ("Referer", r)));
    let r = call("GET", &format!("{}{path}", s.base), None, None, &headers);
    assert!(r.status == 200 || r.status == 302, "{path}: {}", r.status);
}

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

/// The page's tables and figures against the API's reports for the same query.
fn same_as_api(b: &mut Browser, t: &Tenant, query: &str) {
    let views = t.get(&format!("/analytics/views?{query}")).json()["data"].clone();
    let clicks = t.get(&format!("/analytics/clicks?{query}")).json()["data"].clone();
    let page = ok_page(b, &format!("/app/analytics?{query}")).body;
    assert_eq!(
        figure(&page, "Views"),
        views["total_views"].as_u64().unwrap()
    );
    assert_eq!(
        figure(&page, "Unique views"),
        views["unique_views"].as_u64().unwrap()
    );
    assert_eq!(
        figure(&page, "Clicks"),
        clicks["total_clicks"].as_u64().unwrap()
    );
    for (label, api) in [
        ("Views per day: Numbers", &views["views_per_day"]),
        ("Clicks per day: Numbers", &clicks["clicks_per_day"]),
        ("Views by device: Numbers", &views["devices"]),
        ("Views by country: Numbers", &views["countries"]),
        ("Views by referrer: Numbers", &views["referrers"]),
        ("Clicks by type: Numbers", &clicks["clicks_by_type"]),
    ] {
        assert_eq!(sorted(table(&page, label)), object(api), "{query}: {label}");
    }
    // Every chart is an inline SVG beside its table.
    assert_eq!(
        page.matches("<div class=\"pair\"><div><svg").count(),
        6,
        "{query}"
    );
}

#[test]
fn the_analytics_page_shows_the_apis_figures_for_a_period_and_a_card() {
    let s = server();
    let (t, mut b) = account(s, 47);
    let c =
        t.card(json!({"first_name": "Chart", "last_name": "One", "email": "chart@example.com"}));
    let (a, slug_a) = (
        c["id"].as_i64().unwrap(),
        c["slug"].as_str().unwrap().to_string(),
    );
    let (_, slug_b) = card(&t, "Chart", "Two");
    for (ua, referer) in [
        (IPHONE, Some("https://www.linkedin.com/feed/")),
        (IPHONE, None),
        (BROWSER, Some("https://news.example/item")),
    ] {
        visit(s, &format!("/c/{slug_a}"), ua, referer);
    }
    visit(s, &format!("/c/{slug_b}"), BROWSER, None);
    for path in ["vcard", "go/email"] {
        visit(s, &format!("/c/{slug_a}/{path}"), BROWSER, None);
    }
    settled(
        &t,
        &format!("/analytics/views?card_id={a}&period=7d"),
        |d| d["total_views"] == 3,
    );
    settled(&t, "/analytics/views?period=30d", |d| d["total_views"] == 4);
    settled(
        &t,
        &format!("/analytics/clicks?card_id={a}&period=7d"),
        |d| d["total_clicks"] == 2,
    );

    same_as_api(&mut b, &t, &format!("period=7d&card_id={a}"));
    same_as_api(&mut b, &t, "period=30d");
    same_as_api(&mut b, &t, "period=365d");
    let page = ok_page(&mut b, &format!("/app/analytics?period=7d&card_id={a}")).body;
    assert_eq!(table(&page, "Views per day: Numbers").len(), 7);
    assert_eq!(figure(&page, "Views"), 3);
    assert!(page.contains("<option value=\"7d\" selected=\"\">Last 7 days</option>"));
    assert!(page.contains(&format!("<option value=\"{a}\" selected=\"\">Chart One")));
    assert!(page.contains("<svg") && page.contains("class=\"chart chart-line\""));
    assert!(page.contains("class=\"chart chart-bars\""));
    // The defaults: 30 days of every card.
    let default = ok_page(&mut b, "/app/analytics").body;
    assert_eq!(table(&default, "Views per day: Numbers").len(), 30);
    assert_eq!(figure(&default, "Views"), 4);
}

#[test]
fn an_unknown_period_or_card_is_shown_on_the_form() {
    let s = server();
    let (t, mut b) = account(s, 48);
    let (stranger, _) = account(s, 49);
    let (foreign, _) = card(&stranger, "Not", "Mine");
    let _ = card(&t, "Mine", "Own");
    for (query, field) in [
        ("period=2d".to_string(), "period"),
        ("period=30D".to_string(), "period"),
        ("card_id=abc".to_string(), "card"),
        (format!("card_id={foreign}"), "card"),
        ("card_id=99999999".to_string(), "card"),
    ] {
        let r = b.get(&format!("/app/analytics?{query}"));
        assert_eq!(r.status, 422, "{query}: {}", r.body);
        assert!(
            r.body
                .contains(&format!("aria-describedby=\"{field}-error\"")),
            "{query}"
        );
        assert!(r
            .body
            .contains(&format!("<p class=\"error\" id=\"{field}-error\">")));
        assert!(!r.body.contains("<svg"), "no report for {query}");
    }
    // The API refuses the same.
    t.get("/analytics/views?period=2d").assert_error(422);
    t.get(&format!("/analytics/views?card_id={foreign}"))
        .assert_error(422);
}

#[test]
fn the_cards_page_lists_every_card_with_its_three_links() {
    let s = server();
    let (t, mut b) = account(s, 50);
    let mut slugs = Vec::new();
    for i in 0..26 {
        let c = t
            .card(json!({"first_name": "Card", "last_name": format!("N{i:02}"), "language": "de"}));
        slugs.push(c["slug"].as_str().unwrap().to_string());
    }
    let draft = t.card(json!({"first_name": "Draft", "last_name": "Card"}));
    let r = t.send(
        "PATCH",
        &format!("/cards/{}", draft["id"]),
        &json!({"status": "draft"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // The API's order: most recently updated first.
    let api: Vec<String> = (1..=2)
        .flat_map(|p| {
            t.get(&format!("/cards?per_page=25&page={p}")).json()["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["slug"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(api.len(), 27);
    let first = ok_page(&mut b, "/app/cards").body;
    let second = ok_page(&mut b, "/app/cards?page=2").body;
    let on = |page: &str| -> Vec<String> {
        page.split("<code>/c/")
            .skip(1)
            .map(|r| r.split('<').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(on(&first), api[..25]);
    assert_eq!(on(&second), api[25..]);
    assert!(first.contains("Cards: 27"));
    for (page, slug) in api
        .iter()
        .enumerate()
        .map(|(i, s)| (if i < 25 { &first } else { &second }, s))
    {
        for href in [
            format!("/c/{slug}"),
            format!("/c/{slug}/qr.svg"),
            format!("/c/{slug}/vcard"),
        ] {
            assert!(page.contains(&format!("href=\"{href}\"")), "{href}");
        }
    }
    assert!(first.contains("<th scope=\"row\">Draft Card<br><code>/c/draft-card"));
    assert!(first.contains("<td>Draft</td><td>en</td>"));
    assert!(second.contains("<td>Active</td><td>de</td>"));
    // The links work.
    let slug = &slugs[0];
    let qr = call(
        "GET",
        &format!("{}/c/{slug}/qr.svg", s.base),
        None,
        None,
        &[],
    );
    assert_eq!(
        (qr.status, qr.header("content-type")),
        (200, Some("image/svg+xml"))
    );
    let vcard = call(
        "GET",
        &format!("{}/c/{slug}/vcard", s.base),
        None,
        None,
        &[],
    );
    assert_eq!(vcard.status, 200);
    assert!(vcard.body.starts_with("BEGIN:VCARD"));
    let public = call("GET", &format!("{}/c/{slug}", s.base), None, None, &[]);
    assert_eq!(public.status, 200);
    // "Copy signature" (teams.md 2) on active cards: the button's URL answers the API's
    // signature of the card; a draft has none, and another account's card is not found.
    let id = t.get("/cards?per_page=100").json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["slug"] == slug.as_str())
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let button = format!("/app/cards/{id}/signature");
    let page = if first.contains(&button) {
        &first
    } else {
        &second
    };
    assert!(page.contains(&format!("data-signature=\"{button}\"")));
    assert!(page.contains(">Copy signature</button>"));
    assert!(!first.contains(&format!("/app/cards/{}/signature", draft["id"])));
    let copied = b.get(&button);
    assert_eq!(copied.status, 200, "{}", copied.body);
    assert_eq!(
        copied.json(),
        t.get(&format!("/cards/{id}/signature")).json(),
        "the API's signature"
    );
    let other = s.tenant(&["cards:write"]);
    let foreign = other.card(json!({"first_name": "Other", "last_name": "Account"}));
    let r = b.get(&format!("/app/cards/{}/signature", foreign["id"]));
    assert_eq!(r.status, 404, "{}", r.body);
}

#[test]
fn a_member_sees_no_erase_controls_and_their_erase_posts_are_refused() {
    let s = server();
    let (t, _) = account(s, 51);
    let (_, slug) = card(&t, "Member", "View");
    post_leads(s, &slug, 51, &visitors(0, 2, "member.example"));
    let url = invite(s, t.account, "member51@acme.example", "member");
    let (mut member, _) = join(s, &url, 52);
    let leads = api_leads(&t, "");
    let id = leads[0]["id"].as_i64().unwrap();

    let page = ok_page(&mut member, "/app/leads");
    assert_eq!(listed(&page).len(), 2, "members see every lead");
    for control in ["/erase", "details class=\"confirm\"", "class=\"danger\""] {
        assert!(!page.body.contains(control), "{control}");
    }
    assert!(page.body.contains("only owners can change it"));
    let csv = member.get("/app/leads.csv");
    assert_eq!(records(&csv.body).len(), 3, "the CSV is theirs too");
    for (path, form) in [
        (format!("/app/leads/{id}/erase"), String::new()),
        (
            "/app/leads/erase".to_string(),
            "email=v0%40member.example".to_string(),
        ),
    ] {
        let r = member.post_form(&path, &form);
        assert_eq!(r.status, 403, "{path}: {}", r.body);
    }
    assert_eq!(api_leads(&t, "").len(), 2, "nothing erased");
    for page in ["/app/cards", "/app/analytics"] {
        let body = ok_page(&mut member, page).body;
        assert!(
            !body.contains("method=\"post\" action=\"/app/leads"),
            "{page}"
        );
    }
}

#[test]
fn the_pages_speak_german() {
    let s = server();
    let (t, mut b) = account(s, 53);
    let (_, slug) = card(&t, "Deutsch", "Karte");
    post_leads(s, &slug, 53, &visitors(0, 1, "de.example"));
    b.lang = "de-DE,de;q=0.9";
    let leads = ok_page(&mut b, "/app/leads").body;
    for text in [
        "<html lang=\"de\">",
        "Leads filtern",
        "Alle Karten",
        "Eingegangen",
        "Als CSV herunterladen",
        "Alle Leads einer Adresse löschen",
        "Löschen…",
    ] {
        assert!(leads.contains(text), "leads: {text}");
    }
    let analytics = ok_page(&mut b, "/app/analytics").body;
    for text in [
        "Zeitraum",
        "Letzte 30 Tage",
        "Aufrufe pro Tag",
        "Klicks nach Art",
        "Aufrufe nach Land",
    ] {
        assert!(analytics.contains(text), "analytics: {text}");
    }
    let cards = ok_page(&mut b, "/app/cards").body;
    for text in [
        "Öffentliche Seite",
        "QR-Code",
        "Sprache",
        "Geändert",
        "Aktiv",
    ] {
        assert!(cards.contains(text), "cards: {text}");
    }
    let bad = b.get("/app/analytics?period=1d");
    assert!(bad.body.contains("Wählen Sie einen der Zeiträume."));
}
