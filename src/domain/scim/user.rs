//! One SCIM User is one card (provisioning.md 2). A write keeps two things: the card's
//! fields, mapped from the User by the spec's table and checked by the card's own rules
//! ([`CardInput::parse`], [`CardPatch::parse`]), and the User's attributes as written
//! (`scim_user`, JSON; userName and externalId have columns of their own). A read gives the
//! attributes as written, except where the card's field no longer is what they map to (the
//! API changed it since): that attribute is the card's. So a User reads back exactly as an
//! identity provider wrote it (types, `primary` flags, address parts, an attribute it
//! removed stays absent), and changes made through the API still show.

use serde_json::{Map, Value};

use super::user_name::{refused_char, user_name_key};
use super::{ScimError, ENTERPRISE, USER};
use crate::domain::card::{Card, CardInput, CardPatch, ScimColumns, Status};
use crate::domain::email_key::Form;
use crate::domain::input::Field;
use crate::domain::lang::{is_language, DEFAULT_LANGUAGE};
use crate::domain::time::iso8601;
use crate::domain::validation::FieldErrors;

/// The attributes a User keeps, in the casing of RFC 7643 4.1, each with its
/// sub-attributes (none for a simple one): exactly what `/Schemas` declares (a test holds
/// the two equal). Anything else a client sends is dropped.
pub const ATTRIBUTES: &[(&str, &[&str])] = &[
    ("userName", &[]),
    (
        "name",
        &[
            "formatted",
            "familyName",
            "givenName",
            "middleName",
            "honorificPrefix",
            "honorificSuffix",
        ],
    ),
    ("displayName", &[]),
    ("title", &[]),
    ("preferredLanguage", &[]),
    ("active", &[]),
    ("emails", &["value", "display", "type", "primary"]),
    ("phoneNumbers", &["value", "display", "type", "primary"]),
    (
        "addresses",
        &[
            "formatted",
            "streetAddress",
            "locality",
            "region",
            "postalCode",
            "country",
            "type",
            "primary",
        ],
    ),
    (ENTERPRISE, &["organization"]),
];

/// The multi-valued attributes (arrays of objects).
const MULTI: [&str; 3] = ["emails", "phoneNumbers", "addresses"];
/// The boolean attributes and sub-attributes; Entra ID sends them as "True"/"False".
const BOOLEANS: [&str; 2] = ["active", "primary"];
/// At most this many values of a multi-valued attribute are kept.
const MAX_VALUES: usize = 10;
/// The longest text kept of an attribute the card has no field for (displayName, address
/// parts, types): the card's own fields have their own limits.
const MAX_TEXT: usize = 500;

/// An attribute's name in its canonical casing (names are case-insensitive, RFC 7643 2.1),
/// or `None` for one this service does not keep.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    ATTRIBUTES
        .iter()
        .map(|(a, _)| *a)
        .chain(["externalId"])
        .find(|a| a.eq_ignore_ascii_case(name))
}

/// A sub-attribute of `attribute` in its canonical casing.
pub fn canonical_sub(attribute: &str, name: &str) -> Option<&'static str> {
    let (_, subs) = ATTRIBUTES.iter().find(|(a, _)| *a == attribute)?;
    subs.iter().copied().find(|s| s.eq_ignore_ascii_case(name))
}

/// A boolean as identity providers send it: JSON or "true"/"false" in any case.
pub fn boolean(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// One value of an attribute, checked and normalised: strings, booleans, objects of known
/// sub-attributes; nulls, empty strings and empty objects are "no value".
fn value_of(attr: &str, sub: Option<&str>, v: &Value) -> Result<Option<Value>, ScimError> {
    let name = sub.unwrap_or(attr);
    let path = match sub {
        Some(s) => format!("{attr}.{s}"),
        None => attr.to_string(),
    };
    if BOOLEANS.contains(&name) {
        return match v {
            Value::Null => Ok(None),
            v => boolean(v)
                .map(|b| Some(Value::Bool(b)))
                .ok_or_else(|| ScimError::invalid_value(format!("{path} must be a boolean."))),
        };
    }
    match v {
        Value::Null => Ok(None),
        Value::String(s) if s.is_empty() => Ok(None),
        Value::String(s) if s.chars().count() > MAX_TEXT => Err(ScimError::invalid_value(format!(
            "{path} may have at most {MAX_TEXT} characters."
        ))),
        Value::String(s) => Ok(Some(Value::String(s.clone()))),
        Value::Object(o) if sub.is_none() && has_subs(attr) => {
            let mut out = Map::new();
            for (k, v) in o {
                // An extension's value may name its own schema; it is not an attribute.
                let Some(s) = canonical_sub(attr, k) else {
                    continue;
                };
                if let Some(v) = value_of(attr, Some(s), v)? {
                    out.insert(s.into(), v);
                }
            }
            Ok((!out.is_empty()).then_some(Value::Object(out)))
        }
        _ => Err(ScimError::invalid_value(format!(
            "{path} must be {}.",
            if has_subs(attr) && sub.is_none() {
                "an object"
            } else {
                "a string"
            }
        ))),
    }
}

fn has_subs(attr: &str) -> bool {
    ATTRIBUTES.iter().any(|(a, s)| *a == attr && !s.is_empty())
}

/// The attributes of a User this service keeps, canonical: known names in their casing,
/// booleans as booleans, a multi-valued attribute as an array (one object is one value),
/// `schemas`, `id`, `meta` and unknown attributes dropped. An enterprise attribute written
/// with its schema prefix (`urn:...:User:organization`) goes into the extension.
pub fn canonical(user: &Map<String, Value>) -> Result<Map<String, Value>, ScimError> {
    let mut out = Map::new();
    for (key, v) in user {
        if let Some(sub) = strip_urn(key, ENTERPRISE) {
            let mut ext = Map::new();
            ext.insert(sub.to_string(), v.clone());
            merge_ext(&mut out, value_of(ENTERPRISE, None, &Value::Object(ext))?);
            continue;
        }
        let key = strip_urn(key, USER).unwrap_or(key);
        let Some(attr) = canonical_name(key) else {
            continue;
        };
        let value = if MULTI.contains(&attr) {
            multi(attr, v)?
        } else if attr == ENTERPRISE {
            merge_ext(&mut out, value_of(attr, None, v)?);
            continue;
        } else {
            value_of(attr, None, v)?
        };
        if let Some(value) = value {
            out.insert(attr.into(), value);
        }
    }
    Ok(out)
}

/// `key` without its schema's `urn` and colon (`urn:...:User:title` is `title`), any case.
/// Slices only at `get`-checked boundaries: a key is client input and may hold any UTF-8.
pub fn strip_urn<'a>(key: &'a str, urn: &str) -> Option<&'a str> {
    key.get(..urn.len())
        .filter(|p| p.eq_ignore_ascii_case(urn))
        .and_then(|_| key.get(urn.len()..))
        .and_then(|rest| rest.strip_prefix(':'))
}

