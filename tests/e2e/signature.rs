//! Email signatures (teams.md 2): `GET /api/v1/cards/{id}/signature` as a client reads
//! it, its links followed back to the worker (card page, vCard, click redirects, icons),
//! and a lead that arrives through it keeps its source. The markup rules themselves are
//! checked for every layout and the longest valid card by the unit tests of
//! `domain::signature`; here they are checked on what the worker answers.

use std::io::Read;
use std::time::Duration;

use cardapi::domain::card::Platform;
use cardapi::public::i18n::strings;
use serde_json::json;

use crate::harness::{call, post_lead, server, Lead, BROWSER};

/// The attribute values of `name="..."` in `html`, in order, with `&amp;` undone.
fn attrs(html: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    html.split(&key)
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].replace("&amp;", "&"))
        .collect()
}

/// A GET with the body as bytes (icons are binary).
fn bytes(url: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let resp = match ureq::get(url).timeout(Duration::from_secs(30)).call() {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{url}: {e}"),
    };
    let status = resp.status();
    let headers = resp
        .headers_names()
        .into_iter()
        .filter_map(|n| {
            resp.header(&n)
                .map(|v| (n.to_ascii_lowercase(), v.to_string()))
        })
        .collect();
    let mut body = vec![];
    resp.into_reader().read_to_end(&mut body).unwrap();
    (status, headers, body)
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn the_signature_links_back_through_the_card_and_counts_its_source() {
    let s = server();
    let writer = s.tenant(&["cards:write", "leads:read"]);
    let card = writer.card(json!({
        "first_name": "Sig", "last_name": "Nature <&>", "job_title": "Engineer",
        "company": "Engines Ltd", "email": "sig@example.com", "phone": "+49 30 1234567",
        "website": "https://sig.example/about", "address": "Main St 1, Berlin",
        "language": "de", "template_id": "modern", "show_lead_form": true,
        "design_config": {"accent_color": "#0a7d3b", "avatar_url": "https://img.example/s.png"},
        "social_links": [{"platform": "linkedin", "url": "sig-nature"},
                         {"platform": "github", "url": "https://github.com/sig"}]
    }));
    let (id, slug) = (card["id"].as_i64().unwrap(), card["slug"].as_str().unwrap());
    let r = writer.get(&format!("/cards/{id}/signature"));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("etag").is_some(), "tagged like the other reads");
    let body = r.json();
    assert_eq!(
        body.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["data"],
        "{body}"
    );
    let html = body["data"]["html"].as_str().unwrap();
    let text = body["data"]["text"].as_str().unwrap();
    assert!(html.chars().count() <= 10_000);
    for banned in [
        "<style",
        "class=",
        "<script",
        "<div",
        "flex",
        "grid",
        "position:",
        "float",
    ] {
        assert!(!html.contains(banned), "{banned} in {html}");
    }
    assert!(html.starts_with("<table") && html.ends_with("</table>"));
    assert!(html.contains("Sig Nature &lt;&amp;&gt;"), "escaped: {html}");
    assert!(html.contains("#0a7d3b"), "the accent colour");
    let de = strings("de");
    assert!(html.contains(de.save_contact) && html.contains(de.my_card));
    assert!(
        text.starts_with("Sig Nature <&>\nEngineer · Engines Ltd\n"),
        "{text}"
    );
    assert!(text.contains(&format!("{}: https://sig.example/about", de.website)));

    // Every URL is absolute, on this worker unless it is the avatar, tel: or mailto:.
    let base = &s.base;
    let page = format!("{base}/c/{slug}");
    let hrefs = attrs(html, "href");
    assert_eq!(
        hrefs,
        [
            "tel:+49301234567".to_string(),
            "mailto:sig@example.com".into(),
            format!("{page}/go/website"),
            format!("{page}/go/social_linkedin"),
            format!("{page}/go/social_github"),
            format!("{page}?src=email_signature"),
            format!("{page}/vcard?src=email_signature"),
        ]
    );
    let srcs = attrs(html, "src");
    assert_eq!(
        srcs,
        [
            "https://img.example/s.png".to_string(),
            format!("{base}/assets/signature/linkedin.png"),
            format!("{base}/assets/signature/github.png"),
        ]
    );
    for img in html.split("<img ").skip(1) {
        let tag = &img[..img.find('>').unwrap()];
        for a in [" width=\"", " height=\"", " alt=\""] {
            assert!(format!(" {tag}").contains(a), "{a} missing in <img {tag}>");
        }
    }

    // The redirects lead where the card says and count their clicks.
    let go = call("GET", &hrefs[3], None, None, &[("User-Agent", BROWSER)]);
    assert_eq!(go.status, 302);
    assert_eq!(
        go.header("location"),
        Some("https://www.linkedin.com/in/sig-nature")
    );
    let go = call("GET", &hrefs[2], None, None, &[("User-Agent", BROWSER)]);
    assert_eq!(go.header("location"), Some("https://sig.example/about"));
    // The vCard link is the card's vCard.
    let vcard = call("GET", &hrefs[6], None, None, &[("User-Agent", BROWSER)]);
    assert_eq!(vcard.status, 200);
    assert!(vcard.body.contains("BEGIN:VCARD"), "{}", vcard.body);
    // The card page opened from the signature carries its source into the lead form...
    let opened = call("GET", &hrefs[5], None, None, &[("User-Agent", BROWSER)]);
    assert_eq!(opened.status, 200);
    assert!(opened
        .body
        .contains("name=\"src\" value=\"email_signature\""));
    // ... so a lead sent from it is counted as the signature's.
    let r = post_lead(
        s,
        slug,
        Some("203.0.113.77"),
        Lead::Form("name=Mail+Reader&email=reader%40example.com&src=email_signature"),
        &[],
    );
    assert_eq!(r.status, 303, "{}", r.body);
    let leads = writer.get(&format!("/leads?card_id={id}")).json();
    assert_eq!(leads["data"][0]["source"], "email_signature", "{leads}");
}

