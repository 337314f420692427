//! Card input validation (spec 4.3, 4.4, 8), plan coercion (4.5) and the output shape (2.1).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::lang::{self, DEFAULT_LANGUAGE};
use super::lead::Lead;
use super::plan::Features;
use super::time::iso8601;
use super::validation::{self as v, FieldErrors};

/// A value bound to a D1 parameter; kept free of `worker` types so validation is testable
/// natively.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Int(i64),
    Text(String),
}

impl SqlValue {
    fn opt_text(s: Option<String>) -> SqlValue {
        s.map_or(SqlValue::Null, SqlValue::Text)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    Update,
}

/// How one input field is checked. The order of [`FIELDS`] is the order of spec 4.3, which
/// is also the order errors are reported in.
#[derive(Clone, Copy)]
enum Rule {
    /// first_name / last_name: required on create, a non-empty string whenever present.
    Name(usize),
    Text(usize),
    Email(usize),
    Phone(usize),
    Url(usize),
    SocialLinks,
    Object,
    Bool,
    Language,
    Status,
}

const FIELDS: [(&str, Rule); 21] = [
    ("first_name", Rule::Name(100)),
    ("last_name", Rule::Name(100)),
    ("job_title", Rule::Text(150)),
    ("company", Rule::Text(150)),
    ("bio", Rule::Text(1000)),
    ("email", Rule::Email(255)),
    ("phone", Rule::Phone(50)),
    ("website", Rule::Url(500)),
    ("booking_url", Rule::Url(500)),
    ("video_url", Rule::Url(500)),
    ("address", Rule::Text(500)),
    ("social_links", Rule::SocialLinks),
    ("design_config", Rule::Object),
    ("template_id", Rule::Text(50)),
    ("is_public", Rule::Bool),
    ("show_branding", Rule::Bool),
    ("show_lead_form", Rule::Bool),
    ("seo_title", Rule::Text(100)),
    ("seo_description", Rule::Text(250)),
    ("language", Rule::Language),
    ("status", Rule::Status),
];

pub const STATUSES: [&str; 3] = ["active", "draft", "archived"];

pub const PLATFORMS: [&str; 28] = [
    "linkedin",
    "xing",
    "x",
    "facebook",
    "instagram",
    "youtube",
    "tiktok",
    "github",
    "gitlab",
    "behance",
    "dribbble",
    "pinterest",
    "snapchat",
    "threads",
    "mastodon",
    "bluesky",
    "whatsapp",
    "telegram",
    "signal",
    "skype",
    "discord",
    "twitch",
    "spotify",
    "soundcloud",
    "vimeo",
    "medium",
    "website",
    "other",
];

pub const MAX_SOCIAL_LINKS: usize = 20;

/// Validated column changes, in [`FIELDS`] order. Column names come only from [`FIELDS`],
/// never from the request, so they are safe to splice into SQL.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardChanges {
    pub values: Vec<(&'static str, SqlValue)>,
}

impl CardChanges {
    pub fn get(&self, column: &str) -> Option<&SqlValue> {
        self.values
            .iter()
            .find(|(c, _)| *c == column)
            .map(|(_, v)| v)
    }

    pub fn text(&self, column: &str) -> Option<&str> {
        match self.get(column) {
            Some(SqlValue::Text(s)) => Some(s),
            _ => None,
        }
    }

    fn set(&mut self, column: &'static str, value: SqlValue) {
        match self.values.iter_mut().find(|(c, _)| *c == column) {
            Some(slot) => slot.1 = value,
            None => self.values.push((column, value)),
        }
    }

    fn remove(&mut self, column: &str) {
        self.values.retain(|(c, _)| *c != column);
    }
}

/// Strings are trimmed and an empty optional string counts as null, as Laravel's default
/// middleware does; integrators migrating from it rely on that.
fn text_value(value: &Value) -> Option<Option<String>> {
    match value {
        Value::Null => Some(None),
        Value::String(s) => {
            let t = s.trim();
            Some((!t.is_empty()).then(|| t.to_string()))
        }
        _ => None,
    }
}

/// Laravel's `boolean` rule: true, false, 1, 0, "1", "0".
fn bool_value(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) if n.as_i64() == Some(1) => Some(true),
        Value::Number(n) if n.as_i64() == Some(0) => Some(false),
        Value::String(s) if s == "1" || s == "true" => Some(true),
        Value::String(s) if s == "0" || s == "false" => Some(false),
        _ => None,
    }
}

