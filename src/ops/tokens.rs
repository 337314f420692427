//! API tokens (spec 5, product.md 3): minted and revoked by the operator and by an
//! account's owners in the account area, each change logged in its batch.

use crate::domain::account::TokenRequest;
use crate::domain::security::By;
use crate::domain::token::{format_token, hash_token, Token, RANDOM_BYTES};
use crate::durable::rate_limiter::client as gate;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::{tokens, webhooks};

/// A new token of the account: its row and its plaintext, which exists only in this answer.
pub async fn mint(
    app: &App,
    account_id: i64,
    request: &TokenRequest,
    by: &By,
) -> ApiResult<(Token, String)> {
    let mut random = [0u8; RANDOM_BYTES];
    getrandom::fill(&mut random).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    let token = format_token(&random, &app.config.token_pepper);
    let row = tokens::create(
        &*app.directory()?,
        account_id,
        &request.name,
        &hash_token(&token),
        &request.scopes,
        app.now_ms,
        by,
    )
    .await?
    .ok_or_else(|| ApiError::Internal("token insert returned no row".into()))?;
    Ok((row, token))
}

/// Revokes a token (of `account` only, when given), whatever the account's state: answered
/// only once the token's cached record is gone, so the very next request with it is
/// refused (401). `NotFound` when there is no such token. Then the webhooks it answered
/// for are disabled in the account's shard: how many, or `None` while a move of the
/// account fences its shard (the move disables them where the account lands, and no
/// attempt of theirs is sent meanwhile: the consumer asks the directory).
pub async fn revoke(app: &App, id: i64, account: Option<i64>, by: &By) -> ApiResult<Option<usize>> {
    let revoked = tokens::revoke(&*app.directory()?, id, account, app.now_ms, by)
        .await?
        .ok_or(ApiError::NotFound)?;
    gate::invalidate(&app.env, &revoked.token_hash).await?;
    app.place(&revoked.shard)?;
    let disabled =
        webhooks::disable_for_token(&*app.db()?, revoked.account_id, id, app.now_ms).await;
    match disabled.map_err(ApiError::from) {
        Ok(n) => Ok(Some(n)),
        Err(ApiError::Moving) => Ok(None),
        Err(e) => Err(e),
    }
}
