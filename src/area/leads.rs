//! Leads (account-area.md 2): the account's leads, newest first, paged, filtered by card
//! and by address (exactly, in any case, as the API's `email`); the filtered leads as a
//! CSV that is sent a step at a time; and, for owners, the erasure of one lead or of every
//! lead of an address, each behind a confirmation, through the operation the API uses
//! (`ops::leads::erase`: the event, the webhooks, every copy and the security log).

use std::rc::Rc;

use futures_util::stream::try_unfold;
use worker::{Request, Response};

use super::cards::query_pairs;
use super::layout::{headers, pager, see_other, Nav};
use super::text::{texts, Common, Lang};
use super::{field, form, notice, Ctx, Signed};
use crate::db::Shard;
use crate::domain::csv;
use crate::domain::html::Html;
use crate::domain::lead::Lead;
use crate::domain::pagination::Page;
use crate::domain::time::{date_string, day_of, iso8601};
use crate::domain::validation::is_email;
use crate::domain::weburl::form_encode;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::path_id;
use crate::http::App;
use crate::ops;
use crate::store::cards::{self, CardLine};
use crate::store::erasure::LeadSet;
use crate::store::leads::{self, LeadFilter};

texts! {
    LeadsText {
        filters: "Filter the leads" / "Leads filtern",
        card: "Card" / "Karte",
        all_cards: "All cards" / "Alle Karten",
        email: "Email address" / "E-Mail-Adresse",
        email_hint: "The exact address, in any case." / "Die genaue Adresse, Groß- und Kleinschreibung egal.",
        show: "Show" / "Anzeigen",
        show_all: "Show all" / "Alle zeigen",
        matching: "Leads:" / "Leads:",
        download: "Download as CSV" / "Als CSV herunterladen",
        caption: "Leads, newest first" / "Leads, neueste zuerst",
        received: "Received" / "Eingegangen",
        name: "Name" / "Name",
        phone: "Phone" / "Telefon",
        message: "Message" / "Nachricht",
        source: "Source" / "Quelle",
        erase_head: "Erase" / "Löschen",
        erase: "Erase…" / "Löschen…",
        erase_one_text: "This lead and every copy of its personal data (its events and webhook deliveries) are erased for good." / "Dieser Lead und jede Kopie seiner personenbezogenen Daten (seine Ereignisse und Webhook-Zustellungen) werden endgültig gelöscht.",
        erase_one: "Erase this lead" / "Diesen Lead löschen",
        erase_email_head: "Erase every lead of an address" / "Alle Leads einer Adresse löschen",
        erase_email_text: "For a person's erasure request: every lead of the address on every card, in any case, with every copy of its personal data. This cannot be undone." / "Für den Löschantrag einer Person: alle Leads der Adresse auf allen Karten, in jeder Schreibweise, mit jeder Kopie ihrer personenbezogenen Daten. Das lässt sich nicht rückgängig machen.",
        erase_email_open: "Erase by address…" / "Nach Adresse löschen…",
        erase_email: "Erase every lead of this address" / "Alle Leads dieser Adresse löschen",
        bad_email: "Enter the email address whose leads are to be erased." / "Geben Sie die E-Mail-Adresse ein, deren Leads gelöscht werden sollen.",
        erased: "Leads erased:" / "Gelöschte Leads:",
        none: "No leads yet." / "Noch keine Leads.",
        none_match: "No lead matches the filter." / "Kein Lead passt zum Filter.",
    }
}

/// Leads a page shows.
const PER_PAGE: i64 = 25;
/// Leads of the CSV's first step: small, so the download starts at once; each step after
/// reads twice as many, up to [`EXPORT_STEP`].
const FIRST_STEP: i64 = 50;
/// Leads of a step at most: one D1 read each, so 100,000 leads are about 105 reads (D1
/// allows 1,000 per invocation).
const EXPORT_STEP: i64 = 1000;
/// Cards the card selector offers (an account's card limit is at most this on every plan).
pub(super) const CARDS_LISTED: i64 = 1000;
/// Characters of a message the table shows (the CSV has all of it).
const MESSAGE_SHOWN: usize = 280;

