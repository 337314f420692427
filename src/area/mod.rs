//! The account area at `/app` (account-area.md): where an account's members sign in with
//! passkeys and look after their integration: tokens, webhooks, leads, analytics, cards,
//! members and the security log. Server-rendered pages; one small script (WebAuthn and
//! copying); every change through the operations the API and the operator use (`ops`).
//!
//! A request goes: route (one table of paths and methods) -> the language -> the session
//! (pages other than sign-in and invites need one; changes need an owner) -> a POST's
//! `Origin` must be ours -> the page.

pub mod analytics;
pub mod assets;
pub mod cards;
pub mod layout;
pub mod leads;
pub mod members;
pub mod overview;
pub mod security;
pub mod sign_in;
pub mod text;
pub mod tokens;
pub mod webhooks;
pub mod widgets;

use worker::{Request, Response};

use crate::domain::account::Account;
use crate::domain::html::Html;
use crate::domain::member::{cookie, secret_hash, session_cookie, Role, SESSION_COOKIE};
use crate::domain::security::{Actor, By};
use crate::domain::weburl::{form_pairs, parse_http};
use crate::http::body::MAX_BODY_BYTES;
use crate::http::error::{ApiError, ApiResult};
use crate::http::json::json_response;
use crate::http::params::{method, path_id, query};
use crate::http::paths::{self, Path, Seg::Hole, Seg::Lit};
use crate::http::App;
use crate::store::accounts;
use crate::store::members::{self as member_rows, SessionRow};
use layout::{html, see_other, Nav, Page};
use text::{Common, Lang, LANG_COOKIE};

/// The account area's operations; ids are parsed, codes and names kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AreaRoute {
    Overview,
    SignInPage,
    SignInOptions,
    SignIn,
    SignOut,
    InvitePage(String),
    InviteOptions(String),
    Join(String),
    Asset(String),
    Tokens,
    CreateToken,
    RevokeToken(i64),
    Webhooks,
    CreateWebhook,
    Webhook(i64),
    UpdateWebhook(i64),
    RotateWebhook(i64),
    DeleteWebhook(i64),
    Redeliver(i64, String),
    Leads,
    LeadsCsv,
    EraseLead(i64),
    EraseEmail,
    Analytics,
    Cards,
    /// A card's email signature as JSON, for the Cards page's copy button (teams.md 2).
    CardSignature(i64),
    Members,
    Invite,
    RemoveMember(i64),
    PasskeyOptions,
    AddPasskey,
    RenamePasskey(i64),
    RemovePasskey(i64),
    Security,
    /// A path whose id is no id: 404.
    BadId,
}

/// Who may use a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: sign-in, invites, the assets.
    Anyone,
    /// A signed-in member.
    Member,
    /// A signed-in owner (every change of the account's integration).
    Owner,
}

impl AreaRoute {
    /// Who may use it; one match, so a new route must say.
    pub fn access(&self) -> Access {
        use AreaRoute::*;
        match self {
            SignInPage | SignInOptions | SignIn | InvitePage(_) | InviteOptions(_) | Join(_)
            | Asset(_) | BadId => Access::Anyone,
            Overview | SignOut | Tokens | Webhooks | Webhook(_) | Leads | LeadsCsv | Analytics
            | Cards | CardSignature(_) | Members | Security | PasskeyOptions | AddPasskey
            | RenamePasskey(_) | RemovePasskey(_) => Access::Member,
            CreateToken | RevokeToken(_) | CreateWebhook | UpdateWebhook(_) | RotateWebhook(_)
            | DeleteWebhook(_) | Redeliver(..) | EraseLead(_) | EraseEmail | Invite
            | RemoveMember(_) => Access::Owner,
        }
    }

    /// Whether it answers JSON (the WebAuthn ceremonies) rather than pages.
    pub fn json(&self) -> bool {
        use AreaRoute::*;
        matches!(
            self,
            SignInOptions
                | SignIn
                | InviteOptions(_)
                | Join(_)
                | PasskeyOptions
                | AddPasskey
                | CardSignature(_)
        )
    }
}