/// Validates a create (4.3) or update (4.4) body. Unknown and output-only keys are ignored.
pub fn validate(body: &Map<String, Value>, mode: Mode) -> Result<CardChanges, FieldErrors> {
    let mut errors = FieldErrors::new();
    let mut changes = CardChanges::default();
    for (field, rule) in FIELDS {
        if field == "status" && mode == Mode::Create {
            continue;
        }
        let Some(value) = body.get(field) else {
            if matches!(rule, Rule::Name(_)) && mode == Mode::Create {
                errors.add(field, v::required(field));
            }
            continue;
        };
        match rule {
            Rule::Name(max) => match value {
                Value::Null if mode == Mode::Create => errors.add(field, v::required(field)),
                Value::String(s) if s.trim().is_empty() => errors.add(field, v::required(field)),
                Value::String(s) if v::char_len(s.trim()) > max => {
                    errors.add(field, v::max_chars(field, max))
                }
                Value::String(s) => changes.set(field, SqlValue::Text(s.trim().to_string())),
                _ => errors.add(field, v::must_be_string(field)),
            },
            Rule::Text(max) | Rule::Email(max) | Rule::Phone(max) | Rule::Url(max) => {
                let Some(text) = text_value(value) else {
                    errors.add(field, v::must_be_string(field));
                    continue;
                };
                if let Some(s) = &text {
                    let before = errors.clone();
                    if v::char_len(s) > max {
                        errors.add(field, v::max_chars(field, max));
                    }
                    match rule {
                        Rule::Email(_) if !v::is_email(s) => {
                            errors.add(field, v::invalid_email(field))
                        }
                        Rule::Phone(_) if !v::is_phone(s) => {
                            errors.add(field, v::invalid_format(field))
                        }
                        Rule::Url(_) if !v::is_http_url(s) => {
                            errors.add(field, v::invalid_url(field))
                        }
                        _ => {}
                    }
                    if errors != before {
                        continue;
                    }
                }
                changes.set(field, SqlValue::opt_text(text));
            }
            Rule::SocialLinks => match social_links(value, &mut errors) {
                Some(json) => changes.set(field, SqlValue::Text(json)),
                None => continue,
            },
            Rule::Object => match value {
                Value::Null => changes.set(field, SqlValue::Text("{}".into())),
                Value::Object(_) => changes.set(field, SqlValue::Text(value.to_string())),
                // PHP cannot tell `[]` from `{}`; accept the empty array as an empty object.
                Value::Array(a) if a.is_empty() => changes.set(field, SqlValue::Text("{}".into())),
                _ => errors.add(field, v::must_be_object(field)),
            },
            Rule::Bool => match value {
                // null means "use the default" on create and "leave unchanged" on update.
                Value::Null => {}
                _ => match bool_value(value) {
                    Some(b) => changes.set(field, SqlValue::Int(b as i64)),
                    None => errors.add(field, v::must_be_boolean(field)),
                },
            },
            Rule::Language => match value {
                Value::String(s) if lang::is_language(s) => {
                    changes.set(field, SqlValue::Text(s.clone()))
                }
                Value::String(_) => errors.add(field, v::invalid_choice(field)),
                // An explicit null is a 422 (spec 4.3), not "use the default".
                _ => errors.add(field, v::must_be_string(field)),
            },
            Rule::Status => match value {
                Value::Null => {}
                Value::String(s) if STATUSES.contains(&s.as_str()) => {
                    changes.set(field, SqlValue::Text(s.clone()))
                }
                Value::String(_) => errors.add(field, v::invalid_choice(field)),
                _ => errors.add(field, v::must_be_string(field)),
            },
        }
    }
    if errors.is_empty() {
        Ok(changes)
    } else {
        Err(errors)
    }
}

