//! HTML of the public card pages: small, mobile-first, no scripts and no external assets.
//! Written through [`Html`], so every runtime value is escaped by construction.

use serde_json::Value;

use super::html::Html;
use super::i18n::{form_error, strings, Strings, Text};
use super::links::social;
use crate::domain::card::Card;
use crate::domain::design::{
    readable_on, text_on, ButtonStyle, Design, Font, Rgb, Template, Theme, DEFAULT_ACCENT,
};
use crate::domain::validation::FieldErrors;
use crate::domain::wallet::{apple_path, google_path, Offered};

/// Shared by the three templates; the theme, font and button classes on `<body>` and the
/// per-card accent variables (see [`Look`]) do the rest. System font stacks only: the page
/// makes no request a visitor did not ask for.
const STYLE: &str = "*{box-sizing:border-box}body{margin:0;font:16px/1.5 var(--font);\
background:var(--bg);color:var(--fg)}.light,.auto{--bg:#f3f4f6;--card:#fff;--fg:#111827;\
--muted:#4b5563;--line:#d1d5db;--soft:#e5e7eb;--err:#b91c1c}.dark{--bg:#0f172a;--card:#1e293b;\
--fg:#f1f5f9;--muted:#cbd5e1;--line:#475569;--soft:#334155;--err:#fca5a5}\
@media(prefers-color-scheme:dark){.auto{--bg:#0f172a;--card:#1e293b;--fg:#f1f5f9;\
--muted:#cbd5e1;--line:#475569;--soft:#334155;--err:#fca5a5}}\
.f-system{--font:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}\
.f-serif{--font:ui-serif,Georgia,Cambria,'Times New Roman',serif}\
.f-rounded{--font:ui-rounded,'SF Pro Rounded','Arial Rounded MT',Quicksand,system-ui,sans-serif}\
main{max-width:30rem;margin:0 auto;padding:1.5rem 1rem}a{color:var(--link)}\
.card{background:var(--card);border-radius:1rem;padding:1.5rem;box-shadow:0 1px 3px #0003;\
overflow:hidden}h1{font-size:1.6rem;line-height:1.2;margin:0}h2{font-size:1.15rem}\
.role{color:var(--muted);margin:.25rem 0 0}.tagline{font-style:italic;margin:.5rem 0 0}\
.avatar{display:block;border-radius:50%;object-fit:cover;background:var(--soft)}\
.logo{display:block;height:2rem;width:auto;max-width:10rem;object-fit:contain;margin-top:.75rem}\
.cover,.band{display:block;width:calc(100% + 3rem);height:8rem;margin:-1.5rem -1.5rem 1rem;\
object-fit:cover}.band{background:linear-gradient(135deg,var(--accent),var(--soft))}\
.actions{display:grid;grid-template-columns:1fr 1fr;gap:.5rem;margin:1.25rem 0}\
.actions a,.save,button{display:block;text-align:center;padding:.7rem;border-radius:.6rem;\
text-decoration:none;font:inherit;font-weight:600;width:100%;cursor:pointer;\
background:var(--accent);color:var(--on);border:2px solid var(--accent)}\
.outline .actions a{background:transparent;color:var(--link);border-color:var(--link)}\
.social{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem 1rem}\
.qr{margin:1rem 0;text-align:center}.qr summary{cursor:pointer;color:var(--link);font-weight:600}\
.qr svg{display:block;width:100%;max-width:16rem;margin:.75rem auto 0;border-radius:.5rem}\
form{margin-top:1.5rem}label{display:block;margin:.6rem 0 .2rem;font-weight:600}\
input,textarea{width:100%;padding:.6rem;border:1px solid var(--line);border-radius:.5rem;\
font:inherit;background:var(--card);color:var(--fg)}.err{color:var(--err);margin:.2rem 0}\
.hp{position:absolute;left:-10000px}footer{text-align:center;color:var(--muted);\
font-size:.85rem;margin-top:1rem}.ok{font-size:1.2rem}.notice{background:#ecfdf5;\
color:#065f46;border-radius:.6rem;padding:.75rem 1rem;margin:0 0 1rem}.consent{position:relative;\
padding-left:1.75rem;margin:.8rem 0 .2rem}.consent input{position:absolute;left:0;top:.2rem;width:\
1.1rem;height:1.1rem;margin:0}.consent label{display:inline;margin:0 .3rem 0 0;font-weight:400}\
.t-classic .who{text-align:center}.t-classic .avatar,.t-classic .logo{margin-left:auto;\
margin-right:auto}.t-classic .avatar{margin-bottom:.75rem}\
.t-modern .avatar{margin:-3.5rem 0 .75rem;border:4px solid \
var(--card)}.t-modern h1{font-size:1.9rem}.t-modern .actions{grid-template-columns:1fr}\
.t-modern .actions a{text-align:left;padding:.75rem 1rem}\
.t-minimal .card{background:none;box-shadow:none;padding:.5rem 0}.t-minimal .cover{width:100%;\
margin:0 0 1.5rem;border-radius:.75rem}.t-minimal .band{display:none}.t-minimal h1{font-size:2.2rem;\
letter-spacing:-.02em}.t-minimal .avatar{border-radius:.75rem;margin-bottom:1rem}\
.t-minimal .actions{display:block;border-top:1px solid var(--line)}.t-minimal .actions a{\
background:none;border:0;border-bottom:1px solid var(--line);border-radius:0;color:var(--link);\
text-align:left;padding:.85rem 0}.t-minimal .actions a::after{content:' \\2192';float:right}\
.wallet{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;margin:1rem 0 0}\
.wallet a{background:#000;color:#fff;border:1px solid #a6a6a6;border-radius:.6rem;\
padding:.5rem 1rem;font-weight:600;text-decoration:none}";

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
    company: Option<String>,
    template: Template,
    design: Design,
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
            company: card.company.clone().filter(|c| filled(c)),
            template: Template::of(card.template_id.as_deref()),
            design: serde_json::from_str(card.design_config.get())
                .map(|config: Value| Design::read(&config))
                .unwrap_or_default(),
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

