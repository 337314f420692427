//! Step 3, consistency: the request's D1 session (extensions.md 6). Reads may be served by
//! the nearest replica, but never older than the bookmark the client sends, and never
//! older than the token's own writes (read-your-writes without any header): the token's
//! object answers the gate call with where reads start: at the primary while a write of
//! the token may be unsettled, else after its newest settled write (regions.md 5;
//! `domain::own_writes` holds the rules). A write costs no call after its answer: its
//! bookmark goes with this isolate's next gate call for the token ([`settle_write`]).

use worker::Request;

use crate::auth::{self, Admitted};
use crate::db::Start;
use crate::domain::own_writes::Settle;
use crate::http::App;

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

/// The bookmark the answer carries: the session's latest, or, if the request used no
/// D1, the client's or the token's newest settled one.
pub fn answered(app: &App, asked: &Option<Start>, token_bookmark: Option<&str>) -> Option<String> {
    let started_at = match asked {
        Some(Start::After(b)) => Some(b.clone()),
        Some(_) => None,
        None => token_bookmark.map(String::from),
    };
    app.used_db().and_then(|db| db.bookmark()).or(started_at)
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
