//! The SCIM 2.0 service at `/scim/v2` (provisioning.md 2): Users are the account's cards.
//! Every change runs through the card operations of `ops::cards` (make, change, remove),
//! so events, webhooks, the plan's coercions and the card limit are the API's. What is
//! SCIM's own (the User shape, filters, PATCH, discovery) is pure: `domain::scim`.

use serde_json::{Map, Value};
use worker::{Request, Response};

use crate::domain::card::{Card, Status};
use crate::domain::principal::Principal;
use crate::domain::scim::filter;
use crate::domain::scim::{attributes, discovery, patch, user, ScimError, LIST, MAX_RESULTS};
use crate::domain::token::Scope;
use crate::http::error::{ApiError, ApiResult};
use crate::http::json::scim_response;
use crate::http::params::{path_id, query};
use crate::http::paths::{self, Path, Seg::Hole, Seg::Lit};
use crate::http::App;
use crate::js::normalize;
use crate::ops::cards;
use crate::store::cards as store;
use crate::store::SqlValue;

/// A SCIM request's operation; ids are already parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    ListUsers,
    /// `POST /.search` and `POST /Users/.search` (RFC 7644 3.4.3): a list whose
    /// parameters are in the body.
    Search,
    CreateUser,
    GetUser(i64),
    ReplaceUser(i64),
    PatchUser(i64),
    DeleteUser(i64),
    /// A Users path whose id is no card id: 404 once admitted, like any missing User.
    NoUser,
    ServiceProviderConfig,
    ResourceTypes,
    /// `/ResourceTypes/{name}` and `/Schemas/{id}`: the name is read from the path.
    ResourceType,
    Schemas,
    Schema,
}

impl Op {
    /// The operation's name, for logs.
    pub fn name(self) -> &'static str {
        match self {
            Op::ListUsers => "scimListUsers",
            Op::Search => "scimSearch",
            Op::CreateUser => "scimCreateUser",
            Op::GetUser(_) | Op::NoUser => "scimGetUser",
            Op::ReplaceUser(_) => "scimReplaceUser",
            Op::PatchUser(_) => "scimPatchUser",
            Op::DeleteUser(_) => "scimDeleteUser",
            Op::ServiceProviderConfig => "scimServiceProviderConfig",
            Op::ResourceTypes | Op::ResourceType => "scimResourceTypes",
            Op::Schemas | Op::Schema => "scimSchemas",
        }
    }

    /// Whether it reads a JSON body: the writes and a search.
    pub fn reads_body(self) -> bool {
        self.writes() || self == Op::Search
    }

    /// Whether it changes something (a moving account's writes wait; the token's next
    /// reads start at the primary; an `Idempotency-Key` runs it once).
    pub fn writes(self) -> bool {
        match self {
            Op::CreateUser | Op::ReplaceUser(_) | Op::PatchUser(_) | Op::DeleteUser(_) => true,
            Op::ListUsers
            | Op::Search
            | Op::GetUser(_)
            | Op::NoUser
            | Op::ServiceProviderConfig
            | Op::ResourceTypes
            | Op::ResourceType
            | Op::Schemas
            | Op::Schema => false,
        }
    }
}

/// Every operation needs the `scim` scope, discovery included (the documents describe
/// the account's service).
pub const SCOPES: &[Scope] = &[Scope::Scim];

fn user(holes: &[&str], op: fn(i64) -> Op) -> Op {
    holes
        .first()
        .and_then(|s| path_id(s))
        .map_or(Op::NoUser, op)
}

