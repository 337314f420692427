//! Analytics rules: periods, referrer keys, the KV layout of the counters and the reports
//! of spec 2.3 / 2.4.
//!
//! Counters live in KV as one JSON document per (account, scope, kind, calendar month),
//! where scope is `all` (the account's totals) or a card id. A report over any period
//! therefore reads at most 13 documents (365 days span at most 13 months), whatever the
//! number of cards or days.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::time::{civil_from_days, date_string};

/// Periods of spec 4.1, in days.
pub const PERIODS: [(&str, i64); 5] = [
    ("7d", 7),
    ("14d", 14),
    ("30d", 30),
    ("90d", 90),
    ("365d", 365),
];
pub const DEFAULT_PERIOD: &str = "30d";

/// Distinct referrer keys kept per document day; the rest are counted under `other`, so
/// a flood of fake referrers cannot grow storage without bound.
pub const MAX_REFERRERS_PER_DAY: usize = 50;
/// Longest referrer key kept (a host name is at most 253 characters).
const MAX_REFERRER_LEN: usize = 253;

pub fn period_days(period: &str) -> Option<i64> {
    PERIODS.iter().find(|(p, _)| *p == period).map(|(_, d)| *d)
}

/// The UTC day numbers of the window: today and the N-1 days before it, oldest first.
pub fn window(today: i64, days: i64) -> std::ops::RangeInclusive<i64> {
    (today - days + 1)..=today
}

/// `YYYY-MM` of a day number.
pub fn month_of(day: i64) -> String {
    let (y, m, _) = civil_from_days(day);
    format!("{y:04}-{m:02}")
}

/// Distinct months of a window, oldest first.
pub fn months(today: i64, days: i64) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for day in window(today, days) {
        let m = month_of(day);
        if out.last() != Some(&m) {
            out.push(m);
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Views,
    Clicks,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Views => "views",
            Kind::Clicks => "clicks",
        }
    }
}

/// `None` is the account-wide scope.
pub fn kv_key(account: i64, card: Option<i64>, kind: Kind, month: &str) -> String {
    match card {
        Some(card) => format!("a/{account}/c/{card}/{}/{month}", kind.as_str()),
        None => format!("a/{account}/all/{}/{month}", kind.as_str()),
    }
}

/// `Referer` -> host without `www.`; `direct` when absent, unparsable or same-site.
pub fn referrer_key(referer: Option<&str>, own_host: &str) -> String {
    let host = referer.and_then(|r| super::weburl::parse_http(r.trim()).map(|u| u.host));
    let Some(host) = host else {
        return "direct".into();
    };
    let strip = |h: &str| h.strip_prefix("www.").unwrap_or(h).to_string();
    let host = strip(&host);
    if host.is_empty() || host == strip(&own_host.to_ascii_lowercase()) {
        return "direct".into();
    }
    host.chars().take(MAX_REFERRER_LEN).collect()
}

/// ISO 3166-1 alpha-2 from the edge, `XX` when unknown.
pub fn country_key(country: Option<&str>) -> String {
    match country.map(str::trim) {
        Some(c) if c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()) => {
            c.to_ascii_uppercase()
        }
        _ => "XX".into(),
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewsDay {
    pub views: u64,
    pub unique: u64,
    pub devices: BTreeMap<String, u64>,
    pub countries: BTreeMap<String, u64>,
    pub referrers: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClicksDay {
    pub clicks: u64,
    pub types: BTreeMap<String, u64>,
}

/// One KV document: the days of one month, keyed `YYYY-MM-DD`, and the month's totals. A
/// report over a window that covers the whole month reads the per-day counts and the
/// totals and skips the per-day breakdowns, which keeps a 365-day report close to a 30-day
/// one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthDoc<D> {
    pub days: BTreeMap<String, D>,
    /// `None` in documents written before totals existed; readers then sum the days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totals: Option<D>,
}

impl<D> Default for MonthDoc<D> {
    fn default() -> Self {
        MonthDoc {
            days: BTreeMap::new(),
            totals: None,
        }
    }
}

/// One pending increment as the aggregator accumulates it: `dim` is `device`, `country`,
/// `referrer` or `unique` for views and `type` for clicks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Increment {
    pub kind: Kind,
    pub card: i64,
    pub day: i64,
    pub dim: String,
    pub key: String,
    pub n: u64,
}

/// Adds `n` under `key`, allocating the key only when it is new.
fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(v) => *v += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

