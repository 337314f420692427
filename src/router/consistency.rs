//! Step 3, consistency: the request's D1 session (extensions.md 6). Reads may be served by
//! the nearest replica, but never older than the bookmark the client sends, and never
//! older than the token's own writes (read-your-writes without any header): the token's
//! object answers the gate call with where reads start: at the primary while a write of
//! the token may be unsettled, else after its newest settled write (regions.md 5;
//! `domain::own_writes` holds the rules). A write costs no call after its answer: its
//! bookmark goes with this isolate's next gate call for the token ([`settle_write`]).

use std::cell::RefCell;
use std::collections::HashMap;

use worker::Request;

use crate::auth::{self, Admitted};
use crate::db::Start;
use crate::domain::own_writes::{newer, Settle};
use crate::http::App;
use crate::store::accounts;

/// The header that carries a D1 bookmark both ways.
pub const BOOKMARK: &str = "X-D1-Bookmark";

/// Where the client asks reads to start: after the bookmark it sends; one that is no
/// bookmark reads the primary (never an error). `None`: it sent none.
pub fn asked(req: &Request) -> Option<Start> {
    let sent = req.headers().get(BOOKMARK).ok().flatten()?;
    Some(match Start::after(Some(&sent)) {
        Start::Anywhere => Start::Primary,
        start => start,
    })
}

/// Where reads start: a bookmark the client sends wins; else the primary while a write
/// of the token may be unsettled (`primary`), else after its newest settled write.
pub fn start(asked: &Option<Start>, primary: bool, token_bookmark: Option<&str>) -> Start {
    match asked {
        Some(start) => start.clone(),
        None if primary => Start::Primary,
        None => Start::after(token_bookmark),
    }
}

thread_local! {
    /// The newest bookmark this isolate's API sessions have seen, per shard binding (a
    /// few entries: one per shard). It is a place the shard has been, so an answer that
    /// ran no query may carry it: a client sending it back waits for nothing D1 lacks.
    static NEWEST: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

fn remember(shard: &str, bookmark: &str) {
    NEWEST.with(|n| {
        let mut n = n.borrow_mut();
        if n.get(shard).is_none_or(|kept| newer(bookmark, kept)) {
            n.insert(shard.to_string(), bookmark.to_string());
        }
    });
}

fn newest(shard: &str) -> Option<String> {
    NEWEST.with(|n| n.borrow().get(shard).cloned())
}

/// The bookmark the answer of an admitted token carries (every one does, extensions.md 6,
/// a 429 or a 403 too): the session's latest. A request that ran no query answers where
/// its reads would have started: the client's bookmark; else, unless a write of the
/// token may be unsettled, the newer of the token's and this isolate's newest of the
/// shard. Only when neither is known, or only the primary is new enough, does it read the
/// account's row for a bookmark (`None` if that fails: never an error). So a token over
/// its limit costs D1 at most once per isolate and shard, or while its own write is
/// unsettled.
pub async fn answered(app: &App, asked: &Option<Start>, admitted: &Admitted) -> Option<String> {
    if let Some(b) = session_bookmark(app) {
        return Some(b);
    }
    if let Some(Start::After(b)) = asked {
        return Some(b.clone());
    }
    let shard = &admitted.principal.place.shard;
    if !admitted.primary {
        let known = [admitted.bookmark.clone(), newest(shard)]
            .into_iter()
            .flatten()
            .reduce(|a, b| if newer(&b, &a) { b } else { a });
        if known.is_some() {
            return known;
        }
    }
    // The session opens where `start` put it: at the primary while a write of the token
    // may be unsettled (the only bookmark as new as that write).
    let db = app.db().ok()?;
    if let Err(e) = accounts::in_shard(&db, admitted.principal.account_id).await {
        worker::console_warn!("no bookmark for an answer that ran no query: {e}");
        return None;
    }
    session_bookmark(app)
}

/// The bookmark of the request's session, if it ran a query; kept as the isolate's newest
/// of its shard when it is.
fn session_bookmark(app: &App) -> Option<String> {
    let db = app.used_db()?;
    let b = db.bookmark()?;
    remember(db.binding(), &b);
    Some(b)
}

/// After a write, before it is answered with `status`: its mark and its session's
/// bookmark wait in this isolate for the next gate call for the token, which settles them
/// (`Settle::after_write` says what goes back). Until then the mark sends the token's
/// reads, in any isolate, to the primary. No call here.
pub fn settle_write(app: &App, admitted: &Admitted, status: u16) {
    let db = app.used_db();
    let bookmark = db.as_ref().and_then(|db| db.bookmark());
    let settle = Settle::after_write(admitted.mark, db.is_some(), bookmark, status >= 500);
    if let Some(settle) = settle {
        auth::settle_later(&admitted.hash, settle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_isolate_keeps_the_newest_bookmark_of_each_shard() {
        let (a, b) = ("SHARD_TEST_A", "SHARD_TEST_B");
        assert_eq!(newest(a), None);
        remember(a, "00000002-00000001-00000000-aa");
        remember(a, "00000001-00000009-00000000-ff");
        remember(b, "00000001-00000000-00000000-00");
        assert_eq!(newest(a).as_deref(), Some("00000002-00000001-00000000-aa"));
        remember(a, "00000002-00000002-00000000-00");
        assert_eq!(newest(a).as_deref(), Some("00000002-00000002-00000000-00"));
        assert_eq!(newest(b).as_deref(), Some("00000001-00000000-00000000-00"));
    }
}
