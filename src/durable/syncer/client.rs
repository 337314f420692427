//! The worker's side of [`Syncer`](super::Syncer): its binding and the one call it takes.

use worker::{Env, Result};

/// The Durable Object binding in wrangler.toml.
pub const BINDING: &str = "SYNCER";

/// Starts (or wakes) the syncer of the account's template in `shard`.
pub async fn start(env: &Env, shard: &str, account_id: i64, template: i64) -> Result<()> {
    let job = format!("{shard} {account_id} {template}");
    let name = format!("{account_id}-{template}");
    match crate::durable::call(env, BINDING, &name, "https://syncer/start", Some(&job)).await? {
        (204, _) => Ok(()),
        (s, text) => Err(worker::Error::RustError(format!(
            "syncer answered {s}: {text}"
        ))),
    }
}
