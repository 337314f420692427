//! What the wallet reads of an X.509 certificate (RFC 5280): the names and serial a CMS
//! signer is identified by, the validity, the subject's pass type and team, and the public
//! key (its algorithm, and the key itself for WebCrypto's check of the private key).

use super::der::{self, oid, Reader, Tlv};

/// The signature algorithms the pass certificate's key may have (WebCrypto signs with it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// RSASSA-PKCS1-v1_5 with SHA-256: what Apple issues Pass Type ID certificates for.
    Rsa,
    /// ECDSA on P-256 with SHA-256.
    P256,
}

impl KeyKind {
    /// WebCrypto's algorithm for importing such a key and signing with it, as JSON text.
    pub fn webcrypto(self) -> &'static str {
        match self {
            KeyKind::Rsa => r#"{"name":"RSASSA-PKCS1-v1_5","hash":"SHA-256"}"#,
            KeyKind::P256 => r#"{"name":"ECDSA","namedCurve":"P-256","hash":"SHA-256"}"#,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Certificate {
    /// The whole certificate, as CMS carries it.
    pub der: Vec<u8>,
    /// The serial number, as its whole INTEGER element.
    pub serial: Vec<u8>,
    /// The issuer and subject Names, as their whole encodings.
    pub issuer: Vec<u8>,
    pub subject: Vec<u8>,
    pub not_before_ms: i64,
    pub not_after_ms: i64,
    /// The SubjectPublicKeyInfo, whole (WebCrypto imports it as `spki`).
    pub spki: Vec<u8>,
    /// `None`: a key WebCrypto could hold but the wallet does not sign with.
    pub key: Option<KeyKind>,
}

impl Certificate {
    /// Parses a certificate; `None` when the bytes are not one.
    pub fn parse(bytes: &[u8]) -> Option<Certificate> {
        let mut outer = Reader(bytes);
        let whole = outer.next(der::SEQUENCE)?;
        let mut cert = Reader(whole.content);
        let mut tbs = cert.enter(der::SEQUENCE)?;
        // The version is optional (`[0]`, v1 certificates have none).
        tbs.next(der::CONTEXT_0);
        let serial = tbs.next(der::INTEGER)?;
        tbs.next(der::SEQUENCE)?;
        let issuer = tbs.next(der::SEQUENCE)?;
        let mut validity = tbs.enter(der::SEQUENCE)?;
        let not_before_ms = validity.any().and_then(der::read_time)?;
        let not_after_ms = validity.any().and_then(der::read_time)?;
        let subject = tbs.next(der::SEQUENCE)?;
        let spki = tbs.next(der::SEQUENCE)?;
        Some(Certificate {
            der: whole.whole.to_vec(),
            serial: serial.whole.to_vec(),
            issuer: issuer.whole.to_vec(),
            subject: subject.whole.to_vec(),
            not_before_ms,
            not_after_ms,
            key: key_kind(spki),
            spki: spki.whole.to_vec(),
        })
    }

    /// The first value of attribute `oid` in the subject (`CN`, `OU`, `UID`).
    pub fn subject_value(&self, oid: &[u8]) -> Option<String> {
        name_value(&self.subject, oid)
    }

    /// The issuer's common name, for messages.
    pub fn issuer_name(&self) -> String {
        name_value(&self.issuer, oid::COMMON_NAME).unwrap_or_else(|| "(no common name)".into())
    }

    pub fn subject_name(&self) -> String {
        self.subject_value(oid::COMMON_NAME)
            .unwrap_or_else(|| "(no common name)".into())
    }
}

fn key_kind(spki: Tlv) -> Option<KeyKind> {
    let mut info = Reader(spki.content);
    let mut algorithm = info.enter(der::SEQUENCE)?;
    let id = algorithm.next(der::OID)?.whole;
    if id == oid::RSA {
        Some(KeyKind::Rsa)
    } else if id == oid::EC_PUBLIC_KEY && algorithm.next(der::OID)?.whole == oid::PRIME256V1 {
        Some(KeyKind::P256)
    } else {
        None
    }
}

/// A Name is a SEQUENCE of SETs of (type, value) pairs; string values of any kind.
fn name_value(name: &[u8], wanted: &[u8]) -> Option<String> {
    let mut rdns = Reader(name).enter(der::SEQUENCE)?;
    while !rdns.is_empty() {
        let mut set = rdns.enter(der::SET)?;
        while !set.is_empty() {
            let mut pair = set.enter(der::SEQUENCE)?;
            if pair.next(der::OID)?.whole == wanted {
                let value = pair.any()?;
                return String::from_utf8(value.content.to_vec()).ok();
            }
        }
    }
    None
}
