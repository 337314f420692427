//! The public card surface (product.md 4): `/c/{slug}` pages, vCards, click redirects and
//! the lead form. Pages are HTML; the lead endpoint also speaks JSON.

pub mod html;
pub mod page;
pub mod qr;
pub mod signature;
pub mod tracking;
pub mod vcard;
pub mod wallet;

// The page's strings and link targets are the domain's, shared with the email signature
// (`domain::signature`); named here as the pages always have.
pub use crate::domain::{i18n, links};

use std::cell::RefCell;
use std::collections::HashMap;

use serde_json::{json, Map, Value};
use worker::{Headers, Request, Response};

use crate::domain::account::{Account, Placement};
use crate::domain::card::Card;
use crate::domain::conditional::strong_etag;
use crate::domain::lang::{available_languages, is_language};
use crate::domain::lead::{consent_required, consented, source, validate_lead, LeadInput};
use crate::domain::slug::is_valid_slug;
use crate::domain::throttle::{address_key, Limit, Span, Verdict, DAY_MS, HOUR_MS};
use crate::domain::validation::FieldErrors;
use crate::domain::weburl::{form_pairs, parse_http};
use crate::durable::throttle::client as throttle;
use crate::http::body::{parse_object, MAX_BODY_BYTES};
use crate::http::edge::conditional;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{client_address, method, query};
use crate::http::paths::{self, Path, Seg::Hole, Seg::Lit};
use crate::http::response::json_response;
use crate::http::App;
use crate::ops;
use crate::store::cards;
use crate::store::slugs;
use i18n::{strings, Text};
use page::{Form, FormState};

/// No scripts, no external resources, no framing; forms post only to this origin.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; \
                   form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

fn headers(content_type: &str) -> Headers {
    headers_with(content_type, CSP)
}

fn headers_with(content_type: &str, csp: &str) -> Headers {
    let h = Headers::new();
    for (k, v) in [
        ("Content-Type", content_type),
        ("Content-Security-Policy", csp),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "strict-origin-when-cross-origin"),
        ("Cache-Control", "no-store"),
    ] {
        let _ = h.set(k, v);
    }
    h
}

/// A card page: its CSP admits images from exactly the origins its design names.
fn card_html(status: u16, page: page::Rendered) -> Response {
    let csp = if page.image_origins.is_empty() {
        CSP.to_string()
    } else {
        CSP.replace(
            "img-src 'self' data:",
            &format!("img-src 'self' data: {}", page.image_origins.join(" ")),
        )
    };
    Response::builder()
        .with_status(status)
        .with_headers(headers_with("text/html; charset=utf-8", &csp))
        .fixed(page.html.into_bytes())
}

fn html(status: u16, body: String) -> Response {
    Response::builder()
        .with_status(status)
        .with_headers(headers("text/html; charset=utf-8"))
        .fixed(body.into_bytes())
}

fn not_found(lang: &str) -> Response {
    html(404, page::message_page(lang, "404", Text::NotFound, true))
}

/// A 302 to a link target or a 303 after a form post. `Location` carries ASCII only.
fn redirect(status: u16, location: &str) -> Response {
    let h = headers("text/plain; charset=utf-8");
    let _ = h.set("Location", &links::ascii_uri(location));
    Response::builder()
        .with_status(status)
        .with_headers(h)
        .empty()
}

/// The page language: `?lang=` when the card is published in it, else the card's own.
fn page_lang(card: &Card, requested: Option<&str>) -> String {
    match requested {
        Some(l)
            if available_languages(&card.language, &card.translations())
                .iter()
                .any(|a| a == l) =>
        {
            l.to_string()
        }
        _ => card.language.clone(),
    }
}

thread_local! {
    /// Where this isolate last found a slug's card (slugs never change; a move changes the
    /// shard, which a miss there asks the directory again for).
    static SLUGS: RefCell<HashMap<String, slugs::Found>> = RefCell::new(HashMap::new());
}

/// Slugs kept per isolate; past this the map starts over (it only saves a round trip).
const MAX_SLUGS: usize = 4096;

fn forget_slug(slug: &str) -> bool {
    SLUGS.with(|m| m.borrow_mut().remove(slug).is_some())
}

