//! Idempotent writes (extensions.md 3): the key's rules, the request's fingerprint, and
//! what a repeated key gets.

use serde_json::{Map, Value};

use super::signing::{hex, hmac_sha256, same};
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

/// What a write was sent: a JSON object, or bytes that are none (too large, not JSON, not
/// an object), which are refused (413, 422) and that refusal kept like any answer.
#[derive(Debug, Clone, Copy)]
pub enum Sent<'a> {
    Object(&'a Map<String, Value>),
    Unreadable(&'a [u8]),
}

/// The fingerprint of what was sent: an object's [`digest`], or the HMAC of the raw bytes
/// of a body that is none. The two never meet: an object's canonical text is an object,
/// and bytes that were one are not unreadable.
pub fn fingerprint(key: &[u8], sent: Sent) -> String {
    match sent {
        Sent::Object(body) => digest(key, body),
        Sent::Unreadable(bytes) => hex(&hmac_sha256(key, bytes)),
    }
}

/// The key that seals kept response bodies at rest, derived from `TOKEN_PEPPER` like the
/// webhook secrets' key but under its own label, so neither key opens the other's data.
pub fn sealing_key(pepper: &str) -> [u8; 32] {
    hmac_sha256(pepper.as_bytes(), b"idempotent responses v1")
}

/// The first request with a key, as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub method: String,
    pub path: String,
    pub digest: String,
    /// The token that made the request; `None` for a row kept before tokens were recorded
    /// (migration 0007), whose body is plaintext. With a token, the body is sealed.
    pub token_id: Option<i64>,
    /// Its answer holds a secret (decided by the route): replayed to its token only.
    pub holds_secret: bool,
    /// `None` while that request still runs.
    pub response: Option<KeptResponse>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptResponse {
    pub status: u16,
    /// [`KeptHeaders::text`] as stored: sealed like the body when the row names a token.
    /// Rows kept before `Location` was kept hold the bare content type, in plaintext.
    pub headers: String,
    pub body: String,
}

/// The headers of a kept answer that describe the resource (extensions.md 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptHeaders {
    pub content_type: String,
    /// Where a created resource is (201s).
    pub location: Option<String>,
}

impl KeptHeaders {
    /// `{"content_type":..,"location":..}`: a JSON object, which no content type is.
    pub fn text(&self) -> String {
        // A map to bytes, as error bodies are named (`http::edge`): no serializer of its own
        // in the wasm.
        let mut map = Map::new();
        map.insert("content_type".into(), self.content_type.clone().into());
        map.insert("location".into(), self.location.clone().into());
        let bytes = serde_json::to_vec(&map).unwrap_or_default();
        String::from_utf8(bytes).unwrap_or_default()
    }

    /// [`KeptHeaders::text`] read back, or the bare content type of an older row.
    pub fn read(text: &str) -> KeptHeaders {
        let field = |v: &Value, name: &str| v.get(name).and_then(Value::as_str).map(String::from);
        match serde_json::from_str::<Value>(text) {
            Ok(v) if v.is_object() => KeptHeaders {
                content_type: field(&v, "content_type")
                    .unwrap_or_else(|| "application/json".into()),
                location: field(&v, "location"),
            },
            _ => KeptHeaders {
                content_type: text.to_string(),
                location: None,
            },
        }
    }
}

/// What a request whose key is already taken gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repeat {
    /// The kept response again, byte for byte.
    Replay(KeptResponse),
    /// Another method, path or body under the same key: 422.
    Mismatch,
    /// A secret-holding answer and another token (or a row that names none): 422, so a
    /// token cannot read the secret another token was given.
    NotYours,
    /// The first request still runs: 409.
    InFlight,
}

