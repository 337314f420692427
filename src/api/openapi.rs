//! The published OpenAPI 3.1 description (spec 9.3), served without authentication. The
//! file is a static asset (`[assets]` in wrangler.toml), answered before the worker runs;
//! a request that reaches the worker anyway is handed to the assets binding.

use worker::{Request, Response};

use crate::http::error::ApiResult;
use crate::http::App;

pub async fn document(app: &App, req: Request) -> ApiResult<Response> {
    Ok(app.env.assets("ASSETS")?.fetch_request(req).await?)
}