fn id(holes: &[&str], route: fn(i64) -> AreaRoute) -> AreaRoute {
    holes
        .first()
        .and_then(|s| path_id(s))
        .map_or(AreaRoute::BadId, route)
}

fn text_hole(holes: &[&str]) -> String {
    holes.first().map_or_else(String::new, |s| s.to_string())
}

/// Every path under `/app` and the methods it answers: routing and `Allow` come from it.
const PATHS: &[Path<AreaRoute>] = &[
    Path {
        segs: &[],
        methods: &[("GET", |_| AreaRoute::Overview)],
    },
    Path {
        segs: &[Lit("sign-in")],
        methods: &[
            ("GET", |_| AreaRoute::SignInPage),
            ("POST", |_| AreaRoute::SignIn),
        ],
    },
    Path {
        segs: &[Lit("sign-in"), Lit("options")],
        methods: &[("POST", |_| AreaRoute::SignInOptions)],
    },
    Path {
        segs: &[Lit("sign-out")],
        methods: &[("POST", |_| AreaRoute::SignOut)],
    },
    Path {
        segs: &[Lit("invite"), Hole],
        methods: &[
            ("GET", |h| AreaRoute::InvitePage(text_hole(h))),
            ("POST", |h| AreaRoute::Join(text_hole(h))),
        ],
    },
    Path {
        segs: &[Lit("invite"), Hole, Lit("options")],
        methods: &[("POST", |h| AreaRoute::InviteOptions(text_hole(h)))],
    },
    Path {
        segs: &[Lit("assets"), Hole],
        methods: &[("GET", |h| AreaRoute::Asset(text_hole(h)))],
    },
    Path {
        segs: &[Lit("tokens")],
        methods: &[
            ("GET", |_| AreaRoute::Tokens),
            ("POST", |_| AreaRoute::CreateToken),
        ],
    },
    Path {
        segs: &[Lit("tokens"), Hole, Lit("revoke")],
        methods: &[("POST", |h| id(h, AreaRoute::RevokeToken))],
    },
    Path {
        segs: &[Lit("webhooks")],
        methods: &[
            ("GET", |_| AreaRoute::Webhooks),
            ("POST", |_| AreaRoute::CreateWebhook),
        ],
    },
    Path {
        segs: &[Lit("webhooks"), Hole],
        methods: &[
            ("GET", |h| id(h, AreaRoute::Webhook)),
            ("POST", |h| id(h, AreaRoute::UpdateWebhook)),
        ],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("rotate")],
        methods: &[("POST", |h| id(h, AreaRoute::RotateWebhook))],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("delete")],
        methods: &[("POST", |h| id(h, AreaRoute::DeleteWebhook))],
    },
    Path {
        segs: &[Lit("webhooks"), Hole, Lit("events"), Hole, Lit("redeliver")],
        methods: &[("POST", |h| {
            match (h.first().and_then(|s| path_id(s)), h.get(1)) {
                (Some(hook), Some(event)) => AreaRoute::Redeliver(hook, event.to_string()),
                _ => AreaRoute::BadId,
            }
        })],
    },
    Path {
        segs: &[Lit("leads")],
        methods: &[("GET", |_| AreaRoute::Leads)],
    },
    Path {
        segs: &[Lit("leads.csv")],
        methods: &[("GET", |_| AreaRoute::LeadsCsv)],
    },
    Path {
        segs: &[Lit("leads"), Lit("erase")],
        methods: &[("POST", |_| AreaRoute::EraseEmail)],
    },
    Path {
        segs: &[Lit("leads"), Hole, Lit("erase")],
        methods: &[("POST", |h| id(h, AreaRoute::EraseLead))],
    },
    Path {
        segs: &[Lit("analytics")],
        methods: &[("GET", |_| AreaRoute::Analytics)],
    },
    Path {
        segs: &[Lit("cards")],
        methods: &[("GET", |_| AreaRoute::Cards)],
    },
    Path {
        segs: &[Lit("cards"), Hole, Lit("signature")],
        methods: &[("GET", |h| id(h, AreaRoute::CardSignature))],
    },
    Path {
        segs: &[Lit("members")],
        methods: &[
            ("GET", |_| AreaRoute::Members),
            ("POST", |_| AreaRoute::Invite),
        ],
    },
    Path {
        segs: &[Lit("members"), Hole, Lit("remove")],
        methods: &[("POST", |h| id(h, AreaRoute::RemoveMember))],
    },
    Path {
        segs: &[Lit("passkeys")],
        methods: &[("POST", |_| AreaRoute::AddPasskey)],
    },
    Path {
        segs: &[Lit("passkeys"), Lit("options")],
        methods: &[("POST", |_| AreaRoute::PasskeyOptions)],
    },
    Path {
        segs: &[Lit("passkeys"), Hole, Lit("rename")],
        methods: &[("POST", |h| id(h, AreaRoute::RenamePasskey))],
    },
    Path {
        segs: &[Lit("passkeys"), Hole, Lit("remove")],
        methods: &[("POST", |h| id(h, AreaRoute::RemovePasskey))],
    },
    Path {
        segs: &[Lit("security")],
        methods: &[("GET", |_| AreaRoute::Security)],
    },
];

