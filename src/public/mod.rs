//! The public card surface (product.md 4): `/c/{slug}` pages, vCards, click redirects and
//! the lead form. Pages are HTML; the lead endpoint also speaks JSON.

pub mod html;
pub mod i18n;
pub mod links;
pub mod page;
pub mod tracking;
pub mod vcard;

use serde_json::{Map, Value};
use worker::{Headers, Request, Response};

use crate::domain::card::Card;
use crate::domain::lang::{available_languages, is_language};
use crate::domain::lead::{source, validate_lead};
use crate::domain::slug::is_valid_slug;
use crate::domain::weburl::form_pairs;
use crate::http::body::{parse_object, MAX_BODY_BYTES};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{method, query};
use crate::http::response::json_response;
use crate::http::App;
use crate::store::{cards, leads};
use i18n::Text;
use page::FormState;

/// No scripts, no external resources, no framing; forms post only to this origin.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; \
                   form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

fn headers(content_type: &str) -> Headers {
    let h = Headers::new();
    for (k, v) in [
        ("Content-Type", content_type),
        ("Content-Security-Policy", CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "strict-origin-when-cross-origin"),
        ("Cache-Control", "no-store"),
    ] {
        let _ = h.set(k, v);
    }
    h
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

fn redirect(location: &str) -> Response {
    let h = headers("text/plain; charset=utf-8");
    let _ = h.set("Location", location);
    Response::builder().with_status(302).with_headers(h).empty()
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

async fn live_card(app: &App, slug: &str) -> ApiResult<Option<Card>> {
    if !is_valid_slug(slug) {
        return Ok(None);
    }
    let card = cards::by_slug(&app.db()?, slug).await?;
    Ok(card.filter(|c| c.is_live(app.now_ms)))
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
            | ApiError::MethodNotAllowed(_)),
        ) => e.into_response(),
        Err(e) => {
            if let ApiError::Internal(cause) = &e {
                worker::console_error!("public page error: {cause}");
            }
            html(
                500,
                page::message_page(fallback, "500", Text::NotFound, true),
            )
        }
    }
}

async fn serve(
    app: &App,
    req: Request,
    segments: &[&str],
    requested: Option<&str>,
) -> ApiResult<Response> {
    let method = method(&req);
    let read = method == "GET" || method == "HEAD";
    match segments {
        [slug] if read => {
            let card = live_card(app, slug).await?.ok_or(ApiError::NotFound)?;
            let q = query(&req);
            let lang = page_lang(&card, requested);
            tracking::record_view(app, card.account_id, card.id, &req);
            Ok(html(
                200,
                page::card_page(
                    &card,
                    &lang,
                    &card.public_url(&app.base_url),
                    q.get("src").map(String::as_str),
                    None,
                ),
            ))
        }
        [slug, "vcard"] if read => {
            let card = live_card(app, slug).await?.ok_or(ApiError::NotFound)?;
            tracking::record_click(app, card.account_id, card.id, "vcard", &req);
            let h = headers("text/vcard; charset=utf-8");
            let _ = h.set(
                "Content-Disposition",
                &format!("attachment; filename=\"{}.vcf\"", card.slug),
            );
            Ok(Response::builder()
                .with_headers(h)
                .fixed(vcard::vcard(&card, &card.public_url(&app.base_url)).into_bytes()))
        }
        [slug, "go", kind] if read => {
            let card = live_card(app, slug).await?.ok_or(ApiError::NotFound)?;
            let target = links::target(&card, kind).ok_or(ApiError::NotFound)?;
            tracking::record_click(app, card.account_id, card.id, kind, &req);
            Ok(redirect(&target))
        }
        [_, "leads"] if method == "POST" => lead(app, req, segments[0], requested).await,
        [_] | [_, "vcard"] | [_, "go", _] => Err(ApiError::MethodNotAllowed("GET, HEAD")),
        [_, "leads"] => Err(ApiError::MethodNotAllowed("POST")),
        _ => Err(ApiError::NotFound),
    }
}

/// The lead form: JSON in, JSON out; a form post gets pages back.
async fn lead(
    app: &App,
    mut req: Request,
    slug: &str,
    requested: Option<&str>,
) -> ApiResult<Response> {
    let is_json = req
        .headers()
        .get("Content-Type")
        .ok()
        .flatten()
        .is_some_and(|c| c.to_ascii_lowercase().contains("json"));
    let card = live_card(app, slug).await?.filter(|c| c.show_lead_form);
    let Some(card) = card else {
        // JSON clients get the API's JSON 404, people the HTML page.
        return if is_json {
            Ok(ApiError::NotFound.into_response())
        } else {
            Err(ApiError::NotFound)
        };
    };
    let bytes = req.bytes().await?;
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge);
    }
    let body: Map<String, Value> = if is_json {
        parse_object(&bytes)?
    } else {
        form_pairs(&String::from_utf8_lossy(&bytes))
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect()
    };
    let field = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_string);
    let q = query(&req);
    let src = field("src").or_else(|| q.get("src").cloned());
    let lang = page_lang(&card, field("lang").as_deref().or(requested));
    let thanks = || {
        html(
            200,
            page::message_page(&lang, &card.title, Text::Thanks, card.show_branding),
        )
    };

    // Honeypot filled: a bot. Answer as for a person, store nothing.
    if field("company_website").is_some_and(|v| !v.trim().is_empty()) {
        return Ok(if is_json {
            json_response(202, &serde_json::json!({"message": "Thank you."}))
        } else {
            thanks()
        });
    }
    let input = match validate_lead(&body) {
        Ok(input) => input,
        Err(errors) if is_json => return Err(ApiError::Validation(errors)),
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
                Some(&form),
            );
            return Ok(html(422, page));
        }
    };
    let row = leads::create(
        &app.db()?,
        card.account_id,
        card.id,
        &input,
        source(src.as_deref()),
        app.now_ms,
    )
    .await?
    .ok_or_else(|| ApiError::Internal("lead insert returned no row".into()))?;
    Ok(if is_json {
        json_response(201, &serde_json::json!({"data": row.view(None)}))
    } else {
        thanks()
    })
}

#[cfg(test)]
mod tests {
    use super::page_lang;
    use crate::domain::card::fixture;

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
