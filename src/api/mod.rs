//! Handlers, one module per resource. They translate between HTTP and the domain and
//! storage layers and hold no SQL of their own.

pub mod admin;
pub mod analytics;
pub mod cards;
pub mod events;
pub mod idempotency;
pub mod leads;
pub mod openapi;
pub mod scim;
pub mod templates;
pub mod webhooks;
