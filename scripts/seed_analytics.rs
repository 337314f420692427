//! A year of made-up views and clicks for `make seed`, as the KV counter documents the
//! `AnalyticsAggregator` would have written: built by the same `domain::analytics::fold`,
//! so the documents cannot drift from what the worker reads.
//!
//!     cargo run --example seed-analytics -- <account> <card>... > docs.json
//!
//! Prints a `wrangler kv bulk put` file. Only months before the current one: the current
//! month's documents belong to the running aggregator, which would overwrite them.

use std::time::{SystemTime, UNIX_EPOCH};

use cardapi::domain::analytics::{fold, Event, Increment, Month};
use cardapi::domain::useragent::Device;

/// Counter documents live as long as the aggregator lets them (its KV_TTL_S).
const TTL_S: u64 = 400 * 86_400;

const COUNTRIES: [(&str, u32); 10] = [
    ("DE", 24),
    ("US", 18),
    ("GB", 12),
    ("FR", 9),
    ("NL", 7),
    ("ES", 6),
    ("IT", 6),
    ("PL", 5),
    ("AT", 4),
    ("XX", 3),
];
const REFERRERS: [(&str, u32); 6] = [
    ("direct", 45),
    ("linkedin.com", 22),
    ("google.com", 12),
    ("x.com", 7),
    ("instagram.com", 5),
    ("mail.google.com", 4),
];
const DEVICES: [(Device, u32); 3] = [
    (Device::Mobile, 61),
    (Device::Desktop, 31),
    (Device::Tablet, 8),
];
const CLICKS: [(&str, u32); 6] = [
    ("email", 30),
    ("phone", 22),
    ("website", 20),
    ("vcard", 14),
    ("social_linkedin", 10),
    ("booking", 4),
];

/// A small deterministic generator: the same seed gives the same year.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }

    fn pick<T: Copy>(&mut self, weighted: &[(T, u32)]) -> T {
        let total: u32 = weighted.iter().map(|(_, w)| w).sum();
        let mut at = self.below(total);
        for (value, weight) in weighted {
            if at < *weight {
                return *value;
            }
            at -= weight;
        }
        weighted[0].0
    }
}

fn main() {
    let args: Vec<i64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().unwrap_or_else(|_| panic!("not an id: {a}")))
        .collect();
    let [account, cards @ ..] = args.as_slice() else {
        panic!("usage: seed-analytics <account> <card>...");
    };
    let now_s = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let today = now_s / 86_400;
    let this_month = Month::of_day(today);

    let mut rng = Rng(0x5eed ^ *account as u64);
    let mut pending: Vec<Increment> = Vec::new();
    for (i, &card) in cards.iter().enumerate() {
        // Cards differ in reach; every card grows over the year.
        let reach = 6 + 5 * (cards.len() - i) as u32;
        for day in today - 364..today {
            if Month::of_day(day) == this_month {
                break;
            }
            let weekday = (day + 3).rem_euclid(7); // 0 = Monday
            let age = (day - (today - 364)) as u32;
            let mut views = reach * (100 + age / 3) / 100;
            if weekday >= 5 {
                views /= 3;
            }
            views = views * (70 + rng.below(60)) / 100;
            for v in 0..views {
                let event = Event::View {
                    account: *account,
                    card,
                    day,
                    visitor: String::new(),
                    device: rng.pick(&DEVICES),
                    country: rng.pick(&COUNTRIES).to_string(),
                    referrer: rng.pick(&REFERRERS).to_string(),
                };
                // About one view in four is a returning visitor.
                pending.extend(event.increments(v % 4 != 3));
            }
            for _ in 0..views / 5 {
                let click = Event::Click {
                    account: *account,
                    card,
                    day,
                    click_type: rng.pick(&CLICKS).to_string(),
                };
                pending.extend(click.increments(false));
            }
        }
    }
    let docs = fold(*account, &pending, |_| Ok::<_, serde_json::Error>(None))
        .unwrap_or_else(|e| panic!("fold: {e}"));
    let out: Vec<serde_json::Value> = docs
        .into_iter()
        .map(|(key, body)| {
            serde_json::json!({"key": key.to_string(), "value": body, "expiration_ttl": TTL_S})
        })
        .collect();
    println!("{}", serde_json::Value::Array(out));
}
