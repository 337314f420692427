//! Cards (account-area.md 2): to be built.

use worker::Response;

use super::{Ctx, Signed};
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;

pub async fn page(_app: &App, _ctx: &Ctx, _s: &Signed) -> ApiResult<Response> {
    Err(ApiError::NotFound)
}
