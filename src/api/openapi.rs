//! The published OpenAPI 3.1 description (spec 9.3), served without authentication. The
//! document is bundled into the worker's JavaScript (`openapi.mjs`), not the wasm; only its
//! strong ETag is computed here, once per isolate.

use std::cell::OnceCell;

use wasm_bindgen::prelude::wasm_bindgen;
use worker::{web_sys, Headers, Request, Response};

use crate::domain::conditional::strong_etag;
use crate::http::error::ApiResult;

#[wasm_bindgen(module = "/src/api/openapi.mjs")]
extern "C" {
    fn openapi_text() -> String;
    fn openapi_response(headers: &web_sys::Headers, with_body: bool) -> web_sys::Response;
}

thread_local! {
    static ETAG: OnceCell<String> = const { OnceCell::new() };
}

fn etag() -> String {
    ETAG.with(|tag| {
        tag.get_or_init(|| strong_etag(openapi_text().as_bytes()))
            .clone()
    })
}

/// GET or HEAD, tagged; the router answers a matching `If-None-Match` with a 304
/// (`edge::conditional`), as for every conditional GET.
pub fn document(req: &Request) -> ApiResult<Response> {
    let headers = Headers::new();
    headers.set("Content-Type", "application/json")?;
    headers.set("ETag", &etag())?;
    // `Cache-Control: private, no-cache` is set by the router on every /api/v1 answer:
    // revalidated on every use (the ETag makes that a 304), so a deploy is seen at once.
    let with_body = req.inner().method() != "HEAD";
    Ok(Response::from(openapi_response(&headers.0, with_body)))
}
