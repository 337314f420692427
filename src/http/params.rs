//! What handlers read from a request: its method, bearer token, client address, path and
//! query parameters, and the visitor's country; and the entry's conversion of the
//! runtime's request ([`incoming`]).

use std::collections::HashMap;

use worker::Request;

use super::error::{ApiError, ApiResult};
use crate::domain::pagination::Page;
use crate::domain::time::parse_iso8601;
use crate::domain::weburl::form_pairs;

#[wasm_bindgen::prelude::wasm_bindgen(module = "/src/http/request.mjs")]
extern "C" {
    fn hide_cf(request: &worker::web_sys::Request);
    fn cf_country(request: &worker::web_sys::Request) -> Option<String>;
}

/// The request as the router takes it. worker's conversion reads `request.cf`, which the
/// runtime parses on first read, for every request; only page views want it
/// ([`country`]), so it is hidden from the conversion.
pub fn incoming(req: worker::web_sys::Request) -> Request {
    hide_cf(&req);
    Request::from(req)
}

/// The visitor's country code (`request.cf.country`), if the runtime has one.
pub fn country(req: &Request) -> Option<String> {
    country_of(req.inner())
}

pub fn country_of(req: &worker::web_sys::Request) -> Option<String> {
    cf_country(req)
}

/// The request method as sent. worker's `Method` reads any method it has no variant for
/// (QUERY, PROPFIND, ...) as GET, which would serve such requests as reads.
pub fn method(req: &Request) -> String {
    req.inner().method()
}

/// Query parameters; for a repeated key the last value wins, as in PHP.
pub fn query(req: &Request) -> HashMap<String, String> {
    let url = req.inner().url();
    let query = url
        .split('#')
        .next()
        .and_then(|u| u.split_once('?'))
        .map(|(_, q)| q);
    query
        .map(form_pairs)
        .unwrap_or_default()
        .into_iter()
        .collect()
}

/// `page` and `per_page`, clamped.
pub fn page(q: &HashMap<String, String>) -> Page {
    Page::from_query(
        q.get("page").map(String::as_str),
        q.get("per_page").map(String::as_str),
    )
}

/// The client's address as the edge reports it (`CF-Connecting-IP`; tests set it to act as
/// distinct visitors); empty when absent.
pub fn client_address(req: &Request) -> String {
    req.headers()
        .get("CF-Connecting-IP")
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235).
pub fn bearer(header: Option<&str>) -> Option<&str> {
    let (scheme, token) = header?.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// `updated_since` (extensions.md 2): an ISO 8601 date-time with an offset, as Unix ms.
pub fn updated_since(q: &HashMap<String, String>) -> ApiResult<Option<i64>> {
    match q.get("updated_since").map(|v| v.trim()) {
        None => Ok(None),
        Some(v) => {
            // An unencoded `+` of the offset arrives as a space (form decoding): read it back.
            let v = match v.get(19..).and_then(|tail| tail.find(' ')) {
                Some(i) => format!("{}+{}", &v[..19 + i], &v[19 + i + 1..]),
                None => v.to_string(),
            };
            parse_iso8601(&v).map(Some).ok_or_else(|| {
            ApiError::validation(
                "updated_since",
                "The updated since field must be an ISO 8601 date-time with a time zone offset or Z."
                    .into(),
                )
            })
        }
    }
}

/// A path id: plain decimal digits only, so `/cards/1e3` or `/cards/+1` are not found.
pub fn path_id(segment: &str) -> Option<i64> {
    if segment.is_empty() || segment.len() > 15 || !segment.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    segment.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{bearer, path_id};

    #[test]
    fn bearer_parsing() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }

    #[test]
    fn ids() {
        assert_eq!(path_id("42"), Some(42));
        assert_eq!(path_id("007"), Some(7));
        for bad in ["", "-1", "+1", "1e3", "abc", "1.0", "9999999999999999"] {
            assert_eq!(path_id(bad), None, "{bad}");
        }
    }
}