/// Every path of `/scim/v2` and the methods it answers. Groups are not offered: like any
/// other path, `/Groups` is a 404 (with a SCIM error body).
const PATHS: &[Path<Op>] = &[
    Path {
        segs: &[Lit("Users")],
        methods: &[("GET", |_| Op::ListUsers), ("POST", |_| Op::CreateUser)],
    },
    Path {
        segs: &[Lit("Users"), Lit(".search")],
        methods: &[("POST", |_| Op::Search)],
    },
    Path {
        segs: &[Lit(".search")],
        methods: &[("POST", |_| Op::Search)],
    },
    Path {
        segs: &[Lit("Users"), Hole],
        methods: &[
            ("GET", |h| user(h, Op::GetUser)),
            ("PUT", |h| user(h, Op::ReplaceUser)),
            ("PATCH", |h| user(h, Op::PatchUser)),
            ("DELETE", |h| user(h, Op::DeleteUser)),
        ],
    },
    Path {
        segs: &[Lit("ServiceProviderConfig")],
        methods: &[("GET", |_| Op::ServiceProviderConfig)],
    },
    Path {
        segs: &[Lit("ResourceTypes")],
        methods: &[("GET", |_| Op::ResourceTypes)],
    },
    Path {
        segs: &[Lit("ResourceTypes"), Hole],
        methods: &[("GET", |_| Op::ResourceType)],
    },
    Path {
        segs: &[Lit("Schemas")],
        methods: &[("GET", |_| Op::Schemas)],
    },
    Path {
        segs: &[Lit("Schemas"), Hole],
        methods: &[("GET", |_| Op::Schema)],
    },
];

/// Matches `/scim/v2/...` segments: unknown paths 404, other methods 405, before
/// authentication.
pub fn match_scim(method: &str, segments: &[&str]) -> ApiResult<Op> {
    paths::find(PATHS, method, segments)
}

/// An admitted request's answer; `body` is the request's JSON object (empty when the
/// operation reads none).
pub async fn handle(
    app: &App,
    p: &Principal,
    req: &Request,
    op: Op,
    body: &Map<String, Value>,
) -> ApiResult<Response> {
    let base = format!("{}/scim/v2", app.base_url.trim_end_matches('/'));
    let path = req.path();
    let last = path.rsplit('/').next().unwrap_or_default().to_string();
    let found = |doc: Option<Value>| {
        doc.map(|d| scim_response(200, &d))
            .ok_or_else(|| ScimError::new(404, None, format!("No {last} here.")).into())
    };
    match op {
        Op::ServiceProviderConfig => Ok(scim_response(
            200,
            &discovery::service_provider_config(&base),
        )),
        Op::ResourceTypes => Ok(scim_response(200, &discovery::resource_types(&base))),
        Op::ResourceType => found(discovery::resource_type(&last, &base)),
        Op::Schemas => Ok(scim_response(200, &discovery::schemas(&base))),
        Op::Schema => found(discovery::schema(&last, &base)),
        Op::ListUsers => list(app, p, Listing::of_query(req)?, &base).await,
        Op::Search => list(app, p, Listing::of_body(body)?, &base).await,
        Op::GetUser(id) => {
            let card = one(app, p, id).await?;
            Ok(shown(&card, &base, req, 200))
        }
        Op::NoUser => Err(not_found()),
        Op::CreateUser => {
            let input = user::create_input(body, normalize)?;
            keyed(app, p).await?;
            let card = cards::make(app, p, input, &user::left_out(body)).await?;
            let mut resp = shown(&card, &base, req, 201);
            let _ = resp
                .headers_mut()
                .set("Location", &format!("{base}/Users/{}", card.id));
            Ok(resp)
        }
        Op::ReplaceUser(id) => {
            let patch = user::replace_patch(body, normalize)?;
            keyed(app, p).await?;
            let card = cards::change(app, p, id, patch, None, &user::left_out(body)).await?;
            Ok(shown(&card.ok_or_else(not_found)?, &base, req, 200))
        }
        Op::PatchUser(id) => patched(app, p, id, body, &base, req).await,
        Op::DeleteUser(id) => {
            cards::remove(app, p, id).await.map_err(|e| match e {
                ApiError::NotFound => not_found(),
                e => e,
            })?;
            Ok(Response::empty()?.with_status(204))
        }
    }
}

fn not_found() -> ApiError {
    ScimError::new(404, None, "No such User in this account.").into()
}

