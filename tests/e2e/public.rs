//! Public card surface (product.md 4): pages, vCards, click redirects, the lead form.

use cardapi::domain::lang::LANGUAGES;
use cardapi::domain::validation::Rule;
use cardapi::public::i18n::{form_error, strings, Text};
use serde_json::{json, Value};

use crate::harness::{call, post_lead, server, Lead, Resp, Tenant, BROWSER};

const HOSTILE: &str = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>";

fn get(path: &str) -> Resp {
    call(
        "GET",
        &format!("{}{path}", server().base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    )
}

/// The lead form of `slug` on the shared server, posted as the page's form.
fn post_form(slug: &str, body: &str) -> Resp {
    post_lead(server(), slug, None, Lead::Form(body), &[])
}

/// The lead form of `slug` on the shared server, posted as JSON.
pub fn post_json(slug: &str, body: &Value) -> Resp {
    post_lead(server(), slug, None, Lead::Json(body), &[])
}

fn writer() -> Tenant<'static> {
    server().tenant(&["cards:write", "leads:read"])
}

fn full_card(t: &Tenant) -> Value {
    t.card(json!({
        "first_name": "Ada", "last_name": "Lovelace", "job_title": "Engineer", "company": "Engines Ltd",
        "bio": "Writes programs.", "email": "ada@example.com", "phone": "+44 20 1234 5678",
        "website": "https://ada.example", "booking_url": "https://cal.example/ada",
        "address": "12 St James's Square, London",
        "social_links": [{"platform": "linkedin", "url": "ada-lovelace"},
                         {"platform": "x", "url": "javascript:alert(1)"},
                         {"platform": "github", "url": "https://github.com/ada"}],
        "show_lead_form": true
    }))
}

fn assert_html(r: &Resp, status: u16) {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
    let csp = r.header("content-security-policy").expect("CSP header");
    assert!(
        csp.contains("default-src 'none'") && csp.contains("frame-ancestors 'none'"),
        "{csp}"
    );
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
}

#[test]
fn card_page_shows_the_card() {
    let t = writer();
    let c = full_card(&t);
    let slug = c["slug"].as_str().unwrap();
    let r = get(&format!("/c/{slug}"));
    assert_html(&r, 200);
    let html = &r.body;
    for text in [
        "Ada Lovelace",
        "Engineer · Engines Ltd",
        "Writes programs.",
        "12 St James&#39;s Square, London",
    ] {
        assert!(html.contains(text), "{text} in page");
    }
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("<title>Ada Lovelace</title>"));
    assert!(html.contains("og:title"));
    assert!(!html.contains("noindex"), "seo_indexable defaults to true");
    for go in [
        "go/email",
        "go/phone",
        "go/website",
        "go/booking",
        "go/address",
        "go/social_linkedin",
        "go/social_github",
        "vcard",
    ] {
        assert!(html.contains(&format!("/c/{slug}/{go}\"")), "{go} link");
    }
    assert!(html.contains("<form method=\"post\""), "lead form shown");
    assert!(html.contains("name=\"company_website\""), "honeypot");
    assert!(html.contains("<footer>"), "branding");
    assert!(!html.contains("<script"), "no scripts");
    // Methods the runtime binding does not know are not read as GET.
    let r = call(
        "QUERY",
        &format!("{}/c/{slug}", server().base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    );
    assert_eq!(r.status, 405);
    assert!(
        !html.contains("http://") || !html.contains("src=\"http"),
        "no external assets"
    );
}

#[test]
fn form_and_branding_follow_the_card() {
    let t = writer();
    let c = t.card(json!({"first_name": "No", "last_name": "Form", "show_lead_form": false, "show_branding": false}));
    let html = get(&format!("/c/{}", c["slug"].as_str().unwrap())).body;
    assert!(!html.contains("<form"));
    assert!(!html.contains("<footer>"));
}

