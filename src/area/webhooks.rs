//! Webhooks (account-area.md 2, extensions.md 4): the account's subscriptions; a new one
//! (its signing secret rendered once, in the answer to the post); a webhook's page with
//! its edit form (url, events, description, enabled or disabled), a new secret (the
//! previous one keeps signing for 24 hours), delete after a confirmation, and its delivery
//! attempts, newest first and paged, each with a redeliver button. Every change goes
//! through `ops::webhooks` as a member of the account (who may read every event).

use worker::{Request, Response};

use super::layout::{pager, see_other, Nav};
use super::text::{texts, Common, Lang};
use super::widgets::{
    self, asked, choice, fieldset, form_errors, page_number, text_field, TextField,
};
use super::{form, notice, Ctx, Signed};
use crate::domain::event::EventType;
use crate::domain::html::Html;
use crate::domain::input::Mode;
use crate::domain::pagination::Page;
use crate::domain::validation::{FieldErrors, Rule};
use crate::domain::webhook::{
    check_url, Delivery, EventFilter, Webhook, WebhookInput, MAX_PER_ACCOUNT, MAX_URL_CHARS,
};
use crate::domain::weburl::parse_http;
use crate::http::error::{ApiError, ApiResult};
use crate::http::App;
use crate::ops;
use crate::ops::webhooks::{Reads, Who};
use crate::store::webhooks::{self, Owner};

