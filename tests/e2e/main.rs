//! End-to-end tests: the release worker in local workerd, driven over HTTP. Each module
//! covers one part of the contract (`../shared/spec/api-v1.md`, `product.md`).
//!
//! # Adding a test
//!
//! - **Where**: in the module of the part of the contract it checks (`cards`, `leads`,
//!   `public`, `webhooks`, `privacy`, `abuse`, ...); a new part gets a new module listed
//!   below. Say in the test's name what it proves; assert on status, body and headers.
//! - **Servers**: the tests run the built worker (`build/index.js`: `make build` first,
//!   or `make test`). [`harness::server`] is the one shared server (fresh state, started
//!   on first use, stopped when the test process exits); most tests use it and stay
//!   independent by making their own account ([`harness::Server::tenant`] mints an
//!   account and a token with the scopes asked for). A test that needs other vars, or
//!   state no other test may touch (rate limits, the admin throttle), starts its own with
//!   [`harness::Server::start`] (a few seconds each) or shares one in a module-level
//!   `OnceLock` (`webhooks::hooks_server`).
//! - **Helpers** (`harness.rs`): `Tenant::{get, send, card}` for the API as a client,
//!   `Server::{admin, call, d1}` for the operator API, any request and the local D1,
//!   [`harness::post_lead`] (with [`harness::Lead`] and [`harness::visitor`]) for every
//!   post to a card's lead form, `call` for anything else, `Resp::{json, header,
//!   assert_error}` to read answers, and `BROWSER` as a person's User-Agent.
//! - **Running one**: `cargo test --test e2e -- public::lead_form_posts --test-threads=3`
//!   (a name filter; a module name runs the module). Each server's state and log are in
//!   `target/e2e/{name}-{pid}/` (`wrangler-{port}.log`).

mod harness;

mod abuse;
mod admin;
mod analytics;
mod app;
mod app_data;
mod app_integration;
mod app_members;
mod auth;
mod cards;
mod feed;
mod leads;
mod ops;
mod privacy;
mod public;
mod ratelimit;
mod reach;
mod regions;
mod scim;
mod security;
mod signature;
mod teams;
mod wallet;
mod webhooks;
