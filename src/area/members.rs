//! Members and passkeys (account-area.md 1, 2): owners see the account's members and their
//! roles, invite people (the link is shown once, for them to send) and remove members
//! (never the last owner); everyone looks after their own passkeys: add one (a WebAuthn
//! ceremony in the JSON forms of sign_in.rs), rename, remove (never the last one).
//!
//! Forms answer the page itself with what happened (an invite's link exists only in that
//! answer); a refusal is the page with its reason, 409 or 422. Every change goes through
//! `ops` or the store's statements, which write the security log in the same batch.

use worker::{Request, Response};

use super::layout::{html, see_other, Nav, Page};
use super::sign_in::{body, expected, refused, rp_id, secret, signed_challenge, SignInText};
use super::text::{texts, Common, Lang};
use super::{field, form, notice, with_session, Ctx, Signed};
use crate::domain::html::Html;
use crate::domain::member::{passkey_name, InviteRequest, Purpose, Role};
use crate::domain::signing::{base64url, base64url_decode};
use crate::domain::webauthn;
use crate::http::error::{ApiError, ApiResult};
use crate::http::json::{json_response, json_text_response};
use crate::http::App;
use crate::ops;
use crate::store::members::{self as rows, MemberRow, NewPasskey, PasskeyRow};
use crate::store::{batch, rows_of};

texts! {
    /// The Members page.
    MembersText {
        people: "People in this account" / "Personen in diesem Konto",
        roles: "Owners manage members, tokens, webhooks and erasure; members see everything and change nothing." / "Inhaber verwalten Mitglieder, Tokens, Webhooks und Löschungen; Mitglieder sehen alles und ändern nichts.",
        email: "Email" / "E-Mail",
        role: "Role" / "Rolle",
        added: "Added" / "Hinzugefügt",
        actions: "Actions" / "Aktionen",
        you: "(you)" / "(Sie)",
        remove: "Remove" / "Entfernen",
        remove_member: "Remove this member? Their passkeys and sessions end at once:" / "Dieses Mitglied entfernen? Seine Passkeys und Sitzungen enden sofort:",
        remove_member_button: "Remove member" / "Mitglied entfernen",
        remove_self: "Leave this account? Your passkeys end with it and you are signed out:" / "Dieses Konto verlassen? Ihre Passkeys enden damit und Sie werden abgemeldet:",
        last_owner: "The last owner cannot be removed. Invite another owner first." / "Der letzte Inhaber kann nicht entfernt werden. Laden Sie zuerst einen weiteren Inhaber ein.",
        only_owner: "last owner" / "letzter Inhaber",
        member_removed: "Member removed; their sessions have ended." / "Mitglied entfernt; seine Sitzungen sind beendet.",
        invite: "Invite someone" / "Jemanden einladen",
        invite_how: "No email is sent: you get a link to send yourself. It works once, for 7 days." / "Es wird keine E-Mail verschickt: Sie erhalten einen Link, den Sie selbst senden. Er funktioniert einmal und 7 Tage lang.",
        address: "Email address" / "E-Mail-Adresse",
        invite_button: "Create invite link" / "Einladungslink erstellen",
        invited: "Invite link for" / "Einladungslink für",
        link_once: "Copy the link now and send it: it is shown only once." / "Kopieren Sie den Link jetzt und senden Sie ihn: Er wird nur einmal angezeigt.",
        bad_email: "Enter a valid email address." / "Geben Sie eine gültige E-Mail-Adresse ein.",
        already: "This address is a member of the account already." / "Diese Adresse ist bereits Mitglied des Kontos.",
        passkeys: "Your passkeys" / "Ihre Passkeys",
        name: "Name" / "Name",
        created: "Created" / "Erstellt",
        last_used: "Last used" / "Zuletzt verwendet",
        rename: "Rename" / "Umbenennen",
        new_name: "New name" / "Neuer Name",
        save: "Save" / "Speichern",
        remove_passkey: "Remove this passkey? It can no longer sign you in:" / "Diesen Passkey entfernen? Mit ihm können Sie sich nicht mehr anmelden:",
        remove_passkey_button: "Remove passkey" / "Passkey entfernen",
        last_passkey: "Your last passkey cannot be removed. Add another one first." / "Ihren letzten Passkey können Sie nicht entfernen. Fügen Sie zuerst einen weiteren hinzu.",
        only_passkey: "your only passkey" / "Ihr einziger Passkey",
        passkey_removed: "Passkey removed." / "Passkey entfernt.",
        renamed: "Passkey renamed." / "Passkey umbenannt.",
        bad_name: "A passkey's name has 1 to 60 characters." / "Der Name eines Passkeys hat 1 bis 60 Zeichen.",
        add: "Add a passkey" / "Passkey hinzufügen",
        add_how: "A second passkey (your phone, a security key) keeps you able to sign in when a device is lost." / "Ein zweiter Passkey (Ihr Telefon, ein Sicherheitsschlüssel) hält Ihnen die Anmeldung offen, wenn ein Gerät verloren geht.",
        add_name: "Name of the new passkey" / "Name des neuen Passkeys",
        add_cancelled: "Adding the passkey was cancelled. Try again when you are ready." / "Das Hinzufügen wurde abgebrochen. Versuchen Sie es erneut, wenn Sie bereit sind.",
        default_name: "Passkey" / "Passkey",
        duplicate: "This passkey is registered already." / "Dieser Passkey ist bereits registriert.",
        expired: "Adding the passkey took too long or was already done. Try again." / "Das Hinzufügen des Passkeys hat zu lange gedauert oder ist schon geschehen. Versuchen Sie es erneut.",
    }
}