fn merge_ext(out: &mut Map<String, Value>, ext: Option<Value>) {
    if let Some(Value::Object(ext)) = ext {
        let entry = out
            .entry(ENTERPRISE)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(e) = entry {
            e.extend(ext);
        }
    }
}

fn multi(attr: &str, v: &Value) -> Result<Option<Value>, ScimError> {
    let items = match v {
        Value::Null => return Ok(None),
        Value::Array(items) => items.as_slice(),
        one => std::slice::from_ref(one),
    };
    if items.len() > MAX_VALUES {
        return Err(ScimError::invalid_value(format!(
            "{attr} may have at most {MAX_VALUES} values."
        )));
    }
    let mut out = Vec::new();
    for item in items {
        if !item.is_object() {
            return Err(ScimError::invalid_value(format!(
                "each value of {attr} must be an object."
            )));
        }
        if let Some(v) = value_of(attr, None, item)? {
            out.push(v);
        }
    }
    Ok((!out.is_empty()).then_some(Value::Array(out)))
}

fn text<'a>(u: &'a Map<String, Value>, attr: &str) -> Option<&'a str> {
    u.get(attr).and_then(Value::as_str)
}

fn sub_text<'a>(v: &'a Value, sub: &str) -> Option<&'a str> {
    v.get(sub).and_then(Value::as_str)
}

/// The value of a multi-valued attribute the card keeps: the `primary` one, else the first
/// of each type in `types`, else the first.
fn pick<'a>(u: &'a Map<String, Value>, attr: &str, types: &[&str]) -> Option<(usize, &'a Value)> {
    let items = u.get(attr)?.as_array()?;
    let at = |i: usize| items.get(i).map(|v| (i, v));
    items
        .iter()
        .position(|v| v.get("primary") == Some(&Value::Bool(true)))
        .or_else(|| {
            types.iter().find_map(|t| {
                items
                    .iter()
                    .position(|v| sub_text(v, "type").is_some_and(|x| x.eq_ignore_ascii_case(t)))
            })
        })
        .map_or_else(|| at(0), at)
}

const EMAIL_TYPES: &[&str] = &["work"];
const PHONE_TYPES: &[&str] = &["work", "mobile"];
const ADDRESS_TYPES: &[&str] = &["work"];
const ADDRESS_PARTS: [&str; 5] = [
    "streetAddress",
    "locality",
    "region",
    "postalCode",
    "country",
];

/// An address as one text: its `formatted`, else its parts joined.
fn address_text(a: &Value) -> Option<String> {
    if let Some(f) = sub_text(a, "formatted") {
        return Some(f.to_string());
    }
    let parts: Vec<&str> = ADDRESS_PARTS
        .iter()
        .filter_map(|p| sub_text(a, p))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A card field that is one attribute's value as it stands: the rows of provisioning.md 2's
/// table that copy a value (no pick among values, no conversion). Declared once, so
/// the card a User makes, the User a card reads as, the attribute an error names and the
/// column a filter compares cannot disagree.
pub struct Pair {
    /// The attribute, and the sub-attribute within it when it is complex.
    pub attr: &'static str,
    pub sub: Option<&'static str>,
    /// The card field in the card API's name, which is also its column.
    pub field: &'static str,
    /// Whether `GET /Users?filter=` may compare it (on its column).
    pub filtered: bool,
    /// Whether its strings compare case-sensitively (RFC 7643 `caseExact`).
    pub case_exact: bool,
    /// The card's value of the field.
    pub card: fn(&Card) -> Option<&str>,
    /// What the field is when the User has no value (the card needs both names).
    absent: Option<Derived>,
}

/// A field's value made of other attributes of the User.
type Derived = fn(&Map<String, Value>) -> String;

/// A card field's value, whether the field is required or optional.
trait Text {
    fn text(&self) -> Option<&str>;
}

impl Text for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl Text for Option<String> {
    fn text(&self) -> Option<&str> {
        self.as_deref()
    }
}

/// One [`Pair`], its card field named once (its API name and its value).
macro_rules! pair {
    ($attr:expr, $sub:expr => $field:ident, filtered: $filtered:expr,
        case_exact: $exact:expr, absent: $absent:expr) => {
        Pair {
            attr: $attr,
            sub: $sub,
            field: stringify!($field),
            filtered: $filtered,
            case_exact: $exact,
            card: |c| Text::text(&c.$field),
            absent: $absent,
        }
    };
}

/// How many [`PAIRS`] there are.
const PAIRED: usize = 5;

/// The attribute <-> field pairs. `organization` has no filter: the service never offered one.
pub static PAIRS: [Pair; PAIRED] = [
    pair!("name", Some("givenName") => first_name,
        filtered: true, case_exact: false, absent: Some(derived_given)),
    pair!("name", Some("familyName") => last_name,
        filtered: true, case_exact: false, absent: Some(derived_family)),
    pair!("title", None => job_title, filtered: true, case_exact: false, absent: None),
    pair!(ENTERPRISE, Some("organization") => company,
        filtered: false, case_exact: false, absent: None),
    pair!("externalId", None => external_id, filtered: true, case_exact: true, absent: None),
];

impl Pair {
    /// The path filters and PATCH write (`name.givenName`, `urn:...:User:organization`).
    #[cfg(test)]
    pub fn path(&self) -> String {
        match self.sub {
            Some(s) if self.attr == ENTERPRISE => format!("{ENTERPRISE}:{s}"),
            Some(s) => format!("{}.{s}", self.attr),
            None => self.attr.to_string(),
        }
    }

    /// The attribute as an error detail names it: the path, an extension's by its own name
    /// as the spec's table does (`organization`).
    fn attribute(&self) -> String {
        match self.sub {
            Some(s) if self.attr == ENTERPRISE => s.to_string(),
            Some(s) => format!("{}.{s}", self.attr),
            None => self.attr.to_string(),
        }
    }

    /// The User's value, as written.
    fn value<'a>(&self, u: &'a Map<String, Value>) -> Option<&'a str> {
        let v = u.get(self.attr)?;
        match self.sub {
            Some(s) => sub_text(v, s),
            None => v.as_str(),
        }
    }

    /// What the card's field is for the User.
    fn mapped(&self, u: &Map<String, Value>) -> Option<String> {
        self.value(u)
            .map(str::to_string)
            .or_else(|| self.absent.map(|derive| derive(u)))
    }
}

