//! Analytics rules: periods, referrer keys, the events the public pages send, the KV layout
//! of the counters, the fold of pending counts into month documents and the reports of
//! spec 2.3 / 2.4.
//!
//! Counters live in KV as one JSON document per (account, scope, kind, calendar month),
//! where scope is `all` (the account's totals) or a card id. A report over any period
//! therefore reads at most 13 documents (365 days span at most 13 months), whatever the
//! number of cards or days.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::time::{civil_from_days, date_bytes, date_string, days_from_civil};
use super::useragent::Device;

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

/// A UTC calendar month: the span of one counter document. Field order makes the derived
/// ordering chronological.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    pub year: i64,
    pub month: u32,
}

impl Month {
    pub fn of_day(day: i64) -> Month {
        let (year, month, _) = civil_from_days(day);
        Month { year, month }
    }
}

/// `YYYY-MM`, as in KV keys and the aggregator's `docs.month`, whose pruning compares
/// these strings: zero padding keeps their order chronological.
impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// Distinct months of a window, oldest first.
pub fn months(today: i64, days: i64) -> Vec<Month> {
    let mut out: Vec<Month> = Vec::new();
    for day in window(today, days) {
        let m = Month::of_day(day);
        if out.last() != Some(&m) {
            out.push(m);
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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

    /// The stored text form; anything else is not a kind.
    pub fn parse(s: &str) -> Option<Kind> {
        [Kind::Views, Kind::Clicks]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// What one pending count is counted under. The text forms are those of the aggregator's
/// `pending` table, so rows written by earlier versions still fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dimension {
    /// Views by device; every view has exactly one, so it also carries the view total.
    Device,
    Country,
    Referrer,
    /// First view of a card by a visitor on a day; its key is empty.
    Unique,
    /// Clicks by type (`email`, `vcard`, `social_<platform>`, ...).
    Type,
}

impl Dimension {
    pub const ALL: [Dimension; 5] = [
        Dimension::Device,
        Dimension::Country,
        Dimension::Referrer,
        Dimension::Unique,
        Dimension::Type,
    ];

    pub fn kind(self) -> Kind {
        match self {
            Dimension::Device | Dimension::Country | Dimension::Referrer | Dimension::Unique => {
                Kind::Views
            }
            Dimension::Type => Kind::Clicks,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Device => "device",
            Dimension::Country => "country",
            Dimension::Referrer => "referrer",
            Dimension::Unique => "unique",
            Dimension::Type => "type",
        }
    }

    /// A stored (`kind`, `dim`) pair. `None` when either is unknown or the two do not
    /// belong together, so a damaged row is never counted as something else.
    pub fn parse(kind: &str, dim: &str) -> Option<Dimension> {
        let kind = Kind::parse(kind)?;
        Dimension::ALL
            .into_iter()
            .find(|d| d.as_str() == dim && d.kind() == kind)
    }
}

/// Whose counters a document holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// The account's totals over all its cards.
    All,
    Card(i64),
}

/// `None` (no card asked for) is the account-wide scope.
impl From<Option<i64>> for Scope {
    fn from(card: Option<i64>) -> Scope {
        card.map_or(Scope::All, Scope::Card)
    }
}

/// The KV key of one counter document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CounterKey {
    pub account: i64,
    pub scope: Scope,
    pub kind: Kind,
    pub month: Month,
}

impl CounterKey {
    /// The keys of the documents covering a report window, oldest month first.
    pub fn for_window(
        account: i64,
        scope: Scope,
        kind: Kind,
        today: i64,
        days: i64,
    ) -> Vec<CounterKey> {
        months(today, days)
            .into_iter()
            .map(|month| CounterKey {
                account,
                scope,
                kind,
                month,
            })
            .collect()
    }
}

/// `a/{account}/c/{card}/{kind}/{YYYY-MM}` or `a/{account}/all/{kind}/{YYYY-MM}`: the keys
/// of stored documents, so this text must never change.
impl fmt::Display for CounterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (account, kind, month) = (self.account, self.kind.as_str(), self.month);
        match self.scope {
            Scope::Card(card) => write!(f, "a/{account}/c/{card}/{kind}/{month}"),
            Scope::All => write!(f, "a/{account}/all/{kind}/{month}"),
        }
    }
}