/// The card behind a slug and its account, from the account's shard; the directory says
/// which shard (remembered per isolate, and read at the nearest replica, when `cached`).
async fn find_card(app: &App, slug: &str, cached: bool) -> ApiResult<Option<(Card, Account)>> {
    let known = if cached {
        SLUGS.with(|m| m.borrow().get(slug).cloned())
    } else {
        None
    };
    let found = match known {
        Some(found) => found,
        None => {
            let key = slugs::route_key(&app.config.token_pepper, slug);
            // First at the nearest replica; a row that led to no card at the primary.
            let row = if cached {
                slugs::find(&app.directory_near()?, slug, &key).await?
            } else {
                slugs::find(&*app.directory()?, slug, &key).await?
            };
            let found = match row {
                Some(found) => found,
                // Made a moment ago: its routing row follows the answer (regions.md 6).
                None => match crate::ops::cards::find_named(app, slug).await? {
                    Some(found) => found,
                    None => return Ok(None),
                },
            };
            SLUGS.with(|m| {
                let mut m = m.borrow_mut();
                if m.len() >= MAX_SLUGS {
                    m.clear();
                }
                m.insert(slug.to_string(), found.clone());
            });
            found
        }
    };
    app.place(&found.shard)?;
    let mut card = cards::for_page(&*app.db()?, found.card_id, found.account_id).await?;
    if let Some((_, account)) = card.as_mut() {
        account.placement = Some(Placement {
            data_region: found.data_region,
            shard: found.shard,
            moving: None,
        });
    }
    Ok(card)
}

/// A card the public may see, as its account's current features let it be shown, and
/// the account's privacy policy URL (the lead form asks for consent when there is one).
async fn live_card(app: &App, slug: &str) -> ApiResult<Option<(Card, Option<String>)>> {
    if !is_valid_slug(slug) {
        return Ok(None);
    }
    let found = match find_card(app, slug, true).await? {
        Some(found) => Some(found),
        // The slug moved with its account since this isolate learnt it: ask again.
        None if forget_slug(slug) => find_card(app, slug, false).await?,
        None => None,
    };
    Ok(found
        .map(|(card, account)| {
            let features = account.overrides.effective(account.plan).0;
            (card.effective(features), account.privacy_policy_url)
        })
        .filter(|(c, _)| c.is_live(app.now_ms)))
}

pub async fn handle(app: &App, req: Request, segments: &[&str]) -> Response {
    let q = query(&req);
    let requested = q.get("lang").map(String::as_str);
    let fallback = requested.filter(|l| is_language(l)).unwrap_or("en");
    match serve(app, req, segments, requested).await {
        Ok(resp) => resp,
        Err(ApiError::NotFound) => not_found(fallback),
        Err(
            e @ (ApiError::Validation(_)
            | ApiError::PayloadTooLarge
            | ApiError::UnsupportedMediaType
            | ApiError::CrossSite
            | ApiError::MethodNotAllowed(_)
            | ApiError::Moving),
        ) => e.into_response(),
        Err(e) => {
            if let ApiError::Internal(cause) = &e {
                worker::console_error!("public page error: {cause}");
            }
            html(
                500,
                page::message_page(fallback, "500", Text::Unavailable, true),
            )
        }
    }
}

/// The operations of `/c/...`, with the slug (and link kind) as written in the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublicRoute {
    Page(String),
    VCard(String),
    Qr(String),
    /// A click on one of the card's links (`/c/{slug}/go/{kind}`).
    Go(String, String),
    Lead(String),
    /// The card's Apple Wallet pass and its Google Wallet save link (wallet.md).
    ApplePass(String),
    GooglePass(String),
}

/// The slug hole of a path.
fn slug(holes: &[&str]) -> String {
    holes.first().map_or_else(String::new, |s| s.to_string())
}

/// Every path under `/c` and the methods it answers: routing and `Allow` come from it.
const PATHS: &[Path<PublicRoute>] = &[
    Path {
        segs: &[Hole],
        methods: &[
            ("GET", |h| PublicRoute::Page(slug(h))),
            ("HEAD", |h| PublicRoute::Page(slug(h))),
        ],
    },
    Path {
        segs: &[Hole, Lit("vcard")],
        methods: &[
            ("GET", |h| PublicRoute::VCard(slug(h))),
            ("HEAD", |h| PublicRoute::VCard(slug(h))),
        ],
    },
    Path {
        segs: &[Hole, Lit("qr.svg")],
        methods: &[
            ("GET", |h| PublicRoute::Qr(slug(h))),
            ("HEAD", |h| PublicRoute::Qr(slug(h))),
        ],
    },
    Path {
        segs: &[Hole, Lit("go"), Hole],
        methods: &[
            ("GET", |h| PublicRoute::Go(slug(h), h[1].to_string())),
            ("HEAD", |h| PublicRoute::Go(slug(h), h[1].to_string())),
        ],
    },
    Path {
        segs: &[Hole, Lit("leads")],
        methods: &[("POST", |h| PublicRoute::Lead(slug(h)))],
    },
    Path {
        segs: &[Hole, Lit("wallet.pkpass")],
        methods: &[("GET", |h| PublicRoute::ApplePass(slug(h)))],
    },
    Path {
        segs: &[Hole, Lit("wallet"), Lit("google")],
        methods: &[("GET", |h| PublicRoute::GooglePass(slug(h)))],
    },
];