texts! {
    WebhooksText {
        intro: "A webhook sends each change of the account's cards and leads to a URL of yours as it happens, signed with the webhook's secret (Standard Webhooks)." / "Ein Webhook sendet jede Änderung an Karten und Leads des Kontos sofort an eine URL von Ihnen, signiert mit dem Geheimnis des Webhooks (Standard Webhooks).",
        no_access: "This account's plan has no API access: deliveries wait and resume when access returns." / "Der Tarif dieses Kontos hat keinen API-Zugang: Zustellungen warten und werden fortgesetzt, sobald der Zugang zurück ist.",
        list: "Webhooks" / "Webhooks",
        none: "This account has no webhooks yet." / "Dieses Konto hat noch keine Webhooks.",
        url: "URL" / "URL",
        events: "Events" / "Ereignisse",
        status: "Status" / "Status",
        description: "Description" / "Beschreibung",
        created: "Created" / "Erstellt",
        updated: "Changed" / "Geändert",
        create: "Add a webhook" / "Webhook hinzufügen",
        create_button: "Add webhook" / "Webhook hinzufügen",
        url_hint: "Where the events are posted: an https:// address on the public internet." / "Wohin die Ereignisse gesendet werden: eine https://-Adresse im öffentlichen Internet.",
        events_legend: "Events to send" / "Zu sendende Ereignisse",
        description_hint: "Optional: what it is for." / "Optional: wofür er ist.",
        all: "All events, including kinds added later" / "Alle Ereignisse, auch später hinzukommende Arten",
        all_events: "all events" / "alle Ereignisse",
        card_created: "a card was created" / "eine Karte wurde erstellt",
        card_updated: "a card was changed" / "eine Karte wurde geändert",
        card_deleted: "a card was deleted" / "eine Karte wurde gelöscht",
        lead_created: "a lead came in" / "ein Lead ist eingegangen",
        lead_deleted: "a lead was erased" / "ein Lead wurde gelöscht",
        template_created: "a template was created" / "eine Vorlage wurde erstellt",
        template_updated: "a template was changed" / "eine Vorlage wurde geändert",
        template_deleted: "a template was deleted" / "eine Vorlage wurde gelöscht",
        enabled: "enabled" / "aktiv",
        disabled: "disabled" / "deaktiviert",
        enabled_choice: "Enabled: events are sent" / "Aktiv: Ereignisse werden gesendet",
        disabled_choice: "Disabled: nothing is sent" / "Deaktiviert: nichts wird gesendet",
        limit: "This account has as many webhooks as it may have (10). Delete one to add another." / "Dieses Konto hat so viele Webhooks, wie es haben darf (10). Löschen Sie einen, um einen weiteren hinzuzufügen.",
        back: "All webhooks" / "Alle Webhooks",
        webhook: "Webhook" / "Webhook",
        edit: "Change the webhook" / "Webhook ändern",
        save: "Save changes" / "Änderungen speichern",
        secret: "Signing secret" / "Signaturgeheimnis",
        created_title: "Webhook added" / "Webhook hinzugefügt",
        secret_use: "Receivers check each delivery's webhook-signature header with this secret." / "Empfänger prüfen mit diesem Geheimnis den Header webhook-signature jeder Zustellung.",
        rotate: "Rotate the secret" / "Geheimnis erneuern",
        rotate_about: "A new secret replaces the current one. The previous secret keeps signing deliveries for 24 hours (both signatures are sent), so receivers can switch without missing one." / "Ein neues Geheimnis ersetzt das aktuelle. Das bisherige signiert Zustellungen noch 24 Stunden lang mit (beide Signaturen werden gesendet), damit Empfänger ohne Ausfall wechseln können.",
        rotate_button: "Rotate the secret" / "Geheimnis erneuern",
        rotated_title: "New signing secret" / "Neues Signaturgeheimnis",
        rotated_note: "The previous secret keeps signing for 24 hours." / "Das bisherige Geheimnis signiert noch 24 Stunden lang mit.",
        delete: "Delete…" / "Löschen…",
        delete_confirm: "Delete this webhook and its delivery history? Nothing more is sent to it. This cannot be undone." / "Diesen Webhook und seinen Zustellungsverlauf löschen? Es wird nichts mehr an ihn gesendet. Das lässt sich nicht rückgängig machen.",
        delete_button: "Delete webhook" / "Webhook löschen",
        deliveries: "Deliveries" / "Zustellungen",
        deliveries_about: "Every attempt, newest first; kept for 30 days." / "Jeder Versuch, neueste zuerst; 30 Tage lang aufbewahrt.",
        no_deliveries: "Nothing has been delivered yet." / "Bisher wurde nichts zugestellt.",
        time: "Time" / "Zeit",
        event: "Event" / "Ereignis",
        attempt: "Attempt" / "Versuch",
        http_status: "HTTP status" / "HTTP-Status",
        error: "Error" / "Fehler",
        actions: "Actions" / "Aktionen",
        pending: "pending" / "ausstehend",
        succeeded: "succeeded" / "zugestellt",
        failed: "failed" / "fehlgeschlagen",
        redeliver: "Redeliver" / "Erneut senden",
        saved: "The webhook was saved." / "Der Webhook wurde gespeichert.",
        deleted: "The webhook was deleted." / "Der Webhook wurde gelöscht.",
        redelivered: "The event is sent again: its delivery is listed below." / "Das Ereignis wird erneut gesendet: Die Zustellung steht unten.",
        url_required: "Enter the URL that receives the events." / "Geben Sie die URL ein, die die Ereignisse empfängt.",
        url_long: "The URL may have at most 2,000 characters." / "Die URL darf höchstens 2.000 Zeichen haben.",
        url_invalid: "Enter a complete URL, such as https://example.com/hooks." / "Geben Sie eine vollständige URL ein, etwa https://example.com/hooks.",
        url_ascii: "Write an internationalised domain name in its xn-- (punycode) form." / "Schreiben Sie einen internationalisierten Domainnamen in seiner xn--Form (Punycode).",
        url_port: "The port must be from 1 to 65535." / "Der Port muss zwischen 1 und 65535 liegen.",
        url_https: "The URL must begin with https://." / "Die URL muss mit https:// beginnen.",
        url_public: "The URL must point to a public host, not localhost or a private, loopback, link-local or special-purpose address." / "Die URL muss auf einen öffentlichen Host zeigen, nicht auf localhost oder eine private, Loopback-, Link-local- oder Sonderadresse.",
        events_required: "Choose at least one kind of event." / "Wählen Sie mindestens eine Art von Ereignis.",
        events_invalid: "Choose only the kinds of event listed." / "Wählen Sie nur die aufgeführten Arten von Ereignissen.",
        description_long: "The description may have at most 500 characters." / "Die Beschreibung darf höchstens 500 Zeichen haben.",
        status_invalid: "Choose enabled or disabled." / "Wählen Sie aktiv oder deaktiviert.",
        redeliver_disabled: "The webhook is disabled: enable it before sending an event again." / "Der Webhook ist deaktiviert: Aktivieren Sie ihn, bevor Sie ein Ereignis erneut senden.",
        redeliver_limit: "This event was sent again to this webhook 5 times in the last hour. Try again later." / "Dieses Ereignis wurde in der letzten Stunde 5-mal erneut an diesen Webhook gesendet. Versuchen Sie es später noch einmal.",
        redeliver_unsubscribed: "The webhook no longer subscribes to this kind of event." / "Der Webhook abonniert diese Art von Ereignis nicht mehr.",
    }
}