/// The list a page or a CSV shows, as its query gives it (the API's `card_id` and
/// `email`, and `page`).
#[derive(Debug, Clone, PartialEq)]
struct View {
    /// A card id; one that is no id matches nothing (-1), as in the API.
    card: Option<i64>,
    email: Option<String>,
    page: Page,
}

impl View {
    fn of(here: &str) -> View {
        let pairs = query_pairs(here);
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.trim())
                .filter(|v| !v.is_empty())
        };
        View {
            card: get("card_id").map(|c| path_id(c).unwrap_or(-1)),
            email: get("email").map(str::to_string),
            page: Page {
                per_page: PER_PAGE,
                ..Page::from_query(get("page"), None)
            },
        }
    }

    fn filter(&self) -> LeadFilter {
        LeadFilter {
            card: self.card,
            since: None,
            email: self.email.clone(),
        }
    }

    /// The query of this list's filters (and page, when given), `&`-joined, encoded.
    fn query(&self, page: Option<i64>) -> String {
        let mut parts = Vec::new();
        if let Some(card) = self.card {
            parts.push(format!("card_id={card}"));
        }
        if let Some(email) = &self.email {
            parts.push(format!("email={}", form_encode(email)));
        }
        if let Some(page) = page.filter(|p| *p > 1) {
            parts.push(format!("page={page}"));
        }
        parts.join("&")
    }

    /// `path` with this list's query, and `extra` after it.
    fn href(&self, path: &str, page: Option<i64>, extra: &str) -> String {
        let query = self.query(page);
        let joined = match (query.is_empty(), extra.is_empty()) {
            (true, true) => String::new(),
            (false, true) => query,
            (true, false) => extra.to_string(),
            (false, false) => format!("{query}&{extra}"),
        };
        match joined.is_empty() {
            true => path.to_string(),
            false => format!("{path}?{joined}"),
        }
    }
}

/// `?done=erased&n=3`: how many leads an erasure just removed.
fn erased_of(here: &str) -> Option<i64> {
    let pairs = query_pairs(here);
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    match get("done") {
        Some("erased") => get("n").and_then(|n| n.parse().ok()),
        _ => None,
    }
}

/// At most `max` characters of `text`, with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

pub async fn page(app: &App, _req: &Request, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let view = View::of(&ctx.here);
    show(app, ctx, s, &view, None).await
}

/// The erase-by-address form's value and its problem, when a post failed.
struct Refused<'a> {
    email: &'a str,
}

/// The page of `view`, with the erase-by-address form refused when given (422).
async fn show(
    app: &App,
    ctx: &Ctx,
    s: &Signed,
    view: &View,
    refused: Option<Refused<'_>>,
) -> ApiResult<Response> {
    let t = LeadsText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let db = app.db()?;
    let account = s.account.id;
    let (cards, _) = cards::lines(&db, account, CARDS_LISTED, 0).await?;
    let (rows, total) = leads::page(&db, account, &view.filter(), view.page).await?;

    let mut h = Html::default();
    if let Some(n) = erased_of(&ctx.here).filter(|_| refused.is_none()) {
        notice(&mut h, &format!("{} {n}", t.erased));
    }
    filters(&mut h, ctx.lang, view, &cards);
    h.raw("<section>");
    let filtered = view.card.is_some() || view.email.is_some();
    if total == 0 {
        h.element("p", &[], if filtered { t.none_match } else { t.none });
    } else {
        h.raw("<p>")
            .text(&format!("{} {total} · ", t.matching))
            .element(
                "a",
                &[
                    ("href", &view.href("/app/leads.csv", None, "")),
                    ("download", ""),
                ],
                t.download,
            )
            .raw("</p>");
        table(&mut h, ctx.lang, view, &rows, &cards, s.owner());
        let last = view.page.meta(total).last_page;
        pager(&mut h, ctx.lang, view.page.page, last, |p| {
            view.href("/app/leads", Some(p), "")
        });
    }
    h.raw("</section>");
    if s.owner() {
        erase_by_address(&mut h, ctx.lang, view, refused.as_ref());
    }
    let resp = ctx.page(c.leads, Nav::Leads, h, Some(s));
    Ok(match refused {
        Some(_) => resp.with_status(422),
        None => resp,
    })
}

