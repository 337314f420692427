//! Members of an account (account-area.md 1): invites by the operator and by owners, and
//! removal, each logged in its batch.

use crate::domain::member::{secret_hash, secret_text, InviteRequest, INVITE_MS, SECRET_BYTES};
use crate::domain::security::By;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::store::members::{self, InviteRow, NewInvite};

/// An invite: its row and its link, which exists only in this answer (the code is stored
/// hashed). `Conflict`-like 422 when the address is a member already; `NotFound` without
/// such an account.
pub async fn invite(
    app: &App,
    account_id: i64,
    request: &InviteRequest,
    by: &By,
) -> ApiResult<(InviteRow, String)> {
    let mut random = [0u8; SECRET_BYTES];
    getrandom::fill(&mut random).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    let code = secret_text(&random);
    let dir = app.directory()?;
    let hash = secret_hash(&code);
    let invite = NewInvite {
        account_id,
        email: &request.email,
        role: request.role,
        code_hash: &hash,
        expires_at: app.now_ms + INVITE_MS,
    };
    let made = members::invite(&dir, &invite, by, app.now_ms).await?;
    let Some(invite) = made else {
        return Err(ApiError::validation(
            "email",
            "This address is a member of the account already.".into(),
        ));
    };
    let url = format!("{}/app/invite/{code}", app.base_url);
    Ok((invite, url))
}

/// Removes a member (their passkeys and sessions go with them); never the last owner.
pub async fn remove(app: &App, account_id: i64, member_id: i64, by: &By) -> ApiResult<bool> {
    Ok(members::remove_member(&*app.directory()?, account_id, member_id, by, app.now_ms).await?)
}
