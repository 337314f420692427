//! HTML of the public card pages: small, mobile-first, no scripts and no external assets.
//! Written through [`Html`], so every runtime value is escaped by construction.

use serde_json::Value;

use super::html::Html;
use super::i18n::{form_error, strings, Strings, Text};
use super::links::social_url;
use crate::domain::card::{Card, SocialLink};
use crate::domain::validation::FieldErrors;

const STYLE: &str = "*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,\
Segoe UI,Roboto,sans-serif;background:#f3f4f6;color:#111827}main{max-width:28rem;margin:0 auto;\
padding:1.5rem 1rem}.card{background:#fff;border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px \
#0002}h1{font-size:1.5rem;margin:0}.role{color:#4b5563;margin:.25rem 0 0}.tagline{font-style:italic}\
.actions{display:grid;grid-template-columns:1fr 1fr;gap:.5rem;margin:1rem 0}.actions a,.save,button\
{display:block;text-align:center;padding:.7rem;border-radius:.6rem;background:#111827;color:#fff;\
text-decoration:none;border:0;font:inherit;width:100%}.actions a{background:#e5e7eb;color:#111827}\
.social{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}.social a{color:#1d4ed8}\
form{margin-top:1.5rem}label{display:block;margin:.6rem 0 .2rem;font-weight:600}input,textarea\
{width:100%;padding:.6rem;border:1px solid #d1d5db;border-radius:.5rem;font:inherit}.err{color:#b91c1c;\
margin:.2rem 0}.hp{position:absolute;left:-10000px}footer{text-align:center;color:#6b7280;\
font-size:.8rem;margin-top:1rem}.ok{font-size:1.2rem}.notice{background:#ecfdf5;color:#065f46;border-radius:.6rem;\
padding:.75rem 1rem;margin:0 0 1rem}.consent{display:flex;gap:.5rem;align-items:flex-start;\
margin:.8rem 0 .2rem}.consent input{width:auto;margin:.35rem 0 0}.consent label{display:inline;margin:0;\
font-weight:400}.consent a{color:#1d4ed8}";

/// Hidden from people, filled in by form-spamming bots.
const HONEYPOT: &str = "<div class=\"hp\" aria-hidden=\"true\"><label for=\"company_website\">\
Website</label><input id=\"company_website\" name=\"company_website\" tabindex=\"-1\" \
autocomplete=\"off\"></div>";

/// What the lead form shows after a failed post: the submitted values and their errors.
#[derive(Debug, Default)]
pub struct FormState {
    pub name: String,
    pub email: String,
    pub phone: String,
    pub message: String,
    pub errors: FieldErrors,
}

