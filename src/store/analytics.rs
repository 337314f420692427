//! View and click recording into per-day counters (filled in by the analytics work).

use worker::Request;

use crate::domain::card::CardRow;
use crate::http::App;

/// Records a view of the card's public page after the response (never delays it).
pub fn record_view(_app: &App, _card: &CardRow, _req: &Request) {}

/// Records a click of `kind` (`email`, `phone`, ..., `vcard`, `social_<platform>`).
pub fn record_click(_app: &App, _card: &CardRow, _kind: &str, _req: &Request) {}
