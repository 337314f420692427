//! The reports of spec 2.3 / 2.4: month documents (or their summaries) summed over a
//! window, with one slot per day.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::doc::{Day, DayCounts};
use super::window::Series;

#[derive(Deserialize)]
struct DocRead<'a, R> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, R>,
}

/// A document with each day's counts only, and the month's totals.
#[derive(Deserialize)]
struct DocLight<'a, R> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, DayCounts>,
    /// Missing in documents written before totals existed.
    totals: Option<R>,
}

/// Whether every day of a document lies in the window, so its totals can stand in for
/// the per-day breakdowns.
fn inside<T>(days: &BTreeMap<Cow<str>, T>, window: &Series) -> bool {
    days.keys().all(|d| window.index(d).is_some())
}

/// Adds one day's counts to the report: its slot in the series and the sums. Both paths of
/// [`report`] go through here, so they cannot count a day differently.
fn tally<D: Day>(per_day: &mut Series, sum: &mut D, date: &str, c: &DayCounts) {
    if let Some(slot) = per_day.slot(date) {
        *slot += c.headline(D::KIND);
    }
    sum.add_counts(c);
}

/// Sums the month documents (JSON text from KV) of one kind over the window. A document
/// that does not parse is skipped rather than failing the report.
pub fn report<D: Day>(docs: &[String], today: i64, period: &str, days: i64) -> D::Report {
    let mut per_day = Series::zeros(today, days);
    let mut sum = D::default();
    for text in docs {
        if let Ok(light) = serde_json::from_str::<DocLight<D::Read<'_>>>(text) {
            if let Some(totals) = light
                .totals
                .as_ref()
                .filter(|_| inside(&light.days, &per_day))
            {
                for (date, day) in &light.days {
                    tally(&mut per_day, &mut sum, date, day);
                }
                sum.add_breakdowns(totals);
                continue;
            }
        }
        let Ok(doc) = serde_json::from_str::<DocRead<D::Read<'_>>>(text) else {
            continue;
        };
        for (date, day) in &doc.days {
            // Months at the window's edge hold days outside it.
            if per_day.index(date).is_none() {
                continue;
            }
            tally(&mut per_day, &mut sum, date, &D::counts(day));
            sum.add_breakdowns(day);
        }
    }
    sum.into_report(period, per_day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::analytics::doc::bump;
    use crate::domain::analytics::testing::inc;
    use crate::domain::analytics::{
        fold, ClicksDay, Dimension, Increment, MonthDoc, Scope, ViewsDay, PERIODS,
    };
    use crate::domain::time::{date_string, days_from_civil};

    #[test]
    fn reports_zero_fill_and_clip_to_the_window() {
        let today = days_from_civil(2026, 11, 22);
        let mut doc = MonthDoc::<ViewsDay>::default();
        for (day, dev) in [
            (today, "mobile"),
            (today, "desktop"),
            (today - 3, "mobile"),
            (today - 10, "tablet"),
        ] {
            doc.apply(&inc(day, Dimension::Device, dev));
            doc.apply(&inc(day, Dimension::Country, "DE"));
            doc.apply(&inc(day, Dimension::Referrer, "direct"));
        }
        doc.apply(&inc(today, Dimension::Unique, ""));
        let r = report::<ViewsDay>(
            &[serde_json::to_string(&doc).unwrap(), "not json".into()],
            today,
            "7d",
            7,
        );
        assert_eq!(r.total_views, 3);
        assert_eq!(r.unique_views, 1);
        assert_eq!(r.views_per_day.len(), 7);
        assert_eq!(r.views_per_day.iter().next(), Some((today - 6, 0)));
        assert_eq!(r.views_per_day.get("2026-11-22"), Some(2));
        assert_eq!(r.views_per_day.get("2026-11-19"), Some(1));
        assert_eq!(r.views_per_day.get("2026-11-15"), None);
        assert_eq!(
            r.devices,
            BTreeMap::from([("desktop".into(), 1), ("mobile".into(), 2)])
        );
        assert_eq!(r.countries["DE"], 3);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["period"], "7d");

        let mut clicks = MonthDoc::<ClicksDay>::default();
        clicks.apply(&inc(today, Dimension::Type, "email"));
        clicks.apply(&inc(today, Dimension::Type, "social_linkedin"));
        let c = report::<ClicksDay>(&[serde_json::to_string(&clicks).unwrap()], today, "14d", 14);
        assert_eq!(c.total_clicks, 2);
        assert_eq!(c.clicks_per_day.len(), 14);
        assert_eq!(c.clicks_by_type["social_linkedin"], 1);
    }

    #[test]
    fn month_totals_give_the_same_report_as_the_days() {
        let today = days_from_civil(2026, 11, 22);
        let mut views = MonthDoc::<ViewsDay>::default();
        let mut clicks = MonthDoc::<ClicksDay>::default();
        // October fully inside a 90-day window, September partly.
        for day in (today - 80)..=(today - 22) {
            for (dim, key) in [
                (Dimension::Device, "mobile"),
                (Dimension::Country, "DE"),
                (Dimension::Referrer, "x.com"),
                (Dimension::Unique, ""),
            ] {
                views.apply(&inc(day, dim, key));
            }
            clicks.apply(&inc(day, Dimension::Type, "email"));
        }
        let by_month = |doc_days: Vec<(String, ViewsDay)>| {
            let mut m: BTreeMap<String, MonthDoc<ViewsDay>> = BTreeMap::new();
            for (d, v) in doc_days {
                m.entry(d[..7].to_string()).or_default().days.insert(d, v);
            }
            m
        };
        let mut with_totals = Vec::new();
        let mut without = Vec::new();
        for (_, mut doc) in by_month(views.days.clone().into_iter().collect()) {
            without.push(serde_json::to_string(&doc).unwrap());
            let mut totals = ViewsDay::default();
            for d in doc.days.values() {
                totals.views += d.views;
                totals.unique += d.unique;
                for (k, v) in &d.devices {
                    bump(&mut totals.devices, k, *v);
                }
                for (k, v) in &d.countries {
                    bump(&mut totals.countries, k, *v);
                }
                for (k, v) in &d.referrers {
                    bump(&mut totals.referrers, k, *v);
                }
            }
            doc.totals = Some(totals);
            with_totals.push(serde_json::to_string(&doc).unwrap());
        }
        for (period, days) in [("30d", 30), ("90d", 90)] {
            let a = report::<ViewsDay>(&with_totals, today, period, days);
            let b = report::<ViewsDay>(&without, today, period, days);
            assert_eq!(a, b, "{period}");
        }
        assert_eq!(
            report::<ViewsDay>(&with_totals, today, "90d", 90).total_views,
            59
        );
        assert_eq!(
            report::<ViewsDay>(&with_totals, today, "30d", 30).total_views,
            8
        );
        // apply() keeps totals equal to the sum of the days.
        let t = views.totals.as_ref().unwrap();
        assert_eq!(t.views, 59);
        assert_eq!(t.referrers["x.com"], 59);
        let c = report::<ClicksDay>(
            &[serde_json::to_string(&clicks).unwrap()],
            today,
            "365d",
            365,
        );
        assert_eq!(c.total_clicks, 59);
        assert_eq!(c.clicks_by_type["email"], 59);
        let c30 = report::<ClicksDay>(&[serde_json::to_string(&clicks).unwrap()], today, "30d", 30);
        assert_eq!(c30.total_clicks, 8);
        assert_eq!(
            c30.clicks_by_type["email"], 8,
            "partial month read day by day"
        );
    }

    /// Folds varied traffic over several months, then reports every period for several
    /// days from documents with totals (the light path for whole months) and the same
    /// documents stripped of them (day by day only). Any difference between the paths, for
    /// either kind, fails here.
    fn paths_agree<D: Day>(pending: &[Increment]) {
        let out = fold(1, pending, |_| Ok::<_, serde_json::Error>(None)).unwrap();
        let with: Vec<String> = out
            .iter()
            .filter(|(k, _)| k.kind == D::KIND && k.scope == Scope::All)
            .map(|(_, body)| body.clone())
            .collect();
        assert!(with.len() >= 4, "several months");
        let without: Vec<String> = with
            .iter()
            .map(|body| {
                let mut doc: MonthDoc<D> = serde_json::from_str(body).unwrap();
                assert!(doc.totals.take().is_some());
                serde_json::to_string(&doc).unwrap()
            })
            .collect();
        let last = pending.iter().map(|i| i.day).max().unwrap();
        for today in [last, last + 3, last - 17, last - 45] {
            for (period, days) in PERIODS {
                assert_eq!(
                    report::<D>(&with, today, period, days),
                    report::<D>(&without, today, period, days),
                    "{:?} {period} up to {}",
                    D::KIND,
                    date_string(today)
                );
            }
        }
    }

    fn traffic() -> Vec<Increment> {
        let start = days_from_civil(2026, 7, 20);
        let mut out = Vec::new();
        for (i, day) in (start..start + 130).enumerate() {
            for j in 0..(i % 4) {
                let key = |options: &[&str]| options[(i + j) % options.len()].to_string();
                let at = |dim, key: String| Increment {
                    card: 1 + (j as i64 % 2),
                    day,
                    dim,
                    key,
                    n: 1 + (i as u64 % 3),
                };
                out.push(at(Dimension::Device, key(&["mobile", "tablet", "desktop"])));
                out.push(at(Dimension::Country, key(&["DE", "FR", "XX", "US", "JP"])));
                out.push(at(Dimension::Referrer, key(&["direct", "x.com", "a.b"])));
                if j == 0 {
                    out.push(at(Dimension::Unique, String::new()));
                }
                out.push(at(Dimension::Type, key(&["email", "vcard", "phone"])));
            }
        }
        out
    }

    #[test]
    fn both_report_paths_agree_for_views_and_clicks() {
        let pending = traffic();
        paths_agree::<ViewsDay>(&pending);
        paths_agree::<ClicksDay>(&pending);
    }

    #[test]
    fn whole_months_are_read_from_their_totals() {
        // Guards the test above: it only means something if the totals path is taken.
        let today = days_from_civil(2026, 11, 30);
        let mut doc = MonthDoc::<ClicksDay>::default();
        doc.apply(&inc(today, Dimension::Type, "email"));
        doc.apply(&inc(today - 20, Dimension::Type, "email"));
        if let Some(t) = doc.totals.as_mut() {
            t.types.insert("marker".into(), 5);
        }
        let doc = [serde_json::to_string(&doc).unwrap()];
        let whole = report::<ClicksDay>(&doc, today, "30d", 30);
        assert_eq!(whole.clicks_by_type.get("marker"), Some(&5));
        let partial = report::<ClicksDay>(&doc, today, "7d", 7);
        assert_eq!(partial.clicks_by_type.get("marker"), None);
        assert_eq!((whole.total_clicks, partial.total_clicks), (2, 1));
        assert_eq!(partial.clicks_by_type["email"], 1);
    }
}