/// The operation `method` makes of `segments` (after `/c`); 404 or 405 otherwise.
pub fn route(method: &str, segments: &[&str]) -> ApiResult<PublicRoute> {
    paths::find(PATHS, method, segments)
}

async fn serve(
    app: &App,
    req: Request,
    segments: &[&str],
    requested: Option<&str>,
) -> ApiResult<Response> {
    match route(&method(&req), segments)? {
        PublicRoute::Page(slug) => {
            let (card, privacy) = live_card(app, &slug).await?.ok_or(ApiError::NotFound)?;
            let q = query(&req);
            let lang = page_lang(&card, requested);
            // The landing of a form post's 303 is not a new visit.
            let sent = q.contains_key(SENT);
            if !sent {
                tracking::record_view(app, card.account_id, card.id, &req).await;
            }
            Ok(card_html(
                200,
                page::card_page(
                    &card,
                    &lang,
                    &card.public_url(&app.base_url),
                    q.get("src").map(String::as_str),
                    if sent { Form::Sent } else { Form::Blank },
                    privacy.as_deref(),
                    ops::wallet::offered(app),
                ),
            ))
        }
        PublicRoute::VCard(slug) => {
            let (card, _) = live_card(app, &slug).await?.ok_or(ApiError::NotFound)?;
            tracking::record_click(app, card.account_id, card.id, "vcard", &req).await;
            let version = vcard::Version::asked(query(&req).get("version").map(String::as_str));
            let h = headers("text/vcard; charset=utf-8");
            let _ = h.set(
                "Content-Disposition",
                &format!("attachment; filename=\"{}.vcf\"", card.slug),
            );
            let body = vcard::vcard(&card, &card.public_url(&app.base_url), version);
            Ok(Response::builder().with_headers(h).fixed(body.into_bytes()))
        }
        // Not a visit: a scan is counted when the code's URL (`?src=qr`) is opened.
        PublicRoute::Qr(slug) => {
            let (card, _) = live_card(app, &slug).await?.ok_or(ApiError::NotFound)?;
            let svg = qr::svg(&card, &app.base_url, None)
                .ok_or_else(|| ApiError::Internal("card URL too long for a QR code".into()))?;
            let h = headers("image/svg+xml");
            // The image depends on the slug and the origin only, so caches may keep it a
            // while; after that an `If-None-Match` revalidation costs a 304. A card taken
            // down answers 404 here within 5 minutes, and its URL at once.
            let _ = h.set("Cache-Control", "public, max-age=300");
            let _ = h.set(
                "Content-Disposition",
                &format!("inline; filename=\"{}-qr.svg\"", card.slug),
            );
            let body = svg.into_string().into_bytes();
            let _ = h.set("ETag", &strong_etag(&body));
            let resp = Response::builder().with_headers(h).fixed(body);
            let if_none_match = req.headers().get("If-None-Match").ok().flatten();
            Ok(conditional(resp, if_none_match.as_deref()))
        }
        PublicRoute::Go(slug, kind) => {
            let (card, _) = live_card(app, &slug).await?.ok_or(ApiError::NotFound)?;
            let target = links::target(&card, &kind).ok_or(ApiError::NotFound)?;
            tracking::record_click(app, card.account_id, card.id, &kind, &req).await;
            Ok(redirect(302, &target))
        }
        PublicRoute::Lead(slug) => lead(app, req, &slug, requested).await,
        PublicRoute::ApplePass(slug) => wallet::apple_pass(app, &req, &slug).await,
        PublicRoute::GooglePass(slug) => wallet::google_save(app, &req, &slug).await,
    }
}

