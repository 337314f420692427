//! Counting limits of the public surface (extensions.md 5): how often a bucket (a visitor
//! of a card, a card's day, an address guessing the admin token) may be hit in a window.
//! The `Throttle` Durable Object keeps the hits; what they mean is decided here.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::token::hex;

/// A window of time that hits count in.
// Externally tagged (`{"rolling": 60000}`): the cheapest enum form for serde to decode in
// wasm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Span {
    /// The last `ms` milliseconds, sliding.
    Rolling(i64),
    /// Fixed periods of `ms` aligned to the Unix epoch: for a day, the UTC calendar day.
    Calendar(i64),
}

pub const HOUR_MS: i64 = 3_600_000;
pub const MINUTE_MS: i64 = 60_000;
pub const DAY_MS: i64 = 86_400_000;

impl Span {
    /// The instant a hit made at `at` stops counting.
    pub fn expiry(self, at: i64) -> i64 {
        match self {
            Span::Rolling(ms) => at + ms.max(1),
            Span::Calendar(ms) => {
                let ms = ms.max(1);
                (at.div_euclid(ms) + 1) * ms
            }
        }
    }
}

/// At most `max` hits of `bucket` per `span`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    pub bucket: String,
    pub max: u32,
    pub span: Span,
}

/// Whether a hit is allowed, and when to come back if not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub allowed: bool,
    /// Whole seconds until a hit would be allowed again; 0 when allowed.
    pub retry_after: u64,
}

impl Verdict {
    pub const ALLOWED: Verdict = Verdict {
        allowed: true,
        retry_after: 0,
    };
}

/// A client address as a throttle bucket: salted and hashed, so no raw IP is stored.
pub fn address_key(salt: &str, address: &str) -> String {
    let digest = Sha256::new()
        .chain_update(salt.as_bytes())
        .chain_update([0])
        .chain_update(address.as_bytes())
        .finalize();
    hex(&digest[..12])
}

/// Seconds from `now` to `at`, rounded up, at least 1.
fn seconds_until(at: i64, now: i64) -> u64 {
    ((at - now).max(1) as u64).div_ceil(1000)
}

/// The verdict for one more hit, given for each limit the expiry instants of its hits that
/// still count at `now` (any order). Refused when any limit is full; `retry_after` is when
/// every full limit has room again.
pub fn verdict(limits: &[Limit], live_expiries: &[Vec<i64>], now: i64) -> Verdict {
    let mut retry_after = 0;
    for (limit, expiries) in limits.iter().zip(live_expiries) {
        let mut live: Vec<i64> = expiries.iter().copied().filter(|e| *e > now).collect();
        if live.len() < limit.max as usize {
            continue;
        }
        if limit.max == 0 {
            // A limit of zero (switched off by configuration) refuses for a whole span.
            retry_after = retry_after.max(seconds_until(limit.span.expiry(now), now));
            continue;
        }
        live.sort_unstable();
        // Room comes back when all but max - 1 of the live hits have expired.
        let frees = live[live.len() - limit.max as usize];
        retry_after = retry_after.max(seconds_until(frees, now));
    }
    if retry_after == 0 {
        Verdict::ALLOWED
    } else {
        Verdict {
            allowed: false,
            retry_after,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(max: u32, span: Span) -> Limit {
        Limit {
            bucket: "b".into(),
            max,
            span,
        }
    }

    #[test]
    fn expiry_of_rolling_and_calendar_windows() {
        assert_eq!(Span::Rolling(HOUR_MS).expiry(1_000), 1_000 + HOUR_MS);
        let noon = 20_000 * DAY_MS + DAY_MS / 2;
        assert_eq!(Span::Calendar(DAY_MS).expiry(noon), 20_001 * DAY_MS);
        assert_eq!(
            Span::Calendar(DAY_MS).expiry(20_001 * DAY_MS),
            20_002 * DAY_MS,
            "midnight starts a new day"
        );
    }

    #[test]
    fn the_fifth_hit_is_allowed_and_the_sixth_refused() {
        let l = [limit(5, Span::Rolling(HOUR_MS))];
        let now = 10 * HOUR_MS;
        let hits: Vec<i64> = (0..4).map(|i| now - 1000 * i).collect();
        let expiries: Vec<i64> = hits.iter().map(|h| l[0].span.expiry(*h)).collect();
        assert_eq!(verdict(&l, &[expiries.clone()], now), Verdict::ALLOWED);
        let mut five = expiries;
        five.push(l[0].span.expiry(now - 1_800_000));
        let v = verdict(&l, &[five], now);
        assert!(!v.allowed);
        // The oldest of the five was made half an hour ago: room in 30 minutes.
        assert_eq!(v.retry_after, 1_800);
    }

    #[test]
    fn expired_hits_do_not_count() {
        let l = [limit(1, Span::Rolling(MINUTE_MS))];
        let now = 1_000_000;
        assert_eq!(verdict(&l, &[vec![now]], now), Verdict::ALLOWED);
        assert!(!verdict(&l, &[vec![now + 1]], now).allowed);
    }

    #[test]
    fn the_fullest_limit_decides_when_to_come_back() {
        let now = 20_000 * DAY_MS + DAY_MS - 10_000; // ten seconds before midnight
        let day = limit(2, Span::Calendar(DAY_MS));
        let hour = limit(1, Span::Rolling(HOUR_MS));
        let day_hits = vec![day.span.expiry(now - 5), day.span.expiry(now - 6)];
        let hour_hits = vec![hour.span.expiry(now - 60_000)];
        let v = verdict(
            &[day.clone(), hour.clone()],
            &[day_hits.clone(), vec![]],
            now,
        );
        assert_eq!(v.retry_after, 10, "the day is over in ten seconds");
        let v = verdict(&[day, hour], &[day_hits, hour_hits], now);
        assert_eq!(v.retry_after, 3_540, "the hour frees last");
    }

    #[test]
    fn a_zero_limit_refuses_everything() {
        let l = [limit(0, Span::Rolling(MINUTE_MS))];
        assert_eq!(
            verdict(&l, &[vec![]], 5),
            Verdict {
                allowed: false,
                retry_after: 60
            }
        );
    }
}