/// The operation `method` makes of `segments` (after `/app`); 404 or 405 otherwise.
pub fn route(method: &str, segments: &[&str]) -> ApiResult<AreaRoute> {
    paths::find(PATHS, method, segments)
}

/// A signed-in member, their session and their account.
pub struct Signed {
    pub session: SessionRow,
    pub account: Account,
    /// The hash of the session's id (sign-out ends it).
    pub id_hash: String,
}

impl Signed {
    pub fn owner(&self) -> bool {
        self.session.role() == Role::Owner
    }

    /// This member, as the security log names them.
    pub fn by(&self, app: &App) -> By {
        By::new(self.session.actor(), app.country())
    }
}

/// What every page of a request knows.
pub struct Ctx {
    pub lang: Lang,
    /// The path and query, for the language switch.
    pub here: String,
    /// The request's own origin (`https://host`): a POST must come from it, and passkeys
    /// are for it.
    pub origin: String,
    /// A `?lang=` asked for: the answer sets the cookie.
    pub chosen: Option<Lang>,
}

impl Ctx {
    /// A page of this request, framed.
    pub fn page(&self, title: &str, nav: Nav, body: Html, signed: Option<&Signed>) -> Response {
        let page = Page {
            lang: self.lang,
            title,
            nav,
            body,
            here: &self.here,
        };
        html(200, page.render(signed))
    }
}

/// The header of a request, if it has it.
fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The language: `?lang=`, else the switch's cookie, else `Accept-Language`.
fn language(req: &Request) -> (Lang, Option<Lang>) {
    let chosen = query(req).get("lang").and_then(|l| Lang::parse(l));
    let cookies = header(req, "Cookie").unwrap_or_default();
    let kept = cookie(&cookies, LANG_COOKIE).and_then(Lang::parse);
    let accepted = Lang::accepted(&header(req, "Accept-Language").unwrap_or_default());
    (chosen.or(kept).unwrap_or(accepted), chosen)
}

/// The member of the request's session cookie, if it names a valid session.
async fn session(app: &App, req: &Request) -> ApiResult<Option<Signed>> {
    let cookies = header(req, "Cookie").unwrap_or_default();
    let Some(id) =
        cookie(&cookies, SESSION_COOKIE).filter(|id| crate::domain::member::is_secret(id))
    else {
        return Ok(None);
    };
    let id_hash = secret_hash(id);
    let dir = app.directory()?;
    let Some(session) = member_rows::session(&dir, &id_hash, app.now_ms).await? else {
        return Ok(None);
    };
    let Some(account) = accounts::get(&dir, session.account_id).await? else {
        return Ok(None);
    };
    Ok(Some(Signed {
        session,
        account,
        id_hash,
    }))
}

