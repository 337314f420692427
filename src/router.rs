//! The top of the house: routing for the three surfaces: `/api/v1` (integrators), `/admin/v1` (operator) and
//! `/c/{slug}` (public card pages).

use worker::{Context, Env, Request, Response};

use crate::api;
use crate::auth;
use crate::domain::principal::Principal;
use crate::domain::token::Scope;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::{method, path_id};
use crate::http::response::json_response;
use crate::http::App;

/// The API operations; ids are already parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    ListCards,
    CreateCard,
    GetCard(i64),
    UpdateCard(i64),
    DeleteCard(i64),
    ListLeads,
    GetLead(i64),
    AnalyticsViews,
    AnalyticsClicks,
    OpenApi,
    /// A resource path whose id is no id (`/cards/abc`): a 404, answered after auth and
    /// rate limiting like any other missing resource, so it carries the same headers.
    BadId(Scope),
}

impl Route {
    pub fn scope(self) -> Scope {
        match self {
            Route::ListCards | Route::GetCard(_) => Scope::CardsRead,
            Route::CreateCard | Route::UpdateCard(_) | Route::DeleteCard(_) => Scope::CardsWrite,
            Route::ListLeads | Route::GetLead(_) => Scope::LeadsRead,
            // OpenApi is served before authentication; its scope is never checked.
            Route::AnalyticsViews | Route::AnalyticsClicks | Route::OpenApi => Scope::AnalyticsRead,
            Route::BadId(scope) => scope,
        }
    }
}

/// Matches `/api/v1/...` segments. Unknown paths are 404 and known paths with another
/// method 405, both before authentication, as no resource is revealed by either.
pub fn match_api(method: &str, segments: &[&str]) -> ApiResult<Route> {
    let route = match (segments, method) {
        (["cards"], "GET") => Route::ListCards,
        (["cards"], "POST") => Route::CreateCard,
        (["cards"], _) => return Err(ApiError::MethodNotAllowed("GET, POST")),
        (["cards", card], m) => match (m, path_id(card)) {
            ("GET", Some(card)) => Route::GetCard(card),
            ("PUT" | "PATCH", Some(card)) => Route::UpdateCard(card),
            ("DELETE", Some(card)) => Route::DeleteCard(card),
            ("GET", None) => Route::BadId(Scope::CardsRead),
            ("PUT" | "PATCH" | "DELETE", None) => Route::BadId(Scope::CardsWrite),
            _ => return Err(ApiError::MethodNotAllowed("GET, PUT, PATCH, DELETE")),
        },
        (["leads"], "GET") => Route::ListLeads,
        (["leads", lead], "GET") => {
            path_id(lead).map_or(Route::BadId(Scope::LeadsRead), Route::GetLead)
        }
        (["analytics", "views"], "GET") => Route::AnalyticsViews,
        (["analytics", "clicks"], "GET") => Route::AnalyticsClicks,
        (["openapi.json"], "GET") => Route::OpenApi,
        (["leads"] | ["leads", _] | ["analytics", "views" | "clicks"] | ["openapi.json"], _) => {
            return Err(ApiError::MethodNotAllowed("GET"))
        }
        _ => return Err(ApiError::NotFound),
    };
    Ok(route)
}

pub async fn handle(req: Request, env: Env, ctx: Context) -> Response {
    let app = App::new(&req, env, ctx);
    let path = req.path();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match segments.as_slice() {
        ["api", "v1", rest @ ..] => api_v1(&app, req, rest).await,
        ["c", rest @ ..] => crate::public::handle(&app, req, rest).await,
        ["admin", "v1", rest @ ..] => api::admin::handle(&app, req, rest)
            .await
            .unwrap_or_else(ApiError::into_response),
        [] => json_response(
            200,
            &serde_json::json!({
                "name": "Digital Business Card API",
                "api": "/api/v1",
                "openapi": "/api/v1/openapi.json"
            }),
        ),
        _ => ApiError::NotFound.into_response(),
    }
}

async fn api_v1(app: &App, req: Request, segments: &[&str]) -> Response {
    let method = method(&req);
    let route = match match_api(&method, segments) {
        Ok(route) => route,
        Err(e) => return e.into_response(),
    };
    if route == Route::OpenApi {
        return api::openapi::document();
    }
    let limit = app
        .var("RATE_LIMIT_PER_MINUTE")
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1000);
    let (principal, decision) = match auth::authenticate(app, &req, limit).await {
        Ok(found) => found,
        Err(e) => return e.into_response(),
    };
    let mut resp = if decision.allowed {
        dispatch(app, &principal, req, route)
            .await
            .unwrap_or_else(ApiError::into_response)
    } else {
        ApiError::TooManyRequests {
            retry_after: decision.retry_after,
        }
        .into_response()
    };
    let headers = resp.headers_mut();
    let _ = headers.set("X-RateLimit-Limit", &decision.limit.to_string());
    let _ = headers.set("X-RateLimit-Remaining", &decision.remaining.to_string());
    resp
}

async fn dispatch(app: &App, p: &Principal, req: Request, route: Route) -> ApiResult<Response> {
    auth::authorize(p, route.scope())?;
    match route {
        Route::ListCards => api::cards::list(app, p, &req).await,
        Route::CreateCard => api::cards::create(app, p, req).await,
        Route::GetCard(id) => api::cards::get(app, p, id).await,
        Route::UpdateCard(id) => api::cards::update(app, p, req, id).await,
        Route::DeleteCard(id) => api::cards::delete(app, p, id).await,
        Route::ListLeads => api::leads::list(app, p, &req).await,
        Route::GetLead(id) => api::leads::get(app, p, id).await,
        Route::AnalyticsViews => api::analytics::views(app, p, &req).await,
        Route::AnalyticsClicks => api::analytics::clicks(app, p, &req).await,
        Route::OpenApi => Ok(api::openapi::document()),
        Route::BadId(_) => Err(ApiError::NotFound),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(match_api("GET", &["cards"]).unwrap(), Route::ListCards);
        assert_eq!(
            match_api("PATCH", &["cards", "7"]).unwrap(),
            Route::UpdateCard(7)
        );
        assert_eq!(
            match_api("GET", &["leads", "3"]).unwrap(),
            Route::GetLead(3)
        );
        assert_eq!(
            match_api("GET", &["cards", "x"]).unwrap(),
            Route::BadId(Scope::CardsRead)
        );
        assert_eq!(
            match_api("PUT", &["cards", "-1"]).unwrap(),
            Route::BadId(Scope::CardsWrite)
        );
        assert!(matches!(
            match_api("GET", &["nope"]),
            Err(ApiError::NotFound)
        ));
        assert!(matches!(
            match_api("DELETE", &["cards"]),
            Err(ApiError::MethodNotAllowed(_))
        ));
        assert!(matches!(
            match_api("POST", &["analytics", "views"]),
            Err(ApiError::MethodNotAllowed("GET"))
        ));
        assert!(matches!(
            match_api("QUERY", &["leads", "1"]),
            Err(ApiError::MethodNotAllowed("GET"))
        ));
    }

    #[test]
    fn scopes_per_route() {
        assert_eq!(Route::GetCard(1).scope(), Scope::CardsRead);
        assert_eq!(Route::DeleteCard(1).scope(), Scope::CardsWrite);
        assert_eq!(Route::ListLeads.scope(), Scope::LeadsRead);
        assert_eq!(Route::AnalyticsClicks.scope(), Scope::AnalyticsRead);
    }
}
