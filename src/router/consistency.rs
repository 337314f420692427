//! Step 3, consistency: the request's D1 session (extensions.md 6). Reads may be served by
//! the nearest replica, but never older than the bookmark the client sends, and never
//! older than the token's own last write (read-your-writes without any header): the
//! token's Durable Object keeps that write's bookmark and hands it over at the gate.

use worker::Request;

use crate::auth::{self, Admitted};
use crate::db::Start;
use crate::durable::rate_limiter::client as gate;
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

/// Where reads start: a bookmark the client sends wins, else after the token's last write.
pub fn start(asked: &Option<Start>, token_bookmark: Option<&str>) -> Start {
    asked
        .clone()
        .unwrap_or_else(|| Start::after(token_bookmark))
}

/// The bookmark the answer carries: the session's latest, or, if the request used no
/// D1, the one its reads would have started after.
pub fn answered(app: &App, asked: &Option<Start>, token_bookmark: Option<&str>) -> Option<String> {
    let started_at = match asked {
        Some(Start::After(b)) => Some(b.clone()),
        Some(_) => None,
        None => token_bookmark.map(String::from),
    };
    app.used_db().and_then(|db| db.bookmark()).or(started_at)
}

/// After a write, before it is answered: the token's object learns its bookmark, so the
/// token's next request, in any isolate, reads no older data (and this isolate's hint
/// too).
pub async fn remember_write(app: &App, admitted: &Admitted, bookmark: Option<&str>) {
    let Some(b) = bookmark.filter(|b| Some(*b) != admitted.bookmark.as_deref()) else {
        return;
    };
    if let Err(e) = gate::remember(&app.env, &admitted.hash, b).await {
        worker::console_error!("token gate did not take the write's bookmark: {e}");
    }
    auth::note_write(&admitted.hash, b);
}