/// Whether a state-changing request comes from this origin (account-area.md 1): browsers
/// send `Origin` with every POST; one from elsewhere, or none, is refused.
fn same_origin(req: &Request, origin: &str) -> bool {
    header(req, "Origin").is_some_and(|o| o.eq_ignore_ascii_case(origin))
}

/// `/app/...`: the account area's answer, whatever happens on the way.
pub async fn handle(app: &App, req: Request, segments: &[&str]) -> Response {
    let (lang, chosen) = language(&req);
    let url = req.inner().url();
    let parsed = parse_http(&url);
    let origin = parsed.as_ref().map(|u| u.origin()).unwrap_or_default();
    let here = url
        .get(origin.len()..)
        .filter(|p| p.starts_with('/'))
        .unwrap_or("/app")
        .to_string();
    let ctx = Ctx {
        lang,
        here,
        origin,
        chosen,
    };
    let routed = route(&method(&req), segments);
    let json = routed.as_ref().is_ok_and(AreaRoute::json);
    let mut resp = match serve(app, req, routed, &ctx).await {
        Ok(resp) => resp,
        Err(e) if json => json_error(lang, e),
        Err(e) => error_page(app, &ctx, e),
    };
    if let Some(lang) = ctx.chosen {
        let cookie = format!(
            "{LANG_COOKIE}={}; Path=/app; SameSite=Lax; Max-Age=31536000",
            lang.code()
        );
        let _ = resp.headers_mut().append("Set-Cookie", &cookie);
    }
    resp
}

async fn serve(
    app: &App,
    req: Request,
    routed: ApiResult<AreaRoute>,
    ctx: &Ctx,
) -> ApiResult<Response> {
    let route = routed?;
    if let AreaRoute::Asset(name) = &route {
        return assets::serve(name, &req);
    }
    if method(&req) == "POST" && !same_origin(&req, &ctx.origin) {
        return Err(ApiError::CrossSite);
    }
    let signed = match route.access() {
        Access::Anyone => None,
        Access::Member | Access::Owner => match session(app, &req).await? {
            Some(signed) => Some(signed),
            // Pages send people to sign in; the ceremonies' JSON and forms answer 401.
            None if method(&req) == "GET" => return Ok(see_other("/app/sign-in")),
            None => return Err(ApiError::Unauthenticated),
        },
    };
    if route.access() == Access::Owner && !signed.as_ref().is_some_and(Signed::owner) {
        return Err(ApiError::MissingScope);
    }
    if let Some(s) = &signed {
        let place = s.account.placement.as_ref().ok_or(ApiError::NotFound)?;
        app.place(&place.shard)?;
        app.trace.borrow_mut().account_id = Some(s.account.id);
    }
    let signed = signed.as_ref();
    use AreaRoute::*;
    match (route, signed) {
        (Asset(_), _) => Err(ApiError::NotFound),
        (SignInPage, _) => sign_in::page(app, &req, ctx).await,
        (SignInOptions, _) => sign_in::options(app, ctx).await,
        (SignIn, _) => sign_in::finish(app, req, ctx).await,
        (InvitePage(code), _) => sign_in::invite_page(app, ctx, &code).await,
        (InviteOptions(code), _) => sign_in::invite_options(app, ctx, &code).await,
        (Join(code), _) => sign_in::join(app, req, ctx, &code).await,
        (BadId, _) => Err(ApiError::NotFound),
        (route, Some(s)) => signed_in(app, req, ctx, s, route).await,
        // `access()` gave every other route a session above.
        (_, None) => Err(ApiError::Unauthenticated),
    }
}

