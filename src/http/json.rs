//! The JSON response every layer above builds on; it depends on nothing else here (but
//! the pure domain's entity tag).

use serde::Serialize;
use worker::{Headers, Response};

use crate::domain::conditional::strong_etag;

/// Serialises `body`; a body that cannot be serialised is logged and answered as a 500
/// rather than unwinding.
pub fn json_response<T: Serialize + ?Sized>(status: u16, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => json_text_response(status, bytes),
        Err(e) => {
            worker::console_error!("serialising a response failed: {e}");
            json_text_response(500, br#"{"message":"Server error."}"#.to_vec())
        }
    }
}

/// A SCIM answer (RFC 7644 3.1: `application/scim+json`), never tagged: the service
/// offers no ETags (its ServiceProviderConfig says so).
pub fn scim_response(status: u16, body: &serde_json::Value) -> Response {
    let headers = Headers::new();
    let _ = headers.set("Content-Type", "application/scim+json");
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    Response::builder()
        .with_status(status)
        .with_headers(headers)
        .fixed(bytes)
}

/// A response whose JSON text is already made (by serde, or by SQLite: `store::views`).
pub fn json_text_response(status: u16, bytes: Vec<u8>) -> Response {
    let headers = Headers::new();
    let _ = headers.set("Content-Type", "application/json");
    // Tagged here, while the bytes are in wasm memory: reading them back out of the
    // Response later to tag them copied the body twice. Routes that are not conditional
    // GETs drop the header (`edge::conditional`).
    if status == 200 {
        let _ = headers.set("ETag", &strong_etag(&bytes));
    }
    Response::builder()
        .with_status(status)
        .with_headers(headers)
        .fixed(bytes)
}
