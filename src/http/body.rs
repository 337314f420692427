//! Reading request bodies without any fallible path that could turn a client mistake into
//! a 500.

use serde_json::{Map, Value};
use worker::Request;

use super::error::{ApiError, ApiResult};
use crate::domain::validation::FieldErrors;

/// Bodies above this are refused before parsing.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The body as a JSON object. An empty body is an empty object (so required-field errors
/// follow); anything unparsable or not an object is a 422 on `body`.
pub async fn json_object(req: &mut Request) -> ApiResult<Map<String, Value>> {
    object_of(&req.bytes().await?)
}

/// A body already read, as [`json_object`] takes it: 413 above [`MAX_BODY_BYTES`].
pub fn object_of(bytes: &[u8]) -> ApiResult<Map<String, Value>> {
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge);
    }
    parse_object(bytes)
}

/// Parses a JSON object body; see [`json_object`].
pub fn parse_object(bytes: &[u8]) -> ApiResult<Map<String, Value>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => {
            Err(FieldErrors::one("body", "The request body must be a JSON object.".into()).into())
        }
        Err(e) => Err(FieldErrors::one(
            "body",
            format!("The request body is not valid JSON: {e}."),
        )
        .into()),
    }
}
