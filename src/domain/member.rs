//! Members of an account and their way in (account-area.md 1): roles, invites, sessions
//! and the ceremonies' challenges. Pure: the worker draws the random bytes and stores the
//! hashes.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::signing::{base64url, base64url_decode, hex, hmac_sha256};
use super::validation::{self as v, FieldErrors};

/// Owners manage members, tokens, webhooks and erasure; members see everything and change
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Owner,
    Member,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Member => "member",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "owner" => Some(Role::Owner),
            "member" => Some(Role::Member),
            _ => None,
        }
    }
}

/// An invite link works once and for this long.
pub const INVITE_MS: i64 = 7 * 24 * 3_600_000;
/// A session ends after this long without a request...
pub const SESSION_IDLE_MS: i64 = 12 * 3_600_000;
/// ... and this long after sign-in in any case.
pub const SESSION_MAX_MS: i64 = 7 * 24 * 3_600_000;
/// A session's `seen_at` is written at most this often (not one write per page).
pub const SESSION_TOUCH_MS: i64 = 60_000;
/// Failed sign-ins allowed per client address per minute.
pub const FAILED_SIGN_INS_PER_MINUTE: u32 = 10;

/// The session cookie: `__Host-` makes browsers insist on Secure, Path=/ and no Domain.
pub const SESSION_COOKIE: &str = "__Host-session";

/// Random bytes of an invite code, a session id and a challenge (at least 128 bits).
pub const SECRET_BYTES: usize = 32;

/// What a challenge is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Registering the first passkey through an invite (subject: the invite).
    Register,
    SignIn,
    /// A signed-in member adding a passkey (subject: the member).
    AddPasskey,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Register => "register",
            Purpose::SignIn => "sign_in",
            Purpose::AddPasskey => "add_passkey",
        }
    }

    /// A challenge is good for five minutes (account-area.md 1).
    pub fn lifetime_ms(self) -> i64 {
        300_000
    }
}

/// The text form of a secret (invite code, session id, challenge): base64url.
pub fn secret_text(random: &[u8; SECRET_BYTES]) -> String {
    base64url(random)
}

/// What is stored of an invite code or a session id: SHA-256, hex. The code is only in
/// the link, the id only in the cookie.
pub fn secret_hash(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// Whether `text` can be a secret this service made: base64url of [`SECRET_BYTES`].
pub fn is_secret(text: &str) -> bool {
    text.len() == 43 && base64url_decode(text).is_some_and(|b| b.len() == SECRET_BYTES)
}

/// The WebAuthn user handle of the member an invite makes: 16 bytes derived from the
/// invite with the service's key, so the options and the registration agree on it without
/// storing it, and nobody else can tell one member's handle from another's invite.
pub fn member_handle(key: &str, invite_id: i64) -> String {
    let mac = hmac_sha256(
        key.as_bytes(),
        format!("member-handle:{invite_id}").as_bytes(),
    );
    base64url(&mac[..16])
}

/// The session cookie that holds `id`; `max_age` seconds (0 clears it).
pub fn session_cookie(id: &str, max_age: i64) -> String {
    format!("{SESSION_COOKIE}={id}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age={max_age}")
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

/// An invite request, from the operator API or an owner's form: `{email, role}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InviteRequest {
    /// Trimmed and lowercased: one member per address.
    pub email: String,
    pub role: Role,
}

impl InviteRequest {
    pub fn parse(body: &Map<String, Value>) -> Result<InviteRequest, FieldErrors> {
        let mut errors = FieldErrors::new();
        let email = match body.get("email") {
            None | Some(Value::Null) => {
                errors.add("email", v::required("email"));
                None
            }
            Some(Value::String(s)) => {
                // ASCII only: addresses are compared as typed beyond that, and Unicode's
                // case tables would cost the module kilobytes for this alone.
                let e = s.trim().to_ascii_lowercase();
                if e.len() > 255 || !v::is_email(&e) {
                    errors.add("email", v::invalid_email("email"));
                    None
                } else {
                    Some(e)
                }
            }
            Some(_) => {
                errors.add("email", v::must_be_string("email"));
                None
            }
        };
        let role = match body.get("role") {
            None | Some(Value::Null) => Some(Role::Member),
            Some(Value::String(s)) => Role::parse(s).or_else(|| {
                errors.add("role", "The role must be owner or member.".to_string());
                None
            }),
            Some(_) => {
                errors.add("role", "The role must be owner or member.".to_string());
                None
            }
        };
        match (email, role) {
            (Some(email), Some(role)) if errors.is_empty() => Ok(InviteRequest { email, role }),
            _ => Err(errors),
        }
    }
}

/// A passkey's name as its member writes it: trimmed, 1 to 60 characters, no control
/// characters; `None` otherwise.
pub fn passkey_name(s: &str) -> Option<String> {
    let s = s.trim();
    let ok = !s.is_empty() && s.chars().count() <= 60 && !s.chars().any(char::is_control);
    ok.then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn invites_are_read_strictly() {
        let r = InviteRequest::parse(&obj(
            json!({"email": " Ada@Acme.example ", "role": "owner"}),
        ));
        assert_eq!(
            r,
            Ok(InviteRequest {
                email: "ada@acme.example".into(),
                role: Role::Owner
            })
        );
        let member = InviteRequest::parse(&obj(json!({"email": "b@acme.example"}))).unwrap();
        assert_eq!(member.role, Role::Member, "member unless said");
        let bad = InviteRequest::parse(&obj(json!({"email": "nope", "role": "admin"})));
        let e = bad.unwrap_err();
        assert!(e.has("email") && e.has("role"));
        assert!(InviteRequest::parse(&obj(json!({})))
            .unwrap_err()
            .has("email"));
    }

    #[test]
    fn secrets_are_stored_hashed_and_recognised() {
        let text = secret_text(&[7; SECRET_BYTES]);
        assert!(is_secret(&text));
        assert!(!is_secret("short"));
        assert!(!is_secret(&format!("{}=", &text[..42])));
        assert_eq!(secret_hash(&text).len(), 64);
        assert_ne!(secret_hash(&text), text);
    }

    #[test]
    fn handles_are_stable_per_invite_and_keyed() {
        assert_eq!(member_handle("k", 1), member_handle("k", 1));
        assert_ne!(member_handle("k", 1), member_handle("k", 2));
        assert_ne!(member_handle("k", 1), member_handle("other", 1));
        assert_eq!(base64url_decode(&member_handle("k", 1)).unwrap().len(), 16);
    }

    #[test]
    fn cookies() {
        let c = session_cookie("abc", 3600);
        assert!(c.starts_with("__Host-session=abc; Path=/; Secure; HttpOnly; SameSite=Lax"));
        assert_eq!(
            cookie("a=1; __Host-session=xyz; b=2", SESSION_COOKIE),
            Some("xyz")
        );
        assert_eq!(cookie("a=1", SESSION_COOKIE), None);
    }

    #[test]
    fn passkey_names() {
        assert_eq!(passkey_name("  MacBook "), Some("MacBook".into()));
        assert_eq!(passkey_name(""), None);
        assert_eq!(passkey_name("a\u{7}b"), None);
        assert_eq!(passkey_name(&"x".repeat(61)), None);
    }
}