/// `attr` written anew from the card: a complex one holds its pairs' values only (its
/// other sub-attributes, `formatted`, `middleName`, were of the old values); `None` when
/// that leaves nothing.
fn anew(attr: &str, card: &Card) -> Option<Value> {
    let mut o = Map::new();
    for p in PAIRS.iter().filter(|p| p.attr == attr) {
        let Some(v) = (p.card)(card) else {
            continue;
        };
        match p.sub {
            Some(s) => o.insert(s.into(), v.into()),
            None => return Some(v.into()),
        };
    }
    (!o.is_empty()).then_some(Value::Object(o))
}

/// What the card's fields are for a canonical User, by provisioning.md's table.
struct Mapped {
    /// The values of [`PAIRS`], in its order.
    pairs: [Option<String>; PAIRED],
    email: Option<String>,
    phone: Option<String>,
    address: Option<String>,
    /// `None`: no `preferredLanguage`, or one whose language part is none of the codes.
    language: Option<String>,
    /// `None`: no `active`.
    status: Option<Status>,
}

impl Mapped {
    /// What a User without `preferredLanguage` / `active` is taken for by a new card.
    fn language_or_default(&self) -> &str {
        self.language.as_deref().unwrap_or(DEFAULT_LANGUAGE)
    }

    fn status_or_default(&self) -> Status {
        self.status.unwrap_or(Status::Active)
    }
}

/// Names when `name` gives none: displayName split at its last space, else userName's part
/// before `@`. A single word is both names (the card needs two).
fn derived_names(u: &Map<String, Value>) -> (String, String) {
    let source = text(u, "displayName")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .or_else(|| text(u, "userName").map(|n| n.split('@').next().unwrap_or(n).trim()))
        .unwrap_or_default();
    match source.rsplit_once(' ') {
        Some((first, last)) if !first.trim().is_empty() => {
            (first.trim().to_string(), last.trim().to_string())
        }
        _ => (source.to_string(), source.to_string()),
    }
}

fn derived_given(u: &Map<String, Value>) -> String {
    derived_names(u).0
}

fn derived_family(u: &Map<String, Value>) -> String {
    derived_names(u).1
}

fn mapped(u: &Map<String, Value>) -> Mapped {
    let language = text(u, "preferredLanguage")
        .map(|l| l.split(['-', '_']).next().unwrap_or(l).to_ascii_lowercase())
        .filter(|l| is_language(l));
    Mapped {
        pairs: PAIRS.each_ref().map(|p| p.mapped(u)),
        email: pick(u, "emails", EMAIL_TYPES)
            .and_then(|(_, v)| sub_text(v, "value"))
            .map(str::to_string),
        phone: pick(u, "phoneNumbers", PHONE_TYPES)
            .and_then(|(_, v)| sub_text(v, "value"))
            .map(str::to_string),
        address: pick(u, "addresses", ADDRESS_TYPES).and_then(|(_, a)| address_text(a)),
        language,
        status: match u.get("active") {
            Some(Value::Bool(false)) => Some(Status::Archived),
            Some(_) => Some(Status::Active),
            None => None,
        },
    }
}

/// The card fields a User maps to, in the card API's names, for the card's own checks.
/// A User without `active` or a usable `preferredLanguage` maps to an active card in the
/// default language: an attribute removed reads back absent (RFC 7644 3.5.2.2), which it
/// could not if the card kept an archived status or another language.
fn card_body(u: &Map<String, Value>) -> Map<String, Value> {
    let m = mapped(u);
    let opt = |v: Option<String>| v.map_or(Value::Null, Value::String);
    let mut b = Map::new();
    for (p, v) in PAIRS.iter().zip(&m.pairs) {
        b.insert(p.field.into(), opt(v.clone()));
    }
    b.insert("email".into(), opt(m.email.clone()));
    b.insert("phone".into(), opt(m.phone.clone()));
    b.insert("address".into(), opt(m.address.clone()));
    b.insert("language".into(), m.language_or_default().into());
    b.insert("status".into(), m.status_or_default().as_str().into());
    b
}

/// The card fields whose attributes (by provisioning.md's table, [`PAIRS`] first) the User
/// leaves without a value: a SCIM write keeps a template's locked value there (teams.md 1).
pub fn left_out(user: &Map<String, Value>) -> Vec<&'static str> {
    let Ok(u) = canonical(user) else {
        return vec![];
    };
    let m = mapped(&u);
    let mut out: Vec<&'static str> = PAIRS
        .iter()
        .zip(&m.pairs)
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| p.field)
        .collect();
    for (field, v) in [
        ("email", &m.email),
        ("phone", &m.phone),
        ("address", &m.address),
        ("language", &m.language),
    ] {
        if v.is_none() {
            out.push(field);
        }
    }
    out
}

/// The SCIM attribute a card field comes from, for error details.
fn attribute_of(field: &str) -> String {
    if let Some(p) = PAIRS.iter().find(|p| p.field == field) {
        return p.attribute();
    }
    match field {
        "email" => "emails",
        "phone" => "phoneNumbers",
        "address" => "addresses",
        "language" => "preferredLanguage",
        other => other,
    }
    .into()
}

fn invalid(errors: FieldErrors) -> ScimError {
    let e = errors.to_json();
    let detail = e
        .as_object()
        .and_then(|m| m.iter().next())
        .map(|(field, messages)| {
            let message = messages.get(0).and_then(Value::as_str).unwrap_or_default();
            format!("{}: {message}", attribute_of(field))
        })
        .unwrap_or_else(|| "A value breaks a card constraint.".into());
    ScimError::invalid_value(detail)
}

