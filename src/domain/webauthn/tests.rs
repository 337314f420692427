//! Real ceremonies made here: attestation objects and authenticatorData built by hand with
//! ciborium, assertions signed with p256 (ES256) and rsa (RS256), and every signature that
//! passes the checks verified by those crates against the key in the form WebCrypto gets.

use super::*;
use crate::domain::signing::base64url;
use ciborium::Value as C;
use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use rsa::traits::PublicKeyParts;
use rsa::{BigUint, Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
use serde_json::json;

const RP_ID: &str = "cards.example.com";
const ORIGIN: &str = "https://cards.example.com";
const CHALLENGE: [u8; 32] = *b"a challenge of thirty-two bytes!";
const CREDENTIAL: &[u8] = b"\x9c\x01credential id\xff\xfe";
const USER: &[u8] = b"member-7";
const UP: u8 = 0x01;
const UV: u8 = 0x04;
const AT: u8 = 0x40;
const ED: u8 = 0x80;

fn expected() -> Expected<'static> {
    Expected {
        challenge: &CHALLENGE,
        origin: ORIGIN,
        rp_id: RP_ID,
    }
}

fn cbor(v: &C) -> Vec<u8> {
    let mut out = vec![];
    ciborium::into_writer(v, &mut out).expect("encodes");
    out
}

fn int(n: i64) -> C {
    C::Integer(n.into())
}

fn map(entries: &[(C, C)]) -> C {
    C::Map(entries.to_vec())
}

fn es256_key() -> SigningKey {
    SigningKey::from_slice(&[0x42; 32]).expect("a valid scalar")
}

fn cose_es256(key: &SigningKey) -> Vec<u8> {
    let point = key.verifying_key().to_encoded_point(false);
    let (x, y) = (point.x().expect("x"), point.y().expect("y"));
    cbor(&map(&[
        (int(1), int(2)),
        (int(3), int(-7)),
        (int(-1), int(1)),
        (int(-2), C::Bytes(x.to_vec())),
        (int(-3), C::Bytes(y.to_vec())),
    ]))
}

/// A 2048-bit test key, made once with `openssl genrsa` (making one here takes long
/// unoptimised) and kept as its two primes.
fn rsa_key() -> RsaPrivateKey {
    const P: &str = concat!(
        "f66cac113d338819f5ca1822d19491ce5fce87b9938abe2b400b7a7fe42b6105ddca9267e70c93ae",
        "a618575b8733b355ced1c3c7d35183c6d79f30b59e833d6593464cec9895ace4e562fad824f2e8a2",
        "0c4d7e3d540f7e044b8fec9d96a04b3cbd74e5dc30493d73ac338b2d1390c78b77223331178e5773",
        "7bd48e93c4e312ab",
    );
    const Q: &str = concat!(
        "ea1d7119941c5ad29b2cbbc130b44df84eec8f91e6be04d7fe600eaa3df9edad2d88f9debced563a",
        "9bc09a2386ef282bb13e47a381372760e9edbbc80365b1fe37c5d30b5a31635ef5aebbabdb26932e",
        "b16c451a84947856b22ce3bb939b19a6cdee5a2df3b4c2ce1acdddc864df0e4049ff23a276df05f7",
        "a3da314043b17467",
    );
    let prime = |hex: &str| BigUint::parse_bytes(hex.as_bytes(), 16).expect("hex");
    RsaPrivateKey::from_p_q(prime(P), prime(Q), BigUint::from(65_537u32)).expect("a key")
}

fn cose_rs256(key: &RsaPrivateKey) -> Vec<u8> {
    cbor(&map(&[
        (int(1), int(3)),
        (int(3), int(-257)),
        (int(-1), C::Bytes(key.n().to_bytes_be())),
        (int(-2), C::Bytes(key.e().to_bytes_be())),
    ]))
}

fn auth_data(rp_id: &str, flags: u8, count: u32, attested: Option<(&[u8], &[u8])>) -> Vec<u8> {
    let mut out = Sha256::digest(rp_id.as_bytes()).to_vec();
    out.push(flags);
    out.extend(count.to_be_bytes());
    if let Some((id, cose)) = attested {
        out.extend([0xad; 16]); // aaguid
        out.extend((id.len() as u16).to_be_bytes());
        out.extend(id);
        out.extend(cose);
    }
    out
}

