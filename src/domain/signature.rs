//! The card as an email signature (teams.md 2): HTML that Outlook's Word engine, Gmail and
//! Apple Mail draw alike (tables, inline styles, absolute URLs, sized images), and the same
//! facts as plain text. The website and the social links go through the card's click
//! redirects, so their clicks count and their length never reaches the HTML.

use crate::domain::card::Card;
use crate::domain::design::{readable_on, Design, Rgb, Template, DEFAULT_ACCENT};
use crate::domain::html::Html;
use crate::domain::i18n::strings;
use crate::domain::links::{platform_label, social, target};
use crate::domain::weburl::parse_http;

/// Gmail's limit for a signature, in characters.
pub const MAX_CHARS: usize = 10_000;

/// The lead source of the signature's links (product.md 1).
pub const SOURCE: &str = "email_signature";

/// The path of a platform's icon, under the service's origin.
pub fn icon_path(platform: &str) -> String {
    format!("/assets/signature/{platform}.png")
}

pub struct Signature {
    pub html: String,
    pub text: String,
}

/// What the HTML leaves out to stay within [`MAX_CHARS`], tried in this order. Only values
/// written to grow when escaped (`&&&...` at every maximum length) get past `Nothing`.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Cut {
    Nothing,
    Avatar,
    HalfIcons,
    Icons,
    Address,
}

