//! What every `/api/v1` answer carries for browsers, caches and operators
//! (extensions.md 6): CORS, strong ETags with 304s, `Cache-Control`, and the request id in
//! error bodies.

use worker::{Headers, Response};

use crate::domain::conditional::none_match;

/// Request headers a browser may send cross-origin.
const ALLOW_HEADERS: &str =
    "Authorization, Content-Type, Idempotency-Key, If-None-Match, X-D1-Bookmark";
const ALLOW_METHODS: &str = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
/// Response headers a browser script may read.
const EXPOSE_HEADERS: &str = "ETag, X-Request-Id, Server-Timing, X-D1-Bookmark, \
X-RateLimit-Limit, X-RateLimit-Remaining, RateLimit, RateLimit-Policy, Retry-After, \
Idempotent-Replayed, Location";

/// `OPTIONS` on any `/api/v1` path: 204, no authentication. Bearer tokens, never cookies,
/// so any origin may call and no credentials are allowed.
pub fn preflight() -> Response {
    let h = Headers::new();
    let _ = h.set("Access-Control-Allow-Methods", ALLOW_METHODS);
    let _ = h.set("Access-Control-Allow-Headers", ALLOW_HEADERS);
    let _ = h.set("Access-Control-Max-Age", "86400");
    cors(Response::builder().with_status(204).with_headers(h).empty())
}

/// Every API answer may be read cross-origin.
pub fn cors(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    let _ = h.set("Access-Control-Allow-Origin", "*");
    let _ = h.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    resp
}

/// Every `/api/v1` answer (errors, 304s and preflights included) is for its token alone
/// and may hold personal data: no shared cache may keep it, and a browser keeps it only
/// to revalidate with its `ETag` (`no-cache` still allows the 304s of [`conditional`]).
/// openapi.json gets it too: it is public, but one rule for the whole surface is simpler
/// to trust than a list of exceptions, and its ETag makes revalidation cheap.
pub fn private(mut resp: Response) -> Response {
    let _ = resp.headers_mut().set("Cache-Control", "private, no-cache");
    resp
}

/// Rebuilds an answer with another body (and status), keeping its headers.
fn rebuilt(status: u16, headers: Headers, body: Option<Vec<u8>>) -> Response {
    let builder = Response::builder()
        .with_status(status)
        .with_headers(headers);
    match body {
        Some(bytes) => builder.fixed(bytes),
        None => builder.empty(),
    }
}

/// A 200 carries the strong `ETag` its JSON was tagged with (`http::json`); when
/// `If-None-Match` names it, the answer is a 304 with the same headers and no body.
pub fn conditional(resp: Response, if_none_match: Option<&str>) -> Response {
    let Some(if_none_match) = if_none_match else {
        return resp;
    };
    let etag = resp.headers().get("ETag").ok().flatten();
    match etag {
        Some(etag) if resp.status_code() == 200 && none_match(if_none_match, &etag) => {
            let headers = resp.headers().clone();
            let _ = headers.delete("Content-Type");
            rebuilt(304, headers, None)
        }
        _ => resp,
    }
}

/// Answers that are not conditional GETs carry no entity tag.
pub fn untagged(mut resp: Response) -> Response {
    let _ = resp.headers_mut().delete("ETag");
    resp
}

/// A JSON error body with `request_id`. A body that names a request already keeps its
/// name: a kept idempotent answer replays byte for byte, naming the request that made it.
pub fn named_error(bytes: Vec<u8>, request_id: &str) -> Vec<u8> {
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(mut body)) if !body.contains_key("request_id") => {
            body.insert("request_id".into(), request_id.into());
            serde_json::to_vec(&body).unwrap_or(bytes)
        }
        _ => bytes,
    }
}

/// Names the request in its answer (`X-Request-Id`) and, for a JSON error, in the body
/// (`request_id`), so a report from an integrator leads to the log lines of that request.
pub async fn identified(mut resp: Response, request_id: &str) -> Response {
    let _ = resp.headers_mut().set("X-Request-Id", request_id);
    // The status first: it is in wasm, the content type is a call out.
    if resp.status_code() < 400 {
        return resp;
    }
    let is_json = resp
        .headers()
        .get("Content-Type")
        .ok()
        .flatten()
        .is_some_and(|t| t.starts_with("application/json"));
    if !is_json {
        return resp;
    }
    let status = resp.status_code();
    let Ok(bytes) = resp.bytes().await else {
        return resp;
    };
    let headers = resp.headers().clone();
    rebuilt(status, headers, Some(named_error(bytes, request_id)))
}

#[cfg(test)]
mod tests {
    use super::named_error;

    #[test]
    fn an_error_body_is_named_once() {
        let named = named_error(br#"{"message":"Not found."}"#.to_vec(), "req_1");
        assert_eq!(named, br#"{"message":"Not found.","request_id":"req_1"}"#);
        // A kept answer names the request that made it; a replay keeps that name.
        assert_eq!(named_error(named.clone(), "req_2"), named);
        assert_eq!(named_error(b"not json".to_vec(), "req_1"), b"not json");
    }
}
