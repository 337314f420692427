//! HMAC-SHA-256 (RustCrypto's `hmac`), the one constant-time comparison of secrets, and
//! hex and base64: the primitives behind token checksums and webhook signatures
//! (Standard Webhooks). The base64 and base64url here are held to the `base64` crate by
//! `domain/oracle.rs`.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// HMAC-SHA-256 (RFC 2104).
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    hmac_sha256_parts(key, &[message])
}

/// HMAC-SHA-256 of the concatenation of `parts`, without building it.
pub fn hmac_sha256_parts(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(key) else {
        unreachable!("HMAC accepts keys of every length")
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// Whether two secrets or MACs are equal, in time that does not depend on where they
/// differ (only on their lengths): every comparison of a secret in this crate uses it.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
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

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/// base64url's (RFC 4648 section 5): WebAuthn's JSON forms carry bytes in it.
const URL_ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Standard base64 with padding (RFC 4648 section 4).
pub fn base64(bytes: &[u8]) -> String {
    encode(bytes, ALPHABET, true)
}

/// Decodes standard base64 (padding optional); `None` for anything else.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    decode(s.trim_end_matches('='), ALPHABET).map(|(out, _)| out)
}

/// base64url without padding (RFC 4648 section 5), as WebAuthn's JSON forms write bytes.
pub fn base64url(bytes: &[u8]) -> String {
    encode(bytes, URL_ALPHABET, false)
}

/// Decodes base64url without padding, canonical only: no `=`, and the bits after the last
/// whole byte are zero, so each byte string has exactly one spelling.
pub fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    decode(s, URL_ALPHABET).and_then(|(out, rest)| (rest == 0).then_some(out))
}

fn encode(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(alphabet[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of `s` and the value of the bits left over after the last whole byte.
fn decode(s: &str, alphabet: &[u8; 64]) -> Option<(Vec<u8>, u32)> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = alphabet.iter().position(|&a| a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // A lone trailing character carries no whole byte.
    (bits < 6).then_some((out, acc & ((1 << bits) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        assert_eq!(
            hex(&hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Keys longer than a block are hashed first (RFC 4231 test case 6).
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert_eq!(
            hmac_sha256_parts(b"k", &[b"a.", b"b"]),
            hmac_sha256(b"k", b"a.b")
        );
    }

    #[test]
    fn same_compares_whole_values() {
        assert!(same(b"", b""));
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"xbc"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"ab", b"abc"));
    }

    #[test]
    fn base64_round_trips_rfc_4648_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(base64_decode(encoded).unwrap(), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(base64_decode(&base64(&all)).unwrap(), all);
        assert_eq!(base64_decode("Zm9v!"), None);
        assert_eq!(base64_decode("Z"), None);
    }

    #[test]
    fn base64url_is_unpadded_and_canonical() {
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("-_8"), Some(vec![0xfb, 0xff]));
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url_decode(""), Some(vec![]));
        // Padding, the standard alphabet and nonzero trailing bits are other spellings.
        assert_eq!(base64url_decode("Zg=="), None);
        assert_eq!(base64url_decode("+/8"), None);
        assert_eq!(base64url_decode("Zh"), None);
        assert_eq!(base64url_decode("Zg"), Some(b"f".to_vec()));
    }
}