/// Every userName of the account has its key (the unique index and `userName` filters
/// compare keys; names from before them are keyed here, on first need).
async fn keyed(app: &App, p: &Principal) -> ApiResult<()> {
    Ok(store::fill_user_keys(&*app.db()?, p.account_id).await?)
}

/// The account's card of a User id.
async fn one(app: &App, p: &Principal, id: i64) -> ApiResult<Card> {
    store::one(&*app.db()?, p.account_id, id)
        .await?
        .ok_or_else(not_found)
}

/// A User as the request's `attributes` / `excludedAttributes` ask for it.
fn shown(card: &Card, base: &str, req: &Request, status: u16) -> Response {
    let q = query(req);
    let mut u = user::to_user(card, base);
    attributes::project(
        &mut u,
        q.get("attributes").map(String::as_str),
        q.get("excludedAttributes").map(String::as_str),
    );
    scim_response(status, &Value::Object(u))
}

/// PATCH: the operations applied to the User as it is, then written as a PUT of the
/// result would be, if the card did not change meanwhile (else read and applied again).
async fn patched(
    app: &App,
    p: &Principal,
    id: i64,
    body: &Map<String, Value>,
    base: &str,
    req: &Request,
) -> ApiResult<Response> {
    let ops = Value::Object(body.clone());
    keyed(app, p).await?;
    for _ in 0..3 {
        let card = one(app, p, id).await?;
        let mut u = user::to_user(&card, base);
        patch::apply(&mut u, &ops)?;
        let mut write = user::replace_patch(&u, normalize)?;
        // A draft shows no `active`; written back without one it stays a draft.
        if card.status == Status::Draft && !u.contains_key("active") {
            write.status = None;
        }
        let kept = user::left_out(&u);
        if let Some(card) = cards::change(app, p, id, write, Some(card.updated_at), &kept).await? {
            return Ok(shown(&card, base, req, 200));
        }
    }
    Err(ScimError::new(
        409,
        None,
        "The User kept changing meanwhile; retry the request.",
    )
    .into())
}

/// What a list asks for: RFC 7644 3.4.2 (query) and 3.4.3 (a search's body).
/// The highest `startIndex` read as given: past every card an account can have.
const MAX_START: i64 = 1 << 31;

struct Listing {
    filter: Option<String>,
    start: i64,
    count: i64,
    attributes: Option<String>,
    excluded: Option<String>,
}

impl Listing {
    /// RFC 7644 3.4.2.4: a `startIndex` below 1 reads as 1, a negative `count` as 0, and
    /// the most a page holds is [`MAX_RESULTS`] (also the default). A `startIndex` past
    /// any account's cards reads as [`MAX_START`]: an empty page, and an offset that stays
    /// an exact number where D1 binds it (a float near 2^63 is no integer to SQLite).
    fn new(
        filter: Option<String>,
        start: Option<i64>,
        count: Option<i64>,
        attributes: Option<String>,
        excluded: Option<String>,
    ) -> Listing {
        Listing {
            filter: filter.filter(|f| !f.trim().is_empty()),
            start: start.unwrap_or(1).clamp(1, MAX_START),
            count: count.unwrap_or(MAX_RESULTS).clamp(0, MAX_RESULTS),
            attributes,
            excluded,
        }
    }

    fn of_query(req: &Request) -> ApiResult<Listing> {
        let q = query(req);
        let number = |name: &str| -> ApiResult<Option<i64>> {
            match q.get(name).map(|v| v.trim()) {
                None | Some("") => Ok(None),
                Some(v) => v.parse::<i64>().map(Some).map_err(|_| {
                    ScimError::invalid_value(format!("{name} must be an integer, not \"{v}\"."))
                        .into()
                }),
            }
        };
        Ok(Listing::new(
            q.get("filter").cloned(),
            number("startIndex")?,
            number("count")?,
            q.get("attributes").cloned(),
            q.get("excludedAttributes").cloned(),
        ))
    }

