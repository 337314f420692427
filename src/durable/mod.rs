//! Durable Objects, one folder each: the class in `mod.rs` and its typed client in
//! `client.rs`, which callers use instead of addressing the object themselves.

pub mod analytics;
pub mod rate_limiter;
pub mod throttle;

use std::cell::Cell;

use worker::web_sys;
use worker::{Request, Result, SqlStorage, SqlStorageValue, State};

/// A `POST` to an object with a text body. Built on `web_sys` directly: worker's
/// `RequestInit` also converts `cf` properties, code (about 8 KB of wasm) that calls
/// between our own objects never need.
pub(crate) fn post(url: &str, body: &str) -> Result<Request> {
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    init.set_body(&wasm_bindgen::JsValue::from_str(body));
    let req = web_sys::Request::new_with_str_and_init(url, &init).map_err(|e| {
        worker::Error::JsError(e.as_string().unwrap_or_else(|| "bad request".into()))
    })?;
    Ok(req.into())
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
