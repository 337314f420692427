//! Durable Objects, one folder each: the class in `mod.rs` and its typed client in
//! `client.rs`, which callers use instead of addressing the object themselves.

pub mod analytics;
pub mod rate_limiter;
pub mod throttle;

use std::cell::Cell;

use wasm_bindgen::JsCast;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys;
use worker::worker_sys::DurableObject as RawStub;
use worker::{Request, Result, SqlStorage, SqlStorageValue, State, Stub};

/// Calls an object: a `GET` of `url`, or a `POST` of `body` to it. The answer's status and
/// text, read by the runtime in one step: worker's `Response::text` pulls the body stream
/// through wasm chunk by chunk, a cost on the token gate that every API request pays.
pub(crate) async fn call(stub: Stub, url: &str, body: Option<&str>) -> Result<(u16, String)> {
    let stub: RawStub = stub.into_rpc();
    let sent = match body {
        None => stub.fetch_with_str(url)?,
        Some(body) => stub.fetch_with_request(post(url, body)?.inner())?,
    };
    let resp: web_sys::Response = JsFuture::from(sent).await?.dyn_into()?;
    let text = JsFuture::from(resp.text()?).await?;
    Ok((resp.status(), text.as_string().unwrap_or_default()))
}

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
