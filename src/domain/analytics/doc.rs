//! Month documents: the counters of one (account, scope, kind, month) as stored in KV,
//! and the fold of pending increments into them (the aggregator's only write).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::event::{Dimension, Increment};
use super::keys::{CounterKey, Kind, Scope};
use super::window::{Month, Series};
use crate::domain::time::date_string;

/// Distinct referrer keys kept per document day; the rest are counted under `other`, so
/// a flood of fake referrers cannot grow storage without bound.
pub const MAX_REFERRERS_PER_DAY: usize = 50;

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

/// Adds `n` under `key`, allocating the key only when it is new.
pub(super) fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(v) => *v += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

/// Counts as read back for a report: keys borrow from the KV text where they can, so a
/// year of documents is summed without a string allocation per entry.
type Counts<'a> = BTreeMap<Cow<'a, str>, u64>;

fn merge(into: &mut BTreeMap<String, u64>, from: &Counts) {
    for (k, v) in from {
        bump(into, k, *v);
    }
}

/// A day's counts only: its breakdowns are skipped without being built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
pub struct DayCounts {
    #[serde(default)]
    pub views: u64,
    #[serde(default)]
    pub unique: u64,
    #[serde(default)]
    pub clicks: u64,
}

impl DayCounts {
    /// The count the per-day series of a report shows.
    pub(super) fn headline(&self, kind: Kind) -> u64 {
        match kind {
            Kind::Views => self.views,
            Kind::Clicks => self.clicks,
        }
    }
}

/// A day of counters of one kind as stored in its month document (the month's totals have
/// the same shape), and how a report reads and sums it. Implemented by [`ViewsDay`] and
/// [`ClicksDay`]; [`MonthDoc::apply`] and [`report`] are written once against it.
pub trait Day: Default + Serialize + DeserializeOwned {
    const KIND: Kind;
    /// The day as a report reads it, borrowing its keys from the KV text.
    type Read<'a>: Deserialize<'a>;
    type Report: fmt::Debug + PartialEq + Serialize;

    /// Adds `n` under `key` of `dim`; a dimension of the other kind adds nothing.
    fn add(&mut self, dim: Dimension, key: &str, n: u64);

    /// The key a count is stored under this day: `key` unless a cap applies.
    fn capped<'k>(&self, _dim: Dimension, key: &'k str) -> &'k str {
        key
    }

    fn counts(day: &Self::Read<'_>) -> DayCounts;

    /// Report side: adds a day's counts to the sum kept in `self`.
    fn add_counts(&mut self, counts: &DayCounts);

    /// Report side: adds a day's (or a month's totals') breakdowns to the sum.
    fn add_breakdowns(&mut self, day: &Self::Read<'_>);

    fn into_report(self, period: &str, per_day: Series) -> Self::Report;
}

impl<D: Day> MonthDoc<D> {
    /// Counts one increment in its day and in the month's totals. An increment of the
    /// other kind belongs to another document and is ignored.
    pub fn apply(&mut self, inc: &Increment) {
        if inc.dim.kind() != D::KIND {
            return;
        }
        let day = self.days.entry(date_string(inc.day)).or_default();
        let key = day.capped(inc.dim, &inc.key);
        day.add(inc.dim, key, inc.n);
        self.totals
            .get_or_insert_with(D::default)
            .add(inc.dim, key, inc.n);
    }
}

/// Spec 2.3.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ViewsReport {
    pub total_views: u64,
    pub unique_views: u64,
    pub period: String,
    pub views_per_day: Series,
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
    pub clicks_per_day: Series,
}

#[derive(Deserialize)]
pub struct ViewsDayRead<'a> {
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
pub struct ClicksDayRead<'a> {
    #[serde(default)]
    clicks: u64,
    #[serde(borrow, default)]
    types: Counts<'a>,
}

impl Day for ViewsDay {
    const KIND: Kind = Kind::Views;
    type Read<'a> = ViewsDayRead<'a>;
    type Report = ViewsReport;

    fn add(&mut self, dim: Dimension, key: &str, n: u64) {
        match dim {
            Dimension::Device => {
                self.views += n;
                bump(&mut self.devices, key, n);
            }
            Dimension::Unique => self.unique += n,
            Dimension::Country => bump(&mut self.countries, key, n),
            Dimension::Referrer => bump(&mut self.referrers, key, n),
            Dimension::Type => {}
        }
    }