impl ViewsDay {
    fn add(&mut self, dim: &str, key: &str, n: u64) {
        match dim {
            "device" => {
                self.views += n;
                bump(&mut self.devices, key, n);
            }
            "unique" => self.unique += n,
            "country" => bump(&mut self.countries, key, n),
            "referrer" => bump(&mut self.referrers, key, n),
            _ => {}
        }
    }
}

impl MonthDoc<ViewsDay> {
    /// Every view carries exactly one `device` increment, so the total follows it.
    pub fn apply(&mut self, inc: &Increment) {
        let day = self.days.entry(date_string(inc.day)).or_default();
        let mut key = inc.key.as_str();
        if inc.dim == "referrer"
            && day.referrers.len() >= MAX_REFERRERS_PER_DAY
            && !day.referrers.contains_key(key)
        {
            key = "other";
        }
        day.add(&inc.dim, key, inc.n);
        self.totals
            .get_or_insert_with(Default::default)
            .add(&inc.dim, key, inc.n);
    }
}

impl ClicksDay {
    fn add(&mut self, key: &str, n: u64) {
        self.clicks += n;
        bump(&mut self.types, key, n);
    }
}

impl MonthDoc<ClicksDay> {
    pub fn apply(&mut self, inc: &Increment) {
        if inc.dim == "type" {
            self.days
                .entry(date_string(inc.day))
                .or_default()
                .add(&inc.key, inc.n);
            self.totals
                .get_or_insert_with(Default::default)
                .add(&inc.key, inc.n);
        }
    }
}

/// Spec 2.3.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewsReport {
    pub total_views: u64,
    pub unique_views: u64,
    pub period: String,
    pub views_per_day: BTreeMap<String, u64>,
    pub devices: BTreeMap<String, u64>,
    pub countries: BTreeMap<String, u64>,
    pub referrers: BTreeMap<String, u64>,
}

/// Spec 2.4.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClicksReport {
    pub total_clicks: u64,
    pub period: String,
    pub clicks_by_type: BTreeMap<String, u64>,
    pub clicks_per_day: BTreeMap<String, u64>,
}

/// Counts as read back for a report: keys borrow from the KV text where they can, so a
/// year of documents is summed without a string allocation per entry.
type Counts<'a> = BTreeMap<Cow<'a, str>, u64>;

#[derive(Deserialize)]
struct ViewsDayRead<'a> {
    #[serde(default)]
    views: u64,
    #[serde(default)]
    unique: u64,
    #[serde(borrow, default)]
    devices: Counts<'a>,
    #[serde(borrow, default)]
    countries: Counts<'a>,
    #[serde(borrow, default)]
    referrers: Counts<'a>,
}

#[derive(Deserialize)]
struct ViewsDocRead<'a> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, ViewsDayRead<'a>>,
}

#[derive(Deserialize)]
struct ClicksDayRead<'a> {
    #[serde(default)]
    clicks: u64,
    #[serde(borrow, default)]
    types: Counts<'a>,
}

#[derive(Deserialize)]
struct ClicksDocRead<'a> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, ClicksDayRead<'a>>,
}

/// A day's counts only: its breakdowns are skipped without being built.
#[derive(Deserialize)]
struct DayCounts {
    #[serde(default)]
    views: u64,
    #[serde(default)]
    unique: u64,
    #[serde(default)]
    clicks: u64,
}

#[derive(Deserialize)]
struct ViewsDocLight<'a> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, DayCounts>,
    #[serde(borrow, default)]
    totals: Option<ViewsDayRead<'a>>,
}

#[derive(Deserialize)]
struct ClicksDocLight<'a> {
    #[serde(borrow)]
    days: BTreeMap<Cow<'a, str>, DayCounts>,
    #[serde(borrow, default)]
    totals: Option<ClicksDayRead<'a>>,
}

/// Whether every day of a document lies in the window, so its totals can stand in for
/// the per-day breakdowns.
fn inside<T>(days: &BTreeMap<Cow<str>, T>, window: &BTreeMap<String, u64>) -> bool {
    days.keys().all(|d| window.contains_key(d.as_ref()))
}

fn merge(into: &mut BTreeMap<String, u64>, from: &Counts) {
    for (k, v) in from {
        bump(into, k, *v);
    }
}

/// Days of the window in `YYYY-MM-DD`, zero-filled; the map's key order is oldest first.
fn zero_days(today: i64, days: i64) -> BTreeMap<String, u64> {
    window(today, days).map(|d| (date_string(d), 0)).collect()
}

