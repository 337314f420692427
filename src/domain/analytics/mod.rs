//! Analytics rules: periods, referrer keys, the events the public pages send, the KV layout
//! of the counters, the fold of pending counts into month documents and the reports of
//! spec 2.3 / 2.4.
//!
//! Counters live in KV as one JSON document per (account, scope, kind, calendar month),
//! where scope is `all` (the account's totals) or a card id. A report over any period
//! therefore reads at most 13 documents (365 days span at most 13 months), whatever the
//! number of cards or days.
//!
//! By concern: [`window`] (periods, days, months), [`keys`] (the KV keys and the type each
//! holds), [`event`] (what the public pages count), [`doc`] (month documents and the
//! aggregator's fold), [`history`] (the summaries of settled months) and [`report`].

pub mod doc;
pub mod event;
pub mod history;
pub mod keys;
pub mod report;
pub mod window;

pub use doc::{
    fold, ClicksDay, ClicksReport, Day, DayCounts, MonthDoc, ViewsDay, ViewsReport,
    MAX_REFERRERS_PER_DAY,
};
pub use event::{country_key, referrer_key, Dimension, Event, Increment};
pub use history::{history_keep_from, summarizable, summarize, History};
pub use keys::{CounterKey, DocText, HistoryKey, Kind, KvKey, KvValue, Scope};
pub use report::report;
pub use window::{months, period_days, window, Month, Series, DEFAULT_PERIOD, PERIODS};

#[cfg(test)]
pub(crate) mod testing {
    use super::{Dimension, Increment};

    pub fn inc(day: i64, dim: Dimension, key: &str) -> Increment {
        Increment {
            card: 1,
            day,
            dim,
            key: key.into(),
            n: 1,
        }
    }
}
