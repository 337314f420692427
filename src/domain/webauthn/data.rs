//! The two things both ceremonies sign over: the browser's client data (JSON) and the
//! authenticator's data (bytes), parsed and checked against what the server expects.

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use super::cbor::{self, Value};
use super::{CeremonyError, Expected};
use crate::domain::signing::{base64url_decode, same};

/// The members of clientDataJSON the checks read (WebAuthn 5.8.1).
#[derive(Debug)]
pub struct ClientData {
    /// `webauthn.create` or `webauthn.get`.
    pub kind: String,
    pub challenge: Vec<u8>,
    pub origin: String,
    pub cross_origin: bool,
}

impl ClientData {
    pub fn parse(json: &[u8]) -> Result<ClientData, CeremonyError> {
        let v: Json = serde_json::from_slice(json).map_err(|_| CeremonyError::Malformed)?;
        let text = |key| v.get(key).and_then(Json::as_str).map(str::to_string);
        let (Some(kind), Some(challenge), Some(origin)) =
            (text("type"), text("challenge"), text("origin"))
        else {
            return Err(CeremonyError::Malformed);
        };
        // An unreadable challenge cannot be the one issued.
        let challenge = base64url_decode(&challenge).ok_or(CeremonyError::Challenge)?;
        let cross_origin = match v.get("crossOrigin") {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(_) => return Err(CeremonyError::Malformed),
        };
        Ok(ClientData {
            kind,
            challenge,
            origin,
            cross_origin,
        })
    }

    /// The checks of WebAuthn 7.1 steps 7-10 and 7.2 steps 10-13, in that order. `kind`
    /// is `webauthn.create` for a registration, `webauthn.get` for a sign-in.
    pub fn check(&self, kind: &str, expected: &Expected) -> Result<(), CeremonyError> {
        if self.kind != kind {
            return Err(CeremonyError::WrongType);
        }
        if !same(&self.challenge, expected.challenge) {
            return Err(CeremonyError::Challenge);
        }
        // An iframe of another site asked: the account area is never embedded.
        if self.origin != expected.origin || self.cross_origin {
            return Err(CeremonyError::Origin);
        }
        Ok(())
    }
}

/// authenticatorData's flag bits (WebAuthn 6.1).
const UP: u8 = 0x01;
const UV: u8 = 0x04;
const BE: u8 = 0x08;
const BS: u8 = 0x10;
const AT: u8 = 0x40;
const ED: u8 = 0x80;

/// WebAuthn 7.1 step 25: longer credential ids are refused.
pub const MAX_CREDENTIAL_ID: usize = 1023;

/// authenticatorData (WebAuthn 6.1), borrowing from its bytes.
#[derive(Debug)]
pub struct AuthData<'a> {
    pub rp_id_hash: &'a [u8; 32],
    pub flags: u8,
    pub sign_count: u32,
    /// Present when the AT flag is (a registration).
    pub credential: Option<AttestedCredential<'a>>,
}

/// The attested credential data of a registration (WebAuthn 6.5.2).
#[derive(Debug)]
pub struct AttestedCredential<'a> {
    pub aaguid: &'a [u8; 16],
    pub id: &'a [u8],
    /// The COSE_Key as the authenticator wrote it: a CBOR map, not yet read as a key
    /// ([`super::PublicKey::from_cose`] does that).
    pub public_key: &'a [u8],
}

impl<'a> AuthData<'a> {
    /// Reads the layout; refuses anything after the parts the flags announce (the
    /// extensions, when ED is set, must be one CBOR map and the last thing).
    pub fn parse(bytes: &'a [u8]) -> Result<AuthData<'a>, CeremonyError> {
        let malformed = CeremonyError::Malformed;
        let (rp_id_hash, rest) = bytes.split_first_chunk::<32>().ok_or(malformed)?;
        let (&[flags], rest) = rest.split_first_chunk::<1>().ok_or(malformed)?;
        let (count, mut rest) = rest.split_first_chunk::<4>().ok_or(malformed)?;
        // Backed up but not backup eligible cannot be (WebAuthn 6.1, BS).
        if flags & BS != 0 && flags & BE == 0 {
            return Err(malformed);
        }
        let mut credential = None;
        if flags & AT != 0 {
            let (aaguid, r) = rest.split_first_chunk::<16>().ok_or(malformed)?;
            let (len, r) = r.split_first_chunk::<2>().ok_or(malformed)?;
            let len = usize::from(u16::from_be_bytes(*len));
            if len > MAX_CREDENTIAL_ID || len > r.len() {
                return Err(malformed);
            }
            let (id, r) = r.split_at(len);
            let (public_key, after) = one_map(r)?;
            rest = after;
            credential = Some(AttestedCredential {
                aaguid,
                id,
                public_key,
            });
        }
        if flags & ED != 0 {
            rest = one_map(rest)?.1;
        }
        if !rest.is_empty() {
            return Err(malformed);
        }
        Ok(AuthData {
            rp_id_hash,
            flags,
            sign_count: u32::from_be_bytes(*count),
            credential,
        })
    }

    /// The checks both ceremonies make (WebAuthn 7.1 steps 13-14, 7.2 steps 15-16): the
    /// credential is this relying party's, and a person was there.
    pub fn check(&self, rp_id: &str) -> Result<(), CeremonyError> {
        if self.rp_id_hash[..] != Sha256::digest(rp_id.as_bytes())[..] {
            return Err(CeremonyError::RpId);
        }
        if self.flags & UP == 0 {
            return Err(CeremonyError::UserNotPresent);
        }
        Ok(())
    }

    /// Whether the authenticator verified the person (PIN, biometrics), not only their
    /// presence. The options prefer it; nothing requires it.
    pub fn user_verified(&self) -> bool {
        self.flags & UV != 0
    }
}

/// A CBOR map at the start of `bytes`: its bytes and what follows them.
fn one_map(bytes: &[u8]) -> Result<(&[u8], &[u8]), CeremonyError> {
    match cbor::decode(bytes) {
        Ok((Value::Map(_), used)) => Ok(bytes.split_at(used)),
        _ => Err(CeremonyError::Malformed),
    }
}
