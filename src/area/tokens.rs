//! API tokens (account-area.md 2): to be built.

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

pub async fn revoke(_app: &App, _ctx: &Ctx, _s: &Signed, _id: i64) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}