const LIGHT_SURFACES: [Rgb; 2] = [Rgb(0xff, 0xff, 0xff), Rgb(0xf3, 0xf4, 0xf6)];
const DARK_SURFACES: [Rgb; 2] = [Rgb(0x1e, 0x29, 0x3b), Rgb(0x0f, 0x17, 0x2a)];

/// How a page looks: the classes on `<body>` and the accent's CSS variables, whose text
/// colours are chosen so that every accent reads at 4.5:1 (WCAG AA) in every theme.
struct Look {
    classes: String,
    vars: String,
}

impl Look {
    fn of(template: Template, d: &Design) -> Look {
        let theme = match d.theme {
            Theme::Light => "light",
            Theme::Dark => "dark",
            Theme::Auto => "auto",
        };
        let font = match d.font {
            Font::System => "f-system",
            Font::Serif => "f-serif",
            Font::Rounded => "f-rounded",
        };
        let button = match d.button_style {
            ButtonStyle::Filled => "",
            ButtonStyle::Outline => " outline",
        };
        let accent = d.accent.unwrap_or(DEFAULT_ACCENT);
        let link = |surfaces: &[Rgb]| readable_on(accent, surfaces).hex();
        let base = format!(
            "body{{--accent:{};--on:{};--link:{}}}",
            accent.hex(),
            text_on(accent).hex(),
            link(if d.theme == Theme::Dark {
                &DARK_SURFACES
            } else {
                &LIGHT_SURFACES
            })
        );
        let vars = if d.theme == Theme::Auto {
            format!(
                "{base}@media(prefers-color-scheme:dark){{body{{--link:{}}}}}",
                link(&DARK_SURFACES)
            )
        } else {
            base
        };
        Look {
            classes: format!("t-{} {theme} {font}{button}", template.as_str()),
            vars,
        }
    }
}

