//! Operator API `/admin/v1` (product.md 3): accounts and their tokens. It stands in for
//! the dashboard and does not exist (404) unless the `ADMIN_TOKEN` secret is set.

use serde::Serialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use worker::{Request, Response};

use crate::domain::account::{AccountPatch, TokenRequest};
use crate::domain::input::Mode;
use crate::domain::member::InviteRequest;
use crate::domain::region::{Region, Topology};
use crate::domain::signing::same;
use crate::domain::throttle::{address_key, Limit, Span, MINUTE_MS};
use crate::domain::time::iso8601;
use crate::domain::token::Token;
use crate::domain::validation::{self as v, FieldErrors};
use crate::durable::throttle::client as throttle;
use crate::http::body::json_object;
use crate::http::error::{ApiError, ApiResult};
use crate::http::json::json_response;
use crate::http::params::{bearer, client_address, method, path_id};
use crate::http::paths::{self, Path, Seg::Hole, Seg::Lit};
use crate::http::response::{created, ok};
use crate::http::App;
use crate::ops;
use crate::store::moves;
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
    fn new(row: &'a Token, token: Option<&'a str>) -> Self {
        TokenOut {
            id: row.id,
            name: &row.name,
            scopes: row.scopes.names(),
            token,
            created_at: iso8601(row.created_at),
            // The one-time creation answer has the plaintext instead of usage.
            last_used_at: token.is_none().then(|| row.last_used_at.map(iso8601)),
        }
    }
}

/// Compares digests, equal in length, so the time depends neither on where the strings
/// differ nor on the token's length.
fn same_secret(given: &str, expected: &str) -> bool {
    same(
        &Sha256::digest(given.as_bytes()),
        &Sha256::digest(expected.as_bytes()),
    )
}

/// Failed admin-token attempts allowed per client address per minute (extensions.md 5).
const FAILED_ADMIN_LOGINS_PER_MINUTE: u32 = 10;

/// Throttles guessing: a wrong token takes a slot of its address's failure budget (401
/// while there is one, 429 once it is spent), and a right token from an address whose
/// budget is spent is refused the same way, so a guess that comes too late learns nothing.
async fn guard(app: &App, req: &Request, valid: bool) -> ApiResult<()> {
    let salt = &app.config.visitor_salt;
    let object = throttle::admin_object(&address_key(salt, &client_address(req)));
    let limits = vec![Limit {
        bucket: "failed".into(),
        max: FAILED_ADMIN_LOGINS_PER_MINUTE,
        span: Span::Rolling(MINUTE_MS),
    }];
    let verdict = if valid {
        throttle::peek(&app.env, &object, limits).await?
    } else {
        throttle::take(&app.env, &object, limits).await?
    };
    match (verdict.allowed, valid) {
        (false, _) => Err(ApiError::TooManyRequests {
            retry_after: verdict.retry_after,
        }),
        (true, false) => Err(ApiError::Unauthenticated),
        (true, true) => Ok(()),
    }
}

/// The operator API's operations; ids are already parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdminRoute {
    CreateAccount,
    GetAccount(i64),
    UpdateAccount(i64),
    DeleteAccount(i64),
    ListTokens(i64),
    CreateToken(i64),
    RevokeToken(i64),
    /// `POST /accounts/{id}/invites`: an invite link to the account area
    /// (account-area.md 1).
    Invite(i64),
    /// `GET /regions`: every region and shard with its number of accounts.
    Regions,
    /// `POST /accounts/{id}/move` and `GET /moves/{id}` (regions.md 4).
    StartMove(i64),
    GetMove(i64),
    /// A path whose id is no id: 404, like a missing account or token.
    BadId,
}

/// The operation of a path's one id, or [`AdminRoute::BadId`].
fn with_id(holes: &[&str], route: fn(i64) -> AdminRoute) -> AdminRoute {
    holes
        .first()
        .and_then(|s| path_id(s))
        .map_or(AdminRoute::BadId, route)
}

