//! The HTML builder of the pages. It lives in the domain ([`crate::domain::html`]) so that
//! the domain's SVG charts are written with the same escaping; re-exported here for the
//! pages that have always named it from this module.

pub use crate::domain::html::Html;
