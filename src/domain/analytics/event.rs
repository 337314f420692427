//! What the public pages count: the events a worker sends to the account's aggregator,
//! their referrer and country keys, and the pending increments an event adds.

use serde::{Deserialize, Serialize};

use super::keys::Kind;
use crate::domain::useragent::Device;

/// Longest referrer key kept (a host name is at most 253 characters).
const MAX_REFERRER_LEN: usize = 253;

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

/// `Referer` -> host without `www.`; `direct` when absent, unparsable or same-site.
pub fn referrer_key(referer: Option<&str>, own_host: &str) -> String {
    let host = referer.and_then(|r| crate::domain::weburl::parse_http(r.trim()).map(|u| u.host));
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