/// Every path of `/admin/v1` and the methods it answers: routing and `Allow` come from it.
const PATHS: &[Path<AdminRoute>] = &[
    Path {
        segs: &[Lit("accounts")],
        methods: &[("POST", |_| AdminRoute::CreateAccount)],
    },
    Path {
        segs: &[Lit("accounts"), Hole],
        methods: &[
            ("GET", |h| with_id(h, AdminRoute::GetAccount)),
            ("PUT", |h| with_id(h, AdminRoute::UpdateAccount)),
            ("PATCH", |h| with_id(h, AdminRoute::UpdateAccount)),
            ("DELETE", |h| with_id(h, AdminRoute::DeleteAccount)),
        ],
    },
    Path {
        segs: &[Lit("accounts"), Hole, Lit("tokens")],
        methods: &[
            ("GET", |h| with_id(h, AdminRoute::ListTokens)),
            ("POST", |h| with_id(h, AdminRoute::CreateToken)),
        ],
    },
    Path {
        segs: &[Lit("accounts"), Hole, Lit("invites")],
        methods: &[("POST", |h| with_id(h, AdminRoute::Invite))],
    },
    Path {
        segs: &[Lit("tokens"), Hole],
        methods: &[("DELETE", |h| with_id(h, AdminRoute::RevokeToken))],
    },
    Path {
        segs: &[Lit("regions")],
        methods: &[("GET", |_| AdminRoute::Regions)],
    },
    Path {
        segs: &[Lit("accounts"), Hole, Lit("move")],
        methods: &[("POST", |h| with_id(h, AdminRoute::StartMove))],
    },
    Path {
        segs: &[Lit("moves"), Hole],
        methods: &[("GET", |h| with_id(h, AdminRoute::GetMove))],
    },
];

/// The operation `method` makes of `segments` (after `/admin/v1`); 404 or 405 otherwise.
pub fn route(method: &str, segments: &[&str]) -> ApiResult<AdminRoute> {
    paths::find(PATHS, method, segments)
}

/// `/admin/v1`: the admin token first (so nobody without it learns which paths exist),
/// then the route.
pub async fn handle(app: &App, req: Request, segments: &[&str]) -> ApiResult<Response> {
    let Some(admin_token) = app.config.admin_token.as_deref() else {
        return Err(ApiError::NotFound);
    };
    let header = req.headers().get("Authorization").ok().flatten();
    let valid = bearer(header.as_deref()).is_some_and(|given| same_secret(given, admin_token));
    guard(app, &req, valid).await?;
    let route = route(&method(&req), segments)?;
    dispatch(app, req, route).await
}

async fn dispatch(app: &App, mut req: Request, route: AdminRoute) -> ApiResult<Response> {
    match route {
        AdminRoute::CreateAccount => {
            let patch = AccountPatch::parse(&json_object(&mut req).await?, Mode::Create)?;
            let account = ops::accounts::create(app, &patch).await?;
            let location = format!("/admin/v1/accounts/{}", account.id);
            Ok(created(&location, &json!({"data": account.view()})))
        }
        AdminRoute::GetAccount(account) => {
            let found = accounts::get(&*app.directory()?, account).await?;
            ok(&json!({"data": found.ok_or(ApiError::NotFound)?.view()}))
        }
        AdminRoute::UpdateAccount(account) => {
            let patch = AccountPatch::parse(&json_object(&mut req).await?, Mode::Update)?;
            let found = ops::accounts::update(app, account, &patch).await?;
            ok(&json!({"data": found.view()}))
        }
        AdminRoute::DeleteAccount(account) => {
            ops::accounts::delete(app, account).await?;
            ok(&json!({"message": "Account deleted."}))
        }
        AdminRoute::ListTokens(account) => {
            let dir = app.directory()?;
            if accounts::get(&dir, account).await?.is_none() {
                return Err(ApiError::NotFound);
            }
            let rows = tokens::list(&dir, account).await?;
            let data: Vec<TokenOut> = rows.iter().map(|r| TokenOut::new(r, None)).collect();
            ok(&json!({ "data": data }))
        }
        AdminRoute::CreateToken(account) => {
            if accounts::get(&*app.directory()?, account).await?.is_none() {
                return Err(ApiError::NotFound);
            }
            let request = TokenRequest::parse(&json_object(&mut req).await?)?;
            let (row, token) =
                ops::tokens::mint(app, account, &request, &ops::by_operator(app)).await?;
            // A token is managed (revoked) at its own path.
            let location = format!("/admin/v1/tokens/{}", row.id);
            Ok(created(
                &location,
                &json!({"data": TokenOut::new(&row, Some(&token))}),
            ))
        }
        AdminRoute::RevokeToken(token) => {
            let disabled = ops::tokens::revoke(app, token, None, &ops::by_operator(app)).await?;
            let message = match disabled {
                Some(_) => "Token revoked.",
                None => "Token revoked. The account is moving: the webhooks the token answers for are disabled when the move ends, and none of their deliveries is sent meanwhile.",
            };
            ok(&json!({
                "message": message,
                "webhooks_disabled": disabled.unwrap_or(0)
            }))
        }
        AdminRoute::Invite(account) => {
            if accounts::get(&*app.directory()?, account).await?.is_none() {
                return Err(ApiError::NotFound);
            }
            let request = InviteRequest::parse(&json_object(&mut req).await?)?;
            let (invite, url) =
                ops::members::invite(app, account, &request, &ops::by_operator(app)).await?;
            let body = json!({"data": {
                "id": invite.id,
                "email": invite.email,
                "role": invite.role,
                "url": url,
                "expires_at": iso8601(invite.expires_at),
            }});
            Ok(json_response(201, &body))
        }
        AdminRoute::StartMove(account) => {
            let body = json_object(&mut req).await?;
            let region = parse_move(&body, app.topology()?)?;
            let started = ops::accounts::start_move(app, account, region).await?;
            let location = format!("/admin/v1/moves/{}", started.id);
            let mut resp = json_response(202, &json!({"data": started.view()}));
            let _ = resp.headers_mut().set("Location", &location);
            Ok(resp)
        }
        AdminRoute::GetMove(id) => {
            let found = moves::get(&*app.directory()?, id)
                .await?
                .ok_or(ApiError::NotFound)?;
            ok(&json!({"data": found.view()}))
        }
        AdminRoute::Regions => {
            let topology = app.topology()?;
            let counts = accounts::per_shard(&*app.directory()?).await?;
            let data: Vec<_> = topology
                .regions()
                .into_iter()
                .map(|region| {
                    let shards: Vec<_> = topology
                        .in_region(region)
                        .map(|s| json!({"name": s.binding, "accounts": counts.of(&s.binding)}))
                        .collect();
                    json!({"region": region.as_str(), "shards": shards})
                })
                .collect();
            ok(&json!({ "data": data }))
        }
        AdminRoute::BadId => Err(ApiError::NotFound),
    }
}