/// What the page shows of a card. [`Shown::of`] is the only reader of [`Card`], so a
/// change of the card type stays there.
struct Shown {
    /// `/c/{slug}`, the root of the card's own links.
    base: String,
    name: String,
    title: String,
    description: String,
    indexable: bool,
    /// Job title and company, when either is set.
    role: Option<String>,
    tagline: Option<String>,
    bio: Option<String>,
    address: Option<String>,
    /// The `/go/{kind}` buttons of the contact values that are set.
    actions: Vec<(&'static str, Text)>,
    /// Platform and label, one per platform.
    social: Vec<(&'static str, String)>,
    lead_form: bool,
    branding: bool,
}

impl Shown {
    fn of(card: &Card, lang: &str) -> Self {
        let translations = card.translations();
        let job_title = localized(&translations, lang, "job_title", card.job_title.as_deref());
        let tagline = localized(&translations, lang, "tagline", card.tagline.as_deref());
        let bio = localized(&translations, lang, "bio", card.bio.as_deref());
        let role = match (job_title, card.company.as_deref()) {
            (Some(job), Some(company)) => Some(format!("{job} · {company}")),
            (Some(one), None) | (None, Some(one)) => Some(one.to_string()),
            (None, None) => None,
        };
        let title = card
            .seo_title
            .as_deref()
            .filter(|t| filled(t))
            .unwrap_or(&card.title);
        let description = card
            .seo_description
            .as_deref()
            .or(tagline)
            .or(job_title)
            .unwrap_or("");
        let mut actions = Vec::new();
        for (value, kind, label) in [
            (&card.email, "email", Text::Email),
            (&card.phone, "phone", Text::Call),
            (&card.website, "website", Text::Website),
            (&card.booking_url, "booking", Text::Book),
            (&card.video_url, "video", Text::Video),
            (&card.address, "address", Text::Directions),
        ] {
            if value.as_deref().is_some_and(filled) {
                actions.push((kind, label));
            }
        }
        Shown {
            base: format!("/c/{}", card.slug),
            name: format!("{} {}", card.first_name, card.last_name),
            title: title.to_string(),
            description: description.to_string(),
            indexable: card.seo_indexable,
            role,
            tagline: tagline.map(str::to_string),
            bio: bio.map(str::to_string),
            address: card.address.clone().filter(|a| filled(a)),
            actions,
            social: social(&card.social_links()),
            lead_form: card.show_lead_form,
            branding: card.show_branding,
        }
    }
}

fn filled(s: &str) -> bool {
    !s.trim().is_empty()
}

/// A translated field when the page is shown in another published language.
fn localized<'a>(
    translations: &'a Value,
    lang: &str,
    field: &str,
    base: Option<&'a str>,
) -> Option<&'a str> {
    translations
        .get(lang)
        .and_then(|t| t.get(field))
        .and_then(Value::as_str)
        .filter(|s| filled(s))
        .or(base)
        .filter(|s| filled(s))
}

fn platform_label(p: &str) -> String {
    match p {
        "linkedin" => "LinkedIn".into(),
        "x" => "X".into(),
        "github" => "GitHub".into(),
        "gitlab" => "GitLab".into(),
        "youtube" => "YouTube".into(),
        "tiktok" => "TikTok".into(),
        "whatsapp" => "WhatsApp".into(),
        _ => {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        }
    }
}

