//! Analytics (account-area.md 2): for a period (`7d` to `365d`) and the account or one of
//! its cards, the reports the analytics API answers (`store::analytics::report_of`, the
//! same read): views and clicks per day as line charts, total and unique views and the
//! clicks as figures, devices, countries, referrers and clicks by type as bar charts. Each
//! chart is an inline SVG (`domain::chart`) with its numbers in a table beside it. A period
//! or card the account does not have is shown on the form (422), as the API refuses it.

use std::collections::BTreeMap;

use futures_util::future::join;
use worker::{Request, Response};

use super::layout::Nav;
use super::leads::{card_options, CARDS_LISTED};
use super::text::{texts, Common, Lang};
use super::{Ctx, Signed};
use crate::domain::analytics::{period_days, ClicksDay, ViewsDay, DEFAULT_PERIOD, PERIODS};
use crate::domain::chart::{self, Caption};
use crate::domain::html::Html;
use crate::domain::time::{civil_from_days, date_string, day_of};
use crate::http::error::ApiResult;
use crate::http::params::{path_id, query};
use crate::http::App;
use crate::store::{analytics, cards};

texts! {
    AnalyticsText {
        choose: "Period and card" / "Zeitraum und Karte",
        period: "Period" / "Zeitraum",
        card: "Card" / "Karte",
        all_cards: "All cards" / "Alle Karten",
        show: "Show" / "Anzeigen",
        last: "Last" / "Letzte",
        days: "days" / "Tage",
        bad_period: "Choose one of the periods." / "Wählen Sie einen der Zeiträume.",
        bad_card: "Choose one of the account's cards." / "Wählen Sie eine der Karten des Kontos.",
        total_views: "Views" / "Aufrufe",
        unique_views: "Unique views" / "Eindeutige Aufrufe",
        total_clicks: "Clicks" / "Klicks",
        views_per_day: "Views per day" / "Aufrufe pro Tag",
        clicks_per_day: "Clicks per day" / "Klicks pro Tag",
        devices: "Views by device" / "Aufrufe nach Gerät",
        countries: "Views by country" / "Aufrufe nach Land",
        referrers: "Views by referrer" / "Aufrufe nach Verweisquelle",
        clicks_by_type: "Clicks by type" / "Klicks nach Art",
        date: "Date" / "Datum",
        device: "Device" / "Gerät",
        country: "Country" / "Land",
        referrer: "Referrer" / "Verweisquelle",
        kind: "Type" / "Art",
        views: "Views" / "Aufrufe",
        clicks: "Clicks" / "Klicks",
        total: "Total" / "Gesamt",
        other: "Other" / "Andere",
        no_data: "Nothing counted in this period" / "In diesem Zeitraum nichts gezählt",
        numbers: "Numbers" / "Zahlen",
    }
}

/// Rows a bar chart draws: the largest items, and the rest summed as one more.
const BARS: usize = 8;

/// What the form asked for, or what is wrong with it.
#[derive(Debug, PartialEq)]
struct Asked<'a> {
    period: &'a str,
    days: Option<i64>,
    /// The card's id as written; `None` for the whole account.
    card: Option<&'a str>,
}

impl<'a> Asked<'a> {
    /// `period` (default 30d) and `card_id` (empty: every card) of the form.
    fn of(period: Option<&'a str>, card: Option<&'a str>) -> Asked<'a> {
        let period = period.map(str::trim).unwrap_or(DEFAULT_PERIOD);
        Asked {
            period,
            days: period_days(period),
            card: card.map(str::trim).filter(|c| !c.is_empty()),
        }
    }
}

