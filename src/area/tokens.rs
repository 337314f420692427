//! API tokens (account-area.md 2, api-v1.md 5): only with the plan's API access; the
//! account's tokens (name, scopes, created, last used), a new one with scope checkboxes
//! (its plaintext rendered once, in the answer to the post, never stored), and revoking
//! after a confirmation (the very next API request with it is refused: `ops` drops its
//! cached record before answering).

use worker::{Request, Response};

use super::layout::{see_other, Nav};
use super::text::{texts, Common, Lang};
use super::widgets::{self, asked, choice, fieldset, form_errors, text_field, TextField};
use super::{form, notice, Ctx, Signed};
use crate::domain::account::TokenRequest;
use crate::domain::html::Html;
use crate::domain::token::{Scope, Token};
use crate::domain::validation::FieldErrors;
use crate::http::error::ApiResult;
use crate::http::App;
use crate::ops;
use crate::store::tokens;

texts! {
    TokensText {
        intro: "A token lets a program of yours use the API on this account's behalf, with only the scopes you give it." / "Mit einem Token nutzt ein Programm von Ihnen die API im Namen dieses Kontos, mit genau den Berechtigungen, die Sie ihm geben.",
        lacks: "API tokens need API access, which this account's plan ({plan}) does not include." / "API-Tokens brauchen API-Zugang, den der Tarif dieses Kontos ({plan}) nicht enthält.",
        upgrade: "An upgrade to the top tier, Enterprise, is needed to create tokens and use the API." / "Um Tokens zu erstellen und die API zu nutzen, ist ein Wechsel zum höchsten Tarif, Enterprise, nötig.",
        list: "Tokens" / "Tokens",
        name: "Name" / "Name",
        scopes: "Scopes" / "Berechtigungen",
        created: "Created" / "Erstellt",
        last_used: "Last used" / "Zuletzt verwendet",
        actions: "Actions" / "Aktionen",
        none: "This account has no API tokens yet." / "Dieses Konto hat noch keine API-Tokens.",
        create: "Create a token" / "Token erstellen",
        name_hint: "What it is for, e.g. “CRM sync”." / "Wofür es ist, z. B. „CRM-Abgleich“.",
        scopes_legend: "Scopes: what it may do" / "Berechtigungen: was es darf",
        create_button: "Create token" / "Token erstellen",
        created_title: "Your new token" / "Ihr neues Token",
        token: "Token" / "Token",
        revoke: "Revoke…" / "Widerrufen…",
        revoke_confirm: "Revoke “{name}”? Programs using it are refused from the next request on. This cannot be undone." / "„{name}“ widerrufen? Programme, die es verwenden, werden ab der nächsten Anfrage abgewiesen. Das lässt sich nicht rückgängig machen.",
        revoke_button: "Revoke token" / "Token widerrufen",
        revoked: "The token was revoked: requests with it are refused from now on." / "Das Token wurde widerrufen: Anfragen damit werden ab sofort abgewiesen.",
        name_required: "Give the token a name." / "Geben Sie dem Token einen Namen.",
        name_long: "The name may have at most 255 characters." / "Der Name darf höchstens 255 Zeichen haben.",
        scopes_required: "Choose at least one scope." / "Wählen Sie mindestens eine Berechtigung.",
        scopes_invalid: "Choose only the scopes listed." / "Wählen Sie nur die aufgeführten Berechtigungen.",
        cards_read: "List and read cards." / "Karten auflisten und lesen.",
        cards_write: "Create, change and delete cards (reading them too)." / "Karten erstellen, ändern und löschen (auch lesen).",
        leads_read: "List and read leads." / "Leads auflisten und lesen.",
        analytics_read: "Read view and click analytics." / "Aufruf- und Klickanalysen lesen.",
        webhooks_write: "Create and manage webhooks (they carry only events the token may read)." / "Webhooks erstellen und verwalten (sie tragen nur Ereignisse, die das Token lesen darf).",
        leads_write: "Erase leads." / "Leads löschen.",
        scim: "Provision people's cards through SCIM 2.0 (/scim/v2)." / "Karten von Personen über SCIM 2.0 bereitstellen (/scim/v2).",
        templates_read: "List and read company templates." / "Firmenvorlagen auflisten und lesen.",
        templates_write: "Create, change and delete company templates (reading them too)." / "Firmenvorlagen erstellen, ändern und löschen (auch lesen).",
    }
}

/// What a scope grants, in a sentence.
pub fn grants(scope: Scope, t: &TokensText) -> &'static str {
    match scope {
        Scope::CardsRead => t.cards_read,
        Scope::CardsWrite => t.cards_write,
        Scope::LeadsRead => t.leads_read,
        Scope::AnalyticsRead => t.analytics_read,
        Scope::WebhooksWrite => t.webhooks_write,
        Scope::LeadsWrite => t.leads_write,
        Scope::Scim => t.scim,
        Scope::TemplatesRead => t.templates_read,
        Scope::TemplatesWrite => t.templates_write,
    }
}

