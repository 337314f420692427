//! Idempotent writes (extensions.md 3): the first request with a key runs and its response
//! is kept; a repeat gets it back byte for byte. The claim lives in D1 (see
//! `store::idempotency`), the one place all isolates of an account agree on. Kept answers
//! (status, the headers that describe the resource, body) are sealed (AES-256-GCM,
//! `store::sealed`): a webhook's signing secret in a create or rotate answer is no more
//! readable in a copy of the database than the secret itself.

use std::future::Future;
use std::pin::Pin;

use worker::{Headers, Response};

use crate::domain::idempotency::{
    keeps, parse_key, sealing_key, KeptHeaders, KeptResponse, Repeat, ABANDONED_MS, HEADER, KEEP_MS,
};
use crate::domain::principal::Principal;
use crate::http::edge::named_error;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::idempotency::{self as kept, Claim};
use crate::store::sealed;

/// The request a key is used for.
pub struct Target {
    pub method: String,
    pub path: String,
    pub key: String,
    /// `domain::idempotency::fingerprint` of what was sent.
    pub digest: String,
    /// The route answers with a secret: its kept answer is replayed to the same token only.
    pub holds_secret: bool,
}

fn replay(status: u16, headers: KeptHeaders, body: String) -> Response {
    let h = Headers::new();
    let _ = h.set("Content-Type", &headers.content_type);
    if let Some(location) = &headers.location {
        let _ = h.set("Location", location);
    }
    let _ = h.set("Idempotent-Replayed", "true");
    Response::builder()
        .with_status(status)
        .with_headers(h)
        .fixed(body.into_bytes())
}

/// A kept answer as it was first given: its headers and body opened.
async fn opened(key: &[u8; 32], r: KeptResponse) -> ApiResult<Response> {
    // Rows kept before tokens were recorded (migration 0007) are plaintext, and so are the
    // headers (a bare content type) of rows kept before Location was kept.
    let body = match sealed::is_sealed(&r.body) {
        true => sealed::open(key, &r.body).await?,
        false => r.body,
    };
    let headers = match sealed::is_sealed(&r.headers) {
        true => sealed::open(key, &r.headers).await?,
        false => r.headers,
    };
    Ok(replay(r.status, KeptHeaders::read(&headers), body))
}

/// Runs `write` at most once per key of the account.
pub async fn once(
    app: &App,
    p: &Principal,
    target: Target,
    write: Pin<Box<dyn Future<Output = ApiResult<Response>> + '_>>,
) -> ApiResult<Response> {
    let key = parse_key(&target.key)?;
    let sealing = sealing_key(&app.config.token_pepper);
    let db = app.db()?;
    let now = app.now_ms;
    let claim = Claim {
        account_id: p.account_id,
        key,
        method: &target.method,
        path: &target.path,
        digest: &target.digest,
        token_id: p.token_id,
        holds_secret: target.holds_secret,
        now,
        expired_before: now - KEEP_MS,
        abandoned_before: now - ABANDONED_MS,
    };
    let claimed = kept::claim(&db, &claim).await?;
    if !claimed {
        let found = kept::find(&db, p.account_id, key).await?;
        let repeat =
            found.map(|k| k.repeat(&target.method, &target.path, &target.digest, p.token_id));
        return match repeat {
            Some(Repeat::Replay(r)) => opened(&sealing, r).await,
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
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    let headers = KeptHeaders {
        content_type: header("Content-Type").unwrap_or_else(|| "application/json".into()),
        location: header("Location"),
    };
    let mut body = resp.bytes().await?;
    if status >= 400 && headers.content_type.starts_with("application/json") {
        // An error body names its request (`request_id`); the kept one names this one, and
        // a replay gives that back byte for byte.
        body = named_error(body, &app.request_id);
    }
    // Our answers are JSON text; `lossy` never changes one.
    let body = String::from_utf8_lossy(&body).into_owned();
    let sealed = async {
        Ok::<_, worker::Error>(KeptResponse {
            status,
            headers: sealed::seal(&sealing, &headers.text()).await?,
            body: sealed::seal(&sealing, &body).await?,
        })
    };
    let kept_ok = match sealed.await {
        Ok(response) => kept::complete(&db, p.account_id, key, &response).await,
        Err(e) => Err(e),
    };
    if let Err(e) = kept_ok {
        // The write happened; a repeat within a minute gets 409, later it runs again.
        worker::console_error!("keeping an idempotent response failed: {e}");
    }
    let answer = resp.headers().clone();
    Ok(Response::builder()
        .with_status(status)
        .with_headers(answer)
        .fixed(body.into_bytes()))
}
