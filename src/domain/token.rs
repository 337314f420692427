//! Personal access tokens: format, hashing and scopes (spec 5, product.md 3).

use sha2::{Digest, Sha256};

/// Recognisable prefix so leaked tokens can be found by secret scanners.
pub const TOKEN_PREFIX: &str = "dbc_";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    CardsRead,
    CardsWrite,
    LeadsRead,
    AnalyticsRead,
}

impl Scope {
    pub const ALL: [Scope; 4] = [
        Scope::CardsRead,
        Scope::CardsWrite,
        Scope::LeadsRead,
        Scope::AnalyticsRead,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::CardsRead => "cards:read",
            Scope::CardsWrite => "cards:write",
            Scope::LeadsRead => "leads:read",
            Scope::AnalyticsRead => "analytics:read",
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
    pub fn new(mut scopes: Vec<Scope>) -> Self {
        scopes.sort_by_key(|s| *s as u8);
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

    /// `cards:write` also grants card reads (spec 5.3).
    pub fn grants(&self, needed: Scope) -> bool {
        self.0.contains(&needed)
            || (needed == Scope::CardsRead && self.0.contains(&Scope::CardsWrite))
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

/// `dbc_` + 64 hex digits from 32 random bytes (256 bits).
pub fn format_token(random: &[u8; 32]) -> String {
    let mut s = String::with_capacity(TOKEN_PREFIX.len() + 64);
    s.push_str(TOKEN_PREFIX);
    s.push_str(&hex(random));
    s
}

/// Only this hash is stored. Tokens carry 256 bits of entropy, so a fast unsalted hash
/// is enough: there is nothing to brute-force.
pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Cheap shape check before any storage round trip.
pub fn looks_like_token(s: &str) -> bool {
    s.strip_prefix(TOKEN_PREFIX)
        .is_some_and(|rest| rest.len() == 64 && rest.bytes().all(|b| b.is_ascii_hexdigit()))
}

pub fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
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
    fn token_format_and_hash() {
        let t = format_token(&[0xab; 32]);
        assert_eq!(t.len(), 68);
        assert!(t.starts_with("dbc_abab"));
        assert!(looks_like_token(&t));
        assert!(!looks_like_token("dbc_xyz"));
        assert!(!looks_like_token(&t.replace("dbc_", "abc_")));
        assert_eq!(
            hash_token("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
