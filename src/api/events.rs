//! The change feed (extensions.md 1): `GET /events` and `GET /events/{id}`.

use serde::Serialize;
use worker::{Request, Response};

use crate::db::Start;
use crate::domain::event::{Cursor, EventType, EventView, FeedQuery, Standing};
use crate::domain::principal::Principal;
use crate::http::error::{ApiError, ApiResult};
use crate::http::params::query;
use crate::http::response::{ok, Data};
use crate::http::App;
use crate::store::events;

#[derive(Serialize)]
struct FeedMeta {
    next_cursor: String,
    has_more: bool,
}

#[derive(Serialize)]
struct Feed<'a> {
    data: Vec<EventView<'a>>,
    meta: FeedMeta,
}

pub async fn list(app: &App, p: &Principal, req: &Request) -> ApiResult<Response> {
    let feed = FeedQuery::parse(&query(req))?;
    let readable = EventType::readable(&p.scopes);
    if readable.is_empty() {
        return Err(ApiError::MissingScope);
    }
    let types = feed.visible(&readable);
    // Without a cursor: from the oldest event still kept.
    let after = feed.after.map_or(0, |c| c.0);
    // One more than asked tells whether more follow.
    let (types, account, limit) = (&types, p.account_id, feed.limit + 1);
    let list = move || async move {
        events::list(&*app.db()?, account, after, types, limit)
            .await?
            .ok_or(ApiError::NotFound)
    };
    let (mut state, mut found) = list().await?;
    let standing = |state: &events::FeedState| {
        feed.after
            .map(|c| c.standing(state.event_sequence, state.events_pruned_through))
    };
    if standing(&state) == Some(Standing::Ahead) {
        // A replica behind the one that handed the cursor out sees fewer events: only the
        // primary may call a cursor one the service never gave. Costs a round trip only
        // here, never on a cursor within the feed.
        app.start_reads(Start::Primary);
        (state, found) = list().await?;
    }
    match standing(&state) {
        Some(Standing::Ahead) => {
            return Err(ApiError::validation(
                "after",
                "The after field must be a cursor from meta.next_cursor; this one is past \
                 the newest event."
                    .into(),
            ))
        }
        // Events after this cursor were removed unread: the client must sync afresh.
        Some(Standing::Pruned) => return Err(ApiError::Gone),
        Some(Standing::Within) | None => {}
    }
    let has_more = found.len() as i64 > feed.limit;
    found.truncate(feed.limit as usize);
    let next = match found.last() {
        Some(last) => last.sequence,
        // Nothing new: the cursor sent, or "now" when none was.
        None => feed.after.map_or(state.event_sequence, |c| c.0),
    };
    for e in &mut found {
        e.apply_features(p.features);
    }
    let data = found.iter().map(|e| e.view(&app.base_url)).collect();
    ok(&Feed {
        data,
        meta: FeedMeta {
            next_cursor: Cursor(next).encode(),
            has_more,
        },
    })
}

pub async fn get(app: &App, p: &Principal, id: String) -> ApiResult<Response> {
    let mut event = events::get(&*app.db()?, p.account_id, &id)
        .await?
        .filter(|e| p.scopes.grants(e.kind.scope()))
        .ok_or(ApiError::NotFound)?;
    event.apply_features(p.features);
    ok(&Data {
        data: event.view(&app.base_url),
    })
}