/// The filter form (a GET): the card, the address, and a way back to all leads.
fn filters(h: &mut Html, lang: Lang, view: &View, cards: &[CardLine]) {
    let t = LeadsText::of(lang);
    h.raw("<section>")
        .element("h2", &[], t.filters)
        .raw("<form method=\"get\" action=\"/app/leads\" class=\"filters\"><div>")
        .element("label", &[("for", "card")], t.card)
        .raw("<select id=\"card\" name=\"card_id\">");
    h.element("option", &[("value", "")], t.all_cards);
    card_options(h, cards, view.card);
    h.raw("</select></div><div>")
        .element("label", &[("for", "email")], t.email)
        .open(
            "input",
            &[
                ("type", "search"),
                ("id", "email"),
                ("name", "email"),
                ("autocomplete", "off"),
                ("inputmode", "email"),
                ("aria-describedby", "email-hint"),
                ("value", view.email.as_deref().unwrap_or("")),
            ],
        )
        .raw("</div><div>")
        .element("button", &[("type", "submit")], t.show);
    if view.card.is_some() || view.email.is_some() {
        h.element(
            "a",
            &[("class", "button secondary"), ("href", "/app/leads")],
            t.show_all,
        );
    }
    h.raw("</div></form>")
        .element(
            "p",
            &[("id", "email-hint"), ("class", "muted")],
            t.email_hint,
        )
        .raw("</section>");
}

/// The account's cards as `<option>`s, most recently updated first (as listed; a sort by
/// name would cost its code in the upload), `selected` the chosen one.
pub(super) fn card_options(h: &mut Html, cards: &[CardLine], selected: Option<i64>) {
    for card in cards {
        let value = card.id.to_string();
        let label = format!("{} ({})", card.title, card.slug);
        if selected == Some(card.id) {
            h.element("option", &[("value", &value), ("selected", "")], &label);
        } else {
            h.element("option", &[("value", &value)], &label);
        }
    }
}

fn table(h: &mut Html, lang: Lang, view: &View, rows: &[Lead], cards: &[CardLine], owner: bool) {
    let t = LeadsText::of(lang);
    // Stacked below 40rem (every column on a phone), each cell named by its data-label.
    h.raw("<div class=\"table\"><table class=\"stack\"><caption class=\"muted\">")
        .text(t.caption)
        .raw("</caption><thead><tr>");
    for head in [
        t.received, t.name, t.email, t.phone, t.message, t.source, t.card,
    ] {
        h.element("th", &[("scope", "col")], head);
    }
    if owner {
        h.element("th", &[("scope", "col")], t.erase_head);
    }
    h.raw("</tr></thead><tbody>");
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    for lead in rows {
        h.raw("<tr>")
            .open("td", &[("data-label", t.received)])
            .element(
                "time",
                &[("datetime", &iso8601(lead.created_at))],
                &lang.date_time(lead.created_at),
            )
            .raw("</td>")
            .element("th", &[("scope", "row")], &text(&lead.name))
            .open("td", &[("data-label", t.email)]);
        if let Some(email) = &lead.email {
            h.element("a", &[("href", &format!("mailto:{email}"))], email);
        }
        h.raw("</td>")
            .element("td", &[("data-label", t.phone)], &text(&lead.phone))
            .element(
                "td",
                &[("class", "wide"), ("data-label", t.message)],
                &cut(&text(&lead.message), MESSAGE_SHOWN),
            )
            .element("td", &[("data-label", t.source)], &text(&lead.source));
        let card = cards.iter().find(|c| c.id == lead.card_id);
        let card_name = card.map_or_else(|| format!("#{}", lead.card_id), |c| c.title.clone());
        h.element("td", &[("data-label", t.card)], &card_name);
        if owner {
            let action = view.href(
                &format!("/app/leads/{}/erase", lead.id),
                Some(view.page.page),
                "",
            );
            h.open("td", &[("data-label", t.erase_head)])
                .raw("<details class=\"confirm\">")
                .element("summary", &[], t.erase)
                .element("p", &[], t.erase_one_text)
                .open("form", &[("method", "post"), ("action", &action)])
                .element(
                    "button",
                    &[("type", "submit"), ("class", "danger")],
                    t.erase_one,
                )
                .raw("</form></details></td>");
        }
        h.raw("</tr>");
    }
    h.raw("</tbody></table></div>");
}

