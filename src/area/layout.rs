//! The frame of every account-area page: the document head (the stylesheet and the one
//! script, both from `/app/assets`), the header with the account, the member and the
//! language switch, the navigation, and the answer's headers (a CSP without inline
//! scripts, no caching, no framing).

use worker::{Headers, Response};

use super::assets;
use super::text::{Common, Lang};
use super::Signed;
use crate::domain::html::Html;

/// No inline script or style, nothing from another origin; forms post only here.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Where a page sits in the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Overview,
    Tokens,
    Webhooks,
    Leads,
    Analytics,
    Cards,
    Members,
    Security,
    /// Pages outside the navigation (sign-in, an invite, an error).
    None,
}

impl Nav {
    const ALL: [Nav; 8] = [
        Nav::Overview,
        Nav::Cards,
        Nav::Leads,
        Nav::Analytics,
        Nav::Tokens,
        Nav::Webhooks,
        Nav::Members,
        Nav::Security,
    ];

    fn href(self) -> &'static str {
        match self {
            Nav::Overview => "/app",
            Nav::Tokens => "/app/tokens",
            Nav::Webhooks => "/app/webhooks",
            Nav::Leads => "/app/leads",
            Nav::Analytics => "/app/analytics",
            Nav::Cards => "/app/cards",
            Nav::Members => "/app/members",
            Nav::Security => "/app/security",
            Nav::None => "/app",
        }
    }

    fn label(self, t: &Common) -> &'static str {
        match self {
            Nav::Overview => t.overview,
            Nav::Tokens => t.tokens,
            Nav::Webhooks => t.webhooks,
            Nav::Leads => t.leads,
            Nav::Analytics => t.analytics,
            Nav::Cards => t.cards,
            Nav::Members => t.members,
            Nav::Security => t.security,
            Nav::None => t.area,
        }
    }
}

/// A page's content and where it belongs; [`Page::render`] frames it.
pub struct Page<'a> {
    pub lang: Lang,
    pub title: &'a str,
    pub nav: Nav,
    pub body: Html,
    /// The path of this page (with its query) for the language switch.
    pub here: &'a str,
}

impl Page<'_> {
    /// The whole document, framed for `signed` (or for nobody: sign-in and invites).
    pub fn render(self, signed: Option<&Signed>) -> Html {
        let t = Common::of(self.lang);
        let mut h = Html::with_capacity(8192 + self.body.len());
        h.raw("<!doctype html>")
            .open("html", &[("lang", self.lang.code())])
            .raw("<head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><meta name=\"robots\" content=\"noindex\">");
        h.element("title", &[], &format!("{} · {}", self.title, t.area));
        h.open(
            "link",
            &[("rel", "stylesheet"), ("href", &assets::href(assets::CSS))],
        )
        .open(
            "script",
            &[("src", &assets::href(assets::JS)), ("defer", "")],
        )
        .raw("</script></head><body>")
        .open("a", &[("class", "skip"), ("href", "#main")])
        .text(t.skip)
        .close("a")
        .raw("<header class=\"top\"><div class=\"bar\">")
        .open("a", &[("class", "brand"), ("href", "/app")])
        .text(signed.map_or(t.area, |s| s.account.name.as_str()))
        .close("a")
        .raw("<div class=\"who\">");
        if let Some(s) = signed {
            let role = match s.owner() {
                true => t.owner,
                false => t.member,
            };
            h.open("span", &[("class", "me")])
                .text(&s.session.email)
                .raw(" · ")
                .text(role)
                .close("span");
        }
        let other = self.lang.other();
        h.open(
            "a",
            &[
                ("href", &switch_href(self.here, other)),
                ("hreflang", other.code()),
                ("lang", other.code()),
            ],
        )
        .text(t.language)
        .close("a");
        if signed.is_some() {
            h.raw("<form method=\"post\" action=\"/app/sign-out\" class=\"inline\">")
                .element(
                    "button",
                    &[("type", "submit"), ("class", "link")],
                    t.sign_out,
                )
                .raw("</form>");
        }
        h.raw("</div></div>");
        if signed.is_some() {
            h.open("nav", &[("aria-label", t.menu)]).raw("<ul>");
            for nav in Nav::ALL {
                let current = if nav == self.nav { "page" } else { "false" };
                h.raw("<li>")
                    .open("a", &[("href", nav.href()), ("aria-current", current)])
                    .text(nav.label(t))
                    .raw("</a></li>");
            }
            h.raw("</ul></nav>");
        }
        h.raw("</header><main id=\"main\">")
            .element("h1", &[], self.title);
        if signed.is_some_and(|s| !s.owner()) && self.nav != Nav::Overview {
            h.element("p", &[("class", "note")], t.read_only);
        }
        h.append(&self.body).raw("</main></body></html>");
        h
    }
}