pub async fn page(app: &App, req: &Request, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = AnalyticsText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let q = query(req);
    let asked = Asked::of(
        q.get("period").map(String::as_str),
        q.get("card_id").map(String::as_str),
    );
    let db = app.db()?;
    let account = s.account.id;
    let (cards, _) = cards::lines(&db, account, CARDS_LISTED, 0).await?;
    // A card of the account, as the API checks it (another account's is no card here).
    let card = match asked.card.map(path_id) {
        None => Ok(None),
        Some(Some(id)) => {
            let known = cards.iter().any(|c| c.id == id) || cards::exists(&db, account, id).await?;
            if known {
                Ok(Some(id))
            } else {
                Err(())
            }
        }
        Some(None) => Err(()),
    };

    let mut h = Html::default();
    let problems = Problems {
        period: asked.days.is_none(),
        card: card.is_err(),
    };
    form(
        &mut h,
        ctx.lang,
        &asked,
        card.ok().flatten(),
        &cards,
        &problems,
    );
    let (Some(days), Ok(card)) = (asked.days, card) else {
        let resp = ctx.page(c.analytics, Nav::Analytics, h, Some(s));
        return Ok(resp.with_status(422));
    };

    let today = day_of(app.now_ms);
    let (views, clicks) = join(
        analytics::report_of::<ViewsDay>(
            &app.env,
            &app.ctx,
            account,
            card,
            asked.period,
            today,
            days,
        ),
        analytics::report_of::<ClicksDay>(
            &app.env,
            &app.ctx,
            account,
            card,
            asked.period,
            today,
            days,
        ),
    )
    .await;
    let (views, clicks) = (views?, clicks?);

    let lang = ctx.lang;
    h.raw("<div class=\"grid\">");
    figure(&mut h, t.total_views, &number(lang, views.total_views));
    figure(&mut h, t.unique_views, &number(lang, views.unique_views));
    figure(&mut h, t.total_clicks, &number(lang, clicks.total_clicks));
    h.raw("</div>");
    let views_days: Vec<(i64, u64)> = views.views_per_day.iter().collect();
    per_day(
        &mut h,
        lang,
        "views-per-day",
        t.views_per_day,
        t.views,
        &views_days,
    );
    let clicks_days: Vec<(i64, u64)> = clicks.clicks_per_day.iter().collect();
    per_day(
        &mut h,
        lang,
        "clicks-per-day",
        t.clicks_per_day,
        t.clicks,
        &clicks_days,
    );
    for (id, title, head, value, items) in [
        ("devices", t.devices, t.device, t.views, &views.devices),
        (
            "countries",
            t.countries,
            t.country,
            t.views,
            &views.countries,
        ),
        (
            "referrers",
            t.referrers,
            t.referrer,
            t.views,
            &views.referrers,
        ),
        (
            "clicks-by-type",
            t.clicks_by_type,
            t.kind,
            t.clicks,
            &clicks.clicks_by_type,
        ),
    ] {
        breakdown(&mut h, lang, id, title, (head, value), items);
    }
    Ok(ctx.page(c.analytics, Nav::Analytics, h, Some(s)))
}

/// Which of the form's fields are wrong.
struct Problems {
    period: bool,
    card: bool,
}

/// The selectors (a GET form), with a wrong field's problem beside it.
fn form(
    h: &mut Html,
    lang: Lang,
    asked: &Asked,
    card: Option<i64>,
    cards: &[cards::CardLine],
    problems: &Problems,
) {
    let t = AnalyticsText::of(lang);
    h.raw("<section>")
        .element("h2", &[], t.choose)
        .raw("<form method=\"get\" action=\"/app/analytics\" class=\"filters\"><div>")
        .element("label", &[("for", "period")], t.period);
    select(h, "period", problems.period);
    for (period, days) in PERIODS {
        let label = format!("{} {days} {}", t.last, t.days);
        if period == asked.period {
            h.element("option", &[("value", period), ("selected", "")], &label);
        } else {
            h.element("option", &[("value", period)], &label);
        }
    }
    h.raw("</select>");
    if problems.period {
        h.element(
            "p",
            &[("class", "error"), ("id", "period-error")],
            t.bad_period,
        );
    }
    h.raw("</div><div>")
        .element("label", &[("for", "card")], t.card);
    select(h, "card", problems.card);
    h.element("option", &[("value", "")], t.all_cards);
    card_options(h, cards, card);
    h.raw("</select>");
    if problems.card {
        h.element("p", &[("class", "error"), ("id", "card-error")], t.bad_card);
    }
    h.raw("</div><div>")
        .element("button", &[("type", "submit")], t.show)
        .raw("</div></form></section>");
}