/// What a kind of event is, in a few words.
pub fn event_label(kind: EventType, t: &WebhooksText) -> &'static str {
    match kind {
        EventType::CardCreated => t.card_created,
        EventType::CardUpdated => t.card_updated,
        EventType::CardDeleted => t.card_deleted,
        EventType::LeadCreated => t.lead_created,
        EventType::LeadDeleted => t.lead_deleted,
        EventType::TemplateCreated => t.template_created,
        EventType::TemplateUpdated => t.template_updated,
        EventType::TemplateDeleted => t.template_deleted,
    }
}

fn status_label(status: &str, t: &WebhooksText) -> &'static str {
    match status {
        "enabled" => t.enabled,
        "disabled" => t.disabled,
        "pending" => t.pending,
        "succeeded" => t.succeeded,
        _ => t.failed,
    }
}

/// Why a URL may not receive webhooks, in the page's language: the reason
/// `domain::webhook::check_url` gives, said again.
pub fn url_problem(url: &str, allow_private: bool, t: &WebhooksText) -> &'static str {
    match check_url(url, allow_private) {
        Ok(()) => t.url_invalid,
        Err(why) if why.starts_with("must have an ASCII host") => t.url_ascii,
        Err(why) if why.starts_with("must have a port") => t.url_port,
        Err(why) if why.starts_with("must be an https://") => t.url_https,
        Err(why) if why.starts_with("must point to a public host") => t.url_public,
        Err(_) => t.url_invalid,
    }
}

/// The form's values and its errors.
#[derive(Default)]
struct Draft {
    url: String,
    events: Vec<String>,
    description: String,
    status: String,
    url_error: Option<&'static str>,
    events_error: Option<&'static str>,
    description_error: Option<&'static str>,
    status_error: Option<&'static str>,
    other_error: bool,
}

impl Draft {
    fn posted(posted: &[(String, String)]) -> Draft {
        let text = |name| super::field(posted, name).unwrap_or_default().to_string();
        Draft {
            url: text("url"),
            events: super::values(posted, "events")
                .map(str::to_string)
                .collect(),
            description: text("description"),
            status: text("status"),
            ..Draft::default()
        }
    }

    fn of(hook: &Webhook) -> Draft {
        Draft {
            url: hook.url.clone(),
            events: hook.events.names().into_iter().map(String::from).collect(),
            description: hook.description.clone().unwrap_or_default(),
            status: hook.status.as_str().to_string(),
            ..Draft::default()
        }
    }

    /// The parser's errors, in the page's language.
    fn with_errors(mut self, errors: &FieldErrors, allow_private: bool, t: &WebhooksText) -> Draft {
        self.url_error = if errors.broke("url", Rule::Required) {
            Some(t.url_required)
        } else if errors.broke("url", Rule::MaxChars(MAX_URL_CHARS)) {
            Some(t.url_long)
        } else {
            errors
                .has("url")
                .then(|| url_problem(&self.url, allow_private, t))
        };
        let unknown = self
            .events
            .iter()
            .any(|e| e != "*" && EventType::parse(e).is_none());
        self.events_error = if errors.has("events") {
            Some(t.events_required)
        } else {
            unknown.then_some(t.events_invalid)
        };
        self.description_error = errors.has("description").then_some(t.description_long);
        self.status_error = errors.has("status").then_some(t.status_invalid);
        self.other_error = !errors.is_empty() && !self.any_field_error();
        self
    }

    fn any_field_error(&self) -> bool {
        self.url_error.is_some()
            || self.events_error.is_some()
            || self.description_error.is_some()
            || self.status_error.is_some()
    }