/// clientDataJSON as Chrome writes it, with the member it adds now and then so that no
/// one parses it by position.
fn client_data(kind: &str, challenge: &[u8], origin: &str) -> Vec<u8> {
    let challenge = base64url(challenge);
    let members = format!(
        r#""type":"{kind}","challenge":"{challenge}","origin":"{origin}","crossOrigin":false"#
    );
    let other = "do not compare clientDataJSON against a template. See https://goo.gl/yabPex";
    format!(r#"{{{members},"other_keys_can_be_added_here":"{other}"}}"#).into_bytes()
}

fn attestation_object(fmt: &str, statement: C, auth_data: &[u8]) -> Vec<u8> {
    cbor(&map(&[
        (C::Text("fmt".into()), C::Text(fmt.into())),
        (C::Text("attStmt".into()), statement),
        (C::Text("authData".into()), C::Bytes(auth_data.to_vec())),
    ]))
}

/// A `RegistrationResponseJSON` as Chrome's `toJSON()` writes it.
fn registration(id: &[u8], client_data: &[u8], attestation: &[u8]) -> Json {
    json!({
        "id": base64url(id),
        "rawId": base64url(id),
        "type": "public-key",
        "authenticatorAttachment": "platform",
        "clientExtensionResults": {"credProps": {"rk": true}},
        "response": {
            "clientDataJSON": base64url(client_data),
            "attestationObject": base64url(attestation),
            "transports": ["internal", "hybrid", "carrier-pigeon", "internal"],
        },
    })
}

/// A registration of `cose` with everything right.
fn good_registration(cose: &[u8]) -> Json {
    let data = auth_data(RP_ID, UP | UV | AT, 0, Some((CREDENTIAL, cose)));
    let attestation = attestation_object("none", map(&[]), &data);
    let client = client_data("webauthn.create", &CHALLENGE, ORIGIN);
    registration(CREDENTIAL, &client, &attestation)
}

fn signed_message(auth_data: &[u8], client_data: &[u8]) -> Vec<u8> {
    let mut message = auth_data.to_vec();
    message.extend(Sha256::digest(client_data));
    message
}

fn sign_es256(auth_data: &[u8], client_data: &[u8]) -> Vec<u8> {
    let signature: Signature = es256_key().sign(&signed_message(auth_data, client_data));
    signature.to_der().as_bytes().to_vec()
}

fn sign_rs256(auth_data: &[u8], client_data: &[u8]) -> Vec<u8> {
    let digest = Sha256::digest(signed_message(auth_data, client_data));
    let scheme = Pkcs1v15Sign::new::<Sha256>();
    rsa_key().sign(scheme, &digest).expect("signs")
}

/// An `AuthenticationResponseJSON`.
fn assertion(client_data: &[u8], auth_data: &[u8], signature: &[u8]) -> Json {
    json!({
        "id": base64url(CREDENTIAL),
        "rawId": base64url(CREDENTIAL),
        "type": "public-key",
        "authenticatorAttachment": "platform",
        "clientExtensionResults": {},
        "response": {
            "clientDataJSON": base64url(client_data),
            "authenticatorData": base64url(auth_data),
            "signature": base64url(signature),
            "userHandle": base64url(USER),
        },
    })
}

/// A sign-in with the ES256 key, counter `count`, signed over what it says.
fn es256_assertion(kind: &str, origin: &str, flags: u8, count: u32) -> Json {
    let data = auth_data(RP_ID, flags, count, None);
    let client = client_data(kind, &CHALLENGE, origin);
    assertion(&client, &data, &sign_es256(&data, &client))
}

fn stored(cose: &[u8], sign_count: u32) -> StoredCredential<'_> {
    StoredCredential {
        public_key: cose,
        sign_count,
    }
}

/// JSON text as `JSON.parse` reads it.
fn parsed(text: &str) -> Json {
    serde_json::from_str(text).expect("JSON")
}

/// A member of a JWK, decoded.
fn jwk_bytes(key: &WebCryptoKey, member: &str) -> Vec<u8> {
    parsed(&key.jwk)[member]
        .as_str()
        .and_then(base64url_decode)
        .expect("a base64url member")
}

/// What WebCrypto would answer, with p256 in its place: the key imported from the JWK.
fn es256_verifies(signed: &Signed) -> bool {
    let point = p256::EncodedPoint::from_affine_coordinates(
        jwk_bytes(&signed.key, "x").as_slice().into(),
        jwk_bytes(&signed.key, "y").as_slice().into(),
        false,
    );
    let key = VerifyingKey::from_encoded_point(&point).expect("a point on P-256");
    let signature = Signature::from_slice(&signed.signature).expect("64 bytes");
    key.verify(&signed.message, &signature).is_ok()
}

/// The same with rsa.
fn rs256_verifies(signed: &Signed) -> bool {
    let n = BigUint::from_bytes_be(&jwk_bytes(&signed.key, "n"));
    let e = BigUint::from_bytes_be(&jwk_bytes(&signed.key, "e"));
    let key = RsaPublicKey::new(n, e).expect("an RSA key");
    let digest = Sha256::digest(&signed.message);
    let scheme = Pkcs1v15Sign::new::<Sha256>();
    key.verify(scheme, &digest, &signed.signature).is_ok()
}

