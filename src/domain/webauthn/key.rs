//! Credential public keys (COSE, RFC 9052 and RFC 8230) in the forms WebCrypto imports,
//! and ECDSA signatures from WebAuthn's DER into WebCrypto's r||s.

use super::cbor::{self, Value};
use super::CeremonyError;
use crate::domain::signing::base64url;

/// COSE algorithm ids: the two the creation options offer.
pub const ES256: i128 = -7;
pub const RS256: i128 = -257;

/// A credential's public key. Its stored form is the COSE_Key as the authenticator sent
/// it at registration ([`super::NewCredential::public_key`]); [`PublicKey::from_cose`]
/// reads it back at each sign-in, so what is kept is the standard form any COSE tool reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublicKey {
    /// ECDSA on P-256 with SHA-256 (COSE alg -7): the point's coordinates.
    Es256 { x: [u8; 32], y: [u8; 32] },
    /// RSASSA-PKCS1-v1_5 with SHA-256 (COSE alg -257): modulus and public exponent,
    /// big-endian, without leading zero bytes (as JWK wants them).
    Rs256 { n: Vec<u8>, e: Vec<u8> },
}

/// What `crypto.subtle` needs, as JSON text for `JSON.parse`:
/// `importKey("jwk", jwk, algorithm, false, ["verify"])`, then `verify(algorithm, key,
/// signature, message)`. One algorithm object serves both calls (each reads only its own
/// members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebCryptoKey {
    pub jwk: String,
    pub algorithm: &'static str,
}

impl PublicKey {
    /// Reads a COSE_Key (the whole of `cose`). Keys of an algorithm other than ES256 and
    /// RS256, another curve, or an RSA modulus outside 256-512 bytes (2048-4096 bits) are
    /// unsupported.
    pub fn from_cose(cose: &[u8]) -> Result<PublicKey, CeremonyError> {
        let key = match cbor::decode(cose) {
            Ok((key @ Value::Map(_), used)) if used == cose.len() => key,
            _ => return Err(CeremonyError::Malformed),
        };
        let int = |label| key.get(&Value::Int(label)).and_then(Value::int);
        let bytes = |label| key.get(&Value::Int(label)).and_then(Value::bytes);
        // Labels: 1 kty, 3 alg; EC2: -1 crv, -2 x, -3 y; RSA: -1 n, -2 e.
        match (int(1), int(3)) {
            (Some(2), Some(ES256)) if int(-1) == Some(1) => {
                let coordinate = |label| bytes(label).and_then(|b| b.try_into().ok());
                match (coordinate(-2), coordinate(-3)) {
                    (Some(x), Some(y)) => Ok(PublicKey::Es256 { x, y }),
                    _ => Err(CeremonyError::Malformed),
                }
            }
            (Some(3), Some(RS256)) => {
                let (Some(n), Some(e)) = (bytes(-1), bytes(-2)) else {
                    return Err(CeremonyError::Malformed);
                };
                let (n, e) = (unsigned(n), unsigned(e));
                if !(256..=512).contains(&n.len()) || e.is_empty() {
                    return Err(CeremonyError::UnsupportedAlgorithm);
                }
                Ok(PublicKey::Rs256 {
                    n: n.to_vec(),
                    e: e.to_vec(),
                })
            }
            _ => Err(CeremonyError::UnsupportedAlgorithm),
        }
    }

    /// The JWK and algorithm WebCrypto imports and verifies with.
    pub fn webcrypto(&self) -> WebCryptoKey {
        match self {
            PublicKey::Es256 { x, y } => WebCryptoKey {
                jwk: jwk(r#"{"kty":"EC","crv":"P-256""#, [("x", x), ("y", y)]),
                algorithm: r#"{"name":"ECDSA","namedCurve":"P-256","hash":"SHA-256"}"#,
            },
            PublicKey::Rs256 { n, e } => WebCryptoKey {
                jwk: jwk(r#"{"kty":"RSA","alg":"RS256""#, [("n", n), ("e", e)]),
                algorithm: r#"{"name":"RSASSA-PKCS1-v1_5","hash":"SHA-256"}"#,
            },
        }
    }

    /// An assertion's signature in the form WebCrypto verifies: r||s for ECDSA, the
    /// PKCS #1 v1.5 signature as it is (as long as the modulus) for RSA.
    pub fn signature(&self, sig: &[u8]) -> Result<Vec<u8>, CeremonyError> {
        match self {
            PublicKey::Es256 { .. } => der_to_raw(sig).map(|raw| raw.to_vec()),
            PublicKey::Rs256 { n, .. } if sig.len() == n.len() => Ok(sig.to_vec()),
            PublicKey::Rs256 { .. } => Err(CeremonyError::BadSignature),
        }
    }
}

/// A JWK's text: `head` (an object left open) and two base64url members, which need no
/// JSON escaping.
fn jwk(head: &str, members: [(&str, &[u8]); 2]) -> String {
    let mut out = String::from(head);
    for (name, bytes) in members {
        out.push_str(",\"");
        out.push_str(name);
        out.push_str("\":\"");
        out.push_str(&base64url(bytes));
        out.push('"');
    }
    out.push('}');
    out
}

/// `bytes` without leading zero bytes.
fn unsigned(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|&&b| b == 0).count();
    &bytes[zeros..]
}

/// An ECDSA P-256 signature from DER (`SEQUENCE { INTEGER r, INTEGER s }`, what WebAuthn
/// sends) into the 64 bytes r||s WebCrypto verifies. Strict DER: lengths exact and short
/// form, integers positive, nonzero and without a leading zero byte they do not need.
pub fn der_to_raw(der: &[u8]) -> Result<[u8; 64], CeremonyError> {
    let bad = CeremonyError::BadSignature;
    // At most 2 + 2 * 35 bytes: the length always takes the short form (below 0x80).
    let [0x30, len, body @ ..] = der else {
        return Err(bad);
    };
    if usize::from(*len) != body.len() || *len >= 0x80 {
        return Err(bad);
    }
    let mut raw = [0u8; 64];
    let (r, s) = raw.split_at_mut(32);
    let rest = integer(body, r)?;
    if !integer(rest, s)?.is_empty() {
        return Err(bad);
    }
    Ok(raw)
}

/// One DER INTEGER of at most 32 value bytes, right-aligned into `out`; what follows it.
fn integer<'a>(der: &'a [u8], out: &mut [u8]) -> Result<&'a [u8], CeremonyError> {
    let bad = CeremonyError::BadSignature;
    let [0x02, len, rest @ ..] = der else {
        return Err(bad);
    };
    let value = rest.get(..usize::from(*len)).ok_or(bad)?;
    let digits = match value {
        // Empty, negative, zero, or a zero byte before a byte that does not need it.
        [] | [0x80..=0xff, ..] | [0] | [0, 0..=0x7f, ..] => return Err(bad),
        [0, digits @ ..] => digits,
        digits => digits,
    };
    let start = out.len().checked_sub(digits.len()).ok_or(bad)?;
    out[start..].copy_from_slice(digits);
    Ok(&rest[value.len()..])
}
