//! The detached CMS SignedData (RFC 5652) of a pass's manifest, laid out as `openssl cms
//! -sign -binary -nosmimecap -md sha256` lays it out (held to it byte for byte by the
//! tests): SHA-256, the signed attributes content type, signing time and message digest,
//! the signer named by issuer and serial, and the certificates (pass and WWDR) included.
//! The signature itself is WebCrypto's, over [`signed_attributes`].

use sha2::{Digest, Sha256};

use super::der::{self, element, oid, set_of, unsigned_integer};
use super::x509::KeyKind;

/// The `[0] IMPLICIT` SET of signed attributes in the SignerInfo; the signature is over
/// the same SET with its universal tag ([`to_sign`]).
fn attributes(content: &[u8], signing_time_ms: i64) -> Vec<u8> {
    let attribute =
        |id: &[u8], value: &[u8]| element(der::SEQUENCE, &[id, &element(der::SET, &[value])]);
    let digest = Sha256::digest(content);
    set_of(
        der::CONTEXT_0,
        vec![
            attribute(oid::CONTENT_TYPE, oid::DATA),
            attribute(oid::SIGNING_TIME, &der::time(signing_time_ms)),
            attribute(oid::MESSAGE_DIGEST, &element(der::OCTET_STRING, &[&digest])),
        ],
    )
}

/// The signed attributes of `content` (the manifest) as they are signed: RFC 5652 5.4
/// signs their DER with the SET tag, not the `[0]` they are stored under.
pub fn to_sign(content: &[u8], signing_time_ms: i64) -> Vec<u8> {
    let mut attrs = attributes(content, signing_time_ms);
    attrs[0] = der::SET;
    attrs
}

/// WebCrypto's ECDSA signature (IEEE P1363: `r || s`) as CMS carries it (a DER
/// `Ecdsa-Sig-Value`); `None` for a signature of the wrong length.
pub fn ecdsa_der(raw: &[u8]) -> Option<Vec<u8>> {
    if raw.len() != 64 {
        return None;
    }
    let (r, s) = raw.split_at(32);
    Some(element(
        der::SEQUENCE,
        &[&unsigned_integer(r), &unsigned_integer(s)],
    ))
}

/// What CMS needs of the signer.
pub struct Signer<'a> {
    /// The signer certificate's issuer Name and serial INTEGER, as encoded in it.
    pub issuer: &'a [u8],
    pub serial: &'a [u8],
    pub key: KeyKind,
    /// The certificates to include (the pass certificate and WWDR's), DER.
    pub certificates: [&'a [u8]; 2],
}

/// The ContentInfo holding the SignedData: `signature` is the signer's over
/// [`to_sign`]`(content, signing_time_ms)` (DER for ECDSA: [`ecdsa_der`]).
pub fn signed_data(
    signer: &Signer,
    content: &[u8],
    signing_time_ms: i64,
    signature: &[u8],
) -> Vec<u8> {
    let sha256 = element(der::SEQUENCE, &[oid::SHA256]);
    let version = element(der::INTEGER, &[&[1]]);
    let signature_algorithm = match signer.key {
        KeyKind::Rsa => element(der::SEQUENCE, &[oid::RSA, &element(der::NULL, &[])]),
        KeyKind::P256 => element(der::SEQUENCE, &[oid::ECDSA_SHA256]),
    };
    let signer_info = element(
        der::SEQUENCE,
        &[
            &version,
            &element(der::SEQUENCE, &[signer.issuer, signer.serial]),
            &sha256,
            &attributes(content, signing_time_ms),
            &signature_algorithm,
            &element(der::OCTET_STRING, &[signature]),
        ],
    );
    let certificates = set_of(
        der::CONTEXT_0,
        signer.certificates.iter().map(|c| c.to_vec()).collect(),
    );
    let signed = element(
        der::SEQUENCE,
        &[
            &version,
            &element(der::SET, &[&sha256]),
            // Detached: the content type alone, no content.
            &element(der::SEQUENCE, &[oid::DATA]),
            &certificates,
            &element(der::SET, &[&signer_info]),
        ],
    );
    element(
        der::SEQUENCE,
        &[oid::SIGNED_DATA, &element(der::CONTEXT_0, &[&signed])],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signed_form_differs_from_the_stored_one_only_in_its_tag() {
        let stored = attributes(b"{}", 0);
        let signed = to_sign(b"{}", 0);
        assert_eq!(stored[0], 0xa0);
        assert_eq!(signed[0], 0x31);
        assert_eq!(stored[1..], signed[1..]);
        // contentType (24 bytes), signingTime (28), messageDigest (47): sorted by encoding.
        assert_eq!(stored.len(), 2 + 26 + 30 + 49);
        assert_eq!(&stored[4..15], oid::CONTENT_TYPE);
    }

    #[test]
    fn ecdsa_signatures_become_two_positive_integers() {
        let mut raw = [0u8; 64];
        raw[0] = 0x80;
        raw[63] = 1;
        let der = ecdsa_der(&raw).unwrap();
        assert_eq!(der[..5], [0x30, 0x26, 0x02, 0x21, 0x00]);
        assert_eq!(der[der.len() - 3..], [0x02, 0x01, 0x01]);
        assert_eq!(ecdsa_der(&raw[..63]), None);
    }
}