/// Sums the month documents (JSON text from KV) over the window. A document that does not
/// parse is skipped rather than failing the report.
pub fn views_report(docs: &[String], today: i64, period: &str, days: i64) -> ViewsReport {
    let mut r = ViewsReport {
        total_views: 0,
        unique_views: 0,
        period: period.to_string(),
        views_per_day: zero_days(today, days),
        devices: BTreeMap::new(),
        countries: BTreeMap::new(),
        referrers: BTreeMap::new(),
    };
    for text in docs {
        if let Ok(light) = serde_json::from_str::<ViewsDocLight>(text) {
            if let Some(totals) = light
                .totals
                .as_ref()
                .filter(|_| inside(&light.days, &r.views_per_day))
            {
                for (date, day) in &light.days {
                    if let Some(slot) = r.views_per_day.get_mut(date.as_ref()) {
                        *slot += day.views;
                    }
                    r.total_views += day.views;
                    r.unique_views += day.unique;
                }
                merge(&mut r.devices, &totals.devices);
                merge(&mut r.countries, &totals.countries);
                merge(&mut r.referrers, &totals.referrers);
                continue;
            }
        }
        let Ok(doc) = serde_json::from_str::<ViewsDocRead>(text) else {
            continue;
        };
        for (date, day) in &doc.days {
            // Months at the window's edge hold days outside it.
            let Some(slot) = r.views_per_day.get_mut(date.as_ref()) else {
                continue;
            };
            *slot += day.views;
            r.total_views += day.views;
            r.unique_views += day.unique;
            merge(&mut r.devices, &day.devices);
            merge(&mut r.countries, &day.countries);
            merge(&mut r.referrers, &day.referrers);
        }
    }
    r
}