/// `<select id=.. name=..>`, marked invalid and described by its problem when wrong.
fn select(h: &mut Html, id: &'static str, wrong: bool) {
    let (name, error) = match id {
        "period" => ("period", "period-error"),
        _ => ("card_id", "card-error"),
    };
    if wrong {
        h.open(
            "select",
            &[
                ("id", id),
                ("name", name),
                ("aria-invalid", "true"),
                ("aria-describedby", error),
            ],
        );
    } else {
        h.open("select", &[("id", id), ("name", name)]);
    }
}

fn figure(h: &mut Html, label: &str, value: &str) {
    h.raw("<section>")
        .element("p", &[("class", "label")], label)
        .element("p", &[("class", "figure")], value)
        .raw("</section>");
}

/// A count as people of the language group its digits: `12,345` / `12.345`.
fn number(lang: Lang, n: u64) -> String {
    let digits = n.to_string();
    let mark = match lang {
        Lang::En => ',',
        Lang::De => '.',
    };
    let mut out = String::with_capacity(digits.len() * 4 / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(mark);
        }
        out.push(d);
    }
    out
}

/// A day as people of the language write it: `2026-11-22` / `22.11.2026`.
fn day_text(lang: Lang, day: i64) -> String {
    match lang {
        Lang::En => date_string(day),
        Lang::De => {
            let (y, m, d) = civil_from_days(day);
            format!("{d:02}.{m:02}.{y:04}")
        }
    }
}

/// The bars of a breakdown: its largest items (of equal ones, the first by key), or, when
/// there are more than [`BARS`], the largest `BARS - 1` and the rest summed as `other`.
/// Picked by scanning, not sorting: a sort's code would cost more than the few passes.
fn bars_of(items: &BTreeMap<String, u64>, other: &str) -> Vec<(String, u64)> {
    let all: Vec<(&String, u64)> = items.iter().map(|(k, n)| (k, *n)).collect();
    let keep = if all.len() <= BARS {
        all.len()
    } else {
        BARS - 1
    };
    let mut taken = vec![false; all.len()];
    let mut bars = Vec::with_capacity(BARS);
    for _ in 0..keep {
        let mut best: Option<usize> = None;
        for (i, (_, n)) in all.iter().enumerate() {
            if !taken[i] && best.is_none_or(|b| *n > all[b].1) {
                best = Some(i);
            }
        }
        let Some(b) = best else { break };
        taken[b] = true;
        bars.push((all[b].0.clone(), all[b].1));
    }
    if keep < all.len() {
        let rest = all
            .iter()
            .zip(&taken)
            .filter(|(_, taken)| !**taken)
            .fold(0u64, |sum, ((_, n), _)| sum.saturating_add(*n));
        bars.push((other.to_string(), rest));
    }
    bars
}

/// A section with its heading, then the chart beside its table (`.pair`).
fn section_open(h: &mut Html, title: &str) {
    h.raw("<section>")
        .element("h2", &[], title)
        .raw("<div class=\"pair\"><div>");
}