/// The summaries of a scope's settled months, kept together in one document
/// (`a/{account}/all/{kind}/history`, or the card's): a summary is a month's per-day counts
/// and its totals, without the per-day breakdowns (~1.5 KB instead of ~11.5 KB). A report
/// uses it for a month that lies wholly inside its window and ended before yesterday's
/// month, which no event can change any more (events carry the day they happened, today
/// or, near midnight, yesterday). One document instead of one per month: a 365-day report
/// then reads three keys (this one and the two months at the window's edges), not thirteen.
impl CounterKey {
    pub fn history_key(&self) -> String {
        let (account, kind) = (self.account, self.kind.as_str());
        match self.scope {
            Scope::Card(card) => format!("a/{account}/c/{card}/{kind}/history"),
            Scope::All => format!("a/{account}/all/{kind}/history"),
        }
    }
}

/// A history document is text, one line per month: `YYYY-MM <summary JSON>` (a summary
/// is printed on one line). Not JSON: reading it is a split, where a JSON reader of its own
/// would cost wasm size the budget does not have.
///
/// The summaries it holds, as (month, summary); lines that are not of that shape are
/// skipped (their months are then read in full and written again).
pub fn history_months(text: Option<&str>) -> Vec<(String, String)> {
    text.unwrap_or_default()
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(m, summary)| m.len() == 7 && summary.starts_with('{'))
        .map(|(m, summary)| (m.to_string(), summary.to_string()))
        .collect()
}

/// The history document with `added` summaries (months it lacked) joined to those it held;
/// months before `keep_from` are dropped (no report reaches back to them).
pub fn history_with(
    held: &[(String, String)],
    added: &[(Month, String)],
    keep_from: Month,
) -> String {
    let keep_from = keep_from.to_string();
    let added: Vec<(String, &String)> = added.iter().map(|(m, s)| (m.to_string(), s)).collect();
    let mut body = String::new();
    let pairs = held
        .iter()
        .map(|(m, s)| (m, s))
        .chain(added.iter().map(|(m, s)| (m, *s)));
    for (m, summary) in pairs.filter(|(m, _)| **m >= keep_from) {
        body.push_str(m);
        body.push(' ');
        body.push_str(summary);
        body.push('\n');
    }
    body
}

/// The oldest month a history keeps: the first month of the longest report window.
pub fn history_keep_from(today: i64) -> Month {
    Month::of_day(today - 364)
}

/// The first day (days since the epoch) of a month.
fn first_day(m: Month) -> i64 {
    super::time::days_from_civil(m.year, m.month, 1)
}

/// Which documents a report over `days` up to `today` reads: per month, oldest first,
/// whether its summary stands in for the full document.
pub fn summarizable(today: i64, days: i64) -> Vec<(Month, bool)> {
    let start = *window(today, days).start();
    let settled_before = Month::of_day(today - 1);
    months(today, days)
        .into_iter()
        .map(|m| (m, m < settled_before && first_day(m) >= start))
        .collect()
}

/// The summary of a full month document; `None` when it has no totals (written before
/// they existed) or does not parse, so the full document keeps being read.
pub fn summarize(full: &str) -> Option<String> {
    let doc: serde_json::Value = serde_json::from_str(full).ok()?;
    let totals = doc.get("totals").filter(|t| t.is_object())?;
    let mut days = serde_json::Map::new();
    for (date, day) in doc.get("days")?.as_object()? {
        let mut counts = serde_json::Map::new();
        for field in ["views", "unique", "clicks"] {
            if let Some(n) = day.get(field).filter(|n| n.is_u64()) {
                counts.insert(field.to_string(), n.clone());
            }
        }
        days.insert(date.clone(), serde_json::Value::Object(counts));
    }
    let mut out = serde_json::Map::new();
    out.insert("days".into(), serde_json::Value::Object(days));
    out.insert("totals".into(), totals.clone());
    serde_json::to_string(&out).ok()
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

/// An event as the worker sends it to the account's aggregator after answering the
/// visitor. The JSON (`{"kind":"view",...}`, `{"kind":"click","type":...}`) is what the
/// aggregator decodes, so workers and objects of neighbouring versions understand each
/// other during a deploy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Event {
    View {
        account: i64,
        card: i64,
        day: i64,
        /// Salted hash of IP and User-Agent; the raw values never leave the worker.
        visitor: String,
        device: Device,
        country: String,
        referrer: String,
    },
    Click {
        account: i64,
        card: i64,
        day: i64,
        #[serde(rename = "type")]
        click_type: String,
    },
}

