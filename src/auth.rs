//! Bearer-token authentication and scope/plan authorisation (spec 5).

use std::cell::RefCell;
use std::collections::HashMap;

use worker::Request;

use crate::db::Start;
use crate::domain::principal::Principal;
use crate::domain::ratelimit::Decision;
use crate::domain::token::{hash_token, is_minted, Scope};
use crate::durable::rate_limiter::client::{self as gate, Gate};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::bearer;
use crate::http::App;
use crate::store::tokens;

/// Who is asking, whether they may, and the bookmark of the token's latest write.
#[derive(Debug)]
pub struct Admitted {
    pub principal: Principal,
    pub decision: Decision,
    pub bookmark: Option<String>,
    /// The token's hash: its object is told the bookmark of a write.
    pub hash: String,
}

/// The hash of the request's bearer token, if it is one this service minted: a token we
/// did not mint costs no Durable Object and no D1 read.
pub fn token_hash(app: &App, req: &Request) -> ApiResult<String> {
    let header = req.headers().get("Authorization").ok().flatten();
    let token = bearer(header.as_deref()).ok_or(ApiError::Unauthenticated)?;
    if !is_minted(token, &app.config.token_pepper) {
        return Err(ApiError::Unauthenticated);
    }
    Ok(hash_token(token))
}

/// What this isolate last heard from a token's object: who the token was and the bookmark
/// of its latest write. Only ever a guess to start a read early; the gate still decides.
#[derive(Debug, Clone)]
pub struct Hint {
    pub principal: Principal,
    pub bookmark: Option<String>,
}

thread_local! {
    static HINTS: RefCell<HashMap<String, Hint>> = RefCell::new(HashMap::new());
}

/// Hints kept per isolate; past this the map starts over (it only saves time).
const MAX_HINTS: usize = 1024;

pub fn hint(hash: &str) -> Option<Hint> {
    HINTS.with(|h| h.borrow().get(hash).cloned())
}

fn remember_hint(hash: &str, hint: Option<Hint>) {
    HINTS.with(|h| {
        let mut hints = h.borrow_mut();
        match hint {
            Some(hint) => {
                if hints.len() >= MAX_HINTS {
                    hints.clear();
                }
                hints.insert(hash.to_string(), hint);
            }
            None => {
                hints.remove(hash);
            }
        }
    });
}

/// A write's bookmark, for this isolate's next read of the token.
pub fn note_write(hash: &str, bookmark: &str) {
    if let Some(mut h) = hint(hash) {
        h.bookmark = Some(bookmark.to_string());
        remember_hint(hash, Some(h));
    }
}

/// The gate call: resolves the token and counts the request against its rate limit, in
/// one call to the token's Durable Object. If that object cannot be reached,
/// authentication falls back to D1 and the limit fails open (logged): an outage of the
/// limiter must not become an outage of the API, nor a way past authentication.
pub async fn admit(app: &App, hash: String, limit: u32) -> ApiResult<Admitted> {
    let admitted = gate_call(app, hash, limit).await;
    if let Ok(a) = &admitted {
        let hint = Hint {
            principal: a.principal.clone(),
            bookmark: a.bookmark.clone(),
        };
        remember_hint(&a.hash, Some(hint));
    }
    admitted
}

async fn gate_call(app: &App, hash: String, limit: u32) -> ApiResult<Admitted> {
    match gate::check(&app.env, &hash, limit).await {
        Ok(Gate {
            auth: Some(row),
            decision: Some(decision),
            bookmark,
        }) => Ok(Admitted {
            principal: row.principal(),
            decision,
            bookmark,
            hash,
        }),
        Ok(_) => {
            remember_hint(&hash, None);
            Err(ApiError::Unauthenticated)
        }
        Err(e) => {
            worker::console_error!("token gate unavailable, failing open on the rate limit: {e}");
            // Without the object there is no bookmark to honour: read from the primary.
            app.start_reads(Start::Primary);
            let row = tokens::lookup(&*app.directory()?, &hash)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            Ok(Admitted {
                principal: row.principal(),
                decision: Decision::fail_open(limit),
                bookmark: None,
                hash,
            })
        }
    }
}

/// Plan first (a token of a plan without API access is refused whatever its scopes), then
/// one of the operation's scopes.
pub fn authorize(principal: &Principal, any_of: &[Scope]) -> ApiResult<()> {
    Ok(principal.may_any(any_of)?)
}
