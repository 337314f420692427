//! Where wasm-bindgen's own way with the runtime is slow: long strings (a page of JSON, a
//! KV document) cross into Rust with the runtime's `TextEncoder` instead of a JavaScript
//! loop over their characters, and the futures executor wakes its tasks with promise
//! reactions. The leaf under every layer that reads the runtime's values (D1 rows, KV
//! documents, object answers); no business rules.

pub mod crypto;

use js_sys::Uint8Array;

use crate::domain::email_key::Form;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

// `text_length` answers an `Option`, which wasm-bindgen wraps in glue: two functions
// imported bare from one snippet put its module twice into the bundle's imports object
// (esbuild then warns of a duplicate key on every start).
#[wasm_bindgen(module = "/src/js/text.mjs")]
extern "C" {
    fn text_length(value: &JsValue) -> Option<u32>;
    fn encode_into(text: &JsValue, into: &Uint8Array) -> f64;
}

/// From this many UTF-16 units on, a string crosses through the encoder; below, one call
/// of wasm-bindgen's own costs less than the two calls here.
const ENCODER_FROM: usize = 256;

/// `value` as a `String` if it is a JavaScript string, whatever its length.
pub fn long_text(value: &JsValue) -> Option<String> {
    let units = text_length(value)? as usize;
    if units < ENCODER_FROM {
        return value.as_string();
    }
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair, 2 units, is 4).
    let capacity = units.saturating_mul(3);
    let mut bytes: Vec<u8> = Vec::with_capacity(capacity);
    // SAFETY: the view covers the vector's allocation, which nothing frees or moves while
    // the view lives; nothing allocates in wasm between its making and `encode_into`'s
    // return (a growing memory would detach it); the encoder writes at most `capacity`
    // bytes, and `set_len` covers only those it wrote.
    let written = unsafe {
        let view = Uint8Array::view_mut_raw(bytes.as_mut_ptr(), capacity);
        let written = encode_into(value, &view) as usize;
        let written = written.min(capacity);
        bytes.set_len(written);
        written
    };
    if written == 0 {
        // The encoder failed (it does not for a string): the slow, sure way.
        return value.as_string();
    }
    // The encoder writes whole UTF-8 characters (a lone surrogate as U+FFFD), so this is
    // only a check.
    String::from_utf8(bytes).ok().or_else(|| value.as_string())
}

/// wasm-bindgen's executor wakes its tasks with the global `queueMicrotask` when there is
/// one, else with `Promise.resolve().then`; it looks once, when its queue is made. Both
/// queue a microtask, but the runtime's `queueMicrotask` is a native function that wraps
/// every callback anew (a function template, a global handle), a cost on each await that
/// a promise reaction does not have. So the queue is made here, at start, while the
/// global is hidden; the global is put back at once and stays for everything else.
pub fn promise_jobs_for_futures() {
    let global = js_sys::global();
    let key = JsValue::from_str("queueMicrotask");
    let Ok(saved) = js_sys::Reflect::get(&global, &key) else {
        return;
    };
    if js_sys::Reflect::set(&global, &key, &JsValue::UNDEFINED) != Ok(true) {
        return;
    }
    js_sys::futures::spawn_local(async {});
    let _ = js_sys::Reflect::set(&global, &key, &saved);
}

/// `text` in the normal form `form`: the runtime's `String.prototype.normalize` (ICU's
/// tables, already in every runtime) in the worker, where a Rust copy of the tables would
/// add ~67 KB of gzipped wasm; the `unicode-normalization` crate in native builds (tests,
/// tools). The e2e tests run the worker's on decomposed and full-width addresses.
#[cfg(target_arch = "wasm32")]
pub fn normalize(text: &str, form: Form) -> String {
    js_sys::JsString::from(text).normalize(form.name()).into()
}

#[cfg(not(target_arch = "wasm32"))]
pub fn normalize(text: &str, form: Form) -> String {
    use unicode_normalization::UnicodeNormalization;
    match form {
        Form::Nfd => text.nfd().collect(),
        Form::Nfkd => text.nfkd().collect(),
        Form::Nfc => text.nfc().collect(),
    }
}