    fn any_error(&self) -> bool {
        self.any_field_error() || self.other_error
    }
}

/// A member changes webhooks for the account, which answers for them (no token does), and
/// may read every event.
fn who(app: &App, s: &Signed) -> Who<'static> {
    Who {
        owner: Owner {
            account_id: s.account.id,
            token_id: None,
        },
        reads: Reads::Everything,
        by: s.by(app),
    }
}

fn api_access(s: &Signed) -> bool {
    s.account.overrides.effective(s.account.plan).0.api_access
}

fn hook_path(id: i64) -> String {
    format!("/app/webhooks/{id}")
}

/// The form's fields as the object `WebhookInput::parse` reads.
fn input(app: &App, posted: &[(String, String)], mode: Mode) -> Result<WebhookInput, FieldErrors> {
    let texts: &[&str] = match mode {
        Mode::Create => &["url", "description"],
        Mode::Update => &["url", "description", "status"],
    };
    let body = widgets::object(posted, texts, &["events"]);
    WebhookInput::parse(&body, mode, app.config.webhooks_allow_private)
}

// ---- the list ------------------------------------------------------------------------

pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let (hooks, total) = all(app, s).await?;
    Ok(render_list(ctx, s, &hooks, total, None, None))
}

async fn all(app: &App, s: &Signed) -> ApiResult<(Vec<Webhook>, i64)> {
    let every = Page {
        page: 1,
        per_page: MAX_PER_ACCOUNT,
    };
    Ok(webhooks::list(&*app.db()?, s.account.id, every).await?)
}

pub async fn create(app: &App, req: Request, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = WebhooksText::of(ctx.lang);
    let mut req = req;
    let posted = form(&mut req).await?;
    let parsed = match input(app, &posted, Mode::Create) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let allow = app.config.webhooks_allow_private;
            let draft = Draft::posted(&posted).with_errors(&errors, allow, t);
            return refused(app, ctx, s, &draft, None, 422).await;
        }
    };
    match ops::webhooks::create(app, &who(app, s), &parsed).await {
        Ok((hook, secret)) => show(app, ctx, s, hook.id, Extra::Created(&secret)).await,
        Err(ApiError::WebhookLimit) => {
            refused(app, ctx, s, &Draft::posted(&posted), Some(t.limit), 403).await
        }
        Err(e) => Err(e),
    }
}

/// The list again with the form as posted and what was wrong with it.
async fn refused(
    app: &App,
    ctx: &Ctx,
    s: &Signed,
    draft: &Draft,
    limit: Option<&str>,
    status: u16,
) -> ApiResult<Response> {
    let (hooks, total) = all(app, s).await?;
    Ok(render_list(ctx, s, &hooks, total, Some(draft), limit).with_status(status))
}

fn render_list(
    ctx: &Ctx,
    s: &Signed,
    hooks: &[Webhook],
    total: i64,
    draft: Option<&Draft>,
    limit: Option<&str>,
) -> Response {
    let t = WebhooksText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let lang = ctx.lang;
    let mut h = Html::default();
    if asked(ctx, "done").as_deref() == Some("deleted") {
        notice(&mut h, t.deleted);
    }
    h.element("p", &[("class", "muted")], t.intro);
    if !api_access(s) {
        h.element("p", &[("class", "note")], t.no_access);
    }
    h.raw("<section>").element("h2", &[], t.list);
    if hooks.is_empty() {
        h.element("p", &[("class", "muted")], t.none);
    } else {
        widgets::table(&mut h, t.list);
        h.raw("<thead><tr>");
        for head in [t.url, t.events, t.status, t.description, t.created] {
            h.element("th", &[("scope", "col")], head);
        }
        h.raw("</tr></thead><tbody>");
        for hook in hooks {
            h.raw("<tr><th scope=\"row\">")
                .element("a", &[("href", &hook_path(hook.id))], &hook.url)
                .raw("</th>")
                .element(
                    "td",
                    &[("data-label", t.events)],
                    &events_text(&hook.events, t),
                )
                .element(
                    "td",
                    &[("data-label", t.status)],
                    status_label(hook.status.as_str(), t),
                )
                .element(
                    "td",
                    &[("data-label", t.description)],
                    hook.description.as_deref().unwrap_or(""),
                );
            widgets::time_cell(&mut h, lang, t.created, hook.created_at);
            h.raw("</tr>");
        }
        h.raw("</tbody></table></div>");
    }
    h.raw("</section>");
    if s.owner() {
        h.raw("<section aria-labelledby=\"create-webhook\">")
            .element("h2", &[("id", "create-webhook")], t.create);
        if let Some(limit) = limit {
            h.element("p", &[("class", "error"), ("role", "alert")], limit);
        }
        if total >= MAX_PER_ACCOUNT && limit.is_none() {
            h.element("p", &[("class", "muted")], t.limit);
        } else {
            let empty = Draft::default();
            hook_form(
                &mut h,
                lang,
                "/app/webhooks",
                draft.unwrap_or(&empty),
                false,
                t.create_button,
            );
        }
        h.raw("</section>");
    }
    ctx.page(c.webhooks, Nav::Webhooks, h, Some(s))
}

