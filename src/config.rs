//! The worker's configuration, read once per isolate (`domain::config` parses it).
//!
//! `Env` is handed to every invocation, but its vars and secrets are fixed per deployment:
//! a new value (`wrangler deploy`, `wrangler secret put`) is a new version, which runs in
//! new isolates. So the first invocation of an isolate reads and parses them, logs what is
//! missing or unreadable once (with what the worker does instead), and every later one, of
//! any kind (fetch, queue, cron), uses the same values.

use std::sync::OnceLock;

use wasm_bindgen::JsCast;
use worker::Env;

use crate::domain::config::Config;

static CONFIG: OnceLock<Config> = OnceLock::new();

/// Every shard binding (`SHARDS`), for work that visits each one (crons, the sweeper); a
/// configuration fault is an error that names it.
pub fn shards(env: &Env) -> worker::Result<Vec<String>> {
    match &get(env).topology {
        Ok(t) => Ok(t.shards.iter().map(|s| s.binding.clone()).collect()),
        Err(e) => Err(worker::Error::RustError(format!("misconfigured: {e}"))),
    }
}

/// The isolate's configuration; the first call reads it from `env`.
pub fn get(env: &Env) -> &'static Config {
    CONFIG.get_or_init(|| {
        // Vars and secrets are both string bindings; either getter reads either.
        let bindings: Vec<String> = js_sys::Object::keys(env.unchecked_ref::<js_sys::Object>())
            .iter()
            .filter_map(|k| k.as_string())
            .collect();
        let (config, problems) =
            Config::parse(|name| env.var(name).ok().map(|v| v.to_string()), &bindings);
        for problem in problems {
            worker::console_error!("config: {problem}");
        }
        config
    })
}