/// Validates and normalises `social_links` to `[{platform, url, label}]` JSON text.
fn social_links(value: &Value, errors: &mut FieldErrors) -> Option<String> {
    const FIELD: &str = "social_links";
    let items = match value {
        Value::Null => return Some("[]".into()),
        Value::Array(items) => items,
        _ => {
            errors.add(FIELD, v::must_be_array(FIELD));
            return None;
        }
    };
    if items.len() > MAX_SOCIAL_LINKS {
        errors.add(FIELD, v::max_items(FIELD, MAX_SOCIAL_LINKS));
        return None;
    }
    let before = errors.clone();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let key = |name: &str| format!("{FIELD}.{i}.{name}");
        let Some(obj) = item.as_object() else {
            errors.add(
                &format!("{FIELD}.{i}"),
                v::must_be_object(&format!("{FIELD}.{i}")),
            );
            continue;
        };
        let platform = match obj.get("platform") {
            None | Some(Value::Null) => {
                errors.add(&key("platform"), v::required(&key("platform")));
                None
            }
            Some(Value::String(p)) if PLATFORMS.contains(&p.as_str()) => Some(p.clone()),
            Some(Value::String(_)) => {
                errors.add(&key("platform"), v::invalid_choice(&key("platform")));
                None
            }
            Some(_) => {
                errors.add(&key("platform"), v::must_be_string(&key("platform")));
                None
            }
        };
        let url = match obj.get("url").map(text_value) {
            None | Some(Some(None)) => {
                errors.add(&key("url"), v::required(&key("url")));
                None
            }
            Some(None) => {
                errors.add(&key("url"), v::must_be_string(&key("url")));
                None
            }
            Some(Some(Some(u))) => {
                if v::char_len(&u) > 500 {
                    errors.add(&key("url"), v::max_chars(&key("url"), 500));
                    None
                } else if !is_link_or_handle(&u) {
                    errors.add(&key("url"), v::invalid_format(&key("url")));
                    None
                } else {
                    Some(u)
                }
            }
        };
        let label = match obj.get("label").map(text_value) {
            None => None,
            Some(None) => {
                errors.add(&key("label"), v::must_be_string(&key("label")));
                None
            }
            Some(Some(l)) => match l {
                Some(l) if v::char_len(&l) > 100 => {
                    errors.add(&key("label"), v::max_chars(&key("label"), 100));
                    None
                }
                l => l,
            },
        };
        if let (Some(platform), Some(url)) = (platform, url) {
            out.push(serde_json::json!({"platform": platform, "url": url, "label": label}));
        }
    }
    (errors == &before).then(|| Value::Array(out).to_string())
}

/// product.md: an `http(s)://` URI, or a handle of 1-500 characters without whitespace.
pub fn is_link_or_handle(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        v::is_http_url(s)
    } else {
        !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control())
    }
}

/// Spec 4.5: plan-gated fields are coerced, never rejected. On create the defaults are
/// filled in too, so the insert names every column it sets.
pub fn apply_plan(changes: &mut CardChanges, features: Features, mode: Mode) {
    if !features.advanced_analytics {
        changes.remove("video_url");
    }
    if mode == Mode::Create {
        for (column, default) in [
            ("is_public", 1),
            ("show_branding", 1),
            ("show_lead_form", features.lead_form as i64),
        ] {
            if changes.get(column).is_none() {
                changes.set(column, SqlValue::Int(default));
            }
        }
        if changes.get("language").is_none() {
            changes.set("language", SqlValue::Text(DEFAULT_LANGUAGE.into()));
        }
    }
    if !features.white_label && changes.get("show_branding").is_some() {
        changes.set("show_branding", SqlValue::Int(1));
    }
    if !features.lead_form && changes.get("show_lead_form").is_some() {
        changes.set("show_lead_form", SqlValue::Int(0));
    }
}