/// The create form's values and errors, as posted.
#[derive(Default)]
struct Draft {
    name: String,
    scopes: Vec<String>,
    name_error: Option<&'static str>,
    scopes_error: Option<&'static str>,
    other_error: bool,
}

impl Draft {
    fn any_error(&self) -> bool {
        self.name_error.is_some() || self.scopes_error.is_some() || self.other_error
    }
}

/// The parser's errors in the page's language.
fn localized(errors: &FieldErrors, name: &str, scopes: &[String], t: &TokensText) -> Draft {
    let name_error = errors.has("name").then(|| match name.trim().is_empty() {
        true => t.name_required,
        false => t.name_long,
    });
    let scopes_error = if errors.has("scopes") {
        Some(t.scopes_required)
    } else {
        scopes
            .iter()
            .any(|s| Scope::parse(s).is_none())
            .then_some(t.scopes_invalid)
    };
    let other_error = name_error.is_none() && scopes_error.is_none() && !errors.is_empty();
    Draft {
        name_error,
        scopes_error,
        other_error,
        ..Draft::default()
    }
}

/// What the page shows besides the list.
enum Shown<'a> {
    Plain,
    /// A token just made: its row and plaintext.
    Minted(&'a Token, &'a str),
    Draft(&'a Draft),
}

fn api_access(s: &Signed) -> bool {
    s.account.overrides.effective(s.account.plan).0.api_access
}

pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let list = tokens::list(&*app.directory()?, s.account.id).await?;
    Ok(render(ctx, s, &list, Shown::Plain))
}

pub async fn create(app: &App, req: Request, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = TokensText::of(ctx.lang);
    let dir = app.directory()?;
    if !api_access(s) {
        let list = tokens::list(&dir, s.account.id).await?;
        return Ok(render(ctx, s, &list, Shown::Plain).with_status(403));
    }
    let mut req = req;
    let posted = form(&mut req).await?;
    let body = widgets::object(&posted, &["name"], &["scopes"]);
    let request = match TokenRequest::parse(&body) {
        Ok(r) => r,
        Err(errors) => {
            let name = super::field(&posted, "name").unwrap_or_default();
            let scopes: Vec<String> = super::values(&posted, "scopes")
                .map(str::to_string)
                .collect();
            let draft = Draft {
                name: name.to_string(),
                ..localized(&errors, name, &scopes, t)
            };
            let draft = Draft { scopes, ..draft };
            let list = tokens::list(&dir, s.account.id).await?;
            return Ok(render(ctx, s, &list, Shown::Draft(&draft)).with_status(422));
        }
    };
    let (token, plaintext) = ops::tokens::mint(app, s.account.id, &request, &s.by(app)).await?;
    let list = tokens::list(&dir, s.account.id).await?;
    Ok(render(ctx, s, &list, Shown::Minted(&token, &plaintext)))
}

pub async fn revoke(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let _ = ctx;
    ops::tokens::revoke(app, id, Some(s.account.id), &s.by(app)).await?;
    Ok(see_other("/app/tokens?done=revoked"))
}

fn render(ctx: &Ctx, s: &Signed, list: &[Token], shown: Shown) -> Response {
    let t = TokensText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let access = api_access(s);
    let mut h = Html::default();
    if asked(ctx, "done").as_deref() == Some("revoked") {
        notice(&mut h, t.revoked);
    }
    if let Shown::Minted(token, plaintext) = &shown {
        h.raw("<section aria-labelledby=\"new-token-title\">")
            .element("h2", &[("id", "new-token-title")], t.created_title)
            .open("p", &[])
            .element("strong", &[], &token.name)
            .raw(" · ")
            .text(&token.scopes.names().join(", "))
            .close("p");
        widgets::secret(&mut h, ctx.lang, "new-token", t.token, plaintext);
        h.raw("</section>");
    }
    if !access {
        h.raw("<section>")
            .element(
                "p",
                &[("class", "note")],
                &t.lacks.replace("{plan}", s.account.plan.as_str()),
            )
            .element("p", &[], t.upgrade)
            .raw("</section>");
    } else {
        h.element("p", &[("class", "muted")], t.intro);
    }
    // A plan without API access still lists the tokens it had, so an owner can revoke one.
    if access || !list.is_empty() {
        table(&mut h, ctx.lang, s.owner(), list);
    }
    if access && s.owner() {
        let empty = Draft::default();
        let draft = match &shown {
            Shown::Draft(d) => d,
            _ => &empty,
        };
        create_form(&mut h, ctx.lang, draft);
    }
    ctx.page(c.tokens, Nav::Tokens, h, Some(s))
}