#[test]
fn hostile_input_stays_inert() {
    let t = writer();
    let c = t.card(json!({
        "first_name": HOSTILE, "last_name": HOSTILE, "job_title": HOSTILE, "company": HOSTILE,
        "bio": HOSTILE, "address": HOSTILE, "seo_title": HOSTILE, "seo_description": HOSTILE,
        "social_links": [{"platform": "x", "url": "h", "label": HOSTILE}]
    }));
    let slug = c["slug"].as_str().unwrap();
    let r = get(&format!("/c/{slug}"));
    assert_html(&r, 200);
    assert!(
        !r.body.contains("<script>") && !r.body.contains("<img"),
        "{}",
        r.body
    );
    assert!(r
        .body
        .contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img"));
    let v = get(&format!("/c/{slug}/vcard"));
    assert_eq!(v.status, 200);
    assert!(v
        .body
        .contains("FN:<script>alert(1)</script>\"'><img src=x onerror=alert(1)> "));
    assert_eq!(v.header("content-type"), Some("text/vcard; charset=utf-8"));
    // Form re-render escapes what the visitor typed.
    let lead = t.card(json!({"first_name": "L", "last_name": "F", "show_lead_form": true}));
    let r = post_form(
        lead["slug"].as_str().unwrap(),
        "name=%3Cscript%3Ex%3C%2Fscript%3E&email=bad",
    );
    assert_html(&r, 422);
    assert!(!r.body.contains("<script>x"));
    assert!(r.body.contains("value=\"&lt;script&gt;x&lt;/script&gt;\""));
}

#[test]
fn unavailable_cards_are_a_404_page() {
    let t = writer();
    let mk = |body: Value| {
        let c = t.card(body);
        (
            c["id"].as_i64().unwrap(),
            c["slug"].as_str().unwrap().to_string(),
        )
    };
    let (draft_id, draft) = mk(json!({"first_name": "D", "last_name": "Raft"}));
    t.send(
        "PATCH",
        &format!("/cards/{draft_id}"),
        &json!({"status": "draft"}),
    );
    let (archived_id, archived) = mk(json!({"first_name": "A", "last_name": "Rchived"}));
    t.send(
        "PATCH",
        &format!("/cards/{archived_id}"),
        &json!({"status": "archived"}),
    );
    let (_, private) = mk(json!({"first_name": "P", "last_name": "Rivate", "is_public": false}));
    for path in [
        format!("/c/{draft}"),
        format!("/c/{archived}"),
        format!("/c/{private}"),
        format!("/c/{private}/vcard"),
        format!("/c/{private}/qr.svg"),
        format!("/c/{draft}/qr.svg"),
        "/c/no-such-card-anywhere/qr.svg".into(),
        format!("/c/{draft}/go/email"),
        "/c/no-such-card-anywhere".into(),
        "/c/Invalid%20Slug".into(),
    ] {
        assert_html(&get(&path), 404);
    }
    // Back to active: shown again.
    t.send(
        "PATCH",
        &format!("/cards/{archived_id}"),
        &json!({"status": "active"}),
    );
    assert_eq!(get(&format!("/c/{archived}")).status, 200);
}

#[test]
fn page_renders_in_each_of_the_19_languages() {
    let t = writer();
    for lang in LANGUAGES {
        let c = t.card(json!({"first_name": "L", "last_name": lang, "language": lang}));
        let slug = c["slug"].as_str().unwrap();
        let html = get(&format!("/c/{slug}")).body;
        assert!(html.contains(&format!("<html lang=\"{lang}\">")), "{lang}");
        let save = strings(lang).get(Text::SaveContact).replace('\'', "&#39;");
        assert!(html.contains(&save), "{lang}: {save}");
        // ?lang= only switches to a language the card is published in.
        let other = if lang == "de" { "fr" } else { "de" };
        assert!(get(&format!("/c/{slug}?lang={other}"))
            .body
            .contains(&format!("<html lang=\"{lang}\">")));
        assert!(get(&format!("/c/{slug}?lang={lang}"))
            .body
            .contains(&format!("<html lang=\"{lang}\">")));
    }
}

#[test]
fn vcard_is_3_0_by_default_and_4_0_on_request() {
    let t = writer();
    let c = t.card(json!({"first_name": "Jürgen", "last_name": "Groß", "company": "A, B; C",
        "email": "j@example.com", "phone": "+49 30 1", "bio": format!("{}\nEND:VCARD", "ü".repeat(60))}));
    let slug = c["slug"].as_str().unwrap();
    for (query, version, email) in [
        ("", "3.0", "EMAIL;TYPE=INTERNET,WORK:j@example.com"),
        ("?version=4", "4.0", "EMAIL;TYPE=work:j@example.com"),
        // Not a version this service writes: the default, never an error.
        (
            "?version=2.1",
            "3.0",
            "EMAIL;TYPE=INTERNET,WORK:j@example.com",
        ),
    ] {
        let r = get(&format!("/c/{slug}/vcard{query}"));
        assert_eq!(r.status, 200, "{query}");
        assert_eq!(r.header("content-type"), Some("text/vcard; charset=utf-8"));
        assert_eq!(
            r.header("content-disposition"),
            Some(format!("attachment; filename=\"{slug}.vcf\"").as_str())
        );
        let v = &r.body;
        assert!(
            v.starts_with(&format!("BEGIN:VCARD\r\nVERSION:{version}\r\n")),
            "{query}: {v}"
        );
        assert!(v.ends_with("END:VCARD\r\n"));
        assert_eq!(
            v.matches("END:VCARD").count(),
            2,
            "one real END, one escaped inside NOTE"
        );
        assert!(v.contains("\\nEND:VCARD"), "newline escaped");
        assert!(v.contains("\r\nN:Groß;Jürgen;;;\r\n"));
        assert!(v.contains("\r\nORG:A\\, B\\; C\r\n"));
        assert!(v.contains(&format!("\r\n{email}\r\n")), "{query}: {v}");
        for line in v.split("\r\n") {
            assert!(line.len() <= 75, "folded: {line}");
        }
        assert!(!v.replace("\r\n", "").contains('\n'), "CRLF only");
    }
}

/// What Python's vobject (pinned in `.venv`, which `make test` installs before the tests)
/// reads from a vCard: it must parse and validate, and these are the fields it found.
fn read_with_vobject(vcard: &str) -> Value {
    const SCRIPT: &str = r#"
import json, sys, vobject
card = vobject.readOne(sys.stdin.buffer.read().decode("utf-8"), validate=True)
every = lambda name: card.contents.get(name, [])
labels = {l.group: l.value for l in every("x-ablabel")}
print(json.dumps({
    "version": card.version.value,
    "fn": card.fn.value,
    "n": [card.n.value.family, card.n.value.given],
    "org": card.org.value,
    "title": card.title.value,
    "emails": [e.value for e in every("email")],
    "tels": [t.value for t in every("tel")],
    "street": card.adr.value.street,
    "note": card.note.value,
    "urls": [[labels.get(u.group), u.value] for u in every("url")],
    "social": [[s.params.get("TYPE"), s.value] for s in every("x-socialprofile")],
    "photo": [[p.params.get("VALUE"), p.value] for p in every("photo")],
    "source": card.source.value,
}))
"#;
    let python = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: the vCard test needs vobject; `make test` (or `make .venv/stamp`) \
         installs it",
        python.display()
    );
    let mut child = std::process::Command::new(&python)
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start python");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), vcard.as_bytes())
        .expect("send the vCard");
    let out = child.wait_with_output().expect("python ran");
    assert!(
        out.status.success(),
        "vobject refused the vCard:\n{vcard}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from the script")
}