/// The events a webhook carries: "all events", or the kinds.
fn events_text(events: &EventFilter, t: &WebhooksText) -> String {
    match events {
        EventFilter::All => t.all_events.to_string(),
        EventFilter::Only(_) => events.names().join(", "),
    }
}

/// The create and edit form: url, events (all, or kinds), description; status on edit.
/// A page has one, so its ids are fixed.
fn hook_form(h: &mut Html, lang: Lang, action: &str, d: &Draft, edit: bool, submit: &str) {
    let t = WebhooksText::of(lang);
    h.open(
        "form",
        &[("method", "post"), ("action", action), ("novalidate", "")],
    );
    form_errors(h, lang, d.any_error());
    text_field(
        h,
        &TextField {
            id: "hook-url",
            hint_id: "hook-url-hint",
            error_id: "hook-url-error",
            described: "hook-url-error hook-url-hint",
            name: "url",
            kind: "url",
            max: "2000",
            required: true,
            label: t.url,
            hint: t.url_hint,
            value: &d.url,
            error: d.url_error,
        },
    );
    fieldset(h, t.events_legend, "hook-events-error", d.events_error);
    let on = |name: &str| d.events.iter().any(|e| e == name);
    choice(h, "checkbox", "events", "*", on("*"), "", t.all);
    for kind in EventType::ALL {
        let name = kind.as_str();
        choice(
            h,
            "checkbox",
            "events",
            name,
            on(name),
            name,
            event_label(kind, t),
        );
    }
    h.raw("</fieldset>");
    text_field(
        h,
        &TextField {
            id: "hook-description",
            hint_id: "hook-description-hint",
            error_id: "hook-description-error",
            described: "hook-description-error hook-description-hint",
            name: "description",
            kind: "text",
            max: "500",
            required: false,
            label: t.description,
            hint: t.description_hint,
            value: &d.description,
            error: d.description_error,
        },
    );
    if edit {
        fieldset(h, t.status, "hook-status-error", d.status_error);
        for (value, label) in [
            ("enabled", t.enabled_choice),
            ("disabled", t.disabled_choice),
        ] {
            choice(h, "radio", "status", value, d.status == value, "", label);
        }
        h.raw("</fieldset>");
    }
    h.element("button", &[("type", "submit")], submit)
        .raw("</form>");
}

// ---- one webhook ---------------------------------------------------------------------

