//! The worker's side of [`Names`](super::Names): its binding, the object of a slug and the
//! one call it takes (`domain::names`).

use worker::{Env, Result};

use crate::domain::names::Ask;
pub use crate::domain::names::{Entry, Op, State};
use crate::domain::slug::{keyed, root_of};

/// The Durable Object binding in wrangler.toml.
pub const BINDING: &str = "NAMES";

/// The object reads only the body; a stub needs an absolute URL all the same.
const URL: &str = "https://names/";

/// The worker's part of every call: the key of the objects' names, and how old an entry
/// on its way must be before a create asks the shard about it (`SLUG_SETTLE_MS`).
#[derive(Debug, Clone, Copy)]
pub struct Keys<'a> {
    pub pepper: &'a str,
    pub settle_ms: i64,
}

/// The object of a slug's root is named by a keyed hash of the root: the name never
/// leaves the worker for a store (regions.md 6).
pub fn object_name(pepper: &str, root: &str) -> String {
    keyed(pepper, "root", root)
}

/// Asks the object of `slug`'s root (for [`Op::Reserve`]: of the base's). The slug's
/// part after its root (for a reservation: the slug it reserved is root + it) and its
/// entry; `None` when it has none.
pub async fn ask(
    env: &Env,
    keys: Keys<'_>,
    op: Op,
    slug: &str,
    account: i64,
) -> Result<Option<(String, Entry)>> {
    let (root, rest) = root_of(slug);
    let body = Ask {
        op,
        root: root.to_string(),
        rest: rest.to_string(),
        account,
        settle_ms: keys.settle_ms,
    }
    .encode();
    let name = object_name(keys.pepper, root);
    let bad = |s: u16, text: &str| worker::Error::RustError(format!("names answered {s}: {text}"));
    match crate::durable::call(env, BINDING, &name, URL, Some(&body)).await? {
        (200, text) => {
            let (rest, entry) = text.split_once('\n').ok_or_else(|| bad(200, &text))?;
            let entry = Entry::decode(entry).ok_or_else(|| bad(200, &text))?;
            Ok(Some((rest.to_string(), entry)))
        }
        (404, _) => Ok(None),
        (s, text) => Err(bad(s, &text)),
    }
}
