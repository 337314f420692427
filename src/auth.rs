//! Bearer-token authentication and scope/plan authorisation (spec 5).

use worker::Request;

use crate::domain::principal::Principal;
use crate::domain::ratelimit::Decision;
use crate::domain::token::{hash_token, is_minted, Scope};
use crate::durable::rate_limiter::client::{self as gate, Gate};
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::bearer;
use crate::http::App;
use crate::store::tokens;

/// Resolves the token and counts the request against its rate limit, in one call to the
/// token's Durable Object. If that object cannot be reached, authentication falls back to
/// D1 and the limit fails open (logged): an outage of the limiter must not become an outage
/// of the API, nor a way past authentication.
pub async fn authenticate(
    app: &App,
    req: &Request,
    limit: u32,
) -> ApiResult<(Principal, Decision)> {
    let header = req.headers().get("Authorization").ok().flatten();
    let token = bearer(header.as_deref()).ok_or(ApiError::Unauthenticated)?;
    // A token we did not mint costs no Durable Object and no D1 read.
    if !is_minted(token, &app.token_pepper()) {
        return Err(ApiError::Unauthenticated);
    }
    let hash = hash_token(token);
    match gate::check(&app.env, &hash, limit).await {
        Ok(Gate {
            auth: Some(row),
            decision: Some(decision),
        }) => Ok((row.principal(), decision)),
        Ok(_) => Err(ApiError::Unauthenticated),
        Err(e) => {
            worker::console_error!("token gate unavailable, failing open on the rate limit: {e}");
            let row = tokens::lookup(&app.db()?, &hash)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            Ok((row.principal(), Decision::fail_open(limit)))
        }
    }
}

/// Plan first (a token of a plan without API access is refused whatever its scopes), then
/// one of the operation's scopes.
pub fn authorize(principal: &Principal, any_of: &[Scope]) -> ApiResult<()> {
    Ok(principal.may_any(any_of)?)
}
