//! Idempotent writes (extensions.md 3): the key's rules, the request's fingerprint, and
//! what a repeated key gets.

use serde_json::{Map, Value};

use super::signing::{hex, hmac_sha256};
use super::validation::FieldErrors;

pub const HEADER: &str = "Idempotency-Key";
/// Kept responses live at least this long.
pub const KEEP_MS: i64 = 24 * 3_600_000;
/// A claim whose request never finished (its isolate died) frees its key after this long.
pub const ABANDONED_MS: i64 = 60_000;

/// 1 to 255 printable ASCII characters (0x20 to 0x7E).
pub fn parse_key(raw: &str) -> Result<&str, FieldErrors> {
    if (1..=255).contains(&raw.len()) && raw.bytes().all(|b| (0x20..=0x7e).contains(&b)) {
        Ok(raw)
    } else {
        Err(FieldErrors::one(
            HEADER,
            "The Idempotency-Key header must be 1 to 255 printable ASCII characters.".into(),
        ))
    }
}

/// HMAC-SHA-256 (keyed with the service's secret) of the body's canonical JSON: objects
/// with sorted keys, no whitespace, so key order and formatting do not make two equal
/// bodies differ. Keyed, because a body can be personal data (`POST /leads/erase
/// {email}`): a plain hash of an address is found again by hashing candidate addresses.
pub fn digest(key: &[u8], body: &Map<String, Value>) -> String {
    // serde_json's Map keeps keys sorted (no `preserve_order`), so this text is canonical.
    let text = serde_json::to_string(body).unwrap_or_default();
    hex(&hmac_sha256(key, text.as_bytes()))
}

/// The first request with a key, as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub method: String,
    pub path: String,
    pub digest: String,
    /// `None` while that request still runs.
    pub response: Option<KeptResponse>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptResponse {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// What a request whose key is already taken gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repeat {
    /// The kept response again, byte for byte.
    Replay(KeptResponse),
    /// Another method, path or body under the same key: 422.
    Mismatch,
    /// The first request still runs: 409.
    InFlight,
}

impl Kept {
    pub fn repeat(&self, method: &str, path: &str, digest: &str) -> Repeat {
        if self.method != method || self.path != path || self.digest != digest {
            return Repeat::Mismatch;
        }
        match &self.response {
            Some(r) => Repeat::Replay(r.clone()),
            None => Repeat::InFlight,
        }
    }
}

/// Whether a response is kept: 409, 429 and 5xx are not, so the client may retry.
pub fn keeps(status: u16) -> bool {
    status != 409 && status != 429 && status < 500
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_printable_ascii_up_to_255() {
        assert!(parse_key("a").is_ok());
        assert!(parse_key(&"k".repeat(255)).is_ok());
        assert!(parse_key("order 42 / retry ~").is_ok());
        for bad in ["", "\u{7f}", "tab\there", "ümlaut"] {
            assert!(parse_key(bad).is_err(), "{bad:?}");
        }
        assert!(parse_key(&"k".repeat(256)).is_err());
        let e = parse_key("").unwrap_err();
        assert!(e.has("Idempotency-Key"));
    }

    #[test]
    fn digests_ignore_key_order_and_whitespace() {
        let a = json!({"b": 1, "a": {"y": [1, 2], "x": null}});
        let b: Value = serde_json::from_str(r#"{ "a": {"x": null, "y": [1,2]}, "b": 1 }"#).unwrap();
        let obj = |v: Value| v.as_object().cloned().unwrap();
        assert_eq!(digest(b"k", &obj(a.clone())), digest(b"k", &obj(b)));
        assert_ne!(digest(b"k", &obj(a)), digest(b"k", &obj(json!({"b": 2}))));
    }

    #[test]
    fn repeats() {
        let response = KeptResponse {
            status: 201,
            content_type: "application/json".into(),
            body: "{}".into(),
        };
        let mut kept = Kept {
            method: "POST".into(),
            path: "/api/v1/cards".into(),
            digest: "d".into(),
            response: None,
        };
        assert_eq!(kept.repeat("POST", "/api/v1/cards", "d"), Repeat::InFlight);
        kept.response = Some(response.clone());
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards", "d"),
            Repeat::Replay(response)
        );
        assert_eq!(kept.repeat("POST", "/api/v1/cards", "e"), Repeat::Mismatch);
        assert_eq!(kept.repeat("PATCH", "/api/v1/cards", "d"), Repeat::Mismatch);
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards/1", "d"),
            Repeat::Mismatch
        );
    }

    #[test]
    fn what_is_kept() {
        for s in [200, 201, 404, 422] {
            assert!(keeps(s), "{s}");
        }
        for s in [409, 429, 500, 503] {
            assert!(!keeps(s), "{s}");
        }
    }
}
