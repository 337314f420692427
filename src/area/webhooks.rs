//! Webhooks (account-area.md 2): to be built.

use worker::{Request, Response};

use super::{Ctx, Signed};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;

pub async fn page(_app: &App, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn create(_app: &App, _req: Request, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn one(
    _app: &App,
    _req: &Request,
    _ctx: &Ctx,
    _s: &Signed,
    _id: i64,
) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn update(
    _app: &App,
    _req: Request,
    _ctx: &Ctx,
    _s: &Signed,
    _id: i64,
) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn rotate(_app: &App, _ctx: &Ctx, _s: &Signed, _id: i64) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn delete(_app: &App, _ctx: &Ctx, _s: &Signed, _id: i64) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}

pub async fn redeliver(
    _app: &App,
    _ctx: &Ctx,
    _s: &Signed,
    _id: i64,
    _event: &str,
) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}
