//! Idempotent writes (extensions.md 3): the first request with a key runs and its response
//! is kept; a repeat gets it back byte for byte. The claim lives in D1 (see
//! `store::idempotency`), the one place all isolates of an account agree on.

use std::future::Future;

use serde_json::{Map, Value};
use worker::{Headers, Response};

use crate::domain::idempotency::{
    digest, keeps, parse_key, KeptResponse, Repeat, ABANDONED_MS, HEADER, KEEP_MS,
};
use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::idempotency::{self as kept, Claim};

/// The request a key is used for.
pub struct Target<'a> {
    pub method: String,
    pub path: String,
    pub key: String,
    pub body: &'a Map<String, Value>,
}

fn replay(r: KeptResponse) -> Response {
    let headers = Headers::new();
    let _ = headers.set("Content-Type", &r.content_type);
    let _ = headers.set("Idempotent-Replayed", "true");
    Response::builder()
        .with_status(r.status)
        .with_headers(headers)
        .fixed(r.body.into_bytes())
}

/// Runs `write` at most once per key of the account.
pub async fn once(
    app: &App,
    p: &Principal,
    target: Target<'_>,
    write: impl Future<Output = ApiResult<Response>>,
) -> ApiResult<Response> {
    let key = parse_key(&target.key)?;
    let digest = digest(app.token_pepper().as_bytes(), target.body);
    let db = app.db()?;
    let now = app.now_ms;
    let claim = Claim {
        account_id: p.account_id,
        key,
        method: &target.method,
        path: &target.path,
        digest: &digest,
        now,
        expired_before: now - KEEP_MS,
        abandoned_before: now - ABANDONED_MS,
    };
    let claimed = kept::claim(&db, &claim).await?;
    if !claimed {
        let found = kept::find(&db, p.account_id, key).await?;
        return match found.map(|k| k.repeat(&target.method, &target.path, &digest)) {
            Some(Repeat::Replay(r)) => Ok(replay(r)),
            Some(Repeat::Mismatch) => Err(ApiError::validation(
                HEADER,
                "The Idempotency-Key was already used for another request.".into(),
            )),
            // Still running, or gone since the claim failed: the client retries.
            Some(Repeat::InFlight) | None => Err(ApiError::Conflict),
        };
    }
    let mut resp = write.await.unwrap_or_else(ApiError::into_response);
    let status = resp.status_code();
    if !keeps(status) {
        if let Err(e) = kept::release(&db, p.account_id, key).await {
            worker::console_error!("releasing an idempotency key failed: {e}");
        }
        return Ok(resp);
    }
    let content_type = resp
        .headers()
        .get("Content-Type")
        .ok()
        .flatten()
        .unwrap_or_else(|| "application/json".into());
    let body = resp.text().await?;
    let response = KeptResponse {
        status,
        content_type,
        body,
    };
    if let Err(e) = kept::complete(&db, p.account_id, key, &response).await {
        // The write happened; a repeat within a minute gets 409, later it runs again.
        worker::console_error!("keeping an idempotent response failed: {e}");
    }
    let headers = resp.headers().clone();
    Ok(Response::builder()
        .with_status(status)
        .with_headers(headers)
        .fixed(response.body.into_bytes()))
}