pub fn clicks_report(docs: &[String], today: i64, period: &str, days: i64) -> ClicksReport {
    let mut r = ClicksReport {
        total_clicks: 0,
        period: period.to_string(),
        clicks_by_type: BTreeMap::new(),
        clicks_per_day: zero_days(today, days),
    };
    for text in docs {
        if let Ok(light) = serde_json::from_str::<ClicksDocLight>(text) {
            if let Some(totals) = light
                .totals
                .as_ref()
                .filter(|_| inside(&light.days, &r.clicks_per_day))
            {
                for (date, day) in &light.days {
                    if let Some(slot) = r.clicks_per_day.get_mut(date.as_ref()) {
                        *slot += day.clicks;
                    }
                    r.total_clicks += day.clicks;
                }
                merge(&mut r.clicks_by_type, &totals.types);
                continue;
            }
        }
        let Ok(doc) = serde_json::from_str::<ClicksDocRead>(text) else {
            continue;
        };
        for (date, day) in &doc.days {
            let Some(slot) = r.clicks_per_day.get_mut(date.as_ref()) else {
                continue;
            };
            *slot += day.clicks;
            r.total_clicks += day.clicks;
            merge(&mut r.clicks_by_type, &day.types);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::days_from_civil;

    fn inc(kind: Kind, day: i64, dim: &str, key: &str) -> Increment {
        Increment {
            kind,
            card: 1,
            day,
            dim: dim.into(),
            key: key.into(),
            n: 1,
        }
    }

    #[test]
    fn periods() {
        assert_eq!(period_days("7d"), Some(7));
        assert_eq!(period_days("365d"), Some(365));
        assert_eq!(period_days("1d"), None);
        assert_eq!(period_days("30"), None);
        assert_eq!(period_days(DEFAULT_PERIOD), Some(30));
    }

    #[test]
    fn a_year_spans_at_most_13_months() {
        for (y, m, d) in [(2026, 11, 22), (2026, 12, 31), (2024, 2, 29), (2026, 1, 1)] {
            let today = days_from_civil(y, m, d);
            let ms = months(today, 365);
            assert!(ms.len() <= 13, "{ms:?}");
            assert_eq!(ms.last().unwrap(), &format!("{y:04}-{m:02}"));
            assert_eq!(months(today, 7).len(), if d < 7 { 2 } else { 1 });
        }
    }

    #[test]
    fn referrers() {
        let r = |s: Option<&str>| referrer_key(s, "cards.example");
        assert_eq!(r(Some("https://www.linkedin.com/feed/")), "linkedin.com");
        assert_eq!(
            r(Some("http://News.Ycombinator.com")),
            "news.ycombinator.com"
        );
        assert_eq!(r(None), "direct");
        assert_eq!(r(Some("not a url")), "direct");
        assert_eq!(r(Some("android-app://com.x")), "direct");
        assert_eq!(r(Some("https://cards.example/c/other")), "direct");
        assert_eq!(r(Some("https://www.cards.example/")), "direct");
    }

    #[test]
    fn countries() {
        assert_eq!(country_key(Some("de")), "DE");
        assert_eq!(country_key(None), "XX");
        assert_eq!(country_key(Some("T1")), "XX");
    }

    #[test]
    fn keys_separate_accounts_scopes_and_kinds() {
        assert_eq!(
            kv_key(7, Some(3), Kind::Views, "2026-11"),
            "a/7/c/3/views/2026-11"
        );
        assert_eq!(
            kv_key(7, None, Kind::Clicks, "2026-11"),
            "a/7/all/clicks/2026-11"
        );
    }

    #[test]
    fn referrer_keys_are_capped_per_day() {
        let mut doc = MonthDoc::<ViewsDay>::default();
        for i in 0..(MAX_REFERRERS_PER_DAY + 10) {
            doc.apply(&inc(
                Kind::Views,
                100,
                "referrer",
                &format!("spam{i}.example"),
            ));
        }
        doc.apply(&inc(Kind::Views, 100, "referrer", "spam0.example"));
        let day = &doc.days[&date_string(100)];
        assert_eq!(day.referrers.len(), MAX_REFERRERS_PER_DAY + 1);
        assert_eq!(day.referrers["other"], 10);
        assert_eq!(day.referrers["spam0.example"], 2);
    }

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
            doc.apply(&inc(Kind::Views, day, "device", dev));
            doc.apply(&inc(Kind::Views, day, "country", "DE"));
            doc.apply(&inc(Kind::Views, day, "referrer", "direct"));
        }
        doc.apply(&inc(Kind::Views, today, "unique", ""));
        let r = views_report(
            &[serde_json::to_string(&doc).unwrap(), "not json".into()],
            today,
            "7d",
            7,
        );
        assert_eq!(r.total_views, 3);
        assert_eq!(r.unique_views, 1);
        assert_eq!(r.views_per_day.len(), 7);
        assert_eq!(r.views_per_day.keys().next().unwrap(), "2026-11-16");
        assert_eq!(r.views_per_day["2026-11-22"], 2);
        assert_eq!(r.views_per_day["2026-11-19"], 1);
        assert_eq!(
            r.devices,
            BTreeMap::from([("desktop".into(), 1), ("mobile".into(), 2)])
        );
        assert_eq!(r.countries["DE"], 3);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["period"], "7d");

        let mut clicks = MonthDoc::<ClicksDay>::default();
        clicks.apply(&inc(Kind::Clicks, today, "type", "email"));
        clicks.apply(&inc(Kind::Clicks, today, "type", "social_linkedin"));
        let c = clicks_report(&[serde_json::to_string(&clicks).unwrap()], today, "14d", 14);
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
                ("device", "mobile"),
                ("country", "DE"),
                ("referrer", "x.com"),
                ("unique", ""),
            ] {
                views.apply(&inc(Kind::Views, day, dim, key));
            }
            clicks.apply(&inc(Kind::Clicks, day, "type", "email"));
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
            let a = views_report(&with_totals, today, period, days);
            let b = views_report(&without, today, period, days);
            assert_eq!(a, b, "{period}");
        }
        assert_eq!(views_report(&with_totals, today, "90d", 90).total_views, 59);
        assert_eq!(views_report(&with_totals, today, "30d", 30).total_views, 8);
        // apply() keeps totals equal to the sum of the days.
        let t = views.totals.as_ref().unwrap();
        assert_eq!(t.views, 59);
        assert_eq!(t.referrers["x.com"], 59);
        let c = clicks_report(
            &[serde_json::to_string(&clicks).unwrap()],
            today,
            "365d",
            365,
        );
        assert_eq!(c.total_clicks, 59);
        assert_eq!(c.clicks_by_type["email"], 59);
        let c30 = clicks_report(&[serde_json::to_string(&clicks).unwrap()], today, "30d", 30);
        assert_eq!(c30.total_clicks, 8);
        assert_eq!(
            c30.clicks_by_type["email"], 8,
            "partial month read day by day"
        );
    }
}
