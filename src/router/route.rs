//! Step 1, matching: a `/api/v1` path and method into its operation. One table lists every
//! path and the methods it answers; the route and a 405's `Allow` both come from it. Each
//! kind of operation has one exhaustive `op()` giving its name, scopes and handling.

use crate::api::scim;
use crate::domain::token::Scope;
use crate::http::error::ApiResult;
use crate::http::params::path_id;
use crate::http::paths::{self, Path, Seg::Hole, Seg::Lit};

/// An `/api/v1` request's operation; ids are already parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Read(Read),
    Write(Write),
    /// openapi.json: public, served before authentication.
    OpenApi,
    /// A resource path whose id is no id (`/cards/abc`): a 404, answered after auth and
    /// rate limiting (with the operation's scopes) like any other missing resource, so it
    /// carries the same headers.
    BadId(&'static [Scope]),
    /// An operation of the SCIM service at `/scim/v2` (matched by `api::scim`), admitted
    /// like the API's.
    Scim(scim::Op),
}

/// Operations that change nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    ListCards,
    GetCard(i64),
    /// The card as an email signature (teams.md 2).
    CardSignature(i64),
    ListLeads,
    GetLead(i64),
    AnalyticsViews,
    AnalyticsClicks,
    ListEvents,
    GetEvent(EventId),
    ListWebhooks,
    GetWebhook(i64),
    ListDeliveries(i64),
    ListTemplates,
    GetTemplate(i64),
}

/// Operations that change something; each takes an `Idempotency-Key` (extensions.md 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    CreateCard,
    /// PUT: the same partial update as PATCH (spec 4.4).
    UpdateCard(i64),
    PatchCard(i64),
    /// PUT by external id (provisioning.md 1); the id is read from the path by its handler.
    UpsertCard,
    DeleteCard(i64),
    DeleteLead(i64),
    EraseLeads,
    CreateWebhook,
    UpdateWebhook(i64),
    DeleteWebhook(i64),
    RotateWebhookSecret(i64),
    Redeliver(i64, EventId),
    CreateTemplate,
    UpdateTemplate(i64),
    DeleteTemplate(i64),
}

/// Whether a read's answer carries a strong `ETag` and answers 304 to `If-None-Match`
/// (extensions.md 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tagging {
    ETag,
    Untagged,
}

/// What a write reads from its request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A JSON object.
    Json,
    /// Nothing: whatever is sent is ignored.
    Ignored,
}

