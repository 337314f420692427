//! Idempotent writes (extensions.md 3): the first request with a key runs and its response
//! is kept; a repeat gets it back byte for byte. The claim lives in D1 (see
//! `store::idempotency`), the one place all isolates of an account agree on. Kept bodies
//! are sealed (AES-256-GCM, `store::sealed`): a webhook's signing secret in a create or
//! rotate answer is no more readable in a copy of the database than the secret itself.

use std::future::Future;

use serde_json::{Map, Value};
use worker::{Headers, Response};

use crate::domain::idempotency::{
    digest, keeps, parse_key, sealing_key, KeptResponse, Repeat, ABANDONED_MS, HEADER, KEEP_MS,
};
use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::idempotency::{self as kept, Claim};
use crate::store::sealed;

/// The request a key is used for.
pub struct Target<'a> {
    pub method: String,
    pub path: String,
    pub key: String,
    pub body: &'a Map<String, Value>,
    /// The route answers with a secret: its kept answer is replayed to the same token only.
    pub holds_secret: bool,
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
    let pepper = app.token_pepper();
    let digest = digest(pepper.as_bytes(), target.body);
    let db = app.db()?;
    let now = app.now_ms;
    let claim = Claim {
        account_id: p.account_id,
        key,
        method: &target.method,
        path: &target.path,
        digest: &digest,
        token_id: p.token_id,
        holds_secret: target.holds_secret,
        now,
        expired_before: now - KEEP_MS,
        abandoned_before: now - ABANDONED_MS,
    };
    let claimed = kept::claim(&db, &claim).await?;
    if !claimed {
        let found = kept::find(&db, p.account_id, key).await?;
        // Rows kept before tokens were recorded (migration 0007) are plaintext; they hold no
        // secret (the migration removed those) and replay as they are until they expire.
        let is_sealed = found.as_ref().is_some_and(|k| k.token_id.is_some());
        let repeat = found.map(|k| k.repeat(&target.method, &target.path, &digest, p.token_id));
        return match repeat {
            Some(Repeat::Replay(mut r)) => {
                if is_sealed {
                    r.body = sealed::open(&sealing_key(&pepper), &r.body).await?;
                }
                Ok(replay(r))
            }
            Some(Repeat::Mismatch) => Err(ApiError::validation(
                HEADER,
                "The Idempotency-Key was already used for another request.".into(),
            )),
            Some(Repeat::NotYours) => Err(ApiError::validation(
                HEADER,
                "The Idempotency-Key was used by another token for a request whose answer \
                 holds a secret; it is replayed only to that token. Use a new key."
                    .into(),
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
    let kept_ok = match sealed::seal(&sealing_key(&pepper), &body).await {
        Ok(sealed_body) => {
            let response = KeptResponse {
                status,
                content_type,
                body: sealed_body,
            };
            kept::complete(&db, p.account_id, key, &response).await
        }
        Err(e) => Err(e),
    };
    if let Err(e) = kept_ok {
        // The write happened; a repeat within a minute gets 409, later it runs again.
        worker::console_error!("keeping an idempotent response failed: {e}");
    }
    let headers = resp.headers().clone();
    Ok(Response::builder()
        .with_status(status)
        .with_headers(headers)
        .fixed(body.into_bytes()))
}