/// A card row as D1 returns it: booleans are 0/1, timestamps are Unix milliseconds, and
/// the free-form objects are JSON text.
#[derive(Debug, Clone, Deserialize)]
pub struct CardRow {
    pub id: i64,
    pub account_id: i64,
    pub slug: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
    pub job_title: Option<String>,
    pub company: Option<String>,
    pub bio: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub booking_url: Option<String>,
    pub video_url: Option<String>,
    pub address: Option<String>,
    pub tagline: Option<String>,
    pub company_registration: Option<String>,
    pub vat_id: Option<String>,
    pub social_links: String,
    pub design_config: String,
    pub section_visibility: String,
    pub template_id: Option<String>,
    pub card_type: Option<String>,
    pub is_public: i64,
    pub is_password_protected: i64,
    pub show_branding: i64,
    pub show_lead_form: i64,
    pub seo_title: Option<String>,
    pub seo_description: Option<String>,
    pub seo_indexable: i64,
    pub status: String,
    pub language: String,
    pub translations: String,
    pub published_at: Option<i64>,
    pub expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// The columns of [`CardRow`], for `SELECT` lists.
pub const CARD_COLUMNS: &str =
    "id, account_id, slug, title, first_name, last_name, job_title, company, \
    bio, email, phone, website, booking_url, video_url, address, tagline, \
    company_registration, vat_id, social_links, design_config, section_visibility, \
    template_id, card_type, is_public, is_password_protected, show_branding, show_lead_form, \
    seo_title, seo_description, seo_indexable, status, language, translations, published_at, \
    expires_at, created_at, updated_at";

/// JSON text from our own writes is embedded as is; anything unparsable (a hand-edited row)
/// degrades to the empty value instead of failing the request.
fn raw_json(text: &str, empty: &'static str) -> Box<RawValue> {
    RawValue::from_string(text.to_string())
        .or_else(|_| RawValue::from_string(empty.to_string()))
        .unwrap_or_default()
}

/// Spec 2.1, in its field order.
#[derive(Debug, Serialize)]
pub struct Card<'a> {
    pub id: i64,
    pub slug: &'a str,
    pub title: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub job_title: Option<&'a str>,
    pub company: Option<&'a str>,
    pub bio: Option<&'a str>,
    pub email: Option<&'a str>,
    pub phone: Option<&'a str>,
    pub website: Option<&'a str>,
    pub booking_url: Option<&'a str>,
    pub video_url: Option<&'a str>,
    pub address: Option<&'a str>,
    pub tagline: Option<&'a str>,
    pub company_registration: Option<&'a str>,
    pub vat_id: Option<&'a str>,
    pub social_links: Box<RawValue>,
    pub design_config: Box<RawValue>,
    pub section_visibility: Box<RawValue>,
    pub template_id: Option<&'a str>,
    pub card_type: Option<&'a str>,
    pub is_public: bool,
    pub is_password_protected: bool,
    pub show_branding: bool,
    pub show_lead_form: bool,
    pub seo_title: Option<&'a str>,
    pub seo_description: Option<&'a str>,
    pub seo_indexable: bool,
    pub status: &'a str,
    pub language: &'a str,
    pub available_languages: Vec<String>,
    pub translations: Box<RawValue>,
    pub public_url: String,
    pub published_at: Option<String>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Only on single-card reads (spec 2.1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leads: Option<Vec<Lead<'a>>>,
}

impl CardRow {
    pub fn public_url(&self, base_url: &str) -> String {
        format!("{}/c/{}", base_url.trim_end_matches('/'), self.slug)
    }

    pub fn to_card<'a>(&'a self, base_url: &str) -> Card<'a> {
        let translations: Value = serde_json::from_str(&self.translations).unwrap_or_default();
        Card {
            id: self.id,
            slug: &self.slug,
            title: &self.title,
            first_name: &self.first_name,
            last_name: &self.last_name,
            job_title: self.job_title.as_deref(),
            company: self.company.as_deref(),
            bio: self.bio.as_deref(),
            email: self.email.as_deref(),
            phone: self.phone.as_deref(),
            website: self.website.as_deref(),
            booking_url: self.booking_url.as_deref(),
            video_url: self.video_url.as_deref(),
            address: self.address.as_deref(),
            tagline: self.tagline.as_deref(),
            company_registration: self.company_registration.as_deref(),
            vat_id: self.vat_id.as_deref(),
            social_links: raw_json(&self.social_links, "[]"),
            design_config: raw_json(&self.design_config, "{}"),
            section_visibility: raw_json(&self.section_visibility, "{}"),
            template_id: self.template_id.as_deref(),
            card_type: self.card_type.as_deref(),
            is_public: self.is_public != 0,
            is_password_protected: self.is_password_protected != 0,
            show_branding: self.show_branding != 0,
            show_lead_form: self.show_lead_form != 0,
            seo_title: self.seo_title.as_deref(),
            seo_description: self.seo_description.as_deref(),
            seo_indexable: self.seo_indexable != 0,
            status: &self.status,
            language: &self.language,
            available_languages: lang::available_languages(&self.language, &translations),
            translations: raw_json(&self.translations, "{}"),
            public_url: self.public_url(base_url),
            published_at: self.published_at.map(iso8601),
            expires_at: self.expires_at.map(iso8601),
            created_at: iso8601(self.created_at),
            updated_at: iso8601(self.updated_at),
            leads: None,
        }
    }

    /// Whether the public page may be shown at `now_ms` (product.md 4).
    pub fn is_live(&self, now_ms: i64) -> bool {
        self.is_public != 0 && self.status == "active" && self.expires_at.is_none_or(|e| e > now_ms)
    }
}