/// The start of a chart's table: a scrolling region a keyboard can reach, the caption and
/// the column heads.
fn table_open(h: &mut Html, lang: Lang, title: &str, heads: (&str, &str)) {
    let t = AnalyticsText::of(lang);
    let name = format!("{title}: {}", t.numbers);
    h.raw("</div>")
        .open(
            "div",
            &[
                ("class", "table scroll"),
                ("tabindex", "0"),
                ("role", "region"),
                ("aria-label", &name),
            ],
        )
        .raw("<table><caption class=\"muted\">")
        .text(&name)
        .raw("</caption><thead><tr>")
        .element("th", &[("scope", "col")], heads.0)
        .element("th", &[("scope", "col"), ("class", "num")], heads.1)
        .raw("</tr></thead><tbody>");
}

fn table_close(h: &mut Html) {
    h.raw("</tbody></table></div></div></section>");
}

/// Counts per day: the line chart and, beside it, every day of the window, oldest first.
fn per_day(h: &mut Html, lang: Lang, id: &str, title: &str, what: &str, days: &[(i64, u64)]) {
    let t = AnalyticsText::of(lang);
    let points: Vec<(String, u64)> = days.iter().map(|(d, n)| (day_text(lang, *d), *n)).collect();
    section_open(h, title);
    h.append(&chart::line(
        &points,
        &Caption {
            id,
            title,
            total: t.total,
            empty: t.no_data,
            decimal: lang.decimal(),
        },
    ));
    table_open(h, lang, title, (t.date, what));
    for ((day, n), (text, _)) in days.iter().zip(&points) {
        h.raw("<tr><th scope=\"row\">")
            .element("time", &[("datetime", &date_string(*day))], text)
            .raw("</th>")
            .element("td", &[("class", "num")], &number(lang, *n))
            .raw("</tr>");
    }
    table_close(h);
}