#[test]
fn a_registration_gives_the_passkey_to_store() {
    let cose = cose_es256(&es256_key());
    let new = verify_registration(&good_registration(&cose), &expected()).unwrap();
    assert_eq!(
        new,
        NewCredential {
            id: CREDENTIAL.to_vec(),
            public_key: cose.clone(),
            sign_count: 0,
            uv: true,
            transports: vec!["internal", "hybrid"],
        }
    );
    let point = es256_key().verifying_key().to_encoded_point(false);
    let key = PublicKey::from_cose(&new.public_key).unwrap();
    let PublicKey::Es256 { x, y } = &key else {
        panic!("{key:?}")
    };
    assert_eq!(
        (&x[..], &y[..]),
        (&point.x().unwrap()[..], &point.y().unwrap()[..])
    );
    let webcrypto = key.webcrypto();
    assert_eq!(
        parsed(&webcrypto.jwk),
        json!({"kty": "EC", "crv": "P-256", "x": base64url(x), "y": base64url(y)})
    );
    assert_eq!(
        parsed(webcrypto.algorithm),
        json!({"name": "ECDSA", "namedCurve": "P-256", "hash": "SHA-256"})
    );

    let rsa = rsa_key();
    let cose = cose_rs256(&rsa);
    let new = verify_registration(&good_registration(&cose), &expected()).unwrap();
    let webcrypto = PublicKey::from_cose(&new.public_key).unwrap().webcrypto();
    let n = base64url(&rsa.n().to_bytes_be());
    // A modulus written with a leading zero byte is the same key (JWK wants none).
    let padded = cbor(&map(&[
        (int(1), int(3)),
        (int(3), int(-257)),
        (
            int(-1),
            C::Bytes([&[0][..], &rsa.n().to_bytes_be()].concat()),
        ),
        (int(-2), C::Bytes(rsa.e().to_bytes_be())),
    ]));
    assert_eq!(PublicKey::from_cose(&padded), PublicKey::from_cose(&cose));
    assert_eq!(
        parsed(&webcrypto.jwk),
        json!({"kty": "RSA", "alg": "RS256", "n": n, "e": "AQAB"})
    );
    assert_eq!(
        parsed(webcrypto.algorithm),
        json!({"name": "RSASSA-PKCS1-v1_5", "hash": "SHA-256"})
    );
}

#[test]
fn a_registration_without_user_verification_or_with_extensions_passes() {
    let cose = cose_es256(&es256_key());
    let client = client_data("webauthn.create", &CHALLENGE, ORIGIN);
    // Only presence: verification is preferred, not required.
    let data = auth_data(RP_ID, UP | AT, 3, Some((CREDENTIAL, &cose)));
    let response = registration(
        CREDENTIAL,
        &client,
        &attestation_object("none", map(&[]), &data),
    );
    let new = verify_registration(&response, &expected()).unwrap();
    assert_eq!((new.uv, new.sign_count), (false, 3));
    // Extensions after the key, and another attestation format (accepted unread).
    let mut data = auth_data(RP_ID, UP | AT | ED, 0, Some((CREDENTIAL, &cose)));
    data.extend(cbor(&map(&[(C::Text("credProtect".into()), int(2))])));
    let statement = map(&[
        (C::Text("alg".into()), int(-7)),
        (C::Text("sig".into()), C::Bytes(vec![0x30, 0x00])),
    ]);
    let response = registration(
        CREDENTIAL,
        &client,
        &attestation_object("packed", statement, &data),
    );
    assert!(verify_registration(&response, &expected()).is_ok());
}