/// The query parameter of the page a successful form post is sent back to.
const SENT: &str = "sent";

/// How a lead post was made: JSON clients get JSON, browsers' form posts get pages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Poster {
    Json,
    Form,
}

/// The body's kind, or 415 for anything else: a `text/plain` form is how a cross-site
/// page posts without a preflight.
fn poster(req: &Request) -> ApiResult<Poster> {
    let content_type = req
        .headers()
        .get("Content-Type")
        .ok()
        .flatten()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if media == "application/json" || media.ends_with("+json") {
        Ok(Poster::Json)
    } else if media == "application/x-www-form-urlencoded" {
        Ok(Poster::Form)
    } else {
        Err(ApiError::UnsupportedMediaType)
    }
}

/// Browsers say where a post comes from: a form on another site may not post here.
fn same_site(req: &Request) -> bool {
    let header = |name: &str| req.headers().get(name).ok().flatten();
    if let Some(site) = header("Sec-Fetch-Site") {
        return matches!(site.as_str(), "same-origin" | "same-site" | "none");
    }
    let own = parse_http(&req.inner().url()).map(|u| u.origin());
    match header("Origin") {
        // Clients that are not browsers send no Origin.
        None => true,
        Some(origin) => own.is_some_and(|own| own.eq_ignore_ascii_case(&origin)),
    }
}

/// The lead form (extensions.md 5): limited per visitor and per card; JSON in, JSON out;
/// a form post is answered with a 303 back to the card page, so a reload does not post
/// again.
async fn lead(
    app: &App,
    mut req: Request,
    slug: &str,
    requested: Option<&str>,
) -> ApiResult<Response> {
    let poster = poster(&req)?;
    if poster == Poster::Form && !same_site(&req) {
        return Err(ApiError::CrossSite);
    }
    let Some((card, privacy)) = live_card(app, slug)
        .await?
        .filter(|(c, _)| c.show_lead_form)
    else {
        // JSON clients get the API's JSON 404, people the HTML page.
        return match poster {
            Poster::Json => Ok(ApiError::NotFound.into_response()),
            Poster::Form => Err(ApiError::NotFound),
        };
    };
    let bytes = req.bytes().await?;
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge);
    }
    let body: Map<String, Value> = match poster {
        Poster::Json => parse_object(&bytes)?,
        // A repeated key keeps its last value, as a JSON object's does.
        Poster::Form => form_pairs(&String::from_utf8_lossy(&bytes))
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect(),
    };
    let field = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_string);
    let q = query(&req);
    let src = field("src").or_else(|| q.get("src").cloned());
    let lang = page_lang(&card, field("lang").as_deref().or(requested));
    let thanks = || match poster {
        Poster::Json => json_response(
            201,
            &json!({"data": {"message": strings(&lang).get(Text::Thanks)}}),
        ),
        Poster::Form => {
            let mut back = format!("/c/{}?{SENT}=1", card.slug);
            if lang != card.language {
                back.push_str(&format!("&lang={lang}"));
            }
            redirect(303, &back)
        }
    };

    // Honeypot filled: a bot. Answer as for a person, store nothing.
    if field("company_website").is_some_and(|v| !v.trim().is_empty()) {
        return Ok(thanks());
    }
    // With a privacy policy, no lead without consent (extensions.md 8); without one, no
    // consent is asked for and none is recorded.
    let consent_missing = privacy.is_some() && !consented(&body);
    let checked = match validate_lead(&body) {
        Ok(input) if !consent_missing => Ok(LeadInput {
            consent: privacy.is_some(),
            ..input
        }),
        Ok(_) => Err(FieldErrors::new()),
        Err(errors) => Err(errors),
    }
    .map_err(|mut errors| {
        if consent_missing {
            errors.add("consent", consent_required());
        }
        errors
    });
    let input = match checked {
        Ok(input) => input,
        Err(errors) if poster == Poster::Json => return Err(ApiError::Validation(errors)),
        Err(errors) => {
            let form = FormState {
                name: field("name").unwrap_or_default(),
                email: field("email").unwrap_or_default(),
                phone: field("phone").unwrap_or_default(),
                message: field("message").unwrap_or_default(),
                errors,
            };
            let page = page::card_page(
                &card,
                &lang,
                &card.public_url(&app.base_url),
                src.as_deref(),
                Form::Invalid(&form),
                privacy.as_deref(),
                ops::wallet::offered(app),
            );
            return Ok(card_html(422, page));
        }
    };
    let verdict = admit(app, &req, card.id).await;
    if !verdict.allowed {
        let refused = ApiError::TooManyRequests {
            retry_after: verdict.retry_after,
        };
        return Ok(match poster {
            Poster::Json => refused.into_response(),
            Poster::Form => {
                let page =
                    page::message_page(&lang, &card.title, Text::TooMany, card.show_branding);
                let resp = html(429, page);
                let _ = resp
                    .headers()
                    .set("Retry-After", &verdict.retry_after.to_string());
                resp
            }
        });
    }
    ops::leads::capture(
        app,
        card.account_id,
        card.id,
        &input,
        source(src.as_deref()),
    )
    .await?;
    Ok(thanks())
}

