//! The change feed (extensions.md 1): `GET /events` and `GET /events/{id}`.

use serde::Serialize;
use worker::{Request, Response};

use crate::domain::event::{Cursor, EventType, EventView, FeedQuery};
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
    let (state, mut found) = events::list(&*app.db()?, p.account_id, after, &types, feed.limit + 1)
        .await?
        .ok_or(ApiError::NotFound)?;
    if feed.after.is_some() && after < state.events_pruned_through {
        // Events after this cursor were removed unread: the client must sync afresh.
        return Err(ApiError::Gone);
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