/// The facts a signature shows, read once from the card.
struct Facts {
    name: String,
    role: Option<String>,
    /// Label, link, shown text, the plain text's.
    contact: Vec<(&'static str, String, String, String)>,
    address: Option<String>,
    /// Platform and its `/go/social_<platform>` URL; the plain text names the target.
    social: Vec<(&'static str, String, String)>,
    image: Option<String>,
    /// The service's origin, which the icons are served from.
    base: String,
    page: String,
    vcard: String,
    template: Template,
    accent: Rgb,
}

fn filled(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl Facts {
    fn of(card: &Card, base_url: &str) -> Facts {
        let s = strings(&card.language);
        let page = card.public_url(base_url);
        let go = |kind: &str| format!("{page}/go/{kind}");
        let role = match (filled(&card.job_title), filled(&card.company)) {
            (Some(job), Some(company)) => Some(format!("{job} · {company}")),
            (Some(one), None) | (None, Some(one)) => Some(one.to_string()),
            (None, None) => None,
        };
        let mut contact = Vec::new();
        if let (Some(phone), Some(tel)) = (filled(&card.phone), target(card, "phone")) {
            contact.push((s.phone, tel, phone.to_string(), phone.to_string()));
        }
        if let (Some(email), Some(mailto)) = (filled(&card.email), target(card, "email")) {
            contact.push((s.email, mailto, email.to_string(), email.to_string()));
        }
        if let Some(site) = target(card, "website") {
            let host = parse_http(&site).map(|u| u.host).unwrap_or_default();
            contact.push((s.website, go("website"), host, site));
        }
        let social = social(&card.social_links())
            .into_iter()
            .filter_map(|(p, _)| {
                let kind = format!("social_{p}");
                Some((p, go(&kind), target(card, &kind)?))
            })
            .collect();
        let design = serde_json::from_str(card.design_config.get())
            .map(|config| Design::read(&config))
            .unwrap_or_default();
        Facts {
            name: format!("{} {}", card.first_name.trim(), card.last_name.trim()),
            role,
            contact,
            address: filled(&card.address).map(str::to_string),
            social,
            image: design.avatar_url.or(design.logo_url),
            base: base_url.trim_end_matches('/').to_string(),
            vcard: format!("{page}/vcard?src={SOURCE}"),
            page: format!("{page}?src={SOURCE}"),
            template: Template::of(card.template_id.as_deref()),
            accent: design.accent.unwrap_or(DEFAULT_ACCENT),
        }
    }
}

/// The signature of a card, its URLs under `base_url` (the service's origin).
pub fn signature(card: &Card, base_url: &str) -> Signature {
    let facts = Facts::of(card, base_url);
    let cuts = [Cut::Nothing, Cut::Avatar, Cut::HalfIcons, Cut::Icons];
    let html = cuts
        .into_iter()
        .map(|cut| html(card, &facts, cut))
        .find(|h| h.chars().count() <= MAX_CHARS)
        .unwrap_or_else(|| html(card, &facts, Cut::Address));
    Signature {
        html,
        text: text(card, &facts),
    }
}

/// The icon size; the avatar's depends on the layout.
const ICON: &str = "32";

fn html(card: &Card, f: &Facts, cut: Cut) -> String {
    let s = strings(&card.language);
    // Links and the icons' tiles read at 4.5:1 on white, as the page's links do.
    let link = readable_on(f.accent, &[Rgb::WHITE]).hex();
    let accent = f.accent.hex();
    let a_style = format!("color:{link};text-decoration:none");
    let (avatar, column, radius, name_color, cell) = match f.template {
        Template::Classic => (
            "72",
            "88",
            "36px",
            "#111827",
            format!("padding:0 0 0 14px;border-left:3px solid {accent}"),
        ),
        Template::Modern => (
            "88",
            "104",
            "8px",
            link.as_str(),
            "padding:10px 0 0 0".into(),
        ),
        // No picture: text only.
        Template::Minimal => ("", "", "", "#111827", "padding:0".into()),
    };
    let mut h = Html::with_capacity(4096);
    h.raw(
        "<table role=\"presentation\" width=\"600\" cellpadding=\"0\" cellspacing=\"0\" \
         border=\"0\" style=\"font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:20px;\
         color:#1f2937\">",
    );
    let image = f
        .image
        .as_deref()
        .filter(|_| cut < Cut::Avatar && !avatar.is_empty());
    if f.template == Template::Modern {
        // A band in the accent colour over the whole signature.
        h.raw("<tr><td colspan=\"2\" height=\"4\" style=\"height:4px;font-size:0;line-height:0\" bgcolor=\"")
            .text(&accent)
            .raw("\">&nbsp;</td></tr>");
    }
    h.raw("<tr>");
    if let Some(url) = image {
        h.open(
            "td",
            &[
                ("valign", "top"),
                ("width", column),
                ("style", "padding:0 16px 0 0"),
            ],
        );
        // Not a link: the card's own link is two lines below, and every character counts.
        h.open(
            "img",
            &[
                ("src", &crate::domain::links::ascii_uri(url)),
                ("width", avatar),
                ("height", avatar),
                ("alt", &f.name),
                (
                    "style",
                    &format!("display:block;border:0;border-radius:{radius}"),
                ),
            ],
        );
        h.raw("</td>");
    }
    h.open("td", &[("valign", "top"), ("style", &cell)]);
    h.element(
        "p",
        &[(
            "style",
            &format!(
                "margin:0;font-size:18px;line-height:24px;font-weight:bold;color:{name_color}"
            ),
        )],
        &f.name,
    );
    if let Some(role) = &f.role {
        h.element("p", &[("style", "margin:0;color:#4b5563")], role);
    }
    h.raw("<p style=\"margin:6px 0 0\">");
    for (i, (label, href, shown, _)) in f.contact.iter().enumerate() {
        if i > 0 {
            h.raw("<br>");
        }
        h.text(label)
            .raw(": ")
            .element("a", &[("href", href), ("style", &a_style)], shown);
    }
    if let Some(address) = f.address.as_deref().filter(|_| cut < Cut::Address) {
        if !f.contact.is_empty() {
            h.raw("<br>");
        }
        h.text(address);
    }
    h.raw("</p>");
    let icons = match cut {
        Cut::Nothing | Cut::Avatar => f.social.len(),
        Cut::HalfIcons => f.social.len() / 2,
        Cut::Icons | Cut::Address => 0,
    };
    if icons > 0 {
        // The row's colour fills its cells, the tiles; the cell spacing between them stays
        // the table's (none). Rows of 12 tiles (436 px) keep the signature within 600 px.
        // The negative margin lines the first tile up with the text (Outlook, which drops it,
        // shows them 4 px in).
        h.raw(
            "<table cellpadding=\"0\" cellspacing=\"4\" border=\"0\" style=\"margin-left:-4px\">",
        );
        for (i, (platform, href, _)) in f.social.iter().take(icons).enumerate() {
            if i % 12 == 0 {
                if i > 0 {
                    h.raw("</tr>");
                }
                h.open("tr", &[("bgcolor", &link)]);
            }
            h.raw("<td>")
                .open("a", &[("href", href)])
                .open(
                    "img",
                    &[
                        ("src", &format!("{}{}", f.base, icon_path(platform))),
                        ("width", ICON),
                        ("height", ICON),
                        ("alt", &platform_label(platform)),
                        ("style", "display:block;border:0"),
                    ],
                )
                .raw("</a></td>");
        }
        h.raw("</tr></table>");
    }
    h.raw("<p style=\"margin:6px 0 0;font-size:13px\">")
        .open("a", &[("href", &f.page), ("style", &a_style)])
        .raw("<b>")
        .text(s.my_card)
        .raw("</b></a> · ")
        .element(
            "a",
            &[("href", &f.vcard), ("style", &a_style)],
            s.save_contact,
        )
        .raw("</p></td></tr></table>");
    h.into_string()
}

/// The same facts, one a line.
fn text(card: &Card, f: &Facts) -> String {
    let s = strings(&card.language);
    let mut lines = vec![f.name.clone()];
    lines.extend(f.role.clone());
    // The plain text names the targets themselves, not their click redirects.
    for (label, _, _, plain) in &f.contact {
        lines.push(format!("{label}: {plain}"));
    }
    lines.extend(f.address.clone());
    for (platform, _, url) in &f.social {
        lines.push(format!("{}: {url}", platform_label(platform)));
    }
    lines.push(format!("{}: {}", s.my_card, f.page));
    lines.push(format!("{}: {}", s.save_contact, f.vcard));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::{signature, MAX_CHARS};
    use crate::domain::card::{fixture, Card, CardInput, Platform};
    use serde_json::{json, Map, Value};

    const BASE: &str = "https://cards.example.com";
    const LAYOUTS: [&str; 3] = ["classic", "modern", "minimal"];

    /// A start tag or end tag of the HTML: its name and attributes (every value is quoted,
    /// as the builder writes them).
    #[derive(Debug)]
    struct Tag {
        name: String,
        end: bool,
        attrs: Vec<(String, String)>,
    }

    impl Tag {
        fn get(&self, name: &str) -> Option<&str> {
            self.attrs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        }
    }

    /// The tags of `html`, in order; panics on anything that is not a plain tag or text
    /// (comments, doctype, unquoted values, a stray `<` or `>` in text).
    fn scan(html: &str) -> Vec<Tag> {
        let mut tags = vec![];
        let mut rest = html;
        while let Some(start) = rest.find(['<', '>']) {
            assert_eq!(&rest[start..start + 1], "<", "stray > in {rest}");
            let end = rest[start..].find('>').expect("unclosed tag") + start;
            let inner = &rest[start + 1..end];
            assert!(!inner.contains('<'), "< inside a tag: {inner}");
            let (end_tag, inner) = match inner.strip_prefix('/') {
                Some(i) => (true, i),
                None => (false, inner),
            };
            let name_len = inner.find(' ').unwrap_or(inner.len());
            let name = inner[..name_len].to_string();
            assert!(name.bytes().all(|b| b.is_ascii_lowercase()), "tag {name}");
            let mut attrs = vec![];
            let mut a = inner[name_len..].trim_start();
            while !a.is_empty() {
                let eq = a.find("=\"").expect("quoted attribute");
                let close = a[eq + 2..].find('"').expect("closing quote") + eq + 2;
                attrs.push((a[..eq].to_string(), a[eq + 2..close].to_string()));
                a = a[close + 1..].trim_start();
            }
            tags.push(Tag {
                name,
                end: end_tag,
                attrs,
            });
            rest = &rest[end + 1..];
        }
        tags
    }

    /// Entities back to characters, for comparing attribute values.
    fn unescape(s: &str) -> String {
        s.replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    }

    fn absolute(url: &str) -> bool {
        url.starts_with("https://")
            || url.starts_with("http://")
            || url.starts_with("mailto:")
            || url.starts_with("tel:")
    }

    /// Every rule of teams.md 2 that the markup itself can break.
    fn check_rules(html: &str, base: &str) -> Vec<Tag> {
        assert!(
            html.chars().count() <= MAX_CHARS,
            "{} characters",
            html.chars().count()
        );
        let tags = scan(html);
        let mut open: Vec<&str> = vec![];
        for t in &tags {
            assert!(
                ["table", "tr", "td", "p", "a", "img", "br", "b"].contains(&t.name.as_str()),
                "tag <{}> (no style, script, div layout or other elements)",
                t.name
            );
            if t.end {
                assert_eq!(open.pop(), Some(t.name.as_str()), "nesting");
                continue;
            }
            if !["img", "br"].contains(&t.name.as_str()) {
                open.push(&t.name);
            }
            for (name, value) in &t.attrs {
                assert!(
                    [
                        "role",
                        "width",
                        "height",
                        "cellpadding",
                        "cellspacing",
                        "border",
                        "style",
                        "colspan",
                        "bgcolor",
                        "valign",
                        "href",
                        "src",
                        "alt"
                    ]
                    .contains(&name.as_str()),
                    "attribute {name} (no class, id or handlers)"
                );
                if name == "style" {
                    for banned in [
                        "flex",
                        "grid",
                        "position",
                        "float",
                        "@",
                        "url(",
                        "font-face",
                        "var(",
                    ] {
                        assert!(!value.contains(banned), "{banned} in style {value}");
                    }
                    if t.name == "img" {
                        assert!(!value.contains("margin"), "margin on an image: {value}");
                    }
                    for px in value.split("width:").skip(1) {
                        let n: u32 = px[..px.find("px").unwrap()].parse().unwrap();
                        assert!(n <= 600, "width {n}px");
                    }
                }
                if name == "width" {
                    assert!(value.parse::<u32>().unwrap() <= 600, "width {value}");
                }
                if name == "href" || name == "src" {
                    let url = unescape(value);
                    assert!(absolute(&url), "relative URL {url}");
                    assert!(url.is_ascii(), "non-ASCII URL {url}");
                    assert!(
                        !url.starts_with("http") || url.starts_with(base) || name == "src",
                        "a link that leaves the card's redirects: {url}"
                    );
                }
            }
            if t.name == "img" {
                for needed in ["width", "height", "alt"] {
                    assert!(t.get(needed).is_some(), "img without {needed}");
                }
            }
        }
        assert!(open.is_empty(), "unclosed {open:?}");
        tags
    }

    fn card_with(body: Value, slug: &str) -> Card {
        let body: Map<String, Value> = body.as_object().unwrap().clone();
        // The card validation allows: the same values a write could store.
        CardInput::parse(&body).unwrap_or_else(|e| panic!("invalid card: {e:?}"));
        let text = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_string);
        let raw = |k: &str| serde_json::value::RawValue::from_string(body[k].to_string()).unwrap();
        let mut c = fixture("[]");
        c.slug = slug.into();
        c.first_name = text("first_name").unwrap();
        c.last_name = text("last_name").unwrap();
        c.job_title = text("job_title");
        c.company = text("company");
        c.email = text("email");
        c.phone = text("phone");
        c.website = text("website");
        c.address = text("address");
        c.template_id = text("template_id");
        c.language = text("language").unwrap();
        c.social_links = raw("social_links");
        c.design_config = raw("design_config");
        c
    }

    /// Every field the signature shows at its longest, of `ch`; 20 social links of 20
    /// platforms with the longest URLs and labels.
    fn longest(layout: &str, ch: &str, lang: &str) -> Card {
        let s = |n: usize| ch.repeat(n);
        let url = |n: usize| format!("https://{}.example/{}", "w".repeat(60), "p".repeat(n - 77));
        let links: Vec<Value> = Platform::ALL[..20]
            .iter()
            .map(|p| json!({"platform": p.as_str(), "url": url(500), "label": s(100)}))
            .collect();
        let email = format!(
            "{}@{}.{}.{}.de",
            "e".repeat(64),
            "d".repeat(63),
            "d".repeat(63),
            "d".repeat(59)
        );
        assert_eq!(email.len(), 255);
        let body = json!({
            "first_name": s(100), "last_name": s(100), "job_title": s(150), "company": s(150),
            "email": email, "phone": format!("+49 {}", "1".repeat(46)), "website": url(500),
            "address": s(500), "template_id": layout, "language": lang,
            "social_links": links,
            "design_config": {"accent_color": "#ffcc00", "avatar_url": url(500)},
        });
        // The longest slug a card gets: an 80-character name part and a thousand namesakes.
        card_with(body, &format!("{}-999", "s".repeat(80)))
    }

    #[test]
    fn the_longest_valid_card_keeps_every_rule_in_every_layout() {
        for layout in LAYOUTS {
            for lang in ["en", "de", "el"] {
                let card = longest(layout, "W", lang);
                let sig = signature(&card, BASE);
                let n = sig.html.chars().count();
                println!("{layout} {lang}: {n} characters");
                let tags = check_rules(&sig.html, BASE);
                // Nothing had to be left out.
                let icons = tags
                    .iter()
                    .filter(|t| t.name == "img" && t.get("width") == Some("32"));
                assert_eq!(icons.count(), 20, "{layout}");
                assert!(sig.html.contains(&"W".repeat(500)), "the address");
                let avatar = tags
                    .iter()
                    .any(|t| t.name == "img" && t.get("width") != Some("32"));
                assert_eq!(avatar, layout != "minimal", "{layout}");
            }
        }
    }

    #[test]
    fn values_that_grow_when_escaped_still_fit() {
        for layout in LAYOUTS {
            let card = longest(layout, "&", "en");
            let sig = signature(&card, BASE);
            check_rules(&sig.html, BASE);
            assert!(sig.html.contains(&"&amp;".repeat(100)), "the name");
            assert!(
                sig.text.contains(&"&".repeat(500)),
                "the text keeps every fact"
            );
        }
    }

    #[test]
    fn shows_the_facts_through_the_cards_links() {
        let mut card = fixture(
            r#"[{"platform": "linkedin", "url": "ada"}, {"platform": "github", "url": "https://github.com/ada"},
                {"platform": "skype", "url": "ada.l"}]"#,
        );
        card.job_title = Some("Engineer".into());
        card.company = Some("Analytical <Engines> & Co".into());
        card.design_config = serde_json::value::RawValue::from_string(
            r##"{"accent_color": "#0a7d3b", "logo_url": "https://cdn.example/logo.png"}"##.into(),
        )
        .unwrap();
        for layout in LAYOUTS {
            card.template_id = Some(layout.into());
            let sig = signature(&card, "http://127.0.0.1:8787/");
            let base = "http://127.0.0.1:8787";
            let tags = check_rules(&sig.html, base);
            let hrefs: Vec<String> = tags
                .iter()
                .filter_map(|t| t.get("href"))
                .map(unescape)
                .collect();
            let expected = vec![
                "tel:+493012345".to_string(),
                "mailto:ada@example.com".into(),
                format!("{base}/c/ada/go/website"),
                format!("{base}/c/ada/go/social_linkedin"),
                format!("{base}/c/ada/go/social_github"),
                format!("{base}/c/ada?src=email_signature"),
                format!("{base}/c/ada/vcard?src=email_signature"),
            ];
            assert_eq!(hrefs, expected, "{layout}: a skype name leads nowhere");
            let srcs: Vec<&str> = tags.iter().filter_map(|t| t.get("src")).collect();
            assert!(srcs.contains(&"http://127.0.0.1:8787/assets/signature/github.png"));
            assert_eq!(
                srcs.contains(&"https://cdn.example/logo.png"),
                layout != "minimal"
            );
            // The tiles carry the accent (darkened to read 4.5:1 on white when needed).
            assert!(tags.iter().any(|t| t.get("bgcolor") == Some("#0a7d3b")));
            assert!(sig
                .html
                .contains("Engineer · Analytical &lt;Engines&gt; &amp; Co"));
            assert!(sig.html.contains(">ada.example</a>"), "the site's host");
            assert_eq!(
                sig.text,
                "Ada L\nEngineer · Analytical <Engines> & Co\nPhone: +49 (30) 123-45\n\
                 Email: ada@example.com\nWebsite: https://ada.example\nMain St 1, Berlin\n\
                 LinkedIn: https://www.linkedin.com/in/ada\nGitHub: https://github.com/ada\n\
                 My digital business card: http://127.0.0.1:8787/c/ada?src=email_signature\n\
                 Save contact: http://127.0.0.1:8787/c/ada/vcard?src=email_signature"
            );
        }
    }

    #[test]
    fn labels_are_in_the_cards_language() {
        let mut card = fixture("[]");
        card.language = "de".into();
        let sig = signature(&card, BASE);
        assert!(sig.html.contains(">Meine digitale Visitenkarte<"));
        assert!(sig.html.contains(">Kontakt speichern</a>"));
        assert!(sig.text.contains("\nTelefon: +49 (30) 123-45\n"));
        card.language = "uk".into();
        assert!(signature(&card, BASE)
            .text
            .contains("Моя цифрова візитка: "));
    }

    #[test]
    fn a_light_accent_is_darkened_for_links_and_tiles() {
        let mut card = fixture(r#"[{"platform": "x", "url": "ada"}]"#);
        card.design_config =
            serde_json::value::RawValue::from_string(r##"{"accent_color": "#ffcc00"}"##.into())
                .unwrap();
        let html = signature(&card, BASE).html;
        assert!(
            !html.contains("bgcolor=\"#ffcc00\""),
            "white on yellow is unreadable"
        );
        // Classic keeps the accent itself for its rule.
        assert!(html.contains("border-left:3px solid #ffcc00"));
    }
}