/// What a change has to say on the page it answers.
#[derive(Default)]
struct Outcome<'a> {
    /// The answer's status; 0 (the default) is 200.
    status: u16,
    notice: Option<&'a str>,
    /// A refusal, above everything.
    error: Option<&'a str>,
    /// An invite just made: its address and its link, shown this once.
    invited: Option<(String, String)>,
    /// The invite form's refusal and what was typed.
    invite_error: Option<(&'a str, String)>,
}

impl<'a> Outcome<'a> {
    fn done(notice: &'a str) -> Outcome<'a> {
        Outcome {
            notice: Some(notice),
            ..Outcome::default()
        }
    }

    fn refused(status: u16, error: &'a str) -> Outcome<'a> {
        Outcome {
            status,
            error: Some(error),
            ..Outcome::default()
        }
    }
}

/// `GET /app/members`.
pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    render(app, ctx, s, Outcome::default()).await
}

/// The page with `outcome` on it.
async fn render(app: &App, ctx: &Ctx, s: &Signed, outcome: Outcome<'_>) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    // Both lists in one round trip.
    let read = vec![
        rows::members_sql(s.account.id),
        rows::passkeys_sql(s.session.member_id),
    ];
    let results = batch(&*app.directory()?, read).await?;
    let people: Vec<MemberRow> = rows_of(&results, 0)?;
    let keys: Vec<PasskeyRow> = rows_of(&results, 1)?;
    let mut h = Html::default();
    if let Some(error) = outcome.error {
        h.element("p", &[("class", "error"), ("role", "alert")], error);
    }
    if let Some(text) = outcome.notice {
        notice(&mut h, text);
    }
    if let Some((email, url)) = &outcome.invited {
        invited(&mut h, ctx.lang, email, url);
    }
    members(&mut h, ctx.lang, s, &people);
    if s.owner() {
        invite_form(&mut h, t, ctx.lang, outcome.invite_error.as_ref());
    }
    passkeys(&mut h, ctx.lang, &keys);
    let page = Page {
        lang: ctx.lang,
        title: Common::of(ctx.lang).members,
        nav: Nav::Members,
        body: h,
        here: &ctx.here,
    };
    let status = if outcome.status == 0 {
        200
    } else {
        outcome.status
    };
    Ok(html(status, page.render(Some(s))))
}

/// The link of an invite just made, once, with a copy button.
fn invited(h: &mut Html, lang: Lang, email: &str, url: &str) {
    let t = MembersText::of(lang);
    let c = Common::of(lang);
    h.raw("<section class=\"panel\" aria-labelledby=\"invited\">")
        .open("h2", &[("id", "invited")])
        .text(t.invited)
        .raw(" ")
        .text(email)
        .close("h2")
        .element("p", &[], t.link_once)
        .element("code", &[("class", "secret"), ("id", "invite-link")], url)
        .element(
            "button",
            &[
                ("type", "button"),
                ("class", "secondary"),
                ("data-copy", "invite-link"),
                ("data-copied", c.copied),
                ("hidden", ""),
            ],
            c.copy,
        )
        .raw("</section>");
}

/// The account's members; an owner's page has the remove controls (none for the last
/// owner).
fn members(h: &mut Html, lang: Lang, s: &Signed, people: &[MemberRow]) {
    let t = MembersText::of(lang);
    let c = Common::of(lang);
    let owners = people.iter().filter(|m| m.role == "owner").count();
    h.raw("<section aria-labelledby=\"people\">")
        .open("h2", &[("id", "people")])
        .text(t.people)
        .close("h2")
        .element("p", &[("class", "muted")], t.roles)
        .raw("<div class=\"table\"><table class=\"stack\"><thead><tr>")
        .element("th", &[("scope", "col")], t.email)
        .element("th", &[("scope", "col")], t.role)
        .element("th", &[("scope", "col")], t.added);
    if s.owner() {
        h.element("th", &[("scope", "col")], t.actions);
    }
    h.raw("</tr></thead><tbody>");
    for m in people {
        let me = m.id == s.session.member_id;
        let role = match Role::parse(&m.role) {
            Some(Role::Owner) => c.owner,
            _ => c.member,
        };
        h.raw("<tr><td>").text(&m.email);
        if me {
            h.raw(" ").element("span", &[("class", "muted")], t.you);
        }
        h.raw("</td>")
            .element("td", &[("data-label", t.role)], role)
            .element(
                "td",
                &[("data-label", t.added)],
                &lang.date_time(m.created_at),
            );
        if s.owner() {
            h.open("td", &[("data-label", t.actions)]);
            if m.role == "owner" && owners <= 1 {
                h.element("span", &[("class", "muted")], t.only_owner);
            } else {
                confirm(
                    h,
                    t.remove,
                    if me { t.remove_self } else { t.remove_member },
                    &m.email,
                    &format!("/app/members/{}/remove", m.id),
                    t.remove_member_button,
                );
            }
            h.raw("</td>");
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div></section>");
}

/// A change behind a confirmation: `<details class="confirm">` opens to the question and
/// the form that posts it.
fn confirm(h: &mut Html, summary: &str, question: &str, what: &str, action: &str, button: &str) {
    h.raw("<details class=\"confirm\">")
        .element("summary", &[], summary)
        .raw("<p>")
        .text(question)
        .raw(" <strong>")
        .text(what)
        .raw("</strong></p>")
        .open("form", &[("method", "post"), ("action", action)])
        .element("button", &[("type", "submit"), ("class", "danger")], button)
        .raw("</form></details>");
}

/// An owner's invite form: the address and the role.
fn invite_form(h: &mut Html, t: &MembersText, lang: Lang, error: Option<&(&str, String)>) {
    let c = Common::of(lang);
    h.raw("<section aria-labelledby=\"invite\">")
        .open("h2", &[("id", "invite")])
        .text(t.invite)
        .close("h2")
        .element("p", &[("class", "muted")], t.invite_how)
        .raw("<form method=\"post\" action=\"/app/members\">")
        .element("label", &[("for", "invite-email")], t.address);
    let typed = error.map_or("", |(_, typed)| typed.as_str());
    let mut input = vec![
        ("type", "email"),
        ("id", "invite-email"),
        ("name", "email"),
        ("required", ""),
        ("autocomplete", "off"),
        ("maxlength", "255"),
        ("value", typed),
    ];
    if error.is_some() {
        input.extend([
            ("aria-invalid", "true"),
            ("aria-describedby", "invite-error"),
        ]);
    }
    h.open("input", &input);
    if let Some((message, _)) = error {
        h.element(
            "p",
            &[
                ("class", "error"),
                ("id", "invite-error"),
                ("role", "alert"),
            ],
            message,
        );
    }
    h.element("label", &[("for", "invite-role")], t.role)
        .raw("<select id=\"invite-role\" name=\"role\">")
        .element("option", &[("value", "member")], c.member)
        .element("option", &[("value", "owner")], c.owner)
        .raw("</select><div>")
        .element("button", &[("type", "submit")], t.invite_button)
        .raw("</div></form></section>");
}

/// The member's own passkeys, their rename and remove controls (none to remove the last
/// one), and the ceremony that adds one.
fn passkeys(h: &mut Html, lang: Lang, keys: &[PasskeyRow]) {
    let t = MembersText::of(lang);
    let c = Common::of(lang);
    h.raw("<section aria-labelledby=\"passkeys\">")
        .open("h2", &[("id", "passkeys")])
        .text(t.passkeys)
        .close("h2")
        .raw("<div class=\"table\"><table class=\"stack\"><thead><tr>")
        .element("th", &[("scope", "col")], t.name)
        .element("th", &[("scope", "col")], t.created)
        .element("th", &[("scope", "col")], t.last_used)
        .element("th", &[("scope", "col")], t.actions)
        .raw("</tr></thead><tbody>");
    for key in keys {
        let last_used = key
            .last_used_at
            .map_or_else(|| c.never.to_string(), |ms| lang.date_time(ms));
        let field_id = format!("passkey-{}-name", key.id);
        h.raw("<tr>")
            .element("td", &[], &key.name)
            .element(
                "td",
                &[("data-label", t.created)],
                &lang.date_time(key.created_at),
            )
            .element("td", &[("data-label", t.last_used)], &last_used)
            .open("td", &[("data-label", t.actions)])
            .raw("<details class=\"rename\">")
            .element("summary", &[], t.rename)
            .open(
                "form",
                &[
                    ("method", "post"),
                    ("action", &format!("/app/passkeys/{}/rename", key.id)),
                ],
            )
            .element("label", &[("for", &field_id)], t.new_name)
            .open(
                "input",
                &[
                    ("type", "text"),
                    ("id", &field_id),
                    ("name", "name"),
                    ("required", ""),
                    ("maxlength", "60"),
                    ("value", &key.name),
                ],
            )
            .element("button", &[("type", "submit")], t.save)
            .raw("</form></details> ");
        if keys.len() > 1 {
            confirm(
                h,
                t.remove,
                t.remove_passkey,
                &key.name,
                &format!("/app/passkeys/{}/remove", key.id),
                t.remove_passkey_button,
            );
        } else {
            h.element("span", &[("class", "muted")], t.only_passkey);
        }
        h.raw("</td></tr>");
    }
    h.raw("</tbody></table></div>")
        .open("h3", &[("id", "add-passkey")])
        .text(t.add)
        .close("h3")
        .element("p", &[("class", "muted")], t.add_how)
        // Without the script, Enter in the name field only reloads the page; with it, it
        // starts the ceremony.
        .raw("<form method=\"get\" action=\"/app/members\" aria-labelledby=\"add-passkey\">")
        .element("label", &[("for", "passkey-name")], t.add_name)
        .open(
            "input",
            &[
                ("type", "text"),
                ("id", "passkey-name"),
                ("name", "name"),
                ("maxlength", "60"),
                ("autocomplete", "off"),
                ("placeholder", t.default_name),
            ],
        )
        .raw("<div>");
    let s = SignInText::of(lang);
    h.open(
        "button",
        &[
            ("type", "button"),
            ("data-ceremony", "create"),
            ("data-options", "/app/passkeys/options"),
            ("data-finish", "/app/passkeys"),
            ("data-busy", s.busy),
            ("data-cancelled", t.add_cancelled),
            ("data-unsupported", s.unsupported),
        ],
    )
    .text(t.add)
    .close("button")
    .raw("</div><p id=\"ceremony-status\" role=\"status\" aria-live=\"polite\"></p><noscript>")
    .element("p", &[("class", "error")], s.no_script)
    .raw("</noscript></form></section>");
}

/// `POST /app/members` (owners): an invite, its link on the page this once.
pub async fn invite(app: &App, mut req: Request, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    let posted = form(&mut req).await?;
    let email = field(&posted, "email").unwrap_or_default();
    let mut body = serde_json::Map::new();
    body.insert("email".into(), email.into());
    if let Some(role) = field(&posted, "role") {
        body.insert("role".into(), role.into());
    }
    let bad = |message| Outcome {
        status: 422,
        invite_error: Some((message, email.to_string())),
        ..Outcome::default()
    };
    let outcome = match InviteRequest::parse(&body) {
        Err(_) => bad(t.bad_email),
        Ok(request) => match ops::members::invite(app, s.account.id, &request, &s.by(app)).await {
            Ok((invite, url)) => Outcome {
                invited: Some((invite.email, url)),
                ..Outcome::default()
            },
            Err(ApiError::Validation(_)) => bad(t.already),
            Err(e) => return Err(e),
        },
    };
    render(app, ctx, s, outcome).await
}

/// `POST /app/members/{id}/remove` (owners): never the last owner. Removing oneself ends
/// one's own session too: the answer is the sign-in page.
pub async fn remove(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    let outcome = if ops::members::remove(app, s.account.id, id, &s.by(app)).await? {
        if id == s.session.member_id {
            return Ok(with_session(see_other("/app/sign-in"), "", 0));
        }
        Outcome::done(t.member_removed)
    } else {
        let people = rows::members(&*app.directory()?, s.account.id).await?;
        if !people.iter().any(|m| m.id == id) {
            return Err(ApiError::NotFound);
        }
        Outcome::refused(409, t.last_owner)
    };
    render(app, ctx, s, outcome).await
}

/// `POST /app/passkeys/options`: creation options for another passkey of this member,
/// excluding those they have (an authenticator holding one makes no second).
pub async fn passkey_options(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let _ = ctx;
    let dir = app.directory()?;
    let member = s.session.member_id;
    let challenge = secret()?;
    rows::challenge(
        &dir,
        &challenge,
        Purpose::AddPasskey,
        Some(member),
        app.now_ms,
    )
    .await?;
    let exclude: Vec<Vec<u8>> = rows::credentials(&dir, member)
        .await?
        .iter()
        .filter_map(|id| base64url_decode(id))
        .collect();
    let email = &s.session.email;
    let options = webauthn::creation_options(
        &rp_id(app),
        &s.account.name,
        &base64url_decode(&s.session.handle).unwrap_or_default(),
        email,
        email,
        &base64url_decode(&challenge).unwrap_or_default(),
        &exclude,
    );
    Ok(json_response(200, &options))
}

/// `POST /app/passkeys`: checks the `RegistrationResponseJSON` against this member's
/// challenge and stores the passkey (logged); 200 `{data: {redirect}}` or 400 `{message}`.
pub async fn add_passkey(
    app: &App,
    mut req: Request,
    ctx: &Ctx,
    s: &Signed,
) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    let posted = body(&mut req).await?;
    let name = super::sign_in::name_of(&posted, t.default_name);
    let response = serde_json::Value::Object(posted);
    let dir = app.directory()?;
    let member = s.session.member_id;
    let challenge =
        signed_challenge(&response).ok_or(refused(ctx.lang, webauthn::CeremonyError::Malformed))?;
    if !rows::take_challenge(
        &dir,
        &challenge,
        Purpose::AddPasskey,
        Some(member),
        app.now_ms,
    )
    .await?
    {
        return Err(ApiError::Area {
            status: 400,
            message: t.expired,
        });
    }
    let bytes = base64url_decode(&challenge).unwrap_or_default();
    let rp = rp_id(app);
    let made = webauthn::verify_registration(&response, &expected(app, ctx, &bytes, &rp))
        .map_err(|e| refused(ctx.lang, e))?;
    let credential_id = base64url(&made.id);
    let public_key = base64url(&made.public_key);
    let passkey = NewPasskey {
        credential_id: &credential_id,
        public_key: &public_key,
        sign_count: i64::from(made.sign_count),
        name: &name,
    };
    let country = app.country();
    let added = rows::add_passkey(
        &dir,
        &s.session.handle,
        &passkey,
        country.as_deref(),
        app.now_ms,
    )
    .await;
    // A credential id is registered once (`passkeys_credential`): this one is already, to
    // this member or another.
    match added {
        Err(e) if e.to_string().contains("UNIQUE") => {
            return Err(ApiError::Area {
                status: 400,
                message: t.duplicate,
            })
        }
        other => other?,
    }
    Ok(json_text_response(
        200,
        br#"{"data":{"redirect":"/app/members"}}"#.to_vec(),
    ))
}

/// `POST /app/passkeys/{id}/rename`: one of the member's own passkeys, 1 to 60 characters.
pub async fn rename_passkey(
    app: &App,
    mut req: Request,
    ctx: &Ctx,
    s: &Signed,
    id: i64,
) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    let posted = form(&mut req).await?;
    let outcome = match field(&posted, "name").and_then(passkey_name) {
        None => Outcome::refused(422, t.bad_name),
        Some(name) => {
            let dir = app.directory()?;
            if !rows::rename_passkey(&dir, s.session.member_id, id, &name).await? {
                return Err(ApiError::NotFound);
            }
            Outcome::done(t.renamed)
        }
    };
    render(app, ctx, s, outcome).await
}

/// `POST /app/passkeys/{id}/remove`: one of the member's own passkeys, never the last.
pub async fn remove_passkey(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let t = MembersText::of(ctx.lang);
    let dir = app.directory()?;
    let member = s.session.member_id;
    let outcome =
        if rows::remove_passkey(&dir, member, id, &s.by(app), s.account.id, app.now_ms).await? {
            Outcome::done(t.passkey_removed)
        } else {
            let keys = rows::passkeys(&dir, member).await?;
            if !keys.iter().any(|k| k.id == id) {
                return Err(ApiError::NotFound);
            }
            Outcome::refused(409, t.last_passkey)
        };
    render(app, ctx, s, outcome).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(id: i64, name: &str) -> PasskeyRow {
        PasskeyRow {
            id,
            name: name.into(),
            created_at: 0,
            last_used_at: None,
        }
    }

    fn passkeys_of(keys: &[PasskeyRow], lang: Lang) -> String {
        let mut h = Html::default();
        passkeys(&mut h, lang, keys);
        h.into_string()
    }

    #[test]
    fn the_last_passkey_has_no_remove_control() {
        let one = passkeys_of(&[key(7, "Laptop <1>")], Lang::En);
        assert!(one.contains("action=\"/app/passkeys/7/rename\""));
        assert!(!one.contains("/remove\""));
        assert!(one.contains("your only passkey") && one.contains("Laptop &lt;1&gt;"));
        assert!(one.contains("<td data-label=\"Last used\">never</td>"));
        let two = passkeys_of(&[key(7, "Laptop"), key(8, "Phone")], Lang::De);
        for id in [7, 8] {
            assert!(two.contains(&format!("action=\"/app/passkeys/{id}/remove\"")));
        }
        assert!(two.contains("<details class=\"confirm\"><summary>Entfernen</summary>"));
        assert!(two.contains("data-options=\"/app/passkeys/options\""));
        assert!(two.contains("data-finish=\"/app/passkeys\""));
    }

    #[test]
    fn a_refused_invite_keeps_what_was_typed_and_says_why() {
        let mut h = Html::default();
        let t = MembersText::of(Lang::En);
        invite_form(
            &mut h,
            t,
            Lang::En,
            Some(&(t.bad_email, "a\"b".to_string())),
        );
        let h = h.into_string();
        assert!(h.contains("value=\"a&quot;b\""));
        assert!(h.contains("aria-invalid=\"true\" aria-describedby=\"invite-error\""));
        assert!(h.contains("id=\"invite-error\" role=\"alert\">Enter a valid email address."));
        let mut fresh = Html::default();
        invite_form(&mut fresh, t, Lang::En, None);
        assert!(!fresh.into_string().contains("aria-invalid"));
    }

    #[test]
    fn an_invite_link_is_shown_with_its_copy_button() {
        let mut h = Html::default();
        invited(
            &mut h,
            Lang::En,
            "bea@acme.example",
            "https://x.example/app/invite/abc",
        );
        let h = h.into_string();
        assert!(h.contains(
            "<code class=\"secret\" id=\"invite-link\">https://x.example/app/invite/abc</code>"
        ));
        assert!(h.contains("data-copy=\"invite-link\"") && h.contains(" hidden=\"\""));
    }
}