/// The owners' erasure of every lead of an address, behind a confirmation; open, with its
/// problem, after a refused post.
fn erase_by_address(h: &mut Html, lang: Lang, view: &View, refused: Option<&Refused>) {
    let t = LeadsText::of(lang);
    let action = view.href("/app/leads/erase", Some(view.page.page), "");
    let value = match refused {
        Some(r) => r.email,
        None => view.email.as_deref().unwrap_or(""),
    };
    h.raw("<section>")
        .element("h2", &[], t.erase_email_head)
        .element("p", &[("class", "muted")], t.erase_email_text);
    if refused.is_some() {
        h.raw("<details class=\"confirm\" open>");
    } else {
        h.raw("<details class=\"confirm\">");
    }
    h.element("summary", &[], t.erase_email_open)
        .open("form", &[("method", "post"), ("action", &action)])
        .element("label", &[("for", "erase-email")], t.email);
    let mut attrs: Vec<(&'static str, &str)> = vec![
        ("type", "email"),
        ("id", "erase-email"),
        ("name", "email"),
        ("required", ""),
        ("autocomplete", "off"),
        ("value", value),
    ];
    if refused.is_some() {
        attrs.extend([
            ("aria-invalid", "true"),
            ("aria-describedby", "erase-email-error"),
        ]);
    }
    h.open("input", &attrs);
    if refused.is_some() {
        h.element(
            "p",
            &[("class", "error"), ("id", "erase-email-error")],
            t.bad_email,
        );
    }
    h.element(
        "button",
        &[("type", "submit"), ("class", "danger")],
        t.erase_email,
    )
    .raw("</form></details></section>");
}

/// `GET /app/leads.csv`: the filtered leads as RFC 4180 CSV, newest first, sent a step
/// ([`EXPORT_STEP`] leads) at a time, so no answer holds an account's leads at once.
pub async fn csv(app: &App, req: &Request, s: &Signed) -> ApiResult<Response> {
    let view = View::of(&req.inner().url());
    let filter = view.filter();
    let db = app.db()?;
    if filter.email.is_some() {
        // Matching by address needs every lead keyed, once, before the first step.
        leads::fill_account_keys(&db, s.account.id).await?;
    }
    let h = headers(csv::MEDIA_TYPE);
    let _ = h.set(
        "Content-Disposition",
        &format!(
            "attachment; filename=\"leads-{}.csv\"",
            date_string(day_of(app.now_ms))
        ),
    );
    let export = Export {
        db,
        account_id: s.account.id,
        filter,
        after: None,
        steps: 0,
        done: false,
    };
    Ok(Response::builder()
        .with_headers(h)
        .from_stream(try_unfold(export, step))?)
}

/// Where the CSV is: the leads sent so far end at `after`, in `steps` steps.
struct Export {
    db: Rc<Shard>,
    account_id: i64,
    filter: LeadFilter,
    after: Option<(i64, i64)>,
    steps: u32,
    done: bool,
}

/// Leads of the step after `steps` steps.
fn step_size(steps: u32) -> i64 {
    FIRST_STEP
        .saturating_mul(1 << steps.min(20))
        .min(EXPORT_STEP)
}

/// The CSV's next piece: the header row first, then a step of leads after the last one
/// sent; none when a step came back short.
async fn step(mut e: Export) -> worker::Result<Option<(Vec<u8>, Export)>> {
    if e.done {
        return Ok(None);
    }
    let mut out = String::new();
    if e.steps == 0 {
        csv::header(&mut out);
    }
    let size = step_size(e.steps);
    e.steps += 1;
    let rows = leads::export(&e.db, e.account_id, &e.filter, e.after, size)
        .await
        .inspect_err(|err| worker::console_error!("leads CSV of {}: {err}", e.account_id))?;
    e.done = (rows.len() as i64) < size;
    if let Some(last) = rows.last() {
        e.after = Some((last.created_at, last.id));
    }
    for lead in &rows {
        csv::row(&mut out, lead);
    }
    if out.is_empty() {
        return Ok(None);
    }
    Ok(Some((out.into_bytes(), e)))
}