/// This page in the other language: `?lang=` (which also sets the cookie) replaces any.
fn switch_href(here: &str, lang: Lang) -> String {
    let (path, query) = here.split_once('?').unwrap_or((here, ""));
    let mut kept: Vec<&str> = query
        .split('&')
        .filter(|p| !p.is_empty() && !p.starts_with("lang="))
        .collect();
    let lang = format!("lang={}", lang.code());
    kept.push(&lang);
    format!("{path}?{}", kept.join("&"))
}

/// The headers of every page.
pub fn headers(content_type: &str) -> Headers {
    let h = Headers::new();
    for (k, v) in [
        ("Content-Type", content_type),
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-store"),
        ("X-Frame-Options", "DENY"),
    ] {
        let _ = h.set(k, v);
    }
    h
}

/// An HTML answer.
pub fn html(status: u16, page: Html) -> Response {
    Response::builder()
        .with_status(status)
        .with_headers(headers("text/html; charset=utf-8"))
        .fixed(page.into_string().into_bytes())
}

/// A 303 to `location` (after a form's post: a reload does not post again).
pub fn see_other(location: &str) -> Response {
    let h = headers("text/plain; charset=utf-8");
    let _ = h.set("Location", location);
    Response::builder().with_status(303).with_headers(h).empty()
}

/// A list's pager, when it has more than one page: the previous and next pages' links
/// (`href` gives a page's address, with the list's filters) and `Page 2 / 5`.
pub fn pager(h: &mut Html, lang: Lang, page: i64, last: i64, href: impl Fn(i64) -> String) {
    if last <= 1 {
        return;
    }
    let t = Common::of(lang);
    h.open("nav", &[("class", "pager"), ("aria-label", t.page_of)]);
    if page > 1 {
        let to = href((page - 1).min(last));
        h.element("a", &[("href", &to), ("rel", "prev")], t.previous);
    }
    h.open("span", &[])
        .text(t.page_of)
        .text(&format!(" {page} / {last}"))
        .close("span");
    if page < last {
        h.element("a", &[("href", &href(page + 1)), ("rel", "next")], t.next);
    }
    h.close("nav");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_keeps_the_query() {
        assert_eq!(switch_href("/app/leads", Lang::De), "/app/leads?lang=de");
        assert_eq!(
            switch_href("/app/leads?page=2&lang=en", Lang::De),
            "/app/leads?page=2&lang=de"
        );
    }

    #[test]
    fn the_pager_links_its_neighbours() {
        let at = |page, last| {
            let mut h = Html::default();
            pager(&mut h, Lang::En, page, last, |p| {
                format!("/app/cards?page={p}")
            });
            h.into_string()
        };
        assert_eq!(at(1, 1), "", "one page needs none");
        let middle = at(2, 3);
        assert!(middle.contains("<a href=\"/app/cards?page=1\" rel=\"prev\">Previous</a>"));
        assert!(middle.contains("<span>Page 2 / 3</span>"));
        assert!(middle.contains("<a href=\"/app/cards?page=3\" rel=\"next\">Next</a>"));
        let beyond = at(9, 3);
        assert!(beyond.contains("page=3\" rel=\"prev\"") && !beyond.contains("rel=\"next\""));
        assert!(
            beyond.contains("Page 9 / 3"),
            "past the end, back to the last"
        );
    }
}
