//! The envelopes of spec 4.1 and the success answer of a handler.

use serde::Serialize;
use worker::Response;

use super::error::ApiResult;
pub use super::json::json_response;
use crate::domain::pagination::Meta;

/// `{data}`: the single-resource envelope (spec 4.1).
#[derive(Serialize)]
pub struct Data<T> {
    pub data: T,
}

/// `{data, meta}`: the list envelope (spec 4.1).
#[derive(Serialize)]
pub struct Paged<T> {
    pub data: Vec<T>,
    pub meta: Meta,
}

/// A 200 with `body` as JSON.
pub fn ok<T: Serialize + ?Sized>(body: &T) -> ApiResult<Response> {
    Ok(json_response(200, body))
}