/// A User as written: its userName (required, also in `rest`) and the name's key, and the
/// rest, canonical.
struct Written {
    user_name: String,
    key: String,
    rest: Map<String, Value>,
}

/// The User `user` as written; `normalize` puts text into a normal form (the worker's is
/// `js::normalize`) for the userName's key.
fn written(
    user: &Map<String, Value>,
    normalize: impl Fn(&str, Form) -> String,
) -> Result<Written, ScimError> {
    let rest = canonical(user)?;
    let user_name = match rest.get("userName") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => return Err(ScimError::invalid_value("userName is required.")),
    };
    if let Some(c) = refused_char(&user_name) {
        return Err(ScimError::invalid_value(format!(
            "userName may not contain control or bidirectional formatting characters \
             (U+{:04X}).",
            c as u32
        )));
    }
    Ok(Written {
        key: user_name_key(&user_name, normalize),
        user_name,
        rest,
    })
}

/// The columns of the User besides the card's fields (userName and externalId have
/// columns of their own, so they leave the JSON).
fn stored(w: &Written) -> ScimColumns {
    let mut rest = w.rest.clone();
    rest.remove("userName");
    rest.remove("externalId");
    ScimColumns {
        name: Field::Set(w.user_name.clone()),
        key: Field::Set(w.key.clone()),
        rest: Field::Set(Value::Object(rest).to_string()),
    }
}

/// `POST /Users`: the card to make.
pub fn create_input(
    user: &Map<String, Value>,
    normalize: impl Fn(&str, Form) -> String,
) -> Result<CardInput, ScimError> {
    let w = written(user, normalize)?;
    let body = card_body(&w.rest);
    let mut input = CardInput::parse(&body).map_err(invalid)?;
    let status = mapped(&w.rest).status_or_default();
    input.set_scim(stored(&w), status);
    Ok(input)
}

/// `PUT /Users/{id}` (and a PATCH, once applied to the User as it was): every field the
/// table maps is set, or cleared when its attribute is absent; names are always set
/// (derived when `name` is absent), and without `active` or a usable `preferredLanguage`
/// the card is active in the default language (see [`card_body`]). The card's other
/// fields keep their values; a draft's status is the caller's to keep (`api::scim`).
pub fn replace_patch(
    user: &Map<String, Value>,
    normalize: impl Fn(&str, Form) -> String,
) -> Result<CardPatch, ScimError> {
    let w = written(user, normalize)?;
    let body = card_body(&w.rest);
    let mut patch = CardPatch::parse(&body).map_err(invalid)?;
    let columns = stored(&w);
    (patch.scim_user_name, patch.scim_user_key, patch.scim_user) =
        (columns.name, columns.key, columns.rest);
    Ok(patch)
}

/// The User of a card: the attributes as SCIM wrote them, where the card still has what
/// they map to; the card's own values where it changed since (or was never written by
/// SCIM). `base` is the service's URL (`.../scim/v2`).
pub fn to_user(card: &Card, base: &str) -> Map<String, Value> {
    let kept: Option<Map<String, Value>> = card
        .scim_user
        .as_deref()
        .and_then(|s| serde_json::from_str(s).ok());
    let by_scim = kept.is_some();
    let mut u = kept.unwrap_or_default();
    if let Some(n) = &card.scim_user_name {
        u.insert("userName".into(), n.clone().into());
    }
    let m = mapped(&u);
    // A field the API changed since SCIM wrote it: its attribute is written anew (twice
    // when both names changed, to the same value).
    for (p, v) in PAIRS.iter().zip(&m.pairs) {
        if v.as_deref() != (p.card)(card) {
            match anew(p.attr, card) {
                Some(v) => u.insert(p.attr.into(), v),
                None => u.remove(p.attr),
            };
        }
    }
    if m.email != card.email {
        one_value(
            &mut u,
            "emails",
            EMAIL_TYPES,
            "value",
            card.email.as_deref(),
        );
    }
    if m.phone != card.phone {
        one_value(
            &mut u,
            "phoneNumbers",
            PHONE_TYPES,
            "value",
            card.phone.as_deref(),
        );
    }
    if m.address != card.address {
        one_value(
            &mut u,
            "addresses",
            ADDRESS_TYPES,
            "formatted",
            card.address.as_deref(),
        );
    }
    if m.language_or_default() != card.language {
        u.insert("preferredLanguage".into(), card.language.clone().into());
    }
    if card.status == Status::Draft {
        // Neither active nor deactivated: shown as `false`, a PATCH of another attribute
        // (written back whole) would archive the draft.
        u.remove("active");
    } else if m.status_or_default() != card.status {
        u.insert("active".into(), (card.status == Status::Active).into());
    }
    if !by_scim {
        u.insert("displayName".into(), card.title.clone().into());
    }
    if !u.contains_key("userName") {
        // A card SCIM never wrote: its email, else a name of its id (both unique enough
        // to read; SCIM may set a real one).
        let name = card
            .email
            .clone()
            .unwrap_or_else(|| format!("card-{}", card.id));
        u.insert("userName".into(), name.into());
    }
    let mut out = Map::new();
    let mut schemas = vec![Value::from(USER)];
    if u.contains_key(ENTERPRISE) {
        schemas.push(ENTERPRISE.into());
    }
    out.insert("schemas".into(), schemas.into());
    out.insert("id".into(), card.id.to_string().into());
    out.extend(u);
    let mut meta = Map::new();
    meta.insert("resourceType".into(), "User".into());
    meta.insert("created".into(), iso8601(card.created_at).into());
    meta.insert("lastModified".into(), iso8601(card.updated_at).into());
    meta.insert(
        "location".into(),
        format!("{base}/Users/{}", card.id).into(),
    );
    out.insert("meta".into(), Value::Object(meta));
    out
}