#[test]
fn a_changed_registration_is_refused_for_what_changed() {
    let cose = cose_es256(&es256_key());
    let good_data = auth_data(RP_ID, UP | UV | AT, 0, Some((CREDENTIAL, &cose)));
    let good_client = client_data("webauthn.create", &CHALLENGE, ORIGIN);
    let with = |client: &[u8], data: &[u8]| {
        let response = registration(
            CREDENTIAL,
            client,
            &attestation_object("none", map(&[]), data),
        );
        verify_registration(&response, &expected())
    };
    let create = |challenge: &[u8], origin: &str| client_data("webauthn.create", challenge, origin);
    let other_challenge = [8u8; 32];
    let cases: Vec<(&str, Result<NewCredential, CeremonyError>, CeremonyError)> = vec![
        (
            "challenge",
            with(&create(&other_challenge, ORIGIN), &good_data),
            CeremonyError::Challenge,
        ),
        (
            "challenge cut short",
            with(&create(&CHALLENGE[..31], ORIGIN), &good_data),
            CeremonyError::Challenge,
        ),
        (
            "origin",
            with(
                &create(&CHALLENGE, "https://cards.example.com.evil.test"),
                &good_data,
            ),
            CeremonyError::Origin,
        ),
        (
            "origin with a port",
            with(
                &create(&CHALLENGE, "https://cards.example.com:8443"),
                &good_data,
            ),
            CeremonyError::Origin,
        ),
        (
            "type",
            with(&client_data("webauthn.get", &CHALLENGE, ORIGIN), &good_data),
            CeremonyError::WrongType,
        ),
        (
            "rpIdHash",
            with(
                &good_client,
                &auth_data("example.com", UP | UV | AT, 0, Some((CREDENTIAL, &cose))),
            ),
            CeremonyError::RpId,
        ),
        (
            "UP cleared",
            with(
                &good_client,
                &auth_data(RP_ID, UV | AT, 0, Some((CREDENTIAL, &cose))),
            ),
            CeremonyError::UserNotPresent,
        ),
        (
            "no attested credential",
            with(&good_client, &auth_data(RP_ID, UP | UV, 0, None)),
            CeremonyError::Malformed,
        ),
        (
            "credential id",
            with(
                &good_client,
                &auth_data(RP_ID, UP | UV | AT, 0, Some((b"another id", &cose))),
            ),
            CeremonyError::Malformed,
        ),
        (
            "bytes after the key",
            with(&good_client, &[&good_data[..], &[0]].concat()),
            CeremonyError::Malformed,
        ),
    ];
    for (what, got, want) in cases {
        assert_eq!(got, Err(want), "{what}");
    }

    // Cross-origin: an iframe of another site asked.
    let cross = String::from_utf8(good_client.clone())
        .unwrap()
        .replace(r#""crossOrigin":false"#, r#""crossOrigin":true"#);
    assert_eq!(
        with(cross.as_bytes(), &good_data),
        Err(CeremonyError::Origin)
    );

    // The attestation object cut short, or followed by more.
    let attestation = attestation_object("none", map(&[]), &good_data);
    for bad in [
        &attestation[..attestation.len() - 1],
        &[&attestation[..], &[0xf6]].concat(),
    ] {
        let response = registration(CREDENTIAL, &good_client, bad);
        assert_eq!(
            verify_registration(&response, &expected()),
            Err(CeremonyError::Malformed)
        );
    }
    // `none` with a statement.
    let statement = map(&[(C::Text("sig".into()), C::Bytes(vec![1]))]);
    let response = registration(
        CREDENTIAL,
        &good_client,
        &attestation_object("none", statement, &good_data),
    );
    assert_eq!(
        verify_registration(&response, &expected()),
        Err(CeremonyError::Malformed)
    );

    // id and rawId differ; the credential is not a public key.
    let mut response = good_registration(&cose);
    response["rawId"] = json!(base64url(b"another id"));
    assert_eq!(
        verify_registration(&response, &expected()),
        Err(CeremonyError::Malformed)
    );
    let mut response = good_registration(&cose);
    response["type"] = json!("password");
    assert_eq!(
        verify_registration(&response, &expected()),
        Err(CeremonyError::WrongType)
    );
    let mut response = good_registration(&cose);
    response["id"] = json!(format!("{}=", base64url(CREDENTIAL)));
    assert_eq!(
        verify_registration(&response, &expected()),
        Err(CeremonyError::Malformed)
    );
}

#[test]
fn keys_of_other_algorithms_are_refused_by_name() {
    let x = C::Bytes(vec![9; 32]);
    let ed25519 = cbor(&map(&[
        (int(1), int(1)),
        (int(3), int(-8)),
        (int(-1), int(6)),
        (int(-2), x.clone()),
    ]));
    let response = good_registration(&ed25519);
    assert_eq!(
        verify_registration(&response, &expected()),
        Err(CeremonyError::UnsupportedAlgorithm)
    );
    let es256 = |entries: &[(C, C)]| PublicKey::from_cose(&cbor(&map(entries)));
    let (kty, alg) = ((int(1), int(2)), (int(3), int(-7)));
    let y = (int(-3), C::Bytes(vec![7; 32]));
    // P-384 under ES256, no alg, alg in the wrong key type: unsupported.
    for key in [
        es256(&[
            kty.clone(),
            alg.clone(),
            (int(-1), int(2)),
            (int(-2), x.clone()),
            y.clone(),
        ]),
        es256(&[
            kty.clone(),
            (int(-1), int(1)),
            (int(-2), x.clone()),
            y.clone(),
        ]),
        es256(&[
            (int(1), int(3)),
            alg.clone(),
            (int(-1), int(1)),
            (int(-2), x.clone()),
            y.clone(),
        ]),
    ] {
        assert_eq!(key, Err(CeremonyError::UnsupportedAlgorithm));
    }
    // A coordinate of 31 bytes, a key that is no map, bytes after the key: malformed.
    let crv = (int(-1), int(1));
    let short = (int(-2), C::Bytes(vec![9; 31]));
    assert_eq!(
        es256(&[kty.clone(), alg.clone(), crv.clone(), short, y.clone()]),
        Err(CeremonyError::Malformed)
    );
    assert_eq!(
        PublicKey::from_cose(&cbor(&int(2))),
        Err(CeremonyError::Malformed)
    );
    let mut cose = cose_es256(&es256_key());
    cose.push(0);
    assert_eq!(PublicKey::from_cose(&cose), Err(CeremonyError::Malformed));
    // RSA below 2048 bits.
    let small = cbor(&map(&[
        (int(1), int(3)),
        (int(3), int(-257)),
        (int(-1), C::Bytes([&[0][..], &[0xc5; 128]].concat())),
        (int(-2), C::Bytes(vec![1, 0, 1])),
    ]));
    assert_eq!(
        PublicKey::from_cose(&small),
        Err(CeremonyError::UnsupportedAlgorithm)
    );
}

#[test]
fn an_es256_sign_in_hands_webcrypto_what_verifies() {
    let cose = cose_es256(&es256_key());
    let data = auth_data(RP_ID, UP | UV, 8, None);
    let client = client_data("webauthn.get", &CHALLENGE, ORIGIN);
    let der = sign_es256(&data, &client);
    let response = assertion(&client, &data, &der);
    let signed = check_assertion(&response, &expected(), &stored(&cose, 7)).unwrap();
    assert_eq!(signed.message, signed_message(&data, &client));
    assert_eq!(
        signed.signature,
        Signature::from_der(&der).unwrap().to_bytes().to_vec()
    );
    assert!(es256_verifies(&signed));
    assert_eq!(signed.key, PublicKey::from_cose(&cose).unwrap().webcrypto());
    assert_eq!(
        (signed.uv, signed.user_handle.as_deref()),
        (true, Some(USER))
    );
    assert_eq!(signed.verified(true), Ok(8));
    assert_eq!(signed.verified(false), Err(CeremonyError::BadSignature));
    assert_eq!(credential_id(&response), Ok(CREDENTIAL.to_vec()));
}

#[test]
fn an_rs256_sign_in_hands_webcrypto_what_verifies() {
    let cose = cose_rs256(&rsa_key());
    let data = auth_data(RP_ID, UP, 0, None);
    let client = client_data("webauthn.get", &CHALLENGE, ORIGIN);
    let signature = sign_rs256(&data, &client);
    let response = assertion(&client, &data, &signature);
    let signed = check_assertion(&response, &expected(), &stored(&cose, 0)).unwrap();
    assert_eq!(signed.signature, signature);
    assert!(rs256_verifies(&signed));
    assert_eq!((signed.uv, signed.verified(true)), (false, Ok(0)));
    // Another message does not verify with it: the check above is not vacuous.
    let mut other = signed.clone();
    other.message.push(0);
    assert!(!rs256_verifies(&other));
    // A signature shorter than the modulus is none.
    let short = assertion(&client, &data, &signature[1..]);
    assert_eq!(
        check_assertion(&short, &expected(), &stored(&cose, 0)).map(|_| ()),
        Err(CeremonyError::BadSignature)
    );
}

#[test]
fn a_changed_sign_in_is_refused_for_what_changed() {
    let cose = cose_es256(&es256_key());
    let check = |response: &Json| {
        check_assertion(response, &expected(), &stored(&cose, 0)).map(|s| s.message)
    };
    let get = "webauthn.get";
    assert!(check(&es256_assertion(get, ORIGIN, UP, 0)).is_ok());
    assert_eq!(
        check(&es256_assertion("webauthn.create", ORIGIN, UP, 0)),
        Err(CeremonyError::WrongType)
    );
    assert_eq!(
        check(&es256_assertion(get, "http://cards.example.com", UP, 0)),
        Err(CeremonyError::Origin)
    );
    assert_eq!(
        check(&es256_assertion(get, ORIGIN, UV, 0)),
        Err(CeremonyError::UserNotPresent)
    );
    let data = auth_data("other.example.com", UP, 1, None);
    let client = client_data(get, &CHALLENGE, ORIGIN);
    let response = assertion(&client, &data, &sign_es256(&data, &client));
    assert_eq!(check(&response), Err(CeremonyError::RpId));
    let data = auth_data(RP_ID, UP, 1, None);
    let client = client_data(get, &[0; 32], ORIGIN);
    let response = assertion(&client, &data, &sign_es256(&data, &client));
    assert_eq!(check(&response), Err(CeremonyError::Challenge));
    // A signature that is not DER.
    let mut response = es256_assertion(get, ORIGIN, UP, 0);
    response["response"]["signature"] = json!(base64url(&[0x30, 0x02, 0x02, 0x00]));
    assert_eq!(check(&response), Err(CeremonyError::BadSignature));
    // The stored key is of an algorithm no longer supported, or unreadable.
    let response = es256_assertion(get, ORIGIN, UP, 0);
    let ed25519 = cbor(&map(&[(int(1), int(1)), (int(3), int(-8))]));
    assert_eq!(
        check_assertion(&response, &expected(), &stored(&ed25519, 0)).map(|_| ()),
        Err(CeremonyError::UnsupportedAlgorithm)
    );
    assert_eq!(
        check_assertion(&response, &expected(), &stored(b"", 0)).map(|_| ()),
        Err(CeremonyError::Malformed)
    );
}

#[test]
fn a_signature_over_changed_bytes_does_not_verify() {
    let cose = cose_es256(&es256_key());
    let data = auth_data(RP_ID, UP, 1, None);
    let client = client_data("webauthn.get", &CHALLENGE, ORIGIN);
    let der = sign_es256(&data, &client);
    // The UV flag set after signing: every check here passes, WebCrypto's does not.
    let forged = auth_data(RP_ID, UP | UV, 1, None);
    let response = assertion(&client, &forged, &der);
    let signed = check_assertion(&response, &expected(), &stored(&cose, 0)).unwrap();
    assert!(!es256_verifies(&signed));
    assert_eq!(signed.verified(false), Err(CeremonyError::BadSignature));
}

#[test]
fn the_sign_counter_must_go_up_once_either_count_is_nonzero() {
    let cose = cose_es256(&es256_key());
    let outcome = |stored_count: u32, new_count: u32, valid: bool| {
        let response = es256_assertion("webauthn.get", ORIGIN, UP, new_count);
        let signed = check_assertion(&response, &expected(), &stored(&cose, stored_count));
        signed.unwrap().verified(valid)
    };
    assert_eq!(outcome(0, 0, true), Ok(0)); // an authenticator without a counter
    assert_eq!(outcome(0, 1, true), Ok(1));
    assert_eq!(outcome(5, 6, true), Ok(6));
    assert_eq!(outcome(5, 5, true), Err(CeremonyError::CounterWentBack));
    assert_eq!(outcome(5, 4, true), Err(CeremonyError::CounterWentBack));
    // A counter that stops counting is as suspect as one that goes back (WebAuthn 7.2).
    assert_eq!(outcome(5, 0, true), Err(CeremonyError::CounterWentBack));
    // Without a valid signature, nothing says the passkey was copied.
    assert_eq!(outcome(5, 4, false), Err(CeremonyError::BadSignature));
}

#[test]
fn the_user_handle_is_optional() {
    let cose = cose_es256(&es256_key());
    let handle = |value: Option<Json>| {
        let mut response = es256_assertion("webauthn.get", ORIGIN, UP, 0);
        let inner = response["response"].as_object_mut().unwrap();
        match value {
            Some(v) => inner.insert("userHandle".into(), v),
            None => inner.remove("userHandle"),
        };
        check_assertion(&response, &expected(), &stored(&cose, 0)).map(|s| s.user_handle)
    };
    assert_eq!(handle(None), Ok(None));
    assert_eq!(handle(Some(Json::Null)), Ok(None));
    assert_eq!(handle(Some(json!("AQ"))), Ok(Some(vec![1])));
    assert_eq!(handle(Some(json!("A"))), Err(CeremonyError::Malformed));
    assert_eq!(handle(Some(json!(1))), Err(CeremonyError::Malformed));
}

#[test]
fn der_signatures_become_r_and_s_as_p256_reads_them() {
    let key = es256_key();
    // Enough signatures for r and s with a high bit (33-byte INTEGERs) and, now and then,
    // a leading zero byte (31-byte INTEGERs).
    let mut lengths = std::collections::BTreeSet::new();
    for i in 0u32..600 {
        let signature: Signature = key.sign(&i.to_be_bytes());
        let der = signature.to_der();
        lengths.insert(der.as_bytes()[3]);
        assert_eq!(der_to_raw(der.as_bytes()), Ok(signature.to_bytes().into()));
    }
    assert!(
        lengths.contains(&33) && lengths.contains(&32),
        "{lengths:?}"
    );
    // Changed bytes: whatever ours reads, p256's DER parser reads the same.
    let mut seed = 0x5eed_u64;
    let signature: Signature = key.sign(b"m");
    let der = signature.to_der().as_bytes().to_vec();
    for _ in 0..5_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut changed = der.clone();
        changed[(seed % der.len() as u64) as usize] = (seed >> 32) as u8;
        let theirs: Result<Signature, _> = Signature::from_der(&changed);
        match der_to_raw(&changed) {
            Ok(raw) => assert_eq!(
                theirs.map(|s| s.to_bytes().to_vec()).ok(),
                Signature::from_slice(&raw).ok().map(|_| raw.to_vec()),
                "{changed:02x?}"
            ),
            Err(_) => assert!(theirs.is_err(), "{changed:02x?}"),
        }
    }
}

