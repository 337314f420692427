//! Durable Object classes (one file each) and the worker-side clients that call them.

pub mod analytics;
pub mod rate_limiter;