/// The compact reference of spec 2.2.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CardSummary {
    pub id: i64,
    pub slug: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    fn errs(v: Value, mode: Mode) -> Value {
        validate(&obj(v), mode).unwrap_err().to_json()
    }

    const ALL: Features = Features {
        api_access: true,
        advanced_analytics: true,
        white_label: true,
        lead_form: true,
    };
    const NONE: Features = Features {
        api_access: true,
        advanced_analytics: false,
        white_label: false,
        lead_form: false,
    };

    #[test]
    fn create_requires_names() {
        let e = validate(&obj(json!({})), Mode::Create).unwrap_err();
        assert_eq!(
            e.summary(),
            "The first name field is required. (and 1 more error)"
        );
        assert_eq!(
            errs(json!({"first_name": null, "last_name": "  "}), Mode::Create),
            json!({"first_name": ["The first name field is required."],
                   "last_name": ["The last name field is required."]})
        );
        assert!(validate(&obj(json!({})), Mode::Update)
            .unwrap()
            .values
            .is_empty());
    }

    #[test]
    fn lengths_at_and_over_the_limit() {
        let limits = [
            ("first_name", 100),
            ("last_name", 100),
            ("job_title", 150),
            ("company", 150),
            ("bio", 1000),
            ("address", 500),
            ("template_id", 50),
            ("seo_title", 100),
            ("seo_description", 250),
        ];
        for (field, max) in limits {
            let ok = json!({"first_name": "A", "last_name": "B", field: "é".repeat(max)});
            assert!(validate(&obj(ok), Mode::Create).is_ok(), "{field} at {max}");
            let bad = json!({field: "é".repeat(max + 1)});
            let e = errs(bad, Mode::Update);
            assert_eq!(
                e[field][0],
                format!(
                    "The {} field must not be greater than {max} characters.",
                    field.replace('_', " ")
                )
            );
        }
        let url = format!("https://e.com/{}", "a".repeat(500 - 14));
        assert!(validate(&obj(json!({"website": url})), Mode::Update).is_ok());
        assert!(validate(&obj(json!({"website": format!("{url}a")})), Mode::Update).is_err());
        let mail = format!(
            "{}@{}.{}.{}.com",
            "a".repeat(64),
            "b".repeat(60),
            "c".repeat(61),
            "d".repeat(63)
        );
        assert_eq!(mail.len(), 255);
        assert!(validate(&obj(json!({"email": mail})), Mode::Update).is_ok());
        let phone = "1".repeat(50);
        assert!(validate(&obj(json!({"phone": phone})), Mode::Update).is_ok());
        assert!(validate(&obj(json!({"phone": "1".repeat(51)})), Mode::Update).is_err());
    }

    #[test]
    fn formats_and_types() {
        let e = errs(
            json!({"email": "nope", "phone": "abc", "website": "javascript:alert(1)",
                   "company": 5, "is_public": "yes", "design_config": [1],
                   "language": "xx", "status": "gone"}),
            Mode::Update,
        );
        assert_eq!(
            e["email"][0],
            "The email field must be a valid email address."
        );
        assert_eq!(e["phone"][0], "The phone field format is invalid.");
        assert_eq!(e["website"][0], "The website field must be a valid URL.");
        assert_eq!(e["company"][0], "The company field must be a string.");
        assert_eq!(
            e["is_public"][0],
            "The is public field must be true or false."
        );
        assert_eq!(
            e["design_config"][0],
            "The design config field must be an object."
        );
        assert_eq!(e["language"][0], "The selected language is invalid.");
        assert_eq!(e["status"][0], "The selected status is invalid.");
    }

    #[test]
    fn language_null_is_rejected_and_status_null_accepted() {
        let e = errs(json!({"language": null}), Mode::Update);
        assert!(e.get("language").is_some());
        let c = validate(&obj(json!({"status": null})), Mode::Update).unwrap();
        assert!(c.values.is_empty());
        // status is not accepted on create: ignored like any unknown key
        let c = validate(
            &obj(json!({"first_name": "a", "last_name": "b", "status": "draft"})),
            Mode::Create,
        )
        .unwrap();
        assert!(c.get("status").is_none());
    }

    #[test]
    fn empty_optional_strings_become_null_and_strings_are_trimmed() {
        let c = validate(&obj(json!({"company": "", "bio": "  hi  "})), Mode::Update).unwrap();
        assert_eq!(c.get("company"), Some(&SqlValue::Null));
        assert_eq!(c.text("bio"), Some("hi"));
    }

    #[test]
    fn output_only_and_unknown_fields_are_ignored() {
        let c = validate(
            &obj(
                json!({"tagline": "x", "vat_id": "y", "id": 9, "slug": "s", "foo": 1,
                        "translations": {"de": {}}, "seo_indexable": false}),
            ),
            Mode::Update,
        )
        .unwrap();
        assert!(c.values.is_empty());
    }

    #[test]
    fn social_links_rules() {
        let ok = json!({"social_links": [
            {"platform": "linkedin", "url": "https://linkedin.com/in/x", "label": "Me"},
            {"platform": "mastodon", "url": "@me@social.example"}]});
        let c = validate(&obj(ok), Mode::Update).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(c.text("social_links").unwrap()).unwrap(),
            json!([{"platform": "linkedin", "url": "https://linkedin.com/in/x", "label": "Me"},
                   {"platform": "mastodon", "url": "@me@social.example", "label": null}])
        );
        let many: Vec<Value> = (0..21)
            .map(|_| json!({"platform": "x", "url": "h"}))
            .collect();
        assert_eq!(
            errs(json!({"social_links": many}), Mode::Update)["social_links"][0],
            "The social links field must not have more than 20 items."
        );
        let twenty: Vec<Value> = (0..20)
            .map(|_| json!({"platform": "x", "url": "h"}))
            .collect();
        assert!(validate(&obj(json!({"social_links": twenty})), Mode::Update).is_ok());
        let e = errs(
            json!({"social_links": [
                {"platform": "myspace", "url": "has space"},
                {"platform": "x", "url": "a".repeat(501), "label": "l".repeat(101)},
                "str",
                {"url": "https://"}]}),
            Mode::Update,
        );
        assert_eq!(
            e["social_links.0.platform"][0],
            "The selected social links.0.platform is invalid."
        );
        assert_eq!(
            e["social_links.0.url"][0],
            "The social links.0.url field format is invalid."
        );
        assert!(e.get("social_links.1.url").is_some());
        assert!(e.get("social_links.1.label").is_some());
        assert!(e.get("social_links.2").is_some());
        assert_eq!(
            e["social_links.3.platform"][0],
            "The social links.3.platform field is required."
        );
        assert!(e.get("social_links.3.url").is_some());
        let c = validate(&obj(json!({"social_links": null})), Mode::Update).unwrap();
        assert_eq!(c.text("social_links"), Some("[]"));
    }

    #[test]
    fn plan_coercion() {
        let body = obj(json!({"first_name": "a", "last_name": "b",
            "video_url": "https://v.example/1", "show_branding": false, "show_lead_form": true}));
        let mut c = validate(&body, Mode::Create).unwrap();
        apply_plan(&mut c, NONE, Mode::Create);
        assert!(c.get("video_url").is_none());
        assert_eq!(c.get("show_branding"), Some(&SqlValue::Int(1)));
        assert_eq!(c.get("show_lead_form"), Some(&SqlValue::Int(0)));
        assert_eq!(c.text("language"), Some("en"));
        let mut c = validate(&body, Mode::Create).unwrap();
        apply_plan(&mut c, ALL, Mode::Create);
        assert_eq!(c.text("video_url"), Some("https://v.example/1"));
        assert_eq!(c.get("show_branding"), Some(&SqlValue::Int(0)));
        assert_eq!(c.get("show_lead_form"), Some(&SqlValue::Int(1)));
        assert_eq!(c.get("is_public"), Some(&SqlValue::Int(1)));
        let mut c = validate(&obj(json!({"bio": "x"})), Mode::Update).unwrap();
        apply_plan(&mut c, NONE, Mode::Update);
        assert_eq!(
            c.values.len(),
            1,
            "update leaves unprovided gated fields alone"
        );
    }

    #[test]
    fn booleans_accept_laravel_forms() {
        for (input, expect) in [
            (json!(true), 1),
            (json!(0), 0),
            (json!("1"), 1),
            (json!("false"), 0),
        ] {
            let c = validate(&obj(json!({"is_public": input})), Mode::Update).unwrap();
            assert_eq!(c.get("is_public"), Some(&SqlValue::Int(expect)));
        }
    }
}
