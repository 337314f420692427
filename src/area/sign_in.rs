//! Signing in with passkeys (account-area.md 1): the sign-in page and an invite's page,
//! and the two ceremonies in WebAuthn's JSON forms, so any client can drive them:
//! `POST /app/invite/{code}/options` and `POST /app/invite/{code}` (registration),
//! `POST /app/sign-in/options` and `POST /app/sign-in` (authentication). Success is 200
//! `{data: {redirect: "/app"}}` with a new session cookie; a failed check is 400
//! `{message}` and sets nothing; a used or expired invite is 410.

use serde_json::{json, Map, Value};
use worker::{Request, Response};

use super::layout::{html, see_other, Nav, Page};
use super::text::{texts, Lang};
use super::{visitor, with_session, Ctx, Signed};
use crate::domain::html::Html;
use crate::domain::member::{
    member_handle, passkey_name, secret_hash, secret_text, Purpose, FAILED_SIGN_INS_PER_MINUTE,
    SECRET_BYTES, SESSION_MAX_MS,
};
use crate::domain::signing::{base64url, base64url_decode};
use crate::domain::throttle::{address_key, Limit, Span, MINUTE_MS};
use crate::domain::webauthn::{self, CeremonyError, Expected, StoredCredential};
use crate::domain::weburl::parse_http;
use crate::durable::throttle::client as throttle;
use crate::http::body::object_of;
use crate::http::error::{ApiError, ApiResult};
use crate::http::json::json_response;
use crate::http::params::client_address;
use crate::http::App;
use crate::js::crypto::verify_signature;
use crate::store::members::{self, InviteRow, NewPasskey};

texts! {
    /// The sign-in and invite pages.
    SignInText {
        title: "Sign in" / "Anmelden",
        intro: "Sign in to your account with a passkey: your device's screen lock, fingerprint or face, or a security key." / "Melden Sie sich mit einem Passkey bei Ihrem Konto an: der Bildschirmsperre, dem Fingerabdruck oder dem Gesicht Ihres Geräts oder einem Sicherheitsschlüssel.",
        button: "Sign in with a passkey" / "Mit Passkey anmelden",
        busy: "Waiting for your passkey…" / "Warte auf Ihren Passkey…",
        cancelled: "Sign-in was cancelled. Try again when you are ready." / "Die Anmeldung wurde abgebrochen. Versuchen Sie es erneut, wenn Sie bereit sind.",
        unsupported: "This browser cannot use passkeys. Use a current version of Chrome, Edge, Firefox or Safari." / "Dieser Browser kann keine Passkeys verwenden. Verwenden Sie eine aktuelle Version von Chrome, Edge, Firefox oder Safari.",
        no_script: "Passkeys need JavaScript. Turn it on for this site and reload the page." / "Passkeys brauchen JavaScript. Schalten Sie es für diese Website ein und laden Sie die Seite neu.",
        no_account: "No account yet? The operator of this service, or an owner of your company's account, sends you an invite link." / "Noch kein Konto? Der Betreiber dieses Dienstes oder ein Inhaber des Kontos Ihrer Firma schickt Ihnen einen Einladungslink.",
        invite_title: "Accept the invite" / "Einladung annehmen",
        invite_intro: "You are invited to the account" / "Sie sind eingeladen zum Konto",
        invite_as: "as" / "als",
        invite_for: "The invite is for" / "Die Einladung gilt für",
        invite_how: "Create a passkey to accept it: it signs you in from now on, with no password. Your browser asks where to keep it (this device, your phone or a security key)." / "Erstellen Sie einen Passkey, um sie anzunehmen: Damit melden Sie sich künftig ohne Passwort an. Ihr Browser fragt, wo er gespeichert werden soll (dieses Gerät, Ihr Telefon oder ein Sicherheitsschlüssel).",
        invite_button: "Create a passkey" / "Passkey erstellen",
        invite_gone: "This invite has been used or has expired. Ask whoever invited you for a new link." / "Diese Einladung wurde schon verwendet oder ist abgelaufen. Bitten Sie die Person, die Sie eingeladen hat, um einen neuen Link.",
        challenge: "The sign-in took too long or was already used. Try again." / "Die Anmeldung hat zu lange gedauert oder wurde schon verwendet. Versuchen Sie es erneut.",
        first_passkey: "Passkey" / "Passkey",
    }
}

