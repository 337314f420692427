//! Leads: the form input, the stored record and the output shape (spec 2.2).

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::input::Input;
use super::representation::{record, show};
use super::validation::{self as v, FieldErrors, Rule};

/// The lead representation (spec 2.2) without its `card`, in its field order.
macro_rules! lead_fields {
    ($cb:ident $($pre:tt)*) => {
        $cb! {
            $($pre)*
            id: int,
            card_id: int,
            name: opt_text,
            email: opt_text,
            phone: opt_text,
            message: opt_text,
            note: opt_text,
            source: opt_text,
            // When the visitor consented (extensions.md 8); null when no consent was asked.
            consent_at: opt_time,
            created_at: time,
            updated_at: time,
        }
    };
}
pub(crate) use lead_fields;

lead_fields!(record
    /// A lead as stored. Rows map one to one, so the store decodes them straight into it.
    #[derive(Debug, Clone)]
    Lead;
);
lead_fields!(show Lead;);

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

/// Spec 2.2: a lead as shown, in the order of [`lead_fields!`], with its card when given.
#[derive(Debug)]
pub struct LeadView<'a> {
    lead: &'a Lead,
    card: Option<&'a CardSummary>,
}

impl Serialize for LeadView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut out = s.serialize_struct("Lead", Lead::SHOWN + 1)?;
        self.lead.show_fields("", &mut out)?;
        if let Some(card) = self.card {
            out.serialize_field("card", card)?;
        }
        out.end()
    }
}

impl Lead {
    pub fn view<'a>(&'a self, card: Option<&'a CardSummary>) -> LeadView<'a> {
        LeadView { lead: self, card }
    }
}

/// Sources a card page can be opened with (`?src=`); anything else is the plain form.
/// `wallet`: the QR code of a wallet pass (wallet.md 3).
pub const SOURCES: [&str; 5] = ["qr", "nfc", "email_signature", "link", "wallet"];

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
        assert_eq!(source(Some("wallet")), "wallet");
        assert_eq!(source(Some("evil")), "lead_form");
        assert_eq!(source(None), "lead_form");
    }
}