impl Event {
    /// The account whose aggregator counts the event.
    pub fn account(&self) -> i64 {
        match self {
            Event::View { account, .. } | Event::Click { account, .. } => *account,
        }
    }

    /// The counts the event adds. `first_visit` (the visitor's first view of the card that
    /// day) is known only to the aggregator; clicks ignore it.
    pub fn increments(&self, first_visit: bool) -> Vec<Increment> {
        let one = |card: i64, day: i64, dim: Dimension, key: &str| Increment {
            card,
            day,
            dim,
            key: key.to_string(),
            n: 1,
        };
        match self {
            Event::View {
                card,
                day,
                device,
                country,
                referrer,
                ..
            } => {
                let mut out = Vec::with_capacity(4);
                if first_visit {
                    out.push(one(*card, *day, Dimension::Unique, ""));
                }
                out.push(one(*card, *day, Dimension::Device, device.as_str()));
                out.push(one(*card, *day, Dimension::Country, country));
                out.push(one(*card, *day, Dimension::Referrer, referrer));
                out
            }
            Event::Click {
                card,
                day,
                click_type,
                ..
            } => vec![one(*card, *day, Dimension::Type, click_type)],
        }
    }
}

/// One pending increment as the aggregator accumulates it; its kind is its dimension's.
#[derive(Debug, Clone, PartialEq)]
pub struct Increment {
    pub card: i64,
    pub day: i64,
    pub dim: Dimension,
    pub key: String,
    pub n: u64,
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

/// Adds `n` under `key`, allocating the key only when it is new.
fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
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
    fn headline(&self, kind: Kind) -> u64 {
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

/// A report's per-day counts: one slot per day of the window, oldest first. Serialised as
/// the spec's `{"YYYY-MM-DD": n, ...}` object, in date order. Slots, not a map keyed by
/// date text: a 365-day report made 365 date strings and looked each stored day up by
/// string comparison, most of its cost in wasm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    first_day: i64,
    counts: Vec<u64>,
}

impl Series {
    /// Zero for every day of the window.
    pub fn zeros(today: i64, days: i64) -> Series {
        let window = window(today, days);
        Series {
            first_day: *window.start(),
            counts: vec![0; window.count()],
        }
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The count of a `YYYY-MM-DD` day; `None` outside the window.
    pub fn get(&self, date: &str) -> Option<u64> {
        self.index(date).map(|i| self.counts[i])
    }

    /// The days and their counts, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        (self.first_day..).zip(self.counts.iter().copied())
    }

    fn index(&self, date: &str) -> Option<usize> {
        let day = parse_date(date)?;
        usize::try_from(day - self.first_day)
            .ok()
            .filter(|&i| i < self.counts.len())
    }

    fn slot(&mut self, date: &str) -> Option<&mut u64> {
        let i = self.index(date)?;
        self.counts.get_mut(i)
    }
}

/// The day number of a `YYYY-MM-DD` date, checked to be that date's own text (so
/// `2026-02-30` or `2026-1-05` is no day, as it was no key of the old map).
fn parse_date(date: &str) -> Option<i64> {
    let b = date.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |n, &c| {
            c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
        })
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let day = days_from_civil(i64::from(y), m, d);
    (civil_from_days(day) == (i64::from(y), m, d)).then_some(day)
}

