//! Validation errors in the shape of spec section 7 (422), worded like Laravel so that
//! integrators migrating from the PHP service see the messages they already handle.

use serde_json::{Map, Value};

/// Which rule a value broke, so a message can be worded in another language too (the
/// card page speaks the card's). `Other` carries only its English message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Required,
    String,
    /// Laravel's `min` of a string: at least this many characters.
    MinChars(usize),
    MaxChars(usize),
    Email,
    Url,
    Format,
    Boolean,
    Choice,
    Integer,
    Min(i64),
    Array,
    Object,
    MaxItems(usize),
    /// Laravel's `unique`: another record of the account has the value.
    Taken,
    /// A field the card's company template locks (teams.md 1).
    Locked,
    Other,
}

impl Rule {
    /// The English message, as Laravel words it.
    pub fn message(self, field: &str) -> String {
        match self {
            Rule::Required => required(field),
            Rule::String => must_be_string(field),
            Rule::MinChars(n) => min_chars(field, n),
            Rule::MaxChars(n) => max_chars(field, n),
            Rule::Email => invalid_email(field),
            Rule::Url => invalid_url(field),
            Rule::Format => invalid_format(field),
            Rule::Boolean => must_be_boolean(field),
            Rule::Choice => invalid_choice(field),
            Rule::Integer => must_be_integer(field),
            Rule::Min(n) => min_value(field, n),
            Rule::Array => must_be_array(field),
            Rule::Object => must_be_object(field),
            Rule::MaxItems(n) => max_items(field, n),
            Rule::Taken => format!("The {} has already been taken.", attribute(field)),
            Rule::Locked => format!("The {} is set by the company template.", attribute(field)),
            Rule::Other => format!("The {} field is invalid.", attribute(field)),
        }
    }
}

/// Field errors in the order they were found (the first one becomes `message`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FieldErrors {
    entries: Vec<(String, Vec<(Rule, String)>)>,
}

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    /// A single error, for checks that stand alone (`period`, `card_id`, ...).
    pub fn one(field: &str, message: String) -> Self {
        let mut errors = Self::new();
        errors.add(field, message);
        errors
    }

    /// A single broken rule.
    pub fn rule(field: &str, rule: Rule) -> Self {
        let mut errors = Self::new();
        errors.add_rule(field, rule);
        errors
    }

    /// A message of no particular rule.
    pub fn add(&mut self, field: &str, message: String) {
        self.add_as(field, Rule::Other, message);
    }

    /// A broken rule in its English wording.
    pub fn add_rule(&mut self, field: &str, rule: Rule) {
        self.add_as(field, rule, rule.message(field));
    }

    fn add_as(&mut self, field: &str, rule: Rule, message: String) {
        match self.entries.iter_mut().find(|(f, _)| f == field) {
            Some((_, messages)) => messages.push((rule, message)),
            None => self
                .entries
                .push((field.to_string(), vec![(rule, message)])),
        }
    }

    /// The rules a field broke with their English messages, in order.
    pub fn of(&self, field: &str) -> &[(Rule, String)] {
        self.entries
            .iter()
            .find(|(f, _)| f == field)
            .map_or(&[], |(_, m)| m.as_slice())
    }

    /// Every field, rule and message, in order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, Rule, &str)> {
        self.entries
            .iter()
            .flat_map(|(f, m)| m.iter().map(move |(r, t)| (f.as_str(), *r, t.as_str())))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn has(&self, field: &str) -> bool {
        self.entries.iter().any(|(f, _)| f == field)
    }

    /// Whether `field` broke `rule`.
    pub fn broke(&self, field: &str, rule: Rule) -> bool {
        self.entries
            .iter()
            .any(|(f, m)| f == field && m.iter().any(|(r, _)| *r == rule))
    }

    /// The first message, then ` (and N more error[s])` as Laravel summarises.
    pub fn summary(&self) -> String {
        let total: usize = self.entries.iter().map(|(_, m)| m.len()).sum();
        let first = self
            .entries
            .first()
            .and_then(|(_, m)| m.first())
            .map(|(_, text)| text.clone())
            .unwrap_or_else(|| "The given data was invalid.".to_string());
        match total.saturating_sub(1) {
            0 => first,
            1 => format!("{first} (and 1 more error)"),
            n => format!("{first} (and {n} more errors)"),
        }
    }

    /// The `errors` object: field name to list of messages.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        for (field, messages) in &self.entries {
            map.insert(
                field.clone(),
                Value::Array(
                    messages
                        .iter()
                        .map(|(_, text)| Value::String(text.clone()))
                        .collect(),
                ),
            );
        }
        Value::Object(map)
    }
}

/// `first_name` -> `first name`; nested keys keep their dots (`social links.3.url`).
pub fn attribute(field: &str) -> String {
    field.replace('_', " ")
}