    fn of_body(body: &Map<String, Value>) -> ApiResult<Listing> {
        let field = |name: &str| {
            body.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        };
        let number = |name: &str| -> ApiResult<Option<i64>> {
            match field(name) {
                None | Some(Value::Null) => Ok(None),
                Some(v) => v.as_i64().map(Some).ok_or_else(|| {
                    ScimError::invalid_value(format!("{name} must be an integer.")).into()
                }),
            }
        };
        // Attribute lists are arrays of names in a search, comma-separated in a query.
        let names = |name: &str| match field(name) {
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        // A filter that is no string would filter nothing: refused, not read as none.
        let filter = match field("filter") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(ScimError::invalid_filter("The filter must be a string.").into()),
        };
        Ok(Listing::new(
            filter,
            number("startIndex")?,
            number("count")?,
            names("attributes"),
            names("excludedAttributes"),
        ))
    }
}

/// `GET /Users` and searches: oldest card first, so pages stay put while cards change.
async fn list(app: &App, p: &Principal, l: Listing, base: &str) -> ApiResult<Response> {
    let parsed = l.filter.as_deref().map(filter::parse).transpose()?;
    if parsed
        .as_ref()
        .is_some_and(filter::Filter::compares_user_name)
    {
        keyed(app, p).await?;
    }
    let sql = match parsed {
        Some(f) => Some(f.to_sql(store::USERS_FIRST_PARAM, &normalize)?),
        None => None,
    };
    let (clause, args) = match &sql {
        Some(f) => (f.sql.as_str(), f.args.iter().map(SqlValue::from).collect()),
        None => ("1", Vec::new()),
    };
    let (cards, total) = store::users(
        &*app.db()?,
        p.account_id,
        clause,
        args,
        l.start - 1,
        l.count,
    )
    .await?;
    let mut resources = Vec::with_capacity(cards.len());
    for card in &cards {
        let mut u = user::to_user(card, base);
        attributes::project(&mut u, l.attributes.as_deref(), l.excluded.as_deref());
        resources.push(Value::Object(u));
    }
    let mut body = Map::new();
    body.insert("schemas".into(), Value::from(vec![LIST]));
    body.insert("totalResults".into(), total.into());
    body.insert("startIndex".into(), l.start.into());
    body.insert("itemsPerPage".into(), resources.len().into());
    body.insert("Resources".into(), resources.into());
    Ok(scim_response(200, &Value::Object(body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::scim::USER;
    use crate::http::paths::{assert_allow_matches_routing, example};

    #[test]
    fn routes() {
        let r = |m, p: &[&str]| match_scim(m, p).unwrap();
        assert_eq!(r("GET", &["Users"]), Op::ListUsers);
        assert_eq!(r("POST", &["Users"]), Op::CreateUser);
        assert_eq!(r("PATCH", &["Users", "7"]), Op::PatchUser(7));
        assert_eq!(r("DELETE", &["Users", "x"]), Op::NoUser);
        assert_eq!(r("POST", &["Users", ".search"]), Op::Search);
        assert_eq!(r("POST", &[".search"]), Op::Search);
        assert_eq!(r("GET", &["Schemas", USER]), Op::Schema);
        // Groups are not offered: no path, a 404 (the router gives it a SCIM body).
        assert!(matches!(
            match_scim("GET", &["Groups"]),
            Err(ApiError::NotFound)
        ));
        // Discovery is read-only: 405 with the methods it answers.
        assert!(matches!(
            match_scim("POST", &["ServiceProviderConfig"]),
            Err(ApiError::MethodNotAllowed(allow)) if allow == "GET"
        ));
        for op in [
            Op::CreateUser,
            Op::ReplaceUser(1),
            Op::PatchUser(1),
            Op::DeleteUser(1),
        ] {
            assert!(op.writes(), "{op:?}");
        }
        assert!(!Op::Search.writes() && !Op::ListUsers.writes());
    }

    #[test]
    fn allow_lists_exactly_the_methods_that_route() {
        for path in PATHS {
            for hole in ["7", "x"] {
                let segments = example(path, hole);
                let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
                assert_allow_matches_routing(path, &segments, match_scim, |_| true);
            }
        }
    }
}