/// The sharing metadata and robots line of a page.
struct Meta<'a> {
    title: &'a str,
    description: &'a str,
    url: &'a str,
    index: bool,
    /// `og:image`: the cover, else the avatar.
    image: Option<&'a str>,
    /// A cover shares as a large picture.
    large_image: bool,
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

/// A rendered card page and the image origins its CSP must admit.
pub struct Rendered {
    pub html: String,
    pub image_origins: Vec<String>,
}

/// The card page. `src` is carried into the lead form so leads keep their source; with
/// the account's `privacy` policy URL the form asks for consent (extensions.md 8); the
/// `wallets` configured get their "Add to ... Wallet" buttons (wallet.md 3).
pub fn card_page(
    card: &Card,
    lang: &str,
    public_url: &str,
    src: Option<&str>,
    form: Form<'_>,
    privacy: Option<&str>,
    wallets: Offered,
) -> Rendered {
    let v = Shown::of(card, lang);
    let s = strings(lang);
    let mut h = Html::with_capacity(8192);
    let description = if v.description.is_empty() {
        v.role.as_deref().unwrap_or(&v.name)
    } else {
        &v.description
    };
    let d = &v.design;
    let meta = Meta {
        title: &v.title,
        description,
        url: public_url,
        index: v.indexable,
        image: d.cover_url.as_deref().or(d.avatar_url.as_deref()),
        large_image: d.cover_url.is_some(),
    };
    head(&mut h, lang, &meta, &Look::of(v.template, d));
    if let Form::Sent = form {
        h.element(
            "p",
            &[("class", "notice"), ("role", "status")],
            s.get(Text::Thanks),
        );
    }
    h.raw("<article class=\"card\">");
    header(&mut h, &v);
    actions(&mut h, s, &v);
    about(&mut h, &v);
    social_links(&mut h, &v);
    h.element(
        "a",
        &[("class", "save"), ("href", &format!("{}/vcard", v.base))],
        s.get(Text::SaveContact),
    );
    wallet_buttons(&mut h, s, &card.slug, wallets);
    // Face to face, a phone camera is quicker than spelling a link; no script needed.
    let qr = super::qr::svg_of(
        &super::qr::scan_url_of(public_url),
        Some(s.get(Text::QrLabel)),
    );
    if let Some(svg) = qr {
        h.raw("<details class=\"qr\"><summary>")
            .text(s.get(Text::ShowQr))
            .raw("</summary>")
            .append(&svg)
            .raw("</details>");
    }
    if v.lead_form {
        let empty = FormState::default();
        let state = match form {
            Form::Invalid(state) => state,
            Form::Blank | Form::Sent => &empty,
        };
        lead_form(&mut h, s, &v.base, lang, src, state, privacy);
    }
    h.raw("</article>");
    footer(&mut h, v.branding.then_some(s));
    Rendered {
        html: h.into_string(),
        image_origins: d.image_origins(),
    }
}

/// The vendors' badges as text in the page's language: black, white text, a grey hairline
/// (Apple's and Google's badge colours, readable on every theme).
fn wallet_buttons(h: &mut Html, s: &Strings, slug: &str, wallets: Offered) {
    if !(wallets.apple || wallets.google) {
        return;
    }
    h.raw("<p class=\"wallet\">");
    for (on, href, label) in [
        (wallets.apple, apple_path(slug), Text::AddToAppleWallet),
        (wallets.google, google_path(slug), Text::AddToGoogleWallet),
    ] {
        if on {
            h.element("a", &[("href", &href), ("rel", "nofollow")], s.get(label));
        }
    }
    h.raw("</p>");
}

/// A short page with one message: the thank-you page and the 404 page.
pub fn message_page(lang: &str, title: &str, text: Text, branding: bool) -> String {
    let s = strings(lang);
    let mut h = Html::with_capacity(4096);
    let meta = Meta {
        title,
        description: s.get(text),
        url: "",
        index: false,
        image: None,
        large_image: false,
    };
    head(
        &mut h,
        lang,
        &meta,
        &Look::of(Template::Classic, &Design::default()),
    );
    h.raw("<article class=\"card\">")
        .element("p", &[("class", "ok")], s.get(text))
        .raw("</article>");
    footer(&mut h, branding.then_some(s));
    h.into_string()
}

