//! Operator API `/admin/v1` (product.md 3): accounts and their tokens. It stands in for
//! the dashboard and does not exist (404) unless the `ADMIN_TOKEN` secret is set.

use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use worker::{Request, Response};

use crate::domain::account::{Account, AccountPatch, TokenRequest};
use crate::domain::input::Mode;
use crate::domain::signing::same;
use crate::domain::throttle::{address_key, Limit, Span, MINUTE_MS};
use crate::domain::time::iso8601;
use crate::domain::token::{format_token, hash_token, Token, RANDOM_BYTES};
use crate::durable::rate_limiter::client as gate;
use crate::durable::throttle::client as throttle;
use crate::http::body::json_object;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{bearer, client_address, method, path_id};
use crate::http::response::{json_response, ok};
use crate::http::App;
use crate::store::outbox;
use crate::store::{accounts, tokens, webhooks};

#[derive(Serialize)]
struct TokenOut<'a> {
    id: i64,
    name: &'a str,
    scopes: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<&'a str>,
    created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_used_at: Option<Option<String>>,
}

impl<'a> TokenOut<'a> {
    fn new(row: &'a Token, token: Option<&'a str>) -> Self {
        TokenOut {
            id: row.id,
            name: &row.name,
            scopes: row.scopes.names(),
            token,
            created_at: iso8601(row.created_at),
            // The one-time creation answer has the plaintext instead of usage.
            last_used_at: token.is_none().then(|| row.last_used_at.map(iso8601)),
        }
    }
}

/// Compares digests, equal in length, so the time depends neither on where the strings
/// differ nor on the token's length.
fn same_secret(given: &str, expected: &str) -> bool {
    same(
        &Sha256::digest(given.as_bytes()),
        &Sha256::digest(expected.as_bytes()),
    )
}

/// Failed admin-token attempts allowed per client address per minute (extensions.md 5).
const FAILED_ADMIN_LOGINS_PER_MINUTE: u32 = 10;

/// Throttles guessing: a wrong token takes a slot of its address's failure budget (401
/// while there is one, 429 once it is spent), and a right token from an address whose
/// budget is spent is refused the same way, so a guess that comes too late learns nothing.
async fn guard(app: &App, req: &Request, valid: bool) -> ApiResult<()> {
    let salt = app.secret("VISITOR_SALT").unwrap_or_default();
    let object = throttle::admin_object(&address_key(&salt, &client_address(req)));
    let limits = vec![Limit {
        bucket: "failed".into(),
        max: FAILED_ADMIN_LOGINS_PER_MINUTE,
        span: Span::Rolling(MINUTE_MS),
    }];
    let verdict = if valid {
        throttle::peek(&app.env, &object, limits).await?
    } else {
        throttle::take(&app.env, &object, limits).await?
    };
    match (verdict.allowed, valid) {
        (false, _) => Err(ApiError::TooManyRequests {
            retry_after: verdict.retry_after,
        }),
        (true, false) => Err(ApiError::Unauthenticated),
        (true, true) => Ok(()),
    }
}

pub async fn handle(app: &App, mut req: Request, segments: &[&str]) -> ApiResult<Response> {
    let Some(admin_token) = app.secret("ADMIN_TOKEN") else {
        return Err(ApiError::NotFound);
    };
    let header = req.headers().get("Authorization").ok().flatten();
    let valid = bearer(header.as_deref()).is_some_and(|given| same_secret(given, &admin_token));
    guard(app, &req, valid).await?;
    let method = method(&req);
    let db = app.db()?;
    let id = |s: &str| path_id(s).ok_or(ApiError::NotFound);
    match (segments, method.as_str()) {
        (["accounts"], "POST") => {
            let patch = AccountPatch::parse(&json_object(&mut req).await?, Mode::Create)?;
            let account = accounts::create(&db, &patch, app.now_ms)
                .await?
                .ok_or_else(|| ApiError::Internal("account insert returned no row".into()))?;
            Ok(json_response(201, &json!({"data": account.view()})))
        }
        (["accounts"], _) => Err(ApiError::MethodNotAllowed("POST")),
        (["accounts", account], m) => {
            let account = id(account)?;
            let found = match m {
                "GET" => accounts::get(&db, account).await?,
                "PATCH" | "PUT" => {
                    let patch = AccountPatch::parse(&json_object(&mut req).await?, Mode::Update)?;
                    let found = accounts::update(&db, account, &patch).await?;
                    // Plan, features and limit are cached with each token: void them all.
                    gate::invalidate_all(&app.env, &tokens::hashes(&db, account).await?).await?;
                    // With API access (back), webhook attempts that waited for it go now.
                    if found.as_ref().is_some_and(Account::api_access) {
                        let waiting = webhooks::resume(&db, account, app.now_ms).await?;
                        outbox::dispatch(&app.env, &app.ctx, waiting);
                    }
                    found
                }
                "DELETE" => {
                    let hashes = tokens::hashes(&db, account).await?;
                    if !accounts::delete(&db, account).await? {
                        return Err(ApiError::NotFound);
                    }
                    // Answered once no cached record of its tokens remains.
                    gate::invalidate_all(&app.env, &hashes).await?;
                    return ok(&json!({"message": "Account deleted."}));
                }
                _ => return Err(ApiError::MethodNotAllowed("GET, PATCH, DELETE")),
            };
            ok(&json!({"data": found.ok_or(ApiError::NotFound)?.view()}))
        }
        (["accounts", account, "tokens"], m) => {
            let account = id(account)?;
            if accounts::get(&db, account).await?.is_none() {
                return Err(ApiError::NotFound);
            }
            match m {
                "POST" => {
                    let request = TokenRequest::parse(&json_object(&mut req).await?)?;
                    let mut random = [0u8; RANDOM_BYTES];
                    getrandom::fill(&mut random)
                        .map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
                    let token = format_token(&random, &app.token_pepper());
                    let row = tokens::create(
                        &db,
                        account,
                        &request.name,
                        &hash_token(&token),
                        &request.scopes,
                        app.now_ms,
                    )
                    .await?
                    .ok_or_else(|| ApiError::Internal("token insert returned no row".into()))?;
                    Ok(json_response(
                        201,
                        &json!({"data": TokenOut::new(&row, Some(&token))}),
                    ))
                }
                "GET" => {
                    let rows = tokens::list(&db, account).await?;
                    let data: Vec<TokenOut> = rows.iter().map(|r| TokenOut::new(r, None)).collect();
                    ok(&json!({ "data": data }))
                }
                _ => Err(ApiError::MethodNotAllowed("GET, POST")),
            }
        }
        (["tokens", token], "DELETE") => {
            let revoked = tokens::revoke(&db, id(token)?, app.now_ms)
                .await?
                .ok_or(ApiError::NotFound)?;
            // Answered only once the token's cached record is gone: the very next request
            // with it is refused.
            gate::invalidate(&app.env, &revoked.hash).await?;
            ok(&json!({
                "message": "Token revoked.",
                "webhooks_disabled": revoked.webhooks_disabled
            }))
        }
        (["tokens", _], _) => Err(ApiError::MethodNotAllowed("DELETE")),
        _ => Err(ApiError::NotFound),
    }
}
