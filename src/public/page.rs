//! HTML of the public card pages: small, mobile-first, no scripts and no external assets.
//! Every interpolated value goes through [`escape`].

use serde_json::Value;

use super::i18n::{strings, Strings, Text};
use crate::domain::card::Card;
use crate::domain::validation::FieldErrors;

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

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
font-size:.8rem;margin-top:1rem}.ok{font-size:1.2rem}";

/// What the lead form shows after a failed post: the submitted values and their errors.
#[derive(Debug, Default)]
pub struct FormState {
    pub name: String,
    pub email: String,
    pub phone: String,
    pub message: String,
    pub errors: FieldErrors,
}

fn head(out: &mut String, lang: &str, title: &str, description: &str, url: &str, index: bool) {
    out.push_str("<!doctype html><html lang=\"");
    out.push_str(lang);
    out.push_str("\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    out.push_str(&escape(title));
    out.push_str("</title>");
    if !description.is_empty() {
        out.push_str(&format!(
            "<meta name=\"description\" content=\"{0}\"><meta property=\"og:description\" content=\"{0}\">",
            escape(description)
        ));
    }
    out.push_str(&format!(
        "<meta property=\"og:title\" content=\"{}\"><meta property=\"og:type\" content=\"profile\">",
        escape(title)
    ));
    if !url.is_empty() {
        out.push_str(&format!(
            "<meta property=\"og:url\" content=\"{}\">",
            escape(url)
        ));
    }
    if !index {
        out.push_str("<meta name=\"robots\" content=\"noindex\">");
    }
    out.push_str("<style>");
    out.push_str(STYLE);
    out.push_str("</style></head><body><main>");
}

fn tail(out: &mut String, branding: Option<&Strings>) {
    if let Some(s) = branding {
        out.push_str("<footer>");
        out.push_str(&escape(s.get(Text::MadeWith)));
        out.push_str("</footer>");
    }
    out.push_str("</main></body></html>");
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
        .filter(|s| !s.trim().is_empty())
        .or(base)
        .filter(|s| !s.trim().is_empty())
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

fn field(
    out: &mut String,
    s: &Strings,
    label: Text,
    name: &str,
    kind: &str,
    value: &str,
    error_json: &Value,
) {
    out.push_str(&format!(
        "<label for=\"{name}\">{}</label>",
        escape(s.get(label))
    ));
    if kind == "textarea" {
        out.push_str(&format!(
            "<textarea id=\"{name}\" name=\"{name}\" rows=\"4\">{}</textarea>",
            escape(value)
        ));
    } else {
        out.push_str(&format!(
            "<input id=\"{name}\" name=\"{name}\" type=\"{kind}\" value=\"{}\">",
            escape(value)
        ));
    }
    if let Some(list) = error_json.get(name).and_then(Value::as_array) {
        for m in list.iter().filter_map(Value::as_str) {
            out.push_str(&format!("<p class=\"err\">{}</p>", escape(m)));
        }
    }
}

/// The card page. `src` is carried into the lead form so leads keep their source.
pub fn card_page(
    card: &Card,
    lang: &str,
    public_url: &str,
    src: Option<&str>,
    form: Option<&FormState>,
) -> String {
    let s = strings(lang);
    let translations = card.translations();
    let job_title = localized(&translations, lang, "job_title", card.job_title.as_deref());
    let tagline = localized(&translations, lang, "tagline", card.tagline.as_deref());
    let bio = localized(&translations, lang, "bio", card.bio.as_deref());
    let name = format!("{} {}", card.first_name, card.last_name);
    let title = card
        .seo_title
        .as_deref()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(&card.title);
    let description = card
        .seo_description
        .as_deref()
        .or(tagline)
        .or(job_title)
        .unwrap_or("");
    let base = format!("/c/{}", card.slug);

    let mut out = String::with_capacity(4096);
    head(
        &mut out,
        lang,
        title,
        description,
        public_url,
        card.seo_indexable,
    );
    out.push_str("<article class=\"card\"><h1>");
    out.push_str(&escape(&name));
    out.push_str("</h1>");
    let role: Vec<&str> = [job_title, card.company.as_deref()]
        .into_iter()
        .flatten()
        .collect();
    if !role.is_empty() {
        out.push_str(&format!(
            "<p class=\"role\">{}</p>",
            escape(&role.join(" · "))
        ));
    }
    if let Some(t) = tagline {
        out.push_str(&format!("<p class=\"tagline\">{}</p>", escape(t)));
    }

    let actions = [
        (card.email.as_deref(), "email", Text::Email),
        (card.phone.as_deref(), "phone", Text::Call),
        (card.website.as_deref(), "website", Text::Website),
        (card.booking_url.as_deref(), "booking", Text::Book),
        (card.video_url.as_deref(), "video", Text::Video),
        (card.address.as_deref(), "address", Text::Directions),
    ];
    out.push_str("<nav class=\"actions\">");
    for (value, kind, label) in actions {
        if value.is_some_and(|v| !v.trim().is_empty()) {
            out.push_str(&format!(
                "<a href=\"{base}/go/{kind}\" rel=\"nofollow\">{}</a>",
                escape(s.get(label))
            ));
        }
    }
    out.push_str("</nav>");
    if let Some(b) = bio {
        out.push_str(&format!("<p class=\"bio\">{}</p>", escape(b)));
    }
    if let Some(a) = card.address.as_deref().filter(|a| !a.trim().is_empty()) {
        out.push_str(&format!("<p class=\"address\">{}</p>", escape(a)));
    }

    let links = card.social_links();
    let mut shown: Vec<&str> = Vec::new();
    out.push_str("<ul class=\"social\">");
    for link in &links {
        // One entry per platform: `/go/social_<platform>` leads to the first of them.
        let p = link.platform.as_str();
        if shown.contains(&p) {
            continue;
        }
        shown.push(p);
        let label = link
            .label
            .as_deref()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| platform_label(p));
        out.push_str(&format!(
            "<li><a href=\"{base}/go/social_{p}\" rel=\"nofollow\">{}</a></li>",
            escape(&label)
        ));
    }
    out.push_str("</ul>");
    out.push_str(&format!(
        "<a class=\"save\" href=\"{base}/vcard\">{}</a>",
        escape(s.get(Text::SaveContact))
    ));

    if card.show_lead_form {
        let empty = FormState::default();
        let f = form.unwrap_or(&empty);
        let error_json = f.errors.to_json();
        out.push_str(&format!(
            "<form method=\"post\" action=\"{base}/leads\"><h2>{}</h2>",
            escape(s.get(Text::GetInTouch))
        ));
        if !f.errors.is_empty() {
            out.push_str(&format!(
                "<p class=\"err\" role=\"alert\">{}</p>",
                escape(s.get(Text::FixErrors))
            ));
        }
        field(
            &mut out,
            &s,
            Text::Name,
            "name",
            "text",
            &f.name,
            &error_json,
        );
        field(
            &mut out,
            &s,
            Text::Email,
            "email",
            "email",
            &f.email,
            &error_json,
        );
        field(
            &mut out,
            &s,
            Text::Phone,
            "phone",
            "tel",
            &f.phone,
            &error_json,
        );
        field(
            &mut out,
            &s,
            Text::Message,
            "message",
            "textarea",
            &f.message,
            &error_json,
        );
        // Honeypot: hidden from people, filled in by form-spamming bots.
        out.push_str("<div class=\"hp\" aria-hidden=\"true\"><label for=\"company_website\">Website</label><input id=\"company_website\" name=\"company_website\" tabindex=\"-1\" autocomplete=\"off\"></div>");
        if let Some(src) = src {
            out.push_str(&format!(
                "<input type=\"hidden\" name=\"src\" value=\"{}\">",
                escape(src)
            ));
        }
        out.push_str(&format!(
            "<input type=\"hidden\" name=\"lang\" value=\"{}\">",
            escape(lang)
        ));
        out.push_str(&format!(
            "<p><button type=\"submit\">{}</button></p></form>",
            escape(s.get(Text::Send))
        ));
    }
    out.push_str("</article>");
    let brand = card.show_branding.then_some(&s);
    tail(&mut out, brand);
    out
}

/// A short page with one message: the thank-you page and the 404 page.
pub fn message_page(lang: &str, title: &str, text: Text, branding: bool) -> String {
    let s = strings(lang);
    let mut out = String::with_capacity(2048);
    head(&mut out, lang, title, "", "", false);
    out.push_str(&format!(
        "<article class=\"card\"><p class=\"ok\">{}</p></article>",
        escape(s.get(text))
    ));
    tail(&mut out, branding.then_some(&s));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public::links::tests::card;

    const HOSTILE: &str = "<script>alert(1)</script>\"'><img src=x onerror=alert(1)>";

    #[test]
    fn escapes_everything() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
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
            Some(&form),
        );
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;script&gt;"));
    }

    #[test]
    fn form_branding_and_robots_follow_the_card() {
        let mut c = card("[]");
        let html = card_page(&c, "de", "u", None, None);
        assert!(html.contains("<html lang=\"de\">"));
        assert!(html.contains("Kontakt speichern"));
        assert!(html.contains("<form method=\"post\" action=\"/c/ada/leads\">"));
        assert!(html.contains("Digital Business Card</footer>"));
        assert!(!html.contains("noindex"));
        c.show_lead_form = false;
        c.show_branding = false;
        c.seo_indexable = false;
        let html = card_page(&c, "en", "u", None, None);
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
        assert!(card_page(&c, "fr", "u", None, None).contains("Bonjour"));
        assert!(card_page(&c, "en", "u", None, None).contains("Hello"));
    }
}