/// Whether a write's answer holds a secret (the webhook signing secret): a kept answer of
/// such a write is replayed to the token that made the request only (extensions.md 3, 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Secret,
    Plain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOp {
    /// The operation's name as openapi.json has it (`operationId`), for logs.
    pub name: &'static str,
    /// The scopes of which a token needs one.
    pub scopes: &'static [Scope],
    pub tagging: Tagging,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOp {
    pub name: &'static str,
    pub scopes: &'static [Scope],
    pub body: Body,
    pub answer: Answer,
}

/// Any one of these scopes admits the operation.
const CARDS_READ: &[Scope] = &[Scope::CardsRead];
const CARDS_WRITE: &[Scope] = &[Scope::CardsWrite];
const LEADS_READ: &[Scope] = &[Scope::LeadsRead];
const LEADS_WRITE: &[Scope] = &[Scope::LeadsWrite];
const ANALYTICS_READ: &[Scope] = &[Scope::AnalyticsRead];
/// The feed: which of its events a token sees is decided by its scopes (extensions.md 1).
const EVENTS_READ: &[Scope] = &[Scope::CardsRead, Scope::LeadsRead, Scope::TemplatesRead];
const TEMPLATES_READ: &[Scope] = &[Scope::TemplatesRead];
const TEMPLATES_WRITE: &[Scope] = &[Scope::TemplatesWrite];
const WEBHOOKS_WRITE: &[Scope] = &[Scope::WebhooksWrite];

impl Read {
    pub fn op(self) -> ReadOp {
        use Tagging::{ETag, Untagged};
        let (name, scopes, tagging) = match self {
            Read::ListCards => ("listCards", CARDS_READ, ETag),
            Read::GetCard(_) => ("getCard", CARDS_READ, ETag),
            Read::CardSignature(_) => ("getCardSignature", CARDS_READ, ETag),
            Read::ListLeads => ("listLeads", LEADS_READ, ETag),
            Read::GetLead(_) => ("getLead", LEADS_READ, ETag),
            Read::AnalyticsViews => ("analyticsViews", ANALYTICS_READ, ETag),
            Read::AnalyticsClicks => ("analyticsClicks", ANALYTICS_READ, ETag),
            Read::ListEvents => ("listEvents", EVENTS_READ, ETag),
            Read::GetEvent(_) => ("getEvent", EVENTS_READ, ETag),
            Read::ListWebhooks => ("listWebhooks", WEBHOOKS_WRITE, Untagged),
            Read::GetWebhook(_) => ("getWebhook", WEBHOOKS_WRITE, Untagged),
            Read::ListDeliveries(_) => ("listDeliveries", WEBHOOKS_WRITE, Untagged),
            Read::ListTemplates => ("listTemplates", TEMPLATES_READ, ETag),
            Read::GetTemplate(_) => ("getTemplate", TEMPLATES_READ, ETag),
        };
        ReadOp {
            name,
            scopes,
            tagging,
        }
    }
}

impl Write {
    pub fn op(self) -> WriteOp {
        use Answer::{Plain, Secret};
        use Body::{Ignored, Json};
        let (name, scopes, body, answer) = match self {
            Write::CreateCard => ("createCard", CARDS_WRITE, Json, Plain),
            Write::UpdateCard(_) => ("updateCard", CARDS_WRITE, Json, Plain),
            Write::PatchCard(_) => ("patchCard", CARDS_WRITE, Json, Plain),
            Write::UpsertCard => ("upsertCard", CARDS_WRITE, Json, Plain),
            Write::DeleteCard(_) => ("deleteCard", CARDS_WRITE, Ignored, Plain),
            Write::DeleteLead(_) => ("deleteLead", LEADS_WRITE, Ignored, Plain),
            Write::EraseLeads => ("eraseLeads", LEADS_WRITE, Json, Plain),
            Write::CreateWebhook => ("createWebhook", WEBHOOKS_WRITE, Json, Secret),
            Write::UpdateWebhook(_) => ("updateWebhook", WEBHOOKS_WRITE, Json, Plain),
            Write::DeleteWebhook(_) => ("deleteWebhook", WEBHOOKS_WRITE, Ignored, Plain),
            Write::RotateWebhookSecret(_) => {
                ("rotateWebhookSecret", WEBHOOKS_WRITE, Ignored, Secret)
            }
            Write::Redeliver(..) => ("redeliverEvent", WEBHOOKS_WRITE, Ignored, Plain),
            Write::CreateTemplate => ("createTemplate", TEMPLATES_WRITE, Json, Plain),
            Write::UpdateTemplate(_) => ("updateTemplate", TEMPLATES_WRITE, Json, Plain),
            Write::DeleteTemplate(_) => ("deleteTemplate", TEMPLATES_WRITE, Ignored, Plain),
        };
        WriteOp {
            name,
            scopes,
            body,
            answer,
        }
    }
}

impl Route {
    /// The operation's name, for logs.
    pub fn name(self) -> &'static str {
        match self {
            Route::Read(r) => r.op().name,
            Route::Write(w) => w.op().name,
            Route::OpenApi => "openapi",
            Route::BadId(_) => "badId",
            Route::Scim(op) => op.name(),
        }
    }

    /// The scopes of which a token needs one; openapi.json needs no token.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Route::Read(r) => r.op().scopes,
            Route::Write(w) => w.op().scopes,
            Route::OpenApi => &[],
            Route::BadId(scopes) => scopes,
            Route::Scim(_) => scim::SCOPES,
        }
    }

    /// Whether it changes something: a moving account's writes wait, and the token's
    /// reads after it start where its write is.
    pub fn writes(self) -> bool {
        match self {
            Route::Write(_) => true,
            Route::Scim(op) => op.writes(),
            Route::Read(_) | Route::OpenApi | Route::BadId(_) => false,
        }
    }
}