impl Serialize for Series {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.counts.len()))?;
        for (day, n) in self.iter() {
            let text = date_bytes(day);
            // ASCII digits and dashes: always UTF-8.
            let key = std::str::from_utf8(&text).unwrap_or_default();
            map.serialize_entry(key, &n)?;
        }
        map.end()
    }
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
    use crate::domain::time::days_from_civil;

    fn inc(day: i64, dim: Dimension, key: &str) -> Increment {
        Increment {
            card: 1,
            day,
            dim,
            key: key.into(),
            n: 1,
        }
    }

    #[test]
    fn summaries_stand_in_only_for_settled_months_inside_the_window() {
        let today = days_from_civil(2026, 11, 23);
        let plan = summarizable(today, 365);
        let shown: Vec<(String, bool)> = plan.iter().map(|(m, s)| (m.to_string(), *s)).collect();
        assert_eq!(
            shown.first(),
            Some(&("2025-11".to_string(), false)),
            "partial: starts on the 24th"
        );
        assert_eq!(shown[1], ("2025-12".to_string(), true));
        assert_eq!(shown[10], ("2026-09".to_string(), true));
        assert_eq!(
            shown[11],
            ("2026-10".to_string(), true),
            "no event can reach October now"
        );
        assert_eq!(shown[12], ("2026-11".to_string(), false));
        assert!(summarizable(today, 30).iter().all(|(_, s)| !s));
        // On the 1st, yesterday is in the previous month: that one is not settled yet.
        let first = days_from_civil(2026, 12, 1);
        let plan = summarizable(first, 365);
        assert!(!plan[plan.len() - 2].1);
        assert!(plan[plan.len() - 3].1, "{plan:?}");
        assert_eq!(
            CounterKey {
                account: 1,
                scope: Scope::All,
                kind: Kind::Views,
                month: Month {
                    year: 2025,
                    month: 12
                }
            }
            .history_key(),
            "a/1/all/views/history"
        );
        assert_eq!(
            CounterKey {
                account: 1,
                scope: Scope::Card(7),
                kind: Kind::Clicks,
                month: Month {
                    year: 2025,
                    month: 12
                }
            }
            .history_key(),
            "a/1/c/7/clicks/history"
        );
    }

    #[test]
    fn a_history_keeps_summaries_by_month_and_forgets_the_oldest() {
        let m = |year, month| Month { year, month };
        assert!(history_months(None).is_empty());
        assert!(history_months(Some("not json")).is_empty());
        let first = history_with(
            &[],
            &[
                (m(2025, 11), r#"{"days":{},"totals":{"views":1}}"#.into()),
                (m(2025, 12), r#"{"days":{},"totals":{"views":2}}"#.into()),
            ],
            m(2025, 11),
        );
        let held = history_months(Some(&first));
        let months = |h: &[(String, String)]| h.iter().map(|(m, _)| m.clone()).collect::<Vec<_>>();
        assert_eq!(months(&held), ["2025-11", "2025-12"], "{first}");
        assert_eq!(held[1].1, r#"{"days":{},"totals":{"views":2}}"#);
        // A month added later joins; one before the kept window goes.
        let second = history_with(
            &held,
            &[(m(2026, 1), r#"{"days":{},"totals":{"views":3}}"#.into())],
            m(2025, 12),
        );
        let held = history_months(Some(&second));
        assert_eq!(months(&held), ["2025-12", "2026-01"]);
        assert!(
            history_months(Some("2025-12\n2025-13 x\n")).is_empty(),
            "malformed lines"
        );
        assert_eq!(
            history_keep_from(days_from_civil(2026, 11, 23)),
            m(2025, 11),
            "the first month of a 365-day window"
        );
    }

    #[test]
    fn a_summary_reports_exactly_as_its_month_does() {
        let (y, m) = (2026, 3);
        let days: Vec<i64> = (1..=31).map(|d| days_from_civil(y, m, d)).collect();
        let mut incs = Vec::new();
        for (i, day) in days.iter().enumerate() {
            incs.push(inc(
                *day,
                Dimension::Device,
                if i % 3 == 0 { "mobile" } else { "desktop" },
            ));
            incs.push(inc(*day, Dimension::Country, "DE"));
            incs.push(inc(*day, Dimension::Referrer, "direct"));
            if i % 2 == 0 {
                incs.push(inc(*day, Dimension::Unique, ""));
            }
            incs.push(inc(*day, Dimension::Type, "email"));
        }
        let docs = fold(1, &incs, |_| Ok::<_, serde_json::Error>(None)).unwrap();
        let today = days_from_civil(2026, 11, 23);
        for kind in [Kind::Views, Kind::Clicks] {
            let full = docs
                .iter()
                .find(|(k, _)| k.scope == Scope::All && k.kind == kind)
                .map(|(_, b)| b.clone())
                .unwrap();
            let summary = summarize(&full).expect("a document with totals");
            assert!(
                summary.len() < full.len(),
                "{} vs {}",
                summary.len(),
                full.len()
            );
            match kind {
                Kind::Views => assert_eq!(
                    report::<ViewsDay>(&[summary], today, "365d", 365),
                    report::<ViewsDay>(&[full], today, "365d", 365)
                ),
                Kind::Clicks => assert_eq!(
                    report::<ClicksDay>(&[summary], today, "365d", 365),
                    report::<ClicksDay>(&[full], today, "365d", 365)
                ),
            }
        }
        assert_eq!(
            summarize(r#"{"days":{}}"#),
            None,
            "no totals: read the full document"
        );
        assert_eq!(summarize("not json"), None);
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
            assert_eq!(ms.last().unwrap().to_string(), format!("{y:04}-{m:02}"));
            assert_eq!(months(today, 7).len(), if d < 7 { 2 } else { 1 });
        }
    }

    #[test]
    fn months_print_padded_and_order_by_time() {
        let m = |y, mo| Month { year: y, month: mo };
        assert_eq!(m(2026, 3).to_string(), "2026-03");
        assert_eq!(m(987, 11).to_string(), "0987-11");
        assert_eq!(Month::of_day(days_from_civil(2024, 2, 29)), m(2024, 2));
        assert_eq!(Month::of_day(0), m(1970, 1));
        let mut ms = vec![m(2026, 1), m(2025, 12), m(2025, 2), m(2026, 11)];
        ms.sort();
        assert_eq!(ms, [m(2025, 2), m(2025, 12), m(2026, 1), m(2026, 11)]);
        // The aggregator prunes by comparing the text: it must sort the same way.
        let texts: Vec<String> = ms.iter().map(Month::to_string).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
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
        let month = Month {
            year: 2026,
            month: 11,
        };
        let key = |scope, kind| CounterKey {
            account: 7,
            scope,
            kind,
            month,
        };
        assert_eq!(
            key(Scope::Card(3), Kind::Views).to_string(),
            "a/7/c/3/views/2026-11"
        );
        assert_eq!(
            key(Scope::All, Kind::Clicks).to_string(),
            "a/7/all/clicks/2026-11"
        );
        assert_eq!(Scope::from(Some(3)), Scope::Card(3));
        assert_eq!(Scope::from(None), Scope::All);
        let today = days_from_civil(2026, 11, 3);
        let keys: Vec<String> = CounterKey::for_window(7, Scope::Card(3), Kind::Clicks, today, 7)
            .iter()
            .map(CounterKey::to_string)
            .collect();
        assert_eq!(keys, ["a/7/c/3/clicks/2026-10", "a/7/c/3/clicks/2026-11"]);
    }

    #[test]
    fn stored_dimensions_parse_only_as_what_they_are() {
        for dim in Dimension::ALL {
            assert_eq!(
                Dimension::parse(dim.kind().as_str(), dim.as_str()),
                Some(dim)
            );
        }
        assert_eq!(Dimension::parse("views", "device"), Some(Dimension::Device));
        assert_eq!(Dimension::parse("clicks", "type"), Some(Dimension::Type));
        // Typos and mismatched pairs are not counted at all (the old fold made any
        // kind other than `clicks` a view).
        for (kind, dim) in [
            ("view", "device"),
            ("click", "type"),
            ("", "device"),
            ("Views", "device"),
            ("views", "type"),
            ("clicks", "device"),
            ("views", "devices"),
            ("views", ""),
        ] {
            assert_eq!(Dimension::parse(kind, dim), None, "{kind}/{dim}");
        }
    }

    #[test]
    fn events_keep_their_json_shape() {
        let view = Event::View {
            account: 7,
            card: 3,
            day: 20_000,
            visitor: "ab12".into(),
            device: Device::Tablet,
            country: "DE".into(),
            referrer: "direct".into(),
        };
        let json = serde_json::to_value(&view).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "view", "account": 7, "card": 3, "day": 20000,
                "visitor": "ab12", "device": "tablet", "country": "DE", "referrer": "direct"})
        );
        let click = Event::Click {
            account: 7,
            card: 3,
            day: 20_000,
            click_type: "social_linkedin".into(),
        };
        let text = r#"{"kind":"click","account":7,"card":3,"day":20000,"type":"social_linkedin"}"#;
        assert_eq!(serde_json::to_string(&click).unwrap(), text);
        assert_eq!(serde_json::from_str::<Event>(text).unwrap(), click);
        assert_eq!(
            serde_json::from_value::<Event>(json).unwrap(),
            view,
            "round trip"
        );
        for (name, device) in [
            ("mobile", Device::Mobile),
            ("tablet", Device::Tablet),
            ("desktop", Device::Desktop),
        ] {
            let text = format!(
                r#"{{"kind":"view","account":1,"card":2,"day":3,"visitor":"v","device":"{name}","country":"XX","referrer":"direct"}}"#
            );
            let e: Event = serde_json::from_str(&text).unwrap();
            assert!(matches!(e, Event::View { device: d, .. } if d == device));
        }
        assert_eq!(view.account(), 7);
        assert_eq!(click.account(), 7);
    }

    #[test]
    fn events_count_once_per_dimension() {
        let view = Event::View {
            account: 7,
            card: 3,
            day: 100,
            visitor: "v".into(),
            device: Device::Mobile,
            country: "DE".into(),
            referrer: "x.com".into(),
        };
        let dims = |incs: Vec<Increment>| {
            incs.into_iter()
                .map(|i| {
                    assert_eq!((i.card, i.day, i.n), (3, 100, 1));
                    (i.dim, i.key)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            dims(view.increments(true)),
            [
                (Dimension::Unique, String::new()),
                (Dimension::Device, "mobile".into()),
                (Dimension::Country, "DE".into()),
                (Dimension::Referrer, "x.com".into()),
            ]
        );
        assert_eq!(dims(view.increments(false)).len(), 3);
        let click = Event::Click {
            account: 7,
            card: 3,
            day: 100,
            click_type: "email".into(),
        };
        assert_eq!(
            dims(click.increments(true)),
            [(Dimension::Type, "email".into())]
        );
    }

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
    fn a_series_is_the_spec_object_of_dates_in_order() {
        let today = days_from_civil(2024, 3, 1);
        let mut series = Series::zeros(today, 3);
        *series.slot("2024-02-29").unwrap() += 5;
        let expected: BTreeMap<String, u64> = [(today - 2, 0), (today - 1, 5), (today, 0)]
            .into_iter()
            .map(|(d, n)| (date_string(d), n))
            .collect();
        assert_eq!(
            serde_json::to_string(&series).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
        for not_a_day in [
            "2024-02-30",
            "2024-2-29",
            "2024-02-2x",
            "20240229",
            "2024-03-02",
        ] {
            assert_eq!(series.get(not_a_day), None, "{not_a_day}");
        }
        assert_eq!(parse_date("0001-01-01"), Some(days_from_civil(1, 1, 1)));
        assert_eq!(date_bytes(days_from_civil(9999, 12, 31)), *b"9999-12-31");
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
