//! Company templates (teams.md 1), answered as the API answers; the changes are
//! `ops::templates'`. SQLite builds the representation (`views::template_object`).

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{self, query};
use crate::http::response::{json_text_response, paged_text};
use crate::http::App;
use crate::ops;
use crate::store::templates;

/// The template operations.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    List,
    Get(i64),
    Create,
    Update(i64),
    Delete(i64),
}

/// One boxed future for every operation: the router's state machines stay as they were.
pub fn handle<'a>(
    app: &'a App,
    p: &'a Principal,
    req: &'a Request,
    op: Op,
    body: &'a Map<String, Value>,
) -> Pin<Box<dyn Future<Output = ApiResult<Response>> + 'a>> {
    Box::pin(async move {
        ops::templates::allowed(p)?;
        let (id, status, message) = match op {
            Op::List => {
                let page = params::page(&query(req));
                let (items, total) = templates::list(&*app.db()?, p.account_id, page).await?;
                return paged_text(&items, page.meta(total));
            }
            Op::Get(id) => (id, 200, None),
            Op::Create => (
                ops::templates::make(app, p, body).await?,
                201,
                Some("Template created successfully."),
            ),
            Op::Update(id) => {
                ops::templates::change(app, p, id, body).await?;
                (id, 200, Some("Template updated successfully."))
            }
            Op::Delete(id) => {
                ops::templates::remove(app, p, id).await?;
                let body = r#"{"message":"Template deleted successfully."}"#;
                return Ok(json_text_response(200, body.into()));
            }
        };
        // The representation, read after the change that made or changed it, as SQLite
        // made it.
        let json = templates::get(&*app.db()?, p.account_id, id)
            .await?
            .ok_or(ApiError::NotFound)?;
        let body = match message {
            Some(m) => format!(r#"{{"data":{},"message":"{m}"}}"#, json.json),
            None => format!(r#"{{"data":{}}}"#, json.json),
        };
        let mut resp = json_text_response(status, body.into_bytes());
        if status == 201 {
            let _ = resp
                .headers_mut()
                .set("Location", &format!("/api/v1/templates/{id}"));
        }
        Ok(resp)
    })
}