/// The card's one value of a multi-valued attribute, changed by the API: the value the
/// table picks takes it (keeping its `type` and `primary`: its `display`, or an address's
/// parts, were of the old value and no longer hold), or goes with it; none picked, a new
/// `work` value.
fn one_value(u: &mut Map<String, Value>, attr: &str, types: &[&str], sub: &str, v: Option<&str>) {
    let at = pick(u, attr, types).map(|(i, _)| i);
    let items = u.entry(attr).or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(items) = items else {
        return;
    };
    match (at, v) {
        (Some(i), Some(v)) => {
            if let Some(Value::Object(item)) = items.get_mut(i) {
                item.retain(|k, _| k == "type" || k == "primary");
                item.insert(sub.into(), v.into());
            }
        }
        (Some(i), None) => {
            items.remove(i);
        }
        (None, Some(v)) => {
            let mut item = Map::new();
            item.insert(sub.into(), v.into());
            item.insert("type".into(), "work".into());
            item.insert("primary".into(), true.into());
            items.push(Value::Object(item));
        }
        (None, None) => {}
    }
    if items.is_empty() {
        u.remove(attr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::card::fixture;
    use crate::domain::email_key::native;
    use serde_json::json;

    fn create_input(user: &Map<String, Value>) -> Result<CardInput, ScimError> {
        super::create_input(user, native)
    }

    fn replace_patch(user: &Map<String, Value>) -> Result<CardPatch, ScimError> {
        super::replace_patch(user, native)
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    /// The card a create would store (as SQLite would hand it back).
    fn card_of(user: Value) -> Card {
        let input = create_input(&obj(user)).expect("valid user");
        let p = input.fields().clone();
        let mut card = fixture("[]");
        card.first_name = p.first_name.clone().unwrap_or_default();
        card.last_name = p.last_name.clone().unwrap_or_default();
        card.title = format!("{} {}", card.first_name, card.last_name);
        card.job_title = p.job_title.value().cloned();
        card.company = p.company.value().cloned();
        card.email = p.email.value().cloned();
        card.phone = p.phone.value().cloned();
        card.address = p.address.value().cloned();
        card.external_id = p.external_id.value().cloned();
        card.language = p.language.clone().unwrap_or_else(|| "en".into());
        card.status = p.status.unwrap_or(Status::Active);
        card.scim_user_name = p.scim_user_name.value().cloned();
        card.scim_user = p.scim_user.value().cloned();
        card
    }

    fn read(card: &Card) -> Value {
        let mut u = to_user(card, "https://x.example/scim/v2");
        u.remove("meta");
        Value::Object(u)
    }

    #[test]
    fn a_user_reads_back_as_written() {
        let user = json!({
            "schemas": [USER, ENTERPRISE],
            "userName": "ada@example.com", "externalId": "e-1",
            "name": {"givenName": "Ada", "familyName": "Lovelace", "formatted": "Ada L."},
            "displayName": "Countess", "title": "Analyst", "preferredLanguage": "de-AT",
            "active": false,
            "emails": [{"value": "home@example.com", "type": "home", "primary": false},
                       {"value": "ada@example.com", "type": "work"}],
            "phoneNumbers": [{"value": "0123 45", "type": "mobile", "primary": false}],
            "addresses": [{"streetAddress": "1 Main St", "locality": "London", "type": "work"}],
            (ENTERPRISE): {"organization": "Engines"},
            "password": "never kept", "nickName": "not kept"
        });
        let card = card_of(user.clone());
        assert_eq!(
            (card.first_name.as_str(), card.last_name.as_str()),
            ("Ada", "Lovelace")
        );
        assert_eq!(
            card.email.as_deref(),
            Some("ada@example.com"),
            "the first work one"
        );
        assert_eq!(card.phone.as_deref(), Some("0123 45"));
        assert_eq!(card.address.as_deref(), Some("1 Main St, London"));
        assert_eq!(
            (card.language.as_str(), card.status),
            ("de", Status::Archived)
        );
        assert_eq!(card.company.as_deref(), Some("Engines"));
        let mut expected = user;
        let e = expected.as_object_mut().unwrap();
        e.remove("password");
        e.remove("nickName");
        e.insert("id".into(), json!("1"));
        assert_eq!(read(&card), expected);
    }

    #[test]
    fn names_come_from_name_else_display_name_else_user_name() {
        let c = card_of(json!({"userName": "x", "displayName": "Mary Ann Smith"}));
        assert_eq!(
            (c.first_name.as_str(), c.last_name.as_str()),
            ("Mary Ann", "Smith")
        );
        let c = card_of(json!({"userName": "jo.doe@example.com"}));
        assert_eq!(
            (c.first_name.as_str(), c.last_name.as_str()),
            ("jo.doe", "jo.doe")
        );
        let u = read(&c);
        assert!(u.get("name").is_none(), "no name was written: {u}");
        assert!(
            u.get("active").is_none() && u.get("preferredLanguage").is_none(),
            "{u}"
        );
    }

    #[test]
    fn changes_through_the_api_show() {
        let mut c = card_of(
            json!({"userName": "u", "emails": [{"value": "a@example.com",
            "type": "work", "primary": true}], "title": "T"}),
        );
        c.email = Some("b@example.com".into());
        c.job_title = None;
        c.first_name = "New".into();
        c.status = Status::Archived;
        c.language = "fr".into();
        let u = read(&c);
        assert_eq!(
            u["emails"],
            json!([{"value": "b@example.com", "type": "work", "primary": true}])
        );
        assert!(u.get("title").is_none());
        assert_eq!(u["name"]["givenName"], "New");
        assert_eq!(
            (u["active"].clone(), u["preferredLanguage"].clone()),
            (json!(false), json!("fr"))
        );
    }

    #[test]
    fn a_card_scim_never_wrote_is_a_user_too() {
        let mut c = fixture("[]");
        c.first_name = "Bo".into();
        c.last_name = "Li".into();
        c.title = "Bo Li".into();
        c.email = Some("bo@example.com".into());
        c.language = "en".into();
        let u = read(&c);
        assert_eq!(u["userName"], "bo@example.com");
        assert_eq!(u["displayName"], "Bo Li");
        assert_eq!(u["name"], json!({"givenName": "Bo", "familyName": "Li"}));
        assert_eq!(u["emails"][0]["value"], "bo@example.com");
    }

    #[test]
    fn put_clears_what_is_absent_and_keeps_entra_shapes() {
        let p = replace_patch(&obj(json!({"UserName": "u", "ACTIVE": "False",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization": "Org"})))
        .unwrap();
        assert_eq!(p.status, Some(Status::Archived));
        assert_eq!(p.company, Field::Set("Org".into()));
        assert_eq!(p.job_title, Field::Null);
        assert_eq!(p.email, Field::Null);
        assert_eq!(p.external_id, Field::Null);
        assert_eq!(
            p.language.as_deref(),
            Some("en"),
            "no preferredLanguage: the default"
        );
        assert_eq!(p.scim_user_name, Field::Set("u".into()));
    }

    #[test]
    fn put_sets_or_clears_every_mapped_field() {
        let p = replace_patch(&obj(json!({"userName": "u"}))).unwrap();
        for f in [&p.job_title, &p.company, &p.email, &p.phone, &p.address] {
            assert_eq!(*f, Field::Null);
        }
        assert_eq!(p.external_id, Field::Null);
        // Absent: active, in the default language, so a removed attribute reads back absent.
        assert_eq!(
            (p.status, p.language.as_deref()),
            (Some(Status::Active), Some("en"))
        );
        assert_eq!(
            (p.first_name.as_deref(), p.last_name.as_deref()),
            (Some("u"), Some("u")),
            "names are always set"
        );
        // Fields SCIM does not map are not in the patch at all.
        assert_eq!(
            (p.bio.clone(), p.website.clone()),
            (Field::Absent, Field::Absent)
        );
        assert_eq!(p.is_public, None);
        let p = replace_patch(&obj(json!({"userName": "u", "active": true,
            "preferredLanguage": "zh-CN"})))
        .unwrap();
        assert_eq!(
            (p.status, p.language.as_deref()),
            (Some(Status::Active), Some("en")),
            "not a card language: the default"
        );
        // A create likewise.
        let i = create_input(&obj(json!({"userName": "u", "preferredLanguage": "xx"}))).unwrap();
        assert_eq!(i.fields().language.as_deref(), Some("en"));
        assert_eq!(i.fields().status, Some(Status::Active));
    }

    /// Each row of provisioning.md 2's table, on its own.
    #[test]
    fn the_mapping_table_row_by_row() {
        let card = |extra: Value| {
            let mut u = obj(json!({"userName": "u@x.example"}));
            u.extend(obj(extra));
            create_input(&u).unwrap().fields().clone()
        };
        let f = card(json!({"externalId": "ext 1"}));
        assert_eq!(f.external_id, Field::Set("ext 1".into()));
        assert_eq!(f.scim_user_name, Field::Set("u@x.example".into()));
        let f = card(json!({"title": "CTO"}));
        assert_eq!(f.job_title, Field::Set("CTO".into()));
        let f = card(json!({(ENTERPRISE): {"Organization": "Acme"}}));
        assert_eq!(f.company, Field::Set("Acme".into()));
        let f = card(json!({"displayName": "Shown As Given"}));
        let kept: Value = serde_json::from_str(f.scim_user.value().unwrap()).unwrap();
        assert_eq!(kept["displayName"], "Shown As Given");

        let email = |emails: Value| card(json!({ "emails": emails })).email;
        let e = |v: &str| Field::Set(v.to_string());
        assert_eq!(
            email(json!([{"value": "h@x.example", "type": "home"},
                {"value": "w@x.example", "type": "work"},
                {"value": "p@x.example", "primary": "True"}])),
            e("p@x.example")
        );
        assert_eq!(
            email(json!([{"value": "h@x.example", "type": "home"},
                {"value": "w@x.example", "type": "Work"}])),
            e("w@x.example")
        );
        assert_eq!(
            email(json!([{"value": "h@x.example", "type": "home"},
                {"value": "o@x.example", "type": "other"}])),
            e("h@x.example")
        );
        assert_eq!(email(json!({"value": "one@x.example"})), e("one@x.example"));

        let phone = |phones: Value| card(json!({ "phoneNumbers": phones })).phone;
        let (h, m, w, p) = (
            json!({"value": "1", "type": "home"}),
            json!({"value": "2", "type": "mobile"}),
            json!({"value": "3", "type": "work"}),
            json!({"value": "4", "type": "fax", "primary": true}),
        );
        assert_eq!(phone(json!([h, m, w, p])), e("4"));
        assert_eq!(phone(json!([h, m, w])), e("3"));
        assert_eq!(phone(json!([h, m])), e("2"));
        assert_eq!(phone(json!([h])), e("1"));

        let address = |a: Value| card(json!({ "addresses": a })).address;
        assert_eq!(
            address(json!([{"formatted": "Home 1", "type": "home"},
                {"formatted": "Work 1\nBerlin", "streetAddress": "ignored", "type": "work"}])),
            e("Work 1\nBerlin")
        );
        assert_eq!(
            address(json!([{"type": "work", "streetAddress": "Main St 1",
                "locality": "Berlin", "region": "BE", "postalCode": "10115", "country": "DE"}])),
            e("Main St 1, Berlin, BE, 10115, DE")
        );
        assert_eq!(
            address(
                json!([{"formatted": "H", "type": "home"}, {"formatted": "P", "primary": true}])
            ),
            e("P")
        );

        let language = |l: &str| card(json!({ "preferredLanguage": l })).language;
        assert_eq!(language("de-DE").as_deref(), Some("de"));
        assert_eq!(language("FR").as_deref(), Some("fr"));
        assert_eq!(language("pt_BR").as_deref(), Some("pt"));
        assert_eq!(language("uk").as_deref(), Some("uk"));
        assert_eq!(
            language("ja-JP").as_deref(),
            Some("en"),
            "not a card language"
        );

        let status = |a: Value| card(json!({ "active": a })).status;
        assert_eq!(status(json!(true)), Some(Status::Active));
        assert_eq!(status(json!(false)), Some(Status::Archived));
        assert_eq!(status(json!("False")), Some(Status::Archived));
        assert_eq!(status(json!("TRUE")), Some(Status::Active));
    }

    #[test]
    fn attribute_names_are_case_insensitive_and_may_carry_the_urn() {
        let f = create_input(&obj(json!({
            "USERNAME": "u", "Title": "T", "EMAILS": [{"VALUE": "a@x.example", "Type": "work"}],
            (format!("{USER}:displayName")): "D",
            (ENTERPRISE.to_uppercase()): {"organization": "O"},
            "id": "99", "meta": {"created": "x"}, "schemas": ["nope"], "groups": []
        })))
        .unwrap()
        .fields()
        .clone();
        assert_eq!(f.job_title, Field::Set("T".into()));
        assert_eq!(f.email, Field::Set("a@x.example".into()));
        assert_eq!(f.company, Field::Set("O".into()));
        let kept: Value = serde_json::from_str(f.scim_user.value().unwrap()).unwrap();
        assert_eq!(kept["displayName"], "D");
        assert!(
            kept.get("id").is_none() && kept.get("meta").is_none(),
            "{kept}"
        );
        // Any UTF-8 in a key, also where a URN would end, is just an unknown attribute.
        for key in [
            format!("{}é", &USER[..USER.len() - 1]),
            format!("{}é:x", &ENTERPRISE[..ENTERPRISE.len() - 1]),
            format!("{USER}é"),
            "ü".repeat(40),
        ] {
            let mut u = obj(json!({"userName": "u"}));
            u.insert(key, json!("v"));
            assert!(create_input(&u).is_ok());
        }
    }

    /// Each of [`PAIRS`] is one spelling: a User with only its attribute makes a card with
    /// the value in the field, reads back with it there, shows the value the API wrote
    /// since in the same place, and a value the card refuses is named by the attribute.
    #[test]
    fn each_pair_maps_and_reads_back_in_one_place() {
        for p in &PAIRS {
            let with = |v: &str| {
                let mut u = obj(json!({"userName": "u"}));
                let value = match p.sub {
                    Some(s) => json!({ (s): v }),
                    None => json!(v),
                };
                u.insert(p.attr.into(), value);
                u
            };
            let at = |u: &Value| match p.sub {
                Some(s) => u[p.attr][s].clone(),
                None => u[p.attr].clone(),
            };
            let card = card_of(Value::Object(with("Paired")));
            assert_eq!((p.card)(&card), Some("Paired"), "{}", p.field);
            assert_eq!(at(&read(&card)), "Paired", "{}", p.field);
            let mut changed = card_of(Value::Object(with("Changed")));
            changed.scim_user = card.scim_user.clone();
            assert_eq!(at(&read(&changed)), "Changed", "{}", p.field);
            let e = create_input(&with(&"x".repeat(300))).unwrap_err();
            assert!(
                e.detail.starts_with(&format!("{}: ", p.attribute())),
                "{}: {}",
                p.field,
                e.detail
            );
        }
    }

    /// An attribute written anew keeps only its pairs: right for `name` (its other
    /// sub-attributes describe the old names), and the extension keeps nothing else, or a
    /// card changed through the API would lose it.
    #[test]
    fn the_extension_keeps_only_paired_sub_attributes() {
        let (_, subs) = ATTRIBUTES.iter().find(|(a, _)| *a == ENTERPRISE).unwrap();
        for sub in *subs {
            assert!(
                PAIRS
                    .iter()
                    .any(|p| p.attr == ENTERPRISE && p.sub == Some(sub)),
                "{sub}"
            );
        }
    }

    #[test]
    fn a_single_word_is_both_names() {
        let p = replace_patch(&obj(json!({"userName": "u", "displayName": "Cher"}))).unwrap();
        assert_eq!(
            (p.first_name.as_deref(), p.last_name.as_deref()),
            (Some("Cher"), Some("Cher"))
        );
        // A partial `name` takes the rest from the derivation.
        let p = replace_patch(&obj(json!({"userName": "u", "displayName": "Ada Lovelace",
            "name": {"givenName": "Augusta"}})))
        .unwrap();
        assert_eq!(
            (p.first_name.as_deref(), p.last_name.as_deref()),
            (Some("Augusta"), Some("Lovelace"))
        );
    }

    /// A PATCH writes the whole User back: a draft card (which no client activated) must
    /// not be archived by a change of another attribute, and an archived one stays so.
    #[test]
    fn a_patch_written_back_keeps_the_status() {
        let mut c = card_of(json!({"userName": "u", "title": "T"}));
        for status in [Status::Archived, Status::Active] {
            c.status = status;
            let u = to_user(&c, "https://x.example/scim/v2");
            let p = replace_patch(&u).unwrap();
            assert_eq!(p.status, Some(status), "{u:?}");
        }
        // A draft is neither active nor deactivated: no `active` (api::scim keeps the
        // draft when a PATCH writes the User back without one).
        c.status = Status::Draft;
        assert!(read(&c).get("active").is_none());
        c.language = "de".into();
        let p = replace_patch(&to_user(&c, "https://x.example/scim/v2")).unwrap();
        assert_eq!(p.language.as_deref(), Some("de"));
    }

    /// Okta's POST /Users (developer.okta.com, "SCIM 2.0 protocol", Create the user):
    /// `locale`, `groups` and `password` are not kept.
    #[test]
    fn okta_create_user() {
        let body = json!({"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName":"test.user@okta.local","name":{"givenName":"Test","familyName":"User"},
            "emails":[{"primary":true,"value":"test.user@okta.local","type":"work"}],
            "displayName":"Test User","locale":"en-US","externalId":"00ujl29u0le5T6Aj10h7",
            "groups":[],"password":"1mz050nq","active":true});
        let c = card_of(body);
        assert_eq!(
            (c.first_name.as_str(), c.last_name.as_str()),
            ("Test", "User")
        );
        assert_eq!(c.email.as_deref(), Some("test.user@okta.local"));
        assert_eq!(c.external_id.as_deref(), Some("00ujl29u0le5T6Aj10h7"));
        assert_eq!((c.status, c.language.as_str()), (Status::Active, "en"));
        let u = read(&c);
        assert_eq!(u["userName"], "test.user@okta.local");
        assert_eq!(u["displayName"], "Test User");
        assert_eq!(u["active"], true);
        for gone in ["password", "groups", "locale"] {
            assert!(u.get(gone).is_none(), "{gone}: {u}");
        }
        assert_eq!(u["schemas"], json!([USER]), "no extension written");
    }

    /// Okta's Update a specific User (PUT) (developer.okta.com, "SCIM 2.0 protocol
    /// reference"), issue 44: every sub-attribute of RFC 7643 4.1's `name`, `emails`,
    /// `phoneNumbers` and `addresses` it (or anyone) writes reads back as written,
    /// `middleName` and `display` included.
    #[test]
    fn okta_put_reads_back_every_sub_attribute() {
        let put = json!({"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
            "id":"1","userName":"test.user@okta.local",
            "name":{"givenName":"Another","middleName":"Excited","familyName":"User"},
            "emails":[{"primary":true,"value":"test.user@okta.local","type":"work",
                "display":"test.user@okta.local"}],
            "active":true,"groups":[],"meta":{"resourceType":"User"}});
        let c = card_of(put);
        let u = read(&c);
        assert_eq!(
            u["name"],
            json!({"givenName": "Another", "middleName": "Excited", "familyName": "User"})
        );
        assert_eq!(
            u["emails"],
            json!([{"primary": true, "value": "test.user@okta.local", "type": "work",
                "display": "test.user@okta.local"}])
        );
        let every = json!({"userName": "u",
            "name": {"formatted": "Dr. Ada B. Lovelace III", "familyName": "Lovelace",
                "givenName": "Ada", "middleName": "B.", "honorificPrefix": "Dr.",
                "honorificSuffix": "III"},
            "emails": [{"value": "a@x.example", "display": "Ada", "type": "work",
                "primary": true}],
            "phoneNumbers": [{"value": "+1 555", "display": "+1 (555)", "type": "mobile",
                "primary": true}],
            "addresses": [{"formatted": "1 Main St, London", "streetAddress": "1 Main St",
                "locality": "London", "region": "LDN", "postalCode": "N1",
                "country": "GB", "type": "work", "primary": true}]});
        let mut expected = every.clone();
        expected["id"] = json!("1");
        expected["schemas"] = json!([USER]);
        assert_eq!(read(&card_of(every)), expected);
    }

    /// A value changed through the API keeps its `type` and `primary`; its `display` was
    /// of the old value and goes.
    #[test]
    fn a_display_goes_with_the_value_the_api_changed() {
        let mut c = card_of(json!({"userName": "u",
            "emails": [{"value": "a@example.com", "display": "A", "type": "work"}],
            "phoneNumbers": [{"value": "1", "display": "one", "type": "work"}]}));
        c.email = Some("b@example.com".into());
        let u = read(&c);
        assert_eq!(
            u["emails"],
            json!([{"value": "b@example.com", "type": "work"}])
        );
        assert_eq!(
            u["phoneNumbers"],
            json!([{"value": "1", "display": "one", "type": "work"}]),
            "unchanged"
        );
    }

    /// Entra ID's Create User (learn.microsoft.com, "Tutorial: Develop and plan
    /// provisioning for a SCIM endpoint", User Operations), with the enterprise extension
    /// object its attribute mappings send.
    #[test]
    fn entra_create_user() {
        let body = json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User",
                "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
            "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
            "userName": "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
            "active": true,
            "emails": [{"primary": true, "type": "work",
                "value": "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com"}],
            "meta": {"resourceType": "User"},
            "name": {"formatted": "givenName familyName", "familyName": "familyName",
                "givenName": "givenName"},
            "roles": [],
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {
                "department": "Sales", "organization": "Contoso",
                "manager": {"value": "26118915-6090-4610-87a4-57ec3fb8dd14"}}
        });
        let c = card_of(body);
        assert_eq!(
            (c.first_name.as_str(), c.last_name.as_str()),
            ("givenName", "familyName")
        );
        assert_eq!(c.company.as_deref(), Some("Contoso"));
        assert_eq!(
            c.email.as_deref(),
            Some("Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com")
        );
        let u = read(&c);
        assert_eq!(u["schemas"], json!([USER, ENTERPRISE]));
        assert_eq!(
            u[ENTERPRISE],
            json!({"organization": "Contoso"}),
            "only what is kept"
        );
        assert_eq!(u["name"]["formatted"], "givenName familyName");
        assert!(u.get("roles").is_none());
    }

    #[test]
    fn meta_and_ids_of_a_user() {
        let c = card_of(json!({"userName": "u", "externalId": "x"}));
        let u = to_user(&c, "https://x.example/scim/v2");
        assert_eq!(u["id"], "1");
        assert_eq!(u["externalId"], "x");
        assert_eq!(u["meta"]["resourceType"], "User");
        assert_eq!(u["meta"]["location"], "https://x.example/scim/v2/Users/1");
        assert!(u["meta"]["created"].as_str().unwrap().ends_with('Z'));
        assert!(u["meta"]["lastModified"].is_string());
        assert!(u.values().all(|v| !v.is_null()), "absent, not null: {u:?}");
    }

    #[test]
    fn card_rules_give_invalid_value_naming_the_attribute() {
        let e = create_input(&obj(
            json!({"userName": "u", "emails": [{"value": "nope"}]}),
        ))
        .unwrap_err();
        assert_eq!((e.status, e.scim_type), (400, Some("invalidValue")));
        assert!(e.detail.starts_with("emails: "), "{}", e.detail);
        let e = create_input(&obj(
            json!({"userName": "u", "phoneNumbers": [{"value": "abc"}]}),
        ))
        .unwrap_err();
        assert!(e.detail.starts_with("phoneNumbers: "), "{}", e.detail);
        let e = create_input(&obj(json!({"displayName": "x"}))).unwrap_err();
        assert!(e.detail.contains("userName"));
        let e = create_input(&obj(json!({"userName": "u", "active": "maybe"}))).unwrap_err();
        assert!(e.detail.contains("active"));
        let many: Vec<Value> = (0..11)
            .map(|i| json!({"value": format!("{i}@x.example")}))
            .collect();
        assert!(create_input(&obj(json!({"userName": "u", "emails": many}))).is_err());
        let long = "x".repeat(151);
        for (body, attr) in [
            (json!({"userName": "u", "title": long}), "title: "),
            (
                json!({"userName": "u", (ENTERPRISE): {"organization": long}}),
                "organization: ",
            ),
            (
                json!({"userName": "u", "name": {"givenName": "x".repeat(101)}}),
                "name.givenName: ",
            ),
            (
                json!({"userName": "u", "externalId": "tab\there"}),
                "externalId: ",
            ),
            (
                json!({"userName": "u", "emails": [{"value": "a@x.example", "primary": "yes"}]}),
                "emails.primary",
            ),
            (json!({"userName": 7}), "userName"),
            (json!({"userName": "   "}), "userName"),
        ] {
            let e = replace_patch(&obj(body)).unwrap_err();
            assert_eq!(e.scim_type, Some("invalidValue"));
            assert!(e.detail.starts_with(attr), "{attr}: {}", e.detail);
        }
    }
}
