//! The summaries of a scope's settled months, kept together in one history document.
//!
//! A summary is a month's per-day counts and its totals, without the per-day breakdowns
//! (~1.5 KB instead of ~11.5 KB). A report uses it for a month that lies wholly inside its
//! window and ended before yesterday's month, which no event can change any more (events
//! carry the day they happened, today or, near midnight, yesterday). One document instead
//! of one per month: a 365-day report then reads three keys (the history and the two
//! months at the window's edges), not thirteen. Readers write it (`store::analytics`),
//! adding the months it lacked; the aggregator never does.

use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::keys::{HistoryKey, KvKey, KvValue};
use super::window::{first_day, months, window, Month};

/// A history document: `{"months":{"YYYY-MM":{summary},...}}`. A summary is kept as the
/// JSON text [`report`](super::report) reads like any month document, so it is checked to
/// be JSON here and read once, there.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct History {
    months: Months,
}

/// The summaries by month, oldest first, one per month; a JSON object keyed `YYYY-MM`.
/// A sorted list, not a `BTreeMap`: it holds at most 13 months, and the map's code
/// (insert, split, drop for a new key and value type) cost ~4 KB of gzipped wasm.
#[derive(Debug, Default)]
struct Months(Vec<(Month, Box<RawValue>)>);

impl Serialize for Months {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(m, summary)| (m, summary)))
    }
}

impl<'de> Deserialize<'de> for Months {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Months, D::Error> {
        struct MonthsVisitor;
        impl<'de> Visitor<'de> for MonthsVisitor {
            type Value = Months;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("summaries by month")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Months, A::Error> {
                let mut months = Months::default();
                while let Some((month, summary)) = map.next_entry()? {
                    months.insert(month, summary);
                }
                Ok(months)
            }
        }
        d.deserialize_map(MonthsVisitor)
    }
}

impl Months {
    /// Holds `summary` for `month`, in its place; a month held already takes the new one.
    fn insert(&mut self, month: Month, summary: Box<RawValue>) {
        let at = self.0.partition_point(|(m, _)| *m < month);
        match self.0.get_mut(at) {
            Some(held) if held.0 == month => held.1 = summary,
            _ => self.0.insert(at, (month, summary)),
        }
    }
}

impl History {
    /// The document stored as `text`. Histories written before this format are text, one
    /// line per month, `YYYY-MM {summary}`; they are still read (and replaced by this
    /// format the next time a reader adds a month). What reads as neither is an empty
    /// history: its months are then read in full and the history written again.
    pub fn read(text: &str) -> History {
        if text.starts_with('{') {
            return serde_json::from_str(text).unwrap_or_default();
        }
        let mut history = History::default();
        for (m, summary) in text.lines().filter_map(|line| line.split_once(' ')) {
            if let Some(month) = Month::parse(m) {
                history.insert(month, summary.to_string());
            }
        }
        history
    }

    /// The months held, oldest first.
    pub fn months(&self) -> impl Iterator<Item = Month> + '_ {
        self.months.0.iter().map(|(m, _)| *m)
    }

    /// The summary of `month`, if held.
    pub fn get(&self, month: Month) -> Option<&str> {
        let held = self.months.0.iter().find(|(m, _)| *m == month);
        held.map(|(_, summary)| summary.get())
    }

    /// Holds `summary` for `month`, if it is JSON.
    fn insert(&mut self, month: Month, summary: String) {
        if let Ok(summary) = RawValue::from_string(summary) {
            self.months.insert(month, summary);
        }
    }

    /// Adds `added` summaries (months it lacked) and drops the months before `keep_from`
    /// (no report reaches back to them). A summary that is not JSON is not added.
    pub fn add(&mut self, added: Vec<(Month, String)>, keep_from: Month) {
        for (month, summary) in added {
            self.insert(month, summary);
        }
        self.months.0.retain(|(m, _)| *m >= keep_from);
    }
}

impl KvValue for History {
    fn decode(text: String) -> Self {
        History::read(&text)
    }

    fn encode(&self) -> String {
        // Months and JSON values only: nothing here can fail to serialise.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl KvKey for HistoryKey {
    type Value = History;
}

/// The oldest month a history keeps: the first month of the longest report window.
pub fn history_keep_from(today: i64) -> Month {
    Month::of_day(today - 364)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::analytics::testing::inc;
    use crate::domain::analytics::KvValue;
    use crate::domain::analytics::{fold, report, ClicksDay, Dimension, Kind, Scope, ViewsDay};
    use crate::domain::time::days_from_civil;

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
    }