#[test]
fn both_vcard_versions_parse_with_vobject() {
    let t = writer();
    let c = t.card(json!({
        "first_name": "Ada", "last_name": "Lovelace; Byron", "job_title": "Engineer",
        "company": "Engines, Ltd", "bio": "Writes programs.\nAnd notes.",
        "email": "ada@example.com", "phone": "+44 20 1234 5678",
        "address": "12 St James's Square, London",
        "website": "https://ada.example", "booking_url": "https://cal.example/ada?slots=1,2",
        "video_url": "https://video.example/ada",
        "social_links": [{"platform": "linkedin", "url": "ada-lovelace"},
                         {"platform": "x", "url": "javascript:alert(1)"},
                         {"platform": "github", "url": "https://github.com/ada"}],
        "design_config": {"avatar_url": "https://img.example/ada.png", "theme": "dark"}
    }));
    let slug = c["slug"].as_str().unwrap();
    let public_url = c["public_url"].as_str().unwrap();
    for (query, version, photo_value) in [
        ("", "3.0", json!(["URI"])),
        ("?version=4", "4.0", Value::Null),
    ] {
        let r = get(&format!("/c/{slug}/vcard{query}"));
        assert_eq!(r.status, 200);
        let v = read_with_vobject(&r.body);
        assert_eq!(v["version"], version);
        assert_eq!(v["fn"], "Ada Lovelace; Byron");
        assert_eq!(v["n"], json!(["Lovelace; Byron", "Ada"]));
        assert_eq!(v["org"], json!(["Engines, Ltd"]));
        assert_eq!(v["title"], "Engineer");
        assert_eq!(v["emails"], json!(["ada@example.com"]));
        assert_eq!(v["tels"], json!(["+44 20 1234 5678"]));
        assert_eq!(v["street"], "12 St James's Square, London");
        assert_eq!(v["note"], "Writes programs.\nAnd notes.");
        assert_eq!(
            v["urls"],
            json!([
                [null, "https://ada.example"],
                ["Booking", "https://cal.example/ada?slots=1%2C2"],
                ["Video", "https://video.example/ada"],
                ["Card", public_url]
            ]),
            "{version}"
        );
        assert_eq!(
            v["social"],
            json!([
                [["linkedin"], "https://www.linkedin.com/in/ada-lovelace"],
                [["github"], "https://github.com/ada"]
            ])
        );
        assert_eq!(
            v["photo"],
            json!([[photo_value, "https://img.example/ada.png"]])
        );
        assert_eq!(v["source"], format!("{public_url}/vcard{query}"));
    }
    // Without an avatar, no PHOTO.
    let bare = t.card(json!({"first_name": "No", "last_name": "Photo"}));
    let r = get(&format!("/c/{}/vcard", bare["slug"].as_str().unwrap()));
    assert!(!r.body.contains("PHOTO"), "{}", r.body);
}

