//! Operator input: accounts and token requests (product.md 3), and the account record.

use serde::Serialize;
use serde_json::{Map, Value};

use super::input::{Field, Input, Mode};
use super::plan::{Features, Overrides, Plan};
use super::region::Region;
use super::time::iso8601;
use super::token::{Scope, Scopes};
use super::validation::{self as v, FieldErrors, Rule};

/// Per-account feature overrides as the operator sends them; `null` resets one to the
/// plan's value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeaturePatch {
    pub api_access: Field<bool>,
    pub advanced_analytics: Field<bool>,
    pub white_label: Field<bool>,
    pub lead_form: Field<bool>,
}

/// A validated create or update account body. On create `name` and `plan` are set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountPatch {
    pub name: Option<String>,
    pub plan: Option<Plan>,
    /// `null` resets the limit to the plan's.
    pub card_limit: Field<i64>,
    pub features: FeaturePatch,
    /// Days leads are kept (extensions.md 8); `null`: no limit.
    pub lead_retention_days: Field<i64>,
    /// When set, the lead form asks for consent and links here.
    pub privacy_policy_url: Field<String>,
    /// Create only (regions.md 2): a region of `SHARDS`; the handler checks it is one.
    /// An update that names it is refused: a move changes the region.
    pub data_region: Option<Region>,
}

pub const MAX_CARD_LIMIT: i64 = 1_000_000;
pub const MAX_RETENTION_DAYS: i64 = 3650;

impl AccountPatch {
    pub fn parse(body: &Map<String, Value>, mode: Mode) -> Result<AccountPatch, FieldErrors> {
        let mut input = Input::new(body);
        let name = match input.get("name") {
            // Unlike card names, a null name is "required" here, as the operator API
            // always answered.
            Field::Null => {
                input.fail("name", v::required("name"));
                None
            }
            _ => input.required_text("name", 255, mode),
        };
        let plan = match input.get("plan") {
            Field::Absent if mode == Mode::Update => None,
            Field::Absent | Field::Null => {
                input.fail("plan", v::required("plan"));
                None
            }
            Field::Set(_) => input.choice("plan", Plan::parse).value().copied(),
        };
        let card_limit = input.integer(
            "card_limit",
            0,
            MAX_CARD_LIMIT,
            "The card limit field must not be greater than 1000000.",
        );
        let mut features = FeaturePatch::default();
        match input.get("features") {
            Field::Absent | Field::Null => {}
            Field::Set(Value::Object(given)) => {
                let mut flag =
                    |key: &str| input.strict_bool_at(&format!("features.{key}"), given.get(key));
                features = FeaturePatch {
                    api_access: flag("api_access"),
                    advanced_analytics: flag("advanced_analytics"),
                    white_label: flag("white_label"),
                    lead_form: flag("lead_form"),
                };
            }
            Field::Set(_) => input.fail("features", v::must_be_object("features")),
        }
        let lead_retention_days = input.integer(
            "lead_retention_days",
            1,
            MAX_RETENTION_DAYS,
            "The lead retention days field must not be greater than 3650.",
        );
        let privacy_policy_url = input.text_as(
            "privacy_policy_url",
            2000,
            |u| super::weburl::parse_http(u).is_some_and(|u| u.scheme == "https"),
            Rule::Url,
        );
        let data_region = match mode {
            Mode::Create => match input.choice("data_region", Region::parse) {
                Field::Set(r) => Some(r),
                Field::Null => {
                    input.fail("data_region", v::invalid_choice("data_region"));
                    None
                }
                Field::Absent => None,
            },
            Mode::Update => {
                if !matches!(input.get("data_region"), Field::Absent) {
                    input.fail(
                        "data_region",
                        "The data region cannot be changed here; move the account \
                         (POST /admin/v1/accounts/{id}/move)."
                            .into(),
                    );
                }
                None
            }
        };
        input.finish(AccountPatch {
            name,
            plan,
            card_limit,
            features,
            lead_retention_days,
            privacy_policy_url,
            data_region,
        })
    }
}

