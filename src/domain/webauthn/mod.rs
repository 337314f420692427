//! Passkeys (WebAuthn Level 3) for the account area's sign-in (account-area.md 1): the
//! options a browser is given and the checks of what it answers, as pure functions. The
//! one step left to the caller is the signature check of a sign-in, which WebCrypto makes
//! (asynchronously) on what [`check_assertion`] hands over.
//!
//! Registration, at `POST /app/invite/{code}`:
//! 1. issue a random challenge (one-time, 5 minutes) and answer [`creation_options`];
//! 2. [`verify_registration`] of the `RegistrationResponseJSON` against [`Expected`];
//! 3. store the [`NewCredential`] (its `id`, `public_key` and `sign_count`).
//!
//! Sign-in, at `POST /app/sign-in`:
//! 1. issue a challenge and answer [`request_options`];
//! 2. [`credential_id`] of the `AuthenticationResponseJSON`; look the passkey up by it
//!    ([`CeremonyError::UnknownCredential`] if there is none);
//! 3. [`check_assertion`] against [`Expected`] and the stored passkey;
//! 4. WebCrypto, with `jwk` and `algorithm` the `JSON.parse` of `key.jwk` and
//!    `key.algorithm`: `importKey("jwk", jwk, algorithm, false, ["verify"])`, then
//!    `verify(algorithm, k, signature, message)`;
//! 5. [`Signed::verified`] with that outcome gives the sign count to store, or the error
//!    to answer. If `user_handle` is there, it must be the member's user id.
//!
//! Bytes travel as base64url without padding, as WebAuthn's JSON forms write them.
//! Attestation: only `none` is asked for, so a statement in another format (a browser may
//! pass one through) is accepted unread; nothing here vouches for the authenticator's make.

pub mod cbor;
mod data;
mod key;

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use crate::domain::signing::{base64url, base64url_decode};
use cbor::Value;
pub use data::{AttestedCredential, AuthData, ClientData, MAX_CREDENTIAL_ID};
pub use key::{der_to_raw, PublicKey, WebCryptoKey, ES256, RS256};

/// How long a browser lets the person answer, in ms: the challenge's lifetime.
pub const TIMEOUT_MS: u32 = 300_000;

/// What the server issued and is: the check of a response is against these.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// The challenge issued for this ceremony (whether it is still valid and unused is
    /// the caller's to decide).
    pub challenge: &'a [u8],
    /// The exact origin of the account area, e.g. `https://cards.example.com` or
    /// `http://localhost:8787`.
    pub origin: &'a str,
    /// The relying party id: the origin's host.
    pub rp_id: &'a str,
}

/// Why a ceremony's response was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CeremonyError {
    /// Not a response of the expected shape: a missing member, bad base64url or CBOR,
    /// inconsistent ids, bytes left over.
    Malformed,
    /// The client data is of the other ceremony, or the credential is not `public-key`.
    WrongType,
    /// Not the challenge issued (the caller also answers this for an expired or used one).
    Challenge,
    /// Another origin, or a cross-origin frame, asked.
    Origin,
    /// The credential belongs to another relying party id.
    RpId,
    /// The authenticator did not report a person present.
    UserNotPresent,
    /// A key algorithm other than ES256 and RS256.
    UnsupportedAlgorithm,
    /// The signature does not verify, or is not a signature.
    BadSignature,
    /// The sign counter did not go up: the passkey may have been cloned.
    CounterWentBack,
    /// No passkey of this member or account has this id.
    UnknownCredential,
}

impl CeremonyError {
    /// A sentence for the person at the browser: German for `de`, else English.
    pub fn message(&self, lang: &str) -> &'static str {
        let (en, de) = match self {
            CeremonyError::Malformed => (
                "The passkey's answer could not be read. Please try again.",
                "Die Antwort des Passkeys war nicht lesbar. Bitte versuchen Sie es erneut.",
            ),
            CeremonyError::WrongType => (
                "The passkey answered a different request. Please try again.",
                "Der Passkey hat auf eine andere Anfrage geantwortet. Bitte versuchen Sie es erneut.",
            ),
            CeremonyError::Challenge => (
                "This request has expired or was already used. Please start again.",
                "Diese Anfrage ist abgelaufen oder wurde schon verwendet. Bitte beginnen Sie von vorn.",
            ),
            CeremonyError::Origin => (
                "This request came from another website.",
                "Diese Anfrage kam von einer anderen Website.",
            ),
            CeremonyError::RpId => (
                "This passkey is for another site.",
                "Dieser Passkey gehört zu einer anderen Website.",
            ),
            CeremonyError::UserNotPresent => (
                "The passkey did not confirm you were there. Please try again and touch or unlock it.",
                "Der Passkey hat Ihre Anwesenheit nicht bestätigt. Bitte versuchen Sie es erneut und berühren oder entsperren Sie ihn.",
            ),
            CeremonyError::UnsupportedAlgorithm => (
                "This passkey uses a kind of key this site does not support. Please use another passkey.",
                "Dieser Passkey verwendet eine Schlüsselart, die diese Website nicht unterstützt. Bitte verwenden Sie einen anderen Passkey.",
            ),
            CeremonyError::BadSignature => (
                "The passkey's signature is not valid.",
                "Die Signatur des Passkeys ist ungültig.",
            ),
            CeremonyError::CounterWentBack => (
                "This passkey may have been copied, so it was refused. Please use another passkey.",
                "Dieser Passkey wurde möglicherweise kopiert und deshalb abgelehnt. Bitte verwenden Sie einen anderen Passkey.",
            ),
            CeremonyError::UnknownCredential => (
                "This passkey is not registered here.",
                "Dieser Passkey ist hier nicht registriert.",
            ),
        };
        if lang == "de" {
            de
        } else {
            en
        }
    }
}