/// The dark cells of the QR SVG the service drew, read as a renderer would: the viewBox
/// is the canvas, a white `rect` fills it, and the one `path` is rectangles of `M`/`m`
/// moves, `h`/`v` lines and `z`. Returns the canvas side and the cells.
fn rasterize(svg: &str) -> (usize, Vec<Vec<bool>>) {
    let attr = |tag: &str, name: &str| -> String {
        let at = svg
            .find(&format!("<{tag} "))
            .unwrap_or_else(|| panic!("<{tag}> in {svg}"));
        let rest = &svg[at..];
        let start = rest.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
        rest[start..start + rest[start..].find('"').unwrap()].to_string()
    };
    let view: Vec<usize> = attr("svg", "viewBox")
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!((view[0], view[1]), (0, 0));
    assert_eq!(view[2], view[3], "square");
    let side = view[2];
    assert_eq!(attr("rect", "width"), side.to_string());
    assert_eq!(attr("rect", "height"), side.to_string());
    assert_eq!(attr("rect", "fill"), "#fff");
    let d = attr("path", "d");
    let mut tokens: Vec<String> = vec![];
    let mut number = String::new();
    for c in d.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        if !number.is_empty() {
            tokens.push(std::mem::take(&mut number));
        }
        match c {
            '-' => number.push('-'),
            ' ' | ',' => {}
            c if c.is_ascii_alphabetic() => tokens.push(c.to_string()),
            other => panic!("unexpected {other:?} in the path"),
        }
    }
    tokens.extend((!number.is_empty()).then_some(number));
    fn num(it: &mut impl Iterator<Item = String>) -> i64 {
        it.next().and_then(|t| t.parse().ok()).expect("a number")
    }
    let mut grid = vec![vec![false; side]; side];
    let mut it = tokens.into_iter();
    let (mut x, mut y, mut start) = (0i64, 0i64, (0i64, 0i64));
    let mut corners = vec![];
    while let Some(cmd) = it.next() {
        match cmd.as_str() {
            "M" => (x, y) = (num(&mut it), num(&mut it)),
            "m" => (x, y) = (x + num(&mut it), y + num(&mut it)),
            "h" => x += num(&mut it),
            "v" => y += num(&mut it),
            "H" => x = num(&mut it),
            "V" => y = num(&mut it),
            "z" | "Z" => {
                assert_eq!(corners.len(), 4, "each subpath a rectangle: {corners:?}");
                let xs = || corners.iter().map(|c: &(i64, i64)| c.0);
                let ys = || corners.iter().map(|c: &(i64, i64)| c.1);
                let (x0, x1) = (xs().min().unwrap(), xs().max().unwrap());
                let (y0, y1) = (ys().min().unwrap(), ys().max().unwrap());
                assert!(x0 >= 0 && y0 >= 0 && x1 <= side as i64 && y1 <= side as i64);
                for row in &mut grid[y0 as usize..y1 as usize] {
                    row[x0 as usize..x1 as usize].fill(true);
                }
                (x, y) = start;
                corners.clear();
                continue;
            }
            other => panic!("unexpected command {other} in the path"),
        }
        if matches!(cmd.as_str(), "M" | "m") {
            start = (x, y);
            corners = vec![(x, y)];
        } else {
            corners.push((x, y));
        }
    }
    (side, grid)
}