/// The region of a move request: one of `SHARDS`' regions (the operation refuses the
/// account's own).
fn parse_move(
    body: &serde_json::Map<String, serde_json::Value>,
    topology: &Topology,
) -> ApiResult<Region> {
    let field = "data_region";
    let region = match body.get(field) {
        None | Some(serde_json::Value::Null) => {
            return Err(FieldErrors::one(field, v::required(field)).into())
        }
        Some(serde_json::Value::String(s)) => Region::parse(s),
        Some(_) => return Err(FieldErrors::one(field, v::must_be_string(field)).into()),
    };
    let Some(region) = region.filter(|r| topology.in_region(*r).next().is_some()) else {
        let names: Vec<&str> = topology.regions().iter().map(|r| r.as_str()).collect();
        return Err(ApiError::validation(
            field,
            format!("The data region must be one of: {}.", names.join(", ")),
        ));
    };
    Ok(region)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::paths::{assert_allow_matches_routing, example};

    #[test]
    fn routes() {
        let r = |m, p: &[&str]| route(m, p).unwrap();
        assert_eq!(r("POST", &["accounts"]), AdminRoute::CreateAccount);
        assert_eq!(r("PUT", &["accounts", "3"]), AdminRoute::UpdateAccount(3));
        assert_eq!(r("PATCH", &["accounts", "3"]), AdminRoute::UpdateAccount(3));
        assert_eq!(
            r("POST", &["accounts", "3", "tokens"]),
            AdminRoute::CreateToken(3)
        );
        assert_eq!(r("DELETE", &["tokens", "9"]), AdminRoute::RevokeToken(9));
        assert_eq!(r("GET", &["accounts", "x"]), AdminRoute::BadId);
        assert!(matches!(route("GET", &["nope"]), Err(ApiError::NotFound)));
        assert!(matches!(
            route("GET", &["accounts"]),
            Err(ApiError::MethodNotAllowed(a)) if a == "POST"
        ));
        assert!(matches!(
            route("POST", &["accounts", "1"]),
            Err(ApiError::MethodNotAllowed(a)) if a == "GET, PUT, PATCH, DELETE"
        ));
    }

    #[test]
    fn allow_lists_exactly_the_methods_that_route() {
        for path in PATHS {
            let segments = example(path, "7");
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            assert_allow_matches_routing(path, &segments, route, |r| *r != AdminRoute::BadId);
        }
    }
}
