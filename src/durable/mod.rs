//! Durable Objects, one folder each: the class in `mod.rs` and its typed client in
//! `client.rs`, which callers use instead of addressing the object themselves.

pub mod analytics;
pub mod mover;
pub mod names;
pub mod rate_limiter;
pub mod syncer;
pub mod throttle;

use std::cell::Cell;

use wasm_bindgen::{JsCast, JsValue};
use worker::{Env, Result, SqlStorage, SqlStorageValue, State};

#[wasm_bindgen::prelude::wasm_bindgen(
    module = "/src/durable/call.mjs",
    wasm_bindgen_futures = worker::wasm_bindgen_futures
)]
extern "C" {
    #[wasm_bindgen(catch)]
    async fn object_call(
        env: &JsValue,
        binding: &str,
        jurisdiction: Option<&str>,
        name: &str,
        url: &str,
        body: Option<String>,
    ) -> std::result::Result<JsValue, JsValue>;
}

/// Calls the object `name` of the namespace `binding`, created anywhere: a `GET` of `url`,
/// or a `POST` of `body` to it. The answer's status and text.
pub(crate) async fn call(
    env: &Env,
    binding: &str,
    name: &str,
    url: &str,
    body: Option<&str>,
) -> Result<(u16, String)> {
    call_in(env, binding, None, name, url, body).await
}

/// [`call`], to the object of that name in `jurisdiction` (`"eu"`, `"fedramp"`; regions.md
/// 3) when one is given: the objects that hold an account's personal data. The namespace
/// is restricted in `call.mjs`, where the address is made anyway: one argument more, no
/// extra crossing (going through `js_sys::Reflect` would fetch the namespace into wasm and
/// call its method from there).
pub(crate) async fn call_in(
    env: &Env,
    binding: &str,
    jurisdiction: Option<&str>,
    name: &str,
    url: &str,
    body: Option<&str>,
) -> Result<(u16, String)> {
    let answer: js_sys::Array = object_call(
        env,
        binding,
        jurisdiction,
        name,
        url,
        body.map(str::to_string),
    )
    .await?
    .unchecked_into();
    let status = answer.get(0).as_f64().unwrap_or_default() as u16;
    Ok((status, answer.get(1).as_string().unwrap_or_default()))
}

/// An object's SQLite storage, its `schema` (idempotent `CREATE ... IF NOT EXISTS`) applied
/// once per instance; `ready` remembers that it was.
pub(crate) fn sql_storage(state: &State, schema: &str, ready: &Cell<bool>) -> Result<SqlStorage> {
    let sql = state.storage().sql();
    if !ready.get() {
        sql.exec(schema, None)?;
        ready.set(true);
    }
    Ok(sql)
}

pub(crate) fn int(i: i64) -> SqlStorageValue {
    SqlStorageValue::Integer(i)
}

pub(crate) fn txt(s: &str) -> SqlStorageValue {
    SqlStorageValue::String(s.to_string())
}