#[test]
fn click_redirects_allow_only_safe_schemes() {
    let t = writer();
    let c = full_card(&t);
    let slug = c["slug"].as_str().unwrap();
    for (kind, target) in [
        ("email", "mailto:ada@example.com"),
        ("phone", "tel:+442012345678"),
        ("website", "https://ada.example"),
        ("booking", "https://cal.example/ada"),
        (
            "social_linkedin",
            "https://www.linkedin.com/in/ada-lovelace",
        ),
        ("social_github", "https://github.com/ada"),
    ] {
        let r = get(&format!("/c/{slug}/go/{kind}"));
        assert_eq!(r.status, 302, "{kind}");
        assert_eq!(r.header("location"), Some(target), "{kind}");
    }
    let r = get(&format!("/c/{slug}/go/address"));
    assert!(r
        .header("location")
        .unwrap()
        .starts_with("https://www.google.com/maps/search/?api=1&query=12%20St"));
    for kind in ["social_x", "video", "social_facebook", "fax", "javascript"] {
        assert_html(&get(&format!("/c/{slug}/go/{kind}")), 404);
    }
}

#[test]
fn lead_form_posts_store_leads_with_their_source() {
    let t = writer();
    let c = full_card(&t);
    let (id, slug) = (
        c["id"].as_i64().unwrap(),
        c["slug"].as_str().unwrap().to_string(),
    );
    // The page carries ?src= into the form.
    assert!(get(&format!("/c/{slug}?src=qr"))
        .body
        .contains("name=\"src\" value=\"qr\""));
    let r = post_form(
        &slug,
        "name=Grace+Hopper&email=grace%40example.com&phone=%2B1+555&message=Hello%21&src=qr",
    );
    // 303 back to the page (extensions.md 5): a reload of what the browser shows then is a
    // GET, which posts nothing again.
    assert_eq!(r.status, 303, "{}", r.body);
    let back = r.header("location").expect("Location").to_string();
    assert_eq!(back, format!("/c/{slug}?sent=1"));
    let page = get(&back);
    assert_html(&page, 200);
    assert!(page.body.contains(strings("en").get(Text::Thanks)));
    assert!(page.body.contains("role=\"status\""));
    let r = post_json(&slug, &json!({"name": "Alan", "email": "alan@example.com"}));
    assert_eq!(r.status, 201, "{}", r.body);
    // The visitor learns nothing of the stored lead, its id included: no Location either,
    // as a lead has no public URL (openapi.json, the Location header).
    assert_eq!(r.header("location"), None);
    assert_eq!(
        r.json(),
        json!({"data": {"message": strings("en").get(Text::Thanks)}})
    );
    let list = t.get(&format!("/leads?card_id={id}")).json();
    assert_eq!(list["meta"]["total"], 2);
    assert_eq!(list["data"][0]["name"], "Alan");
    assert_eq!(list["data"][0]["source"], "lead_form");
    assert_eq!(list["data"][0]["card_id"], id);
    assert_eq!(list["data"][1]["name"], "Grace Hopper");
    assert_eq!(list["data"][1]["source"], "qr");
    assert_eq!(list["data"][1]["message"], "Hello!");
    assert_eq!(list["data"][1]["phone"], "+1 555");
    let card = t.get(&format!("/cards/{id}")).json()["data"].clone();
    assert_eq!(card["leads"].as_array().unwrap().len(), 2);
    assert_eq!(card["leads"][0]["name"], "Alan");
}

