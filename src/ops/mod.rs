//! Operations: what a change does, whichever door it came through (`/api/v1`, `/scim/v2`,
//! the account area, the operator API, a card page's lead form). A handler reads its
//! request into typed input, asks an operation, and answers in its own shape; the
//! operation does the change everywhere it must happen (directory and shard, the event and
//! its webhooks, the security log, the gate's cached records), so no door can do less.
//!
//! Who asks is passed as [`By`] (the security log's actor); what they may do is the
//! handler's check (a token's scopes, a member's role).

pub mod accounts;
pub mod cards;
pub mod leads;
pub mod members;
pub mod templates;
pub mod tokens;
pub mod wallet;
pub mod webhooks;

use crate::domain::principal::Principal;
use crate::domain::security::{Actor, By};
use crate::http::App;

/// An API or SCIM request's token, as the security log names it.
pub fn by_token(app: &App, p: &Principal) -> By {
    By::new(Actor::Token(p.token_id), app.country())
}

/// The operator API, as the security log names it.
pub fn by_operator(app: &App) -> By {
    By::new(Actor::Operator, app.country())
}