/// `PublicKeyCredentialCreationOptionsJSON` for `navigator.credentials.create`: a
/// discoverable credential (sign-in asks for no user name), user verification preferred,
/// ES256 then RS256, no attestation. `exclude` lists the person's passkeys so that an
/// authenticator holding one of them does not make a second.
pub fn creation_options(
    rp_id: &str,
    rp_name: &str,
    user_id: &[u8],
    user_name: &str,
    display_name: &str,
    challenge: &[u8],
    exclude: &[Vec<u8>],
) -> Json {
    let credential = |id: &[u8]| {
        object(vec![
            ("type", "public-key".into()),
            ("id", base64url(id).into()),
        ])
    };
    let param = |alg: i128| {
        object(vec![
            ("type", "public-key".into()),
            ("alg", (alg as i64).into()),
        ])
    };
    object(vec![
        (
            "rp",
            object(vec![("id", rp_id.into()), ("name", rp_name.into())]),
        ),
        (
            "user",
            object(vec![
                ("id", base64url(user_id).into()),
                ("name", user_name.into()),
                ("displayName", display_name.into()),
            ]),
        ),
        ("challenge", base64url(challenge).into()),
        ("pubKeyCredParams", vec![param(ES256), param(RS256)].into()),
        ("timeout", TIMEOUT_MS.into()),
        (
            "excludeCredentials",
            exclude.iter().map(|id| credential(id)).collect(),
        ),
        (
            "authenticatorSelection",
            object(vec![
                ("residentKey", "required".into()),
                ("requireResidentKey", true.into()),
                ("userVerification", "preferred".into()),
            ]),
        ),
        ("attestation", "none".into()),
    ])
}

/// `PublicKeyCredentialRequestOptionsJSON` for `navigator.credentials.get`: no
/// `allowCredentials`, so the browser offers every passkey it holds for this site.
pub fn request_options(rp_id: &str, challenge: &[u8]) -> Json {
    object(vec![
        ("challenge", base64url(challenge).into()),
        ("timeout", TIMEOUT_MS.into()),
        ("rpId", rp_id.into()),
        ("allowCredentials", Json::Array(vec![])),
        ("userVerification", "preferred".into()),
    ])
}

/// A JSON object of `members`, in one loop: `json!` spends code on each member, and this
/// runs in a size-budgeted wasm.
fn object(members: Vec<(&str, Json)>) -> Json {
    let mut map = serde_json::Map::new();
    // Inserted one by one: collecting would sort first, and bring a sort into the wasm.
    for (k, v) in members {
        map.insert(k.into(), v);
    }
    Json::Object(map)
}

/// A passkey registered by [`verify_registration`], to be stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCredential {
    pub id: Vec<u8>,
    /// The stored form of the key: the COSE_Key bytes ([`PublicKey::from_cose`]).
    pub public_key: Vec<u8>,
    pub sign_count: u32,
    /// Whether the person was verified (PIN, biometrics), not only present.
    pub uv: bool,
    /// How a browser reaches the authenticator (the values WebAuthn names among
    /// `response.transports`): a hint a credential descriptor may carry.
    pub transports: Vec<&'static str>,
}

/// The stored passkey a sign-in claims to be made with.
#[derive(Debug, Clone, Copy)]
pub struct StoredCredential<'a> {
    /// The COSE_Key bytes kept from [`NewCredential::public_key`].
    pub public_key: &'a [u8],
    pub sign_count: u32,
}

/// A sign-in that passed every check but the signature: what WebCrypto verifies.
#[derive(Debug, Clone)]
pub struct Signed {
    /// authenticatorData || SHA-256(clientDataJSON): the bytes signed.
    pub message: Vec<u8>,
    /// r||s for ES256; as sent for RS256.
    pub signature: Vec<u8>,
    pub key: WebCryptoKey,
    pub uv: bool,
    /// The user id given at registration (`user.id` of the creation options), if the
    /// authenticator returned it.
    pub user_handle: Option<Vec<u8>>,
    stored_sign_count: u32,
    new_sign_count: u32,
}

