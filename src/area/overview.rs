//! The overview (account-area.md 2): the account's cards, its leads of the last 7 days,
//! its views of the last 30 (a small chart), and the plan with its features.

use worker::Response;

use super::layout::Nav;
use super::text::{texts, Common};
use super::{Ctx, Signed};
use crate::domain::analytics::ViewsDay;
use crate::domain::chart::{self, Caption};
use crate::domain::html::Html;
use crate::domain::time::{date_string, day_of, DAY_MS};
use crate::http::error::ApiResult;
use crate::http::App;
use crate::store::{analytics, cards};

texts! {
    OverviewText {
        cards: "Cards" / "Karten",
        leads_7d: "Leads in the last 7 days" / "Leads der letzten 7 Tage",
        views_30d: "Views in the last 30 days" / "Aufrufe der letzten 30 Tage",
        views_chart: "Views per day, last 30 days" / "Aufrufe pro Tag, letzte 30 Tage",
        total: "Total" / "Gesamt",
        no_data: "No views yet" / "Noch keine Aufrufe",
        plan: "Plan" / "Tarif",
        features: "Features" / "Funktionen",
        card_limit: "Card limit" / "Kartenlimit",
        api_access: "API access" / "API-Zugang",
        advanced_analytics: "Advanced analytics" / "Erweiterte Analysen",
        white_label: "White label" / "White Label",
        lead_form: "Lead form" / "Kontaktformular",
        region: "Data region" / "Datenregion",
        see_leads: "See the leads" / "Zu den Leads",
        see_analytics: "See the analytics" / "Zu den Analysen",
        see_cards: "See the cards" / "Zu den Karten",
    }
}

pub async fn page(app: &App, ctx: &Ctx, s: &Signed) -> ApiResult<Response> {
    let t = OverviewText::of(ctx.lang);
    let c = Common::of(ctx.lang);
    let account = &s.account;
    let today = day_of(app.now_ms);
    let since = (today - 6) * DAY_MS;
    let (cards, leads) = cards::overview(&*app.db()?, account.id, since).await?;
    let views =
        analytics::report_of::<ViewsDay>(&app.env, &app.ctx, account.id, None, "30d", today, 30)
            .await?;
    let points: Vec<(String, u64)> = views
        .views_per_day
        .iter()
        .map(|(day, n)| (date_string(day), n))
        .collect();
    let total = views.total_views.to_string();

    let mut h = Html::default();
    h.raw("<div class=\"grid\">");
    figure(
        &mut h,
        t.cards,
        &cards.to_string(),
        "/app/cards",
        t.see_cards,
    );
    figure(
        &mut h,
        t.leads_7d,
        &leads.to_string(),
        "/app/leads",
        t.see_leads,
    );
    figure(
        &mut h,
        t.views_30d,
        &total,
        "/app/analytics",
        t.see_analytics,
    );
    h.raw("</div><section>")
        .element("h2", &[], t.views_chart)
        .append(&chart::line(
            &points,
            &Caption {
                id: "views",
                title: t.views_chart,
                total: t.total,
                empty: t.no_data,
                decimal: ctx.lang.decimal(),
            },
        ))
        .raw("</section><section>")
        .element("h2", &[], t.plan);
    let (features, limit) = account.overrides.effective(account.plan);
    h.raw("<p class=\"figure\">")
        .text(account.plan.as_str())
        .raw("</p><div class=\"table\"><table><caption class=\"muted\">")
        .text(t.features)
        .raw("</caption><tbody>");
    let yes_no = |b: bool| if b { c.yes } else { c.no };
    let region = account
        .placement
        .as_ref()
        .map_or("", |p| p.data_region.as_str());
    for (name, value) in [
        (t.api_access, yes_no(features.api_access).to_string()),
        (
            t.advanced_analytics,
            yes_no(features.advanced_analytics).to_string(),
        ),
        (t.white_label, yes_no(features.white_label).to_string()),
        (t.lead_form, yes_no(features.lead_form).to_string()),
        (t.card_limit, limit.to_string()),
        (t.region, region.to_string()),
    ] {
        h.raw("<tr>")
            .element("th", &[("scope", "row")], name)
            .element("td", &[], &value)
            .raw("</tr>");
    }
    h.raw("</tbody></table></div></section>");
    Ok(ctx.page(c.overview, Nav::Overview, h, Some(s)))
}

fn figure(h: &mut Html, label: &str, value: &str, href: &str, link: &str) {
    h.raw("<section>")
        .element("p", &[("class", "label")], label)
        .element("p", &[("class", "figure")], value)
        .element("a", &[("href", href)], link)
        .raw("</section>");
}