impl Kept {
    /// What a request by token `token_id` with this key gets.
    pub fn repeat(&self, method: &str, path: &str, digest: &str, token_id: i64) -> Repeat {
        if self.method != method
            || self.path != path
            || !same(self.digest.as_bytes(), digest.as_bytes())
        {
            return Repeat::Mismatch;
        }
        if self.holds_secret && self.token_id != Some(token_id) {
            return Repeat::NotYours;
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
            headers: "application/json".into(),
            body: "{}".into(),
        };
        let mut kept = Kept {
            method: "POST".into(),
            path: "/api/v1/cards".into(),
            digest: "d".into(),
            token_id: Some(1),
            holds_secret: false,
            response: None,
        };
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards", "d", 1),
            Repeat::InFlight
        );
        kept.response = Some(response.clone());
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards", "d", 1),
            Repeat::Replay(response.clone())
        );
        // An answer without a secret replays to any token of the account.
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards", "d", 2),
            Repeat::Replay(response)
        );
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards", "e", 1),
            Repeat::Mismatch
        );
        assert_eq!(
            kept.repeat("PATCH", "/api/v1/cards", "d", 1),
            Repeat::Mismatch
        );
        assert_eq!(
            kept.repeat("POST", "/api/v1/cards/1", "d", 1),
            Repeat::Mismatch
        );
    }

    #[test]
    fn a_secret_is_replayed_to_its_token_only() {
        let response = KeptResponse {
            status: 201,
            headers: "application/json".into(),
            body: "sealed".into(),
        };
        let mut kept = Kept {
            method: "POST".into(),
            path: "/api/v1/webhooks".into(),
            digest: "d".into(),
            token_id: Some(7),
            holds_secret: true,
            response: Some(response.clone()),
        };
        let again = |k: &Kept, token| k.repeat("POST", "/api/v1/webhooks", "d", token);
        assert_eq!(again(&kept, 7), Repeat::Replay(response));
        assert_eq!(again(&kept, 8), Repeat::NotYours);
        // Another body is a mismatch whoever sends it.
        assert_eq!(
            kept.repeat("POST", "/api/v1/webhooks", "e", 8),
            Repeat::Mismatch
        );
        // Still running: another token learns it will never get this answer.
        kept.response = None;
        assert_eq!(again(&kept, 7), Repeat::InFlight);
        assert_eq!(again(&kept, 8), Repeat::NotYours);
        // Kept before tokens were recorded: no token can show it made the request.
        kept.token_id = None;
        assert_eq!(again(&kept, 7), Repeat::NotYours);
    }

    #[test]
    fn the_sealing_key_is_its_own() {
        let key = sealing_key("pepper");
        assert_eq!(key, sealing_key("pepper"));
        assert_ne!(key, sealing_key("other pepper"));
        assert_ne!(key, super::super::webhook::sealing_key("pepper"));
    }

    #[test]
    fn kept_headers_read_back_and_older_rows_still_read() {
        let created = KeptHeaders {
            content_type: "application/json".into(),
            location: Some("/api/v1/cards/7".into()),
        };
        assert_eq!(KeptHeaders::read(&created.text()), created);
        let plain = KeptHeaders {
            location: None,
            ..created.clone()
        };
        assert_eq!(KeptHeaders::read(&plain.text()), plain);
        // Before Location was kept, the column held the content type alone.
        assert_eq!(KeptHeaders::read("application/json"), plain);
        assert_eq!(
            KeptHeaders::read("text/plain; charset=utf-8").content_type,
            "text/plain; charset=utf-8"
        );
    }

    #[test]
    fn unreadable_bodies_have_fingerprints_of_their_own() {
        let empty = Map::new();
        let object = fingerprint(b"k", Sent::Object(&empty));
        assert_eq!(object, digest(b"k", &empty), "objects keep their digest");
        let a = fingerprint(b"k", Sent::Unreadable(b"{\"first_name\": "));
        let b = fingerprint(b"k", Sent::Unreadable(b"[1]"));
        assert_ne!(a, b);
        assert_ne!(a, object);
        assert_eq!(a, fingerprint(b"k", Sent::Unreadable(b"{\"first_name\": ")));
        assert_ne!(
            a,
            fingerprint(b"other key", Sent::Unreadable(b"{\"first_name\": "))
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