#[test]
fn lead_form_validation_honeypot_and_switch() {
    let t = writer();
    let c = full_card(&t);
    let (id, slug) = (
        c["id"].as_i64().unwrap(),
        c["slug"].as_str().unwrap().to_string(),
    );
    let v = post_json(&slug, &json!({"email": "nope"})).assert_error(422);
    assert_eq!(v["errors"]["name"], json!(["The name field is required."]));
    assert_eq!(
        v["errors"]["email"],
        json!(["The email field must be a valid email address."])
    );
    post_json(
        &slug,
        &json!({"name": "x", "email": "a@b.co", "phone": "call me"}),
    )
    .assert_error(422);
    let r = post_form(&slug, "name=Kept+Name&email=");
    assert_html(&r, 422);
    // Worded for visitors in the page's language (extensions.md 5), not the API's wording.
    let required = form_error("en", Rule::Required, strings("en").get(Text::Email)).unwrap();
    assert!(r.body.contains(&required), "{required}");
    assert!(r.body.contains("value=\"Kept Name\""));
    // A bot fills the honeypot: it sees success, nothing is stored.
    let r = post_form(
        &slug,
        "name=Bot&email=bot%40example.com&company_website=http%3A%2F%2Fspam",
    );
    assert_eq!(r.status, 303);
    let r = post_json(
        &slug,
        &json!({"name": "Bot", "email": "bot@example.com", "company_website": "x"}),
    );
    assert_eq!(r.status, 201);
    assert_eq!(
        t.get(&format!("/leads?card_id={id}")).json()["meta"]["total"],
        0
    );
    // Lead form switched off: no form, no endpoint.
    t.send(
        "PATCH",
        &format!("/cards/{id}"),
        &json!({"show_lead_form": false}),
    );
    assert_html(&post_form(&slug, "name=A&email=a%40b.co"), 404);
    post_json(&slug, &json!({"name": "A", "email": "a@b.co"})).assert_error(404);
    assert_eq!(
        t.get(&format!("/leads?card_id={id}")).json()["meta"]["total"],
        0
    );
}

/// Reads a module grid as a phone would: drawn 4 pixels per module, found and decoded by
/// rqrr. Returns the level field of the format information (M is 0) and the text.
fn scan(grid: &[Vec<bool>]) -> (u16, String) {
    let px = grid.len() * 4;
    let mut img = rqrr::PreparedImage::prepare_from_bitmap(px, px, |x, y| grid[y / 4][x / 4]);
    let found = img.detect_grids();
    assert_eq!(found.len(), 1, "one QR code in the picture");
    let (meta, text) = found[0].decode().expect("the code decodes");
    (meta.ecc_level, text)
}