#[test]
fn the_signature_needs_cards_read_and_the_accounts_own_card() {
    let s = server();
    let writer = s.tenant(&["cards:write"]);
    let id = writer.card(json!({"first_name": "Own", "last_name": "Card"}))["id"]
        .as_i64()
        .unwrap();
    let path = format!("/cards/{id}/signature");
    // cards:write reads too, as for getCard.
    assert_eq!(writer.get(&path).status, 200);
    let reader = s.token(writer.account, &["cards:read"]);
    let r = s.call("GET", &format!("/api/v1{path}"), Some(&reader), None);
    assert_eq!(r.status, 200, "{}", r.body);
    let leads_only = s.token(writer.account, &["leads:read"]);
    s.call("GET", &format!("/api/v1{path}"), Some(&leads_only), None)
        .assert_error(403);
    s.call("GET", &format!("/api/v1{path}"), None, None)
        .assert_error(401);
    // Another account's card does not exist for this token.
    let other = s.tenant(&["cards:read"]);
    other.get(&path).assert_error(404);
    writer.get("/cards/999999999/signature").assert_error(404);
    writer.get("/cards/abc/signature").assert_error(404);
    let r = writer.send("POST", &path, &json!({}));
    r.assert_error(405);
    assert_eq!(r.header("allow"), Some("GET"));
    // A deleted card has no signature.
    assert_eq!(
        writer
            .send("DELETE", &format!("/cards/{id}"), &json!({}))
            .status,
        200
    );
    writer.get(&path).assert_error(404);
}

#[test]
fn every_platform_has_an_icon_cached_for_a_year() {
    let s = server();
    for p in Platform::ALL {
        let url = format!("{}/assets/signature/{}.png", s.base, p.as_str());
        let (status, headers, body) = bytes(&url);
        assert_eq!(status, 200, "{url}");
        assert_eq!(header(&headers, "content-type"), Some("image/png"));
        assert_eq!(
            header(&headers, "cache-control"),
            Some("public, max-age=31536000, immutable")
        );
        assert_eq!(&body[..8], b"\x89PNG\r\n\x1a\n", "{url}");
        // IHDR: 32 x 32.
        assert_eq!(&body[16..24], &[0, 0, 0, 32, 0, 0, 0, 32], "{url}");
    }
    for missing in ["tumblr.png", "linkedin.gif", "linkedin"] {
        let (status, _, _) = bytes(&format!("{}/assets/signature/{missing}", s.base));
        assert_eq!(status, 404, "{missing}");
    }
    let r = s.call("POST", "/assets/signature/x.png", None, Some("{}"));
    assert_eq!(r.status, 405);
}