    fn capped<'k>(&self, dim: Dimension, key: &'k str) -> &'k str {
        if dim == Dimension::Referrer
            && self.referrers.len() >= MAX_REFERRERS_PER_DAY
            && !self.referrers.contains_key(key)
        {
            "other"
        } else {
            key
        }
    }

    fn counts(day: &ViewsDayRead) -> DayCounts {
        DayCounts {
            views: day.views,
            unique: day.unique,
            clicks: 0,
        }
    }

    fn add_counts(&mut self, counts: &DayCounts) {
        self.views += counts.views;
        self.unique += counts.unique;
    }

    fn add_breakdowns(&mut self, day: &ViewsDayRead) {
        merge(&mut self.devices, &day.devices);
        merge(&mut self.countries, &day.countries);
        merge(&mut self.referrers, &day.referrers);
    }

    fn into_report(self, period: &str, per_day: Series) -> ViewsReport {
        ViewsReport {
            total_views: self.views,
            unique_views: self.unique,
            period: period.to_string(),
            views_per_day: per_day,
            devices: self.devices,
            countries: self.countries,
            referrers: self.referrers,
        }
    }
}

impl Day for ClicksDay {
    const KIND: Kind = Kind::Clicks;
    type Read<'a> = ClicksDayRead<'a>;
    type Report = ClicksReport;

    fn add(&mut self, dim: Dimension, key: &str, n: u64) {
        if dim == Dimension::Type {
            self.clicks += n;
            bump(&mut self.types, key, n);
        }
    }

    fn counts(day: &ClicksDayRead) -> DayCounts {
        DayCounts {
            views: 0,
            unique: 0,
            clicks: day.clicks,
        }
    }

    fn add_counts(&mut self, counts: &DayCounts) {
        self.clicks += counts.clicks;
    }

    fn add_breakdowns(&mut self, day: &ClicksDayRead) {
        merge(&mut self.types, &day.types);
    }

    fn into_report(self, period: &str, per_day: Series) -> ClicksReport {
        ClicksReport {
            total_clicks: self.clicks,
            period: period.to_string(),
            clicks_by_type: self.types,
            clicks_per_day: per_day,
        }
    }
}

/// Folds pending increments into the month documents they touch. Each increment counts
/// for its card and for the account's totals. `existing` looks up a document's current
/// JSON body (`None`: not stored yet); the answer is the new body of every touched
/// document. Increments are applied in the order given, which decides which referrers
/// the per-day cap sends to `other`.
pub fn fold<E: From<serde_json::Error>>(
    account: i64,
    pending: &[Increment],
    mut existing: impl FnMut(&CounterKey) -> Result<Option<String>, E>,
) -> Result<Vec<(CounterKey, String)>, E> {
    let mut by_doc: BTreeMap<CounterKey, Vec<&Increment>> = BTreeMap::new();
    for inc in pending {
        for scope in [Scope::Card(inc.card), Scope::All] {
            let key = CounterKey {
                account,
                scope,
                kind: inc.dim.kind(),
                month: Month::of_day(inc.day),
            };
            by_doc.entry(key).or_default().push(inc);
        }
    }
    let mut out = Vec::with_capacity(by_doc.len());
    for (key, incs) in by_doc {
        let old = existing(&key)?;
        let body = match key.kind {
            Kind::Views => fold_doc::<ViewsDay>(old.as_deref(), &incs)?,
            Kind::Clicks => fold_doc::<ClicksDay>(old.as_deref(), &incs)?,
        };
        out.push((key, body));
    }
    Ok(out)
}