/// Where an erasure sends the browser: the list it came from (its query), with the count.
fn erased_to(here: &str, erased: usize) -> String {
    let view = View::of(here);
    let done = format!("done=erased&n={erased}");
    view.href("/app/leads", Some(view.page.page), &done)
}

/// `POST /app/leads/{id}/erase` (owners): the lead and every copy of its data; 404 when
/// the account has no such lead, as in the API.
pub async fn erase_one(app: &App, ctx: &Ctx, s: &Signed, id: i64) -> ApiResult<Response> {
    let by = s.by(app);
    let erased = ops::leads::erase(app, s.account.id, LeadSet::One(id), &by).await?;
    if erased == 0 {
        return Err(ApiError::NotFound);
    }
    Ok(see_other(&erased_to(&ctx.here, erased)))
}

/// `POST /app/leads/erase` `email=` (owners): every lead of the address; a missing or
/// malformed address shows the page again with the form's problem.
pub async fn erase_email(
    app: &App,
    mut req: Request,
    ctx: &Ctx,
    s: &Signed,
) -> ApiResult<Response> {
    let posted = form(&mut req).await?;
    let email = field(&posted, "email").unwrap_or("").trim();
    if email.chars().count() > 255 || !is_email(email) {
        let view = View::of(&ctx.here);
        return show(app, ctx, s, &view, Some(Refused { email })).await;
    }
    let by = s.by(app);
    let erased = ops::leads::erase(app, s.account.id, LeadSet::Email(email), &by).await?;
    Ok(see_other(&erased_to(&ctx.here, erased)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead(id: i64, card_id: i64, name: &str, message: &str) -> Lead {
        Lead {
            id,
            card_id,
            name: Some(name.into()),
            email: Some(format!("{name}@example.com").to_lowercase()),
            phone: Some("+49 30 1234".into()),
            message: Some(message.into()),
            note: None,
            source: Some("qr".into()),
            consent_at: None,
            created_at: 1_795_358_596_123,
            updated_at: 1_795_358_596_123,
        }
    }

    fn card(id: i64, title: &str) -> CardLine {
        CardLine {
            id,
            slug: title.to_lowercase().replace(' ', "-"),
            title: title.into(),
            ..CardLine::default()
        }
    }

    #[test]
    fn the_query_gives_the_filters_and_the_page() {
        let v = View::of("/app/leads?card_id=7&email=+Ada%40Example.com+&page=3&lang=de");
        assert_eq!(v.card, Some(7));
        assert_eq!(v.email.as_deref(), Some("Ada@Example.com"));
        assert_eq!((v.page.page, v.page.per_page), (3, PER_PAGE));
        assert_eq!(
            v.href("/app/leads.csv", None, ""),
            "/app/leads.csv?card_id=7&email=Ada%40Example.com"
        );
        assert_eq!(
            v.href("/app/leads", Some(2), "done=erased&n=1"),
            "/app/leads?card_id=7&email=Ada%40Example.com&page=2&done=erased&n=1"
        );
        // The selector's "all cards" sends an empty value; an id that is none matches none.
        let all = View::of("/app/leads?card_id=&email=");
        assert_eq!((all.card, all.email.as_deref()), (None, None));
        assert_eq!(all.href("/app/leads", Some(1), ""), "/app/leads");
        assert_eq!(View::of("/app/leads?card_id=abc").card, Some(-1));
        assert_eq!(View::of("/app/leads").page.page, 1);
    }

    #[test]
    fn an_erasure_goes_back_to_its_list_with_the_count() {
        assert_eq!(
            erased_to("/app/leads/5/erase?card_id=2&page=3", 1),
            "/app/leads?card_id=2&page=3&done=erased&n=1"
        );
        assert_eq!(
            erased_to("/app/leads/erase", 4),
            "/app/leads?done=erased&n=4"
        );
        assert_eq!(erased_of("/app/leads?done=erased&n=4"), Some(4));
        assert_eq!(erased_of("/app/leads?done=other&n=4"), None);
        assert_eq!(erased_of("/app/leads?done=erased&n=x"), None);
    }

    #[test]
    fn the_csv_starts_small_and_reads_at_most_a_thousand_a_step() {
        let sizes: Vec<i64> = (0..8).map(step_size).collect();
        assert_eq!(sizes, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
        assert_eq!(step_size(u32::MAX), EXPORT_STEP);
        // 100,000 leads, and the short step that ends them: well within D1's 1,000 reads.
        let (mut steps, mut sent) = (0, 0);
        while sent <= 100_000 {
            sent += step_size(steps);
            steps += 1;
        }
        assert!(steps <= 110, "{steps}");
    }

    #[test]
    fn long_messages_are_cut_by_characters() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("Grüße aus Köln", 5), "Grüße…");
        assert_eq!(cut("exactly", 7), "exactly");
    }

    #[test]
    fn owners_see_an_erase_form_per_lead_and_members_none() {
        let view = View::of("/app/leads?card_id=3&page=2");
        let rows = [
            lead(11, 3, "Ada", "<b>hi</b>"),
            lead(12, 9, "Bob", &"x".repeat(400)),
        ];
        let cards = [card(3, "Ada Card")];
        let mut owner = Html::default();
        table(&mut owner, Lang::En, &view, &rows, &cards, true);
        let owner = owner.into_string();
        assert!(owner.contains(
            "<form method=\"post\" action=\"/app/leads/11/erase?card_id=3&amp;page=2\">"
        ));
        assert!(owner.contains("action=\"/app/leads/12/erase?"));
        assert_eq!(owner.matches("<details class=\"confirm\">").count(), 2);
        assert!(owner.contains("&lt;b&gt;hi&lt;/b&gt;") && !owner.contains("<b>hi"));
        assert!(owner.contains("<td data-label=\"Card\">Ada Card</td>"));
        assert!(owner.contains("<td data-label=\"Card\">#9</td>"));
        assert!(owner.contains(&format!("{}…", "x".repeat(MESSAGE_SHOWN))));
        assert!(owner.contains("href=\"mailto:ada@example.com\""));
        let mut member = Html::default();
        table(&mut member, Lang::De, &view, &rows, &cards, false);
        let member = member.into_string();
        assert!(!member.contains("<form") && !member.contains("erase"));
        assert!(member.contains(">Eingegangen</th>") && member.contains("22.11.2026 14:43 UTC"));
    }

    #[test]
    fn a_refused_address_keeps_the_form_open_with_its_problem() {
        let view = View::of("/app/leads");
        let mut h = Html::default();
        erase_by_address(&mut h, Lang::De, &view, Some(&Refused { email: "nope" }));
        let html = h.into_string();
        assert!(html.contains("<details class=\"confirm\" open>"));
        assert!(html.contains("value=\"nope\" aria-invalid=\"true\""));
        assert!(html.contains("id=\"erase-email-error\">Geben Sie"));
        let mut h = Html::default();
        erase_by_address(
            &mut h,
            Lang::En,
            &View::of("/app/leads?email=a%40b.example"),
            None,
        );
        let html = h.into_string();
        assert!(html.contains("<details class=\"confirm\">") && !html.contains("aria-invalid"));
        assert!(
            html.contains("value=\"a@b.example\""),
            "the filter's address"
        );
    }

    #[test]
    fn cards_are_offered_by_name_and_slug_with_the_chosen_one_selected() {
        let mut h = Html::default();
        card_options(&mut h, &[card(2, "zed"), card(5, "Ada")], Some(2));
        assert_eq!(
            h.into_string(),
            "<option value=\"2\" selected=\"\">zed (zed)</option>\
             <option value=\"5\">Ada (ada)</option>"
        );
    }
}
