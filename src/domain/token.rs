//! Personal access tokens: format, hashing and scopes (spec 5, product.md 3).

use sha2::{Digest, Sha256};

pub use super::signing::hex;
use super::signing::{hmac_sha256, same};

/// Recognisable prefix so leaked tokens can be found by secret scanners.
pub const TOKEN_PREFIX: &str = "dbc_";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    CardsRead,
    CardsWrite,
    LeadsRead,
    AnalyticsRead,
    /// Webhook subscriptions (extensions.md 4); implied by no other scope.
    WebhooksWrite,
    /// Erasing leads (extensions.md 8); implied by no other scope.
    LeadsWrite,
    /// The SCIM 2.0 service at `/scim/v2` (provisioning.md 2); implied by no other scope.
    Scim,
    /// Company templates (teams.md 1); `templates:write` grants the reads too; implied by
    /// no other scope.
    TemplatesRead,
    TemplatesWrite,
}

impl Scope {
    pub const ALL: [Scope; 9] = [
        Scope::CardsRead,
        Scope::CardsWrite,
        Scope::LeadsRead,
        Scope::AnalyticsRead,
        Scope::WebhooksWrite,
        Scope::LeadsWrite,
        Scope::Scim,
        Scope::TemplatesRead,
        Scope::TemplatesWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::CardsRead => "cards:read",
            Scope::CardsWrite => "cards:write",
            Scope::LeadsRead => "leads:read",
            Scope::AnalyticsRead => "analytics:read",
            Scope::WebhooksWrite => "webhooks:write",
            Scope::LeadsWrite => "leads:write",
            Scope::Scim => "scim",
            Scope::TemplatesRead => "templates:read",
            Scope::TemplatesWrite => "templates:write",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// The scopes a token holds, stored space-separated in D1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// Sorted (in declaration order) and unique.
    pub fn new(mut scopes: Vec<Scope>) -> Self {
        scopes.sort_unstable_by_key(|s| *s as u8);
        scopes.dedup();
        Scopes(scopes)
    }

    /// Unknown words are skipped: a scope retired later must not break old tokens.
    pub fn parse_stored(s: &str) -> Self {
        Self::new(s.split_whitespace().filter_map(Scope::parse).collect())
    }

    pub fn to_stored(&self) -> String {
        self.names().join(" ")
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|s| s.as_str()).collect()
    }

    /// `cards:write` also grants card reads (spec 5.3), `templates:write` template reads.
    pub fn grants(&self, needed: Scope) -> bool {
        self.0.contains(&needed)
            || (needed == Scope::CardsRead && self.0.contains(&Scope::CardsWrite))
            || (needed == Scope::TemplatesRead && self.0.contains(&Scope::TemplatesWrite))
    }
}

/// An API token as the operator API lists it; the plaintext is never stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub id: i64,
    pub name: String,
    pub scopes: Scopes,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

/// Hex digits of the random part (192 bits) and of the checksum (64 bits): 64 in all, the
/// length integrators' token checks (and the JavaScript peer's) expect of `dbc_` tokens.
const RANDOM_HEX: usize = 48;
const CHECKSUM_HEX: usize = 16;
/// Random bytes of a token.
pub const RANDOM_BYTES: usize = RANDOM_HEX / 2;

/// The keyed checksum of a token's random part.
fn checksum(pepper: &str, random_hex: &str) -> String {
    hex(&hmac_sha256(pepper.as_bytes(), random_hex.as_bytes())[..CHECKSUM_HEX / 2])
}

/// `dbc_` + 48 hex digits from 24 random bytes + 16 hex digits of keyed checksum
/// (`TOKEN_PEPPER`), so a token this service did not mint is refused before any storage.
pub fn format_token(random: &[u8; RANDOM_BYTES], pepper: &str) -> String {
    let random_hex = hex(random);
    let mut s = String::with_capacity(TOKEN_PREFIX.len() + RANDOM_HEX + CHECKSUM_HEX);
    s.push_str(TOKEN_PREFIX);
    s.push_str(&random_hex);
    s.push_str(&checksum(pepper, &random_hex));
    s
}

/// Only this hash is stored. Tokens carry 256 bits of entropy, so a fast unsalted hash
/// is enough: there is nothing to brute-force.
pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether `s` is a token minted with `pepper`: its shape, then its checksum, compared in
/// constant time. Costs no storage round trip.
pub fn is_minted(s: &str, pepper: &str) -> bool {
    let Some(rest) = s.strip_prefix(TOKEN_PREFIX) else {
        return false;
    };
    if rest.len() != RANDOM_HEX + CHECKSUM_HEX || !rest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let (random_hex, given) = rest.split_at(RANDOM_HEX);
    let expected = checksum(pepper, random_hex);
    same(expected.as_bytes(), given.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_grants_read_but_not_the_reverse() {
        let w = Scopes::parse_stored("cards:write");
        assert!(w.grants(Scope::CardsRead) && w.grants(Scope::CardsWrite));
        assert!(!w.grants(Scope::LeadsRead));
        let r = Scopes::parse_stored("cards:read bogus");
        assert!(r.grants(Scope::CardsRead) && !r.grants(Scope::CardsWrite));
        assert_eq!(r.to_stored(), "cards:read");
    }

    #[test]
    fn scopes_are_deduplicated_in_canonical_order() {
        let s = Scopes::new(vec![
            Scope::AnalyticsRead,
            Scope::CardsRead,
            Scope::AnalyticsRead,
        ]);
        assert_eq!(s.names(), ["cards:read", "analytics:read"]);
    }

    #[test]
    fn token_format_checksum_and_hash() {
        let t = format_token(&[0xab; RANDOM_BYTES], "pepper");
        assert_eq!(t.len(), 4 + 64);
        assert!(t.starts_with("dbc_abab"));
        assert!(is_minted(&t, "pepper"));
        assert!(!is_minted(&t, "other pepper"), "another key");
        let mut forged = t.clone();
        forged.replace_range(10..11, if &t[10..11] == "0" { "1" } else { "0" });
        assert!(!is_minted(&forged, "pepper"), "random part changed");
        assert!(!is_minted(&t[..t.len() - 1], "pepper"));
        assert!(
            !is_minted(&format!("{t}00"), "pepper"),
            "the 80-digit format of before"
        );
        assert!(!is_minted("dbc_xyz", "pepper"));
        assert!(!is_minted(&t.replace("dbc_", "abc_"), "pepper"));
        assert!(
            !is_minted(&format!("dbc_{}", "ab".repeat(32)), "pepper"),
            "64 hex digits without a valid checksum are refused"
        );
        assert_eq!(
            hash_token("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