/// The request's relying party: the host of `PUBLIC_BASE_URL` (else of the request), and
/// the origin a browser signs for it.
pub(super) fn expected<'a>(
    app: &App,
    ctx: &'a Ctx,
    challenge: &'a [u8],
    rp_id: &'a str,
) -> Expected<'a> {
    let _ = app;
    Expected {
        challenge,
        origin: &ctx.origin,
        rp_id,
    }
}

/// The relying party id: the host of the service's base URL.
pub(super) fn rp_id(app: &App) -> String {
    parse_http(&app.base_url)
        .map(|u| u.host)
        .unwrap_or_default()
}

/// A fresh random secret (challenge, session id) as text.
pub(super) fn secret() -> ApiResult<String> {
    let mut random = [0u8; SECRET_BYTES];
    getrandom::fill(&mut random).map_err(|e| ApiError::Internal(format!("getrandom: {e}")))?;
    Ok(secret_text(&random))
}

/// A ceremony refused: 400 with the reason in the person's language.
pub(super) fn refused(lang: Lang, e: CeremonyError) -> ApiError {
    ApiError::Area {
        status: 400,
        message: e.message(lang.code()),
    }
}

/// The body of a ceremony request: a JSON object (at most the API's body size).
pub(super) async fn body(req: &mut Request) -> ApiResult<Map<String, Value>> {
    object_of(&req.bytes().await?)
}

/// The challenge the browser signed, as the response's client data names it.
pub(super) fn signed_challenge(response: &Value) -> Option<String> {
    let text = response.get("response")?.get("clientDataJSON")?.as_str()?;
    let client = webauthn::ClientData::parse(&base64url_decode(text)?).ok()?;
    Some(base64url(&client.challenge))
}

/// Success: a new session and where to go.
fn signed_in(session_id: &str) -> Response {
    let resp = json_response(200, &json!({"data": {"redirect": "/app"}}));
    with_session(resp, session_id, SESSION_MAX_MS / 1000)
}

/// The sign-in page; a signed-in member goes to the overview.
pub async fn page(app: &App, req: &Request, ctx: &Ctx) -> ApiResult<Response> {
    if super::session(app, req).await?.is_some() {
        return Ok(see_other("/app"));
    }
    let t = SignInText::of(ctx.lang);
    let mut body = Html::default();
    body.raw("<section class=\"ceremony\">")
        .element("p", &[], t.intro);
    ceremony_button(
        &mut body,
        t,
        "get",
        "/app/sign-in/options",
        "/app/sign-in",
        t.button,
    );
    body.element("p", &[("class", "muted")], t.no_account)
        .raw("</section>");
    Ok(frame(ctx, t.title, body, 200))
}

/// A page outside the navigation.
fn frame(ctx: &Ctx, title: &str, body: Html, status: u16) -> Response {
    let page = Page {
        lang: ctx.lang,
        title,
        nav: Nav::None,
        body,
        here: &ctx.here,
    };
    html(status, page.render(None))
}

/// The button the script turns into a ceremony, with what it says while it runs.
pub fn ceremony_button(
    h: &mut Html,
    t: &SignInText,
    kind: &'static str,
    options: &str,
    finish: &str,
    label: &str,
) {
    h.open(
        "button",
        &[
            ("type", "button"),
            ("data-ceremony", kind),
            ("data-options", options),
            ("data-finish", finish),
            ("data-busy", t.busy),
            ("data-cancelled", t.cancelled),
            ("data-unsupported", t.unsupported),
        ],
    )
    .text(label)
    .close("button")
    .raw("<p id=\"ceremony-status\" role=\"status\" aria-live=\"polite\"></p><noscript>")
    .element("p", &[("class", "error")], t.no_script)
    .raw("</noscript>");
}

/// The failed sign-ins of the client's address: its object, and the limit.
fn failures(app: &App, req: &Request) -> (throttle::Object, Vec<Limit>) {
    let address = address_key(&app.config.visitor_salt, &client_address(req));
    let limits = vec![Limit {
        bucket: "failed".into(),
        max: FAILED_SIGN_INS_PER_MINUTE,
        span: Span::Rolling(MINUTE_MS),
    }];
    (throttle::sign_in_object(&address), limits)
}

/// `POST /app/sign-in/options`: a challenge for any of the account's passkeys
/// (discoverable credentials: no list of ids is given away).
pub async fn options(app: &App, ctx: &Ctx) -> ApiResult<Response> {
    let _ = ctx;
    let challenge = secret()?;
    members::challenge(
        &*app.directory()?,
        &challenge,
        Purpose::SignIn,
        None,
        app.now_ms,
    )
    .await?;
    let bytes = base64url_decode(&challenge).unwrap_or_default();
    Ok(json_response(
        200,
        &webauthn::request_options(&rp_id(app), &bytes),
    ))
}

