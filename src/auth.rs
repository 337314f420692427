//! Bearer-token authentication and scope/plan authorisation (spec 5).

use std::cell::RefCell;
use std::collections::HashMap;

use worker::Request;

use crate::db::Start;
use crate::domain::own_writes::Settle;
use crate::domain::principal::Principal;
use crate::domain::ratelimit::Decision;
use crate::domain::token::{hash_token, is_minted, Scope};
use crate::durable::rate_limiter::client::{self as gate, Gate};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::bearer;
use crate::http::App;
use crate::store::tokens;

/// Who is asking, whether they may, and where their reads start.
#[derive(Debug)]
pub struct Admitted {
    pub principal: Principal,
    pub decision: Decision,
    /// The bookmark of the token's newest settled write.
    pub bookmark: Option<String>,
    /// A write of the token may be unsettled: reads start at the primary.
    pub primary: bool,
    /// An admitted write's mark, settled by this isolate's next gate call ([`settle_later`]).
    pub mark: Option<u64>,
    /// The token's hash: the key of its object and of its pending settles.
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

/// What this isolate last heard from a token's object: who the token was and where its
/// reads started. Only ever a guess to start a read early; the gate still decides.
#[derive(Debug, Clone)]
pub struct Hint {
    pub principal: Principal,
    pub bookmark: Option<String>,
    pub primary: bool,
}

/// What this isolate keeps per token hash.
#[derive(Default)]
struct Known {
    /// What the token's object last said.
    hint: Option<Hint>,
    /// This isolate's answered writes of the token whose bookmark the object has not had
    /// yet: they go with the isolate's next gate call for the token, oldest first.
    unsettled: Vec<Settle>,
}

thread_local! {
    static TOKENS: RefCell<HashMap<String, Known>> = RefCell::new(HashMap::new());
}

/// Tokens kept per isolate; past this the map starts over. Hints only save time, and a
/// settle lost with them only sends its token's reads to the primary until the mark
/// expires.
const MAX_TOKENS: usize = 1024;
/// Settles kept per token; past this the oldest go (the same holds for them).
const MAX_SETTLES: usize = 32;

pub fn hint(hash: &str) -> Option<Hint> {
    TOKENS.with(|t| t.borrow().get(hash).and_then(|k| k.hint.clone()))
}

/// What this isolate keeps of a token, made if it keeps nothing yet.
fn with_known<R>(hash: &str, f: impl FnOnce(&mut Known) -> R) -> R {
    TOKENS.with(|t| {
        let mut tokens = t.borrow_mut();
        if tokens.len() >= MAX_TOKENS && !tokens.contains_key(hash) {
            tokens.clear();
        }
        f(tokens.entry(hash.to_string()).or_default())
    })
}

/// Forgets a token the gate does not know (its settles no longer matter).
fn forget(hash: &str) {
    TOKENS.with(|t| t.borrow_mut().remove(hash));
}

/// After a write, before its answer leaves: what it settles waits for this isolate's
/// next gate call for the token, and this isolate's next read of it guesses the gate
/// will then answer after the write's bookmark.
pub fn settle_later(hash: &str, settle: Settle) {
    with_known(hash, |known| {
        if let (Some(b), Some(hint)) = (&settle.bookmark, known.hint.as_mut()) {
            hint.bookmark = Some(b.clone());
            // Its mark goes with the settle: the gate should then answer after `b`.
            if settle.mark.is_some() {
                hint.primary = false;
            }
        }
        known.unsettled.push(settle);
        let over = known.unsettled.len().saturating_sub(MAX_SETTLES);
        known.unsettled.drain(..over);
    });
}

/// The token's pending settles, taken for a gate call.
fn take_settles(hash: &str) -> Vec<Settle> {
    TOKENS.with(|t| {
        t.borrow_mut()
            .get_mut(hash)
            .map(|k| std::mem::take(&mut k.unsettled))
            .unwrap_or_default()
    })
}

/// Puts settles whose call failed back, ahead of any queued since.
fn requeue(hash: &str, mut settles: Vec<Settle>) {
    if settles.is_empty() {
        return;
    }
    with_known(hash, |known| {
        settles.append(&mut known.unsettled);
        let over = settles.len().saturating_sub(MAX_SETTLES);
        settles.drain(..over);
        known.unsettled = settles;
    });
}

/// The gate call: resolves the token and counts the request against its rate limit, in
/// one call to the token's Durable Object, which also marks a `write` and takes this
/// isolate's pending settles for the token. If that object cannot be reached,
/// authentication falls back to D1 and the limit fails open (logged): an outage of the
/// limiter must not become an outage of the API, nor a way past authentication.
pub async fn admit(app: &App, hash: String, limit: u32, write: bool) -> ApiResult<Admitted> {
    let admitted = gate_call(app, hash, limit, write).await;
    if let Ok(a) = &admitted {
        let hint = Hint {
            principal: a.principal.clone(),
            bookmark: a.bookmark.clone(),
            primary: a.primary,
        };
        with_known(&a.hash, |known| known.hint = Some(hint));
    }
    admitted
}

async fn gate_call(app: &App, hash: String, limit: u32, write: bool) -> ApiResult<Admitted> {
    let settles = take_settles(&hash);
    // Kept to queue again if the call fails: settling one twice clears nothing else.
    let sent = settles.clone();
    match gate::check(&app.env, &hash, limit, write, settles).await {
        Ok(Gate {
            auth: Some(row),
            decision: Some(decision),
            bookmark,
            primary,
            mark,
        }) => Ok(Admitted {
            principal: row.principal(),
            decision,
            bookmark,
            primary,
            mark,
            hash,
        }),
        Ok(_) => {
            forget(&hash);
            Err(ApiError::Unauthenticated)
        }
        Err(e) => {
            worker::console_error!("token gate unavailable, failing open on the rate limit: {e}");
            requeue(&hash, sent);
            // Without the object there is no bookmark to honour: read from the primary.
            app.start_reads(Start::Primary);
            let row = tokens::lookup(&*app.directory()?, &hash)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            Ok(Admitted {
                principal: row.principal(),
                decision: Decision::fail_open(limit),
                bookmark: None,
                primary: true,
                mark: None,
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