/// What a webhook's page shows besides the webhook.
enum Extra<'a> {
    Plain,
    /// Just made: its secret.
    Created(&'a str),
    /// Just rotated: the new secret.
    Rotated(&'a str),
    /// An edit that was refused.
    Draft(&'a Draft),
}

pub async fn one(app: &App, req: &Request, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let _ = req;
    show(app, ctx, s, id, Extra::Plain).await
}

async fn show(app: &App, ctx: &Ctx, s: &Signed, id: i64, extra: Extra<'_>) -> ApiResult<Response> {
    let db = app.db()?;
    let hook = webhooks::get(&db, s.account.id, id)
        .await?
        .ok_or(ApiError::NotFound)?;
    let page = Page::from_query(Some(&page_number(ctx).to_string()), None);
    let (found, total) = webhooks::deliveries(&db, s.account.id, id, page)
        .await?
        .ok_or(ApiError::NotFound)?;
    let last = page.meta(total).last_page;
    Ok(render_one(ctx, s, &hook, &found, (page.page, last), extra))
}

pub async fn update(
    app: &App,
    req: Request,
    ctx: &Ctx,
    s: &Signed,
    id: i64,
) -> ApiResult<Response> {
    let t = WebhooksText::of(ctx.lang);
    let mut req = req;
    let posted = form(&mut req).await?;
    let parsed = match input(app, &posted, Mode::Update) {
        Ok(parsed) => parsed,
        Err(errors) => {
            let draft =
                Draft::posted(&posted).with_errors(&errors, app.config.webhooks_allow_private, t);
            let shown = show(app, ctx, s, id, Extra::Draft(&draft)).await?;
            return Ok(shown.with_status(422));
        }
    };
    ops::webhooks::update(app, &who(app, s), id, &parsed).await?;
    Ok(see_other(&format!("{}?done=saved", hook_path(id))))
}

pub async fn rotate(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let (hook, secret) = ops::webhooks::rotate(app, &who(app, s), id).await?;
    show(app, ctx, s, hook.id, Extra::Rotated(&secret)).await
}

pub async fn delete(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let _ = ctx;
    ops::webhooks::delete(app, &who(app, s), id).await?;
    Ok(see_other("/app/webhooks?done=deleted"))
}

pub async fn redeliver(
    app: &App,
    ctx: &Ctx,
    s: &Signed,
    id: i64,
    event: &str,
) -> ApiResult<Response> {
    let t = WebhooksText::of(ctx.lang);
    let refused = |status, message| ApiError::Area { status, message };
    match ops::webhooks::redeliver(app, &who(app, s), id, event).await {
        Ok(_) => Ok(see_other(&format!("{}?done=redelivered", hook_path(id)))),
        Err(ApiError::WebhookDisabled) => Err(refused(409, t.redeliver_disabled)),
        Err(ApiError::RedeliverLimit { .. }) => Err(refused(429, t.redeliver_limit)),
        Err(ApiError::Validation(_)) => Err(refused(422, t.redeliver_unsubscribed)),
        Err(e) => Err(e),
    }
}

fn render_one(
    ctx: &Ctx,
    s: &Signed,
    hook: &Webhook,
    deliveries: &[Delivery],
    (page, last): (i64, i64),
    extra: Extra,
) -> Response {
    let t = WebhooksText::of(ctx.lang);
    let lang = ctx.lang;
    let path = hook_path(hook.id);
    let mut h = Html::default();
    h.open("p", &[])
        .element("a", &[("href", "/app/webhooks")], t.back)
        .close("p");
    match asked(ctx, "done").as_deref() {
        Some("saved") => notice(&mut h, t.saved),
        Some("redelivered") => notice(&mut h, t.redelivered),
        _ => {}
    }
    match &extra {
        Extra::Created(secret) => {
            h.raw("<section aria-labelledby=\"secret-title\">")
                .element("h2", &[("id", "secret-title")], t.created_title)
                .element("p", &[], t.secret_use);
            widgets::secret(&mut h, lang, "webhook-secret", t.secret, secret);
            h.raw("</section>");
        }
        Extra::Rotated(secret) => {
            h.raw("<section aria-labelledby=\"secret-title\">")
                .element("h2", &[("id", "secret-title")], t.rotated_title)
                .element("p", &[], t.rotated_note);
            widgets::secret(&mut h, lang, "webhook-secret", t.secret, secret);
            h.raw("</section>");
        }
        Extra::Plain | Extra::Draft(_) => {}
    }
    if !api_access(s) {
        h.element("p", &[("class", "note")], t.no_access);
    }

    h.raw("<section><div class=\"table\"><table><tbody>");
    let row = |h: &mut Html, name: &str| {
        h.raw("<tr>").element("th", &[("scope", "row")], name);
    };
    row(&mut h, t.url);
    h.open("td", &[])
        .element("code", &[], &hook.url)
        .raw("</td></tr>");
    row(&mut h, t.events);
    h.element("td", &[], &events_text(&hook.events, t))
        .raw("</tr>");
    row(&mut h, t.status);
    h.element("td", &[], status_label(hook.status.as_str(), t))
        .raw("</tr>");
    row(&mut h, t.description);
    h.element("td", &[], hook.description.as_deref().unwrap_or(""))
        .raw("</tr>");
    for (name, ms) in [(t.created, hook.created_at), (t.updated, hook.updated_at)] {
        row(&mut h, name);
        widgets::time_cell(&mut h, lang, name, ms);
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div></section>");

    if s.owner() {
        let fresh = Draft::of(hook);
        let draft = match &extra {
            Extra::Draft(d) => d,
            _ => &fresh,
        };
        h.raw("<section aria-labelledby=\"edit-webhook\">").element(
            "h2",
            &[("id", "edit-webhook")],
            t.edit,
        );
        hook_form(&mut h, lang, &path, draft, true, t.save);
        h.raw("</section><section aria-labelledby=\"rotate-webhook\">")
            .element("h2", &[("id", "rotate-webhook")], t.rotate)
            .element("p", &[], t.rotate_about)
            .open(
                "form",
                &[("method", "post"), ("action", &format!("{path}/rotate"))],
            )
            .element(
                "button",
                &[("type", "submit"), ("class", "secondary")],
                t.rotate_button,
            )
            .raw("</form></section><section aria-labelledby=\"delete-webhook\">")
            // Its own section: deleting is not a step of rotating the secret.
            .element("h2", &[("id", "delete-webhook")], t.delete_button)
            .raw("<details class=\"confirm\"><summary>")
            .text(t.delete)
            .raw("</summary>")
            .element("p", &[], t.delete_confirm)
            .open(
                "form",
                &[("method", "post"), ("action", &format!("{path}/delete"))],
            )
            .element(
                "button",
                &[("type", "submit"), ("class", "danger")],
                t.delete_button,
            )
            .raw("</form></details></section>");
    }

    deliveries_table(&mut h, lang, s.owner(), hook.id, deliveries);
    pager(&mut h, lang, page, last, |p| format!("{path}?page={p}"));
    h.raw("</section>");

    let host = parse_http(&hook.url).map(|u| u.host).unwrap_or_default();
    let title = match host.is_empty() {
        true => t.webhook.to_string(),
        false => format!("{}: {host}", t.webhook),
    };
    ctx.page(&title, Nav::Webhooks, h, Some(s))
}

/// The attempts of one page; the section stays open for the pager.
fn deliveries_table(h: &mut Html, lang: Lang, owner: bool, hook: i64, list: &[Delivery]) {
    let t = WebhooksText::of(lang);
    // Not a landmark itself: its table is the region named "Deliveries".
    h.raw("<section>")
        .element("h2", &[("id", "deliveries")], t.deliveries)
        .element("p", &[("class", "muted")], t.deliveries_about);
    if list.is_empty() {
        h.element("p", &[("class", "muted")], t.no_deliveries);
        return;
    }
    widgets::table(h, t.deliveries);
    h.raw("<thead><tr>");
    for head in [t.time, t.event, t.attempt, t.status, t.http_status, t.error] {
        h.element("th", &[("scope", "col")], head);
    }
    if owner {
        h.element("th", &[("scope", "col")], t.actions);
    }
    h.raw("</tr></thead><tbody>");
    for d in list {
        let http = d.response_status.map(|s| s.to_string()).unwrap_or_default();
        h.raw("<tr>");
        widgets::time_cell(h, lang, t.time, d.created_at);
        h.open("td", &[("data-label", t.event)])
            .element("code", &[], &d.event_type)
            .raw("<br>")
            // Plain text: an id does not break, so the column keeps it on one line.
            .element("span", &[("class", "muted")], &d.event_id)
            .raw("</td>")
            .element(
                "td",
                &[("class", "num"), ("data-label", t.attempt)],
                &d.attempt.to_string(),
            )
            .element(
                "td",
                &[("data-label", t.status)],
                status_label(&d.status, t),
            )
            .element(
                "td",
                &[("class", "num"), ("data-label", t.http_status)],
                &http,
            )
            .element(
                "td",
                &[("data-label", t.error)],
                d.error.as_deref().unwrap_or(""),
            );
        if owner {
            let action = format!("/app/webhooks/{hook}/events/{}/redeliver", d.event_id);
            h.open("td", &[("data-label", t.actions)])
                .open("form", &[("method", "post"), ("action", &action)])
                .element(
                    "button",
                    &[("type", "submit"), ("class", "secondary")],
                    t.redeliver,
                )
                .raw("</form></td>");
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::webhook::WebhookStatus;

    #[test]
    fn every_reason_a_url_is_refused_is_said_in_german() {
        let t = WebhooksText::of(Lang::De);
        let cases = [
            ("not a url", t.url_invalid),
            ("https://bücher.example/hook", t.url_ascii),
            ("https://hooks.example:0/x", t.url_port),
            ("http://hooks.example/x", t.url_https),
            ("https://127.0.0.1/x", t.url_public),
            ("https://localhost/x", t.url_public),
        ];
        for (url, want) in cases {
            assert!(check_url(url, false).is_err(), "{url}");
            assert_eq!(url_problem(url, false, t), want, "{url}");
        }
        // Local development allows plain http and loopback hosts.
        assert!(check_url("http://127.0.0.1:9000/hook", true).is_ok());
    }

    #[test]
    fn the_parsers_errors_land_on_their_fields() {
        let t = WebhooksText::of(Lang::En);
        let mut e = FieldErrors::new();
        e.add_rule("url", Rule::Required);
        e.add_rule("events", Rule::Required);
        e.add_rule("description", Rule::MaxChars(500));
        let d = Draft::default().with_errors(&e, false, t);
        assert_eq!(d.url_error, Some(t.url_required));
        assert_eq!(d.events_error, Some(t.events_required));
        assert_eq!(d.description_error, Some(t.description_long));
        assert!(!d.other_error && d.any_error());

        let mut e = FieldErrors::new();
        e.add("url", "The url field must be an https:// URL.".into());
        e.add_rule("events.1", Rule::Choice);
        let d = Draft {
            url: "http://hooks.example/".into(),
            events: vec!["card.created".into(), "card.burnt".into()],
            ..Draft::default()
        }
        .with_errors(&e, false, t);
        assert_eq!(d.url_error, Some(t.url_https));
        assert_eq!(d.events_error, Some(t.events_invalid));

        let mut e = FieldErrors::new();
        e.add_rule("url", Rule::MaxChars(MAX_URL_CHARS));
        assert_eq!(
            Draft::default().with_errors(&e, false, t).url_error,
            Some(t.url_long)
        );
    }

    #[test]
    fn every_kind_of_event_and_status_has_a_label() {
        for lang in [Lang::En, Lang::De] {
            let t = WebhooksText::of(lang);
            for kind in EventType::ALL {
                assert!(!event_label(kind, t).is_empty());
            }
            assert_eq!(status_label("pending", t), t.pending);
            assert_eq!(status_label("succeeded", t), t.succeeded);
            assert_eq!(status_label("failed", t), t.failed);
            assert_eq!(status_label("enabled", t), t.enabled);
        }
    }

    #[test]
    fn a_webhooks_form_shows_what_it_holds() {
        let hook = Webhook {
            id: 4,
            url: "https://hooks.example/in".into(),
            events: EventFilter::Only(vec![EventType::LeadCreated]),
            description: Some("CRM <sync>".into()),
            status: WebhookStatus::Disabled,
            created_at: 0,
            updated_at: 0,
        };
        let mut h = Html::default();
        hook_form(
            &mut h,
            Lang::En,
            "/app/webhooks/4",
            &Draft::of(&hook),
            true,
            "Save",
        );
        let s = h.into_string();
        assert!(s.contains("value=\"https://hooks.example/in\""));
        assert!(s.contains("value=\"lead.created\" checked=\"\""));
        assert!(!s.contains("value=\"card.created\" checked"));
        assert!(s.contains("value=\"CRM &lt;sync&gt;\""));
        assert!(s.contains("value=\"disabled\" checked=\"\""));
        assert!(!s.contains("aria-invalid"));
    }
}