/// An account as stored: its plan and the operator's overrides.
#[derive(Debug, Clone)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub plan: Plan,
    pub overrides: Overrides,
    pub lead_retention_days: Option<i64>,
    pub privacy_policy_url: Option<String>,
    pub created_at: i64,
    /// Where its data lives; known from the directory (a shard's copy leaves it `None`).
    pub placement: Option<Placement>,
}

/// An account's region and shard (regions.md 2), and the move that runs, if one does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub data_region: String,
    pub shard: String,
    pub moving: Option<i64>,
}

/// The Account of product.md 3, with effective values.
#[derive(Debug, Serialize)]
pub struct AccountView<'a> {
    pub id: i64,
    pub name: &'a str,
    pub plan: &'static str,
    pub card_limit: i64,
    pub features: Features,
    pub lead_retention_days: Option<i64>,
    pub privacy_policy_url: Option<&'a str>,
    pub created_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_region: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<&'a str>,
}

impl Account {
    /// Whether the account's tokens may use the API, and its webhooks deliver.
    pub fn api_access(&self) -> bool {
        self.overrides.effective(self.plan).0.api_access
    }

    pub fn view(&self) -> AccountView<'_> {
        let (features, card_limit) = self.overrides.effective(self.plan);
        AccountView {
            id: self.id,
            name: &self.name,
            plan: self.plan.as_str(),
            card_limit,
            features,
            lead_retention_days: self.lead_retention_days,
            privacy_policy_url: self.privacy_policy_url.as_deref(),
            created_at: iso8601(self.created_at),
            data_region: self.placement.as_ref().map(|p| p.data_region.as_str()),
            shard: self.placement.as_ref().map(|p| p.shard.as_str()),
        }
    }
}

/// `{name, scopes}` of a token request: at least one scope, all known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRequest {
    pub name: String,
    pub scopes: Scopes,
}

