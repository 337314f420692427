//! The published OpenAPI 3.1 description (spec 9.3), served without authentication.

use worker::{Headers, Response};

const DOCUMENT: &str = include_str!("../../openapi.json");

pub fn document() -> Response {
    let headers = Headers::new();
    let _ = headers.set("Content-Type", "application/json");
    let _ = headers.set("Cache-Control", "public, max-age=300");
    Response::builder()
        .with_headers(headers)
        .fixed(DOCUMENT.as_bytes().to_vec())
}
