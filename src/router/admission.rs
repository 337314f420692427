//! Step 2, admission: who is asking and whether they may. One call to the token's gate
//! (its Durable Object: authentication and the rate limit), and for a read by a token this
//! isolate has seen, the read itself started at the same time (the early read), so the
//! answer costs max(gate, D1) instead of their sum.
//!
//! The rule of the early read: a refused request learns nothing. Its answer stands only if
//! the gate admitted exactly the principal the read assumed, and the read started where
//! the gate says reads start, or at the primary (unless the client chose the bookmark);
//! otherwise it is dropped unread and the request is answered as if it had never been
//! made ([`early_stands`]).

use futures_util::future::join;
use worker::{Request, Response};

use super::consistency;
use super::dispatch;
use super::route::{Route, Write};
use crate::auth::{self, Admitted, Hint};
use crate::db::Start;
use crate::http::error::ApiResult;
use crate::http::App;
use crate::ops;

/// What admission found out.
pub struct Admission {
    /// The gate's answer: who, their rate limit, their last write's bookmark.
    pub gate: ApiResult<Admitted>,
    /// Milliseconds spent authenticating and rate limiting, for `Server-Timing`.
    pub gate_ms: f64,
    /// The early read's answer, if one ran and stands.
    pub early: Option<ApiResult<Response>>,
}

/// Asks the gate about the token (`hash`); for a read by a token this isolate has a hint
/// of, runs the read meanwhile. `asked` is the client's `X-D1-Bookmark`, if any.
pub async fn admit(
    app: &App,
    req: &Request,
    route: Route,
    hash: String,
    asked: &Option<Start>,
) -> Admission {
    let write = route.writes();
    let gate = async {
        let started = js_sys::Date::now();
        let limit = app.config.rate_limit_per_minute;
        let gate = auth::admit(app, hash.clone(), limit, write).await;
        (gate, js_sys::Date::now() - started)
    };
    // A create of a token this isolate knows reserves its slug meanwhile (regions.md 6).
    if let (Route::Write(Write::CreateCard), Some(hint)) = (route, auth::hint(&hash)) {
        let hold = ops::cards::hold(app, hint.principal.account_id, req);
        let ((gate, gate_ms), ()) = join(gate, hold).await;
        return Admission {
            gate,
            gate_ms,
            early: None,
        };
    }
    let early = match route {
        Route::Read(read) => auth::hint(&hash).map(|hint| (read, hint)),
        Route::Write(_) | Route::OpenApi | Route::BadId(_) | Route::Scim(_) => None,
    };
    // The early read runs on the shard the hint names; a hint of a shard this
    // configuration lacks runs none (the gate's answer then decides).
    let early = early.filter(|(_, hint)| app.place(&hint.principal.place.shard).is_ok());
    let Some((read, hint)) = early else {
        let (gate, gate_ms) = gate.await;
        return Admission {
            gate,
            gate_ms,
            early: None,
        };
    };
    app.start_reads(consistency::start(
        asked,
        hint.primary,
        hint.bookmark.as_deref(),
    ));
    let early_read = dispatch::read(app, &hint.principal, req, read);
    let ((gate, gate_ms), early) = join(gate, early_read).await;
    let stands = early_stands(&hint, &gate, asked.is_some());
    Admission {
        gate,
        gate_ms,
        early: stands.then_some(early),
    }
}