/// Everything up to `<main>`; `og:url` and `og:image` are left out when there is none.
fn head(h: &mut Html, lang: &str, m: &Meta, look: &Look) {
    h.raw("<!doctype html>")
        .open("html", &[("lang", lang)])
        .raw(
            "<head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        )
        .element("title", &[], m.title)
        .open(
            "meta",
            &[("name", "description"), ("content", m.description)],
        )
        .open("meta", &[("property", "og:title"), ("content", m.title)])
        .open(
            "meta",
            &[("property", "og:description"), ("content", m.description)],
        )
        .raw("<meta property=\"og:type\" content=\"profile\">");
    if !m.url.is_empty() {
        h.open("meta", &[("property", "og:url"), ("content", m.url)]);
    }
    if let Some(image) = m.image {
        h.open("meta", &[("property", "og:image"), ("content", image)]);
    }
    let card = if m.large_image {
        "summary_large_image"
    } else {
        "summary"
    };
    h.open("meta", &[("name", "twitter:card"), ("content", card)]);
    if !m.index {
        h.raw("<meta name=\"robots\" content=\"noindex\">");
    }
    // The variables hold only colours this module formats (`#rrggbb`).
    h.raw("<style>")
        .raw(STYLE)
        .text(&look.vars)
        .raw("</style></head>")
        .open("body", &[("class", &look.classes)])
        .raw("<main>");
}

fn header(h: &mut Html, v: &Shown) {
    let d = &v.design;
    match (&d.cover_url, v.template) {
        (Some(cover), _) => {
            h.open(
                "img",
                &[
                    ("class", "cover"),
                    ("src", cover),
                    ("alt", ""),
                    ("width", "480"),
                    ("height", "128"),
                    ("loading", "lazy"),
                    ("decoding", "async"),
                ],
            );
        }
        (None, Template::Modern) => {
            h.raw("<div class=\"band\"></div>");
        }
        (None, _) => {}
    }
    h.raw("<header class=\"who\">");
    if let Some(avatar) = &d.avatar_url {
        let size = match v.template {
            Template::Minimal => "72",
            _ => "104",
        };
        h.open(
            "img",
            &[
                ("class", "avatar"),
                ("src", avatar),
                ("alt", &v.name),
                ("width", size),
                ("height", size),
                ("loading", "lazy"),
                ("decoding", "async"),
            ],
        );
    }
    h.element("h1", &[], &v.name);
    if let Some(role) = &v.role {
        h.element("p", &[("class", "role")], role);
    }
    if let Some(tagline) = &v.tagline {
        h.element("p", &[("class", "tagline")], tagline);
    }
    if let Some(logo) = &d.logo_url {
        let alt = format!("{} logo", v.company.as_deref().unwrap_or(&v.name));
        h.open(
            "img",
            &[
                ("class", "logo"),
                ("src", logo),
                ("alt", &alt),
                ("height", "32"),
                ("loading", "lazy"),
                ("decoding", "async"),
            ],
        );
    }
    h.raw("</header>");
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
            Offered::default(),
        )
        .html;
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;script&gt;"));
    }

    /// Both are validated upstream; escaping them anyway means no caller has to know that.
    #[test]
    fn lang_slug_and_message_title_are_escaped_too() {
        let mut c = card("[{\"platform\":\"x\",\"url\":\"a\"}]");
        c.slug = HOSTILE.into();
        let html = card_page(
            &c,
            HOSTILE,
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        )
        .html;
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
        let html = card_page(&c, "de", "u", None, Form::Blank, None, Offered::default()).html;
        assert!(!html.contains("name=\"consent\""), "no policy, no checkbox");
        assert!(html.contains("<html lang=\"de\">"));
        assert!(html.contains("Kontakt speichern"));
        assert!(html.contains("<form method=\"post\" action=\"/c/ada/leads\">"));
        assert!(html.contains("Digital Business Card</footer>"));
        assert!(!html.contains("noindex"));
        c.show_lead_form = false;
        c.show_branding = false;
        c.seo_indexable = false;
        let html = card_page(&c, "en", "u", None, Form::Blank, None, Offered::default()).html;
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
        assert!(
            card_page(&c, "fr", "u", None, Form::Blank, None, Offered::default())
                .html
                .contains("Bonjour")
        );
        assert!(
            card_page(&c, "en", "u", None, Form::Blank, None, Offered::default())
                .html
                .contains("Hello")
        );
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
        let qr = crate::public::qr::svg_of(
            "https://x.example/c/ada-l?src=qr",
            Some("QR-Code dieser Karte"),
        )
        .unwrap()
        .into_string();
        let expected = [
            r#"<!doctype html>"#,
            r#"<html lang="de">"#,
            r#"<head>"#,
            r#"<meta charset="utf-8">"#,
            r#"<meta name="viewport" content="width=device-width,initial-scale=1">"#,
            r#"<title>Ada &quot;L&quot;</title>"#,
            r#"<meta name="description" content="Ingenieurin">"#,
            r#"<meta property="og:title" content="Ada &quot;L&quot;">"#,
            r#"<meta property="og:description" content="Ingenieurin">"#,
            r#"<meta property="og:type" content="profile">"#,
            r#"<meta property="og:url" content="https://x.example/c/ada-l">"#,
            r#"<meta name="twitter:card" content="summary">"#,
            r#"<style>"#,
            STYLE,
            r#"body{--accent:#2563eb;--on:#ffffff;--link:#2563eb}"#,
            r#"</style>"#,
            r#"</head>"#,
            r#"<body class="t-classic light f-system">"#,
            r#"<main>"#,
            r#"<article class="card">"#,
            r#"<header class="who">"#,
            r#"<h1>Ada &lt;b&gt; L</h1>"#,
            r#"<p class="role">Ingenieurin · O&#39;Neill &amp; Co</p>"#,
            r#"</header>"#,
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
            r#"<details class="qr"><summary>QR-Code anzeigen</summary>"#,
            qr.as_str(),
            r#"</details>"#,
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
            Offered::default(),
        )
        .html;
        assert_eq!(html, expected);
    }

    #[test]
    fn wallet_buttons_follow_the_configuration_and_the_language() {
        let c = card("[]");
        let page = |lang: &str, apple: bool, google: bool| {
            let wallets = Offered { apple, google };
            card_page(&c, lang, "u", None, Form::Blank, None, wallets).html
        };
        assert!(page("de", true, true).contains(
            "<a class=\"save\" href=\"/c/ada/vcard\">Kontakt speichern</a>\
             <p class=\"wallet\"><a href=\"/c/ada/wallet.pkpass\" rel=\"nofollow\">Zu Apple \
             Wallet hinzufügen</a><a href=\"/c/ada/wallet/google\" rel=\"nofollow\">Zu Google \
             Wallet hinzufügen</a></p>"
        ));
        let google_only = page("fr", false, true);
        assert!(google_only.contains(
            "<p class=\"wallet\"><a href=\"/c/ada/wallet/google\" rel=\"nofollow\">Ajouter à \
             Google Wallet</a></p>"
        ));
        assert!(!google_only.contains("wallet.pkpass"));
        assert!(!page("en", false, false).contains("class=\"wallet\""));
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
            Offered::default(),
        )
        .html;
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
            Offered::default(),
        )
        .html;
        assert!(html.contains(strings("de").get(Text::ConsentRequired)));
    }

    fn designed(template: Option<&str>, config: &str) -> Card {
        let mut c = card("[]");
        c.template_id = template.map(str::to_string);
        c.design_config = serde_json::value::RawValue::from_string(config.into()).unwrap();
        c
    }

    #[test]
    fn templates_themes_fonts_and_buttons_become_body_classes() {
        for (template, config, classes) in [
            (None, "{}", "t-classic light f-system"),
            (Some("unknown"), "{}", "t-classic light f-system"),
            (
                Some("modern"),
                r#"{"theme":"dark","font":"serif"}"#,
                "t-modern dark f-serif",
            ),
            (
                Some("minimal"),
                r#"{"theme":"auto","font":"rounded","button_style":"outline"}"#,
                "t-minimal auto f-rounded outline",
            ),
            // A stored value of the wrong shape is ignored, not fatal.
            (
                Some("classic"),
                r#"{"theme":5,"font":"comic"}"#,
                "t-classic light f-system",
            ),
        ] {
            let page = card_page(
                &designed(template, config),
                "en",
                "u",
                None,
                Form::Blank,
                None,
                Offered::default(),
            );
            assert!(
                page.html.contains(&format!("<body class=\"{classes}\">")),
                "{template:?} {config}"
            );
        }
        // Only modern draws a band where there is no cover.
        let modern = card_page(
            &designed(Some("modern"), "{}"),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        assert!(modern.html.contains("<div class=\"band\"></div>"));
        let classic = card_page(
            &designed(None, "{}"),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        assert!(!classic.html.contains("class=\"band\""));
    }

    #[test]
    fn accent_colours_stay_readable() {
        // A pale yellow accent: black text on it, and links darkened until they read on white.
        let page = card_page(
            &designed(None, r##"{"accent_color":"#ffeb3b"}"##),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        let vars = page.html.split("body{--accent:").nth(1).unwrap();
        assert!(vars.starts_with("#ffeb3b;--on:#000000;--link:#"), "{vars}");
        let link = &vars["#ffeb3b;--on:#000000;--link:".len()..][..7];
        let c = crate::domain::design::contrast(Rgb::parse(link).unwrap(), Rgb::WHITE);
        assert!(c >= 4.5, "{link}: {c}");
        // Auto theme: a second link colour for dark mode.
        let page = card_page(
            &designed(None, r##"{"accent_color":"#1e3a8a","theme":"auto"}"##),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        assert!(page
            .html
            .contains("@media(prefers-color-scheme:dark){body{--link:#"));
    }

    #[test]
    fn images_are_sized_lazy_described_and_shared() {
        let page = card_page(
            &designed(
                Some("modern"),
                r#"{"avatar_url":"https://img.example/a.jpg","logo_url":"https://cdn.example/l.svg",
                    "cover_url":"https://img.example/c.jpg"}"#,
            ),
            "en",
            "https://x.example/c/ada",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        let html = &page.html;
        assert!(html.contains(
            "<img class=\"avatar\" src=\"https://img.example/a.jpg\" alt=\"Ada L\" \
             width=\"104\" height=\"104\" loading=\"lazy\" decoding=\"async\">"
        ));
        assert!(html.contains("<img class=\"cover\" src=\"https://img.example/c.jpg\" alt=\"\""));
        assert!(html.contains("class=\"logo\" src=\"https://cdn.example/l.svg\" alt=\""));
        assert!(
            !html.contains("class=\"band\""),
            "a cover replaces the band"
        );
        assert!(html.contains("<meta property=\"og:image\" content=\"https://img.example/c.jpg\">"));
        assert!(html.contains("<meta name=\"twitter:card\" content=\"summary_large_image\">"));
        assert_eq!(
            page.image_origins,
            vec![
                "https://img.example".to_string(),
                "https://cdn.example".to_string()
            ]
        );
        // Avatar only: it is the shared image, as a small card.
        let page = card_page(
            &designed(None, r#"{"avatar_url":"https://img.example/a.jpg"}"#),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        assert!(page
            .html
            .contains("<meta property=\"og:image\" content=\"https://img.example/a.jpg\">"));
        assert!(page
            .html
            .contains("<meta name=\"twitter:card\" content=\"summary\">"));
        // Nothing set: no og:image, yet a description and a twitter card all the same.
        let page = card_page(
            &designed(None, "{}"),
            "en",
            "u",
            None,
            Form::Blank,
            None,
            Offered::default(),
        );
        assert!(!page.html.contains("og:image"));
        assert!(page
            .html
            .contains("<meta property=\"og:description\" content=\""));
        assert!(page.html.contains("twitter:card"));
    }
}