/// An event id as written in a path (`evt_` + 32 hex digits), kept as a number so routes
/// stay `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventId(u128);

impl EventId {
    fn parse(s: &str) -> Option<EventId> {
        let hex = s.strip_prefix("evt_")?;
        (hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| u128::from_str_radix(hex, 16).ok().map(EventId))
            .flatten()
    }

    pub fn text(self) -> String {
        format!("evt_{:032x}", self.0)
    }
}

/// The route of an operation on the path's id; a hole that is no id is a 404 with the
/// operation's scopes (the placeholder id only names the operation).
fn one(holes: &[&str], route: fn(i64) -> Route) -> Route {
    match holes.first().and_then(|s| path_id(s)) {
        Some(id) => route(id),
        None => Route::BadId(route(0).scopes()),
    }
}

/// [`one`] for an event id.
fn event(holes: &[&str], route: fn(EventId) -> Route) -> Route {
    match holes.first().and_then(|s| EventId::parse(s)) {
        Some(id) => route(id),
        None => Route::BadId(route(EventId(0)).scopes()),
    }
}

/// [`one`] for a webhook id and an event id.
fn hook_event(holes: &[&str], route: fn(i64, EventId) -> Route) -> Route {
    let hook = holes.first().and_then(|s| path_id(s));
    let event = holes.get(1).and_then(|s| EventId::parse(s));
    match (hook, event) {
        (Some(hook), Some(event)) => route(hook, event),
        _ => Route::BadId(route(0, EventId(0)).scopes()),
    }
}

