//! Step 4, the answer's headers: what every `/api/v1` answer carries, whichever step
//! answered it (a 404 or 405 before authentication, a preflight, openapi.json, a 401, a
//! 429, or an operation): `Server-Timing`, CORS and `Cache-Control` always; the rate-limit
//! headers and `X-D1-Bookmark` once the gate has counted the request; `ETag` and the 304
//! for conditional reads (extensions.md 6).

use worker::Response;

use crate::domain::ratelimit::{limit_header, policy_header, Decision};
use crate::http::edge;
use crate::http::App;

use super::consistency::BOOKMARK;

/// Whether the answer is a conditional GET's.
#[derive(Debug, Default)]
pub enum Conditional {
    /// Tagged (strong `ETag`), and 304 when the request's `If-None-Match` names the tag.
    Tagged(Option<String>),
    /// No entity tag.
    #[default]
    Untagged,
}

/// What the steps before learned that the answer tells.
#[derive(Debug, Default)]
pub struct Told {
    /// Milliseconds spent on authentication and the rate limit; 0 before the gate.
    pub gate_ms: f64,
    /// The token's rate limit, once the gate counted the request.
    pub decision: Option<Decision>,
    /// The session's bookmark (authenticated requests).
    pub bookmark: Option<String>,
    pub conditional: Conditional,
}

/// The answer with its headers; `started` is when the request reached the API.
pub fn finish(app: &App, resp: Response, told: Told, started: f64) -> Response {
    let mut resp = match told.conditional {
        Conditional::Tagged(if_none_match) => edge::conditional(resp, if_none_match.as_deref()),
        Conditional::Untagged => edge::untagged(resp),
    };
    let db_ms = app.db_ms().unwrap_or(0.0);
    let total_ms = js_sys::Date::now() - started;
    let headers = resp.headers_mut();
    if let Some(decision) = &told.decision {
        let _ = headers.set("X-RateLimit-Limit", &decision.limit.to_string());
        let _ = headers.set("X-RateLimit-Remaining", &decision.remaining.to_string());
        let _ = headers.set("RateLimit-Policy", &policy_header(decision.limit));
        let _ = headers.set("RateLimit", &limit_header(decision));
    }
    if let Some(b) = &told.bookmark {
        let _ = headers.set(BOOKMARK, b);
    }
    let _ = headers.set(
        "Server-Timing",
        &timing(told.gate_ms, db_ms, total_ms, app.kv_ms()),
    );
    edge::cors(edge::private(resp))
}

/// `Server-Timing`: `gate`, `db` and `total` always, `kv` when KV was read.
fn timing(gate_ms: f64, db_ms: f64, total_ms: f64, kv_ms: Option<f64>) -> String {
    let mut timing = format!("gate;dur={gate_ms:.1}, db;dur={db_ms:.1}, total;dur={total_ms:.1}");
    if let Some(kv_ms) = kv_ms {
        timing.push_str(&format!(", kv;dur={kv_ms:.1}"));
    }
    timing
}

#[cfg(test)]
mod tests {
    use super::timing;

    #[test]
    fn timing_names_every_metric() {
        assert_eq!(
            timing(0.0, 0.0, 1.26, None),
            "gate;dur=0.0, db;dur=0.0, total;dur=1.3"
        );
        assert_eq!(
            timing(2.0, 3.04, 9.0, Some(1.0)),
            "gate;dur=2.0, db;dur=3.0, total;dur=9.0, kv;dur=1.0"
        );
    }
}