/// One entry per platform: `/go/social_<platform>` leads to the first of them.
fn social(links: &[SocialLink]) -> Vec<(&'static str, String)> {
    let mut shown: Vec<(&'static str, String)> = Vec::new();
    for link in links {
        let p = link.platform.as_str();
        // Only links that lead somewhere: `/go/social_<platform>` takes the first of these.
        if shown.iter().any(|(seen, _)| *seen == p) || social_url(link).is_none() {
            continue;
        }
        let label = link
            .label
            .as_deref()
            .filter(|l| filled(l))
            .map(str::to_string)
            .unwrap_or_else(|| platform_label(p));
        shown.push((p, label));
    }
    shown
}

/// The state of the lead form on a card page.
#[derive(Debug, Clone, Copy)]
pub enum Form<'a> {
    /// As a visitor first sees it.
    Blank,
    /// After a successful post (the 303 lands here): a thank-you notice above the card.
    Sent,
    /// After a post that failed validation: the values and their errors.
    Invalid(&'a FormState),
}

/// The card page. `src` is carried into the lead form so leads keep their source; with
/// the account's `privacy` policy URL the form asks for consent (extensions.md 8).
pub fn card_page(
    card: &Card,
    lang: &str,
    public_url: &str,
    src: Option<&str>,
    form: Form<'_>,
    privacy: Option<&str>,
) -> String {
    let v = Shown::of(card, lang);
    let s = strings(lang);
    let mut h = Html::with_capacity(4096);
    head(
        &mut h,
        lang,
        &v.title,
        &v.description,
        public_url,
        v.indexable,
    );
    if let Form::Sent = form {
        h.element(
            "p",
            &[("class", "notice"), ("role", "status")],
            s.get(Text::Thanks),
        );
    }
    h.raw("<article class=\"card\">");
    header(&mut h, &v);
    actions(&mut h, &s, &v);
    about(&mut h, &v);
    social_links(&mut h, &v);
    h.element(
        "a",
        &[("class", "save"), ("href", &format!("{}/vcard", v.base))],
        s.get(Text::SaveContact),
    );
    if v.lead_form {
        let empty = FormState::default();
        let state = match form {
            Form::Invalid(state) => state,
            Form::Blank | Form::Sent => &empty,
        };
        lead_form(&mut h, &s, &v.base, lang, src, state, privacy);
    }
    h.raw("</article>");
    footer(&mut h, v.branding.then_some(&s));
    h.into_string()
}

/// A short page with one message: the thank-you page and the 404 page.
pub fn message_page(lang: &str, title: &str, text: Text, branding: bool) -> String {
    let s = strings(lang);
    let mut h = Html::with_capacity(2048);
    head(&mut h, lang, title, "", "", false);
    h.raw("<article class=\"card\">")
        .element("p", &[("class", "ok")], s.get(text))
        .raw("</article>");
    footer(&mut h, branding.then_some(&s));
    h.into_string()
}

/// Everything up to `<main>`; `description` and `url` are left out when empty.
fn head(h: &mut Html, lang: &str, title: &str, description: &str, url: &str, index: bool) {
    h.raw("<!doctype html>")
        .open("html", &[("lang", lang)])
        .raw(
            "<head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        )
        .element("title", &[], title);
    if !description.is_empty() {
        h.open("meta", &[("name", "description"), ("content", description)])
            .open(
                "meta",
                &[("property", "og:description"), ("content", description)],
            );
    }
    h.open("meta", &[("property", "og:title"), ("content", title)])
        .raw("<meta property=\"og:type\" content=\"profile\">");
    if !url.is_empty() {
        h.open("meta", &[("property", "og:url"), ("content", url)]);
    }
    if !index {
        h.raw("<meta name=\"robots\" content=\"noindex\">");
    }
    h.raw("<style>")
        .raw(STYLE)
        .raw("</style></head><body><main>");
}

fn header(h: &mut Html, v: &Shown) {
    h.element("h1", &[], &v.name);
    if let Some(role) = &v.role {
        h.element("p", &[("class", "role")], role);
    }
    if let Some(tagline) = &v.tagline {
        h.element("p", &[("class", "tagline")], tagline);
    }
}

/// Buttons go through `/go/{kind}` so clicks are counted and targets stay server-side.
fn actions(h: &mut Html, s: &Strings, v: &Shown) {
    h.raw("<nav class=\"actions\">");
    for (kind, label) in &v.actions {
        let href = format!("{}/go/{kind}", v.base);
        h.element("a", &[("href", &href), ("rel", "nofollow")], s.get(*label));
    }
    h.raw("</nav>");
}

fn about(h: &mut Html, v: &Shown) {
    if let Some(bio) = &v.bio {
        h.element("p", &[("class", "bio")], bio);
    }
    if let Some(address) = &v.address {
        h.element("p", &[("class", "address")], address);
    }
}

fn social_links(h: &mut Html, v: &Shown) {
    h.raw("<ul class=\"social\">");
    for (platform, label) in &v.social {
        let href = format!("{}/go/social_{platform}", v.base);
        h.raw("<li>")
            .element("a", &[("href", &href), ("rel", "nofollow")], label)
            .raw("</li>");
    }
    h.raw("</ul>");
}

fn lead_form(
    h: &mut Html,
    s: &Strings,
    base: &str,
    lang: &str,
    src: Option<&str>,
    f: &FormState,
    privacy: Option<&str>,
) {
    let action = format!("{base}/leads");
    h.open("form", &[("method", "post"), ("action", &action)])
        .element("h2", &[], s.get(Text::GetInTouch));
    if !f.errors.is_empty() {
        h.element(
            "p",
            &[("class", "err"), ("role", "alert")],
            s.get(Text::FixErrors),
        );
    }
    for (label, name, kind, value) in [
        (Text::Name, "name", "text", &f.name),
        (Text::Email, "email", "email", &f.email),
        (Text::Phone, "phone", "tel", &f.phone),
        (Text::Message, "message", "textarea", &f.message),
    ] {
        // Worded in the page's language; a rule with no translation keeps its English.
        let label = s.get(label);
        let errors: Vec<String> = f
            .errors
            .of(name)
            .iter()
            .map(|(rule, english)| {
                form_error(lang, *rule, label).unwrap_or_else(|| english.clone())
            })
            .collect();
        field(h, label, name, kind, value, &errors);
    }
    if let Some(url) = privacy {
        // Unticked: consent is given by the visitor, never assumed.
        h.open("p", &[("class", "consent")])
            .open(
                "input",
                &[
                    ("type", "checkbox"),
                    ("id", "consent"),
                    ("name", "consent"),
                    ("value", "1"),
                    ("required", "required"),
                ],
            )
            .element("label", &[("for", "consent")], s.get(Text::Consent))
            .element(
                "a",
                &[("href", url), ("target", "_blank"), ("rel", "noopener")],
                s.get(Text::PrivacyPolicy),
            )
            .close("p");
        if !f.errors.of("consent").is_empty() {
            h.element("p", &[("class", "err")], s.get(Text::ConsentRequired));
        }
    }
    h.raw(HONEYPOT);
    if let Some(src) = src {
        h.open(
            "input",
            &[("type", "hidden"), ("name", "src"), ("value", src)],
        );
    }
    h.open(
        "input",
        &[("type", "hidden"), ("name", "lang"), ("value", lang)],
    )
    .raw("<p><button type=\"submit\">")
    .text(s.get(Text::Send))
    .raw("</button></p></form>");
}

/// A labelled input (or textarea) with the submitted value and its errors below it.
fn field(
    h: &mut Html,
    label: &str,
    name: &'static str,
    kind: &'static str,
    value: &str,
    errors: &[String],
) {
    h.element("label", &[("for", name)], label);
    if kind == "textarea" {
        h.element(
            "textarea",
            &[("id", name), ("name", name), ("rows", "4")],
            value,
        );
    } else {
        h.open(
            "input",
            &[
                ("id", name),
                ("name", name),
                ("type", kind),
                ("value", value),
            ],
        );
    }
    for m in errors {
        h.element("p", &[("class", "err")], m);
    }
}

fn footer(h: &mut Html, branding: Option<&Strings>) {
    if let Some(s) = branding {
        h.element("footer", &[], s.get(Text::MadeWith));
    }
    h.raw("</main></body></html>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public::links::tests::card;

    const HOSTILE: &str = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>";

    #[test]
    fn escapes_everything() {
        let mut c = card(&format!(
            r#"[{{"platform":"x","url":"h","label":{}}}]"#,
            serde_json::to_string(HOSTILE).unwrap()
        ));
        c.first_name = HOSTILE.into();
        c.job_title = Some(HOSTILE.into());
        c.company = Some(HOSTILE.into());
        c.bio = Some(HOSTILE.into());
        c.address = Some(HOSTILE.into());
        c.seo_title = Some(HOSTILE.into());
        c.seo_description = Some(HOSTILE.into());
        let form = FormState {
            name: HOSTILE.into(),
            message: HOSTILE.into(),
            ..Default::default()
        };
        let html = card_page(
            &c,
            "en",
            "https://x.example/c/ada",
            Some(HOSTILE),
            Form::Invalid(&form),
            Some(HOSTILE),
        );
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;script&gt;"));
    }

    /// Both are validated upstream; escaping them anyway means no caller has to know that.
    #[test]
    fn lang_slug_and_message_title_are_escaped_too() {
        let mut c = card("[{\"platform\":\"x\",\"url\":\"a\"}]");
        c.slug = HOSTILE.into();
        let html = card_page(&c, HOSTILE, "u", None, Form::Blank, None);
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img"));
        assert!(html.contains("<html lang=\"&lt;script&gt;"));
        assert!(html.contains("action=\"/c/&lt;script&gt;"));
        let html = message_page(HOSTILE, HOSTILE, Text::Thanks, true);
        assert!(!html.contains("<script>"));
        assert!(html.contains("<title>&lt;script&gt;"));
    }

    #[test]
    fn form_branding_and_robots_follow_the_card() {
        let mut c = card("[]");
        let html = card_page(&c, "de", "u", None, Form::Blank, None);
        assert!(!html.contains("name=\"consent\""), "no policy, no checkbox");
        assert!(html.contains("<html lang=\"de\">"));
        assert!(html.contains("Kontakt speichern"));
        assert!(html.contains("<form method=\"post\" action=\"/c/ada/leads\">"));
        assert!(html.contains("Digital Business Card</footer>"));
        assert!(!html.contains("noindex"));
        c.show_lead_form = false;
        c.show_branding = false;
        c.seo_indexable = false;
        let html = card_page(&c, "en", "u", None, Form::Blank, None);
        assert!(!html.contains("<form"));
        assert!(!html.contains("<footer>"));
        assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
    }

    #[test]
    fn translations_apply_in_their_language() {
        let mut c = card("[]");
        c.bio = Some("Hello".into());
        c.translations =
            serde_json::value::RawValue::from_string(r#"{"fr":{"bio":"Bonjour"}}"#.into()).unwrap();
        assert!(card_page(&c, "fr", "u", None, Form::Blank, None).contains("Bonjour"));
        assert!(card_page(&c, "en", "u", None, Form::Blank, None).contains("Hello"));
    }

    /// The whole page of a rich card with a failed lead post, as the renderer before `Html`
    /// produced it byte for byte (the lines are only for reading).
    #[test]
    fn rich_card_page_in_full() {
        let mut c = card(
            r#"[{"platform":"linkedin","url":"ada"},{"platform":"x","url":"a","label":"<Ada> & \"X\""},
                {"platform":"x","url":"b"},{"platform":"nope","url":"c"}]"#,
        );
        c.slug = "ada-l".into();
        c.title = "Ada \"L\"".into();
        c.first_name = "Ada <b>".into();
        c.job_title = Some("Engineer".into());
        c.company = Some("O'Neill & Co".into());
        c.translations = serde_json::value::RawValue::from_string(
            r#"{"de":{"job_title":"Ingenieurin","bio":"Über \"mich\""}}"#.into(),
        )
        .unwrap();
        c.bio = Some("About me".into());
        c.booking_url = Some(" ".into());
        let mut errors = FieldErrors::new();
        errors.add("email", "Ungültig <x>".into());
        let form = FormState {
            name: "Bob \"B\"".into(),
            email: "bob@".into(),
            phone: String::new(),
            message: "Hi </textarea>".into(),
            errors,
        };
        let expected = [
            r#"<!doctype html>"#,
            r#"<html lang="de">"#,
            r#"<head>"#,
            r#"<meta charset="utf-8">"#,
            r#"<meta name="viewport" content="width=device-width,initial-scale=1">"#,
            r#"<title>Ada &quot;L&quot;</title>"#,
            r#"<meta name="description" content="Ingenieurin">"#,
            r#"<meta property="og:description" content="Ingenieurin">"#,
            r#"<meta property="og:title" content="Ada &quot;L&quot;">"#,
            r#"<meta property="og:type" content="profile">"#,
            r#"<meta property="og:url" content="https://x.example/c/ada-l">"#,
            r#"<style>"#,
            STYLE,
            r#"</style>"#,
            r#"</head>"#,
            r#"<body>"#,
            r#"<main>"#,
            r#"<article class="card">"#,
            r#"<h1>Ada &lt;b&gt; L</h1>"#,
            r#"<p class="role">Ingenieurin · O&#39;Neill &amp; Co</p>"#,
            r#"<nav class="actions">"#,
            r#"<a href="/c/ada-l/go/email" rel="nofollow">E-Mail</a>"#,
            r#"<a href="/c/ada-l/go/phone" rel="nofollow">Anrufen</a>"#,
            r#"<a href="/c/ada-l/go/website" rel="nofollow">Webseite</a>"#,
            r#"<a href="/c/ada-l/go/video" rel="nofollow">Video ansehen</a>"#,
            r#"<a href="/c/ada-l/go/address" rel="nofollow">Route</a>"#,
            r#"</nav>"#,
            r#"<p class="bio">Über &quot;mich&quot;</p>"#,
            r#"<p class="address">Main St 1, Berlin</p>"#,
            r#"<ul class="social">"#,
            r#"<li><a href="/c/ada-l/go/social_linkedin" rel="nofollow">LinkedIn</a></li>"#,
            r#"<li><a href="/c/ada-l/go/social_x" rel="nofollow">&lt;Ada&gt; &amp; &quot;X&quot;</a></li>"#,
            r#"</ul>"#,
            r#"<a class="save" href="/c/ada-l/vcard">Kontakt speichern</a>"#,
            r#"<form method="post" action="/c/ada-l/leads">"#,
            r#"<h2>Kontakt aufnehmen</h2>"#,
            r#"<p class="err" role="alert">Bitte korrigieren Sie die Fehler unten.</p>"#,
            r#"<label for="name">Name</label>"#,
            r#"<input id="name" name="name" type="text" value="Bob &quot;B&quot;">"#,
            r#"<label for="email">E-Mail</label>"#,
            r#"<input id="email" name="email" type="email" value="bob@">"#,
            r#"<p class="err">Ungültig &lt;x&gt;</p>"#,
            r#"<label for="phone">Telefon</label>"#,
            r#"<input id="phone" name="phone" type="tel" value="">"#,
            r#"<label for="message">Nachricht</label>"#,
            r#"<textarea id="message" name="message" rows="4">Hi &lt;/textarea&gt;</textarea>"#,
            r#"<div class="hp" aria-hidden="true">"#,
            r#"<label for="company_website">Website</label>"#,
            r#"<input id="company_website" name="company_website" tabindex="-1" autocomplete="off">"#,
            r#"</div>"#,
            r#"<input type="hidden" name="src" value="qr">"#,
            r#"<input type="hidden" name="lang" value="de">"#,
            r#"<p><button type="submit">Senden</button></p>"#,
            r#"</form>"#,
            r#"</article>"#,
            r#"<footer>Erstellt mit Digital Business Card</footer>"#,
            r#"</main>"#,
            r#"</body>"#,
            r#"</html>"#,
        ]
        .concat();
        let html = card_page(
            &c,
            "de",
            "https://x.example/c/ada-l",
            Some("qr"),
            Form::Invalid(&form),
            None,
        );
        assert_eq!(html, expected);
    }

    #[test]
    fn consent_box_is_required_unticked_and_localised() {
        let c = card("[]");
        let html = card_page(
            &c,
            "de",
            "u",
            None,
            Form::Blank,
            Some("https://acme.example/privacy"),
        );
        assert!(html.contains(
            "<input type=\"checkbox\" id=\"consent\" name=\"consent\" value=\"1\" required=\"required\">"
        ));
        assert!(!html.contains("checked"));
        assert!(html.contains("href=\"https://acme.example/privacy\""));
        assert!(html.contains(strings("de").get(Text::Consent)));
        assert!(!html.contains(strings("de").get(Text::ConsentRequired)));
        let mut errors = FieldErrors::new();
        errors.add("consent", "The consent field must be accepted.".into());
        let form = FormState {
            errors,
            ..Default::default()
        };
        let html = card_page(
            &c,
            "de",
            "u",
            None,
            Form::Invalid(&form),
            Some("https://acme.example/privacy"),
        );
        assert!(html.contains(strings("de").get(Text::ConsentRequired)));
    }
}