/// `POST /app/sign-in`: checks the `AuthenticationResponseJSON` and signs the member in.
/// At most [`FAILED_SIGN_INS_PER_MINUTE`] failures per client address; each failure of a
/// known passkey is in its account's security log.
pub async fn finish(app: &App, mut req: Request, ctx: &Ctx) -> ApiResult<Response> {
    let (object, limits) = failures(app, &req);
    let verdict = throttle::peek(&app.env, &object, limits.clone()).await?;
    if !verdict.allowed {
        return Err(ApiError::TooManyRequests {
            retry_after: verdict.retry_after,
        });
    }
    let response = Value::Object(body(&mut req).await?);
    let mut account = None;
    let outcome = check_sign_in(app, ctx, &response, &mut account).await;
    match outcome {
        Ok(session_id) => Ok(signed_in(&session_id)),
        Err(e) => {
            throttle::take(&app.env, &object, limits).await?;
            if let Some(account_id) = account {
                members::failed(&*app.directory()?, account_id, &visitor(app), app.now_ms).await?;
            }
            Err(e)
        }
    }
}

/// The checks of a sign-in, in order; the new session's id. `account`: the account of
/// the passkey, once known.
async fn check_sign_in(
    app: &App,
    ctx: &Ctx,
    response: &Value,
    account: &mut Option<i64>,
) -> ApiResult<String> {
    let dir = app.directory()?;
    let challenge =
        signed_challenge(response).ok_or(refused(ctx.lang, CeremonyError::Malformed))?;
    if !members::take_challenge(&dir, &challenge, Purpose::SignIn, None, app.now_ms).await? {
        return Err(ApiError::Area {
            status: 400,
            message: SignInText::of(ctx.lang).challenge,
        });
    }
    let credential = webauthn::credential_id(response).map_err(|e| refused(ctx.lang, e))?;
    let found = members::passkey(&dir, &base64url(&credential))
        .await?
        .ok_or(refused(ctx.lang, CeremonyError::UnknownCredential))?;
    *account = Some(found.account_id);
    let key = base64url_decode(&found.public_key).unwrap_or_default();
    let stored = StoredCredential {
        public_key: &key,
        sign_count: u32::try_from(found.sign_count).unwrap_or(0),
    };
    let bytes = base64url_decode(&challenge).unwrap_or_default();
    let rp = rp_id(app);
    let signed = webauthn::check_assertion(response, &expected(app, ctx, &bytes, &rp), &stored)
        .map_err(|e| refused(ctx.lang, e))?;
    if let Some(handle) = &signed.user_handle {
        if base64url(handle) != found.handle {
            return Err(refused(ctx.lang, CeremonyError::UnknownCredential));
        }
    }
    let valid = verify_signature(
        &signed.key.jwk,
        signed.key.algorithm,
        &signed.signature,
        &signed.message,
    )
    .await?;
    let count = signed.verified(valid).map_err(|e| refused(ctx.lang, e))?;
    let session_id = secret()?;
    let country = app.country();
    let made = members::sign_in(
        &dir,
        &found,
        i64::from(count),
        &secret_hash(&session_id),
        country.as_deref(),
        app.now_ms,
    )
    .await?;
    if !made {
        // Another sign-in with this passkey moved its counter meanwhile.
        return Err(refused(ctx.lang, CeremonyError::CounterWentBack));
    }
    Ok(session_id)
}

/// The invite of a link's code: 404 for no such code, 410 once used or expired.
async fn open_invite(app: &App, ctx: &Ctx, code: &str) -> ApiResult<InviteRow> {
    if !crate::domain::member::is_secret(code) {
        return Err(ApiError::NotFound);
    }
    let invite = members::open_invite(&*app.directory()?, &secret_hash(code))
        .await?
        .ok_or(ApiError::NotFound)?;
    if invite.used_at.is_some() || invite.expires_at <= app.now_ms {
        return Err(ApiError::Area {
            status: 410,
            message: SignInText::of(ctx.lang).invite_gone,
        });
    }
    Ok(invite)
}

