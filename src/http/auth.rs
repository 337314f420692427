//! Bearer-token authentication and scope/plan authorisation (spec 5).

use worker::Request;

use super::error::{ApiError, ApiResult};
use super::App;
use crate::domain::plan::{Features, Overrides, Plan};
use crate::domain::ratelimit::Decision;
use crate::domain::token::{hash_token, looks_like_token, Scope, Scopes};
use crate::durable::rate_limiter::{self, Gate};
use crate::store::tokens::{self, AuthRow};

/// The authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal {
    pub token_id: i64,
    pub account_id: i64,
    pub scopes: Scopes,
    pub features: Features,
    pub card_limit: i64,
}

impl Principal {
    fn from_row(row: &AuthRow) -> Principal {
        let overrides = Overrides {
            card_limit: row.card_limit,
            api_access: row.api_access.map(|v| v != 0),
            advanced_analytics: row.advanced_analytics.map(|v| v != 0),
            white_label: row.white_label.map(|v| v != 0),
            lead_form: row.lead_form.map(|v| v != 0),
        };
        let (features, card_limit) =
            overrides.effective(Plan::parse(&row.plan).unwrap_or(Plan::Free));
        Principal {
            token_id: row.token_id,
            account_id: row.account_id,
            scopes: Scopes::parse_stored(&row.scopes),
            features,
            card_limit,
        }
    }
}

/// `Authorization: Bearer <token>`; the scheme is case-insensitive (RFC 7235).
pub fn bearer(header: Option<&str>) -> Option<&str> {
    let (scheme, token) = header?.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

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
    if !looks_like_token(token) {
        return Err(ApiError::Unauthenticated);
    }
    let hash = hash_token(token);
    match rate_limiter::check(&app.env, &hash, limit).await {
        Ok(Gate {
            auth: Some(row),
            decision: Some(decision),
        }) => Ok((Principal::from_row(&row), decision)),
        Ok(_) => Err(ApiError::Unauthenticated),
        Err(e) => {
            worker::console_error!("token gate unavailable, failing open on the rate limit: {e}");
            let row = tokens::lookup(&app.db()?, &hash)
                .await?
                .ok_or(ApiError::Unauthenticated)?;
            Ok((Principal::from_row(&row), Decision::fail_open(limit)))
        }
    }
}

/// Plan first (a token of a plan without API access is refused whatever its scopes), then
/// the operation's scope.
pub fn authorize(principal: &Principal, needed: Scope) -> ApiResult<()> {
    if !principal.features.api_access {
        return Err(ApiError::NoApiAccess);
    }
    if !principal.scopes.grants(needed) {
        return Err(ApiError::MissingScope);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::bearer;

    #[test]
    fn bearer_parsing() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }
}