#[test]
fn der_that_is_not_strict_is_refused() {
    let r = [0x11; 32];
    let mut high = [0x11; 32];
    high[0] = 0x91;
    let int = |v: &[u8]| [&[0x02, v.len() as u8][..], v].concat();
    let seq = |body: &[u8]| [&[0x30, body.len() as u8][..], body].concat();
    let good = seq(&[int(&r), int(&[&[0][..], &high].concat())].concat());
    let mut raw = [0x11; 64];
    raw[32] = 0x91;
    assert_eq!(der_to_raw(&good), Ok(raw));
    for (what, der) in [
        ("empty", vec![]),
        ("a SET", [&[0x31], &good[1..]].concat()),
        ("long-form length", [&[0x30, 0x81], &good[1..]].concat()),
        (
            "length too long",
            [&[0x30, good[1] + 1], &good[2..]].concat(),
        ),
        (
            "length too short",
            [&[0x30, good[1] - 1], &good[2..]].concat(),
        ),
        ("bytes after", [&good[..], &[0]].concat()),
        ("one integer", seq(&int(&r))),
        ("three integers", seq(&[int(&r), int(&r), int(&r)].concat())),
        (
            "a leading zero it does not need",
            seq(&[int(&[&[0][..], &r].concat()), int(&r)].concat()),
        ),
        ("negative", seq(&[int(&high), int(&r)].concat())),
        ("zero", seq(&[int(&[0]), int(&r)].concat())),
        ("empty integer", seq(&[int(&[]), int(&r)].concat())),
        (
            "33 bytes of value",
            seq(&[int(&[&[1][..], &r].concat()), int(&r)].concat()),
        ),
        (
            "not an INTEGER",
            seq(&[[&[0x04, 32][..], &r].concat(), int(&r)].concat()),
        ),
    ] {
        assert_eq!(der_to_raw(&der), Err(CeremonyError::BadSignature), "{what}");
    }
    // Short values are right-aligned.
    let mut raw = [0; 64];
    raw[31] = 1;
    raw[63] = 0x7f;
    assert_eq!(
        der_to_raw(&seq(&[int(&[1]), int(&[0x7f])].concat())),
        Ok(raw)
    );
}

