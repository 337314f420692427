//! The account area's stylesheet and its one script, served from the worker (no request
//! leaves the service) under a name that changes with their content, so browsers keep
//! them for a year and never use a stale one. What is embedded is build.rs's output:
//! `src/area/assets/` minified by esbuild (the sources as they are when no esbuild is
//! installed), so the version and the ETag are digests of the bytes served.

use std::sync::OnceLock;

use worker::{Headers, Request, Response};

use crate::domain::conditional::strong_etag;
use crate::domain::signing::hex;
use crate::http::error::{ApiError, ApiResult};

pub const CSS: &str = "app.css";
pub const JS: &str = "app.js";

const CSS_TEXT: &str = include_str!(concat!(env!("OUT_DIR"), "/app.css"));
const JS_TEXT: &str = include_str!(concat!(env!("OUT_DIR"), "/app.js"));

fn text(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        CSS => Some((CSS_TEXT, "text/css; charset=utf-8")),
        JS => Some((JS_TEXT, "text/javascript; charset=utf-8")),
        _ => None,
    }
}

/// A short digest of both files: their URLs change when either does.
fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        use sha2::{Digest, Sha256};
        let digest = Sha256::new()
            .chain_update(CSS_TEXT)
            .chain_update(JS_TEXT)
            .finalize();
        hex(&digest[..6])
    })
}

/// The URL of an asset, with its version.
pub fn href(name: &str) -> String {
    format!("/app/assets/{name}?v={}", version())
}

pub fn serve(name: &str, req: &Request) -> ApiResult<Response> {
    let (body, content_type) = text(name).ok_or(ApiError::NotFound)?;
    let h = Headers::new();
    let _ = h.set("Content-Type", content_type);
    let _ = h.set("X-Content-Type-Options", "nosniff");
    let _ = h.set("Cache-Control", "public, max-age=31536000, immutable");
    let tag = strong_etag(body.as_bytes());
    let _ = h.set("ETag", &tag);
    let matched = req
        .headers()
        .get("If-None-Match")
        .ok()
        .flatten()
        .is_some_and(|t| t == tag);
    if matched {
        return Ok(Response::builder().with_status(304).with_headers(h).empty());
    }
    Ok(Response::builder()
        .with_headers(h)
        .fixed(body.as_bytes().to_vec()))
}