/// Every path of `/api/v1` and the methods it answers, in the order `Allow` lists them.
/// A path is matched by the first pattern that fits (`leads/erase` before `leads/{id}`).
const PATHS: &[Path<Route>] = &[
    Path {
        segs: &[Lit("cards")],
        methods: &[
            ("GET", |_| Route::Read(Read::ListCards)),
            ("POST", |_| Route::Write(Write::CreateCard)),
        ],
    },
    Path {
        segs: &[Lit("cards"), Hole],
        methods: &[
            ("GET", |h| one(h, |id| Route::Read(Read::GetCard(id)))),
            ("PUT", |h| one(h, |id| Route::Write(Write::UpdateCard(id)))),
            ("PATCH", |h| one(h, |id| Route::Write(Write::PatchCard(id)))),
            ("DELETE", |h| {
                one(h, |id| Route::Write(Write::DeleteCard(id)))
            }),
        ],
    },
    Path {
        segs: &[Lit("cards"), Lit("external"), Hole],
        methods: &[("PUT", |_| Route::Write(Write::UpsertCard))],
    },
    Path {
        segs: &[Lit("cards"), Hole, Lit("signature")],
        methods: &[("GET", |h| one(h, |id| Route::Read(Read::CardSignature(id))))],
    },
    Path {
        segs: &[Lit("leads")],
        methods: &[("GET", |_| Route::Read(Read::ListLeads))],
    },
    Path {
        segs: &[Lit("leads"), Lit("erase")],
        methods: &[("POST", |_| Route::Write(Write::EraseLeads))],
    },
    Path {
        segs: &[Lit("leads"), Hole],
        methods: &[
            ("GET", |h| one(h, |id| Route::Read(Read::GetLead(id)))),
            ("DELETE", |h| {
                one(h, |id| Route::Write(Write::DeleteLead(id)))
            }),
        ],
    },
    Path {
        segs: &[Lit("events")],
        methods: &[("GET", |_| Route::Read(Read::ListEvents))],
    },
    Path {
        segs: &[Lit("events"), Hole],
        methods: &[("GET", |h| event(h, |id| Route::Read(Read::GetEvent(id))))],
    },
    Path {
        segs: &[Lit("webhooks")],
        methods: &[
            ("GET", |_| Route::Read(Read::ListWebhooks)),
            ("POST", |_| Route::Write(Write::CreateWebhook)),
        ],
    },
    Path {
        segs: &[Lit("webhooks"), Hole],
        methods: &[
            ("GET", |h| one(h, |id| Route::Read(Read::GetWebhook(id)))),
            ("PATCH", |h| {
                one(h, |id| Route::Write(Write::UpdateWebhook(id)))
            }),
            ("DELETE", |h| {
                one(h, |id| Route::Write(Write::DeleteWebhook(id)))
            }),
        ],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("rotate-secret")],
        methods: &[("POST", |h| {
            one(h, |id| Route::Write(Write::RotateWebhookSecret(id)))
        })],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("deliveries")],
        methods: &[("GET", |h| {
            one(h, |id| Route::Read(Read::ListDeliveries(id)))
        })],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("events"), Hole, Lit("redeliver")],
        methods: &[("POST", |h| {
            hook_event(h, |hook, event| Route::Write(Write::Redeliver(hook, event)))
        })],
    },
    Path {
        segs: &[Lit("templates")],
        methods: &[
            ("GET", |_| Route::Read(Read::ListTemplates)),
            ("POST", |_| Route::Write(Write::CreateTemplate)),
        ],
    },
    Path {
        segs: &[Lit("templates"), Hole],
        methods: &[
            ("GET", |h| one(h, |id| Route::Read(Read::GetTemplate(id)))),
            ("PATCH", |h| {
                one(h, |id| Route::Write(Write::UpdateTemplate(id)))
            }),
            ("DELETE", |h| {
                one(h, |id| Route::Write(Write::DeleteTemplate(id)))
            }),
        ],
    },
    Path {
        segs: &[Lit("analytics"), Lit("views")],
        methods: &[("GET", |_| Route::Read(Read::AnalyticsViews))],
    },
    Path {
        segs: &[Lit("analytics"), Lit("clicks")],
        methods: &[("GET", |_| Route::Read(Read::AnalyticsClicks))],
    },
    Path {
        segs: &[Lit("openapi.json")],
        methods: &[("GET", |_| Route::OpenApi), ("HEAD", |_| Route::OpenApi)],
    },
];

