//! Operator API `/admin/v1` (product.md 3): accounts and their tokens. It stands in for
//! the dashboard and does not exist (404) unless the `ADMIN_TOKEN` secret is set.

use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use worker::{Request, Response};

use crate::domain::account::{validate_account, validate_token_request};
use crate::domain::card::Mode;
use crate::domain::time::iso8601;
use crate::domain::token::{format_token, hash_token, Scopes};
use crate::durable::rate_limiter;
use crate::http::auth::bearer;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::path_id;
use crate::http::respond::{json_object, json_response, ok};
use crate::http::App;
use crate::store::{accounts, tokens};

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
    fn new(row: &'a tokens::TokenRow, token: Option<&'a str>) -> Self {
        TokenOut {
            id: row.id,
            name: &row.name,
            scopes: Scopes::parse_stored(&row.scopes).names(),
            token,
            created_at: iso8601(row.created_at),
            // The one-time creation answer has the plaintext instead of usage.
            last_used_at: token.is_none().then(|| row.last_used_at.map(iso8601)),
        }
    }
}

/// Compares digests so the comparison time does not depend on where the strings differ.
fn same_secret(given: &str, expected: &str) -> bool {
    Sha256::digest(given.as_bytes()) == Sha256::digest(expected.as_bytes())
}

pub async fn handle(app: &App, mut req: Request, segments: &[&str]) -> ApiResult<Response> {
    let Some(admin_token) = app.secret("ADMIN_TOKEN") else {
        return Err(ApiError::NotFound);
    };
    let header = req.headers().get("Authorization").ok().flatten();
    match bearer(header.as_deref()) {
        Some(given) if same_secret(given, &admin_token) => {}
        _ => return Err(ApiError::Unauthenticated),
    }
    let method = crate::http::params::method(&req);
    let db = app.db()?;
    let id = |s: &str| path_id(s).ok_or(ApiError::NotFound);
    match (segments, method.as_str()) {
        (["accounts"], "POST") => {
            let changes = validate_account(&json_object(&mut req).await?, Mode::Create)?;
            let row = accounts::create(&db, &changes, app.now_ms)
                .await?
                .ok_or_else(|| ApiError::Internal("account insert returned no row".into()))?;
            Ok(json_response(201, &json!({"data": row.to_account()})))
        }
        (["accounts"], _) => Err(ApiError::MethodNotAllowed("POST")),
        (["accounts", account], m) => {
            let account = id(account)?;
            let row = match m {
                "GET" => accounts::get(&db, account).await?,
                "PATCH" | "PUT" => {
                    let changes = validate_account(&json_object(&mut req).await?, Mode::Update)?;
                    let row = accounts::update(&db, account, &changes).await?;
                    // Plan, features and limit are cached with each token: void them all.
                    for hash in tokens::hashes(&db, account).await? {
                        rate_limiter::invalidate(&app.env, &hash).await?;
                    }
                    row
                }
                _ => return Err(ApiError::MethodNotAllowed("GET, PATCH")),
            };
            ok(&json!({"data": row.ok_or(ApiError::NotFound)?.to_account()}))
        }
        (["accounts", account, "tokens"], m) => {
            let account = id(account)?;
            if accounts::get(&db, account).await?.is_none() {
                return Err(ApiError::NotFound);
            }
            match m {
                "POST" => {
                    let (name, scopes) = validate_token_request(&json_object(&mut req).await?)?;
                    let mut random = [0u8; 32];
                    getrandom::fill(&mut random)
                        .map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
                    let token = format_token(&random);
                    let row = tokens::create(
                        &db,
                        account,
                        &name,
                        &hash_token(&token),
                        &scopes.to_stored(),
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
            let hash = tokens::revoke(&db, id(token)?, app.now_ms)
                .await?
                .ok_or(ApiError::NotFound)?;
            // Answered only once the token's cached record is gone: the very next request
            // with it is refused.
            rate_limiter::invalidate(&app.env, &hash).await?;
            ok(&json!({"message": "Token revoked."}))
        }
        (["tokens", _], _) => Err(ApiError::MethodNotAllowed("DELETE")),
        _ => Err(ApiError::NotFound),
    }
}