/// Takes a slot of the visitor's hourly and the card's daily lead budget. If the throttle
/// cannot be reached the lead is taken (logged): losing a real lead is worse than a burst.
async fn admit(app: &App, req: &Request, card_id: i64) -> Verdict {
    let visitor = address_key(&app.config.visitor_salt, &client_address(req));
    let limits = vec![
        Limit {
            bucket: format!("visitor:{visitor}"),
            max: app.config.leads_per_visitor_per_hour,
            span: Span::Rolling(HOUR_MS),
        },
        Limit {
            bucket: "card".into(),
            max: app.config.leads_per_card_per_day,
            span: Span::Calendar(DAY_MS),
        },
    ];
    // The card's account is placed (find_card): its region decides where the object is.
    let jurisdiction = app.jurisdiction();
    let object = throttle::lead_object(card_id, jurisdiction);
    match throttle::take(&app.env, &object, limits).await {
        Ok(verdict) => verdict,
        Err(e) => {
            worker::console_error!("lead throttle unavailable, admitting the lead: {e}");
            Verdict::ALLOWED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{page_lang, route, PublicRoute, PATHS};
    use crate::domain::card::fixture;
    use crate::http::error::ApiError;
    use crate::http::paths::{assert_allow_matches_routing, example};

    #[test]
    fn routes() {
        let r = |m, p: &[&str]| route(m, p).unwrap();
        assert_eq!(r("HEAD", &["ann"]), PublicRoute::Page("ann".into()));
        assert_eq!(r("GET", &["ann", "qr.svg"]), PublicRoute::Qr("ann".into()));
        assert_eq!(
            r("GET", &["ann", "go", "website"]),
            PublicRoute::Go("ann".into(), "website".into())
        );
        assert_eq!(
            r("POST", &["ann", "leads"]),
            PublicRoute::Lead("ann".into())
        );
        assert_eq!(
            r("GET", &["ann", "wallet.pkpass"]),
            PublicRoute::ApplePass("ann".into())
        );
        assert_eq!(
            r("GET", &["ann", "wallet", "google"]),
            PublicRoute::GooglePass("ann".into())
        );
        assert!(matches!(
            route("GET", &["ann", "wallet"]),
            Err(ApiError::NotFound)
        ));
        assert!(matches!(route("GET", &[]), Err(ApiError::NotFound)));
        assert!(matches!(
            route("GET", &["ann", "x"]),
            Err(ApiError::NotFound)
        ));
        assert!(matches!(
            route("GET", &["ann", "leads"]),
            Err(ApiError::MethodNotAllowed(a)) if a == "POST"
        ));
        assert!(matches!(
            route("POST", &["ann"]),
            Err(ApiError::MethodNotAllowed(a)) if a == "GET, HEAD"
        ));
    }

    #[test]
    fn allow_lists_exactly_the_methods_that_route() {
        for path in PATHS {
            let segments = example(path, "ann");
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            assert_allow_matches_routing(path, &segments, route, |_| true);
        }
    }

    #[test]
    fn lang_switches_only_to_published_languages() {
        let mut c = fixture("[]");
        c.language = "de".into();
        c.translations = serde_json::value::RawValue::from_string(
            r#"{"fr": {"bio": "Bonjour"}, "xx": {}}"#.into(),
        )
        .unwrap();
        assert_eq!(page_lang(&c, Some("fr")), "fr");
        assert_eq!(page_lang(&c, Some("de")), "de");
        assert_eq!(page_lang(&c, Some("es")), "de", "not published");
        assert_eq!(page_lang(&c, Some("xx")), "de", "not a language");
        assert_eq!(page_lang(&c, None), "de");
    }
}