#[test]
fn client_data_is_read_by_member_not_by_position() {
    let parse = |json: &str| ClientData::parse(json.as_bytes()).map(|c| c.kind);
    let challenge = base64url(&CHALLENGE);
    let reordered = format!(
        r#"{{"origin":"{ORIGIN}","challenge":"{challenge}","type":"webauthn.get","tokenBinding":{{"status":"present"}}}}"#
    );
    let client = ClientData::parse(reordered.as_bytes()).unwrap();
    assert_eq!(client.check("webauthn.get", &expected()), Ok(()));
    assert_eq!(parse("not json"), Err(CeremonyError::Malformed));
    assert_eq!(
        parse(r#"{"type":"webauthn.get"}"#),
        Err(CeremonyError::Malformed)
    );
    let padded = format!(r#"{{"type":"t","challenge":"{challenge}=","origin":"o"}}"#);
    assert_eq!(parse(&padded), Err(CeremonyError::Challenge));
    let cross = r#"{"type":"t","challenge":"","origin":"o","crossOrigin":"no"}"#;
    assert_eq!(parse(cross), Err(CeremonyError::Malformed));
}

#[test]
fn authenticator_data_holds_exactly_what_its_flags_say() {
    let cose = cose_es256(&es256_key());
    let parse = |bytes: &[u8]| AuthData::parse(bytes).map(|d| d.sign_count);
    let plain = auth_data(RP_ID, UP, 0x0102_0304, None);
    assert_eq!(parse(&plain), Ok(0x0102_0304));
    assert_eq!(parse(&plain[..36]), Err(CeremonyError::Malformed));
    // Backed up (BS) without backup eligibility (BE).
    assert_eq!(
        parse(&auth_data(RP_ID, UP | 0x10, 0, None)),
        Err(CeremonyError::Malformed)
    );
    assert!(parse(&auth_data(RP_ID, UP | 0x18, 0, None)).is_ok());
    // AT announced, nothing there; an id longer than the data; an id over 1023 bytes.
    assert_eq!(
        parse(&auth_data(RP_ID, UP | AT, 0, None)),
        Err(CeremonyError::Malformed)
    );
    let mut data = auth_data(RP_ID, UP | AT, 0, Some((CREDENTIAL, &cose)));
    data[54] += 100;
    assert_eq!(parse(&data), Err(CeremonyError::Malformed));
    let long = vec![1; 1024];
    let data = auth_data(RP_ID, UP | AT, 0, Some((&long, &cose)));
    assert_eq!(parse(&data), Err(CeremonyError::Malformed));
    let longest = vec![1; 1023];
    let data = auth_data(RP_ID, UP | AT, 0, Some((&longest, &cose)));
    assert_eq!(
        AuthData::parse(&data).unwrap().credential.unwrap().id,
        &longest[..]
    );
    // The credential's key is a map; so are the extensions, and nothing follows them.
    let data = auth_data(RP_ID, UP | AT, 0, Some((CREDENTIAL, &cbor(&int(1)))));
    assert_eq!(parse(&data), Err(CeremonyError::Malformed));
    let extensions = cbor(&map(&[(C::Text("credProtect".into()), int(1))]));
    let with_ext = [&auth_data(RP_ID, UP | ED, 0, None)[..], &extensions].concat();
    assert!(parse(&with_ext).is_ok());
    assert_eq!(
        parse(&[&with_ext[..], &[0]].concat()),
        Err(CeremonyError::Malformed)
    );
    assert_eq!(
        parse(&auth_data(RP_ID, UP | ED, 0, None)),
        Err(CeremonyError::Malformed)
    );
}

#[test]
fn hostile_bytes_are_refused_without_panic() {
    // Changed bytes anywhere in a registration's attestation object and a sign-in's
    // authenticatorData: any answer but a panic (a panic in wasm poisons the isolate).
    let cose = cose_rs256(&rsa_key());
    let data = auth_data(RP_ID, UP | AT | ED, 0, Some((CREDENTIAL, &cose)));
    let data = [&data[..], &cbor(&map(&[(int(1), int(2))]))].concat();
    let attestation = attestation_object("none", map(&[]), &data);
    let client = client_data("webauthn.create", &CHALLENGE, ORIGIN);
    let mut seed = 0x0bad_5eed_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3_000 {
        let mut changed = attestation.clone();
        for _ in 0..1 + next() % 3 {
            let at = (next() % changed.len() as u64) as usize;
            changed[at] = next() as u8;
        }
        let cut = changed.len() - (next() % 4) as usize;
        let _ = verify_registration(
            &registration(CREDENTIAL, &client, &changed[..cut]),
            &expected(),
        );
        let _ = AuthData::parse(&data[..(next() % data.len() as u64) as usize]);
    }
}

#[test]
fn the_options_are_webauthns_json_forms() {
    let exclude = vec![CREDENTIAL.to_vec(), vec![1, 2, 3]];
    let options = creation_options(
        RP_ID,
        "Cards",
        USER,
        "ada@example.com",
        "Ada",
        &CHALLENGE,
        &exclude,
    );
    assert_eq!(
        options,
        json!({
            "rp": {"id": RP_ID, "name": "Cards"},
            "user": {"id": "bWVtYmVyLTc", "name": "ada@example.com", "displayName": "Ada"},
            "challenge": base64url(&CHALLENGE),
            "pubKeyCredParams": [
                {"type": "public-key", "alg": -7},
                {"type": "public-key", "alg": -257},
            ],
            "timeout": 300_000,
            "excludeCredentials": [
                {"type": "public-key", "id": base64url(CREDENTIAL)},
                {"type": "public-key", "id": "AQID"},
            ],
            "authenticatorSelection": {
                "residentKey": "required",
                "requireResidentKey": true,
                "userVerification": "preferred",
            },
            "attestation": "none",
        })
    );
    assert_eq!(
        request_options(RP_ID, &CHALLENGE),
        json!({
            "challenge": base64url(&CHALLENGE),
            "timeout": 300_000,
            "rpId": RP_ID,
            "allowCredentials": [],
            "userVerification": "preferred",
        })
    );
}

#[test]
fn every_error_has_a_sentence_in_english_and_german() {
    let all = [
        CeremonyError::Malformed,
        CeremonyError::WrongType,
        CeremonyError::Challenge,
        CeremonyError::Origin,
        CeremonyError::RpId,
        CeremonyError::UserNotPresent,
        CeremonyError::UnsupportedAlgorithm,
        CeremonyError::BadSignature,
        CeremonyError::CounterWentBack,
        CeremonyError::UnknownCredential,
    ];
    let mut seen = std::collections::BTreeSet::new();
    for e in all {
        let (en, de) = (e.message("en"), e.message("de"));
        assert!(en.ends_with('.') && de.ends_with('.'), "{e:?}");
        assert!(
            seen.insert(en) && seen.insert(de),
            "{e:?} repeats a sentence"
        );
        assert_eq!(e.message("fr"), en);
    }
    assert_eq!(
        CeremonyError::RpId.message("en"),
        "This passkey is for another site."
    );
    assert_eq!(
        CeremonyError::RpId.message("de"),
        "Dieser Passkey gehört zu einer anderen Website."
    );
}