/// `GET /app/invite/{code}`: who invites whom, and the button that accepts.
pub async fn invite_page(app: &App, ctx: &Ctx, code: &str) -> ApiResult<Response> {
    let t = SignInText::of(ctx.lang);
    let invite = match open_invite(app, ctx, code).await {
        Ok(invite) => invite,
        Err(ApiError::Area { status, message }) => {
            let mut body = Html::default();
            body.element("p", &[("class", "error")], message);
            return Ok(frame(ctx, t.invite_title, body, status));
        }
        Err(e) => return Err(e),
    };
    let common = super::text::Common::of(ctx.lang);
    let role = match invite.role.as_str() {
        "owner" => common.owner,
        _ => common.member,
    };
    let mut body = Html::default();
    body.raw("<section class=\"ceremony\"><p>")
        .text(t.invite_intro)
        .raw(" <strong>")
        .text(&invite.account_name)
        .raw("</strong> ")
        .text(t.invite_as)
        .raw(" <strong>")
        .text(role)
        .raw("</strong>.</p><p>")
        .text(t.invite_for)
        .raw(" <strong>")
        .text(&invite.email)
        .raw("</strong>.</p>")
        .element("p", &[], t.invite_how);
    let options = format!("/app/invite/{code}/options");
    let finish = format!("/app/invite/{code}");
    ceremony_button(&mut body, t, "create", &options, &finish, t.invite_button);
    body.raw("</section>");
    Ok(frame(ctx, t.invite_title, body, 200))
}

/// `POST /app/invite/{code}/options`: the creation options of the invited member's first
/// passkey.
pub async fn invite_options(app: &App, ctx: &Ctx, code: &str) -> ApiResult<Response> {
    let invite = open_invite(app, ctx, code).await?;
    let challenge = secret()?;
    members::challenge(
        &*app.directory()?,
        &challenge,
        Purpose::Register,
        Some(invite.id),
        app.now_ms,
    )
    .await?;
    let handle = member_handle(&app.config.token_pepper, invite.id);
    let options = webauthn::creation_options(
        &rp_id(app),
        &invite.account_name,
        &base64url_decode(&handle).unwrap_or_default(),
        &invite.email,
        &invite.email,
        &base64url_decode(&challenge).unwrap_or_default(),
        &[],
    );
    Ok(json_response(200, &options))
}

/// `POST /app/invite/{code}`: checks the `RegistrationResponseJSON`; the invite's member,
/// their passkey and a session, in one batch that only an open invite lets through.
pub async fn join(app: &App, mut req: Request, ctx: &Ctx, code: &str) -> ApiResult<Response> {
    let invite = open_invite(app, ctx, code).await?;
    let response = Value::Object(body(&mut req).await?);
    let dir = app.directory()?;
    let challenge =
        signed_challenge(&response).ok_or(refused(ctx.lang, CeremonyError::Malformed))?;
    let purpose = Purpose::Register;
    if !members::take_challenge(&dir, &challenge, purpose, Some(invite.id), app.now_ms).await? {
        return Err(ApiError::Area {
            status: 400,
            message: SignInText::of(ctx.lang).challenge,
        });
    }
    let bytes = base64url_decode(&challenge).unwrap_or_default();
    let rp = rp_id(app);
    let made = webauthn::verify_registration(&response, &expected(app, ctx, &bytes, &rp))
        .map_err(|e| refused(ctx.lang, e))?;
    let session_id = secret()?;
    let handle = member_handle(&app.config.token_pepper, invite.id);
    let (credential_id, public_key) = (base64url(&made.id), base64url(&made.public_key));
    let passkey = NewPasskey {
        credential_id: &credential_id,
        public_key: &public_key,
        sign_count: i64::from(made.sign_count),
        name: SignInText::of(ctx.lang).first_passkey,
    };
    let country = app.country();
    let joined = members::join(
        &dir,
        invite.id,
        &handle,
        &passkey,
        &secret_hash(&session_id),
        country.as_deref(),
        app.now_ms,
    )
    .await?;
    if joined.is_none() {
        return Err(ApiError::Area {
            status: 410,
            message: SignInText::of(ctx.lang).invite_gone,
        });
    }
    Ok(signed_in(&session_id))
}

/// `POST /app/sign-out`: the session ends on the server, the cookie in the browser.
pub async fn sign_out(app: &App, s: &Signed) -> ApiResult<Response> {
    members::end_session(
        &*app.directory()?,
        &s.id_hash,
        s.account.id,
        &s.by(app),
        app.now_ms,
    )
    .await?;
    Ok(with_session(see_other("/app/sign-in"), "", 0))
}

/// A passkey's name as a member gives it, or the default.
pub fn name_of(body: &Map<String, Value>, default: &str) -> String {
    body.get("name")
        .and_then(Value::as_str)
        .and_then(passkey_name)
        .unwrap_or_else(|| default.to_string())
}