/// Matches `/api/v1/...` segments. Unknown paths are 404 and known paths with another
/// method 405, both before authentication, as no resource is revealed by either.
pub fn match_api(method: &str, segments: &[&str]) -> ApiResult<Route> {
    paths::find(PATHS, method, segments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::error::ApiError;
    use crate::http::paths::{assert_allow_matches_routing, example};

    const EVENT: &str = "evt_0123456789abcdef0123456789abcdef";

    fn allow_of(method: &str, segments: &[&str]) -> String {
        match match_api(method, segments) {
            Err(ApiError::MethodNotAllowed(allow)) => allow,
            other => panic!("{method} {segments:?}: {other:?}"),
        }
    }

    #[test]
    fn routes() {
        let r = |m, p: &[&str]| match_api(m, p).unwrap();
        assert_eq!(r("GET", &["cards"]), Route::Read(Read::ListCards));
        assert_eq!(
            r("PUT", &["cards", "7"]),
            Route::Write(Write::UpdateCard(7))
        );
        assert_eq!(
            r("PATCH", &["cards", "7"]),
            Route::Write(Write::PatchCard(7))
        );
        assert_eq!(r("GET", &["leads", "3"]), Route::Read(Read::GetLead(3)));
        assert_eq!(
            r("DELETE", &["leads", "4"]),
            Route::Write(Write::DeleteLead(4))
        );
        assert_eq!(
            r("POST", &["leads", "erase"]),
            Route::Write(Write::EraseLeads)
        );
        assert_eq!(r("GET", &["cards", "x"]), Route::BadId(CARDS_READ));
        assert_eq!(r("PUT", &["cards", "-1"]), Route::BadId(CARDS_WRITE));
        assert_eq!(r("DELETE", &["leads", "x"]), Route::BadId(LEADS_WRITE));
        assert_eq!(r("HEAD", &["openapi.json"]), Route::OpenApi);
        assert!(matches!(
            match_api("GET", &["nope"]),
            Err(ApiError::NotFound)
        ));
        assert!(matches!(match_api("GET", &[]), Err(ApiError::NotFound)));
        assert_eq!(allow_of("DELETE", &["cards"]), "GET, POST");
        assert_eq!(allow_of("POST", &["analytics", "views"]), "GET");
        assert_eq!(allow_of("QUERY", &["leads", "1"]), "GET, DELETE");
        assert_eq!(allow_of("GET", &["leads", "erase"]), "POST");
        assert_eq!(allow_of("POST", &["cards", "1"]), "GET, PUT, PATCH, DELETE");
        assert_eq!(allow_of("POST", &["openapi.json"]), "GET, HEAD");
        assert_eq!(
            r("PUT", &["cards", "external", "crm 7"]),
            Route::Write(Write::UpsertCard)
        );
        assert_eq!(allow_of("GET", &["cards", "external", "x"]), "PUT");
    }

    #[test]
    fn event_routes() {
        match match_api("GET", &["events", EVENT]).unwrap() {
            Route::Read(Read::GetEvent(e)) => assert_eq!(e.text(), EVENT),
            other => panic!("{other:?}"),
        }
        let r = |m, p: &[&str]| match_api(m, p).unwrap();
        assert_eq!(r("GET", &["events", "evt_XYZ"]), Route::BadId(EVENTS_READ));
        let redeliver = ["webhooks", "3", "events", EVENT, "redeliver"];
        assert!(matches!(
            r("POST", &redeliver),
            Route::Write(Write::Redeliver(3, e)) if e.text() == EVENT
        ));
        let bad = ["webhooks", "3", "events", "evt_1", "redeliver"];
        assert_eq!(r("POST", &bad), Route::BadId(WEBHOOKS_WRITE));
        assert_eq!(allow_of("POST", &["events"]), "GET");
    }

    /// Each path filled with valid ids, or with `bad` in every hole.
    fn examples(bad: bool) -> Vec<(usize, Vec<String>)> {
        let valid = |path: &Path<Route>| {
            let mut holes = 0;
            let fill = |seg: &_| match seg {
                Lit(lit) => lit.to_string(),
                Hole => {
                    holes += 1;
                    // Event ids are the second hole of a redelivery, the only of an event.
                    let event = (path.segs[0] == Lit("events")) || holes == 2;
                    if event { EVENT } else { "7" }.to_string()
                }
            };
            path.segs.iter().map(fill).collect()
        };
        PATHS
            .iter()
            .enumerate()
            .map(|(i, p)| (i, if bad { example(p, "x") } else { valid(p) }))
            .collect()
    }

    #[test]
    fn allow_lists_exactly_the_methods_that_route() {
        for (i, segments) in examples(false).into_iter().chain(examples(true)) {
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            assert_allow_matches_routing(&PATHS[i], &segments, match_api, |_| true);
        }
    }

    #[test]
    fn a_bad_id_keeps_the_operations_scopes() {
        for ((i, good), (_, bad)) in examples(false).into_iter().zip(examples(true)) {
            let good: Vec<&str> = good.iter().map(String::as_str).collect();
            let bad: Vec<&str> = bad.iter().map(String::as_str).collect();
            for (m, _) in PATHS[i].methods {
                let (route, refused) = (match_api(m, &good).unwrap(), match_api(m, &bad));
                match route {
                    Route::OpenApi | Route::Scim(_) => continue,
                    Route::Read(_) | Route::Write(_) => {}
                    Route::BadId(_) => panic!("{m} {good:?} is valid"),
                }
                if bad == good || route == Route::Write(Write::UpsertCard) {
                    continue; // no hole, or one any text fills (an external id)
                }
                assert_eq!(
                    refused.unwrap(),
                    Route::BadId(route.scopes()),
                    "{m} {bad:?}"
                );
            }
        }
    }

    /// Every operation of openapi.json is routed, at its path and method, under its name,
    /// and every routed operation is in openapi.json.
    #[test]
    fn the_table_is_openapi_json() {
        let doc: serde_json::Value =
            serde_json::from_str(include_str!("../../openapi.json")).unwrap();
        let mut documented = vec![];
        for (path, ops) in doc["paths"].as_object().unwrap() {
            let segments: Vec<&str> = path
                .strip_prefix("/api/v1/")
                .unwrap()
                .split('/')
                .map(|s| match s {
                    "{event}" => EVENT,
                    s if s.starts_with('{') => "7",
                    s => s,
                })
                .collect();
            for (method, op) in ops.as_object().unwrap() {
                let Some(id) = op["operationId"].as_str() else {
                    continue;
                };
                let method = method.to_ascii_uppercase();
                let route = match_api(&method, &segments).unwrap();
                assert_eq!(route.name(), id, "{method} {path}");
                documented.push(id.to_string());
            }
        }
        for (i, segments) in examples(false) {
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            for (m, _) in PATHS[i].methods {
                let route = match_api(m, &segments).unwrap();
                if route != Route::OpenApi {
                    assert!(
                        documented.contains(&route.name().to_string()),
                        "{m} {segments:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn op_properties() {
        let routes: Vec<Route> = examples(false)
            .into_iter()
            .flat_map(|(i, segments)| {
                let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
                PATHS[i]
                    .methods
                    .iter()
                    .map(|(m, _)| match_api(m, &segments).unwrap())
                    .collect::<Vec<_>>()
            })
            // openapi.json answers GET and HEAD alike.
            .filter(|r| *r != Route::OpenApi)
            .collect();
        let mut names: Vec<&str> = routes.iter().map(|r| r.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), routes.len(), "one name per operation");
        for route in routes {
            match route {
                Route::Read(r) => {
                    let op = r.op();
                    assert!(!op.scopes.is_empty(), "{}", op.name);
                    // A read needs no write scope but for webhooks (webhooks:write covers all).
                    let writes = op.scopes.iter().any(|s| s.as_str().ends_with(":write"));
                    assert_eq!(
                        writes,
                        op.name.contains("ebhook") || op.name == "listDeliveries"
                    );
                }
                Route::Write(w) => {
                    let op = w.op();
                    assert_eq!(op.scopes.len(), 1, "{}", op.name);
                    assert!(op.scopes[0].as_str().ends_with(":write"), "{}", op.name);
                    // Only the answers that show a webhook's secret hold one.
                    let secret = op.answer == Answer::Secret;
                    assert_eq!(
                        secret,
                        matches!(op.name, "createWebhook" | "rotateWebhookSecret")
                    );
                    // Creates and updates take a body; deletes and actions on a path do not.
                    let body = op.body == Body::Json;
                    let takes = op.name.starts_with("create")
                        || op.name.starts_with("update")
                        || op.name.starts_with("upsert")
                        || op.name.starts_with("patch")
                        || op.name == "eraseLeads";
                    assert_eq!(body, takes, "{}", op.name);
                }
                Route::OpenApi | Route::BadId(_) | Route::Scim(_) => {}
            }
        }
        assert_eq!(Read::GetCard(1).op().scopes, [Scope::CardsRead]);
        assert_eq!(
            Read::ListEvents.op().scopes,
            [Scope::CardsRead, Scope::LeadsRead, Scope::TemplatesRead]
        );
        assert_eq!(Read::ListCards.op().tagging, Tagging::ETag);
        assert_eq!(Read::ListWebhooks.op().tagging, Tagging::Untagged);
    }
}
