//! Operator input: accounts and token requests (product.md 3).

use serde_json::{Map, Value};

use super::card::{Mode, SqlValue};
use super::plan::Plan;
use super::token::{Scope, Scopes};
use super::validation::{self as v, FieldErrors};

pub const FEATURE_KEYS: [&str; 4] = [
    "api_access",
    "advanced_analytics",
    "white_label",
    "lead_form",
];

/// Validates a create or update account body into column changes. `null` for
/// `card_limit` or a feature resets it to the plan's value.
pub fn validate_account(
    body: &Map<String, Value>,
    mode: Mode,
) -> Result<Vec<(&'static str, SqlValue)>, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut out = Vec::new();
    match body.get("name") {
        None if mode == Mode::Update => {}
        None | Some(Value::Null) => errors.add("name", v::required("name")),
        Some(Value::String(s)) if s.trim().is_empty() => errors.add("name", v::required("name")),
        Some(Value::String(s)) if v::char_len(s.trim()) > 255 => {
            errors.add("name", v::max_chars("name", 255))
        }
        Some(Value::String(s)) => out.push(("name", SqlValue::Text(s.trim().to_string()))),
        Some(_) => errors.add("name", v::must_be_string("name")),
    }
    match body.get("plan") {
        None if mode == Mode::Update => {}
        None | Some(Value::Null) => errors.add("plan", v::required("plan")),
        Some(Value::String(s)) => match Plan::parse(s) {
            Some(p) => out.push(("plan", SqlValue::Text(p.as_str().to_string()))),
            None => errors.add("plan", v::invalid_choice("plan")),
        },
        Some(_) => errors.add("plan", v::must_be_string("plan")),
    }
    match body.get("card_limit") {
        None => {}
        Some(Value::Null) => out.push(("card_limit", SqlValue::Null)),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) if i < 0 => errors.add("card_limit", v::min_value("card_limit", 0)),
            Some(i) if i > 1_000_000 => errors.add(
                "card_limit",
                "The card limit field must not be greater than 1000000.".into(),
            ),
            Some(i) => out.push(("card_limit", SqlValue::Int(i))),
            None => errors.add("card_limit", v::must_be_integer("card_limit")),
        },
        Some(_) => errors.add("card_limit", v::must_be_integer("card_limit")),
    }
    match body.get("features") {
        None | Some(Value::Null) => {}
        Some(Value::Object(features)) => {
            for key in FEATURE_KEYS {
                let field = format!("features.{key}");
                match features.get(key) {
                    None => {}
                    Some(Value::Null) => out.push((key, SqlValue::Null)),
                    Some(Value::Bool(b)) => out.push((key, SqlValue::Int(*b as i64))),
                    Some(_) => errors.add(&field, v::must_be_boolean(&field)),
                }
            }
        }
        Some(_) => errors.add("features", v::must_be_object("features")),
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// `{name, scopes}` of a token request: at least one scope, all known.
pub fn validate_token_request(body: &Map<String, Value>) -> Result<(String, Scopes), FieldErrors> {
    let mut errors = FieldErrors::new();
    let name = match body.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() && v::char_len(s.trim()) <= 255 => {
            Some(s.trim().to_string())
        }
        Some(Value::String(s)) if !s.trim().is_empty() => {
            errors.add("name", v::max_chars("name", 255));
            None
        }
        None | Some(Value::Null) | Some(Value::String(_)) => {
            errors.add("name", v::required("name"));
            None
        }
        Some(_) => {
            errors.add("name", v::must_be_string("name"));
            None
        }
    };
    let mut scopes = Vec::new();
    match body.get("scopes") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, item) in items.iter().enumerate() {
                match item.as_str().and_then(Scope::parse) {
                    Some(s) => scopes.push(s),
                    None => errors.add(
                        &format!("scopes.{i}"),
                        v::invalid_choice(&format!("scopes.{i}")),
                    ),
                }
            }
        }
        None | Some(Value::Null) | Some(Value::Array(_)) => {
            errors.add("scopes", v::required("scopes"))
        }
        Some(_) => errors.add("scopes", v::must_be_array("scopes")),
    }
    match name {
        Some(name) if errors.is_empty() => Ok((name, Scopes::new(scopes))),
        _ => Err(errors),
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
        let c = validate_account(
            &obj(json!({"name": "Acme", "plan": "pro", "card_limit": 20,
                        "features": {"api_access": true, "white_label": null}})),
            Mode::Create,
        )
        .unwrap();
        assert_eq!(
            c,
            vec![
                ("name", SqlValue::Text("Acme".into())),
                ("plan", SqlValue::Text("pro".into())),
                ("card_limit", SqlValue::Int(20)),
                ("api_access", SqlValue::Int(1)),
                ("white_label", SqlValue::Null),
            ]
        );
        let e = validate_account(
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
        assert!(validate_account(&obj(json!({})), Mode::Update)
            .unwrap()
            .is_empty());
        let e = validate_account(
            &obj(json!({"features": {"lead_form": "yes"}})),
            Mode::Update,
        )
        .unwrap_err();
        assert!(e.has("features.lead_form"));
    }

    #[test]
    fn token_requests() {
        let (name, scopes) = validate_token_request(&obj(
            json!({"name": "CRM", "scopes": ["leads:read", "cards:read"]}),
        ))
        .unwrap();
        assert_eq!(name, "CRM");
        assert_eq!(scopes.names(), ["cards:read", "leads:read"]);
        let e = validate_token_request(&obj(json!({"scopes": []}))).unwrap_err();
        assert!(e.has("name") && e.has("scopes"));
        let e =
            validate_token_request(&obj(json!({"name": "x", "scopes": ["cards:read", "root"]})))
                .unwrap_err();
        assert_eq!(
            e.to_json()["scopes.1"][0],
            "The selected scopes.1 is invalid."
        );
    }
}
