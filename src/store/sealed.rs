//! Webhook signing secrets at rest: AES-256-GCM through the runtime's WebCrypto. The
//! service has to sign with a secret, so it cannot keep only a hash as it does for tokens;
//! sealed, a copy of the database alone (an export, a Time Travel restore handed around)
//! reveals no secret. Sealed form: `gcm1:` + base64 of the 12-byte IV and the ciphertext.

use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Error, Result};

use crate::domain::signing::{base64, base64_decode};

const PREFIX: &str = "gcm1:";
const IV_BYTES: usize = 12;

fn subtle() -> Result<Object> {
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into())?;
    Ok(Reflect::get(&crypto, &"subtle".into())?.unchecked_into())
}

/// Calls a `crypto.subtle` method and awaits its promise.
async fn call(subtle: &Object, method: &str, args: &[JsValue]) -> Result<JsValue> {
    let f: Function = Reflect::get(subtle, &method.into())?.unchecked_into();
    let promise: Promise = f
        .apply(subtle, &args.iter().collect::<Array>())?
        .unchecked_into();
    Ok(JsFuture::from(promise).await?)
}

fn algorithm(iv: Option<&[u8]>) -> Result<JsValue> {
    let a = Object::new();
    Reflect::set(&a, &"name".into(), &"AES-GCM".into())?;
    if let Some(iv) = iv {
        Reflect::set(&a, &"iv".into(), &Uint8Array::from(iv))?;
    }
    Ok(a.into())
}

async fn import(subtle: &Object, key: &[u8; 32]) -> Result<JsValue> {
    let usages = Array::of2(&"encrypt".into(), &"decrypt".into());
    let args = [
        "raw".into(),
        Uint8Array::from(&key[..]).into(),
        algorithm(None)?,
        false.into(),
        usages.into(),
    ];
    call(subtle, "importKey", &args).await
}

/// Whether `text` has the sealed form (it may still not open with this key).
pub fn is_sealed(text: &str) -> bool {
    text.starts_with(PREFIX)
}

pub async fn seal(key: &[u8; 32], plain: &str) -> Result<String> {
    let mut iv = [0u8; IV_BYTES];
    getrandom::fill(&mut iv).map_err(|e| Error::RustError(format!("getrandom: {e}")))?;
    let subtle = subtle()?;
    let key = import(&subtle, key).await?;
    let data: JsValue = Uint8Array::from(plain.as_bytes()).into();
    let sealed = call(&subtle, "encrypt", &[algorithm(Some(&iv))?, key, data]).await?;
    let mut bytes = iv.to_vec();
    bytes.extend(Uint8Array::new(&sealed).to_vec());
    Ok(format!("{PREFIX}{}", base64(&bytes)))
}

/// Fails on a value not sealed with this key (a changed `TOKEN_PEPPER`, say).
pub async fn open(key: &[u8; 32], sealed: &str) -> Result<String> {
    let bytes = sealed
        .strip_prefix(PREFIX)
        .and_then(base64_decode)
        .filter(|b| b.len() > IV_BYTES)
        .ok_or_else(|| Error::RustError("not a sealed secret".into()))?;
    let (iv, data) = bytes.split_at(IV_BYTES);
    let subtle = subtle()?;
    let key = import(&subtle, key).await?;
    let data: JsValue = Uint8Array::from(data).into();
    let plain = call(&subtle, "decrypt", &[algorithm(Some(iv))?, key, data])
        .await
        .map_err(|_| Error::RustError("a sealed secret does not open with this key".into()))?;
    String::from_utf8(Uint8Array::new(&plain).to_vec())
        .map_err(|_| Error::RustError("a sealed secret is not text".into()))
}
