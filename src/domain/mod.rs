//! Pure business rules: no `worker` types, so everything here is unit-tested natively.
//! The layers above parse requests into these types and store them.

pub mod account;
pub mod analytics;
pub mod card;
pub mod chart;
pub mod conditional;
pub mod config;
pub mod csv;
pub mod design;
pub mod email_key;
pub mod event;
pub mod html;
pub mod i18n;
pub mod idempotency;
pub mod ids;
pub mod input;
pub mod lang;
pub mod lead;
pub mod links;
pub mod member;
pub mod moving;
pub mod names;
pub mod own_writes;
pub mod pagination;
pub mod plan;
pub mod principal;
pub mod qr;
pub mod ratelimit;
pub mod region;
pub mod representation;
pub mod scim;
pub mod security;
pub mod signature;
pub mod signing;
pub mod slug;
pub mod template;
pub mod throttle;
pub mod time;
pub mod token;
pub mod useragent;
pub mod validation;
pub mod wallet;
pub mod webauthn;
pub mod webhook;
pub mod weburl;

/// The hand-written parsers held to the crates they stand in for.
#[cfg(test)]
mod oracle;