/// Whether an early read, made as `assumed` said, answers the request: only if the gate
/// admitted the request (known token, within its rate limit), as exactly the principal
/// assumed (same token, account, scopes, plan features and limits), and, unless the client
/// sent its own bookmark, started no older than the gate says: at the primary (which has
/// every answered write), or after the bookmark the gate names when it names no unsettled
/// write. Anything else drops the answer unread.
pub fn early_stands(assumed: &Hint, gate: &ApiResult<Admitted>, client_bookmark: bool) -> bool {
    match gate {
        Ok(admitted) => {
            let fresh =
                assumed.primary || (!admitted.primary && admitted.bookmark == assumed.bookmark);
            admitted.decision.allowed
                && admitted.principal == assumed.principal
                && (client_bookmark || fresh)
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::plan::{Overrides, Plan};
    use crate::domain::principal::Principal;
    use crate::domain::ratelimit::Decision;
    use crate::domain::token::{Scope, Scopes};
    use crate::http::error::ApiError;

    fn principal(scopes: &[Scope], plan: Plan) -> Principal {
        let scopes = Scopes::new(scopes.to_vec());
        Principal::new(1, 2, scopes, plan, Overrides::default())
    }

    fn hint(bookmark: Option<&str>) -> Hint {
        Hint {
            principal: principal(&[Scope::CardsRead], Plan::Enterprise),
            bookmark: bookmark.map(String::from),
            primary: false,
        }
    }

    fn admitted(
        principal: Principal,
        bookmark: Option<&str>,
        allowed: bool,
    ) -> ApiResult<Admitted> {
        admitted_writing(principal, bookmark, false, allowed)
    }

    /// `primary`: the gate says a write of the token may be unsettled.
    fn admitted_writing(
        principal: Principal,
        bookmark: Option<&str>,
        primary: bool,
        allowed: bool,
    ) -> ApiResult<Admitted> {
        let mut decision = Decision::fail_open(10);
        decision.allowed = allowed;
        Ok(Admitted {
            principal,
            decision,
            bookmark: bookmark.map(String::from),
            primary,
            mark: None,
            hash: "h".into(),
        })
    }

    #[test]
    fn an_early_read_stands_only_for_exactly_what_it_assumed() {
        let assumed = hint(Some("b1"));
        let same = assumed.principal.clone();
        assert!(early_stands(
            &assumed,
            &admitted(same.clone(), Some("b1"), true),
            false
        ));
        // A refused request learns nothing: unknown or revoked token, or over its limit.
        assert!(!early_stands(
            &assumed,
            &Err(ApiError::Unauthenticated),
            false
        ));
        assert!(!early_stands(
            &assumed,
            &admitted(same.clone(), Some("b1"), false),
            false
        ));
        // Another principal: scopes or plan changed since the hint.
        let fewer = principal(&[Scope::LeadsRead], Plan::Enterprise);
        assert!(!early_stands(
            &assumed,
            &admitted(fewer, Some("b1"), true),
            false
        ));
        let downgraded = principal(&[Scope::CardsRead], Plan::Free);
        assert!(!early_stands(
            &assumed,
            &admitted(downgraded, Some("b1"), true),
            false
        ));
        // The token wrote since (in another isolate): the read may miss that write...
        assert!(!early_stands(
            &assumed,
            &admitted(same.clone(), Some("b2"), true),
            false
        ));
        assert!(!early_stands(
            &hint(None),
            &admitted(same.clone(), Some("b2"), true),
            false
        ));
        // ...unless the client chose where reads start.
        assert!(early_stands(
            &assumed,
            &admitted(same.clone(), Some("b2"), true),
            true
        ));
        assert!(!early_stands(
            &assumed,
            &admitted(same, Some("b2"), false),
            true
        ));
    }

    #[test]
    fn an_early_read_stands_against_an_unsettled_write_only_from_the_primary() {
        let after = hint(Some("b1"));
        let same = after.principal.clone();
        // Another isolate's write is unsettled: a read after b1 may miss it.
        assert!(!early_stands(
            &after,
            &admitted_writing(same.clone(), Some("b1"), true, true),
            false
        ));
        // A read that started at the primary sees every answered write.
        let primary = Hint {
            primary: true,
            ..hint(Some("b0"))
        };
        for gate_primary in [true, false] {
            assert!(early_stands(
                &primary,
                &admitted_writing(same.clone(), Some("b1"), gate_primary, true),
                false
            ));
        }
        // Never for a refused request.
        assert!(!early_stands(
            &primary,
            &admitted_writing(same, Some("b1"), true, false),
            false
        ));
    }
}