#[test]
fn qr_code_scans_to_the_card_url_and_counts_no_view() {
    let t = server().tenant(&["cards:write", "analytics:read"]);
    let c = full_card(&t);
    let (id, slug) = (c["id"].as_i64().unwrap(), c["slug"].as_str().unwrap());
    let path = format!("/c/{slug}/qr.svg");
    let r = get(&path);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("image/svg+xml"));
    assert_eq!(r.header("cache-control"), Some("public, max-age=300"));
    assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    let svg = &r.body;
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(" shape-rendering=\"crispEdges\""));
    assert_eq!(svg.matches("<path").count(), 1, "one path");
    assert!(!svg.contains("<script") && !svg.contains("href"));
    let (side, grid) = rasterize(svg);
    // Quiet zone: the outer 4 modules are light, and the finder patterns reach them.
    let dark_rows: Vec<usize> = (0..side).filter(|&y| grid[y].contains(&true)).collect();
    let dark_cols: Vec<usize> = (0..side).filter(|&x| grid.iter().any(|r| r[x])).collect();
    for lines in [&dark_rows, &dark_cols] {
        assert_eq!(
            (lines[0], lines[lines.len() - 1]),
            (4, side - 5),
            "quiet zone 4"
        );
    }
    let (level, text) = scan(&grid);
    let url = format!("{}?src=qr", c["public_url"].as_str().unwrap());
    assert_eq!(text, url);
    assert_eq!(level, 0, "error correction level M");

    // Revalidation, HEAD, and no other method.
    let etag = r.header("etag").expect("ETag").to_string();
    let again = call(
        "GET",
        &format!("{}{path}", server().base),
        None,
        None,
        &[("If-None-Match", &etag), ("User-Agent", BROWSER)],
    );
    assert_eq!((again.status, again.body.as_str()), (304, ""));
    let head = call(
        "HEAD",
        &format!("{}{path}", server().base),
        None,
        None,
        &[("User-Agent", BROWSER)],
    );
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-type"), Some("image/svg+xml"));
    assert_eq!(head.body, "");
    let post = call(
        "POST",
        &format!("{}{path}", server().base),
        None,
        Some("{}"),
        &[],
    );
    assert_eq!(post.status, 405);

    // A scan opens the page with the QR source: that is the one view. The image, fetched
    // as a browser would above, counted none, and no click either.
    let page = call("GET", &url, None, None, &[("User-Agent", BROWSER)]);
    assert_html(&page, 200);
    assert!(page
        .body
        .contains(r#"<input type="hidden" name="src" value="qr">"#));
    let views = || {
        t.get(&format!("/analytics/views?card_id={id}&period=7d"))
            .json()["data"]["total_views"]
            .as_i64()
            .unwrap()
    };
    let started = std::time::Instant::now();
    while views() < 1 && started.elapsed() < std::time::Duration::from_secs(15) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // Events are visible within 2 seconds (product.md 4): any from the image would be by now.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(views(), 1);
    assert_eq!(
        t.get(&format!("/analytics/clicks?card_id={id}")).json()["data"]["total_clicks"],
        0
    );
}

#[test]
fn design_config_is_checked_and_shapes_the_page() {
    let t = writer();
    // Wrong shapes: 422 naming the dotted key; nothing stored.
    let r = t.send(
        "POST",
        "/cards",
        &json!({"first_name": "D", "last_name": "C", "template_id": "modern",
                "design_config": {"theme": "neon", "accent_color": "blue",
                                  "avatar_url": "javascript:alert(1)", "font": 3}}),
    );
    let e = r.assert_error(422);
    for key in ["theme", "accent_color", "avatar_url", "font"] {
        assert!(
            e["errors"][format!("design_config.{key}")].is_array(),
            "{key}: {e}"
        );
    }
    assert_eq!(
        e["errors"]["design_config.accent_color"][0],
        "The design config.accent color field format is invalid."
    );
    // The same keys well formed, plus one the page does not know (kept as given).
    let card = t.card(json!({
        "first_name": "Dee", "last_name": "Signer", "template_id": "minimal",
        "design_config": {"theme": "dark", "accent_color": "#FFD600", "font": "serif",
                          "button_style": "outline", "avatar_url": "https://img.example.com/a.png",
                          "cover_url": "https://cdn.example.org/c.jpg", "brand": {"kept": true}}
    }));
    assert_eq!(card["design_config"]["brand"], json!({"kept": true}));
    let r = get(&format!("/c/{}", card["slug"].as_str().unwrap()));
    assert_html(&r, 200);
    assert!(r
        .body
        .contains("<body class=\"t-minimal dark f-serif outline\">"));
    assert!(r.body.contains(
        "<img class=\"avatar\" src=\"https://img.example.com/a.png\" alt=\"Dee Signer\""
    ));
    assert!(r
        .body
        .contains("<meta property=\"og:image\" content=\"https://cdn.example.org/c.jpg\">"));
    assert!(r
        .body
        .contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"));
    assert!(r
        .body
        .contains("<details class=\"qr\"><summary>Show QR code</summary><svg"));
    // The CSP admits exactly the design's image origins, nothing wider.
    let csp = r.header("content-security-policy").unwrap();
    assert!(
        csp.contains("img-src 'self' data: https://img.example.com https://cdn.example.org;"),
        "{csp}"
    );
    assert!(!csp.contains("https:;") && !csp.contains("*"), "{csp}");
    // Without images the CSP stays as strict as before.
    let plain = full_card(&t);
    let r = get(&format!("/c/{}", plain["slug"].as_str().unwrap()));
    assert!(r
        .header("content-security-policy")
        .unwrap()
        .contains("img-src 'self' data:;"));
    assert!(r.body.contains("<body class=\"t-classic light f-system\">"));
    // Sharing metadata is always there; og:image only with an avatar or a cover.
    for tag in [
        "<meta property=\"og:title\" content=\"",
        "<meta property=\"og:description\" content=\"",
        "<meta name=\"twitter:card\" content=\"summary\">",
    ] {
        assert!(r.body.contains(tag), "{tag}");
    }
    assert!(!r.body.contains("og:image"));
    // An unknown template renders classic.
    let odd =
        t.card(json!({"first_name": "Odd", "last_name": "Layout", "template_id": "holographic"}));
    let r = get(&format!("/c/{}", odd["slug"].as_str().unwrap()));
    assert_html(&r, 200);
    assert!(r.body.contains("<body class=\"t-classic light f-system\">"));
}