impl Signed {
    /// The outcome once WebCrypto has checked the signature: the sign count to store, or
    /// why the sign-in fails. The counter is judged only here, after the signature, so
    /// that a forged response can never pass for a cloned passkey (WebAuthn 7.2 step 22:
    /// when either count is nonzero, the new one must be greater).
    pub fn verified(&self, signature_valid: bool) -> Result<u32, CeremonyError> {
        let (stored, new) = (self.stored_sign_count, self.new_sign_count);
        if !signature_valid {
            Err(CeremonyError::BadSignature)
        } else if (stored != 0 || new != 0) && new <= stored {
            Err(CeremonyError::CounterWentBack)
        } else {
            Ok(new)
        }
    }
}

/// The id of the credential a response was made with (`id`, which must equal `rawId`),
/// of type `public-key`: the key to the stored passkey.
pub fn credential_id(response: &Json) -> Result<Vec<u8>, CeremonyError> {
    if response.get("type").and_then(Json::as_str) != Some("public-key") {
        return Err(CeremonyError::WrongType);
    }
    let id = bytes(response, "id")?;
    if id.is_empty() || id.len() > MAX_CREDENTIAL_ID || bytes(response, "rawId")? != id {
        return Err(CeremonyError::Malformed);
    }
    Ok(id)
}

/// Checks a `RegistrationResponseJSON` (WebAuthn 7.1) and gives the passkey to store.
pub fn verify_registration(
    response: &Json,
    expected: &Expected,
) -> Result<NewCredential, CeremonyError> {
    let id = credential_id(response)?;
    let inner = response.get("response").ok_or(CeremonyError::Malformed)?;
    ClientData::parse(&bytes(inner, "clientDataJSON")?)?.check("webauthn.create", expected)?;
    let attestation = bytes(inner, "attestationObject")?;
    let object = match cbor::decode(&attestation) {
        Ok((object, used)) if used == attestation.len() => object,
        _ => return Err(CeremonyError::Malformed),
    };
    let fmt = object.get(&Value::Text("fmt")).and_then(Value::text);
    let statement = object.get(&Value::Text("attStmt"));
    let auth_data = object.get(&Value::Text("authData")).and_then(Value::bytes);
    let (Some(fmt), Some(Value::Map(statement)), Some(auth_data)) = (fmt, statement, auth_data)
    else {
        return Err(CeremonyError::Malformed);
    };
    // `none` has an empty statement (WebAuthn 8.7); other formats go unread (see above).
    if fmt == "none" && !statement.is_empty() {
        return Err(CeremonyError::Malformed);
    }
    let data = AuthData::parse(auth_data)?;
    data.check(expected.rp_id)?;
    let Some(credential) = &data.credential else {
        return Err(CeremonyError::Malformed);
    };
    if credential.id != id {
        return Err(CeremonyError::Malformed);
    }
    PublicKey::from_cose(credential.public_key)?;
    Ok(NewCredential {
        id,
        public_key: credential.public_key.to_vec(),
        sign_count: data.sign_count,
        uv: data.user_verified(),
        transports: transports(inner),
    })
}

/// Checks an `AuthenticationResponseJSON` (WebAuthn 7.2) made with `stored`, all but the
/// signature and the counter, and hands over what WebCrypto verifies.
pub fn check_assertion(
    response: &Json,
    expected: &Expected,
    stored: &StoredCredential,
) -> Result<Signed, CeremonyError> {
    credential_id(response)?;
    let inner = response.get("response").ok_or(CeremonyError::Malformed)?;
    let client_data = bytes(inner, "clientDataJSON")?;
    ClientData::parse(&client_data)?.check("webauthn.get", expected)?;
    let auth_data = bytes(inner, "authenticatorData")?;
    let data = AuthData::parse(&auth_data)?;
    data.check(expected.rp_id)?;
    let key = PublicKey::from_cose(stored.public_key)?;
    let signature = key.signature(&bytes(inner, "signature")?)?;
    let user_handle = match inner.get("userHandle") {
        None | Some(Json::Null) => None,
        Some(_) => Some(bytes(inner, "userHandle")?),
    };
    let (uv, new_sign_count) = (data.user_verified(), data.sign_count);
    let mut message = auth_data;
    message.extend_from_slice(&Sha256::digest(&client_data));
    Ok(Signed {
        message,
        signature,
        key: key.webcrypto(),
        uv,
        user_handle,
        stored_sign_count: stored.sign_count,
        new_sign_count,
    })
}

/// The bytes of a base64url member of `object`.
fn bytes(object: &Json, key: &str) -> Result<Vec<u8>, CeremonyError> {
    object
        .get(key)
        .and_then(Json::as_str)
        .and_then(base64url_decode)
        .ok_or(CeremonyError::Malformed)
}

/// The transports WebAuthn names (5.8.4) among those a registration response lists.
fn transports(response: &Json) -> Vec<&'static str> {
    const KNOWN: [&str; 7] = [
        "ble",
        "cable",
        "hybrid",
        "internal",
        "nfc",
        "smart-card",
        "usb",
    ];
    let listed = response.get("transports").and_then(Json::as_array);
    let mut out = Vec::new();
    for t in listed.into_iter().flatten().filter_map(Json::as_str) {
        if let Some(k) = KNOWN.iter().find(|k| **k == t) {
            if !out.contains(k) {
                out.push(*k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