fn fold_doc<D: Day>(old: Option<&str>, incs: &[&Increment]) -> serde_json::Result<String> {
    // An unreadable stored body starts over rather than blocking every later flush.
    let mut doc: MonthDoc<D> = old
        .and_then(|body| serde_json::from_str(body).ok())
        .unwrap_or_default();
    for inc in incs {
        doc.apply(inc);
    }
    serde_json::to_string(&doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::analytics::testing::inc;
    use crate::domain::time::days_from_civil;

    #[test]
    fn referrer_keys_are_capped_per_day() {
        let mut doc = MonthDoc::<ViewsDay>::default();
        for i in 0..(MAX_REFERRERS_PER_DAY + 10) {
            doc.apply(&inc(100, Dimension::Referrer, &format!("spam{i}.example")));
        }
        doc.apply(&inc(100, Dimension::Referrer, "spam0.example"));
        let day = &doc.days[&date_string(100)];
        assert_eq!(day.referrers.len(), MAX_REFERRERS_PER_DAY + 1);
        assert_eq!(day.referrers["other"], 10);
        assert_eq!(day.referrers["spam0.example"], 2);
    }

    #[test]
    fn documents_ignore_increments_of_the_other_kind() {
        let mut views = MonthDoc::<ViewsDay>::default();
        views.apply(&inc(100, Dimension::Type, "email"));
        assert_eq!(views, MonthDoc::default());
        let mut clicks = MonthDoc::<ClicksDay>::default();
        for dim in [
            Dimension::Device,
            Dimension::Unique,
            Dimension::Country,
            Dimension::Referrer,
        ] {
            clicks.apply(&inc(100, dim, "x"));
        }
        assert_eq!(clicks, MonthDoc::default());
    }

    #[test]
    fn fold_writes_card_and_account_documents_per_month() {
        let nov = days_from_civil(2026, 11, 1);
        let existing_key = "a/7/all/views/2026-11";
        let mut old = MonthDoc::<ViewsDay>::default();
        old.apply(&Increment {
            card: 9,
            ..inc(nov, Dimension::Device, "desktop")
        });
        let old = serde_json::to_string(&old).unwrap();
        let pending = [
            inc(nov, Dimension::Device, "mobile"),
            inc(nov, Dimension::Unique, ""),
            inc(nov - 1, Dimension::Device, "tablet"),
            Increment {
                n: 3,
                ..inc(nov, Dimension::Type, "email")
            },
        ];
        let mut asked = Vec::new();
        let out = fold(7, &pending, |key| {
            asked.push(key.to_string());
            Ok::<_, serde_json::Error>((key.to_string() == existing_key).then(|| old.clone()))
        })
        .unwrap();
        let mut keys: Vec<String> = out.iter().map(|(k, _)| k.to_string()).collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "a/7/all/clicks/2026-11",
                "a/7/all/views/2026-10",
                "a/7/all/views/2026-11",
                "a/7/c/1/clicks/2026-11",
                "a/7/c/1/views/2026-10",
                "a/7/c/1/views/2026-11",
            ]
        );
        asked.sort();
        assert_eq!(asked, keys, "each document looked up once");
        let body = |k: &str| &out.iter().find(|(key, _)| key.to_string() == k).unwrap().1;
        let all: MonthDoc<ViewsDay> = serde_json::from_str(body(existing_key)).unwrap();
        let t = all.totals.as_ref().unwrap();
        assert_eq!(
            (t.views, t.unique),
            (2, 1),
            "totals continue the stored ones"
        );
        let day = &all.days[&date_string(nov)];
        assert_eq!(day.views, 2, "added to the stored day");
        assert_eq!(day.devices["desktop"], 1);
        assert_eq!(day.devices["mobile"], 1);
        let card: MonthDoc<ViewsDay> = serde_json::from_str(body("a/7/c/1/views/2026-11")).unwrap();
        assert_eq!(card.days[&date_string(nov)].views, 1);
        let clicks: MonthDoc<ClicksDay> =
            serde_json::from_str(body("a/7/c/1/clicks/2026-11")).unwrap();
        assert_eq!(clicks.days[&date_string(nov)].types["email"], 3);
        assert_eq!(clicks.totals.unwrap().clicks, 3);
        let oct: MonthDoc<ViewsDay> = serde_json::from_str(body("a/7/c/1/views/2026-10")).unwrap();
        assert_eq!(oct.days.keys().collect::<Vec<_>>(), ["2026-10-31"]);
    }

    #[test]
    fn fold_restarts_unreadable_documents_and_passes_lookup_errors_on() {
        let out = fold(1, &[inc(100, Dimension::Type, "vcard")], |_| {
            Ok::<_, serde_json::Error>(Some("not json".into()))
        })
        .unwrap();
        for (_, body) in &out {
            let doc: MonthDoc<ClicksDay> = serde_json::from_str(body).unwrap();
            assert_eq!(doc.totals.unwrap().clicks, 1);
        }
        let failed = fold(1, &[inc(100, Dimension::Type, "vcard")], |_| {
            serde_json::from_str::<Option<String>>("{")
        });
        assert!(failed.is_err());
        assert!(
            fold(1, &[], |_| -> serde_json::Result<_> { unreachable!() })
                .unwrap()
                .is_empty()
        );
    }
}
