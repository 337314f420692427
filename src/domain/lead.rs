//! Leads as stored and as returned (spec 2.2).

use serde::{Deserialize, Serialize};

use super::card::CardSummary;
use super::time::iso8601;
use super::validation::{self as v, FieldErrors};

#[derive(Debug, Clone, Deserialize)]
pub struct LeadRow {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub message: Option<String>,
    pub note: Option<String>,
    pub source: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

pub const LEAD_COLUMNS: &str =
    "id, card_id, name, email, phone, message, note, source, created_at, updated_at";

#[derive(Debug, Serialize)]
pub struct Lead<'a> {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<&'a str>,
    pub email: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub message: Option<&'a str>,
    pub note: Option<&'a str>,
    pub source: Option<&'a str>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<&'a CardSummary>,
}

impl LeadRow {
    pub fn to_lead<'a>(&'a self, card: Option<&'a CardSummary>) -> Lead<'a> {
        Lead {
            id: self.id,
            card_id: self.card_id,
            name: self.name.as_deref(),
            email: self.email.as_deref(),
            phone: self.phone.as_deref(),
            message: self.message.as_deref(),
            note: self.note.as_deref(),
            source: self.source.as_deref(),
            created_at: iso8601(self.created_at),
            updated_at: iso8601(self.updated_at),
            card,
        }
    }
}

/// Sources a card page can be opened with (`?src=`); anything else is the plain form.
pub const SOURCES: [&str; 4] = ["qr", "nfc", "email_signature", "link"];

pub fn source(src: Option<&str>) -> &'static str {
    src.and_then(|s| SOURCES.iter().find(|x| **x == s).copied())
        .unwrap_or("lead_form")
}

/// A validated lead from the public form.
#[derive(Debug, Clone, PartialEq)]
pub struct LeadInput {
    pub name: String,
    pub email: String,
    pub phone: Option<String>,
    pub message: Option<String>,
}

/// Lead form rules: name and email are required so the lead can be answered; phone and
/// message are optional.
pub fn validate_lead(
    body: &serde_json::Map<String, serde_json::Value>,
) -> Result<LeadInput, FieldErrors> {
    use serde_json::Value;
    let mut errors = FieldErrors::new();
    let mut text = |field: &str, max: usize, required: bool| -> Option<String> {
        let value = match body.get(field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.trim().to_string()).filter(|s| !s.is_empty()),
            Some(_) => {
                errors.add(field, v::must_be_string(field));
                return None;
            }
        };
        match value {
            None if required => {
                errors.add(field, v::required(field));
                None
            }
            Some(s) if v::char_len(&s) > max => {
                errors.add(field, v::max_chars(field, max));
                None
            }
            other => other,
        }
    };
    let name = text("name", 255, true);
    let email = text("email", 255, true);
    let phone = text("phone", 50, false);
    let message = text("message", 5000, false);
    if email.as_deref().is_some_and(|e| !v::is_email(e)) {
        errors.add("email", v::invalid_email("email"));
    }
    if phone.as_deref().is_some_and(|p| !v::is_phone(p)) {
        errors.add("phone", v::invalid_format("phone"));
    }
    match (name, email) {
        (Some(name), Some(email)) if errors.is_empty() => Ok(LeadInput {
            name,
            email,
            phone,
            message,
        }),
        _ => Err(errors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn lead_rules() {
        let ok = validate_lead(&body(
            json!({"name": " Ada ", "email": "a@b.co", "phone": "", "message": "Hi"}),
        ))
        .unwrap();
        assert_eq!(
            ok,
            LeadInput {
                name: "Ada".into(),
                email: "a@b.co".into(),
                phone: None,
                message: Some("Hi".into())
            }
        );
        let e = validate_lead(&body(
            json!({"email": "nope", "phone": "call me", "message": "m".repeat(5001)}),
        ))
        .unwrap_err();
        let j = e.to_json();
        assert_eq!(j["name"][0], "The name field is required.");
        assert_eq!(
            j["email"][0],
            "The email field must be a valid email address."
        );
        assert_eq!(j["phone"][0], "The phone field format is invalid.");
        assert_eq!(
            j["message"][0],
            "The message field must not be greater than 5000 characters."
        );
        assert!(validate_lead(&body(json!({"name": "A", "email": 5}))).is_err());
    }

    #[test]
    fn sources() {
        assert_eq!(source(Some("qr")), "qr");
        assert_eq!(source(Some("email_signature")), "email_signature");
        assert_eq!(source(Some("evil")), "lead_form");
        assert_eq!(source(None), "lead_form");
    }
}