    #[test]
    fn a_history_keeps_summaries_by_month_and_forgets_the_oldest() {
        let m = |year, month| Month { year, month };
        let months = |h: &History| h.months().map(|m| m.to_string()).collect::<Vec<_>>();
        assert_eq!(History::read("").months().count(), 0);
        assert_eq!(History::read("not json").months().count(), 0);
        assert_eq!(History::read("{not json").months().count(), 0);
        let mut first = History::default();
        first.add(
            vec![
                (m(2025, 11), r#"{"days":{},"totals":{"views":1}}"#.into()),
                (m(2025, 12), r#"{"days":{},"totals":{"views":2}}"#.into()),
                (m(2026, 2), "not json".into()),
            ],
            m(2025, 11),
        );
        let stored = first.encode();
        assert!(stored.starts_with(r#"{"months":{"2025-11":{"#), "{stored}");
        let mut held = History::decode(stored.clone());
        assert_eq!(months(&held), ["2025-11", "2025-12"], "{stored}");
        assert_eq!(
            held.get(m(2025, 12)),
            Some(r#"{"days":{},"totals":{"views":2}}"#)
        );
        // A month added later joins; one before the kept window goes.
        held.add(
            vec![(m(2026, 1), r#"{"days":{},"totals":{"views":3}}"#.into())],
            m(2025, 12),
        );
        let held = History::decode(held.encode());
        assert_eq!(months(&held), ["2025-12", "2026-01"]);
        assert_eq!(
            held.get(m(2026, 1)),
            Some(r#"{"days":{},"totals":{"views":3}}"#)
        );
        assert_eq!(held.get(m(2025, 11)), None, "dropped");
        // Kept oldest first and one per month, whatever the order of the stored object.
        let unordered =
            History::read(r#"{"months":{"2026-01":{"a":1},"2025-12":{"b":2},"2026-01":{"c":3}}}"#);
        assert_eq!(
            unordered.months().collect::<Vec<_>>(),
            [m(2025, 12), m(2026, 1)]
        );
        assert_eq!(unordered.get(m(2026, 1)), Some(r#"{"c":3}"#));
        assert_eq!(
            unordered.encode(),
            r#"{"months":{"2025-12":{"b":2},"2026-01":{"c":3}}}"#
        );
        assert!(
            History::read(r#"{"months":{"2025-13":{}}}"#)
                .months()
                .count()
                == 0,
            "not a month"
        );
        assert_eq!(
            history_keep_from(days_from_civil(2026, 11, 23)),
            m(2025, 11),
            "the first month of a 365-day window"
        );
    }

    /// Histories stored before the JSON document (deployed KV holds them for up to 400
    /// days) are read as they were: one `YYYY-MM {summary}` line per month.
    #[test]
    fn histories_of_the_line_format_still_read() {
        let m = |year, month| Month { year, month };
        let legacy = "2025-11 {\"days\":{},\"totals\":{\"views\":1}}\n\
                      2025-12 {\"days\":{\"2025-12-01\":{\"views\":2}},\"totals\":{\"views\":2}}\n";
        let held = History::decode(legacy.to_string());
        assert_eq!(
            held.months().collect::<Vec<_>>(),
            [m(2025, 11), m(2025, 12)]
        );
        assert_eq!(
            held.get(m(2025, 12)),
            Some(r#"{"days":{"2025-12-01":{"views":2}},"totals":{"views":2}}"#)
        );
        // Malformed lines are skipped, as before: their months are read in full again.
        let damaged = "2025-12\n2025-13 {}\n2025-10 {broken\n2025-09 {\"days\":{}}\n";
        assert_eq!(
            History::read(damaged).months().collect::<Vec<_>>(),
            [m(2025, 9)]
        );
        // The next write is the JSON document, with the legacy months kept.
        let mut held = held;
        held.add(vec![(m(2026, 1), r#"{"days":{}}"#.into())], m(2025, 11));
        let again = History::read(&held.encode());
        assert_eq!(again.months().count(), 3);
        assert_eq!(
            again.get(m(2025, 11)),
            Some(r#"{"days":{},"totals":{"views":1}}"#)
        );
        // A summary read from either format reports the same.
        let today = days_from_civil(2026, 11, 23);
        let from_lines = History::read(legacy).get(m(2025, 12)).map(str::to_string);
        let from_json = History::read(&History::read(legacy).encode())
            .get(m(2025, 12))
            .map(str::to_string);
        let (from_lines, from_json) = (from_lines.unwrap(), from_json.unwrap());
        assert_eq!(
            report::<ViewsDay>(&[from_lines], today, "365d", 365),
            report::<ViewsDay>(&[from_json], today, "365d", 365)
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
}
