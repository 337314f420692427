//! End-to-end tests: the release worker in local workerd, driven over HTTP. Each module
//! covers one part of the contract (`../shared/spec/api-v1.md`, `product.md`).

mod harness;

mod abuse;
mod admin;
mod analytics;
mod auth;
mod cards;
mod feed;
mod leads;
mod ops;
mod privacy;
mod public;
mod ratelimit;
mod reach;
mod webhooks;
