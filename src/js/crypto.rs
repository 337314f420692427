//! WebCrypto where the worker checks what it did not make: a passkey's signature
//! (account-area.md 1), with the key and algorithm `domain::webauthn` gives as JSON text.

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/js/crypto.mjs")]
extern "C" {
    fn verify_signature_js(
        jwk: &str,
        algorithm: &str,
        signature: &Uint8Array,
        message: &Uint8Array,
    ) -> Promise;
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
