//! Durable Objects, one folder each: the class in `mod.rs` and its typed client in
//! `client.rs`, which callers use instead of addressing the object themselves.

pub mod analytics;
pub mod rate_limiter;
pub mod throttle;

use worker::web_sys;
use worker::{Request, Result};

/// A `POST` to an object with a text body. Built on `web_sys` directly: worker's
/// `RequestInit` also converts `cf` properties, code (about 8 KB of wasm) that calls
/// between our own objects never need.
pub(crate) fn post(url: &str, body: &str) -> Result<Request> {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&wasm_bindgen::JsValue::from_str(body));
    let req = web_sys::Request::new_with_str_and_init(url, &init).map_err(|e| {
        worker::Error::JsError(e.as_string().unwrap_or_else(|| "bad request".into()))
    })?;
    Ok(req.into())
}
