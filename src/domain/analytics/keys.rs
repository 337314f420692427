//! Where counters live in KV: one document per (account, scope, kind, calendar month) and
//! one history per (account, scope, kind). Each key type names the type of what is stored
//! under it ([`KvKey::Value`]), so the store reads a key only as its own value.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::window::{months, Month};

/// A KV key and the type of the value stored under it. The store's reads and writes are
/// generic over it, so a history key answers a [`History`](super::History) and a month key a [`DocText`];
/// neither can be read as the other.
pub trait KvKey: fmt::Display {
    type Value: KvValue;
}

/// How a value is kept as KV text.
pub trait KvValue: Sized {
    fn decode(text: String) -> Self;
    fn encode(&self) -> String;
}

/// A month document as stored: JSON text that [`report`](super::report) reads in place,
/// borrowing from it, so it is kept as text rather than parsed on the way in. Its one
/// writer is the aggregator (`fold`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocText(pub String);

impl KvValue for DocText {
    fn decode(text: String) -> Self {
        DocText(text)
    }

    fn encode(&self) -> String {
        self.0.clone()
    }
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

impl KvKey for CounterKey {
    type Value = DocText;
}

impl CounterKey {
    /// The history of this document's scope and kind.
    pub fn history_key(&self) -> HistoryKey {
        HistoryKey {
            account: self.account,
            scope: self.scope,
            kind: self.kind,
        }
    }
}

/// The KV key of a scope's history document (see [`History`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HistoryKey {
    pub account: i64,
    pub scope: Scope,
    pub kind: Kind,
}

/// `a/{account}/all/{kind}/history` or `a/{account}/c/{card}/{kind}/history`: keys of
/// stored documents, so this text must never change.
impl fmt::Display for HistoryKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (account, kind) = (self.account, self.kind.as_str());
        match self.scope {
            Scope::Card(card) => write!(f, "a/{account}/c/{card}/{kind}/history"),
            Scope::All => write!(f, "a/{account}/all/{kind}/history"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::time::days_from_civil;

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
    fn histories_are_keyed_by_scope_and_kind() {
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
            .history_key()
            .to_string(),
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
            .history_key()
            .to_string(),
            "a/1/c/7/clicks/history"
        );
    }
}
