//! SCIM 2.0 (RFC 7643, RFC 7644) as provisioning.md 2 has it: one User is one card. The
//! pure part lives here: the User representation and its mapping onto a card's fields
//! ([`user`]), the userName's key and the characters it may hold ([`user_name`]),
//! filters ([`filter`]), PATCH operations ([`patch`]), `attributes` and
//! `excludedAttributes` ([`attributes`]) and the discovery documents ([`discovery`]). The
//! handlers (`src/scim/`) run every change through the card store, as the API does.

pub mod attributes;
pub mod discovery;
pub mod filter;
pub mod patch;
pub mod user;
pub mod user_name;

use serde_json::{Map, Value};

/// The core User schema.
pub const USER: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
/// The enterprise extension (`organization` is the card's `company`).
pub const ENTERPRISE: &str = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
pub const ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
pub const LIST: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
pub const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/// The most Users a list answers at once: the default and the largest `count`
/// (provisioning.md 2), and the ServiceProviderConfig's `filter.maxResults`.
pub const MAX_RESULTS: i64 = 100;

/// A SCIM error (RFC 7644 3.12): its HTTP status, the `scimType` where RFC 7644 names
/// one, and a `detail` for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScimError {
    pub status: u16,
    pub scim_type: Option<&'static str>,
    pub detail: String,
}

impl ScimError {
    pub fn new(status: u16, scim_type: Option<&'static str>, detail: impl Into<String>) -> Self {
        ScimError {
            status,
            scim_type,
            detail: detail.into(),
        }
    }

    /// 400: the filter does not parse or names what cannot be filtered.
    pub fn invalid_filter(detail: impl Into<String>) -> Self {
        Self::new(400, Some("invalidFilter"), detail)
    }

    /// 400: a value breaks the schema or a card constraint.
    pub fn invalid_value(detail: impl Into<String>) -> Self {
        Self::new(400, Some("invalidValue"), detail)
    }

    /// 400: the request body is not what the operation reads.
    pub fn invalid_syntax(detail: impl Into<String>) -> Self {
        Self::new(400, Some("invalidSyntax"), detail)
    }

    /// 400: a PATCH path that does not parse or names no attribute.
    pub fn invalid_path(detail: impl Into<String>) -> Self {
        Self::new(400, Some("invalidPath"), detail)
    }

    /// 400: a PATCH path's filter matches nothing.
    pub fn no_target(detail: impl Into<String>) -> Self {
        Self::new(400, Some("noTarget"), detail)
    }

    /// 400: a change of what may not change (`id`, `meta`) or remove what is required.
    pub fn mutability(detail: impl Into<String>) -> Self {
        Self::new(400, Some("mutability"), detail)
    }

    /// 409: another User of the account has the value (`userName`).
    pub fn uniqueness(detail: impl Into<String>) -> Self {
        Self::new(409, Some("uniqueness"), detail)
    }

    /// The error body (`status` is a string, RFC 7644 3.12).
    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("schemas".into(), Value::from(vec![ERROR]));
        body.insert("status".into(), self.status.to_string().into());
        if let Some(t) = self.scim_type {
            body.insert("scimType".into(), t.into());
        }
        body.insert("detail".into(), self.detail.clone().into());
        Value::Object(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_body_has_the_status_as_a_string() {
        let body = ScimError::invalid_filter("bad").body();
        assert_eq!(body["status"], "400");
        assert_eq!(body["scimType"], "invalidFilter");
        assert_eq!(body["schemas"][0], ERROR);
        assert!(ScimError::new(404, None, "x")
            .body()
            .get("scimType")
            .is_none());
    }
}