/// The routes of a signed-in member.
async fn signed_in(
    app: &App,
    req: Request,
    ctx: &Ctx,
    s: &Signed,
    route: AreaRoute,
) -> ApiResult<Response> {
    use AreaRoute::*;
    match route {
        Overview => overview::page(app, ctx, s).await,
        SignOut => sign_in::sign_out(app, s).await,
        Tokens => tokens::page(app, ctx, s).await,
        CreateToken => tokens::create(app, req, ctx, s).await,
        RevokeToken(id) => tokens::revoke(app, ctx, s, id).await,
        Webhooks => webhooks::page(app, ctx, s).await,
        CreateWebhook => webhooks::create(app, req, ctx, s).await,
        Webhook(id) => webhooks::one(app, &req, ctx, s, id).await,
        UpdateWebhook(id) => webhooks::update(app, req, ctx, s, id).await,
        RotateWebhook(id) => webhooks::rotate(app, ctx, s, id).await,
        DeleteWebhook(id) => webhooks::delete(app, ctx, s, id).await,
        Redeliver(id, event) => webhooks::redeliver(app, ctx, s, id, &event).await,
        Leads => leads::page(app, &req, ctx, s).await,
        LeadsCsv => leads::csv(app, &req, s).await,
        EraseLead(id) => leads::erase_one(app, ctx, s, id).await,
        EraseEmail => leads::erase_email(app, req, ctx, s).await,
        Analytics => analytics::page(app, &req, ctx, s).await,
        Cards => cards::page(app, ctx, s).await,
        CardSignature(id) => cards::signature(app, s, id).await,
        Members => members::page(app, ctx, s).await,
        Invite => members::invite(app, req, ctx, s).await,
        RemoveMember(id) => members::remove(app, ctx, s, id).await,
        PasskeyOptions => members::passkey_options(app, ctx, s).await,
        AddPasskey => members::add_passkey(app, req, ctx, s).await,
        RenamePasskey(id) => members::rename_passkey(app, req, ctx, s, id).await,
        RemovePasskey(id) => members::remove_passkey(app, ctx, s, id).await,
        Security => security::page(app, ctx, s).await,
        SignInPage | SignInOptions | SignIn | InvitePage(_) | InviteOptions(_) | Join(_)
        | Asset(_) | BadId => Err(ApiError::NotFound),
    }
}

/// A ceremony's failure as JSON: `{message}` in the page's language.
fn json_error(lang: Lang, e: ApiError) -> Response {
    let status = e.status();
    let message = message_of(lang, &e);
    log(&e);
    json_response(status, &serde_json::json!({ "message": message }))
}

/// A failure as a page, in the page's language (an unknown session goes to sign-in).
fn error_page(app: &App, ctx: &Ctx, e: ApiError) -> Response {
    if let ApiError::Unauthenticated = e {
        return see_other("/app/sign-in");
    }
    log(&e);
    let t = Common::of(ctx.lang);
    let mut body = Html::default();
    body.open("p", &[("class", "error")])
        .text(&message_of(ctx.lang, &e));
    if e.status() >= 500 {
        body.raw(" ").element("code", &[], &app.request_id);
    }
    body.raw("</p>")
        .open("p", &[])
        .element("a", &[("href", "/app")], t.back)
        .raw("</p>");
    let page = Page {
        lang: ctx.lang,
        title: t.area,
        nav: Nav::None,
        body,
        here: &ctx.here,
    };
    let mut resp = html(e.status(), page.render(None));
    if let ApiError::MethodNotAllowed(allow) = &e {
        let _ = resp.headers_mut().set("Allow", allow);
    }
    resp
}

fn log(e: &ApiError) {
    match e {
        ApiError::Internal(cause) => worker::console_error!("account area error: {cause}"),
        ApiError::Misconfigured(what) => worker::console_error!("misconfigured: {what}"),
        _ => {}
    }
}

