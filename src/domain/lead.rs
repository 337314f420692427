//! Leads: the form input, the stored record and the output shape (spec 2.2).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::input::Input;
use super::time::iso8601;
use super::validation::{self as v, FieldErrors, Rule};

/// A lead as stored. Rows map one to one, so the store decodes them straight into it.
#[derive(Debug, Clone, Deserialize)]
pub struct Lead {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub message: Option<String>,
    pub note: Option<String>,
    pub source: Option<String>,
    /// When the visitor consented (extensions.md 8); `None` when no consent was asked for.
    pub consent_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// getCard embeds at most this many leads, the newest (extensions.md 5); `listLeads?card_id=`
/// pages through all of them.
pub const LEADS_ON_CARD: i64 = 100;

/// The compact card reference of spec 2.2.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CardSummary {
    pub id: i64,
    pub slug: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
}

/// Spec 2.2, in its field order.
#[derive(Debug, Serialize)]
pub struct LeadView<'a> {
    pub id: i64,
    pub card_id: i64,
    pub name: Option<&'a str>,
    pub email: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub message: Option<&'a str>,
    pub note: Option<&'a str>,
    pub source: Option<&'a str>,
    pub consent_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card: Option<&'a CardSummary>,
}

impl Lead {
    pub fn view<'a>(&'a self, card: Option<&'a CardSummary>) -> LeadView<'a> {
        LeadView {
            id: self.id,
            card_id: self.card_id,
            name: self.name.as_deref(),
            email: self.email.as_deref(),
            phone: self.phone.as_deref(),
            message: self.message.as_deref(),
            note: self.note.as_deref(),
            source: self.source.as_deref(),
            consent_at: self.consent_at.map(iso8601),
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
    /// The visitor ticked the consent box (asked for when the account has a privacy policy).
    pub consent: bool,
}

/// A ticked checkbox as a form or a JSON client sends it.
pub fn consented(body: &Map<String, Value>) -> bool {
    match body.get("consent") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        Some(Value::String(s)) => matches!(s.trim(), "1" | "on" | "true" | "yes"),
        _ => false,
    }
}

/// `{email}` of an erasure request: required, an email address.
pub fn erase_request(body: &Map<String, Value>) -> Result<String, FieldErrors> {
    let mut input = Input::new(body);
    let email = input.text("email", 255).value().cloned();
    match &email {
        None if !input.has_error("email") => input.fail_rule("email", Rule::Required),
        Some(e) if !v::is_email(e) => input.fail_rule("email", Rule::Email),
        _ => {}
    }
    input.finish(email.unwrap_or_default())
}

/// Laravel's wording of the `accepted` rule, for a post without consent.
pub fn consent_required() -> String {
    "The consent field must be accepted.".into()
}

/// Lead form rules: name and email are required so the lead can be answered; phone and
/// message are optional. Formats are checked after every length, as they always were.
pub fn validate_lead(body: &Map<String, Value>) -> Result<LeadInput, FieldErrors> {
    let mut input = Input::new(body);
    let mut text = |field: &str, max: usize, required: bool| -> Option<String> {
        let value = input.text(field, usize::MAX).value().cloned();
        match value {
            None if required && !input.has_error(field) => {
                input.fail_rule(field, Rule::Required);
                None
            }
            Some(s) => input.max_chars(field, s, max),
            None => None,
        }
    };
    let name = text("name", 255, true);
    let email = text("email", 255, true);
    let phone = text("phone", 50, false);
    let message = text("message", 5000, false);
    if email.as_deref().is_some_and(|e| !v::is_email(e)) {
        input.fail_rule("email", Rule::Email);
    }
    if phone.as_deref().is_some_and(|p| !v::is_phone(p)) {
        input.fail_rule("phone", Rule::Format);
    }
    match (name, email) {
        (Some(name), Some(email)) => input.finish(LeadInput {
            name,
            email,
            phone,
            message,
            consent: consented(body),
        }),
        // Both missing means an error was recorded for them.
        _ => Err(input.finish(()).err().unwrap_or_default()),
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
                message: Some("Hi".into()),
                consent: false,
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