fn table(h: &mut Html, lang: Lang, owner: bool, list: &[Token]) {
    let t = TokensText::of(lang);
    let c = Common::of(lang);
    h.raw("<section>").element("h2", &[], t.list);
    if list.is_empty() {
        h.element("p", &[("class", "muted")], t.none)
            .raw("</section>");
        return;
    }
    widgets::table(h, t.list);
    h.raw("<thead><tr>");
    for head in [t.name, t.scopes, t.created, t.last_used] {
        h.element("th", &[("scope", "col")], head);
    }
    if owner {
        h.element("th", &[("scope", "col")], t.actions);
    }
    h.raw("</tr></thead><tbody>");
    for token in list {
        h.raw("<tr>")
            .element("th", &[("scope", "row")], &token.name)
            // Plain text: a scope breaks only after its comma on a narrow screen.
            .element(
                "td",
                &[("data-label", t.scopes)],
                &token.scopes.names().join(", "),
            );
        widgets::time_cell(h, lang, t.created, token.created_at);
        match token.last_used_at {
            Some(ms) => widgets::time_cell(h, lang, t.last_used, ms),
            None => {
                h.element("td", &[("data-label", t.last_used)], c.never);
            }
        }
        if owner {
            let action = format!("/app/tokens/{}/revoke", token.id);
            h.open("td", &[("data-label", t.actions)])
                .raw("<details class=\"confirm\"><summary>")
                .text(t.revoke)
                .raw("</summary>")
                .element("p", &[], &t.revoke_confirm.replace("{name}", &token.name))
                .open("form", &[("method", "post"), ("action", &action)])
                .element(
                    "button",
                    &[("type", "submit"), ("class", "danger")],
                    t.revoke_button,
                )
                .raw("</form></details></td>");
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div></section>");
}

fn create_form(h: &mut Html, lang: Lang, draft: &Draft) {
    let t = TokensText::of(lang);
    h.raw("<section aria-labelledby=\"create-token\">")
        .element("h2", &[("id", "create-token")], t.create)
        .raw("<form method=\"post\" action=\"/app/tokens\" novalidate>");
    form_errors(h, lang, draft.any_error());
    text_field(
        h,
        &TextField {
            id: "token-name",
            hint_id: "token-name-hint",
            error_id: "token-name-error",
            described: "token-name-error token-name-hint",
            name: "name",
            kind: "text",
            max: "255",
            required: true,
            label: t.name,
            hint: t.name_hint,
            value: &draft.name,
            error: draft.name_error,
        },
    );
    fieldset(h, t.scopes_legend, "token-scopes-error", draft.scopes_error);
    for scope in Scope::ALL {
        let name = scope.as_str();
        let on = draft.scopes.iter().any(|s| s == name);
        choice(h, "checkbox", "scopes", name, on, name, grants(scope, t));
    }
    h.raw("</fieldset>")
        .element("button", &[("type", "submit")], t.create_button)
        .raw("</form></section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::validation::Rule;

    #[test]
    fn every_scope_says_what_it_grants_in_both_languages() {
        for lang in [Lang::En, Lang::De] {
            let t = TokensText::of(lang);
            let mut seen = Vec::new();
            for scope in Scope::ALL {
                let text = grants(scope, t);
                assert!(!text.is_empty() && !seen.contains(&text), "{scope:?}");
                seen.push(text);
            }
        }
        assert_ne!(
            grants(Scope::Scim, TokensText::of(Lang::En)),
            grants(Scope::Scim, TokensText::of(Lang::De))
        );
    }

    #[test]
    fn the_parsers_errors_are_said_in_the_pages_language() {
        let t = TokensText::of(Lang::De);
        let mut e = FieldErrors::new();
        e.add_rule("name", Rule::Required);
        e.add_rule("scopes", Rule::Required);
        let d = localized(&e, " ", &[], t);
        assert_eq!(d.name_error, Some(t.name_required));
        assert_eq!(d.scopes_error, Some(t.scopes_required));
        assert!(!d.other_error);
        let mut e = FieldErrors::new();
        e.add_rule("name", Rule::MaxChars(255));
        e.add_rule("scopes.2", Rule::Choice);
        let d = localized(&e, "x", &["cards:read".into(), "cards:burn".into()], t);
        assert_eq!(d.name_error, Some(t.name_long));
        assert_eq!(d.scopes_error, Some(t.scopes_invalid));
        let mut e = FieldErrors::new();
        e.add_rule("else", Rule::Other);
        assert!(localized(&e, "x", &[], t).other_error);
    }
}
