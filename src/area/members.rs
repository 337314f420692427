//! Members and passkeys (account-area.md 1, 2): to be built.

use worker::{Request, Response};

use super::{Ctx, Signed};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;

pub async fn page(_app: &App, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn invite(_app: &App, _req: Request, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn remove(_app: &App, _ctx: &Ctx, _s: &Signed, _id: i64) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn passkey_options(_app: &App, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn add_passkey(
    _app: &App,
    _req: Request,
    _ctx: &Ctx,
    _s: &Signed,
) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn rename_passkey(
    _app: &App,
    _req: Request,
    _ctx: &Ctx,
    _s: &Signed,
    _id: i64,
) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn remove_passkey(_app: &App, _ctx: &Ctx, _s: &Signed, _id: i64) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}
