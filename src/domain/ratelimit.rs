//! Rolling one-minute request window with one-second buckets (spec 8). The state is
//! tiny (at most 60 buckets), so it is persisted whole on every admitted request.

use serde::{Deserialize, Serialize};

const WINDOW_S: i64 = 60;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// (unix second, requests admitted in it), oldest first.
    buckets: Vec<(i64, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until a request would be admitted again; 0 when allowed.
    pub retry_after: u64,
}

impl Decision {
    /// The decision used when the limiter cannot be reached: the request is served (an
    /// outage of the limiter must not become an outage of the API) and the headers still
    /// carry the limit, counting this request as the first of its window.
    pub fn fail_open(limit: u32) -> Decision {
        Decision {
            allowed: true,
            limit,
            remaining: limit.saturating_sub(1),
            retry_after: 0,
        }
    }
}

impl Window {
    /// A window from stored (second, count) pairs, oldest first.
    pub fn from_buckets(buckets: Vec<(i64, u32)>) -> Window {
        Window { buckets }
    }

    /// Counts a request at `now_ms` if it fits under `limit`; refused requests are not counted.
    pub fn hit(&mut self, now_ms: i64, limit: u32) -> Decision {
        let now_s = now_ms.div_euclid(1000);
        self.buckets.retain(|(s, _)| *s > now_s - WINDOW_S);
        let used: u32 = self.buckets.iter().map(|(_, n)| n).sum();
        if used < limit {
            match self.buckets.last_mut() {
                Some((s, n)) if *s == now_s => *n += 1,
                _ => self.buckets.push((now_s, 1)),
            }
            return Decision {
                allowed: true,
                limit,
                remaining: limit - used - 1,
                retry_after: 0,
            };
        }
        let mut freed = 0;
        let mut retry_after = WINDOW_S;
        for (s, n) in &self.buckets {
            freed += n;
            if used - freed < limit {
                retry_after = s + WINDOW_S - now_s;
                break;
            }
        }
        Decision {
            allowed: false,
            limit,
            remaining: 0,
            retry_after: retry_after.max(1) as u64,
        }
    }
}

/// The IETF httpapi rate-limit headers (draft): the policy of a token's window...
pub fn policy_header(limit: u32) -> String {
    format!("\"token\";q={limit};w={WINDOW_S}")
}

/// ...and where this request left it: what remains and the seconds until it refills. The
/// window rolls, so while requests remain the whole window is the bound given.
pub fn limit_header(d: &Decision) -> String {
    let reset = if d.allowed {
        WINDOW_S as u64
    } else {
        d.retry_after
    };
    format!("\"token\";r={};t={reset}", d.remaining)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_headers_carry_the_legacy_values() {
        assert_eq!(policy_header(1000), "\"token\";q=1000;w=60");
        let d = Decision::fail_open(1000);
        assert_eq!(limit_header(&d), "\"token\";r=999;t=60");
        let limited = Decision {
            allowed: false,
            limit: 5,
            remaining: 0,
            retry_after: 12,
        };
        assert_eq!(limit_header(&limited), "\"token\";r=0;t=12");
    }

    #[test]
    fn admits_exactly_the_limit_then_refuses() {
        let mut w = Window::default();
        for i in 0..5 {
            let d = w.hit(1_000_000 + i, 5);
            assert!(d.allowed);
            assert_eq!(d.remaining, 4 - i as u32);
        }
        let d = w.hit(1_000_500, 5);
        assert_eq!(
            d,
            Decision {
                allowed: false,
                limit: 5,
                remaining: 0,
                retry_after: 60
            }
        );
    }

    #[test]
    fn window_rolls_per_second() {
        let mut w = Window::default();
        w.hit(10_000, 2);
        w.hit(30_000, 2);
        let d = w.hit(40_000, 2);
        assert!(!d.allowed);
        assert_eq!(
            d.retry_after, 30,
            "the request at 10s leaves the window at 70s"
        );
        assert!(!w.hit(69_999, 2).allowed);
        assert!(w.hit(70_000, 2).allowed);
        assert!(!w.hit(70_001, 2).allowed);
    }

    #[test]
    fn refused_requests_do_not_extend_the_wait() {
        let mut w = Window::default();
        w.hit(0, 1);
        for t in 1..50 {
            assert!(!w.hit(t * 1000, 1).allowed);
        }
        assert!(w.hit(60_000, 1).allowed);
    }

    #[test]
    fn fail_open_admits_and_keeps_headers_sane() {
        let d = Decision::fail_open(1000);
        assert!(d.allowed);
        assert_eq!((d.limit, d.remaining, d.retry_after), (1000, 999, 0));
        assert_eq!(Decision::fail_open(0).remaining, 0, "never negative");
    }

    #[test]
    fn survives_serialisation() {
        let mut w = Window::default();
        w.hit(5_000, 3);
        let mut back: Window = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
        assert_eq!(back.hit(6_000, 3).remaining, 1);
    }
}
