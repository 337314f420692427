//! The published OpenAPI 3.1 description (spec 9.3), served without authentication. The
//! document is in KV (`openapi.mjs`, `build.rs`), not in the upload; its strong ETag is the
//! content hash that names its key.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{web_sys, Env, Headers, Request, Response};

use crate::http::error::{ApiError, ApiResult};
use crate::store::analytics::NAMESPACE;

/// `openapi:` and 16 hex digits of the document's SHA-256 (`build.rs`).
const KEY: &str = env!("OPENAPI_KEY");

#[wasm_bindgen(module = "/src/api/openapi.mjs")]
extern "C" {
    fn openapi_response(
        kv: &JsValue,
        key: &str,
        headers: &web_sys::Headers,
        with_body: bool,
    ) -> js_sys::Promise;
}

/// GET or HEAD, tagged; the router answers a matching `If-None-Match` with a 304
/// (`edge::conditional`), as for every conditional GET.
pub async fn document(env: &Env, req: &Request) -> ApiResult<Response> {
    let headers = Headers::new();
    headers.set("Content-Type", "application/json")?;
    headers.set("ETag", &format!("\"{}\"", &KEY["openapi:".len()..]))?;
    // `Cache-Control: private, no-cache` is set by the router on every /api/v1 answer:
    // revalidated on every use (the ETag makes that a 304), so a deploy is seen at once.
    let with_body = req.inner().method() != "HEAD";
    let kv =
        js_sys::Reflect::get(env, &JsValue::from_str(NAMESPACE)).map_err(worker::Error::from)?;
    let answer = JsFuture::from(openapi_response(&kv, KEY, &headers.0, with_body))
        .await
        .map_err(worker::Error::from)?;
    match answer.dyn_into::<web_sys::Response>() {
        Ok(response) => Ok(Response::from(response)),
        Err(_) => Err(ApiError::Misconfigured(format!(
            "KV namespace {NAMESPACE} holds no {KEY}: store the OpenAPI document with \
             scripts/openapi-kv.sh (deploy.py does before each upload)"
        ))),
    }
}
