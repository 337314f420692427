//! Conditional GETs (extensions.md 6): a strong entity tag computed from the exact bytes a
//! response would carry, and `If-None-Match` matching.

use sha2::{Digest, Sha256};

use super::signing::hex;

/// `"` + 128 bits of the body's SHA-256 in hex + `"`: equal bodies, equal tags, whatever
/// the time.
pub fn strong_etag(body: &[u8]) -> String {
    format!("\"{}\"", &hex(&Sha256::digest(body))[..32])
}

/// Whether an `If-None-Match` value names `etag` (weak comparison, as RFC 9110 asks for
/// this header: a `W/` prefix is ignored), or is `*`.
pub fn none_match(if_none_match: &str, etag: &str) -> bool {
    if_none_match.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate.strip_prefix("W/").unwrap_or(candidate) == etag
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_follow_the_bytes() {
        let a = strong_etag(b"{\"data\":1}");
        assert_eq!(a, strong_etag(b"{\"data\":1}"));
        assert_ne!(a, strong_etag(b"{\"data\":2}"));
        assert!(a.starts_with('"') && a.ends_with('"') && a.len() == 34);
    }

    #[test]
    fn if_none_match_lists_and_weak_forms() {
        let tag = strong_etag(b"x");
        assert!(none_match(&tag, &tag));
        assert!(none_match(&format!("\"other\", W/{tag}"), &tag));
        assert!(none_match("*", &tag));
        assert!(!none_match("\"other\"", &tag));
        assert!(!none_match("", &tag));
    }
}