pub fn required(field: &str) -> String {
    format!("The {} field is required.", attribute(field))
}
pub fn must_be_string(field: &str) -> String {
    format!("The {} field must be a string.", attribute(field))
}
/// Laravel words it so for any `min`, one included.
pub fn min_chars(field: &str, min: usize) -> String {
    format!(
        "The {} field must be at least {min} characters.",
        attribute(field)
    )
}
pub fn max_chars(field: &str, max: usize) -> String {
    format!(
        "The {} field must not be greater than {max} characters.",
        attribute(field)
    )
}
pub fn max_items(field: &str, max: usize) -> String {
    format!(
        "The {} field must not have more than {max} items.",
        attribute(field)
    )
}
pub fn must_be_boolean(field: &str) -> String {
    format!("The {} field must be true or false.", attribute(field))
}
pub fn must_be_array(field: &str) -> String {
    format!("The {} field must be an array.", attribute(field))
}
pub fn must_be_object(field: &str) -> String {
    format!("The {} field must be an object.", attribute(field))
}
pub fn must_be_integer(field: &str) -> String {
    format!("The {} field must be an integer.", attribute(field))
}
pub fn min_value(field: &str, min: i64) -> String {
    format!("The {} field must be at least {min}.", attribute(field))
}
pub fn invalid_choice(field: &str) -> String {
    format!("The selected {} is invalid.", attribute(field))
}
pub fn invalid_email(field: &str) -> String {
    format!(
        "The {} field must be a valid email address.",
        attribute(field)
    )
}
pub fn invalid_url(field: &str) -> String {
    format!("The {} field must be a valid URL.", attribute(field))
}
pub fn invalid_format(field: &str) -> String {
    format!("The {} field format is invalid.", attribute(field))
}

/// Character count as users see it (not bytes), like PHP's `mb_strlen`.
pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// A pragmatic RFC 5322 subset: one `@`, a non-empty local part without spaces or
/// control characters, and a dotted domain of letters, digits and hyphens.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    if local.is_empty()
        || local.len() > 64
        || local.starts_with('.')
        || local.ends_with('.')
        || local.contains("..")
        || local
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "@<>()[]\\,;:\"".contains(c))
    {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.chars().all(|c| c.is_alphabetic()) && tld.len() >= 2)
}

/// An absolute `http` or `https` URL with a host; nothing else is linked from a card.
pub fn is_http_url(s: &str) -> bool {
    super::weburl::parse_http(s).is_some()
}

/// Digits, spaces and `+ - ( ) . /` (spec 4.3), with at least one digit.
pub fn is_phone(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_digit() || " +-()./".contains(c))
        && s.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_the_other_messages() {
        let mut e = FieldErrors::new();
        assert_eq!(e.summary(), "The given data was invalid.");
        e.add("first_name", required("first_name"));
        assert_eq!(e.summary(), "The first name field is required.");
        e.add("last_name", required("last_name"));
        assert_eq!(
            e.summary(),
            "The first name field is required. (and 1 more error)"
        );
        e.add("last_name", max_chars("last_name", 100));
        assert_eq!(
            e.summary(),
            "The first name field is required. (and 2 more errors)"
        );
        assert_eq!(
            e.to_json(),
            serde_json::json!({
                "first_name": ["The first name field is required."],
                "last_name": ["The last name field is required.",
                              "The last name field must not be greater than 100 characters."]
            })
        );
    }

    #[test]
    fn nested_attributes_keep_their_path() {
        assert_eq!(
            required("social_links.3.url"),
            "The social links.3.url field is required."
        );
    }

    #[test]
    fn emails() {
        for ok in [
            "a@b.co",
            "first.last+tag@sub.example.com",
            "jürgen@bücher.de",
        ] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "",
            "a",
            "a@",
            "@b.co",
            "a@b",
            "a b@c.de",
            "a@b..co",
            "a@-b.co",
            "a@b.c",
            "a@b.c0",
            ".a@b.co",
            "a..b@c.de",
            "<a>@b.co",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn urls_are_http_only() {
        assert!(is_http_url("https://example.com/path?q=1"));
        assert!(is_http_url("http://localhost:8787"));
        for bad in [
            "javascript:alert(1)",
            "example.com",
            "ftp://example.com",
            "https://",
            "https://exa mple.com",
            "https://user:pw@example.com",
            "data:text/html,hi",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }

    #[test]
    fn phones() {
        assert!(is_phone("+49 (30) 123-456.7/8"));
        assert!(!is_phone("call me"));
        assert!(!is_phone("+49 30 123 ext"));
        assert!(!is_phone("+ - ()"));
    }

    #[test]
    fn lengths_count_characters() {
        assert_eq!(char_len("Groß"), 4);
    }
}
