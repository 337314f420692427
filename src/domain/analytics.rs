//! Analytics rules: periods, referrer keys, the KV layout of the counters and the reports
//! of spec 2.3 / 2.4.
//!
//! Counters live in KV as one JSON document per (account, scope, kind, calendar month),
//! where scope is `all` (the account's totals) or a card id. A report over any period
//! therefore reads at most 13 documents (365 days span at most 13 months), whatever the
//! number of cards or days.

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

/// One KV document: the days of one month, keyed `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonthDoc<D> {
    pub days: BTreeMap<String, D>,
}

impl<D> Default for MonthDoc<D> {
    fn default() -> Self {
        MonthDoc {
            days: BTreeMap::new(),
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

fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    *map.entry(key.to_string()).or_default() += n;
}

impl MonthDoc<ViewsDay> {
    /// Every view carries exactly one `device` increment, so the total follows it.
    pub fn apply(&mut self, inc: &Increment) {
        let day = self.days.entry(date_string(inc.day)).or_default();
        match inc.dim.as_str() {
            "device" => {
                day.views += inc.n;
                bump(&mut day.devices, &inc.key, inc.n);
            }
            "unique" => day.unique += inc.n,
            "country" => bump(&mut day.countries, &inc.key, inc.n),
            "referrer" => {
                let full = day.referrers.len() >= MAX_REFERRERS_PER_DAY;
                let key = if full && !day.referrers.contains_key(&inc.key) {
                    "other"
                } else {
                    &inc.key
                };
                bump(&mut day.referrers, key, inc.n);
            }
            _ => {}
        }
    }
}

impl MonthDoc<ClicksDay> {
    pub fn apply(&mut self, inc: &Increment) {
        if inc.dim == "type" {
            let day = self.days.entry(date_string(inc.day)).or_default();
            day.clicks += inc.n;
            bump(&mut day.types, &inc.key, inc.n);
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

fn merge(into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>) {
    for (k, v) in from {
        bump(into, k, *v);
    }
}

/// Days of the window in `YYYY-MM-DD`, zero-filled; the map's key order is oldest first.
fn zero_days(today: i64, days: i64) -> BTreeMap<String, u64> {
    window(today, days).map(|d| (date_string(d), 0)).collect()
}

pub fn views_report(
    docs: &[MonthDoc<ViewsDay>],
    today: i64,
    period: &str,
    days: i64,
) -> ViewsReport {
    let mut r = ViewsReport {
        total_views: 0,
        unique_views: 0,
        period: period.to_string(),
        views_per_day: zero_days(today, days),
        devices: BTreeMap::new(),
        countries: BTreeMap::new(),
        referrers: BTreeMap::new(),
    };
    for doc in docs {
        for (date, day) in &doc.days {
            // Months at the window's edge hold days outside it.
            let Some(slot) = r.views_per_day.get_mut(date) else {
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

pub fn clicks_report(
    docs: &[MonthDoc<ClicksDay>],
    today: i64,
    period: &str,
    days: i64,
) -> ClicksReport {
    let mut r = ClicksReport {
        total_clicks: 0,
        period: period.to_string(),
        clicks_by_type: BTreeMap::new(),
        clicks_per_day: zero_days(today, days),
    };
    for doc in docs {
        for (date, day) in &doc.days {
            let Some(slot) = r.clicks_per_day.get_mut(date) else {
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
        let r = views_report(&[doc], today, "7d", 7);
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
        let c = clicks_report(&[clicks], today, "14d", 14);
        assert_eq!(c.total_clicks, 2);
        assert_eq!(c.clicks_per_day.len(), 14);
        assert_eq!(c.clicks_by_type["social_linkedin"], 1);
    }
}
