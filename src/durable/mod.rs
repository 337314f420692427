//! Durable Objects, one folder each: the class in `mod.rs` and its typed client in
//! `client.rs`, which callers use instead of addressing the object themselves.

pub mod analytics;
pub mod rate_limiter;
pub mod throttle;