impl TokenRequest {
    pub fn parse(body: &Map<String, Value>) -> Result<TokenRequest, FieldErrors> {
        let mut input = Input::new(body);
        let name = match input.get("name") {
            Field::Null => {
                input.fail("name", v::required("name"));
                None
            }
            _ => input.required_text("name", 255, Mode::Create),
        };
        let mut scopes = Vec::new();
        match input.get("scopes") {
            Field::Set(Value::Array(items)) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    match item.as_str().and_then(Scope::parse) {
                        Some(s) => scopes.push(s),
                        None => {
                            let field = format!("scopes.{i}");
                            input.fail(&field, v::invalid_choice(&field))
                        }
                    }
                }
            }
            Field::Set(Value::Array(_)) | Field::Absent | Field::Null => {
                input.fail("scopes", v::required("scopes"))
            }
            Field::Set(_) => input.fail("scopes", v::must_be_array("scopes")),
        }
        let request = name.map(|name| TokenRequest {
            name,
            scopes: Scopes::new(scopes),
        });
        match input.finish(request)? {
            Some(request) => Ok(request),
            // A missing name was recorded as an error above.
            None => Err(FieldErrors::one("name", v::required("name"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn account_create_and_update() {
        let c = AccountPatch::parse(
            &obj(json!({"name": "Acme", "plan": "pro", "card_limit": 20,
                        "features": {"api_access": true, "white_label": null}})),
            Mode::Create,
        )
        .unwrap();
        assert_eq!(
            c,
            AccountPatch {
                name: Some("Acme".into()),
                plan: Some(Plan::Pro),
                card_limit: Field::Set(20),
                features: FeaturePatch {
                    api_access: Field::Set(true),
                    white_label: Field::Null,
                    ..FeaturePatch::default()
                },
                ..AccountPatch::default()
            }
        );
        let e = AccountPatch::parse(
            &obj(json!({"plan": "gold", "card_limit": -1})),
            Mode::Create,
        )
        .unwrap_err()
        .to_json();
        assert_eq!(e["name"][0], "The name field is required.");
        assert_eq!(e["plan"][0], "The selected plan is invalid.");
        assert_eq!(
            e["card_limit"][0],
            "The card limit field must be at least 0."
        );
        assert_eq!(
            AccountPatch::parse(&obj(json!({})), Mode::Update).unwrap(),
            AccountPatch::default()
        );
        let e = AccountPatch::parse(
            &obj(json!({"features": {"lead_form": "yes"}, "card_limit": 1000001, "name": null})),
            Mode::Update,
        )
        .unwrap_err();
        assert!(e.has("features.lead_form"));
        assert!(e.has("name"));
        assert_eq!(
            e.to_json()["card_limit"][0],
            "The card limit field must not be greater than 1000000."
        );
        let c = AccountPatch::parse(&obj(json!({"card_limit": null})), Mode::Update).unwrap();
        assert_eq!(c.card_limit, Field::Null);
    }

    #[test]
    fn retention_and_privacy_policy() {
        let c = AccountPatch::parse(
            &obj(json!({"lead_retention_days": 30,
                        "privacy_policy_url": "https://acme.example/privacy"})),
            Mode::Update,
        )
        .unwrap();
        assert_eq!(c.lead_retention_days, Field::Set(30));
        assert_eq!(
            c.privacy_policy_url,
            Field::Set("https://acme.example/privacy".into())
        );
        let c = AccountPatch::parse(
            &obj(json!({"lead_retention_days": null, "privacy_policy_url": null})),
            Mode::Update,
        )
        .unwrap();
        assert_eq!(
            (c.lead_retention_days, c.privacy_policy_url),
            (Field::Null, Field::Null)
        );
        let e = AccountPatch::parse(
            &obj(json!({"lead_retention_days": 0,
                        "privacy_policy_url": "http://acme.example/privacy"})),
            Mode::Update,
        )
        .unwrap_err();
        assert!(e.has("lead_retention_days") && e.has("privacy_policy_url"));
        let e = AccountPatch::parse(&obj(json!({"lead_retention_days": 3651})), Mode::Update)
            .unwrap_err();
        assert!(e.has("lead_retention_days"));
    }

    #[test]
    fn effective_values_in_the_view() {
        let a = Account {
            id: 1,
            name: "Acme".into(),
            plan: Plan::Free,
            overrides: Overrides {
                card_limit: Some(3),
                api_access: Some(true),
                ..Overrides::default()
            },
            lead_retention_days: None,
            privacy_policy_url: None,
            created_at: 0,
            placement: None,
        };
        let v = serde_json::to_value(a.view()).unwrap();
        assert_eq!(v["plan"], "free");
        assert_eq!(v["card_limit"], 3);
        assert_eq!(v["features"]["api_access"], true);
        assert_eq!(v["features"]["white_label"], false);
    }

    #[test]
    fn token_requests() {
        let r = TokenRequest::parse(&obj(
            json!({"name": "CRM", "scopes": ["leads:read", "cards:read"]}),
        ))
        .unwrap();
        assert_eq!(r.name, "CRM");
        assert_eq!(r.scopes.names(), ["cards:read", "leads:read"]);
        let e = TokenRequest::parse(&obj(json!({"scopes": []}))).unwrap_err();
        assert!(e.has("name") && e.has("scopes"));
        let e = TokenRequest::parse(&obj(json!({"name": "x", "scopes": ["cards:read", "root"]})))
            .unwrap_err();
        assert_eq!(
            e.to_json()["scopes.1"][0],
            "The selected scopes.1 is invalid."
        );
        let e = TokenRequest::parse(&obj(json!({"name": 5, "scopes": "x"}))).unwrap_err();
        assert_eq!(e.to_json()["name"][0], "The name field must be a string.");
        assert_eq!(
            e.to_json()["scopes"][0],
            "The scopes field must be an array."
        );
    }
}
