//! Report windows: the periods of spec 4.1, their UTC days and the calendar months they
//! span (a month is the span of one counter document).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::domain::time::{civil_from_days, date_bytes, days_from_civil};

/// Periods of spec 4.1, in days.
pub const PERIODS: [(&str, i64); 5] = [
    ("7d", 7),
    ("14d", 14),
    ("30d", 30),
    ("90d", 90),
    ("365d", 365),
];
pub const DEFAULT_PERIOD: &str = "30d";

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

    /// A `YYYY-MM` text, exactly as [`Display`](fmt::Display) prints it.
    pub fn parse(text: &str) -> Option<Month> {
        let b = text.as_bytes();
        if b.len() != 7
            || b[4] != b'-'
            || !b
                .iter()
                .enumerate()
                .all(|(i, c)| i == 4 || c.is_ascii_digit())
        {
            return None;
        }
        let year = text[..4].parse().ok()?;
        let month = text[5..].parse().ok()?;
        (1..=12).contains(&month).then_some(Month { year, month })
    }
}

/// As its `YYYY-MM` text: the month keys of a history document.
impl Serialize for Month {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Month {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Month, D::Error> {
        // Through `String`: its deserializer is in the wasm already (map keys everywhere).
        let text = String::deserialize(d)?;
        Month::parse(&text).ok_or_else(|| serde::de::Error::custom("not a YYYY-MM month"))
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

/// The first day (days since the epoch) of a month.
pub fn first_day(m: Month) -> i64 {
    days_from_civil(m.year, m.month, 1)
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

    pub(super) fn index(&self, date: &str) -> Option<usize> {
        let day = parse_date(date)?;
        usize::try_from(day - self.first_day)
            .ok()
            .filter(|&i| i < self.counts.len())
    }

    pub(super) fn slot(&mut self, date: &str) -> Option<&mut u64> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::date_string;
    use crate::domain::time::days_from_civil;
    use std::collections::BTreeMap;

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
}
