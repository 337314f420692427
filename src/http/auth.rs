//! Bearer-token authentication and scope/plan authorisation (spec 5).

use worker::Request;

use super::error::{ApiError, ApiResult};
use super::App;
use crate::domain::plan::{Features, Overrides, Plan};
use crate::domain::token::{hash_token, looks_like_token, Scope, Scopes};
use crate::store::tokens::{self, AuthRow};

/// `last_used_at` is written at most once per this interval per token, off the hot path.
const TOUCH_INTERVAL_MS: i64 = 60_000;

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

pub async fn authenticate(app: &App, req: &Request) -> ApiResult<Principal> {
    let header = req.headers().get("Authorization").ok().flatten();
    let token = bearer(header.as_deref()).ok_or(ApiError::Unauthenticated)?;
    if !looks_like_token(token) {
        return Err(ApiError::Unauthenticated);
    }
    let row = tokens::lookup(&app.db()?, &hash_token(token))
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    if row
        .last_used_at
        .is_none_or(|t| app.now_ms - t >= TOUCH_INTERVAL_MS)
    {
        let env = app.env.clone();
        let (id, now) = (row.token_id, app.now_ms);
        app.ctx.wait_until(async move {
            let result = match env.d1("DB") {
                Ok(db) => tokens::touch(&db, id, now, TOUCH_INTERVAL_MS).await,
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                worker::console_warn!("recording token use failed: {e}");
            }
        });
    }
    Ok(Principal::from_row(&row))
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