/// A breakdown: the bar chart of its largest items and, beside it, every item in the
/// report's order (by key).
fn breakdown(
    h: &mut Html,
    lang: Lang,
    id: &str,
    title: &str,
    heads: (&str, &str),
    items: &BTreeMap<String, u64>,
) {
    let t = AnalyticsText::of(lang);
    section_open(h, title);
    h.append(&chart::bars(
        &bars_of(items, t.other),
        &Caption {
            id,
            title,
            total: t.total,
            empty: t.no_data,
            decimal: lang.decimal(),
        },
    ));
    table_open(h, lang, title, heads);
    for (key, n) in items {
        h.raw("<tr>")
            .element("th", &[("scope", "row")], key)
            .element("td", &[("class", "num")], &number(lang, *n))
            .raw("</tr>");
    }
    table_close(h);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::days_from_civil;

    #[test]
    fn the_form_asks_for_a_period_and_a_card() {
        assert_eq!(
            Asked::of(None, None),
            Asked {
                period: "30d",
                days: Some(30),
                card: None
            }
        );
        assert_eq!(Asked::of(Some("365d"), Some("")).days, Some(365));
        assert_eq!(Asked::of(Some("365d"), Some(" 7 ")).card, Some("7"));
        for bad in ["1d", "", "30", "30D"] {
            assert_eq!(Asked::of(Some(bad), None).days, None, "{bad}");
        }
    }

    #[test]
    fn a_wrong_field_says_so_beside_itself() {
        let asked = Asked::of(Some("2d"), Some("x"));
        let mut h = Html::default();
        let problems = Problems {
            period: true,
            card: true,
        };
        form(&mut h, Lang::De, &asked, None, &[], &problems);
        let html = h.into_string();
        assert!(html.contains(
            "<select id=\"period\" name=\"period\" aria-invalid=\"true\" \
             aria-describedby=\"period-error\">"
        ));
        assert!(html.contains("<p class=\"error\" id=\"period-error\">Wählen Sie einen"));
        assert!(html.contains("aria-describedby=\"card-error\""));
        assert!(html.contains("<option value=\"365d\">Letzte 365 Tage</option>"));
        let mut h = Html::default();
        let fine = Problems {
            period: false,
            card: false,
        };
        form(
            &mut h,
            Lang::En,
            &Asked::of(Some("7d"), None),
            None,
            &[],
            &fine,
        );
        let html = h.into_string();
        assert!(html.contains("<option value=\"7d\" selected=\"\">Last 7 days</option>"));
        assert!(!html.contains("aria-invalid") && !html.contains("class=\"error\""));
    }

    #[test]
    fn numbers_and_days_in_each_language() {
        assert_eq!(number(Lang::En, 0), "0");
        assert_eq!(number(Lang::En, 999), "999");
        assert_eq!(number(Lang::En, 1234), "1,234");
        assert_eq!(number(Lang::De, 1_234_567), "1.234.567");
        assert_eq!(number(Lang::De, u64::MAX), "18.446.744.073.709.551.615");
        let day = days_from_civil(2026, 3, 4);
        assert_eq!(day_text(Lang::En, day), "2026-03-04");
        assert_eq!(day_text(Lang::De, day), "04.03.2026");
    }

    #[test]
    fn long_breakdowns_keep_their_largest_bars_and_sum_the_rest() {
        let of = |items: &[(&str, u64)]| -> BTreeMap<String, u64> {
            items.iter().map(|(k, n)| (k.to_string(), *n)).collect()
        };
        let short = bars_of(&of(&[("b", 5), ("a", 5), ("c", 9), ("d", 1)]), "Other");
        let short: Vec<(&str, u64)> = short.iter().map(|(k, n)| (k.as_str(), *n)).collect();
        assert_eq!(
            short,
            [("c", 9), ("a", 5), ("b", 5), ("d", 1)],
            "largest first"
        );
        assert!(bars_of(&BTreeMap::new(), "Other").is_empty());
        let many: BTreeMap<String, u64> = (0..12).map(|i| (format!("k{i:02}"), 100 - i)).collect();
        let bars = bars_of(&many, "Other");
        assert_eq!(bars.len(), BARS);
        assert_eq!(bars[0], ("k00".to_string(), 100));
        assert_eq!(
            bars[BARS - 2],
            (format!("k{:02}", BARS - 2), 100 - (BARS as u64 - 2))
        );
        let rest: u64 = (BARS as u64 - 1..12).map(|i| 100 - i).sum();
        assert_eq!(bars[BARS - 1], ("Other".to_string(), rest));
        let total: u64 = bars.iter().map(|(_, n)| n).sum();
        assert_eq!(total, (0..12).map(|i| 100 - i).sum::<u64>(), "nothing lost");
        let exactly = bars_of(
            &many
                .iter()
                .take(BARS)
                .map(|(k, n)| (k.clone(), *n))
                .collect(),
            "Other",
        );
        assert!(
            exactly.iter().all(|(k, _)| k != "Other"),
            "no other when all fit"
        );
    }

    #[test]
    fn every_chart_has_its_numbers_beside_it() {
        let mut h = Html::default();
        let day = days_from_civil(2026, 11, 22);
        per_day(
            &mut h,
            Lang::En,
            "v",
            "Views per day",
            "Views",
            &[(day - 1, 0), (day, 1234)],
        );
        let html = h.into_string();
        assert!(html.contains("<div class=\"pair\"><div><svg"));
        assert!(html.contains(
            "<tr><th scope=\"row\"><time datetime=\"2026-11-22\">2026-11-22</time></th>\
             <td class=\"num\">1,234</td></tr>"
        ));
        assert!(
            html.contains("tabindex=\"0\" role=\"region\" aria-label=\"Views per day: Numbers\"")
        );
        let mut h = Html::default();
        let items = BTreeMap::from([("<x>".to_string(), 2)]);
        breakdown(
            &mut h,
            Lang::De,
            "d",
            "Geräte",
            ("Gerät", "Aufrufe"),
            &items,
        );
        let html = h.into_string();
        assert!(html.contains("<th scope=\"row\">&lt;x&gt;</th><td class=\"num\">2</td>"));
        assert!(!html.contains("<x>"));
    }
}
