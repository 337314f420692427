//! WebCrypto where the worker checks what it did not make, a passkey's signature
//! (account-area.md 1), with the key and algorithm `domain::webauthn` gives as JSON text;
//! and where it signs wallet passes (wallet.md) with a private key WebCrypto reads from its
//! secret itself, so the key never enters wasm memory.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/js/crypto.mjs")]
extern "C" {
    fn verify_signature_js(
        jwk: &str,
        algorithm: &str,
        signature: &Uint8Array,
        message: &Uint8Array,
    ) -> Promise;
    fn wallet_sign_js(
        env: &JsValue,
        name: &str,
        algorithm: &str,
        spki: &Uint8Array,
        data: &Uint8Array,
    ) -> Promise;
    fn sha1_js(data: &Uint8Array) -> Promise;
}

/// Whether `signature` is the key's over `message`; a key WebCrypto refuses is an error.
pub async fn verify_signature(
    jwk: &str,
    algorithm: &str,
    signature: &[u8],
    message: &[u8],
) -> worker::Result<bool> {
    let promise = verify_signature_js(
        jwk,
        algorithm,
        &Uint8Array::from(signature),
        &Uint8Array::from(message),
    );
    let valid: JsValue = JsFuture::from(promise)
        .await
        .map_err(|e| worker::Error::RustError(format!("WebCrypto verify: {e:?}")))?;
    Ok(valid.as_bool().unwrap_or(false))
}

/// The bytes a promise of a `Uint8Array` resolves to; its error's message otherwise.
async fn bytes(promise: Promise) -> Result<Vec<u8>, String> {
    match JsFuture::from(promise).await {
        Ok(value) => Ok(Uint8Array::new(&value).to_vec()),
        Err(e) => Err(e
            .dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .unwrap_or_else(|| format!("{e:?}"))),
    }
}

/// `data` signed with the private key in the secret `name` of `env`, imported once per
/// isolate with `algorithm` (WebCrypto's, as JSON text) and, when `spki` is not empty,
/// checked against that public key first. The error says why the key is unusable.
pub async fn wallet_sign(
    env: &JsValue,
    name: &str,
    algorithm: &str,
    spki: &[u8],
    data: &[u8],
) -> Result<Vec<u8>, String> {
    let promise = wallet_sign_js(
        env,
        name,
        algorithm,
        &Uint8Array::from(spki),
        &Uint8Array::from(data),
    );
    bytes(promise).await
}

/// SHA-1 of `data` (WebCrypto's).
pub async fn sha1(data: &[u8]) -> Result<Vec<u8>, String> {
    bytes(sha1_js(&Uint8Array::from(data))).await
}