/// What a person reads of an error, in their language.
fn message_of(lang: Lang, e: &ApiError) -> String {
    let t = Common::of(lang);
    match e {
        ApiError::NotFound | ApiError::MethodNotAllowed(_) => t.not_found.into(),
        ApiError::MissingScope | ApiError::NoApiAccess => t.forbidden.into(),
        ApiError::CrossSite => t.cross_site.into(),
        ApiError::TooManyRequests { .. } => t.too_many.into(),
        ApiError::Moving => t.moving.into(),
        ApiError::Area { message, .. } => message.to_string(),
        ApiError::Internal(_) | ApiError::Misconfigured(_) => t.failed.into(),
        // Validation and the rest say what they are in English; pages show their own
        // messages for what a person can fix.
        other => other.body()["message"]
            .as_str()
            .unwrap_or(t.failed)
            .to_string(),
    }
}

/// A form's fields as posted (`application/x-www-form-urlencoded`, at most the API's body
/// size), in order: a repeated name (checkboxes) appears once per value.
pub async fn form(req: &mut Request) -> ApiResult<Vec<(String, String)>> {
    let bytes = req.bytes().await?;
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::PayloadTooLarge);
    }
    Ok(form_pairs(&String::from_utf8_lossy(&bytes)))
}

/// The first value of a form's field.
pub fn field<'a>(form: &'a [(String, String)], name: &str) -> Option<&'a str> {
    form.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Every value of a form's field (checkboxes of one name).
pub fn values<'a>(form: &'a [(String, String)], name: &'a str) -> impl Iterator<Item = &'a str> {
    form.iter()
        .filter(move |(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// What a change's page says when it is done: `<p class="notice" role="status">`.
pub fn notice(h: &mut Html, text: &str) {
    h.element("p", &[("class", "notice"), ("role", "status")], text);
}

/// Sets a new session cookie on `resp`.
pub fn with_session(mut resp: Response, id: &str, max_age_s: i64) -> Response {
    let _ = resp
        .headers_mut()
        .append("Set-Cookie", &session_cookie(id, max_age_s));
    resp
}

/// The member's actor for an entry made before a session exists (a failed sign-in).
pub fn visitor(app: &App) -> By {
    By::new(Actor::Visitor, app.country())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::paths::{assert_allow_matches_routing, example};

    #[test]
    fn routes() {
        let r = |m, p: &[&str]| route(m, p).unwrap();
        assert_eq!(r("GET", &[]), AreaRoute::Overview);
        assert_eq!(
            r("POST", &["tokens", "3", "revoke"]),
            AreaRoute::RevokeToken(3)
        );
        assert_eq!(r("POST", &["tokens", "x", "revoke"]), AreaRoute::BadId);
        assert_eq!(r("GET", &["leads.csv"]), AreaRoute::LeadsCsv);
        assert_eq!(r("POST", &["leads", "erase"]), AreaRoute::EraseEmail);
        assert_eq!(r("POST", &["leads", "9", "erase"]), AreaRoute::EraseLead(9));
        assert_eq!(
            r("POST", &["invite", "abc", "options"]),
            AreaRoute::InviteOptions("abc".into())
        );
        assert!(matches!(
            route("DELETE", &["tokens"]),
            Err(ApiError::MethodNotAllowed(a)) if a == "GET, POST"
        ));
    }

    #[test]
    fn every_change_is_a_post_and_needs_a_session() {
        for path in PATHS {
            let segments = example(path, "7");
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            assert_allow_matches_routing(path, &segments, route, |r| *r != AreaRoute::BadId);
            for (m, _) in path.methods {
                let r = route(m, &segments).unwrap();
                if r.access() == Access::Owner {
                    assert_eq!(*m, "POST", "{r:?}: an owner's change is a POST");
                }
                if *m == "GET"
                    && !matches!(
                        r,
                        AreaRoute::SignInPage | AreaRoute::InvitePage(_) | AreaRoute::Asset(_)
                    )
                {
                    assert_eq!(r.access(), Access::Member, "{r:?}");
                }
            }
        }
    }
}
